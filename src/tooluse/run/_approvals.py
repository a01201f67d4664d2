"""Whether a call needs a human's approval, asked with the arguments as the tool sees them."""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable
from typing import Any, cast

from ..core._context import RunContextWrapper
from ..core._items import Item
from ..exceptions import ToolArgumentsError, UserError
from ..tools._function_tool import FunctionTool
from ..tools._invocation import Invoker
from ..tools._shell import ShellTool, shell_action
from ._tool_calls import PlannedCall

__all__ = ["needs_approval", "shell_needs_approval"]


async def needs_approval(
    context: RunContextWrapper[object], tool: FunctionTool, call: PlannedCall
) -> bool:
    """Whether a call waits for a human.

    A function gets the run context and the arguments as the tool would
    (validated, strict-mode rewrites undone), and the call's approval id if it
    takes a third parameter (openai-agents' form). Arguments the tool would
    refuse need no approval: the call cannot run, and the model is told what is
    wrong with them instead.

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
    predicate = cast(Callable[..., Any], flag)
    extra = (call.approval_id,) if _takes_call_id(predicate) else ()  # openai-agents' form
    return await _ask(
        f"tool '{tool.name}'", call.approval_id, predicate, context, arguments, *extra
    )


async def _ask(tool: str, call_id: str, predicate: Callable[..., Any], *args: object) -> bool:
    """What a `needs_approval` function answers for one call.

    Raises:
        UserError: If the function raises: the turn stops before any of its calls runs.
    """
    try:
        answer = predicate(*args)
        return bool(await answer if inspect.isawaitable(answer) else answer)
    except Exception as error:
        raise UserError(
            f"needs_approval of {tool} raised {type(error).__name__} ({error}) for call "
            f"'{call_id}'; no call of this turn has run. Fix the function and run again"
        ) from error


@functools.lru_cache(maxsize=256)
def _takes_call_id(predicate: Callable[..., Any]) -> bool:
    """Whether a predicate takes a third argument, the call's id (read once per function)."""
    try:
        parameters = inspect.signature(predicate).parameters.values()
    except (TypeError, ValueError):  # no signature to read: the two-argument form
        return False
    positional = [p for p in parameters if p.kind in _POSITIONAL and p.default is p.empty]
    return len(positional) >= 3 or any(p.kind is p.VAR_POSITIONAL for p in parameters)


_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _runnable(tool: FunctionTool, arguments: str) -> bool:
    try:
        _approval_arguments(tool, arguments)
    except ToolArgumentsError:
        return False
    return True


def _approval_arguments(tool: FunctionTool, arguments: str) -> dict[str, object] | None:
    invoker = tool.on_invoke_tool
    if isinstance(invoker, Invoker):
        return invoker.named_arguments(arguments)
    try:
        data: object = json.loads(arguments or "{}")
    except json.JSONDecodeError:
        return None
    return data if isinstance(data, dict) else None  # pyright: ignore[reportUnknownVariableType]


async def shell_needs_approval(
    context: RunContextWrapper[object], tool: ShellTool, item: Item
) -> bool:
    """Whether a `ShellTool`'s call waits for a human.

    Args:
        context: The run context.
        tool: The shell tool.
        item: The model's `shell_call` item.

    Returns:
        Whether it needs approval: the tool's flag, or what its function says of
        (context, action, call id).

    Raises:
        UserError: If the `needs_approval` function raises.
    """
    flag = tool.needs_approval
    if not callable(flag):
        return bool(flag)
    call_id = str(item.get("call_id", ""))
    return await _ask(
        f"shell tool '{tool.name}'", call_id, flag, context, shell_action(item), call_id
    )
