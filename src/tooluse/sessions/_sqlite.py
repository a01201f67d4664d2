"""`SQLiteSession`: sessions in SQLite, on the standard library's `sqlite3`, off the event loop.

Each session object keeps one connection, used by one worker thread at a time
(`asyncio.to_thread` under a lock). Files are in WAL mode, so readers never wait
for a writer; every write is one `BEGIN IMMEDIATE` transaction, waiting up to the
busy timeout for another process's write to finish.
"""

from __future__ import annotations

import asyncio
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from ..core._items import Item
from ..exceptions import UserError
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

__all__ = ["SQLiteSession", "check_table_name"]

_T = TypeVar("_T")
_BUSY_TIMEOUT_SECONDS = 10.0
_TABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LAPSED = "this run's claim lapsed and another run took the session"


def check_table_name(kind: str, parameter: str, name: object) -> str:
    """A table name, checked to be a plain SQL identifier (it is written into the SQL).

    Raises:
        UserError: It is not.
    """
    if isinstance(name, str) and _TABLE_NAME.fullmatch(name):
        return name
    raise UserError(
        f"{kind}({parameter}={name!r}): a table name must be letters, digits and "
        "underscores, not starting with a digit"
    )


class SQLiteSession(RunStore):
    """A conversation kept in SQLite: in memory, or in a file shared by processes.

    Uses the same tables as openai-agents' `SQLiteSession` (`agent_sessions`,
    `agent_messages`), so it reads and extends a history that SDK wrote, plus a
    runs table for a paused run's state and the claim of the run in progress.
    Many sessions can share one file. Call `close()` when done with it.

    Args:
        session_id: The conversation's id; sessions with other ids in the same file
            are kept apart.
        db_path: The database file, created if missing; `":memory:"` (the default)
            keeps the conversation in this object only, for as long as it lives.
        sessions_table: The table of session ids.
        messages_table: The table of items, one JSON text per row.
        runs_table: The table of paused run states and run claims.
        session_settings: Settings; `SessionSettings(limit=N)` makes `get_items()`
            return the last N items by default.
        lease_seconds: How long a run's claim lasts unless renewed (it is renewed every
            third of it while the run goes on); a claim whose process was killed on
            this host is taken at once, one on another host when it expires.

    Raises:
        UserError: A table name, the settings or `lease_seconds` are not valid.
    """

    def __init__(
        self,
        session_id: str,
        db_path: str | os.PathLike[str] = ":memory:",
        sessions_table: str = "agent_sessions",
        messages_table: str = "agent_messages",
        runs_table: str = "agent_session_runs",
        session_settings: SessionSettings | None = None,
        lease_seconds: float = 30,
    ) -> None:
        kind = type(self).__name__
        self.session_id = session_id
        """The conversation this session stores."""
        self.db_path = db_path
        """The database file, or `":memory:"`."""
        self.session_settings = session_settings or SessionSettings()
        """The session's settings."""
        self.lease_seconds = check_lease_seconds(kind, lease_seconds)
        """How long a run's claim lasts unless renewed, in seconds."""
        self._sessions = check_table_name(kind, "sessions_table", sessions_table)
        self._messages = check_table_name(kind, "messages_table", messages_table)
        self._runs = check_table_name(kind, "runs_table", runs_table)
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        self._closed = False
        self._owner: str | None = None

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
        rows = await self._run(lambda connection: self._select_items(connection, count))
        return load_items(self.session_id, rows)

    async def add_items(self, items: list[Item]) -> None:
        """Append items in one transaction: all of them are stored, or none.

        Args:
            items: The items to append, in order.

        Raises:
            UserError: An item cannot be stored as JSON (nothing is stored).
        """
        texts = dump_items(self.session_id, items)
        await self._run(lambda connection: self._write(connection, self._insert, texts))

    async def pop_item(self) -> Item | None:
        """Remove the newest item.

        Returns:
            The item removed, or None if the session is empty.
        """
        row = await self._run(lambda connection: self._write(connection, self._delete_newest))
        return None if row is None else load_item(self.session_id, row[0], row[1])

    async def clear_session(self) -> None:
        """Remove every item of this session, and its paused run's state."""
        await self._run(lambda connection: self._write(connection, self._clear))

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
        await self._run(
            lambda connection: self._write(connection, self._store_turn, texts, state, owner)
        )

    async def get_paused_state(self) -> str | None:
        """The paused run's serialised state, as `add_turn` last stored it.

        Returns:
            The state, or None if no run is paused on this session.
        """
        return await self._run(self._select_paused_state)

    def close(self) -> None:
        """Close the connection; the session cannot be used afterwards."""
        with self._lock:
            self._closed = True
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    # -- the claim's steps ------------------------------------------------------------

    async def _acquire(self, owner: str, now: float, expires_at: float) -> bool:
        def take(connection: sqlite3.Connection) -> bool:
            row = connection.execute(
                f"SELECT owner, expires_at FROM {self._runs} WHERE session_id = ?",
                (self.session_id,),
            ).fetchone()
            if row is not None and not claimable(row[0], row[1], now):
                return False
            connection.execute(
                f"INSERT INTO {self._runs} (session_id, owner, expires_at) VALUES (?, ?, ?) "
                "ON CONFLICT (session_id) DO UPDATE SET owner = excluded.owner, "
                "expires_at = excluded.expires_at",
                (self.session_id, owner, expires_at),
            )
            return True

        return await self._run(lambda connection: self._write(connection, take))

    async def _renew(self, owner: str, expires_at: float) -> bool:
        sql = f"UPDATE {self._runs} SET expires_at = ? WHERE session_id = ? AND owner = ?"
        arguments = (expires_at, self.session_id, owner)
        return await self._run(lambda connection: self._write(connection, _changed, sql, arguments))

    async def _release(self, owner: str) -> None:
        sql = (
            f"UPDATE {self._runs} SET owner = NULL, expires_at = NULL "
            "WHERE session_id = ? AND owner = ?"
        )
        arguments = (self.session_id, owner)
        await self._run(lambda connection: self._write(connection, _changed, sql, arguments))

    # -- SQL, run in a worker thread --------------------------------------------------

    def _select_items(
        self, connection: sqlite3.Connection, limit: int | None
    ) -> list[tuple[int, str]]:
        table, session_id = self._messages, self.session_id
        if limit is None:
            sql = f"SELECT id, message_data FROM {table} WHERE session_id = ? ORDER BY id"
            return connection.execute(sql, (session_id,)).fetchall()
        sql = f"SELECT id, message_data FROM {table} WHERE session_id = ? ORDER BY id DESC LIMIT ?"
        return connection.execute(sql, (session_id, limit)).fetchall()[::-1]

    def _insert(self, connection: sqlite3.Connection, texts: list[str]) -> None:
        connection.execute(
            f"INSERT OR IGNORE INTO {self._sessions} (session_id) VALUES (?)", (self.session_id,)
        )
        connection.execute(
            f"UPDATE {self._sessions} SET updated_at = CURRENT_TIMESTAMP WHERE session_id = ?",
            (self.session_id,),
        )
        connection.executemany(
            f"INSERT INTO {self._messages} (session_id, message_data) VALUES (?, ?)",
            [(self.session_id, text) for text in texts],
        )

    def _store_turn(
        self,
        connection: sqlite3.Connection,
        texts: list[str],
        paused_state: str | None,
        owner: str | None,
    ) -> None:
        if owner is not None:
            row = connection.execute(
                f"SELECT owner FROM {self._runs} WHERE session_id = ?", (self.session_id,)
            ).fetchone()
            if row is None or row[0] != owner:
                raise SessionBusyError(self.session_id, _LAPSED)
        self._insert(connection, texts)
        connection.execute(
            f"INSERT INTO {self._runs} (session_id, paused_state) VALUES (?, ?) "
            "ON CONFLICT (session_id) DO UPDATE SET paused_state = excluded.paused_state",
            (self.session_id, paused_state),
        )

    def _delete_newest(self, connection: sqlite3.Connection) -> tuple[int, str] | None:
        row: tuple[int, str] | None = connection.execute(
            f"SELECT id, message_data FROM {self._messages} WHERE session_id = ? "
            "ORDER BY id DESC LIMIT 1",
            (self.session_id,),
        ).fetchone()
        if row is not None:
            connection.execute(f"DELETE FROM {self._messages} WHERE id = ?", (row[0],))
        return row

    def _clear(self, connection: sqlite3.Connection) -> None:
        arguments = (self.session_id,)
        connection.execute(f"DELETE FROM {self._messages} WHERE session_id = ?", arguments)
        connection.execute(f"DELETE FROM {self._sessions} WHERE session_id = ?", arguments)
        connection.execute(
            f"UPDATE {self._runs} SET paused_state = NULL WHERE session_id = ?", arguments
        )

    def _select_paused_state(self, connection: sqlite3.Connection) -> str | None:
        row = connection.execute(
            f"SELECT paused_state FROM {self._runs} WHERE session_id = ?", (self.session_id,)
        ).fetchone()
        return None if row is None else row[0]

    # -- connection and transactions --------------------------------------------------

    async def _run(self, step: Callable[[sqlite3.Connection], _T]) -> _T:
        return await asyncio.to_thread(self._locked, step)

    def _locked(self, step: Callable[[sqlite3.Connection], _T]) -> _T:
        with self._lock:
            return step(self._connect())

    @staticmethod
    def _write(connection: sqlite3.Connection, step: Callable[..., _T], *arguments: object) -> _T:
        connection.execute("BEGIN IMMEDIATE")
        try:
            result = step(connection, *arguments)
        except BaseException:
            if connection.in_transaction:
                connection.rollback()
            raise
        connection.commit()
        return result

    def _connect(self) -> sqlite3.Connection:
        if self._closed:
            raise UserError(
                f"SQLiteSession {self.session_id!r} ({self.db_path}) is closed; "
                "make a new SQLiteSession to use the conversation again"
            )
        if self._connection is None:
            self._connection = self._open()
        return self._connection

    def _open(self) -> sqlite3.Connection:
        connection = sqlite3.connect(
            self.db_path,
            timeout=_BUSY_TIMEOUT_SECONDS,
            isolation_level=None,  # no implicit transactions: _write begins each one
            check_same_thread=False,  # one worker thread at a time, under self._lock
        )
        try:
            if str(self.db_path) != ":memory:":
                _use_wal(connection)
            self._write(connection, self._create_tables)
        except BaseException:
            connection.close()
            raise
        return connection

    def _create_tables(self, connection: sqlite3.Connection) -> None:
        connection.execute(
            f"CREATE TABLE IF NOT EXISTS {self._sessions} ("
            "session_id TEXT PRIMARY KEY, "
            "created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, "
            "updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)"
        )
        connection.execute(
            f"CREATE TABLE IF NOT EXISTS {self._messages} ("
            "id INTEGER PRIMARY KEY AUTOINCREMENT, "
            "session_id TEXT NOT NULL, "
            "message_data TEXT NOT NULL, "
            "created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, "
            f"FOREIGN KEY (session_id) REFERENCES {self._sessions} (session_id) "
            "ON DELETE CASCADE)"
        )
        connection.execute(
            f"CREATE INDEX IF NOT EXISTS idx_{self._messages}_session_id "
            f"ON {self._messages} (session_id, id)"
        )
        connection.execute(
            f"CREATE TABLE IF NOT EXISTS {self._runs} ("
            "session_id TEXT PRIMARY KEY, paused_state TEXT, owner TEXT, expires_at REAL)"
        )


def _changed(connection: sqlite3.Connection, sql: str, arguments: tuple[object, ...]) -> bool:
    return connection.execute(sql, arguments).rowcount == 1


def _use_wal(connection: sqlite3.Connection) -> None:
    """Switch the file to WAL, retrying while another process holds the lock it needs."""
    deadline = time.monotonic() + _BUSY_TIMEOUT_SECONDS
    while not _try_wal(connection, deadline):
        time.sleep(0.01)


def _try_wal(connection: sqlite3.Connection, deadline: float) -> bool:
    try:
        connection.execute("PRAGMA journal_mode = WAL")
    except sqlite3.OperationalError as error:
        if "locked" not in str(error) or time.monotonic() > deadline:
            raise
        return False
    return True
