"""Runs on a session: history in, whole turns out, a paused run kept, one run at a time.

Each test runs on both of our stores (SQLite through `sqlite3`, and SQLAlchemy's
async engine over aiosqlite), each on a file, and on a plain `Session` written
the way a user would write one over any store.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tooluse import Agent, RunConfig, Runner, RunState, TResponseInputItem, UserError, function_tool
from tooluse.exceptions import MaxTurnsExceeded
from tooluse.run._session_run import recent_turns
from tooluse.sessions import Session, SessionBusyError, SessionSettings, SQLiteSession
from tooluse.sessions.sqlalchemy import SQLAlchemySession

from .scripted import ScriptModel, call, text

Item = TResponseInputItem
ROOT = Path(__file__).resolve().parent.parent


class ListSession:
    """A user's own session over a list: openai-agents' four methods, nothing more."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.items: list[Item] = []
        self.writes: list[list[Item]] = []

    async def get_items(self, limit: int | None = None) -> list[Item]:
        return json.loads(json.dumps(self.items[-limit:] if limit else self.items))

    async def add_items(self, items: list[Item]) -> None:
        self.writes.append(items)
        self.items.extend(json.loads(json.dumps(items)))

    async def pop_item(self) -> Item | None:
        return self.items.pop() if self.items else None

    async def clear_session(self) -> None:
        self.items.clear()


KINDS = ["sqlite", "sqlalchemy", "plain"]
STORES = ["sqlite", "sqlalchemy"]


async def _open(kind: str, path: Path, session_id: str = "chat") -> Any:
    if kind == "sqlite":
        return SQLiteSession(session_id, path / "sessions.db")
    if kind == "sqlalchemy":
        return SQLAlchemySession.from_url(
            session_id, url=f"sqlite+aiosqlite:///{path / 'sessions.db'}", create_tables=True
        )
    return ListSession(session_id)


async def _close(session: Any) -> None:
    if isinstance(session, SQLAlchemySession):
        await session.engine.dispose()
    elif isinstance(session, SQLiteSession):
        session.close()


@pytest.fixture(params=KINDS)
async def session(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Any]:
    opened = await _open(request.param, tmp_path)
    yield opened
    await _close(opened)


@pytest.fixture(params=STORES)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Any]:
    opened = await _open(request.param, tmp_path)
    yield opened
    await _close(opened)


@function_tool
def lookup(city: str) -> str:
    """Look a city up.

    Args:
        city: The city.
    """
    return f"{city}: sunny"


@function_tool(needs_approval=True)
def delete_file(path: str) -> str:
    """Delete a file.

    Args:
        path: The file.
    """
    return f"deleted {path}"


def _agent(model: ScriptModel, *tools: Any) -> Agent[Any]:
    return Agent(name="assistant", instructions="Help.", model=model, tools=list(tools))


def _kinds(items: list[Item]) -> list[str]:
    return [str(item.get("role") or item.get("type")) for item in items]


def _whole_turns(items: list[Item]) -> bool:
    """Every call in the items has its output among them."""
    calls = {i["call_id"] for i in items if i.get("type") == "function_call"}
    answered = {i["call_id"] for i in items if i.get("type") == "function_call_output"}
    return calls == answered


async def test_the_history_goes_before_the_input_and_each_run_is_stored(session: Any) -> None:
    model = ScriptModel([text("Hello!")], [call("c1", "lookup", {"city": "Oslo"})], [text("Sunny")])
    agent = _agent(model, lookup)

    first = await Runner.run(agent, "hi", session=session)
    second = await Runner.run(agent, "weather in Oslo?", session=session)

    assert (first.final_output, second.final_output) == ("Hello!", "Sunny")
    assert _kinds(model.requests[1]["input"]) == ["user", "assistant", "user"]
    assert _kinds(model.requests[2]["input"]) == [
        "user",
        "assistant",
        "user",
        "function_call",
        "function_call_output",
    ]
    stored = await session.get_items()
    assert _kinds(stored) == [*_kinds(model.requests[2]["input"]), "assistant"]
    assert second.to_input_list() == stored


