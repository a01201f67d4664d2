"""The contract every tooluse session store keeps, as one test class run against each store.

`tests/test_sessions.py` runs `SessionContract` against `SQLiteSession` (in a file and
in memory) and `SQLAlchemySession` (on SQLite through aiosqlite), through a `backend`
fixture: a `Backend` makes sessions on one database and can run raw SQL on it, and,
for a database other processes can open, the Python source that makes the same
sessions in a subprocess.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from tooluse import TResponseInputItem
from tooluse.exceptions import UserError
from tooluse.sessions import RunSession, Session, SessionBusyError, SessionSettings

Item = TResponseInputItem


@dataclass
class Backend:
    """One store on one database, as the contract tests use it."""

    name: str
    make: Callable[..., RunSession]
    """`make(session_id, **kwargs)`: a new session object on the backend's database."""
    execute_sql: Callable[[RunSession, str], Awaitable[None]]
    """Run SQL (a script) on the database `session` uses, beside the store."""
    subprocess_setup: str | None
    """Source defining `make(session_id, **kwargs)` in another process; None in memory."""
    shares_database: bool
    """Whether two session objects from `make` see the same database."""
    made: list[RunSession] = field(default_factory=list[RunSession])

    def session(self, session_id: str = "s", **kwargs: Any) -> RunSession:
        session = self.make(session_id, **kwargs)
        self.made.append(session)
        return session

    def twin(self, session: RunSession) -> RunSession:
        """Another object for the same session id and database (itself in memory)."""
        return self.session(session.session_id) if self.shares_database else session


def items(tag: str, count: int) -> list[Item]:
    return [{"role": "user", "content": f"{tag}{index}"} for index in range(count)]


