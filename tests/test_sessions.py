"""Sessions: the contract against both stores, then what is particular to each."""

from __future__ import annotations

import asyncio
import json
import socket
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tooluse.exceptions import RunError, UserError
from tooluse.sessions import RunSession, SessionBusyError, SessionSettings, SQLiteSession
from tooluse.sessions._common import dump_items, load_item, load_items
from tooluse.sessions.sqlalchemy import SQLAlchemySession

from .session_contract import Backend, SessionContract, SharedDatabaseContract, items


def _sqlite_file(path: Path) -> Backend:
    def make(session_id: str, **kwargs: object) -> RunSession:
        return SQLiteSession(session_id, path, **kwargs)  # pyright: ignore[reportArgumentType]

    return Backend(
        "sqlite-file",
        make,
        lambda _session, sql: _execute_on_file(path, sql),
        f"from tooluse.sessions import SQLiteSession\n"
        f"def make(session_id, **kwargs):\n"
        f"    return SQLiteSession(session_id, {str(path)!r}, **kwargs)\n",
        shares_database=True,
    )


def _sqlite_memory() -> Backend:
    def make(session_id: str, **kwargs: object) -> RunSession:
        return SQLiteSession(session_id, **kwargs)  # pyright: ignore[reportArgumentType]

    async def execute(session: RunSession, sql: str) -> None:
        assert isinstance(session, SQLiteSession)
        await session._run(lambda connection: connection.executescript(sql))  # pyright: ignore[reportPrivateUsage]

    return Backend("sqlite-memory", make, execute, None, shares_database=False)


def _sqlalchemy(path: Path) -> Backend:
    url = f"sqlite+aiosqlite:///{path}"

    def make(session_id: str, **kwargs: Any) -> RunSession:
        return SQLAlchemySession.from_url(session_id, url=url, create_tables=True, **kwargs)

    return Backend(
        "sqlalchemy",
        make,
        lambda _session, sql: _execute_on_file(path, sql),
        f"from tooluse.sessions.sqlalchemy import SQLAlchemySession\n"
        f"def make(session_id, **kwargs):\n"
        f"    return SQLAlchemySession.from_url(\n"
        f"        session_id, url={url!r}, create_tables=True, **kwargs\n"
        f"    )\n",
        shares_database=True,
    )


async def _execute_on_file(path: Path, sql: str) -> None:
    def run() -> None:
        connection = sqlite3.connect(path, isolation_level=None)
        try:
            connection.executescript(sql)
        finally:
            connection.close()

    await asyncio.to_thread(run)


async def _backend(name: str, tmp_path: Path) -> AsyncIterator[Backend]:
    made = {
        "sqlite-file": lambda: _sqlite_file(tmp_path / "sessions.db"),
        "sqlite-memory": _sqlite_memory,
        "sqlalchemy": lambda: _sqlalchemy(tmp_path / "sessions.db"),
    }[name]()
    yield made
    for session in made.made:
        if isinstance(session, SQLAlchemySession):
            await session.close()
        else:
            assert isinstance(session, SQLiteSession)
            session.close()


@pytest.fixture(params=["sqlite-file", "sqlite-memory", "sqlalchemy"])
async def backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    async for made in _backend(request.param, tmp_path):
        yield made


class TestSessionContract(SessionContract):
    """The contract, against each store."""


class TestSharedDatabaseContract(SharedDatabaseContract):
    """The contract for databases other objects and processes open: files and engines."""

    @pytest.fixture(params=["sqlite-file", "sqlalchemy"])
    async def backend(
        self, request: pytest.FixtureRequest, tmp_path: Path
    ) -> AsyncIterator[Backend]:
        async for made in _backend(request.param, tmp_path):
            yield made


async def test_each_in_memory_session_object_has_a_database_of_its_own() -> None:
    first, second = SQLiteSession("s"), SQLiteSession("s")
    try:
        await first.add_items([{"role": "user", "content": "hi"}])
        assert await second.get_items() == []
    finally:
        first.close()
        second.close()


# -- settings and arguments ---------------------------------------------------------


@pytest.mark.parametrize("limit", [0, -3, 1.5, True, "10"])
def test_settings_limit_must_be_positive(limit: object) -> None:
    with pytest.raises(UserError, match=r"SessionSettings\(limit=.*\): the limit must be"):
        SessionSettings(limit=limit)  # pyright: ignore[reportArgumentType]


