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

import asyncio
import hashlib
import inspect
import json
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, cast

from ..core._context_record import read_marked
from ..core._items import Item
from ..core._state import RunState, SessionProgress
from ..core._tasks import succeeded, to_the_end
from ..exceptions import SessionBusyError, UserError
from ..models._base import ModelTransportError
from ._retries import may_help

if TYPE_CHECKING:
    from ..core._context import RunContextWrapper
    from ..sessions import RunSession, Session
    from ._config import RunConfig

__all__ = ["SessionLink", "check_session", "recent_turns"]

_log = logging.getLogger("tooluse")


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
    """The items from where a turn can begin: no call's output without its call.

    A window of the most recent items may begin inside a turn: with outputs whose
    calls were cut off (the API refuses those), or with reasoning cut from its call.
    The window starts at its first user message (or `compaction` item, which stands
    for the turns before it) when the rest is whole from there, else at the first
    item from which it is whole.

    Args:
        items: The most recent items, oldest first.

    Returns:
        The same items, less any leading ones a request could not begin with.
    """
    broken = _broken_starts(items)
    whole = [index for index in range(len(items)) if index not in broken]
    for index in whole:
        if items[index].get("role") == "user" or items[index].get("type") == "compaction":
            return items[index:] if index else items
    for index in whole:
        if items[index].get("type") != "reasoning":
            return items[index:] if index else items
    return []


def _broken_starts(items: list[Item]) -> set[int]:
    """The indexes a window cannot start at: between an output and its call (or before it)."""
    calls: dict[object, int] = {}
    broken: set[int] = set()
    for index, item in enumerate(items):
        kind = item.get("type")
        if not isinstance(kind, str):
            continue
        if kind.endswith("_output"):
            call = calls.get(item.get("call_id"))
            broken.update(range(call + 1 if call is not None else 0, index + 1))
        elif "call_id" in item:
            calls.setdefault(item["call_id"], index)
    return broken


def _marks_into(items: list[Item], state: RunState, done: int) -> int:
    """Put the context policy's marks made up to `done` into the write, each in its place.

    Args:
        items: The write: the unsaved input, then the new items up to `done`.
        state: The run's state (its `ContextRecord` holds the marks, each with `at`).
        done: How many of the new items the write stores.

    Returns:
        How many marks went in (the first ones).
    """
    context, progress = state.context, state.session
    if context is None or not context.marks or progress is None:
        return 0
    placed = 0
    for mark in context.marks:
        at = mark["at"]
        if at > done:
            break
        place = len(progress.unsaved_input) + max(0, at - progress.saved) + placed
        items.insert(place, {key: value for key, value in mark.items() if key != "at"})
        placed += 1
    return placed


def _answers_a_call(item: Item) -> bool:
    """Whether an item is a tool's (or a handoff's) output, which the model has yet to read."""
    kind = item.get("type")
    return isinstance(kind, str) and (kind.endswith("_output") or kind == "mcp_approval_response")


def _takes_wrapper(method: Callable[..., object]) -> bool:
    """Whether a session's `run_compaction` takes the run's context (`wrapper=`)."""
    try:
        parameters = inspect.signature(method).parameters
    except (TypeError, ValueError):  # a builtin or C callable: no signature to read
        return False
    wrapper = parameters.get("wrapper")
    return wrapper is not None and wrapper.kind in (
        inspect.Parameter.KEYWORD_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
    )