def spawn(backend: Backend, script: str, *arguments: str) -> subprocess.Popen[str]:
    assert backend.subprocess_setup is not None
    source = backend.subprocess_setup + "\n" + textwrap.dedent(script)
    return subprocess.Popen(
        [sys.executable, "-c", source, *arguments],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def fake_owner(pid: int, host: str | None = None) -> str:
    """An owner string as another claim writes it."""
    return f"{host or socket.gethostname()}|{pid}|faketoken"


HOLD_CLAIM = """
import asyncio, sys

async def main():
    session = make(sys.argv[1])
    async with session.claim():
        print("claimed", flush=True)
        await asyncio.sleep(60)

asyncio.run(main())
"""

WRITE_BATCHES = """
import asyncio, sys

async def main():
    session = make("shared")
    tag, batches, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    for batch in range(batches):
        await session.add_items(
            [{"tag": tag, "batch": batch, "index": index} for index in range(size)]
        )

asyncio.run(main())
"""


class PlainSession:
    """A user's own session: the four methods and nothing else."""

    session_id = "plain"

    async def get_items(self, limit: int | None = None) -> list[Item]:
        return []

    async def add_items(self, items: list[Item]) -> None:
        return None

    async def pop_item(self) -> Item | None:
        return None

    async def clear_session(self) -> None:
        return None


class SessionContract:
    """What every store does; subclass it beside a `backend` fixture."""

    # -- the Session protocol ------------------------------------------------------

    async def test_is_a_run_session(self, backend: Backend) -> None:
        session = backend.session()
        assert isinstance(session, RunSession)
        assert isinstance(session, Session)
        assert isinstance(PlainSession(), Session)
        assert not isinstance(PlainSession(), RunSession)

    async def test_items_come_back_in_order(self, backend: Backend) -> None:
        session = backend.session()
        assert await session.get_items() == []
        await session.add_items(items("a", 3))
        await session.add_items([])
        await session.add_items(items("b", 2))
        assert await session.get_items() == items("a", 3) + items("b", 2)

    async def test_limit_returns_the_last_items_oldest_first(self, backend: Backend) -> None:
        session = backend.session()
        await session.add_items(items("a", 5))
        assert await session.get_items(limit=2) == items("a", 5)[3:]
        assert await session.get_items(limit=10) == items("a", 5)
        assert await session.get_items(limit=0) == []

    async def test_settings_limit_is_the_default(self, backend: Backend) -> None:
        session = backend.session(session_settings=SessionSettings(limit=2))
        await session.add_items(items("a", 4))
        assert await session.get_items() == items("a", 4)[2:]
        assert await session.get_items(limit=3) == items("a", 4)[1:]

    async def test_a_bad_limit_is_refused(self, backend: Backend) -> None:
        session = backend.session()
        with pytest.raises(UserError, match=r"get_items\(limit=-1\) needs an integer"):
            await session.get_items(limit=-1)

    async def test_pop_removes_the_newest(self, backend: Backend) -> None:
        session = backend.session()
        assert await session.pop_item() is None
        await session.add_items(items("a", 2))
        assert await session.pop_item() == items("a", 2)[1]
        assert await session.get_items() == items("a", 1)
        assert await session.pop_item() == items("a", 1)[0]
        assert await session.pop_item() is None

    async def test_clear_removes_items_and_paused_state(self, backend: Backend) -> None:
        session = backend.session()
        await session.add_turn(items("a", 2), paused_state='{"paused": true}')
        await session.clear_session()
        assert await session.get_items() == []
        assert await session.get_paused_state() is None
        await session.add_items(items("b", 1))
        assert await session.get_items() == items("b", 1)

    async def test_unicode_and_large_outputs_round_trip(self, backend: Backend) -> None:
        session = backend.session()
        text = 'é 中文 😀 \u2028 \x00 "quoted" \\ ' + "x" * 5_000_000
        item = {"type": "function_call_output", "call_id": "call_1", "output": text}
        await session.add_items([item, {"role": "user", "content": "ünïcödé"}])
        assert await session.get_items() == [item, {"role": "user", "content": "ünïcödé"}]

    async def test_an_item_that_is_not_json_names_its_index(self, backend: Backend) -> None:
        session = backend.session()
        bad = [*items("a", 2), {"role": "user", "content": object()}]
        with pytest.raises(UserError, match=r"item 2 \(of 3\) cannot be stored as JSON"):
            await session.add_items(bad)
        with pytest.raises(UserError, match=r"item 2 \(of 3\).*Nothing was stored"):
            await session.add_turn(bad, paused_state="state")
        assert await session.get_items() == []
        assert await session.get_paused_state() is None

    async def test_rows_written_by_others_read_as_json_loads_reads_them(
        self, backend: Backend
    ) -> None:
        session = backend.session()
        await session.add_items(items("a", 4))
        await backend.execute_sql(
            session,
            "UPDATE agent_messages SET message_data = ' ' || message_data || char(10) "
            "WHERE message_data LIKE '%a1%';"
            "UPDATE agent_messages SET message_data = CAST(message_data AS BLOB) "
            "WHERE message_data LIKE '%a2%';"
            'UPDATE agent_messages SET message_data = \'{"role": "user", '
            '"content": "a3"}\' WHERE message_data LIKE \'%a3%\';',
        )
        assert await session.get_items() == items("a", 4)
        assert await session.get_items(limit=3) == items("a", 4)[1:]

    async def test_a_row_that_is_not_json_is_named_by_its_id(self, backend: Backend) -> None:
        session = backend.session()
        await session.add_items(items("a", 3))
        for text in ("not json", '{"role": "user"} trailing', "", '{"a": 1}{"b": 2}'):
            await backend.execute_sql(
                session,
                f"UPDATE agent_messages SET message_data = '{text}' WHERE id = ("
                "SELECT id FROM agent_messages ORDER BY id LIMIT 1 OFFSET 1);",
            )
            with pytest.raises(ValueError, match=r"stored item with id \d+ is not valid JSON"):
                await session.get_items()
        assert await session.get_items(limit=1) == items("a", 3)[2:]

    # -- turns and paused state ----------------------------------------------------

    async def test_paused_state_is_set_replaced_and_cleared(self, backend: Backend) -> None:
        session = backend.session()
        assert await session.get_paused_state() is None
        await session.add_turn(items("a", 1), paused_state="one")
        assert await session.get_paused_state() == "one"
        await session.add_turn([], paused_state="two")
        assert await session.get_paused_state() == "two"
        await session.add_turn(items("b", 1), paused_state=None)
        assert await session.get_paused_state() is None
        assert await session.get_items() == items("a", 1) + items("b", 1)

    async def test_a_turn_that_fails_midway_stores_nothing(self, backend: Backend) -> None:
        session = backend.session()
        await session.add_turn(items("a", 1), paused_state="before")
        # The items are written first, then the paused state: make that second write fail.
        await backend.execute_sql(
            session,
            "CREATE TRIGGER refuse_runs BEFORE UPDATE ON agent_session_runs "
            "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;",
        )
        with pytest.raises(Exception, match="refused by the test"):
            await session.add_turn(items("b", 3), paused_state="after")
        assert await session.get_items() == items("a", 1)
        assert await session.get_paused_state() == "before"

    async def test_paused_state_must_be_text(self, backend: Backend) -> None:
        session = backend.session()
        with pytest.raises(UserError, match="paused_state must be the run state's JSON text"):
            await session.add_turn(items("a", 1), paused_state=42)  # pyright: ignore[reportArgumentType]
        assert await session.get_items() == []

    # -- claims ----------------------------------------------------------------------

    async def test_a_second_claim_is_refused_until_the_first_ends(self, backend: Backend) -> None:
        session = backend.session()
        other = backend.twin(session)
        async with session.claim():
            with pytest.raises(SessionBusyError, match=r"Session 's' is in use by another run"):
                async with other.claim():
                    pass
            task = asyncio.create_task(_claim_once(session))
            with pytest.raises(SessionBusyError):
                await task
        async with other.claim():
            pass
        async with session.claim():
            pass

    async def test_a_claim_is_renewed_while_held(self, backend: Backend) -> None:
        session = backend.session(lease_seconds=0.3)
        async with session.claim():
            await asyncio.sleep(0.5)
            with pytest.raises(SessionBusyError):
                async with backend.twin(session).claim():
                    pass

    async def test_an_expired_claim_of_a_live_process_is_taken(self, backend: Backend) -> None:
        session = backend.session()
        await session.get_items()  # the tables exist
        expiry = time.time() + 0.3
        await backend.execute_sql(
            session,
            "INSERT INTO agent_session_runs (session_id, owner, expires_at) "
            f"VALUES ('s', '{fake_owner(os.getpid())}', {expiry!r})",
        )
        with pytest.raises(SessionBusyError):
            async with session.claim():
                pass
        await asyncio.sleep(max(0.0, expiry - time.time()) + 0.05)
        async with session.claim():
            pass

    async def test_a_claim_from_another_host_lasts_until_it_expires(self, backend: Backend) -> None:
        session = backend.session()
        await session.get_items()
        owner = fake_owner(999_999_999, host="another-host.example")
        await backend.execute_sql(
            session,
            "INSERT INTO agent_session_runs (session_id, owner, expires_at) "
            f"VALUES ('s', '{owner}', {time.time() + 60!r})",
        )
        with pytest.raises(SessionBusyError):
            async with session.claim():
                pass

    async def test_a_turn_after_the_claim_was_taken_over_is_refused(self, backend: Backend) -> None:
        session = backend.session()
        async with session.claim():
            await session.add_turn(items("a", 1), paused_state=None)
            await backend.execute_sql(
                session, f"UPDATE agent_session_runs SET owner = '{fake_owner(1)}'"
            )
            with pytest.raises(SessionBusyError, match="claim lapsed"):
                await session.add_turn(items("b", 1), paused_state=None)
        assert await session.get_items() == items("a", 1)


async def _claim_once(session: RunSession) -> None:
    async with session.claim():
        pass


class SharedDatabaseContract:
    """What holds where a database outlives a session object: other objects and other
    processes see it (a file, a server). An in-memory SQLite database is one object's."""

    async def test_sessions_in_one_database_are_kept_apart(self, backend: Backend) -> None:
        first = backend.session("first")
        second = backend.session("second")
        await first.add_items(items("a", 2))
        await second.add_items(items("b", 2))
        await first.add_turn(items("c", 1), paused_state="first's")
        assert await first.get_items() == items("a", 2) + items("c", 1)
        assert await second.get_items() == items("b", 2)
        assert await second.get_paused_state() is None
        assert await second.pop_item() == items("b", 2)[1]
        await first.clear_session()
        assert await second.get_items() == items("b", 1)

    # -- JSON ------------------------------------------------------------------------

    async def test_a_claim_in_another_process_is_refused_until_it_is_killed(
        self, backend: Backend
    ) -> None:
        session = backend.session()
        await session.get_items()
        holder = spawn(backend, HOLD_CLAIM, "s")
        try:
            assert holder.stdout is not None
            line = await asyncio.to_thread(holder.stdout.readline)
            assert line == "claimed\n", holder.stderr.read() if holder.stderr else ""
            with pytest.raises(SessionBusyError):
                async with session.claim():
                    pass
        finally:
            holder.send_signal(signal.SIGKILL)
            holder.communicate()  # reaps it (a zombie's pid still answers) and closes the pipes
        # The lease has 30 s left, but its process is gone: the claim is free at once.
        async with session.claim():
            pass

    async def test_two_processes_write_whole_batches(self, backend: Backend) -> None:
        session = backend.session("shared")
        await session.get_items()
        batches, size = 20, 5
        writers = [spawn(backend, WRITE_BATCHES, tag, str(batches), str(size)) for tag in "pq"]
        for writer in writers:
            _, errors = await asyncio.to_thread(writer.communicate)
            assert writer.returncode == 0, errors
        stored = await session.get_items()
        assert len(stored) == 2 * batches * size
        for start in range(0, len(stored), size):
            batch = stored[start : start + size]
            assert [item["index"] for item in batch] == list(range(size))
            assert len({(item["tag"], item["batch"]) for item in batch}) == 1
        for tag in "pq":
            assert [item["batch"] for item in stored if item["tag"] == tag][::size] == list(
                range(batches)
            )