@pytest.mark.parametrize("lease", [0, -1, True, "30"])
def test_lease_seconds_must_be_positive(lease: object) -> None:
    with pytest.raises(UserError, match=r"SQLiteSession\(lease_seconds=.*\): the lease must be"):
        SQLiteSession("s", lease_seconds=lease)  # pyright: ignore[reportArgumentType]


def test_table_names_must_be_identifiers() -> None:
    with pytest.raises(UserError, match=r"SQLiteSession\(runs_table='runs; DROP'\)"):
        SQLiteSession("s", runs_table="runs; DROP")


def test_busy_error_says_how_to_fix() -> None:
    error = SessionBusyError("chat-1")
    assert error.session_id == "chat-1"
    assert isinstance(error, RunError)  # a condition of the moment, not a misuse
    assert "Wait for that run to finish, or use another session id" in str(error)


async def test_items_must_be_a_list() -> None:
    session = SQLiteSession("s")
    with pytest.raises(UserError, match="items must be a list of item dicts, not dict"):
        await session.add_items({"role": "user"})  # pyright: ignore[reportArgumentType]
    session.close()


# -- SQLiteSession ------------------------------------------------------------------


async def test_a_closed_sqlite_session_says_so() -> None:
    session = SQLiteSession("s")
    await session.add_items(items("a", 1))
    session.close()
    with pytest.raises(UserError, match=r"SQLiteSession 's' \(:memory:\) is closed"):
        await session.get_items()


async def test_a_file_is_in_wal_mode(tmp_path: Path) -> None:
    session = SQLiteSession("s", tmp_path / "chat.db")
    await session.add_items(items("a", 1))
    session.close()
    connection = sqlite3.connect(tmp_path / "chat.db")
    assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    connection.close()


async def test_a_row_that_is_not_json_is_named(tmp_path: Path) -> None:
    session = SQLiteSession("s", tmp_path / "chat.db")
    await session.add_items(items("a", 1))
    connection = sqlite3.connect(tmp_path / "chat.db")
    connection.execute("UPDATE agent_messages SET message_data = 'not json'")
    connection.commit()
    connection.close()
    with pytest.raises(ValueError, match="the stored item with id 1 is not valid JSON"):
        await session.get_items()
    session.close()


STORED_TEXTS: list[Any] = [
    '{"role":"user","content":"hi"}',
    ' {"a": 1} ',
    '{"a": 1}\n',
    "\ufeff{}",
    '{"a": 1} x',
    '{"a": 1}{"b": 2}',
    "",
    "   ",
    "not json",
    "[1, 2]",
    "3.5",
    "null",
    '"text"',
    b'{"role": "user"}',
    b"\xff",
    "[" * 100_000,
    None,
]


def _read_alone(row_id: int, text: Any) -> Any:
    """What a row gives when read alone with `load_item`: its item, or its error."""
    try:
        return load_item("s", row_id, text)
    except Exception as error:  # RecursionError, TypeError and ValueError alike
        return error


def _read_one_by_one(texts: list[Any]) -> list[Any]:
    return [_read_alone(row_id, text) for row_id, text in enumerate(texts)]


@pytest.mark.parametrize("text", STORED_TEXTS, ids=repr)
def test_load_items_reads_each_row_as_load_item_does(text: Any) -> None:
    rows = [(0, '{"before": true}'), (1, text), (2, '{"after": true}')]
    expected = _read_one_by_one([row[1] for row in rows])
    failures = [read for read in expected if isinstance(read, Exception)]
    if not failures:
        assert load_items("s", rows) == expected
        return
    with pytest.raises(type(failures[0])) as raised:
        load_items("s", rows)
    assert str(raised.value) == str(failures[0])


def test_items_are_stored_as_compact_unescaped_json() -> None:
    stored = [{"role": "user", "content": "é 中文 😀 \u2028"}, {"n": [1.5, None, True]}]
    assert dump_items("s", stored) == [
        json.dumps(item, ensure_ascii=False, separators=(",", ":")) for item in stored
    ]
    circular: dict[str, Any] = {}
    circular["self"] = circular
    with pytest.raises(UserError, match=r"item 1 \(of 2\) cannot be stored as JSON"):
        dump_items("s", [{}, circular])


