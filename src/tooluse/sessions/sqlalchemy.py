"""`SQLAlchemySession`: sessions in any database SQLAlchemy's async engine reaches.

PostgreSQL (`postgresql+asyncpg://`), MySQL (`mysql+aiomysql://`), SQLite
(`sqlite+aiosqlite://`), ...: the same semantics as `SQLiteSession`, through the
same contract tests. Needs `pip install 'tooluse[sqlalchemy]'`; `import tooluse`
never imports SQLAlchemy, this module does.

```python
from tooluse.sessions.sqlalchemy import SQLAlchemySession

session = SQLAlchemySession.from_url(
    "user-42", url="postgresql+asyncpg://app@db/chat", create_tables=True
)
```

A claim is taken by compare-and-set on its row (an update that only matches the
row as it was read), so it needs no table locks and works at any isolation level.
"""

from __future__ import annotations

from importlib.util import find_spec

if find_spec("sqlalchemy") is None:  # pragma: no cover - the tests run with the extra installed
    raise ImportError(
        "tooluse.sessions.sqlalchemy needs SQLAlchemy: pip install 'tooluse[sqlalchemy]'",
        name="sqlalchemy",
    )

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from sqlalchemy import (
    TIMESTAMP,
    Column,
    ColumnElement,
    Double,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    delete,
    event,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.dialects.mysql import LONGTEXT
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from ..core._items import Item
from ._common import (
    RunStore,
    check_paused_state,
    dump_items,
    load_item,
    load_items,
    resolve_limit,
)
from ._lease import check_lease_seconds, claimable
from ._protocol import SessionBusyError, SessionSettings

__all__ = ["SQLAlchemySession"]

_T = TypeVar("_T")
_SQLITE_BUSY_TIMEOUT_MS = 10_000
_LAPSED = "this run's claim lapsed and another run took the session"
_LongText = Text().with_variant(LONGTEXT(), "mysql")  # MySQL's TEXT stops at 64 KB


class SQLAlchemySession(RunStore):
    """A conversation kept in a database through SQLAlchemy's async engine.

    Uses the same tables as openai-agents' `SQLAlchemySession` (`agent_sessions`,
    `agent_messages`), so it reads and extends a history that SDK wrote, plus a
    runs table for a paused run's state and the claim of the run in progress. On
    SQLite it turns on WAL mode and a busy timeout for each new connection.

    Args:
        session_id: The conversation's id; other ids in the same tables are kept apart.
        engine: An async engine (`create_async_engine("postgresql+asyncpg://...")`).
            The caller disposes of it; `from_url` makes one the session disposes of.
        create_tables: Create the tables that are missing on first use (for tests and
            development; in production, create them with your migrations).
        sessions_table: The table of session ids.
        messages_table: The table of items, one JSON text per row.
        runs_table: The table of paused run states and run claims.
        session_settings: Settings; `SessionSettings(limit=N)` makes `get_items()`
            return the last N items by default.
        lease_seconds: How long a run's claim lasts unless renewed (it is renewed every
            third of it while the run goes on); a claim whose process was killed on
            this host is taken at once, one on another host when it expires.

    Raises:
        UserError: The settings or `lease_seconds` are not valid.
    """

    def __init__(
        self,
        session_id: str,
        *,
        engine: AsyncEngine,
        create_tables: bool = False,
        sessions_table: str = "agent_sessions",
        messages_table: str = "agent_messages",
        runs_table: str = "agent_session_runs",
        session_settings: SessionSettings | None = None,
        lease_seconds: float = 30,
    ) -> None:
        self.session_id = session_id
        """The conversation this session stores."""
        self.session_settings = session_settings or SessionSettings()
        """The session's settings."""
        self.lease_seconds = check_lease_seconds(type(self).__name__, lease_seconds)
        """How long a run's claim lasts unless renewed, in seconds."""
        self._engine = engine
        self._owns_engine = False
        self._tables_missing = create_tables
        self._tables_lock = asyncio.Lock()
        self._owner: str | None = None
        self._metadata = MetaData()
        self._sessions, self._messages, self._runs = _tables(
            self._metadata, sessions_table, messages_table, runs_table
        )
        if engine.dialect.name == "sqlite":
            _configure_sqlite(engine.sync_engine)

    @classmethod
    def from_url(
        cls,
        session_id: str,
        *,
        url: str,
        engine_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> SQLAlchemySession:
        """A session on an engine made from a database URL; `close()` disposes of it.

        Args:
            session_id: The conversation's id.
            url: An async database URL, e.g. `"postgresql+asyncpg://user:pw@host/db"` or
                `"sqlite+aiosqlite:///chat.db"`.
            engine_kwargs: Keyword arguments for `create_async_engine`.
            **kwargs: The constructor's other arguments (`create_tables`, table names,
                `session_settings`, `lease_seconds`).

        Returns:
            The session.
        """
        engine = create_async_engine(url, **(engine_kwargs or {}))
        session = cls(session_id, engine=engine, **kwargs)
        session._owns_engine = True
        return session

    @property
    def engine(self) -> AsyncEngine:
        """The engine the session uses."""
        return self._engine

    async def close(self) -> None:
        """Dispose of the engine if `from_url` made it; an engine passed in is left open."""
        if self._owns_engine:
            await self._engine.dispose()

    # -- the Session protocol ---------------------------------------------------------

    async def get_items(self, limit: int | None = None) -> list[Item]:
        """The stored items, oldest first.

        Args:
            limit: Return only the last `limit` items. None returns every item, or the
                last `session_settings.limit` when that is set.

        Returns:
            The items.
        """
        count = resolve_limit(self.session_id, limit, self.session_settings)
        table = self._messages
        query = select(table.c.id, table.c.message_data).where(self._of(table))
        if count is None:
            query = query.order_by(table.c.id)
        else:
            query = query.order_by(table.c.id.desc()).limit(count)
        await self._ensure_tables()
        async with self._engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        ordered = rows if count is None else rows[::-1]
        return load_items(self.session_id, ordered)

    async def add_items(self, items: list[Item]) -> None:
        """Append items in one transaction: all of them are stored, or none.

        Args:
            items: The items to append, in order.

        Raises:
            UserError: An item cannot be stored as JSON (nothing is stored).
        """
        texts = dump_items(self.session_id, items)
        await self._write(lambda connection: self._insert(connection, texts))

    async def pop_item(self) -> Item | None:
        """Remove the newest item.

        Returns:
            The item removed, or None if the session is empty.
        """
        row = await self._write(self._delete_newest)
        return None if row is None else load_item(self.session_id, row[0], row[1])

    async def clear_session(self) -> None:
        """Remove every item of this session, and its paused run's state."""
        await self._write(self._clear)

    # -- what the runner uses ---------------------------------------------------------

    async def add_turn(self, items: list[Item], *, paused_state: str | None) -> None:
        """Append a turn's items and set the paused run's state, in one transaction.

        Args:
            items: The items to append, in order.
            paused_state: The paused run's serialised `RunState`, or None to clear it.

        Raises:
            UserError: An item cannot be stored as JSON, or `paused_state` is not text
                (nothing is stored).
            SessionBusyError: This object's claim lapsed and another run holds the session.
        """
        texts = dump_items(self.session_id, items)
        state = check_paused_state(self.session_id, paused_state)
        owner = self._owner
        await self._write(lambda connection: self._store_turn(connection, texts, state, owner))

    async def get_paused_state(self) -> str | None:
        """The paused run's serialised state, as `add_turn` last stored it.

        Returns:
            The state, or None if no run is paused on this session.
        """
        await self._ensure_tables()
        query = select(self._runs.c.paused_state).where(self._of(self._runs))
        async with self._engine.connect() as connection:
            return (await connection.execute(query)).scalar()

    # -- the claim's steps ------------------------------------------------------------

    async def _acquire(self, owner: str, now: float, expires_at: float) -> bool:
        try:
            return await self._write(lambda c: self._take(c, owner, now, expires_at), retry=False)
        except IntegrityError:  # another run inserted the row first: it holds the claim
            return False

    async def _take(
        self, connection: AsyncConnection, owner: str, now: float, expires_at: float
    ) -> bool:
        runs = self._runs
        query = select(runs.c.owner, runs.c.expires_at).where(self._of(runs))
        row = (await connection.execute(query)).first()
        if row is None:
            values = {"session_id": self.session_id, "owner": owner, "expires_at": expires_at}
            await connection.execute(insert(runs).values(values))
            return True
        seen_owner, seen_expiry = row[0], row[1]
        if not claimable(seen_owner, seen_expiry, now):
            return False
        # Compare and set: the update matches only the row as read, so a run that
        # renewed or took the claim since then keeps it.
        taken = await connection.execute(
            update(runs)
            .where(
                self._of(runs), _is(runs.c.owner, seen_owner), _is(runs.c.expires_at, seen_expiry)
            )
            .values(owner=owner, expires_at=expires_at)
        )
        return taken.rowcount == 1

    async def _renew(self, owner: str, expires_at: float) -> bool:
        runs = self._runs
        statement = (
            update(runs).where(self._of(runs), runs.c.owner == owner).values(expires_at=expires_at)
        )
        result = await self._write(lambda connection: connection.execute(statement))
        return result.rowcount == 1

    async def _release(self, owner: str) -> None:
        runs = self._runs
        statement = (
            update(runs)
            .where(self._of(runs), runs.c.owner == owner)
            .values(owner=None, expires_at=None)
        )
        await self._write(lambda connection: connection.execute(statement))

    # -- SQL, each step inside one transaction ----------------------------------------

    async def _touch(self, connection: AsyncConnection, *, create: bool) -> None:
        """Mark the session updated: the transaction's first statement, a write.

        On SQLite, starting with a write takes the write lock (waiting for it with
        the busy timeout) before anything is read.
        """
        sessions = self._sessions
        statement = (
            update(sessions).where(self._of(sessions)).values(updated_at=func.current_timestamp())
        )
        touched = await connection.execute(statement)
        if create and touched.rowcount == 0:
            await connection.execute(insert(sessions).values(session_id=self.session_id))

    async def _insert(self, connection: AsyncConnection, texts: list[str]) -> None:
        await self._touch(connection, create=True)
        if texts:
            rows = [{"session_id": self.session_id, "message_data": text} for text in texts]
            await connection.execute(insert(self._messages), rows)

    async def _store_turn(
        self,
        connection: AsyncConnection,
        texts: list[str],
        paused_state: str | None,
        owner: str | None,
    ) -> None:
        runs = self._runs
        await self._insert(connection, texts)
        if owner is not None:
            query = select(runs.c.owner).where(self._of(runs))
            if (await connection.execute(query)).scalar() != owner:
                raise SessionBusyError(self.session_id, _LAPSED)
        stored = await connection.execute(
            update(runs).where(self._of(runs)).values(paused_state=paused_state)
        )
        if stored.rowcount == 0:
            values = {"session_id": self.session_id, "paused_state": paused_state}
            await connection.execute(insert(runs).values(values))

    async def _delete_newest(self, connection: AsyncConnection) -> tuple[int, str] | None:
        await self._touch(connection, create=False)
        table = self._messages
        query = (
            select(table.c.id, table.c.message_data)
            .where(self._of(table))
            .order_by(table.c.id.desc())
            .limit(1)
        )
        row = (await connection.execute(query)).first()
        if row is None:
            return None
        await connection.execute(delete(table).where(table.c.id == row[0]))
        return row[0], row[1]

    async def _clear(self, connection: AsyncConnection) -> None:
        await connection.execute(delete(self._messages).where(self._of(self._messages)))
        await connection.execute(delete(self._sessions).where(self._of(self._sessions)))
        await connection.execute(
            update(self._runs).where(self._of(self._runs)).values(paused_state=None)
        )

    def _of(self, table: Table) -> ColumnElement[bool]:
        return table.c.session_id == self.session_id

    async def _write(
        self, step: Callable[[AsyncConnection], Awaitable[_T]], *, retry: bool = True
    ) -> _T:
        """Run `step` in one transaction; once more if another writer created a row first."""
        await self._ensure_tables()
        try:
            return await self._transaction(step)
        except IntegrityError:
            if not retry:
                raise
            return await self._transaction(step)

    async def _transaction(self, step: Callable[[AsyncConnection], Awaitable[_T]]) -> _T:
        async with self._engine.begin() as connection:
            return await step(connection)

    async def _ensure_tables(self) -> None:
        if not self._tables_missing:
            return
        async with self._tables_lock:
            if self._tables_missing:
                await self._create_tables()
                self._tables_missing = False

    async def _create_tables(self) -> None:
        try:
            async with self._engine.begin() as connection:
                await connection.run_sync(self._metadata.create_all)
        except DBAPIError:  # another process created them between the check and the create
            async with self._engine.begin() as connection:
                await connection.run_sync(self._metadata.create_all)


def _tables(
    metadata: MetaData, sessions_table: str, messages_table: str, runs_table: str
) -> tuple[Table, Table, Table]:
    sessions = Table(
        sessions_table,
        metadata,
        Column("session_id", String(255), primary_key=True),
        Column("created_at", TIMESTAMP, server_default=func.current_timestamp(), nullable=False),
        Column("updated_at", TIMESTAMP, server_default=func.current_timestamp(), nullable=False),
    )
    messages = Table(
        messages_table,
        metadata,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column(
            "session_id",
            String(255),
            ForeignKey(f"{sessions_table}.session_id", ondelete="CASCADE"),
            nullable=False,
        ),
        Column("message_data", _LongText, nullable=False),
        Column("created_at", TIMESTAMP, server_default=func.current_timestamp(), nullable=False),
        Index(f"idx_{messages_table}_session_id", "session_id", "id"),
        sqlite_autoincrement=True,
    )
    runs = Table(
        runs_table,
        metadata,
        Column("session_id", String(255), primary_key=True),
        Column("paused_state", _LongText),
        Column("owner", String(255)),
        Column("expires_at", Double),
    )
    return sessions, messages, runs


def _is(column: Column[Any], value: object) -> ColumnElement[bool]:
    return column.is_(None) if value is None else column == value


def _configure_sqlite(engine: Engine) -> None:
    if not event.contains(engine, "connect", _on_sqlite_connect):
        event.listen(engine, "connect", _on_sqlite_connect)


def _on_sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {_SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode = WAL")
    finally:
        cursor.close()