async def test_a_run_that_fails_leaves_the_session_at_its_last_whole_turn(session: Any) -> None:
    class FailsOnSecondCall(ScriptModel):
        failed = False

        async def get_response(self, request: Any) -> Any:
            if len(self.requests) == 1 and not self.failed:
                self.failed = True
                raise ConnectionError("the network went away")
            return await super().get_response(request)

    model = FailsOnSecondCall([call("c1", "lookup", {"city": "Oslo"})], [text("Sunny")])
    agent = _agent(model, lookup)

    with pytest.raises(ConnectionError):
        await Runner.run(agent, "weather?", session=session, run_config=RunConfig(max_retries=0))

    stored = await session.get_items()
    assert _kinds(stored) == ["user", "function_call", "function_call_output"]
    result = await Runner.run(agent, "and now?", session=session)
    assert result.final_output == "Sunny"
    assert _kinds(model.requests[-1]["input"]) == [*_kinds(stored), "user"]


async def test_a_turn_that_fails_midway_stores_nothing_of_itself(session: Any) -> None:
    @function_tool(failure_error_function=None)
    def explode() -> str:
        """Fail."""
        raise RuntimeError("boom")

    model = ScriptModel(
        [call("c1", "lookup", {"city": "Oslo"})],
        [call("c2", "lookup", {"city": "Rome"}), call("c3", "explode")],
    )
    agent = _agent(model, lookup, explode)

    with pytest.raises(RuntimeError):
        await Runner.run(agent, "go", session=session)

    stored = await session.get_items()
    assert _kinds(stored) == ["user", "function_call", "function_call_output"]
    assert _whole_turns(stored)


async def test_a_first_call_that_fails_stores_nothing(session: Any) -> None:
    class Down(ScriptModel):
        async def get_response(self, request: Any) -> Any:
            raise ConnectionError("down")

    with pytest.raises(ConnectionError):
        await Runner.run(_agent(Down()), "hi", session=session, run_config=RunConfig(max_retries=0))

    assert await session.get_items() == []


async def test_a_paused_run_is_stored_with_the_session_and_resumed_from_it(store: Any) -> None:
    model = ScriptModel([call("c1", "delete_file", {"path": "a.txt"})], [text("Deleted.")])
    agent = _agent(model, delete_file)

    paused = await Runner.run(agent, "delete a.txt", session=store)

    assert [i.tool_name for i in paused.interruptions] == ["delete_file"]
    assert _kinds(await store.get_items()) == ["user"]  # the call waits in the paused run
    with pytest.raises(UserError, match="paused for approval"):
        await Runner.run(agent, "something else", session=store)

    again = await Runner.run(agent, session=store)  # nothing decided: it pauses again
    assert [i.call_id for i in again.interruptions] == ["c1"]
    assert len(model.requests) == 1

    state = await store.get_paused_run()
    assert isinstance(state, RunState)
    state.approve(state.get_interruptions()[0])
    done = await Runner.run(agent, state, session=store)

    assert done.final_output == "Deleted."
    assert await store.get_paused_state() is None
    assert _kinds(await store.get_items()) == [
        "user",
        "function_call",
        "function_call_output",
        "assistant",
    ]
    with pytest.raises(UserError, match="resumed already"):
        await Runner.run(agent, state, session=store)


async def test_a_paused_run_can_be_dropped(store: Any) -> None:
    model = ScriptModel([call("c1", "delete_file", {"path": "a.txt"})], [text("Fine.")])
    agent = _agent(model, delete_file)
    await Runner.run(agent, "delete a.txt", session=store)

    await store.clear_paused_run()
    result = await Runner.run(agent, "never mind", session=store)

    assert result.final_output == "Fine."
    assert _kinds(model.requests[-1]["input"]) == ["user", "user"]


async def test_a_state_paused_elsewhere_is_taken_whole_into_an_empty_session(store: Any) -> None:
    model = ScriptModel([call("c1", "delete_file", {"path": "a.txt"})], [text("Deleted.")])
    agent = _agent(model, delete_file)
    paused = await Runner.run(agent, "delete a.txt")  # no session
    state = paused.to_state()
    state.approve(paused.interruptions[0])

    await Runner.run(agent, state, session=store)

    assert _kinds(await store.get_items()) == [
        "user",
        "function_call",
        "function_call_output",
        "assistant",
    ]