async def test_custom_table_names(tmp_path: Path) -> None:
    session = SQLiteSession(
        "s", tmp_path / "chat.db", sessions_table="s_t", messages_table="m_t", runs_table="r_t"
    )
    await session.add_turn(items("a", 1), paused_state="p")
    session.close()
    connection = sqlite3.connect(tmp_path / "chat.db")
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    connection.close()
    assert {"s_t", "m_t", "r_t"} <= tables
    assert "agent_messages" not in tables


# -- SQLAlchemySession --------------------------------------------------------------


async def test_sqlalchemy_engine_passed_in_is_left_open(tmp_path: Path) -> None:
    from sqlalchemy.ext.asyncio import create_async_engine

    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'chat.db'}")
    session = SQLAlchemySession("s", engine=engine, create_tables=True)
    assert session.engine is engine
    await session.add_items(items("a", 2))
    await session.close()
    again = SQLAlchemySession("s", engine=engine)
    assert await again.get_items() == items("a", 2)
    await engine.dispose()


# -- openai-agents' tables ----------------------------------------------------------


async def test_reads_and_extends_what_openai_agents_wrote(tmp_path: Path) -> None:
    # openai-agents' SQLiteSession keeps a conversation in two tables: one row per session,
    # and one row per item with the item as JSON text. A file it wrote, made here by hand.
    path = tmp_path / "agents.db"
    theirs = sqlite3.connect(path)
    theirs.executescript(
        """
        CREATE TABLE agent_sessions (
            session_id TEXT PRIMARY KEY,
            created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
            updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
        );
        CREATE TABLE agent_messages (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL,
            message_data TEXT NOT NULL,
            created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
            FOREIGN KEY (session_id) REFERENCES agent_sessions (session_id) ON DELETE CASCADE
        );
        INSERT INTO agent_sessions (session_id) VALUES ('s');
        """
    )
    theirs.executemany(
        "INSERT INTO agent_messages (session_id, message_data) VALUES ('s', ?)",
        [(json.dumps(item),) for item in items("a", 2)],
    )
    theirs.commit()
    ours = SQLiteSession("s", path)
    try:
        assert await ours.get_items() == items("a", 2)
        await ours.add_turn(items("b", 1), paused_state=None)
    finally:
        ours.close()
    rows = theirs.execute("SELECT message_data FROM agent_messages ORDER BY id").fetchall()
    theirs.close()
    assert [json.loads(text) for (text,) in rows] == items("a", 2) + items("b", 1)


# -- import weight ------------------------------------------------------------------


def test_importing_tooluse_imports_neither_database_module() -> None:
    code = (
        "import sys, tooluse, tooluse.sessions\n"
        "assert 'sqlalchemy' not in sys.modules, 'sqlalchemy'\n"
        "import tooluse as t\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    code = "import sys, tooluse\nassert 'sqlite3' not in sys.modules\n"
    subprocess.run([sys.executable, "-c", code], check=True)


# -- the claim's lease ----------------------------------------------------------------


async def test_a_claim_taken_over_stops_renewing_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    session = SQLiteSession("s", lease_seconds=0.15)
    async with session.claim():
        await session._run(  # pyright: ignore[reportPrivateUsage]
            lambda connection: connection.execute("UPDATE agent_session_runs SET owner = 'x'")
        )
        await asyncio.sleep(0.2)
    assert "the run's claim lapsed and another run took the session" in caplog.text
    session.close()


async def test_a_failed_renewal_is_logged_and_tried_again(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = SQLiteSession("s", lease_seconds=0.15)
    renew = session._renew  # pyright: ignore[reportPrivateUsage]
    calls: list[float] = []

    async def flaky(owner: str, expires_at: float) -> bool:
        calls.append(expires_at)
        if len(calls) == 1:
            raise sqlite3.OperationalError("database is locked")
        return await renew(owner, expires_at)

    monkeypatch.setattr(session, "_renew", flaky)
    async with session.claim():
        await asyncio.sleep(0.3)
    assert len(calls) >= 2
    assert "renewing the run's claim failed" in caplog.text
    session.close()


def test_a_process_of_another_user_counts_as_alive(monkeypatch: pytest.MonkeyPatch) -> None:
    from tooluse.sessions._lease import owner_is_gone

    def refuse(pid: int, signal: int) -> None:
        raise PermissionError(pid)

    monkeypatch.setattr("os.kill", refuse)
    assert not owner_is_gone(f"{socket.gethostname()}|12345|token")
    assert not owner_is_gone("not an owner string")
