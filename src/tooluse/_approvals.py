"""Whether a call needs a human's approval, asked with the arguments as the tool sees them."""

from __future__ import annotations

import inspect
import json
from typing import Any

from ._context import RunContextWrapper
from ._function_tool import FunctionTool
from ._invocation import Invoker
from ._tool_calls import PlannedCall
from .exceptions import ToolArgumentsError, UserError

__all__ = ["needs_approval"]


async def needs_approval(
    context: RunContextWrapper[Any], tool: FunctionTool, call: PlannedCall
) -> bool:
    """Whether a call waits for a human.

    A function gets the arguments as the tool would (validated, strict-mode
    rewrites undone). Arguments the tool would refuse need no approval: the
    call cannot run, and the model is told what is wrong with them instead.

    Args:
        context: The run context.
        tool: The tool called.
        call: The call.

    Returns:
        Whether it needs approval.

    Raises:
        UserError: If the `needs_approval` function raises.
    """
    flag = tool.needs_approval
    if not callable(flag):
        return bool(flag) and _runnable(tool, call.arguments)
    try:
        arguments = _approval_arguments(tool, call.arguments)
    except ToolArgumentsError:
        return False
    if arguments is None:
        return True  # a hand-built tool's unreadable arguments: let a human look
    try:
        answer = flag(context, arguments)
        return bool(await answer if inspect.isawaitable(answer) else answer)
    except Exception as error:
        raise UserError(
            f"needs_approval of tool '{tool.name}' raised {type(error).__name__} for call "
            f"'{call.approval_id}'; no call of this turn has run. Fix the function, then resume "
            "the run from the state it paused at, or run again"
        ) from error


def _runnable(tool: FunctionTool, arguments: str) -> bool:
    try:
        _approval_arguments(tool, arguments)
    except ToolArgumentsError:
        return False
    return True


def _approval_arguments(tool: FunctionTool, arguments: str) -> dict[str, Any] | None:
    invoker = tool.on_invoke_tool
    if isinstance(invoker, Invoker):
        return invoker.named_arguments(arguments)
    try:
        data: Any = json.loads(arguments or "{}")
    except json.JSONDecodeError:
        return None
    return data if isinstance(data, dict) else None  # pyright: ignore[reportUnknownVariableType]