async def test_no_input_without_a_paused_run_is_a_clear_error(session: Any) -> None:
    agent = _agent(ScriptModel())
    with pytest.raises(UserError, match="got no input"):
        await Runner.run(agent, session=session)
    with pytest.raises(UserError, match="got no input"):
        await Runner.run(agent)


async def test_two_runs_on_one_session_at_once_are_refused_not_interleaved(session: Any) -> None:
    entered, release = asyncio.Event(), asyncio.Event()

    @function_tool
    async def slow() -> str:
        """Take a while."""
        entered.set()
        await release.wait()
        return "done"

    model = ScriptModel([call("c1", "slow")], [text("Finished")])
    agent = _agent(model, slow)
    first = asyncio.ensure_future(Runner.run(agent, "go", session=session))
    await entered.wait()

    with pytest.raises(SessionBusyError, match="chat"):
        await Runner.run(agent, "me too", session=session)

    release.set()
    assert (await first).final_output == "Finished"
    assert _kinds(await session.get_items()) == [
        "user",
        "function_call",
        "function_call_output",
        "assistant",
    ]
    result = await Runner.run(_agent(ScriptModel([text("ok")])), "now", session=session)
    assert result.final_output == "ok"


async def test_the_session_is_free_again_before_the_toolsets_are_left(session: Any) -> None:
    # An MCP server may take a while to shut down; the next message's run on the session
    # must not be refused meanwhile.
    next_answers: list[str] = []

    class Server:
        async def list_tools(self, ctx: Any, agent: Any) -> list[Any]:
            return [lookup]

        async def __aenter__(self) -> Server:
            return self

        async def __aexit__(self, *exc: object) -> None:
            then = await Runner.run(_agent(ScriptModel([text("next")])), "and?", session=session)
            next_answers.append(then.final_output)

    model = ScriptModel([call("c1", "lookup", {"city": "Oslo"})], [text("Sunny")])
    result = await Runner.run(_agent(model, Server()), "Weather?", session=session)
    assert result.final_output == "Sunny"
    assert next_answers == ["next"]
    assert _kinds(await session.get_items()) == [
        *("user", "function_call", "function_call_output", "assistant"),  # the first run
        *("user", "assistant"),  # the run started as the first left its toolsets
    ]


async def test_a_limit_sends_recent_whole_turns_only(session: Any) -> None:
    model = ScriptModel(
        [text("one")],
        [call("c1", "lookup", {"city": "Oslo"})],
        [text("two")],
        [text("three")],
    )
    agent = _agent(model, lookup)
    await Runner.run(agent, "first", session=session)
    await Runner.run(agent, "second", session=session)  # user, call, output, message

    limited = RunConfig(session_settings=SessionSettings(limit=3))
    await Runner.run(agent, "third", session=session, run_config=limited)

    # The last 3 items: a call, its output and the answer (no user message among them).
    assert _kinds(model.requests[-1]["input"]) == [
        "function_call",
        "function_call_output",
        "assistant",
        "user",
    ]
    assert len(await session.get_items()) == 8


