"""What `HostedMCPTool.on_approval_request` gets and returns, in both SDKs' shapes.

The provider asks before its MCP server runs a tool (an `mcp_approval_request` item).
The function gets an `MCPToolApprovalRequest`: the item's dict, as tooluse has always
passed it (`request["name"]`), which also has openai-agents' attributes (`request.data.
name`, `request.ctx_wrapper`). It returns `{"approve": bool, "reason": ...}`
(`MCPToolApprovalFunctionResult`), the reason sent only with a refusal's answer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypedDict, cast

from typing_extensions import NotRequired

from ..core._context import RunContextWrapper
from ..exceptions import UserError

__all__ = [
    "MCPApprovalRequestData",
    "MCPToolApprovalFunction",
    "MCPToolApprovalFunctionResult",
    "MCPToolApprovalRequest",
    "approval_answer",
    "approval_response",
]


@dataclass(frozen=True)
class MCPApprovalRequestData:
    """The approval request item's fields, as attributes (openai-agents' `request.data`)."""

    id: str
    """The request's id, which the answer names."""
    name: str
    """The MCP tool the server would run."""
    arguments: str
    """The arguments it would run it with, as JSON text."""
    server_label: str
    """The MCP server's label (`HostedMCPTool.tool_config["server_label"]`)."""
    type: str = "mcp_approval_request"
    """The item's type."""


class MCPToolApprovalRequest(dict[str, Any]):
    """A hosted MCP server's request to run a tool: the item's dict, with attributes.

    Read it as the API's item (`request["name"]`, `request["arguments"]`), or as in
    openai-agents (`request.data.name`, `request.ctx_wrapper.context`).
    """

    def __init__(self, item: Mapping[str, Any], ctx_wrapper: RunContextWrapper[Any]) -> None:
        """Wrap an `mcp_approval_request` item.

        Args:
            item: The item, as the provider sent it.
            ctx_wrapper: The run context.
        """
        super().__init__(item)
        self.ctx_wrapper = ctx_wrapper
        """The run context."""

    @property
    def data(self) -> MCPApprovalRequestData:
        """The item's fields as attributes."""
        return MCPApprovalRequestData(
            id=str(self.get("id", "")),
            name=str(self.get("name", "")),
            arguments=str(self.get("arguments") or ""),
            server_label=str(self.get("server_label", "")),
        )


class MCPToolApprovalFunctionResult(TypedDict):
    """What an approval function returns."""

    approve: bool
    """Whether the server may run the tool."""
    reason: NotRequired[str]
    """Why not, sent with a refusal."""


MCPToolApprovalFunction = Callable[
    [MCPToolApprovalRequest],
    "Mapping[str, Any] | Awaitable[Mapping[str, Any]]",
]
"""`HostedMCPTool.on_approval_request`: a function of the request returning an
`MCPToolApprovalFunctionResult` (or any dict of its keys), sync or async."""


def approval_answer(request: MCPToolApprovalRequest, decision: object) -> dict[str, Any]:
    """The `mcp_approval_response` item answering `request` with the function's decision.

    Args:
        request: The request.
        decision: What the approval function returned.

    Returns:
        The answering input item.

    Raises:
        UserError: If the decision is not a dict with an `approve` key.
    """
    if not isinstance(decision, Mapping) or "approve" not in decision:
        raise UserError(
            f"HostedMCPTool (server_label={request.get('server_label')!r}): "
            f"on_approval_request returned {decision!r}; return {{'approve': True}} or "
            "{'approve': False, 'reason': '...'} (an MCPToolApprovalFunctionResult)"
        )
    given = cast(Mapping[str, Any], decision)
    return approval_response(request["id"], bool(given["approve"]), given.get("reason"))


def approval_response(request_id: str, approve: bool, reason: object = None) -> dict[str, Any]:
    """The `mcp_approval_response` input item answering a request, as the API takes it.

    Args:
        request_id: The `mcp_approval_request` item's id.
        approve: Whether the server may run the tool.
        reason: Why; sent only when it is non-empty text.

    Returns:
        The answering input item.
    """
    answer: dict[str, Any] = {
        "type": "mcp_approval_response",
        "approval_request_id": request_id,
        "approve": approve,
    }
    if isinstance(reason, str) and reason:
        answer["reason"] = reason
    return answer
