"""A client's answers to the calls a paused run waits on, checked and applied once.

The paused run is the server's (`_threads.py`): a decision names one of its waiting
calls by approval id, or it is refused; once applied, the run is no longer paused, so
the same decision sent again finds nothing and runs nothing twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core._state import RunState

__all__ = ["Decision", "DecisionRefused", "apply_decisions"]


class DecisionRefused(Exception):
    """A decision the server cannot apply: what was wrong, and what to do."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code
        """A short machine-readable reason (`no_paused_run`, `unknown_call`)."""


@dataclass(frozen=True)
class Decision:
    """A client's answer to one waiting call."""

    approval_id: str
    """The waiting call's approval id (the AG-UI interrupt id, the AI SDK approval id)."""
    approved: bool
    """Whether the call may run."""
    message: str | None = None
    """What the model is told of a rejection; None for the standard text."""


def apply_decisions(thread_id: str, state: RunState | None, decisions: list[Decision]) -> RunState:
    """Apply a client's decisions to the thread's paused run.

    Args:
        thread_id: The thread, for messages.
        state: The thread's paused run (a copy), or None if it has none.
        decisions: The client's decisions.

    Returns:
        The state, decided, to resume.

    Raises:
        DecisionRefused: If the thread has no paused run (the decision was applied
            already, or never asked for), or a decision names a call it is not waiting on.
    """
    if state is None or not state.interruptions:
        raise DecisionRefused(
            f"thread {thread_id!r} has no run waiting for approval: the decision was "
            "applied already or never asked for; send a new message instead",
            "no_paused_run",
        )
    waiting = {call.approval_id: call for call in state.interruptions}
    unknown = [d.approval_id for d in decisions if d.approval_id not in waiting]
    if unknown or not decisions:
        raise DecisionRefused(
            f"thread {thread_id!r}: the run waits on {sorted(waiting)}, not on "
            f"{unknown or 'nothing'}; answer the calls the last run finished with",
            "unknown_call",
        )
    for decision in decisions:
        call = waiting[decision.approval_id]
        if decision.approved:
            state.approve(call)
        else:
            state.reject(call, rejection_message=decision.message)
    return state
