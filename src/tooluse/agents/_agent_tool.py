"""An agent used as a tool: a nested run whose answer is the tool's output.

The tool is defined here, with the agent; its call is a run, which the run loop
makes. The run loop sits above this layer, so it hands its way of running an agent
in (`runs_agent_tools_with`) when `tooluse.run` is imported, which importing
`tooluse` always does.
"""

from __future__ import annotations

import weakref
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple, TypedDict

from ..core._agent_base import AgentBase
from ..core._context import ToolContext
from ..core._items import TResponseInputItem
from ..exceptions import UserError
from ..tools._function_tool import FunctionTool, function_tool, keep_function_unexposed
from ..tools._invocation import Invoker, ToolErrorFunction
from ._agent_tool_input import StructuredInput
from ._handoffs import tool_safe

__all__ = [
    "AgentToolCall",
    "AgentToolStreamEvent",
    "AgentToolStreamHandler",
    "OutputExtractor",
    "agent_as_tool",
    "runs_agent_tools_with",
    "tool_agent",
]

OutputExtractor = Callable[[Any], "str | Awaitable[str]"]
"""Turns the nested run's `RunResult` into the tool's output (typed Any here: `RunResult`
is defined in the run loop's layer, above this one)."""


class AgentToolStreamEvent(TypedDict):
    """One event of an agent tool's nested run, as `as_tool(on_stream=...)` receives it."""

    event: Any
    """The nested run's stream event (a `RunStreamEvent`: typed Any here, as the stream
    events are defined in the run loop's layer, above this one)."""
    agent: AgentBase
    """The nested run's agent answering when the event came (an `Agent`)."""
    tool_call: Any | None
    """The calling model's `function_call` item (`call_id`, `name`, `arguments`, read as
    keys or attributes)."""


AgentToolStreamHandler = Callable[[AgentToolStreamEvent], "Awaitable[None] | None"]
"""Receives each event of an agent tool's nested run; sync or async."""


class AgentToolCall(NamedTuple):
    """One call of an agent tool: what the run loop needs to make the nested run."""

    agent: AgentBase
    """The agent to run (an `Agent`)."""
    input: str | list[TResponseInputItem]
    """What the calling model asked it (made from its arguments, for structured input)."""
    context: ToolContext[Any]
    """The call's context: the nested run shares its context object, settings and usage."""
    max_turns: int
    """The nested run's turn limit."""
    output_extractor: OutputExtractor | None
    """Turns the nested `RunResult` into the output; None takes the final output as text."""
    on_stream: AgentToolStreamHandler | None = None
    """Receives the nested run's stream events (the run is then streamed); None runs it
    whole."""
    run_config: object = None
    """The nested run's `RunConfig` (typed `object` here: it is defined in the run loop's
    layer); None runs it with the caller's."""


_run: list[Callable[[AgentToolCall], Awaitable[str]]] = []
"""How the run loop runs an agent tool's call (set once, by `tooluse.run`)."""

_AGENTS: weakref.WeakKeyDictionary[Callable[..., object], AgentBase] = weakref.WeakKeyDictionary()
"""The agent each agent tool's function asks (a tool renamed with `replace` keeps it)."""


def runs_agent_tools_with(run: Callable[[AgentToolCall], Awaitable[str]]) -> None:
    """Set how an agent tool's call is run: the run loop's nested run.

    Args:
        run: Makes the nested run for a call, and returns the tool's output.
    """
    _run[:] = [run]


def tool_agent(tool: FunctionTool) -> AgentBase | None:
    """The agent `tool` asks, if it is an agent used as a tool.

    Args:
        tool: Any function tool.

    Returns:
        The agent; None for any other tool.
    """
    invoker = tool.on_invoke_tool
    return _AGENTS.get(invoker.func) if isinstance(invoker, Invoker) else None


def agent_as_tool(
    agent: AgentBase,
    tool_name: str | None,
    tool_description: str | None,
    custom_output_extractor: OutputExtractor | None,
    max_turns: int,
    failure_error_function: ToolErrorFunction | None,
    structured: StructuredInput | None = None,
    on_stream: AgentToolStreamHandler | None = None,
    run_config: object = None,
) -> FunctionTool:
    """`agent` as a tool: a nested run, its answer as text.

    Args:
        agent: The agent.
        tool_name: The tool's name; default the agent's name, made tool-safe.
        tool_description: The description; default the agent's `handoff_description`.
        custom_output_extractor: Turns the nested `RunResult` into the tool's output.
        max_turns: The nested run's turn limit.
        failure_error_function: What the calling model gets when the nested run fails.
        structured: The tool's parameters, when they are a type's fields; None offers
            one parameter, `input`.
        on_stream: Receives the nested run's stream events; None runs it whole.
        run_config: The nested run's `RunConfig`; None runs it with the caller's.

    Returns:
        The tool. The nested run shares the caller's context, run settings and usage:
        what it uses counts toward the caller's totals and limits as it goes (its
        result's `usage` is the caller's), and a limit it reaches stops the caller's run.
    """

    async def ask(ctx: ToolContext[Any], nested: str | list[TResponseInputItem]) -> str:
        if not _run:  # pragma: no cover - importing tooluse imports the run loop
            raise UserError("An agent tool was called before tooluse.run was imported")
        call = AgentToolCall(
            agent, nested, ctx, max_turns, custom_output_extractor, on_stream, run_config
        )
        return await _run[0](call)

    if structured is None:

        async def run_agent(ctx: ToolContext[Any], input: str) -> str:
            """Ask the agent.

            Args:
                ctx: The calling run's context, shared with the nested run.
                input: The request for the agent, with everything it needs to know.
            """
            return await ask(ctx, input)

        tool_function: Callable[..., Awaitable[str]] = run_agent
    else:
        tool_function = _structured_function(structured, ask)
    _AGENTS[tool_function] = agent
    keep_function_unexposed(tool_function)
    return function_tool(
        name_override=tool_name or tool_safe(agent.name),
        description_override=tool_description or agent.handoff_description or f"Ask {agent.name}.",
        failure_error_function=failure_error_function,
    )(tool_function)


def _structured_function(
    structured: StructuredInput,
    ask: Callable[[ToolContext[Any], str | list[TResponseInputItem]], Awaitable[str]],
) -> Callable[..., Awaitable[str]]:
    """The tool's function for structured input: the type's fields as its parameters."""

    async def run_agent_structured(ctx: ToolContext[Any], **fields: Any) -> str:
        return await ask(ctx, await structured.nested_input(fields))

    signature = structured.signature()
    run_agent_structured.__signature__ = signature  # pyright: ignore[reportFunctionMemberAccess]
    run_agent_structured.__annotations__ = {
        **{name: p.annotation for name, p in signature.parameters.items()},
        "return": str,
    }
    run_agent_structured.__doc__ = f"Ask the agent, with {structured.parameters.__name__}'s fields."
    return run_agent_structured
