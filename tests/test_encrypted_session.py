"""`EncryptedSession`: a session's items stored encrypted in another session, for a time to live.

Every test stores in a real SQLite file; what the file holds is read with `sqlite3`
beside the session, and runs go through the `openai` client to the local server.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from tooluse import Agent, Runner, RunState, TResponseInputItem, UserError, function_tool
from tooluse.sessions import EncryptedSession, RunSession, Session, SQLiteSession

from .openai_server import Call, ScriptedServer, Turn

Item = TResponseInputItem
KEY = Fernet.generate_key().decode()


def _items(tag: str, count: int) -> list[Item]:
    return [{"role": "user", "content": f"{tag}{index}"} for index in range(count)]


def _rows(path: Path) -> list[str]:
    with sqlite3.connect(path) as connection:
        rows = connection.execute("SELECT message_data FROM agent_messages ORDER BY id")
        return [str(row[0]) for row in rows]


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SQLiteSession]:
    sqlite = SQLiteSession("chat", tmp_path / "sessions.db")
    yield sqlite
    sqlite.close()


async def test_items_are_stored_encrypted_and_read_back(
    store: SQLiteSession, tmp_path: Path
) -> None:
    session = EncryptedSession("chat", store, KEY, ttl=3600)
    secret = [{"role": "user", "content": "my card is 4111 1111 1111 1111"}, *_items("a", 2)]
    await session.add_items(secret)

    assert await session.get_items() == secret
    assert await session.get_items(limit=2) == secret[1:]
    rows = _rows(tmp_path / "sessions.db")
    assert len(rows) == 3
    assert not any("4111 1111" in row or '"role"' in row for row in rows)  # not base64
    envelope = json.loads(rows[0])
    assert sorted(envelope) == ["__enc__", "kid", "payload", "v"]
    assert (envelope["__enc__"], envelope["v"], envelope["kid"]) == (1, 1, "hkdf-v1")


async def test_only_the_same_key_and_session_id_read_the_items(
    store: SQLiteSession, tmp_path: Path
) -> None:
    await EncryptedSession("chat", store, KEY).add_items(_items("a", 2))

    again = SQLiteSession("chat", tmp_path / "sessions.db")
    try:
        assert await EncryptedSession("chat", again, KEY).get_items() == _items("a", 2)
        other_key = Fernet.generate_key().decode()
        assert await EncryptedSession("chat", again, other_key).get_items() == []
        # The session id salts the key: the same master key under another id reads nothing.
        assert await EncryptedSession("other", again, KEY).get_items() == []
    finally:
        again.close()


async def test_a_password_like_key_works_as_key_material(store: SQLiteSession) -> None:
    session = EncryptedSession("chat", store, "not a fernet key, just a long secret string")
    await session.add_items(_items("a", 1))
    assert await session.get_items() == _items("a", 1)


async def test_expired_plain_and_foreign_items_are_skipped_by_limit_and_pop(
    store: SQLiteSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    short = EncryptedSession("chat", store, KEY, ttl=1)
    # Fernet stamps tokens with time.time(): these were written 10 s ago.
    now = time.time()
    monkeypatch.setattr(time, "time", lambda: now - 10)
    await short.add_items(_items("old", 3))
    monkeypatch.undo()
    session = EncryptedSession("chat", store, KEY, ttl=1)
    await session.add_items(_items("new", 2))
    await store.add_items([{"role": "user", "content": "written in the clear"}])
    await EncryptedSession("chat", store, Fernet.generate_key().decode()).add_items(_items("x", 1))

    assert await session.get_items() == _items("new", 2)
    # The last 2 readable items lie behind 2 unreadable rows: the window looks further back.
    assert await session.get_items(limit=2) == _items("new", 2)
    assert await session.get_items(limit=1) == _items("new", 2)[1:]
    assert await session.get_items(limit=0) == []
    assert await session.pop_item() == _items("new", 2)[1]
    assert len(await store.get_items()) == 4  # the two unreadable rows above it went too
    assert await session.pop_item() == _items("new", 2)[0]
    assert await session.pop_item() is None  # the expired ones do not read
    assert await store.get_items() == []


async def test_bad_settings_and_items_are_refused_with_what_to_do(store: SQLiteSession) -> None:
    with pytest.raises(UserError, match=r"encryption_key=\.\.\.\) needs a non-empty string"):
        EncryptedSession("chat", store, "")
    with pytest.raises(UserError, match=r"EncryptedSession\(ttl=0\): the time to live"):
        EncryptedSession("chat", store, KEY, ttl=0)
    for not_whole in (float("inf"), 1.5, True):
        with pytest.raises(UserError, match=r"positive whole number of seconds \(an int\)"):
            EncryptedSession("chat", store, KEY, ttl=not_whole)  # pyright: ignore[reportArgumentType, reportCallIssue]
    session = EncryptedSession("chat", store, KEY)
    with pytest.raises(UserError, match=r"cannot be stored as JSON.*Nothing was stored"):
        await session.add_items([*_items("a", 1), {"role": "user", "content": object()}])
    assert await store.get_items() == []
    with pytest.raises(UserError, match="paused_state must be the run state's JSON text"):
        await session.add_turn([], paused_state=42)  # pyright: ignore[reportArgumentType]


class ListSession:
    """A user's own session: openai-agents' four methods over a list, nothing more."""

    session_id = "chat"

    def __init__(self) -> None:
        self.items: list[Item] = []

    async def get_items(self, limit: int | None = None) -> list[Item]:
        return list(self.items[-limit:] if limit else self.items)

    async def add_items(self, items: list[Item]) -> None:
        self.items.extend(items)

    async def pop_item(self) -> Item | None:
        return self.items.pop() if self.items else None

    async def clear_session(self) -> None:
        self.items.clear()


async def test_it_keeps_paused_runs_only_over_a_session_that_does(store: SQLiteSession) -> None:
    over_plain = EncryptedSession("chat", ListSession(), KEY)
    assert isinstance(over_plain, Session)
    assert not isinstance(over_plain, RunSession)
    over_sqlite = EncryptedSession("chat", store, KEY)
    assert isinstance(over_sqlite, RunSession)
    assert isinstance(over_sqlite, EncryptedSession)


@function_tool(needs_approval=True)
def delete_file(path: str) -> str:
    """Delete a file.

    Args:
        path: The file.
    """
    return f"deleted {path}"


async def test_a_run_reads_its_history_and_pauses_encrypted(
    openai_server: ScriptedServer, store: SQLiteSession, tmp_path: Path
) -> None:
    openai_server.script(
        Turn(text="Paris."),
        Turn(calls=[Call("delete_file", '{"path": "secret-plans.txt"}', "c1")]),
        Turn(text="Deleted."),
    )
    agent = Agent("a", tools=[delete_file], model=openai_server.model("responses"))
    session = EncryptedSession("chat", store, KEY)

    await Runner.run(agent, "Where is the Eiffel tower?", session=session)
    paused = await Runner.run(agent, "Delete my plans", session=session)

    assert [i.tool_name for i in paused.interruptions] == ["delete_file"]
    sent = openai_server.requests[1]["body"]["input"]
    assert [item.get("content") for item in sent[:1]] == ["Where is the Eiffel tower?"]
    with sqlite3.connect(tmp_path / "sessions.db") as connection:
        (stored_state,) = connection.execute(
            "SELECT paused_state FROM agent_session_runs"
        ).fetchone()
    assert "secret-plans" not in stored_state
    assert not any("Eiffel" in row for row in _rows(tmp_path / "sessions.db"))

    state = await session.get_paused_run()
    assert isinstance(state, RunState)
    state.approve(state.get_interruptions()[0])
    done = await Runner.run(agent, state, session=session)

    assert done.final_output == "Deleted."
    assert await session.get_paused_state() is None
    kinds = [item.get("role") or item.get("type") for item in await session.get_items()]
    assert kinds == [
        "user",
        "assistant",
        "user",
        "function_call",
        "function_call_output",
        "assistant",
    ]


async def test_openai_agents_reads_what_it_wrote_and_the_other_way(tmp_path: Path) -> None:
    from agents import SQLiteSession as AgentsSQLiteSession
    from agents.extensions.memory import EncryptedSession as AgentsEncryptedSession

    path = tmp_path / "shared.db"
    theirs = AgentsSQLiteSession("chat", str(path))
    ours = SQLiteSession("chat", path)
    try:
        await AgentsEncryptedSession("chat", theirs, KEY).add_items(_items("agents", 1))  # pyright: ignore[reportArgumentType]
        await EncryptedSession("chat", ours, KEY).add_items(_items("tooluse", 1))
        both = _items("agents", 1) + _items("tooluse", 1)
        assert await EncryptedSession("chat", ours, KEY).get_items() == both
        assert await AgentsEncryptedSession("chat", theirs, KEY).get_items() == both
    finally:
        ours.close()
        theirs.close()


def test_importing_tooluse_and_its_sessions_does_not_import_cryptography() -> None:
    code = (
        "import sys, tooluse, tooluse.sessions; from tooluse.sessions import SQLiteSession; "
        "assert 'cryptography' not in sys.modules, 'imported'; "
        "from tooluse.sessions import EncryptedSession; "
        "assert 'cryptography' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


async def test_a_paused_run_older_than_the_ttl_still_resumes(
    openai_server: ScriptedServer, store: SQLiteSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    openai_server.script(
        Turn(calls=[Call("delete_file", '{"path": "plans.txt"}', "c1")]),
        Turn(text="Deleted."),
    )
    agent = Agent("a", tools=[delete_file], model=openai_server.model("responses"))
    session = EncryptedSession("chat", store, KEY, ttl=1)
    await Runner.run(agent, "Delete my plans", session=session)
    state_text = await session.get_paused_state()
    assert state_text is not None
    # The approval came 10 s after the pause: the state was sealed then, ttl=1 ago.
    now = time.time()
    monkeypatch.setattr(time, "time", lambda: now - 10)
    await session.add_turn([], paused_state=state_text)
    monkeypatch.undo()

    state = await session.get_paused_run()
    assert isinstance(state, RunState)
    state.approve(state.get_interruptions()[0])
    done = await Runner.run(agent, state, session=session)

    assert done.final_output == "Deleted."
    assert await session.get_paused_state() is None
