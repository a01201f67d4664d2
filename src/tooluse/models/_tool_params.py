"""What the model sees of a function tool, in each OpenAI API's request format.

A request's `tools` list is the same from one turn and one run to the next
unless the agent's tools change, and at hundreds of tools building it is most
of a run's cost: the lists of params are kept per list of function tools, and
used again while that list compares equal (each tool the same, or with equal
fields: equal tools have equal params) and no tool's offered field was set
again since (`_tool_changes.py`). A list with a hosted tool, whose fields are
not watched, is built afresh every time. `GeminiModel` keeps its declarations the same way
(their schemas rewritten into Gemini's dialect).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeAlias

from ..exceptions import UserError
from ..schema._strict_rules import check_tool_name
from ..tools._changes import changes
from ..tools._function_tool import FunctionTool
from ..tools._hosted import FileSearchTool, HostedTool

if TYPE_CHECKING:  # types only: importing openai costs 0.3 s, paid at the first model call
    from openai.types.chat import ChatCompletionFunctionToolParam
    from openai.types.responses import FunctionToolParam
    from openai.types.shared_params import FunctionDefinition

__all__ = [
    "chat_completions_tool_param",
    "chat_completions_tools_params",
    "includes_search_results",
    "kept_params",
    "only_function_tools",
    "responses_tool_param",
    "responses_tools_params",
    "tool_namespace",
]


def chat_completions_tool_param(tool: FunctionTool) -> ChatCompletionFunctionToolParam:
    """Serialise a tool for the Chat Completions API's `tools` list.

    Args:
        tool: The tool to offer.

    Returns:
        `{"type": "function", "function": {"name", "description", "parameters", "strict"}}`.
    """
    function: FunctionDefinition = {"name": tool.name}
    if tool.description is not None:
        function["description"] = tool.description
    function["parameters"] = tool.params_json_schema
    function["strict"] = tool.strict_json_schema
    return {"type": "function", "function": function}


def responses_tool_param(tool: FunctionTool) -> FunctionToolParam:
    """Serialise a tool for the Responses API's `tools` list.

    Args:
        tool: The tool to offer.

    Returns:
        `{"type": "function", "name", "description", "parameters", "strict"}`.
    """
    param: FunctionToolParam = {"type": "function", "name": tool.name}  # type: ignore[typeddict-item]
    if tool.description is not None:
        param["description"] = tool.description
    param["parameters"] = tool.params_json_schema
    param["strict"] = tool.strict_json_schema
    return param


Tool: TypeAlias = FunctionTool | HostedTool
"""A tool a request offers."""
ToolParam: TypeAlias = Mapping[str, object]
"""A tool as a request's `tools` list holds it (the API's JSON shape)."""

_CACHE_SIZE = 64
"""At most this many lists are kept (then all are dropped): an app has a few agents."""
_kept: dict[tuple[str, int, int, int], tuple[list[Tool], int, list[ToolParam]]] = {}
"""(API, length, first and last tool's ids) -> (the tools, `changes()` then, the params)."""


def kept_params(
    api: str, tools: Sequence[Tool], build: Callable[[Sequence[Tool]], list[ToolParam]]
) -> list[ToolParam]:
    """`build(tools)`, kept for the next request offering the same function tools.

    Any API's params may be kept (Gemini's declarations too, whose schemas are rewritten
    into its dialect): `api` keeps each API's apart.

    Args:
        api: The API the params are for.
        tools: The tools offered.
        build: Makes the params for the tools (raising for a tool the API cannot take).

    Returns:
        A new list each time (the caller may add to it); the params in it are shared.
    """
    if not tools or not isinstance(tools, list):
        return build(tools)
    kept = _kept_for(api, tools)
    if kept is not None:
        return list(kept)
    key = (api, len(tools), id(tools[0]), id(tools[-1]))
    count = changes()  # before building: a change made meanwhile makes this entry stale
    params = build(tools)
    if all(type(tool) is FunctionTool for tool in tools):  # hosted tools' fields change unseen
        if len(_kept) >= _CACHE_SIZE:
            _kept.clear()
        _kept[key] = (list(tools), count, params)
    return list(params)


def _kept_for(api: str, tools: Sequence[Tool]) -> list[ToolParam] | None:
    """The params kept for these tools, if they are still theirs."""
    if not tools or not isinstance(tools, list):
        return None
    kept = _kept.get((api, len(tools), id(tools[0]), id(tools[-1])))
    if kept is None or kept[1] != changes() or kept[0] != tools:
        return None
    return kept[2]


def includes_search_results(tools: Sequence[Tool]) -> bool:
    """Whether a `FileSearchTool` among the tools asks for its results in the response.

    Args:
        tools: The tools offered.

    Returns:
        True if the request must include `file_search_call.results`.
    """
    if _kept_for("responses", tools) is not None:
        return False  # only lists of function tools are kept
    return any(isinstance(t, FileSearchTool) and t.include_search_results for t in tools)


def only_function_tools(tools: Sequence[Tool]) -> bool:
    """Whether every tool offered is a function tool (none is hosted).

    Args:
        tools: The tools offered.

    Returns:
        True for no tools, or function tools only.
    """
    if _kept_for("responses", tools) is not None:
        return True  # only lists of function tools are kept
    return all(isinstance(tool, FunctionTool) for tool in tools)


def chat_completions_tools_params(tools: Sequence[Tool]) -> list[ToolParam]:
    """The Chat Completions API's `tools` list.

    Args:
        tools: The tools offered: function tools only.

    Returns:
        One param per tool.

    Raises:
        UserError: If a hosted tool is among them: Chat Completions has none.
    """
    return kept_params("chat", tools, _chat_params)


def _chat_params(tools: Sequence[Tool]) -> list[ToolParam]:
    return [_chat_param(tool) for tool in tools]


def _chat_param(tool: Tool) -> ToolParam:
    if isinstance(tool, FunctionTool):
        return chat_completions_tool_param(tool)
    raise UserError(
        f"The hosted tool {type(tool).__name__} ('{tool.name}') works only with the Responses "
        "API: use OpenAIResponsesModel (the default for a model name), or remove the tool"
    )


def responses_tools_params(tools: Sequence[Tool]) -> list[ToolParam]:
    """The Responses API's `tools` list: function tools of one namespace grouped together.

    Args:
        tools: The function and hosted tools offered.

    Returns:
        One param per tool; a namespace's tools inside one `{"type": "namespace"}` param,
        where its first tool stands.

    Raises:
        UserError: If a tool is offered through tool search (`defer_loading=True`), which
            needs a tool search tool tooluse does not declare yet.
    """
    return kept_params("responses", tools, _responses_params)


def _refuse_deferred(tool: FunctionTool) -> None:
    raise UserError(
        f"Tool '{tool.name}' has defer_loading=True: the Responses API offers it only "
        "through tool search, which tooluse does not declare yet (no ToolSearchTool), so "
        "the model could never reach it; drop defer_loading=True to offer it as any tool"
    )


def _responses_params(tools: Sequence[Tool]) -> list[ToolParam]:
    params: list[ToolParam] = []
    groups: dict[str, list[ToolParam]] = {}
    for tool in tools:
        if not isinstance(tool, FunctionTool):
            params.append(tool.to_tool_param())
            continue
        if tool.defer_loading:
            _refuse_deferred(tool)
        if tool.namespace is None:
            params.append(responses_tool_param(tool))
        elif tool.namespace in groups:
            groups[tool.namespace].append(responses_tool_param(tool))
        else:
            groups[tool.namespace] = [responses_tool_param(tool)]
            params.append(
                {
                    "type": "namespace",
                    "name": tool.namespace,
                    "description": tool.namespace_description or "",
                    "tools": groups[tool.namespace],
                }
            )
    return params


def tool_namespace(
    *, name: str, description: str | None, tools: Sequence[FunctionTool]
) -> list[FunctionTool]:
    """Group function tools under a namespace, as the Responses API offers them to the model.

    On the Responses API the tools are sent inside one `namespace` tool; on Chat
    Completions, which has no namespaces, as plain function tools. A tool keeps its
    own name: names must stay distinct across namespaces (`PrefixedToolset` helps).

    Args:
        name: The namespace's name, e.g. "crm".
        description: What its tools are for.
        tools: The function tools to group.

    Returns:
        Copies of the tools, in the namespace.

    Raises:
        UserError: The name or description is empty, a tool is not a `FunctionTool`, or the
            name is not one the API accepts.
    """
    name = name.strip() if isinstance(name, str) else ""  # pyright: ignore[reportUnnecessaryIsInstance]
    if isinstance(tools, FunctionTool):
        tools = [tools]  # one tool given alone: as if in a list
    problems = [f"name: {v.message}" for v in check_tool_name(name)] if name else []
    if not name:
        problems.append("name must be a non-empty namespace name, e.g. 'crm'")
    if not isinstance(description, str) or not description.strip():  # pyright: ignore[reportUnnecessaryIsInstance]
        problems.append(
            "it needs a non-empty description saying what the namespace's tools are for"
        )
    problems.extend(
        f"tools[{index}] is named {name!r} like the namespace: the Responses API reports a "
        f"deferred top-level tool {name!r} under the synthetic namespace `{name}.{name}`, "
        "so calls would be ambiguous; rename the namespace or the tool"
        for index, tool in enumerate(tools)
        if isinstance(tool, FunctionTool) and name and tool.name == name  # pyright: ignore[reportUnnecessaryIsInstance]
    )
    problems.extend(
        f"tools[{index}] is {type(tool).__name__}, not a FunctionTool"
        for index, tool in enumerate(tools)
        if not isinstance(tool, FunctionTool)  # pyright: ignore[reportUnnecessaryIsInstance]
    )
    if problems:
        raise UserError(f"tool_namespace({name!r}): " + "; ".join(problems))
    described = (description or "").strip()
    return [_in_namespace(tool, name, described) for tool in tools]


def _in_namespace(tool: FunctionTool, name: str, description: str) -> FunctionTool:
    """A copy of `tool` in the namespace.

    Copied, not built again, so that a subclass with a constructor of its own (which
    `dataclasses.replace` would call) keeps working.
    """
    copied = copy.copy(tool)
    copied.namespace, copied.namespace_description = name, description
    return copied
