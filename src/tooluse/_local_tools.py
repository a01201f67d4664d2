"""Items the model sends for tools that run here: computer actions, shell commands, MCP approvals.

Hosted tools otherwise run on the provider's side; these three need us. Each
handler turns one output item into the input item that answers it.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

from ._hosted_tools import ComputerTool, HostedMCPTool, LocalShellTool
from ._items import Item

__all__ = ["LOCAL_ITEM_TYPES", "answer_local_item"]

LOCAL_ITEM_TYPES = frozenset({"computer_call", "local_shell_call", "mcp_approval_request"})
"""Output item types the runner must answer before the model can go on."""


async def answer_local_item(item: Item, tools: Sequence[Any]) -> Item | None:
    """Run one locally handled item and return its answer (None: nothing can answer it).

    Args:
        item: A `computer_call`, `local_shell_call` or `mcp_approval_request` item.
        tools: The tools the agent offers.

    Returns:
        The answering input item, or None when no tool here handles it.
    """
    kind = item["type"]
    if kind == "computer_call":
        computer = next((t for t in tools if isinstance(t, ComputerTool)), None)
        return await _computer_action(item, computer) if computer else None
    if kind == "local_shell_call":
        shell = next((t for t in tools if isinstance(t, LocalShellTool)), None)
        return await _shell_command(item, shell) if shell else None
    label = item.get("server_label")
    mcp = next(
        (
            t
            for t in tools
            if isinstance(t, HostedMCPTool)
            and t.on_approval_request
            and t.tool_config.get("server_label") == label
        ),
        None,
    )
    return await _approval(item, mcp) if mcp else None


async def _computer_action(item: Item, tool: ComputerTool) -> Item:
    action: dict[str, Any] = dict(item.get("action", {}))
    method = getattr(tool.computer, action.pop("type"))
    await _maybe_await(method(**action))
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


async def _shell_command(item: Item, tool: LocalShellTool) -> Item:
    output = await _maybe_await(tool.executor(item.get("action", {})))
    return {"type": "local_shell_call_output", "id": item.get("call_id"), "output": output}


async def _approval(item: Item, tool: HostedMCPTool) -> Item:
    assert tool.on_approval_request is not None
    decision = await _maybe_await(tool.on_approval_request(item))
    answer: Item = {
        "type": "mcp_approval_response",
        "approval_request_id": item["id"],
        "approve": bool(decision.get("approve")),
    }
    if decision.get("reason"):
        answer["reason"] = decision["reason"]
    return answer


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value
