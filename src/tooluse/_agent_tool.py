"""An agent used as a tool: a nested run whose answer is the tool's output."""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ._context import ToolContext
from ._function_tool import FunctionTool, function_tool
from ._handoffs import tool_safe
from ._invocation import Invoker, ToolErrorFunction, tool_output_text
from ._runner import RunOptions, _Run  # pyright: ignore[reportPrivateUsage]
from .exceptions import UsageLimitExceeded, UserError

if TYPE_CHECKING:
    from ._agent import Agent
    from ._result import RunResult

__all__ = ["agent_as_tool", "tool_agent"]

_AGENTS: weakref.WeakKeyDictionary[Callable[..., Any], Agent[Any]] = weakref.WeakKeyDictionary()
"""The agent each agent tool's function asks (a tool renamed with `replace` keeps it)."""


def tool_agent(tool: FunctionTool) -> Agent[Any] | None:
    """The agent `tool` asks, if it is an agent used as a tool.

    Args:
        tool: Any function tool.

    Returns:
        The agent; None for any other tool.
    """
    invoker = tool.on_invoke_tool
    return _AGENTS.get(invoker.func) if isinstance(invoker, Invoker) else None


def agent_as_tool(
    agent: Agent[Any],
    tool_name: str | None,
    tool_description: str | None,
    custom_output_extractor: Callable[[RunResult], str | Awaitable[str]] | None,
    max_turns: int,
    failure_error_function: ToolErrorFunction | None,
) -> FunctionTool:
    """`agent` as a tool with one parameter, `input`: a nested run, its answer as text.

    Args:
        agent: The agent.
        tool_name: The tool's name; default the agent's name, made tool-safe.
        tool_description: The description; default the agent's `handoff_description`.
        custom_output_extractor: Turns the nested `RunResult` into the tool's output.
        max_turns: The nested run's turn limit.
        failure_error_function: What the calling model gets when the nested run fails.

    Returns:
        The tool. The nested run shares the caller's context, run settings and usage:
        what it uses counts toward the caller's totals and limits as it goes (its
        result's `usage` is the caller's), and a limit it reaches stops the caller's run.
    """

    async def run_agent(ctx: ToolContext[Any], input: str) -> str:
        """Ask the agent.

        Args:
            ctx: The calling run's context, shared with the nested run.
            input: The request for the agent, with everything it needs to know.
        """
        options: RunOptions = {"context": ctx.context, "max_turns": max_turns}
        options["run_config"] = ctx.run_config
        try:
            # The caller's Usage itself: the nested run counts toward the caller's totals
            # and limits as it goes, whether it answers or stops.
            result = await _Run(agent, input, options, usage=ctx.usage).execute()
        except UsageLimitExceeded as error:
            # The caller's run stops, at its own place in its own conversation.
            raise UsageLimitExceeded(error.limit, error.value, error.used) from None
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

    _AGENTS[run_agent] = agent
    return function_tool(
        name_override=tool_name or tool_safe(agent.name),
        description_override=tool_description or agent.handoff_description or f"Ask {agent.name}.",
        failure_error_function=failure_error_function,
    )(run_agent)
