"""Agents used as tools whose nested runs pause for approval, and resume.

A nested run that pauses does not answer its call: the turn that made the call
stops as the caller's own approvals stop it (`Interrupted`), with the nested
run's waiting calls as the caller's interruptions, and its state kept in the
caller's (`RunState.nested`, by call id). The other calls of the turn keep their
answers. Resuming the caller resumes the turn: the agent tool's call finds its
nested state here, takes the decisions made on its calls, and goes on from it.

The agent tool's call runs inside the tool machinery (`tools`, below this layer),
which knows nothing of pauses; so the call's context carries its caller's run: the
runner marks each `ToolContext` it makes (`made_by_run`), and the agent tool reads
the nested states to resume and leaves its pause there (`RunRecord.nested_paused`).
(Not a context variable set around each turn's calls: that would keep five more
objects alive in every run waiting on a tool, for the cyclic collector to walk.)
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..core._context import ToolContext, run_of
from ..core._state import RunState, ToolApproval
from ..exceptions import UserError
from ._record import NestedPause, RunRecord

if TYPE_CHECKING:
    from ..agents._agent import Agent

__all__ = [
    "is_paused",
    "is_resumed",
    "nested_approvals",
    "pause_nested",
    "resumed_nested",
    "settle_nested",
]

_SEPARATOR = "/"
"""Between the caller's call id and a nested call's approval id: the caller's approval id
for the nested call (`call_a/call_b`), which no id of its own can clash with."""


def _turn_of(ctx: ToolContext[Any]) -> RunRecord | None:
    """The caller's run, for a call its turn makes; None for a call made elsewhere."""
    record = run_of(ctx)
    return record if isinstance(record, RunRecord) else None


def resumed_nested(ctx: ToolContext[Any]) -> RunState | None:
    """The nested state an agent tool's call resumes, with the human's decisions on its calls.

    Args:
        ctx: The call's context.

    Returns:
        A copy of the state to resume; None to start the nested run afresh.
    """
    record = _turn_of(ctx)
    call_id = ctx.tool_call_id
    if record is None or call_id not in record.state.nested:
        return None
    caller = record.state
    nested = caller.nested[call_id].copy()
    for approval in nested.interruptions:
        decision = caller.decisions.get(call_id + _SEPARATOR + approval.approval_id)
        if decision is not None:
            nested.decisions[approval.approval_id] = decision
    for tool_name, decision in caller.standing.items():
        nested.standing.setdefault(tool_name, decision)
    return nested


def is_resumed(record: RunRecord, call_id: str) -> bool:
    """Whether a call of this turn resumes a nested run that paused.

    Such a call started before the pause: its start hooks ran, its input guardrails
    passed, and it was counted in the usage then, not again now.

    Args:
        record: The caller's run.
        call_id: The call's id.

    Returns:
        True for an agent tool's call going on from its nested run's pause.
    """
    return call_id in record.state.nested


def is_paused(record: RunRecord, call_id: str) -> bool:
    """Whether a call of this turn paused (its nested run waits for approval).

    A paused call has no output yet: its end hooks, output guardrails and span's result
    wait for the run that resumes it.

    Args:
        record: The caller's run.
        call_id: The call's id.

    Returns:
        True once the agent tool's nested run has paused under this call.
    """
    paused = record.nested_paused
    return paused is not None and call_id in paused


def nested_approvals(call_id: str, nested: RunState) -> list[ToolApproval]:
    """A paused nested run's waiting calls, as its caller waits for them.

    Args:
        call_id: The id of the caller's call that started the nested run.
        nested: The nested run's state.

    Returns:
        Its approvals, each with the approval id `<call id>/<its own approval id>`: a
        nested model's call ids may repeat the caller's.
    """
    return [
        replace(approval, approval_id=call_id + _SEPARATOR + approval.approval_id)
        for approval in nested.interruptions
    ]


def pause_nested(ctx: ToolContext[Any], pause: NestedPause, agent_name: str) -> None:
    """Record that an agent tool's nested run paused: its call stays unanswered.

    Args:
        ctx: The call's context.
        pause: The nested run's state and waiting calls.
        agent_name: The nested agent, for the message.

    Raises:
        UserError: Outside a turn (the tool called directly, or with a context the run did
            not make), or for a second pause under the same call id (two agent tools in one
            `multi_tool_use.parallel` call).
    """
    record, call_id = _turn_of(ctx), ctx.tool_call_id
    paused = None if record is None else record.nested_paused
    if record is None or (paused is not None and call_id in paused):
        raise UserError(
            f"Agent '{agent_name}', used as a tool, paused for approval where the pause cannot "
            "reach a run (the tool called outside a run's turn, with a context the run did "
            "not make, or beside another agent tool in one parallel call): call the agent "
            "tool from an agent's run with the context the run gives, one call each"
        )
    if paused is None:  # the turn's first pause: most turns have none
        paused = record.nested_paused = {}
    paused[call_id] = pause


def settle_nested(record: RunRecord) -> list[tuple[ToolApproval, Agent[Any]]]:
    """Keep the pauses of a turn's nested runs in the caller's state.

    Nested states resumed and finished are dropped; those that paused (again) are kept.
    The decisions passed down to them leave the caller's state.

    Args:
        record: The caller's run, after its turn's calls.

    Returns:
        The nested calls waiting, with their agents, in call order.
    """
    state, paused = record.state, record.nested_paused or {}
    record.nested_paused = None
    for call_id, resumed in state.nested.items():
        for approval in resumed.interruptions:
            state.decisions.pop(call_id + _SEPARATOR + approval.approval_id, None)
    state.nested = {call_id: pause.state for call_id, pause in paused.items()}
    return [approval for pause in paused.values() for approval in pause.approvals]
