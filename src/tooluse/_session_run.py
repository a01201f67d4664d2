"""A run on a session: the history loaded before the first call, whole turns stored.

The run holds the session for its length (`claim`): two runs on one session
are refused, never interleaved. Before the first model call the history is
read (the most recent `limit` items, cut where a turn begins, so a call is
never sent without its output) and put before the new input. Each turn is
stored when it completes, the model's response and every output together, in
one write: a run that fails, or a process that dies, leaves the session at
its last whole turn. A run that pauses for approval stores its `RunState`
with that write, and `Runner.run(agent, session=session)` picks it up.

Sessions that are not ours (anything with openai-agents' four methods) get
each turn through one `add_items` call; they keep no paused run, and their
claim holds within this process only.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, TypeAlias

from ._items import Item
from ._state import RunState, SessionProgress
from .exceptions import SessionBusyError, UserError

if TYPE_CHECKING:
    from ._run_config import RunConfig
    from .sessions import RunSession, Session

__all__ = ["SessionInputCallback", "SessionLink", "check_session", "recent_turns"]

SessionInputCallback: TypeAlias = Callable[
    [list[Item], list[Item]], list[Item] | Awaitable[list[Item]]
]
"""`(history, new_input) -> the items the model is sent` (may be async): to compact or
summarise a long history. The session still stores the new input as given."""

_HELD: set[tuple[str, str]] = set()
"""The sessions claimed by runs in this process, for sessions without a claim of their own."""


def check_session(session: object) -> str | None:
    """What is wrong with a `session=` option, if anything.

    Args:
        session: The option's value.

    Returns:
        The problem, or None when it is a session.
    """
    missing = [
        name
        for name in ("get_items", "add_items", "pop_item", "clear_session")
        if not callable(getattr(session, name, None))
    ]
    if not missing and isinstance(getattr(session, "session_id", None), str):
        return None
    return (
        f"session must be a Session (SQLiteSession, SQLAlchemySession, or an object with "
        f"session_id, get_items, add_items, pop_item and clear_session), not "
        f"{type(session).__name__}"
    )


def recent_turns(items: list[Item]) -> list[Item]:
    """The items from the first user message on, so the history starts where a turn does.

    A window of the most recent items may begin with a call's output (its call cut
    off) or with a call whose reasoning was cut: the API refuses both. Without a
    user message in the window, it starts at the first item that is no output.

    Args:
        items: The most recent items, oldest first.

    Returns:
        The same items, less any leading ones a request could not begin with.
    """
    for index, item in enumerate(items):
        if item.get("role") == "user":
            return items[index:] if index else items
    for index, item in enumerate(items):
        kind = item.get("type")
        if not (isinstance(kind, str) and kind.endswith("_output")) and kind != "reasoning":
            return items[index:]
    return []


class SessionLink:
    """One run's use of its session."""

    def __init__(self, session: Session, config: RunConfig) -> None:
        """Link a run to its session.

        Args:
            session: The session.
            config: The run's settings (`session_settings`, `session_input_callback`).
        """
        self.session = session
        self.store: RunSession | None = (
            session if callable(getattr(session, "add_turn", None)) else None  # type: ignore[assignment]
        )
        self.config = config
        self._clears_paused = False

    @asynccontextmanager
    async def claim(self) -> AsyncGenerator[None]:
        """Hold the session for the run; refuse if another run holds it."""
        if self.store is not None:
            async with self.store.claim():
                yield
            return
        key = (type(self.session).__qualname__, self.session.session_id)
        if key in _HELD:
            raise SessionBusyError(self.session.session_id)
        _HELD.add(key)
        try:
            yield
        finally:
            _HELD.discard(key)

    async def start(self, state: RunState) -> None:
        """Put the stored history before a new run's input.

        Args:
            state: The new run's state; its `input` is the new input.

        Raises:
            UserError: If the session holds a run paused for approval.
        """
        if self.store is not None and await self.store.get_paused_state() is not None:
            raise UserError(
                f"Session {self.session.session_id!r} holds a run paused for approval: resume "
                "it first (state = await session.get_paused_run(); state.approve(...) or "
                "state.reject(...); await Runner.run(agent, state, session=session)), or "
                "drop it with await session.clear_paused_run()"
            )
        limit = self._limit()
        history = await self.session.get_items(limit)
        if limit is not None:
            history = recent_turns(history)
        new_input = list(state.input)
        state.input[:] = await self._model_input(history, new_input)
        state.session = SessionProgress(unsaved_input=new_input)

    async def resume(self, state: RunState | None) -> RunState:
        """The paused run to go on with: the one given, or the one the session stores.

        Args:
            state: The state given to `Runner.run`, or None to take the stored one.

        Returns:
            The state to resume.

        Raises:
            UserError: If there is nothing to resume, or the state given is not the one
                the session holds paused (say it was resumed already).
        """
        name = self.session.session_id
        stored = await self.store.get_paused_state() if self.store is not None else None
        if state is None:
            if stored is None:
                how = "holds no paused run" if self.store else "cannot keep a paused run"
                raise UserError(
                    f"Runner.run got no input, and session {name!r} {how}: give the "
                    "user's message, or the RunState to resume"
                )
            state = RunState.from_json(stored)
        elif stored is not None and _waiting(RunState.from_json(stored)) != _waiting(state):
            raise UserError(
                f"Session {name!r} holds another paused run than the state given: resume "
                "that one (await session.get_paused_run()), or drop it with "
                "await session.clear_paused_run()"
            )
        elif stored is None and state.session is not None and self.store is not None:
            raise UserError(
                f"This run paused in session {name!r}, which no longer holds it: it was "
                "resumed already, or the session was cleared. Start a new run with "
                "Runner.run(agent, input, session=session)"
            )
        if state.session is None:  # a run from elsewhere: the session takes all of it
            state.session = SessionProgress(unsaved_input=list(state.input))
        self._clears_paused = stored is not None
        return state

    async def save(self, state: RunState, *, paused: bool = False) -> None:
        """Store what the run completed since the last save, in one write.

        Args:
            state: The run's state.
            paused: Whether the run pauses for approval: its state is stored too.
        """
        progress = state.session
        assert progress is not None  # set when the run started or resumed
        done = len(state.new_items) - (len(state.turn.output) if state.turn else 0)
        items = [*progress.unsaved_input, *state.new_items[progress.saved : done]]
        if not items and not paused and not self._clears_paused:
            return
        before = (progress.unsaved_input, progress.saved)
        progress.unsaved_input, progress.saved = [], done
        try:
            if self.store is not None:
                await self.store.add_turn(items, paused_state=state.to_json() if paused else None)
            elif items:
                await self.session.add_items(items)
        except BaseException:
            progress.unsaved_input, progress.saved = before
            raise
        self._clears_paused = False

    def _limit(self) -> int | None:
        settings = self.config.session_settings or getattr(self.session, "session_settings", None)
        return getattr(settings, "limit", None)

    async def _model_input(self, history: list[Item], new_input: list[Item]) -> list[Item]:
        callback = self.config.session_input_callback
        if callback is None:
            return [*history, *new_input]
        built: Any = callback(history, new_input)
        if inspect.isawaitable(built):
            built = await built
        if not isinstance(built, list):
            raise UserError(
                f"session_input_callback returned {type(built).__name__}: return the list of "
                "items the model is sent (say, a summary of the history, then the new input)"
            )
        return list(built)  # pyright: ignore[reportUnknownArgumentType]


def _waiting(state: RunState) -> list[str]:
    return [approval.approval_id for approval in state.interruptions]
