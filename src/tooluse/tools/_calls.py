"""A function tool's call under the run's settings, whatever made the tool.

A decorated tool's `Invoker` and a remote stand-in's `RemoteInvoker` report the
whole outcome of a call (text, rich parts, failure) and keep to the timeout
themselves; a hand-built `on_invoke_tool` returns text or a value written as JSON,
and is held to the timeout here. What a timeout means for a tool (a message for the
model, or the run stops) is decided in `timed_out`.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Awaitable
from typing import Any

from ..core._context import ToolContext
from ..exceptions import ToolTimeoutError
from ._function_tool import FunctionTool
from ._invocation import (
    NO_SETTINGS,
    Invoker,
    InvokeSettings,
    ToolOutcome,
    UnwritableOutput,
    returned_outcome,
    run_within,
    timeout_text,
    unwritable_outcome,
)
from ._threads import CallTimedOut

__all__ = [
    "RemoteInvoker",
    "invoke_function_tool",
    "invoke_with_timeout",
    "invoke_within",
    "timed_out",
]


class RemoteInvoker(ABC):
    """A stand-in tool's `on_invoke_tool`: runs the call elsewhere, reports its outcome.

    A durable integration (`tooluse.temporal`) offers stand-ins in place of a run's
    function tools, so that each call runs somewhere else (an activity).
    """

    async def __call__(self, ctx: ToolContext[Any], arguments: str) -> str:
        """The output text, as any `on_invoke_tool` returns it."""
        return (await self.invoke(ctx, arguments, NO_SETTINGS)).output

    @abstractmethod
    async def invoke(
        self, ctx: ToolContext[Any], arguments: str, settings: InvokeSettings
    ) -> ToolOutcome:
        """Run the call with the model's arguments and the run's settings.

        Args:
            ctx: The call's context.
            arguments: The raw JSON arguments.
            settings: The run's timeout and failure settings.

        Returns:
            The outcome, as the tool's own invoker would give it.
        """


def invoke_within(
    tool: FunctionTool, ctx: ToolContext[Any], arguments: str, settings: InvokeSettings
) -> Awaitable[ToolOutcome]:
    """The tool's call within `settings`, as an awaitable.

    A decorated or remote tool's own coroutine is returned as it is: no coroutine of
    this function's own stays alive while it runs (`tooluse.run._lean`: a coroutine
    returned, not awaited).

    Args:
        tool: The tool.
        ctx: The call's context.
        arguments: The model's JSON arguments.
        settings: The run's timeout, failure text and logging.

    Returns:
        The call's outcome, once awaited.
    """
    invoker = tool.on_invoke_tool
    if isinstance(invoker, Invoker | RemoteInvoker):
        return invoker.invoke(ctx, arguments, settings)
    return _invoke_hand_built(tool, ctx, arguments, settings)


async def _invoke_hand_built(
    tool: FunctionTool, ctx: ToolContext[Any], arguments: str, settings: InvokeSettings
) -> ToolOutcome:
    """A hand-built tool: its exceptions are its own; a decorated tool it wraps sets ctx.error."""
    call = tool.on_invoke_tool(ctx, arguments)
    timeout = settings.timeout
    output = await (call if timeout is None else run_within(call, timeout, ctx))
    try:
        return returned_outcome(output, tool.name, failed=ctx.error is not None)
    except UnwritableOutput as error:
        return unwritable_outcome(ctx, error)


async def timed_out(tool: FunctionTool, ctx: ToolContext[Any], limit: CallTimedOut) -> ToolOutcome:
    """What a timeout means for this tool: a message for the model, or the run stops.

    Args:
        tool: The tool whose call ran past its timeout.
        ctx: The call's context.
        limit: The timeout that passed.

    Returns:
        The outcome the model gets (the tool's `timeout_error_function`, or a standard text).

    Raises:
        ToolTimeoutError: The tool's `timeout_behavior` is `raise_exception`.
    """
    error = ToolTimeoutError(tool.name, limit.timeout)
    if tool.timeout_behavior == "raise_exception":
        raise error from None
    if tool.timeout_error_function is None:
        return ToolOutcome(timeout_text(tool.name, limit), failed=True)
    ctx.error = error
    text = tool.timeout_error_function(ctx, error)
    return ToolOutcome(await text if inspect.isawaitable(text) else text, failed=True)


def invoke_with_timeout(
    tool: FunctionTool, ctx: ToolContext[Any], arguments: str, settings: InvokeSettings
) -> Awaitable[ToolOutcome]:
    """The tool's call within its own timeout (over the run's), and what that timeout means.

    With no timeout at all, nothing can time out: the call's own awaitable is returned,
    with no coroutine of this function's around it on the tool-call path.

    Args:
        tool: The tool.
        ctx: The call's context.
        arguments: The model's JSON arguments.
        settings: The run's timeout, failure text and logging.

    Returns:
        The call's outcome, once awaited; at the timeout, the text the model is told.

    Raises:
        ToolTimeoutError: The call ran past the timeout of a tool whose `timeout_behavior`
            is `raise_exception` (when awaited).
    """
    if tool.timeout_seconds is not None:
        settings = settings._replace(timeout=tool.timeout_seconds)
    if settings.timeout is None:
        return invoke_within(tool, ctx, arguments, settings)
    return _invoke_timed(tool, ctx, arguments, settings)


async def _invoke_timed(
    tool: FunctionTool, ctx: ToolContext[Any], arguments: str, settings: InvokeSettings
) -> ToolOutcome:
    try:
        return await invoke_within(tool, ctx, arguments, settings)
    except CallTimedOut as limit:
        return await timed_out(tool, ctx, limit)


async def invoke_function_tool(
    *, function_tool: FunctionTool, context: ToolContext[Any], arguments: str
) -> Any:
    """Call a function tool as a run calls it: within its timeout, with its failure policy.

    `await tool.on_invoke_tool(ctx, arguments)` calls the function with no time limit;
    this also applies the tool's `timeout_seconds`, `timeout_behavior` and
    `timeout_error_function`, as the run does, which is what a test of a tool's timeout
    needs. Guardrails and hooks, which belong to the run, are not applied.

    Args:
        function_tool: The tool.
        context: The call's context (`ToolContext.for_testing(tool_name=...)` builds one).
        arguments: The model's JSON arguments.

    Returns:
        What the tool returned; when it failed or timed out, the text the model is told.

    Raises:
        ToolTimeoutError: The call ran past the timeout of a tool whose `timeout_behavior`
            is `raise_exception`.
        Exception: What the tool raised, when its `failure_error_function` is None.
    """
    outcome = await invoke_with_timeout(function_tool, context, arguments, NO_SETTINGS)
    return outcome.returned()
