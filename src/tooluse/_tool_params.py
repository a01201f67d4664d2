"""What the model sees of a function tool, in each OpenAI API's request format."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ._function_tool import FunctionTool
from ._strict_rules import check_tool_name
from .exceptions import UserError

if TYPE_CHECKING:  # types only: importing openai costs 0.3 s, paid at the first model call
    from openai.types.chat import ChatCompletionFunctionToolParam
    from openai.types.responses import FunctionToolParam
    from openai.types.shared_params import FunctionDefinition

__all__ = [
    "chat_completions_tool_param",
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


def responses_tools_params(tools: Sequence[Any]) -> list[Any]:
    """The Responses API's `tools` list: function tools of one namespace grouped together.

    Args:
        tools: The function and hosted tools offered.

    Returns:
        One param per tool; a namespace's tools inside one `{"type": "namespace"}` param,
        where its first tool stands.
    """
    params: list[Any] = []
    groups: dict[str, list[Any]] = {}
    for tool in tools:
        if not isinstance(tool, FunctionTool):
            params.append(tool.to_tool_param())
        elif tool.namespace is None:
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
        problems.append("description must say what the namespace's tools are for")
    problems.extend(
        f"tools[{index}] is {type(tool).__name__}, not a FunctionTool"
        for index, tool in enumerate(tools)
        if not isinstance(tool, FunctionTool)  # pyright: ignore[reportUnnecessaryIsInstance]
    )
    if problems:
        raise UserError(f"tool_namespace({name!r}): " + "; ".join(problems))
    described = (description or "").strip()
    return [replace(tool, namespace=name, namespace_description=described) for tool in tools]
