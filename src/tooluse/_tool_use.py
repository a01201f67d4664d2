"""What happens after a turn's tool calls: `tool_use_behavior` and its types."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ._context import RunContextWrapper
from ._function_tool import FunctionTool

__all__ = [
    "FunctionToolResult",
    "StopAtTools",
    "ToolUseBehavior",
    "ToolsToFinalOutputFunction",
    "ToolsToFinalOutputResult",
]


@dataclass(frozen=True)
class FunctionToolResult:
    """One function tool call's outcome in a turn."""

    tool: FunctionTool
    """The tool that ran."""
    call_id: str
    """The model's id for the call."""
    output: str
    """The text the model receives."""


@dataclass(frozen=True)
class ToolsToFinalOutputResult:
    """What a `tool_use_behavior` function decides after a turn's tool calls."""

    is_final_output: bool
    """Whether the run ends here."""
    final_output: Any = None
    """The run's final output, when it ends."""


@dataclass(frozen=True)
class StopAtTools:
    """End the run when the model calls one of these tools; its output is the final output."""

    tool_names: Sequence[str]
    """The tools that end the run."""


ToolsToFinalOutputFunction = Callable[
    [RunContextWrapper[Any], list[FunctionToolResult]],
    "ToolsToFinalOutputResult | Awaitable[ToolsToFinalOutputResult]",
]
ToolUseBehavior = (
    Literal["run_llm_again", "stop_on_first_tool"] | StopAtTools | ToolsToFinalOutputFunction
)
