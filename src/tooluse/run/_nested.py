"""Agents used as tools whose nested runs pause for approval, and resume.

A nested run that pauses does not answer its call: the turn that made the call
stops as the caller's own approvals stop it (`Interrupted`), with the nested
run's waiting calls as the caller's interruptions, and its state kept in the
caller's (`RunState.nested`, by call id). The other calls of the turn keep their
answers. Resuming the caller resumes the turn: the agent tool's call finds its
nested state here, takes the decisions made on its calls, and goes on from it.

The agent tool's call runs inside the tool machinery (`tools`, below this layer),
which knows nothing of pauses; so the turn hands the nested states in and takes
the pauses out through a context variable set around the turn's calls (the tasks
running them see it).
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..core._state import RunState, ToolApproval
from ..exceptions import UserError

if TYPE_CHECKING:
    from ..agents._agent import Agent

__all__ = [
    "NestedPause",
    "NestedRuns",
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


@dataclass
class NestedPause:
    """A nested run that paused: its state, and its waiting calls with their agents."""

    state: RunState
    """The nested run's state, to resume."""
    approvals: list[tuple[ToolApproval, Agent[Any]]]
    """Each call it waits for, and the (nested) agent whose tool it calls."""


class NestedRuns:
    """The turn's nested runs: the states to resume, and the pauses met.

    Entered around a turn's calls (`with NestedRuns(state):`), it is what the calls'
    tasks see through the context variable. A class rather than a generator-based
    context manager: every run keeps this alive while its tools run, and each object
    it keeps costs the cyclic collector at every pass.
    """

    __slots__ = ("_token", "decisions", "paused", "resuming")

    def __init__(self, state: RunState) -> None:
        """Take the caller's state: its nested states to resume, and its decisions.

        Args:
            state: The caller's state.
        """
        self.resuming: dict[str, RunState] = state.nested
        """The nested states the turn's calls resume, by call id."""
        self.decisions = state
        """The caller's state, whose decisions (and standing decisions) the nested runs take."""
        self.paused: dict[str, NestedPause] = {}
        """The nested runs that paused in this turn, by call id."""
        self._token: Token[NestedRuns | None] | None = None

    def __enter__(self) -> NestedRuns:
        self._token = _turn_runs.set(self)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._token is not None  # entered first
        _turn_runs.reset(self._token)


_turn_runs: ContextVar[NestedRuns | None] = ContextVar("tooluse_nested_runs", default=None)


def resumed_nested(call_id: str) -> RunState | None:
    """The nested state an agent tool's call resumes, with the human's decisions on its calls.

    Args:
        call_id: The call's id.

    Returns:
        A copy of the state to resume; None to start the nested run afresh.
    """
    runs = _turn_runs.get()
    if runs is None or call_id not in runs.resuming:
        return None
    nested = runs.resuming[call_id].copy()
    caller = runs.decisions
    for approval in nested.interruptions:
        decision = caller.decisions.get(call_id + _SEPARATOR + approval.approval_id)
        if decision is not None:
            nested.decisions[approval.approval_id] = decision
    for tool_name, decision in caller.standing.items():
        nested.standing.setdefault(tool_name, decision)
    return nested


def is_resumed(call_id: str) -> bool:
    """Whether a call of this turn resumes a nested run that paused.

    Such a call started before the pause: its start hooks ran, its input guardrails
    passed, and it was counted in the usage then, not again now.

    Args:
        call_id: The call's id.

    Returns:
        True for an agent tool's call going on from its nested run's pause.
    """
    runs = _turn_runs.get()
    return runs is not None and call_id in runs.resuming


def is_paused(call_id: str) -> bool:
    """Whether a call of this turn paused (its nested run waits for approval).

    A paused call has no output yet: its end hooks, output guardrails and span's result
    wait for the run that resumes it.

    Args:
        call_id: The call's id.

    Returns:
        True once the agent tool's nested run has paused under this call.
    """
    runs = _turn_runs.get()
    return runs is not None and call_id in runs.paused


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


def pause_nested(call_id: str, pause: NestedPause, agent_name: str) -> None:
    """Record that an agent tool's nested run paused: its call stays unanswered.

    Args:
        call_id: The call's id.
        pause: The nested run's state and waiting calls.
        agent_name: The nested agent, for the message.

    Raises:
        UserError: Outside a turn (the tool called directly), or for a second pause under
            the same call id (two agent tools in one `multi_tool_use.parallel` call).
    """
    runs = _turn_runs.get()
    if runs is None or call_id in runs.paused:
        raise UserError(
            f"Agent '{agent_name}', used as a tool, paused for approval where the pause cannot "
            "reach a run (the tool called outside a run's turn, or beside another agent tool "
            "in one parallel call): call the agent tool from an agent's run, one call each"
        )
    runs.paused[call_id] = pause


def settle_nested(state: RunState, runs: NestedRuns) -> list[tuple[ToolApproval, Agent[Any]]]:
    """Keep the pauses of a turn's nested runs in the caller's state.

    Nested states resumed and finished are dropped; those that paused (again) are kept.
    The decisions passed down to them leave the caller's state.

    Args:
        state: The caller's state.
        runs: What the turn's calls left.

    Returns:
        The nested calls waiting, with their agents, in call order.
    """
    for call_id, resumed in runs.resuming.items():
        for approval in resumed.interruptions:
            state.decisions.pop(call_id + _SEPARATOR + approval.approval_id, None)
    state.nested = {call_id: pause.state for call_id, pause in runs.paused.items()}
    return [approval for pause in runs.paused.values() for approval in pause.approvals]
