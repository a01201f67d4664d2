"""Handoffs in a run: offered as tools, read from the model's calls, and carried out.

Each handoff is offered as a tool (`transfer_to_<agent>` by default). In the
one-tool mode a single `transfer` tool takes the target's name from an `enum`
of exactly the allowed names plus `"none"`, so strict decoding cannot invent a
target; a name outside the list (from a server that ignores strict mode) is
refused before anything happens.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..agents._agent import Agent
from ..agents._handoffs import Handoff
from ..core._agent_base import AgentBase
from ..core._context import RunContextWrapper
from ..core._items import Item
from ..tools._function_tool import FunctionTool

__all__ = [
    "NO_AGENT",
    "TRANSFER_TOOL",
    "AgentHandoff",
    "HandoffCall",
    "enabled_handoffs",
    "handoff_tools",
    "read_handoff",
    "run_on_handoff",
]

TRANSFER_TOOL = "transfer"
"""The one tool of the one-tool mode."""
NO_AGENT = "none"
"""What the model picks in the one-tool mode when no agent fits."""

AgentHandoff = Handoff[Agent[object]]
"""A handoff as the run holds it: to an `Agent`."""


async def enabled_handoffs(
    handoffs: list[AgentHandoff], context: RunContextWrapper[object], agent: AgentBase
) -> list[AgentHandoff]:
    """The handoffs offered this turn: those enabled for this context and agent.

    Args:
        handoffs: The agent's handoffs.
        context: The run context.
        agent: The agent that would hand off.

    Returns:
        The enabled ones, in order.
    """
    kept: list[AgentHandoff] = []
    for h in handoffs:
        enabled = h.is_enabled if isinstance(h.is_enabled, bool) else h.is_enabled(context, agent)
        if await enabled if inspect.isawaitable(enabled) else enabled:
            kept.append(h)
    return kept


@dataclass(frozen=True)
class HandoffCall:
    """A handoff the model asked for."""

    call_id: str
    """The call's id."""
    target: AgentHandoff | None
    """The handoff chosen, or None when the call names none that exists."""
    arguments: str
    """The raw arguments."""
    refusal: str | None = None
    """The message instead of a handoff (an unknown target, or `none`)."""


def handoff_tools(handoffs: list[AgentHandoff], *, one_tool: bool) -> list[FunctionTool]:
    """The tools that offer the handoffs to the model.

    Args:
        handoffs: The agent's handoffs.
        one_tool: One `transfer` tool with an enum of targets, or a tool per handoff.

    Returns:
        The declarations; the runner intercepts their calls.
    """
    if not handoffs:
        return []
    if one_tool:
        return [_transfer_tool(handoffs)]
    return [
        FunctionTool(h.tool_name, h.tool_description, h.parameters(), _never_invoked)
        for h in handoffs
    ]


def read_handoff(
    call: Item, handoffs: Sequence[AgentHandoff], *, one_tool: bool
) -> HandoffCall | None:
    """The handoff a function call asks for, or None if it is not a handoff call.

    Args:
        call: A `function_call` item.
        handoffs: The agent's handoffs.
        one_tool: Whether the one-tool mode is on.

    Returns:
        The handoff call, possibly a refusal, or None.
    """
    name = call.get("name", "")
    if not one_tool:
        target = next((h for h in handoffs if h.tool_name == name), None)
        return HandoffCall(call["call_id"], target, call.get("arguments", "")) if target else None
    if name != TRANSFER_TOOL:
        return None
    return _read_transfer(call, handoffs)


def _read_transfer(call: Item, handoffs: Sequence[AgentHandoff]) -> HandoffCall:
    names = {h.agent.name: h for h in handoffs}
    try:
        chosen: object = json.loads(call.get("arguments") or "{}").get("agent")
    except (json.JSONDecodeError, AttributeError):
        chosen = None
    valid = ", ".join([*names, NO_AGENT])
    if chosen == NO_AGENT:
        return HandoffCall(call["call_id"], None, "", "No agent fits: answer the user yourself.")
    if not isinstance(chosen, str) or chosen not in names:
        refusal = f"There is no agent {chosen!r} to transfer to; valid names: {valid}."
        return HandoffCall(call["call_id"], None, "", refusal)
    return HandoffCall(call["call_id"], names[chosen], "")


def _transfer_tool(handoffs: list[AgentHandoff]) -> FunctionTool:
    lines = [
        f"- {h.agent.name}: {h.agent.handoff_description or h.tool_description}" for h in handoffs
    ]
    description = (
        "Transfer the conversation to the agent best suited to it, or 'none' if no agent fits:\n"
        + "\n".join(lines)
    )
    names = [h.agent.name for h in handoffs]
    schema = {
        "type": "object",
        "properties": {"agent": {"type": "string", "enum": [*names, NO_AGENT]}},
        "required": ["agent"],
        "additionalProperties": False,
    }
    return FunctionTool(TRANSFER_TOOL, description, schema, _never_invoked)


async def _never_invoked(ctx: Any, arguments: str) -> str:
    del ctx, arguments
    return "Handoffs are carried out by the runner."  # reached only outside Runner


async def run_on_handoff(
    target: AgentHandoff, context: RunContextWrapper[object], data: Any
) -> None:
    """Run the handoff's `on_handoff`, with the input when it has an `input_type`.

    Args:
        target: The handoff taken.
        context: The run context.
        data: The validated input, or None.
    """
    if target.on_handoff is None:
        return
    result = (
        target.on_handoff(context, data)
        if target.input_type is not None
        else target.on_handoff(context)
    )
    if result is not None:
        await result
