"""Starting a run for a client's request, the same way for every protocol.

A request either sends new user messages or answers the calls the thread's paused run
waits on; both are checked against what the server keeps (`_history.py`,
`_decisions.py`) before anything runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from ..agents._agent import Agent
from ..core._items import Item
from ..core._state import RunState
from ..run._config import RunConfig
from ..run._result import RunResultStreaming
from ..run._runner import Runner
from ._decisions import Decision, apply_decisions
from ._history import ClientMessage, HistoryRefused, checked_input
from ._threads import Thread

__all__ = ["RunRequest", "StartedRun", "start_run"]


@dataclass
class RunRequest:
    """What a client asked for, whatever the protocol."""

    messages: list[ClientMessage]
    """The client's messages, oldest first."""
    decisions: list[Decision] | None = None
    """Answers to the paused run's calls; None for a request with a new message."""


class StartedRun(NamedTuple):
    """A request's run, started."""

    result: RunResultStreaming
    """The streaming result."""
    shown: frozenset[str]
    """The approval ids the resumed run waited on: calls an earlier stream showed the
    client; empty for a new message."""


async def start_run(
    agent: Agent[Any], thread: Thread, request: RunRequest, run_config: RunConfig | None
) -> StartedRun:
    """Check a request against the thread and start its run, streamed.

    Args:
        agent: The agent the app serves.
        thread: The thread, held for this request.
        request: What the client asked for.
        run_config: The app's run settings.

    Returns:
        The streaming result, and the calls the resumed run waited on.

    Raises:
        HistoryRefused: If the client's history is refused, or it sends a message while
            a run waits for approval.
        DecisionRefused: If its decisions are.
    """
    run_input: list[Item] | RunState
    paused = await thread.paused_run()
    shown = frozenset[str]()
    if request.decisions is not None:
        run_input = apply_decisions(thread.thread_id, paused, request.decisions)
        shown = frozenset([call.approval_id for call in run_input.interruptions])
        thread.drop_paused()
    elif paused is not None:
        raise HistoryRefused(
            f"thread {thread.thread_id!r} has a run waiting for approval of "
            f"{[call.tool_name for call in paused.interruptions]}: answer it first",
            "paused_run",
        )
    else:
        known = await thread.history()
        history, new = checked_input(thread.thread_id, request.messages, known)
        run_input = new if thread.session is not None and known else [*history, *new]
    result = Runner.run_streamed(
        agent, run_input, session=thread.session, run_config=run_config or RunConfig()
    )
    return StartedRun(result, shown)
