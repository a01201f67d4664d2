"""`Agent`: instructions, tools and a model, and how the run should treat tool results."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal

from ._context import RunContextWrapper, TContext, ToolContext
from ._function_tool import FunctionTool, ToolErrorFunction, function_tool, tool_output_text
from ._handoffs import Handoff, tool_safe
from ._hosted_tools import HostedTool
from ._settings import ModelSettings
from ._tool_errors import default_tool_error_function
from .exceptions import UserError
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
    handoffs: Sequence[Agent[Any] | Handoff] = field(default_factory=list[Any])
    """Agents this one may pass the conversation to (an `Agent`, or `handoff(agent, ...)`)."""
    handoff_mode: Literal["tool_per_agent", "one_tool"] = "tool_per_agent"
    """`tool_per_agent`: a `transfer_to_<name>` tool each; `one_tool`: one `transfer` tool
    whose `agent` parameter is an enum of exactly the targets plus "none"."""
    tool_use_behavior: ToolUseBehavior = "run_llm_again"
    """After tool calls: ask the model again (default), stop at the first tool's output,
    stop at some tools (`StopAtTools`), or decide with a function."""
    reset_tool_choice: bool = True
    """After a turn with tool calls, drop a forced `tool_choice` so it cannot loop forever."""
    output_type: Any = None
    """None for a text answer, or a type the answer must be (its strict schema is sent)."""

    def as_tool(
        self,
        tool_name: str | None = None,
        tool_description: str | None = None,
        custom_output_extractor: Callable[[Any], str | Awaitable[str]] | None = None,
        max_turns: int = 10,
        failure_error_function: ToolErrorFunction | None = default_tool_error_function,
    ) -> FunctionTool:
        """This agent as a tool another agent calls: a nested run, and its answer as text.

        Args:
            tool_name: The tool's name; default the agent's name, made tool-safe.
            tool_description: The tool's description; default `handoff_description`.
            custom_output_extractor: Turns the nested `RunResult` into the tool's output.
            max_turns: The nested run's turn limit.
            failure_error_function: What the calling model gets when the nested run fails.

        Returns:
            A tool with one parameter, `input`; the calling agent keeps control.
        """
        agent = self

        async def run_agent(ctx: ToolContext[Any], input: str) -> str:
            """Ask the agent.

            Args:
                ctx: The calling run's context, shared with the nested run.
                input: The request for the agent, with everything it needs to know.
            """
            from ._runner import Runner  # noqa: PLC0415 - the runner imports agents

            result = await Runner.run(agent, input, context=ctx.context, max_turns=max_turns)
            ctx.usage.add(result.usage)
            if result.interruptions:
                raise UserError(
                    f"Agent '{agent.name}', used as a tool, paused for approval of "
                    f"{', '.join(i.tool_name for i in result.interruptions)}: approvals inside "
                    "an agent used as a tool are not supported; give that tool to the outer agent"
                )
            if custom_output_extractor is None:
                return tool_output_text(result.final_output)
            output = custom_output_extractor(result)
            return await output if inspect.isawaitable(output) else output

        return function_tool(
            name_override=tool_name or tool_safe(self.name),
            description_override=tool_description
            or self.handoff_description
            or f"Ask {self.name}.",
            failure_error_function=failure_error_function,
        )(run_agent)

    def clone(self, **changes: Any) -> Agent[TContext]:
        """A copy of this agent with some fields changed.

        Args:
            **changes: New values, by field name.

        Returns:
            The new agent.
        """
        return dataclasses.replace(self, **changes)
