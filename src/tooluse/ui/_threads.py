"""What the server keeps of each thread: its history and a run paused for approval.

The client never holds the truth of a conversation: its messages are checked against
what is kept here (`_history.py`), and an approval is answered against the paused run
kept here, taken once (`_decisions.py`), so a replayed decision finds nothing to run.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from ..core._factories import new_list
from ..core._items import Item
from ..core._state import RunState
from ..run._result import RunResult
from ..sessions import RunSession, Session

__all__ = ["Held", "SessionFactory", "Thread", "ThreadBusy", "Threads"]

SessionFactory = Callable[[str], Session]
"""Makes the session of a thread id, e.g. `lambda thread_id: SQLiteSession(thread_id, "db")`."""

_KEPT_THREADS = 1000  # threads kept in memory; the least recently used go first


class ThreadBusy(Exception):
    """A second request for a thread whose run has not ended."""


@dataclass
class Thread:
    """One thread, as the server keeps it."""

    thread_id: str
    session: Session | None
    items: list[Item] = field(default_factory=new_list)
    """The history, when no session keeps it."""
    paused: RunState | None = None
    """The run waiting for approval, when no session keeps it."""
    held: bool = False
    """Whether a request holds the thread (its run has not ended)."""

    async def history(self) -> list[Item]:
        """The conversation so far, oldest first."""
        if self.session is not None:
            return await self.session.get_items()
        return list(self.items)

    async def paused_run(self) -> RunState | None:
        """The run waiting for approval on this thread, if any."""
        session = self.session
        # None first: checking against the Protocol costs 20 us, more than a run's events
        if session is not None and isinstance(session, RunSession):
            text = await session.get_paused_state()
            return RunState.from_json(text) if text is not None else None
        return self.paused.copy() if self.paused is not None else None

    def drop_paused(self) -> None:
        """Forget the paused run kept in memory: its decisions are being applied."""
        self.paused = None

    def keep(self, result: RunResult) -> None:
        """Keep what a run ended with (a session keeps it itself).

        Args:
            result: The ended run's result.
        """
        if self.session is not None:
            return
        self.items = list(result.to_input_list())
        self.paused = result.to_state() if result.interruptions else None


class Threads:
    """The threads of one app: in memory, or each in a session of its own."""

    def __init__(self, sessions: SessionFactory | None) -> None:
        self._sessions = sessions
        self._threads: OrderedDict[str, Thread] = OrderedDict()

    def hold(self, thread_id: str) -> Held:
        """Hold a thread for one request (`with threads.hold(id) as thread:`).

        Args:
            thread_id: The client's thread id.

        Returns:
            The thread's hold: entering it while another request holds the thread
            raises `ThreadBusy`.
        """
        thread = self._threads.get(thread_id)
        if thread is None:
            session = self._sessions(thread_id) if self._sessions is not None else None
            thread = self._threads[thread_id] = Thread(thread_id, session)
            while len(self._threads) > _KEPT_THREADS:
                _, dropped = self._threads.popitem(last=False)
                close = getattr(dropped.session, "close", None)
                if callable(close) and not dropped.held:
                    close()  # SQLiteSession's connection; the store keeps the thread
        self._threads.move_to_end(thread_id)
        return Held(thread)


class Held:
    """A thread held for one request, from entering the `with` block to leaving it.

    A flag, not a lock: a request checks and takes it with nothing awaited in between,
    on the loop's thread, and a second request is refused rather than made to wait.
    """

    __slots__ = ("thread",)

    def __init__(self, thread: Thread) -> None:
        self.thread = thread

    def __enter__(self) -> Thread:
        """Take the thread.

        Returns:
            The thread.

        Raises:
            ThreadBusy: If another request holds it (a run on it has not ended).
        """
        thread = self.thread
        if thread.held:
            raise ThreadBusy(thread.thread_id)
        thread.held = True
        return thread

    def __exit__(self, *exc_info: object) -> None:
        """Let the thread go, however the request ended."""
        self.thread.held = False