def test_the_history_starts_where_a_turn_does() -> None:
    user, answer = {"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}
    first_call = {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}
    output = {"type": "function_call_output", "call_id": "c1", "output": "x"}
    reasoning: Item = {"type": "reasoning", "id": "r1", "summary": []}

    second_call = {**first_call, "call_id": "c2"}
    second_output = {**output, "call_id": "c2"}

    assert recent_turns([output, answer, user, answer]) == [user, answer]
    assert recent_turns([output, reasoning, first_call, output]) == [first_call, output]
    assert recent_turns([output, output]) == []
    assert recent_turns([user, answer]) == [user, answer]
    # The window may not start between two calls and their outputs.
    assert recent_turns([second_call, output, second_output, answer]) == [answer]
    assert recent_turns([first_call, second_call, output, second_output]) == [
        first_call,
        second_call,
        output,
        second_output,
    ]


async def test_the_input_callback_builds_what_the_model_sees(session: Any) -> None:
    def summarise(history: list[Item], new_input: list[Item]) -> list[Item]:
        summary = {"role": "user", "content": f"(summary of {len(history)} earlier items)"}
        return [summary, *new_input]

    model = ScriptModel([text("one")], [text("two")])
    agent = _agent(model)
    await Runner.run(agent, "first", session=session)
    config = RunConfig(session_input_callback=summarise)
    await Runner.run(agent, "second", session=session, run_config=config)

    assert model.requests[-1]["input"][0]["content"] == "(summary of 2 earlier items)"
    assert _kinds(await session.get_items()) == ["user", "assistant", "user", "assistant"]


async def test_a_streamed_run_stores_its_turns_too(session: Any) -> None:
    model = ScriptModel([call("c1", "lookup", {"city": "Oslo"})], [text("Sunny")])
    streamed = Runner.run_streamed(_agent(model, lookup), "weather?", session=session)
    async for _ in streamed.stream_events():
        pass

    assert streamed.final_output == "Sunny"
    assert _kinds(await session.get_items()) == [
        "user",
        "function_call",
        "function_call_output",
        "assistant",
    ]


async def test_unicode_and_large_outputs_round_trip(session: Any) -> None:
    big = "🌍 naïve 漢字 " * 100_000  # about 1.5 MB

    @function_tool
    def fetch() -> str:
        """Fetch a page."""
        return big

    model = ScriptModel([call("c1", "fetch")], [text("Read it: ✓")])
    await Runner.run(_agent(model, fetch), "read ✓", session=session)

    stored = await session.get_items()
    assert stored[2]["output"] == big
    assert stored[-1]["content"][0]["text"] == "Read it: ✓"


async def test_a_plain_session_gets_each_turn_in_one_write() -> None:
    session = ListSession("mine")
    model = ScriptModel([call("c1", "lookup", {"city": "Oslo"})], [text("Sunny")])
    await Runner.run(_agent(model, lookup), "weather?", session=session)

    assert [_kinds(write) for write in session.writes] == [
        ["user", "function_call", "function_call_output"],
        ["assistant"],
    ]
    assert isinstance(session, Session)


def test_a_session_option_that_is_not_a_session_is_refused() -> None:
    with pytest.raises(UserError, match="session must be a Session"):
        Runner.run_sync(_agent(ScriptModel()), "hi", session="chat.db")  # type: ignore[arg-type]


_KILLED_RUN = textwrap.dedent(
    """
    import asyncio, os, signal, sys
    from tooluse import Agent, Runner, function_tool
    from tooluse.sessions import SQLiteSession
    from tests.scripted import ScriptModel, call

    @function_tool
    def lookup(city: str) -> str:
        '''Look a city up.

        Args:
            city: The city.
        '''
        return city + ": sunny"

    @function_tool
    def crash() -> str:
        '''Crash the process.'''
        os.kill(os.getpid(), signal.SIGKILL)
        return "never"

    model = ScriptModel([call("c1", "lookup", {"city": "Oslo"})], [call("c2", "crash")])
    agent = Agent(name="assistant", model=model, tools=[lookup, crash])
    asyncio.run(Runner.run(agent, "go", session=SQLiteSession("chat", sys.argv[1])))
    """
)


async def test_a_process_killed_mid_run_leaves_whole_turns_and_the_next_run_goes_on(
    tmp_path: Path,
) -> None:
    db = tmp_path / "sessions.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + str(ROOT)}
    killed = subprocess.run(
        [sys.executable, "-c", _KILLED_RUN, str(db)], cwd=ROOT, env=env, timeout=60, check=False
    )
    assert killed.returncode == -signal.SIGKILL

    session = SQLiteSession("chat", db)
    try:
        assert _kinds(await session.get_items()) == [
            "user",
            "function_call",
            "function_call_output",
        ]
        model = ScriptModel([text("Back again")])
        result = await Runner.run(_agent(model, lookup), "still there?", session=session)
        assert result.final_output == "Back again"  # the dead process's claim is not in the way
        assert _kinds(model.requests[0]["input"]) == [
            "user",
            "function_call",
            "function_call_output",
            "user",
        ]
    finally:
        session.close()


async def test_a_stopped_runs_state_resumes_on_its_session_storing_only_what_is_new(
    session: Any,
) -> None:
    model = ScriptModel(
        [call("c1", "lookup", {"city": "Oslo"})],
        [call("c2", "lookup", {"city": "Rome"})],
        [text("Both sunny")],
    )
    agent = _agent(model, lookup)
    with pytest.raises(MaxTurnsExceeded) as stopped:
        await Runner.run(agent, "weather?", session=session, max_turns=1)
    assert stopped.value.state is not None

    result = await Runner.run(agent, stopped.value.state, session=session, max_turns=5)

    assert result.final_output == "Both sunny"
    stored = await session.get_items()
    assert _kinds(stored) == ["user", *["function_call", "function_call_output"] * 2, "assistant"]
    assert result.to_input_list() == stored
    if not isinstance(session, ListSession):  # a plain session cannot tell
        with pytest.raises(UserError, match="moved on"):
            await Runner.run(agent, stopped.value.state, session=session)


async def test_an_old_paused_state_is_refused_even_when_call_ids_repeat(store: Any) -> None:
    model = ScriptModel(
        [call("c1", "delete_file", {"path": "a"})],
        [call("c1", "delete_file", {"path": "b"})],  # a server that numbers ids from 1
        [text("done")],
    )
    agent = _agent(model, delete_file)
    old = (await Runner.run(agent, "go", session=store)).to_state()
    old.approve(old.get_interruptions()[0])
    again = await Runner.run(agent, old, session=store)
    assert [i.call_id for i in again.interruptions] == ["c1"]

    with pytest.raises(UserError, match="another paused run"):
        await Runner.run(agent, old, session=store)

    assert _kinds(await store.get_items()) == ["user", "function_call", "function_call_output"]


async def test_a_window_never_starts_between_parallel_calls_and_their_outputs(
    session: Any,
) -> None:
    model = ScriptModel(
        [call("c1", "lookup", {"city": "Oslo"}), call("c2", "lookup", {"city": "Rome"})],
        [text("answer")],
        [text("next")],
    )
    agent = _agent(model, lookup)
    await Runner.run(agent, "go", session=session)  # user, call, call, output, output, answer

    limited = RunConfig(session_settings=SessionSettings(limit=4))
    await Runner.run(agent, [], session=session, run_config=limited)

    assert _kinds(model.requests[-1]["input"]) == ["assistant"]


async def test_a_window_the_session_limits_by_itself_is_cut_where_a_turn_begins(
    tmp_path: Path,
) -> None:
    session = SQLiteSession("s", tmp_path / "s.db", session_settings=SessionSettings(limit=2))
    model = ScriptModel([call("c1", "lookup", {"city": "Oslo"})], [text("answer")], [text("ok")])
    agent = _agent(model, lookup)
    try:
        await Runner.run(agent, "go", session=session)
        await Runner.run(agent, "again", session=session)
    finally:
        session.close()

    assert _kinds(model.requests[-1]["input"]) == ["assistant", "user"]


def test_a_session_stores_whole_turns_so_unexecuted_calls_are_refused() -> None:
    with pytest.raises(UserError, match="execute_tools=False cannot be used with a session"):
        Runner.run_sync(_agent(ScriptModel()), "hi", session=ListSession("s"), execute_tools=False)


async def test_a_run_cancelled_while_its_claim_waits_for_the_database_leaves_it_free(
    tmp_path: Path,
) -> None:
    db = tmp_path / "s.db"
    session = SQLiteSession("s", db)
    await session.get_items()  # the file and its tables exist
    blocker = sqlite3.connect(db, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # another writer holds the database
    try:
        run = asyncio.ensure_future(
            Runner.run(_agent(ScriptModel([text("no")])), "hi", session=session)
        )
        await asyncio.sleep(0.3)
        run.cancel()
        await asyncio.sleep(0.1)
        blocker.execute("COMMIT")
        with pytest.raises(asyncio.CancelledError):
            await run
        result = await Runner.run(_agent(ScriptModel([text("yes")])), "hi", session=session)
        assert result.final_output == "yes"
    finally:
        blocker.close()
        session.close()
