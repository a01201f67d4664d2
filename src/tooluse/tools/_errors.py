"""What the model is told when a tool call fails.

Two rules: the text names the tool and says what to do next, and it never
repeats argument values or exception messages (they may hold data the model
should not see again, or secrets). What is wrong with a call's arguments is
worded in `tooluse.schema._argument_errors`.
"""

from __future__ import annotations

from typing import Any

from ..core._context import RunContextWrapper, ToolContext
from ..exceptions import ModelRetry, ToolArgumentsError

__all__ = ["MAX_ECHOED_NAME", "default_tool_error_function", "echoed_name"]

MAX_ECHOED_NAME = 100
"""The longest tool name repeated back to the model or an MCP client; longer ones are cut."""


def echoed_name(name: str) -> str:
    """A tool name someone sent, as it is repeated back: cut after `MAX_ECHOED_NAME` characters.

    Args:
        name: The name as sent (by a model, or an MCP client), of any length.

    Returns:
        The name, or its first `MAX_ECHOED_NAME` characters and `...`.
    """
    return name if len(name) <= MAX_ECHOED_NAME else name[:MAX_ECHOED_NAME] + "..."


def default_tool_error_function(ctx: RunContextWrapper[Any], error: Exception) -> str:
    """Turn a failed tool call into the text the model receives; the default handler.

    Args:
        ctx: The run context; a `ToolContext` names the tool.
        error: What went wrong: `ToolArgumentsError` for bad arguments, `ModelRetry`
            for a message from the tool, anything else raised by the tool.

    Returns:
        For bad arguments, each problem and a request for a corrected call; for
        `ModelRetry`, its message; otherwise the tool name and the exception type only.
    """
    if isinstance(error, ModelRetry):
        return error.message
    if isinstance(error, ToolArgumentsError):
        problems = "\n".join(f"- {problem}" for problem in error.problems)
        return (
            f"Tool '{error.tool_name}' was called with invalid arguments:\n{problems}\n"
            f"Call '{error.tool_name}' again with corrected arguments."
        )
    name = ctx.tool_name if isinstance(ctx, ToolContext) else "the tool"
    return (
        f"Tool '{name}' failed with an internal error ({type(error).__name__}); "
        "its details are hidden. Do not retry the same call unchanged."
    )
