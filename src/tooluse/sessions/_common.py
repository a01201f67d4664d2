"""What both stores share: items to and from JSON text, and the limit a read uses."""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import AsyncGenerator, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from ..core._items import Item
from ..core._state import RunState
from ..exceptions import UserError
from ._lease import hold_claim
from ._protocol import RunSession, SessionSettings

__all__ = [
    "PausedRuns",
    "RunStore",
    "WrappedRunSession",
    "check_paused_state",
    "dump_items",
    "load_item",
    "load_items",
    "resolve_limit",
]

# Built once: `json.dumps` with options builds a new encoder for every item, and
# `json.loads` adds two whitespace scans and a wrapper call per item to this decoder's.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_SCAN = json.JSONDecoder().raw_decode


def dump_items(session_id: str, items: Sequence[Item]) -> list[str]:
    """Each item as JSON text, or one error naming the first item that is not JSON.

    Raises:
        UserError: An item holds a value JSON cannot represent.
    """
    if not isinstance(items, list):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise UserError(
            f"Session {session_id!r}: items must be a list of item dicts, "
            f"not {type(items).__name__}"
        )
    return [_dump(session_id, index, len(items), item) for index, item in enumerate(items)]


def _dump(session_id: str, index: int, count: int, item: Item) -> str:
    try:
        return _ENCODER.encode(item)
    except (TypeError, ValueError) as error:
        raise UserError(
            f"Session {session_id!r}: item {index} (of {count}) cannot be stored as JSON: "
            f"{error}. Session items must hold only JSON values (dict, list, str, int, "
            "float, bool, None); convert the value first, e.g. to a string. Nothing was stored"
        ) from error


def load_item(session_id: str, row_id: object, text: str) -> Item:
    """One stored item back from its JSON text.

    Raises:
        ValueError: The stored text is not JSON (the row was written by something else).
    """
    try:
        item = json.loads(text)
    except ValueError as error:
        raise ValueError(
            f"Session {session_id!r}: the stored item with id {row_id} is not valid JSON "
            f"({error}); remove that row or clear the session"
        ) from error
    return item  # pyright: ignore[reportUnknownVariableType]


def load_items(session_id: str, rows: Iterable[tuple[object, str]]) -> list[Item]:
    """Stored items back from their JSON text, in order: each row as `load_item` reads it.

    A row that is one JSON value from its first character to its last (what a store
    writes) is decoded directly; any other (surrounding whitespace, bytes, not JSON)
    goes through `load_item`, so that the result, or the error, is `json.loads`'s.

    Raises:
        ValueError: A stored text is not JSON (the row was written by something else).
    """
    items: list[Item] = []
    for row_id, text in rows:
        try:
            item, end = _SCAN(text)
            if end == len(text):
                items.append(item)
                continue
        except Exception:  # leading whitespace, bytes, None, not JSON: json.loads says which
            pass
        items.append(load_item(session_id, row_id, text))
    return items


def resolve_limit(session_id: str, limit: int | None, settings: SessionSettings) -> int | None:
    """The limit a read uses: the one given, else the settings' limit.

    Raises:
        UserError: The limit given is not an integer of 0 or more.
    """
    given: object = limit
    if given is None:
        return settings.limit
    if type(given) is not int or given < 0:
        raise UserError(
            f"Session {session_id!r}: get_items(limit={given!r}) needs an integer of 0 or "
            "more (the most recent items to return), or None"
        )
    return given


def check_paused_state(session_id: str, paused_state: object) -> str | None:
    """The paused state, checked to be text or None.

    Raises:
        UserError: It is something else.
    """
    if paused_state is None or isinstance(paused_state, str):
        return paused_state
    raise UserError(
        f"Session {session_id!r}: paused_state must be the run state's JSON text "
        f"(RunState.to_string()) or None, not {type(paused_state).__name__}"
    )


class PausedRuns:
    """A run session's paused run as a `RunState`, over its `add_turn` and `get_paused_state`."""

    @abstractmethod
    async def add_turn(self, items: list[Item], *, paused_state: str | None) -> None:
        """Append a turn's items and set the paused run's state, in one transaction."""

    @abstractmethod
    async def get_paused_state(self) -> str | None:
        """The paused run's serialised state, or None."""

    async def get_paused_run(self) -> RunState | None:
        """The run paused on this session, to approve or reject its calls and resume.

        Returns:
            Its state (`state.get_interruptions()` lists what waits), or None if no run
            is paused here. Resume it with `Runner.run(agent, state, session=session)`.
        """
        text = await self.get_paused_state()
        return None if text is None else RunState.from_json(text)

    async def clear_paused_run(self) -> None:
        """Drop the paused run: its waiting calls are never run, and the session's items stay.

        A new run on the session is refused while a run is paused on it; this lets one
        start without resuming the old one.
        """
        await self.add_turn([], paused_state=None)


class WrappedRunSession(PausedRuns):
    """What a session wrapping a `RunSession` hands on to it: the claim on the conversation."""

    underlying_session: RunSession

    def claim(self) -> AbstractAsyncContextManager[None]:
        """The wrapped session's claim: one run at a time on this conversation.

        Returns:
            Its async context manager.
        """
        return self.underlying_session.claim()


class RunStore(PausedRuns):
    """What both stores build on their SQL: a run's claim, and its paused run as a `RunState`."""

    session_id: str
    lease_seconds: float
    _owner: str | None
    """The owner string of the claim this object holds, while it holds one."""

    @asynccontextmanager
    async def claim(self) -> AsyncGenerator[None, None]:
        """A run's exclusive hold on this session id, while the context is open.

        It holds across tasks, session objects and processes using the same database,
        and is renewed in the background; leaving the context frees it.

        Yields:
            Nothing: the claim is held inside the block.

        Raises:
            SessionBusyError: Another live claim holds the session.
        """
        async with hold_claim(
            self.session_id, self.lease_seconds, self._acquire, self._renew, self._release
        ) as owner:
            self._owner = owner
            try:
                yield
            finally:
                self._owner = None

    @abstractmethod
    async def _acquire(self, owner: str, now: float, expires_at: float) -> bool:
        """Take the claim for `owner` if it is free; True if taken."""

    @abstractmethod
    async def _renew(self, owner: str, expires_at: float) -> bool:
        """Push the claim's expiry on if `owner` still holds it; True if so."""

    @abstractmethod
    async def _release(self, owner: str) -> None:
        """Free the claim if `owner` still holds it."""
