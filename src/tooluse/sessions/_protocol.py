"""What a session is: `Session`, the runner's `RunSession`, settings, and the busy error."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Protocol, TypeAlias, runtime_checkable

from ..core._items import Item
from ..exceptions import SessionBusyError, UserError

__all__ = ["RunSession", "Session", "SessionBusyError", "SessionInputCallback", "SessionSettings"]

SessionInputCallback: TypeAlias = Callable[
    [list[Item], list[Item]], list[Item] | Awaitable[list[Item]]
]
"""`(history, new_input) -> the items the model is sent` (may be async): to compact or
summarise a long history. The session still stores the new input as given."""


@runtime_checkable
class Session(Protocol):
    """A conversation's stored history: what a user may implement over any store.

    The names are openai-agents' `Session` protocol's, so a session written for it
    works here. Items are the run's item dicts; a store keeps them as JSON.
    """

    session_id: str
    """The conversation this session stores."""

    async def get_items(self, limit: int | None = None) -> list[Item]:
        """The stored items, oldest first.

        Args:
            limit: Return only the last `limit` items (still oldest first). None returns
                every item, or the last `SessionSettings.limit` if the session has one.

        Returns:
            The items.
        """
        ...

    async def add_items(self, items: list[Item]) -> None:
        """Append items, in one transaction: all of them are stored, or none.

        Args:
            items: The items to append, in order.
        """
        ...

    async def pop_item(self) -> Item | None:
        """Remove the newest item.

        Returns:
            The item removed, or None if the session is empty.
        """
        ...

    async def clear_session(self) -> None:
        """Remove every item, and a paused run's stored state."""
        ...


@runtime_checkable
class RunSession(Session, Protocol):
    """A `Session` that also keeps a paused run and serialises runs: what the runner prefers.

    `SQLiteSession` and `SQLAlchemySession` are both. With a plain `Session` the runner
    stores items with `add_items` and cannot keep a paused run or refuse a second one.
    """

    async def add_turn(self, items: list[Item], *, paused_state: str | None) -> None:
        """Append a turn's items and set the paused run's state, in one transaction.

        Args:
            items: The items to append, in order.
            paused_state: The paused run's serialised `RunState`, or None to clear it.
        """
        ...

    async def get_paused_state(self) -> str | None:
        """The paused run's serialised state, as `add_turn` last stored it.

        Returns:
            The state, or None if no run is paused on this session.
        """
        ...

    def claim(self) -> AbstractAsyncContextManager[None]:
        """A run's exclusive hold on this session id, while the context is open.

        It holds across tasks, session objects and processes sharing the database.

        Returns:
            An async context manager; entering it raises `SessionBusyError` at once if
            another live claim holds the session.
        """
        ...


@dataclass
class SessionSettings:
    """How a session serves its history.

    Raises:
        UserError: `limit` is not a positive integer or None.
    """

    limit: int | None = None
    """The most items `get_items()` returns when called without a limit; None for all."""

    def __post_init__(self) -> None:
        limit: object = self.limit
        if limit is not None and (type(limit) is not int or limit <= 0):
            raise UserError(
                f"SessionSettings(limit={limit!r}): the limit must be a positive integer "
                "(the most recent items to keep), or None for the whole history"
            )
