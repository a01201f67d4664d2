"""Running a turn's planned tool calls: concurrently, each within its timeout.

Every planned call ends as a `CallOutcome`: the text the model receives and
whether the call failed (an unknown tool, bad arguments, an exception, a
timeout). A group's one output is that text, or, for a parallel wrapper, a
JSON array of each inner call's tool and output.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

from ._context import RunContextWrapper, ToolContext
from ._function_tool import FunctionTool, ToolErrorFunction
from ._tool_calls import CallGroup, PlannedCall

__all__ = ["CallOutcome", "GroupOutcome", "ToolExecutor"]


@dataclass(frozen=True)
class CallOutcome:
    """How one call ended."""

    name: str
    """The tool's name."""
    output: str
    """The text the model receives."""
    failed: bool
    """Whether the call failed, for the error budget."""
    tool: FunctionTool | None = None
    """The tool that ran, if one did."""
    handoff: Any = None
    """An agent the tool handed off to (a Swarm-style return)."""
    context_variables: dict[str, Any] | None = None
    """Values the tool merges into the run context."""


@dataclass(frozen=True)
class GroupOutcome:
    """How one call id is answered."""

    group: CallGroup
    """The calls behind the id."""
    output: str
    """The one output for the id."""
    calls: list[CallOutcome]
    """Each call's outcome."""

    @property
    def failed(self) -> bool:
        """Whether nothing in the group worked."""
        return all(call.failed for call in self.calls)


@dataclass
class ToolExecutor:
    """Runs planned calls with the run's context and its defaults."""

    context: RunContextWrapper[Any]
    """The run's context."""
    timeout: float | None = None
    """Seconds a call may take when its tool sets no timeout."""
    failure_error_function: ToolErrorFunction | None = None
    """The run-wide text for failures, for tools that kept the default."""
    log_tool_errors: bool = False
    """Whether tool exceptions are logged with their messages."""

    async def run(self, groups: list[CallGroup]) -> list[GroupOutcome]:
        """Run every call of every group at once; answer each group.

        Args:
            groups: The planned calls.

        Returns:
            One outcome per group, in the same order.
        """
        pending = [[self._call(group.call_id, call) for call in group.calls] for group in groups]
        flat = await asyncio.gather(*(call for calls in pending for call in calls))
        outcomes: list[GroupOutcome] = []
        position = 0
        for group in groups:
            calls = list(flat[position : position + len(group.calls)])
            position += len(group.calls)
            outcomes.append(GroupOutcome(group, _group_output(group, calls), calls))
        return outcomes

    async def _call(self, call_id: str, planned: PlannedCall) -> CallOutcome:
        tool = planned.tool
        if tool is None:
            return CallOutcome(planned.name, planned.error or "", failed=True)
        ctx = ToolContext(
            context=self.context.context,
            usage=self.context.usage,
            tool_name=tool.name,
            tool_call_id=call_id,
            tool_arguments=planned.arguments,
        )
        ctx._run_error_function = self.failure_error_function  # pyright: ignore[reportPrivateUsage]
        ctx._log_tool_errors = self.log_tool_errors  # pyright: ignore[reportPrivateUsage]
        timeout = tool.timeout or self.timeout
        if timeout is not None:
            _ = ctx.cancelled  # made here, before the tool's thread could race to make it
        try:
            output = await asyncio.wait_for(tool.on_invoke_tool(ctx, planned.arguments), timeout)
        except asyncio.TimeoutError:  # the builtin TimeoutError too, from Python 3.11
            ctx.cancelled.set()
            message = (
                f"Tool '{tool.name}' timed out after {timeout:g} s and was stopped. "
                "Try a smaller request, or another approach."
            )
            return CallOutcome(tool.name, message, failed=True, tool=tool)
        return CallOutcome(
            tool.name,
            output,
            failed=ctx.error is not None,
            tool=tool,
            handoff=ctx._handoff,  # pyright: ignore[reportPrivateUsage]
            context_variables=ctx._context_variables,  # pyright: ignore[reportPrivateUsage]
        )


def _group_output(group: CallGroup, calls: list[CallOutcome]) -> str:
    if group.error is not None:
        return group.error
    if not group.wrapper:
        return calls[0].output
    answers = [{"tool": call.name, "output": call.output} for call in calls]
    return json.dumps(answers, ensure_ascii=False)
