"""The calls a UI stream shows that are not function calls: those a person approves.

The streams show function calls only, except where a person must see a call to decide
on it: a shell's commands (`ShellTool(needs_approval=...)`) and a hosted MCP server's
request to run one of its tools (a `HostedMCPTool` with no `on_approval_request`). When
a run pauses on one, the stream starts it as a tool call of the protocol (`shown_call`:
the tool's name, its input as JSON) before asking; once decided, the resumed run's
stream answers it (`answer`): a shell's output as text, the MCP tool's output (the
provider's `mcp_call` that names the request), or the rejection. The server's history
check takes these answers back from a client as it takes a function call's
(`_history.py`). A call that asked nobody is not shown, nor is its output.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ..core._items import Item
from ..core._state import REJECTION, ToolApproval
from ..tools._shell import shell_output_text

__all__ = ["ShownCall", "answer", "newly_shown", "shown_call"]


class ShownCall(NamedTuple):
    """A waiting call as a stream shows it."""

    call_id: str
    """The call's id: the shell call's, or the MCP approval request's (its approval id)."""
    name: str
    """The tool's name: the shell tool's, or the MCP server's tool's."""
    arguments: str
    """Its input as JSON text: a shell's action (`commands`, ...), the MCP tool's arguments."""
    title: str | None
    """`<server label>.<tool name>` for an MCP server's tool; None for a shell."""


def shown_call(approval: ToolApproval) -> ShownCall | None:
    """How a stream shows a call waiting for approval, if it is no function call.

    Args:
        approval: A call the run waits on.

    Returns:
        The call to start; None for a function call (the stream started it already).
    """
    if approval.item_type == "function_call":
        return None
    title = None
    if approval.item_type == "mcp_approval_request":
        title = f"{approval.server_label}.{approval.tool_name}"
    return ShownCall(approval.call_id, approval.tool_name, approval.arguments or "{}", title)


def newly_shown(waiting: Sequence[ToolApproval], shown: set[str]) -> list[ShownCall]:
    """The calls of `waiting` to show that `shown` does not hold yet, added to it.

    Args:
        waiting: The calls a run waits on.
        shown: The ids of the calls shown so far (changed: the new ones join it).

    Returns:
        The calls to start, in order; none for function calls (started already).
    """
    calls: list[ShownCall] = []
    for approval in waiting:
        call = shown_call(approval)
        if call is not None and call.call_id not in shown:
            shown.add(call.call_id)
            calls.append(call)
    return calls


def answer(item: Item) -> tuple[str, str] | None:
    """The call a shown call's answer answers, and its text, for an item of the run.

    Args:
        item: An item a run made.

    Returns:
        (call id, text) for a `shell_call_output`, an `mcp_call` made on an approval, or
        a refused `mcp_approval_response`; None for any other item.
    """
    kind = item.get("type")
    if kind == "shell_call_output":
        return str(item.get("call_id", "")), shell_output_text(item.get("output"))
    if kind == "mcp_call" and item.get("approval_request_id"):
        text = item.get("output") or item.get("error") or ""
        return str(item["approval_request_id"]), str(text)
    if kind == "mcp_approval_response" and item.get("approve") is False:
        return str(item.get("approval_request_id", "")), str(item.get("reason") or REJECTION)
    return None  # an approved request is answered by the provider's mcp_call
