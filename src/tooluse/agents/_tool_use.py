"""What happens after a turn's tool calls: `tool_use_behavior` and its types."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypedDict, cast

from ..core._context import RunContextWrapper
from ..exceptions import UserError
from ..tools._function_tool import FunctionTool

__all__ = [
    "FunctionToolResult",
    "StopAtTools",
    "ToolUseBehavior",
    "ToolsToFinalOutputFunction",
    "ToolsToFinalOutputResult",
    "check_tool_use_behavior",
]


@dataclass(frozen=True)
class FunctionToolResult:
    """One function tool call's outcome in a turn."""

    tool: FunctionTool
    """The tool that ran."""
    call_id: str
    """The model's id for the call."""
    output: Any
    """What the tool returned, as a Python value (the model receives it as text); for a
    failed call, the text the model receives. With `stop_on_first_tool` or `StopAtTools` it
    is the run's final output."""


@dataclass(frozen=True)
class ToolsToFinalOutputResult:
    """What a `tool_use_behavior` function decides after a turn's tool calls."""

    is_final_output: bool
    """Whether the run ends here."""
    final_output: Any = None
    """The run's final output, when it ends."""


class StopAtTools(TypedDict):
    """End the run when the model calls one of these tools; its output is the final output.

    A dict, as in openai-agents: `StopAtTools(stop_at_tool_names=["book"])` and
    `{"stop_at_tool_names": ["book"]}` are the same value.
    """

    stop_at_tool_names: Sequence[str]
    """The tools that end the run; the first of them called in a turn gives the output."""


ToolsToFinalOutputFunction = Callable[
    [RunContextWrapper[Any], list[FunctionToolResult]],
    "ToolsToFinalOutputResult | Awaitable[ToolsToFinalOutputResult]",
]
ToolUseBehavior = (
    Literal["run_llm_again", "stop_on_first_tool"] | StopAtTools | ToolsToFinalOutputFunction
)
"""After a turn's tool calls: ask the model again, stop at the first tool's output, stop at
some tools, or decide with a function."""


def check_tool_use_behavior(owner: str, behavior: object) -> None:
    """Refuse a `tool_use_behavior` the run could not follow, when the agent is built.

    Args:
        owner: Who holds it, for the message (e.g. "Agent 'triage'").
        behavior: The value given.

    Raises:
        UserError: It is none of the accepted forms.
    """
    if isinstance(behavior, dict):
        given = cast("dict[object, object]", behavior)
        if set(given) == {"stop_at_tool_names"} and _is_names(given["stop_at_tool_names"]):
            return
        raise UserError(
            f"{owner}: tool_use_behavior={behavior!r} is not a StopAtTools; write "
            'StopAtTools(stop_at_tool_names=["tool", ...]) (a dict with only that key, '
            "a list of tool names)"
        )
    if behavior in ("run_llm_again", "stop_on_first_tool") or callable(behavior):
        return
    raise UserError(
        f"{owner}: tool_use_behavior={behavior!r} is not one of 'run_llm_again', "
        "'stop_on_first_tool', StopAtTools(stop_at_tool_names=[...]) or a function of the run "
        "context and the turn's list of FunctionToolResult"
    )


def _is_names(names: object) -> bool:
    return isinstance(names, list | tuple) and all(
        isinstance(name, str) for name in cast("Sequence[object]", names)
    )
