"""Items the model sends for tools that run here: computer actions, shell commands, MCP approvals.

Hosted tools otherwise run on the provider's side; these four need us (`shell_call`s
only when the `ShellTool`'s shell is local; MCP approval requests of a `HostedMCPTool`
without `on_approval_request` wait for a human, in the turn's approve step).
`local_handler` (pure) finds the tool that answers an output item;
`answer_local_item` runs it and returns the input item that answers it.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Sequence
from typing import Any, cast

from ..core._context import RunContextWrapper
from ..core._items import Item
from ._hosted import ComputerTool, HostedMCPTool, LocalShellTool
from ._mcp_approval import MCPToolApprovalRequest, approval_answer
from ._shell import ShellTool, answer_shell_call

__all__ = [
    "COMPUTER_ACTIONS",
    "LOCAL_ITEM_TYPES",
    "LocalTool",
    "answer_local_item",
    "local_handler",
]

logger = logging.getLogger("tooluse")

LOCAL_ITEM_TYPES = frozenset(
    {"computer_call", "local_shell_call", "shell_call", "mcp_approval_request"}
)
"""Output item types the runner must answer before the model can go on."""

COMPUTER_ACTIONS: dict[str, tuple[str, ...]] = {
    "click": ("x", "y", "button"),
    "double_click": ("x", "y"),
    "scroll": ("x", "y", "scroll_x", "scroll_y"),
    "type": ("text",),
    "wait": (),
    "move": ("x", "y"),
    "keypress": ("keys",),
    "drag": ("path",),
    "screenshot": (),
}
"""The `Computer` methods a model's action may call, with the arguments each takes."""

LocalTool = ComputerTool | LocalShellTool | ShellTool | HostedMCPTool


def local_handler(item: Item, tools: Sequence[Any]) -> LocalTool | None:
    """The tool that answers a locally handled item, or None when no tool here does.

    An MCP approval request's tool is the `HostedMCPTool` of its server: its
    `on_approval_request` answers, or, without one, a human (the run pauses).

    Args:
        item: A `computer_call`, `local_shell_call`, `shell_call` or
            `mcp_approval_request` item.
        tools: The tools the agent offers.

    Returns:
        The tool.
    """
    kind = item["type"]
    if kind == "computer_call":
        return next((t for t in tools if isinstance(t, ComputerTool)), None)
    if kind == "local_shell_call":
        return next((t for t in tools if isinstance(t, LocalShellTool)), None)
    if kind == "shell_call":  # a hosted shell's calls are run, and answered, by OpenAI
        return next((t for t in tools if isinstance(t, ShellTool) and t.is_local), None)
    label = item.get("server_label")
    return next(
        (
            t
            for t in tools
            if isinstance(t, HostedMCPTool) and t.tool_config.get("server_label") == label
        ),
        None,
    )


def answer_id(item: Item) -> str:
    """The id an item's answer refers to: the call id, or the approval request's id.

    Args:
        item: A locally handled item.

    Returns:
        The id.
    """
    return str(item.get("call_id") or item.get("id") or "")


async def answer_local_item(item: Item, tool: LocalTool, context: RunContextWrapper[Any]) -> Item:
    """Run one locally handled item with its tool and return the answering input item.

    Args:
        item: A `computer_call`, `local_shell_call`, `shell_call` or
            `mcp_approval_request` item.
        tool: Its handler, from `local_handler`.
        context: The run's context (a `ShellTool`'s executor and an MCP approval
            function get it).

    Returns:
        The answering input item.
    """
    if isinstance(tool, ComputerTool):
        return await _computer_action(item, tool)
    if isinstance(tool, LocalShellTool):
        return await _shell_command(item, tool)
    if isinstance(tool, ShellTool):
        return await answer_shell_call(item, tool, context)
    return await _approval(item, tool, context)


async def _computer_action(item: Item, tool: ComputerTool) -> Item:
    actions: list[Any] = item.get("actions") or [item.get("action") or {}]
    for action in actions:
        await _perform(tool, cast(dict[str, Any], action) if isinstance(action, dict) else {})
    screenshot = await _maybe_await(tool.computer.screenshot())
    return {
        "type": "computer_call_output",
        "call_id": item["call_id"],
        "output": {
            "type": "computer_screenshot",
            "image_url": f"data:image/png;base64,{screenshot}",
        },
        # Safety checks are acknowledged: the computer is yours, and so is the risk.
        "acknowledged_safety_checks": item.get("pending_safety_checks", []),
    }


async def _perform(tool: ComputerTool, action: dict[str, Any]) -> None:
    """Call the one documented `Computer` method an action names, with its arguments only."""
    kind = action.get("type")
    names = COMPUTER_ACTIONS.get(kind) if isinstance(kind, str) else None
    if names is None or any(name not in action for name in names):
        # The model sees the unchanged screen; nothing outside the action set is called.
        logger.warning("Ignored a computer action of an unknown form (type %r)", kind)
        return
    if kind != "screenshot":
        method = getattr(tool.computer, str(kind))
        await _maybe_await(method(**{name: action[name] for name in names}))


async def _shell_command(item: Item, tool: LocalShellTool) -> Item:
    output = await _maybe_await(tool.executor(item.get("action", {})))
    return {"type": "local_shell_call_output", "id": item.get("call_id"), "output": output}


async def _approval(item: Item, tool: HostedMCPTool, context: RunContextWrapper[Any]) -> Item:
    # Without a function, a human decides: the turn's approve step answers such a request.
    assert tool.on_approval_request is not None, "an MCP request waiting for a human ran"
    request = MCPToolApprovalRequest(item, context)
    return approval_answer(request, await _maybe_await(tool.on_approval_request(request)))


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value