def _tip(items: list[Item]) -> str | None:
    """A fingerprint of the newest item: whether a session moved on since a state was saved."""
    if not items:
        return None
    text = json.dumps(items[-1], sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


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
        found = getattr(session, "run_compaction", None)
        self._run_compaction = (
            cast("Callable[..., Awaitable[object]]", found) if callable(found) else None
        )
        self._written: list[Item] = []
        self._sees_all = True  # whether the model is sent every stored item (`compact`)

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
        stored = await self.session.get_items(limit)
        new_input = list(state.input)
        marked = read_marked(stored)
        history = recent_turns(marked)  # as the policy of the last run left it
        self._sees_all = (
            (limit is None or len(stored) < limit)
            and len(history) == len(marked)
            and self.config.session_input_callback is None
        )
        state.input[:] = await self._model_input(history, new_input)
        state.session = SessionProgress(unsaved_input=new_input, tip=_tip(stored))

    async def resume(self, state: RunState | None) -> RunState:
        """The run to go on with: the state given, or the run the session holds paused.

        Args:
            state: The state given to `Runner.run`, or None to take the paused one.

        Returns:
            The state to resume.

        Raises:
            UserError: If there is nothing to resume, or the state is not where the
                session is now (resumed already, or the session moved on).
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
        elif stored is not None and RunState.from_json(stored).session != state.session:
            raise UserError(
                f"Session {name!r} holds another paused run than the state given: resume "
                "that one (await session.get_paused_run()), or drop it with "
                "await session.clear_paused_run()"
            )
        elif stored is None and state.interruptions and state.session and self.store:
            raise UserError(
                f"This run paused in session {name!r}, which no longer holds it: it was "
                "resumed already, or dropped. Start a new run with "
                "Runner.run(agent, input, session=session)"
            )
        if state.session is None:  # a run from elsewhere: the session takes all of it
            state.session = SessionProgress(unsaved_input=list(state.input))
        elif _tip(await self.session.get_items(1)) != state.session.tip:
            raise UserError(
                f"Session {name!r} has moved on since this state was saved: it was resumed "
                "already, or another run added to the session. Resume from the session's "
                "latest state, or start a new run with Runner.run(agent, input, "
                "session=session)"
            )
        self._clears_paused = stored is not None
        # What the paused run was sent is not known here: only without a window, all of it.
        self._sees_all = self._limit() is None and self.config.session_input_callback is None
        return state

    async def save(self, state: RunState, *, paused: bool = False) -> None:
        """Store what the run completed since the last save, in one write.

        If the run is cancelled meanwhile, the write still ends first (it cannot be
        stopped), so that the state records what the session holds either way.

        Args:
            state: The run's state.
            paused: Whether the run pauses for approval: its state is stored too.
        """
        progress = state.session
        assert progress is not None  # set when the run started or resumed
        done = len(state.new_items) - (len(state.turn.output) if state.turn else 0)
        answered = state.new_items[progress.saved : done]
        items = [*progress.unsaved_input, *answered]
        marks = _marks_into(items, state, done)
        if not items and not paused and not self._clears_paused:
            return
        before = (progress.unsaved_input, progress.saved, progress.tip)
        after: tuple[list[Item], int, str | None] = ([], done, _tip(items) or progress.tip)
        progress.unsaved_input, progress.saved, progress.tip = after  # as the stored state says
        context = state.context
        unwritten = context.marks if context is not None else []
        if context is not None:
            context.marks = unwritten[marks:]  # stored with this write: not again on resume
        paused_state = state.to_string() if paused else None
        progress.unsaved_input, progress.saved, progress.tip = before
        if context is not None:
            context.marks = unwritten
        write = asyncio.ensure_future(self._write(items, paused_state))
        try:
            await to_the_end(write)
        finally:
            if succeeded(write):
                self._written = [] if paused else answered
                progress.unsaved_input, progress.saved, progress.tip = after
                self._clears_paused = False
                if marks and state.context is not None:
                    del state.context.marks[:marks]

    @property
    def compacts(self) -> bool:
        """Whether the session compacts (has openai-agents' `run_compaction`)."""
        return self._run_compaction is not None

    async def compact(
        self, response_id: str | None, store: bool | None, context: RunContextWrapper[Any]
    ) -> None:
        """Let a session that compacts (`run_compaction`) decide, after the last save.

        As in openai-agents, only after a turn the model answered: a write holding tool
        outputs is followed by the model's next call, which reads them (and a paused
        run's write, by its resume). The call gets the last response's id and whether
        the API stored it, and the run's context when it takes one (`wrapper`).
        Not when the model was sent only part of the stored history (a `limit` reached,
        a `session_input_callback`): compacting by that response would drop the rest
        (openai-agents skips too, where it cannot compact only the part sent).
        If the API call fails in a way a retry may mend (`RetryPolicy`'s rule: a
        connection lost, 429, 5xx), a WARNING says so and the run ends as it would have;
        any other failure fails the run, as in openai-agents (its turn is stored).

        Args:
            response_id: The id of the response the write ends with, if any.
            store: Whether that response was stored (`ModelSettings.store`), if said.
            context: The run's context, whose usage a compaction adds to.
        """
        written, self._written = self._written, []
        run_compaction = self._run_compaction
        if not written or response_id is None or run_compaction is None:
            return
        if not self._sees_all:
            return
        if any(_answers_a_call(item) for item in written):
            return
        args: dict[str, object] = {"response_id": response_id}
        if store is not None:
            args["store"] = store
        try:
            if _takes_wrapper(run_compaction):
                await run_compaction(args, wrapper=context)
            else:
                await run_compaction(args)
        except ModelTransportError as error:
            if not may_help(error, self.config.retry_policy.retry_statuses):
                raise  # a key, a URL, a history the API refuses: the developer's to fix now
            # The run's answer is stored already: losing it to a failure that may pass
            # would make the caller ask again, and store the question twice.
            _log.warning(
                "session %r: compacting after the run failed (%s); the run's result stands: "
                "the next run tries again, or call run_compaction({'force': True})",
                self.session.session_id,
                error,
            )

    async def _write(self, items: list[Item], paused_state: str | None) -> None:
        if self.store is not None:
            await self.store.add_turn(items, paused_state=paused_state)
        elif items:
            await self.session.add_items(items)

    def _limit(self) -> int | None:
        settings = self.config.session_settings or getattr(self.session, "session_settings", None)
        return getattr(settings, "limit", None)

    async def _model_input(self, history: list[Item], new_input: list[Item]) -> list[Item]:
        callback = self.config.session_input_callback
        if callback is None:
            return [*history, *new_input]
        # What the user's callback returned, checked: it may not keep to its type.
        built = cast(object, callback(history, new_input))
        if inspect.isawaitable(built):
            built = await built
        if not isinstance(built, list):
            raise UserError(
                f"session_input_callback returned {type(built).__name__}: return the list of "
                "items the model is sent (say, a summary of the history, then the new input)"
            )
        return list(cast(list[Item], built))
