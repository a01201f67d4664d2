"""`Agent`: instructions, tools and a model, and how the run should treat tool results."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal

from ._context import RunContextWrapper, TContext
from ._function_tool import FunctionTool
from ._hosted_tools import HostedTool
from ._settings import ModelSettings
from .models import Model

__all__ = ["Agent", "FunctionToolResult", "StopAtTools", "ToolsToFinalOutputResult"]


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
Instructions = str | Callable[[RunContextWrapper[Any], "Agent[Any]"], "str | Awaitable[str]"] | None


@dataclass
class Agent(Generic[TContext]):
    """An LLM with instructions and tools, run by `Runner`."""

    name: str
    """The agent's name, for results and handoffs."""
    instructions: Instructions = None
    """The system prompt: a string, or a sync/async function of the run context and agent."""
    tools: Sequence[FunctionTool | HostedTool] = field(
        default_factory=list[FunctionTool | HostedTool]
    )
    """The tools it may call."""
    model: str | Model | None = None
    """A model name, a `Model`, or None for the default."""
    model_settings: ModelSettings = field(default_factory=ModelSettings)
    """Sampling and tool-use settings."""
    handoff_description: str | None = None
    """What this agent does, for agents that hand off to it."""
    tool_use_behavior: ToolUseBehavior = "run_llm_again"
    """After tool calls: ask the model again (default), stop at the first tool's output,
    stop at some tools (`StopAtTools`), or decide with a function."""
    reset_tool_choice: bool = True
    """After a turn with tool calls, drop a forced `tool_choice` so it cannot loop forever."""
    output_type: Any = None
    """None for a text answer, or a type the answer must be (its strict schema is sent)."""

    def clone(self, **changes: Any) -> Agent[TContext]:
        """A copy of this agent with some fields changed.

        Args:
            **changes: New values, by field name.

        Returns:
            The new agent.
        """
        return dataclasses.replace(self, **changes)
