"""`RunConfig(tool_error_formatter=...)`: one function that words every tool error of a run.

It is asked for a rejected call (with no `rejection_message` of its own), a call of a
tool that does not exist, and a tool that raised (for tools that kept the default
`failure_error_function`). It gets tooluse's own text as `default_message` and
returns the text the model receives, or None to keep the default. A formatter that
raises or returns something other than text is logged (its type, never its message)
and the default is kept: a broken formatter never stops a run, nor sends the model
what it did not mean to.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, Literal

from ..core._context import RunContextWrapper, TContext, ToolContext
from ..tools._errors import default_tool_error_function
from ..tools._invocation import ToolErrorFunction

__all__ = [
    "ToolErrorFormatter",
    "ToolErrorFormatterArgs",
    "ToolErrorKind",
    "formatted_tool_error",
    "formatting_failure_function",
]

_log = logging.getLogger("tooluse")

ToolErrorKind = Literal["approval_rejected", "tool_not_found", "tool_exception"]
"""What went wrong: a human rejected the call, the tool does not exist, the tool raised."""


@dataclass
class ToolErrorFormatterArgs(Generic[TContext]):
    """What a `tool_error_formatter` is told of one tool error."""

    kind: ToolErrorKind
    """What went wrong: `approval_rejected`, `tool_not_found` or `tool_exception`."""
    tool_type: Literal["function", "computer", "shell", "apply_patch", "custom"]
    """The kind of tool called: `function` for every error tooluse formats."""
    tool_name: str
    """The tool's name, as the model called it."""
    call_id: str
    """The id of the model's call."""
    default_message: str
    """The text the model gets when the formatter returns None: value-free."""
    run_context: RunContextWrapper[TContext]
    """The run's context (the call's `ToolContext` for a tool that raised)."""
    error: Exception | None = None
    """What the tool raised, for `tool_exception`; else None. Its message may hold tool
    data or secrets: return only what the model may see."""


ToolErrorFormatter = Callable[[ToolErrorFormatterArgs[Any]], "str | Awaitable[str | None] | None"]
"""Words a tool error for the model: text, or None to keep the default; may be async."""


async def formatted_tool_error(
    formatter: ToolErrorFormatter, args: ToolErrorFormatterArgs[Any]
) -> str:
    """The formatter's text for an error, or `args.default_message` if it gives none.

    Args:
        formatter: The run's `tool_error_formatter`.
        args: The error.

    Returns:
        The text the model receives.
    """
    try:
        made = formatter(args)
        text = await made if inspect.isawaitable(made) else made
    except Exception as error:  # a broken formatter must not stop the run
        _log.error(
            "tool_error_formatter raised %s for tool %r (%s); the default text was sent",
            type(error).__name__,
            args.tool_name,
            args.kind,
        )
        return args.default_message
    if text is None:
        return args.default_message
    if not isinstance(text, str):  # pyright: ignore[reportUnnecessaryIsInstance]
        _log.error(
            "tool_error_formatter returned %s for tool %r (%s), not text; the default text "
            "was sent",
            type(text).__name__,
            args.tool_name,
            args.kind,
        )
        return args.default_message
    return text


def formatting_failure_function(
    formatter: ToolErrorFormatter, base: ToolErrorFunction | None
) -> ToolErrorFunction:
    """A `failure_error_function` that words a raised tool's error through `formatter`.

    Args:
        formatter: The run's `tool_error_formatter`.
        base: The run's `failure_error_function`; None for tooluse's default.

    Returns:
        The function the run's tools that kept the default fail through.
    """
    base_function = base or default_tool_error_function

    async def format_failure(ctx: RunContextWrapper[Any], error: Exception) -> str:
        default = base_function(ctx, error)
        default = await default if inspect.isawaitable(default) else default
        name = ctx.tool_name if isinstance(ctx, ToolContext) else ""
        call_id = ctx.tool_call_id if isinstance(ctx, ToolContext) else ""
        args = ToolErrorFormatterArgs[Any](
            "tool_exception", "function", name, call_id, default, ctx, error
        )
        return await formatted_tool_error(formatter, args)

    return format_failure
