"""A paused run continues its cassette in another process; a run on a session replays too."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tooluse import Agent, Runner
from tooluse.sessions import SQLiteSession
from tooluse.testing import (
    CassetteMismatch,
    FunctionModel,
    RecordingModel,
    ReplayModel,
    Trajectory,
)

ROOT = Path(__file__).resolve().parent.parent


def half(phase: str, mode: str, cassette: Path, state: Path) -> str:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.cassette_resume_main",
            phase,
            mode,
            str(cassette),
            str(state),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_run_paused_in_one_process_and_resumed_in_another_records_and_replays_one_cassette(
    tmp_path: Path,
) -> None:
    cassette, state = tmp_path / "refund.jsonl", tmp_path / "state.json"
    assert half("start", "record", cassette, state) == "waiting: ['refund']"
    assert len(cassette.read_text().splitlines()) == 1
    assert half("resume", "record", cassette, state) == "answer: Done: refunded A-17"
    requests = [json.loads(line)["request"] for line in cassette.read_text().splitlines()]
    assert [len(r["input"]) for r in requests] == [1, 3]  # the second continues the first

    state.unlink()
    assert half("start", "replay", cassette, state) == "waiting: ['refund']"
    assert half("resume", "replay", cassette, state) == "answer: Done: refunded A-17"


def session_reply(items: list[Any], tools: Any) -> str:
    said = [i["content"] for i in items if i.get("role") == "user"]
    return f"You said {len(said)} thing(s), last: {said[-1]}"


async def two_runs(agent: Agent[Any], db: Path) -> list[Any]:
    session = SQLiteSession("user-1", db)
    try:
        first = await Runner.run(agent, "hello", session=session)
        second = await Runner.run(agent, "and again", session=session)
    finally:
        session.close()
    return [first, second]


async def test_runs_on_a_sqlite_session_replay_with_the_history_they_read(tmp_path: Path) -> None:
    cassette = tmp_path / "session.jsonl"
    recorded = await two_runs(
        Agent("a", model=RecordingModel(FunctionModel(session_reply), cassette)), tmp_path / "1.db"
    )
    assert recorded[1].final_output == "You said 2 thing(s), last: and again"

    replayed = await two_runs(Agent("a", model=ReplayModel(cassette)), tmp_path / "2.db")
    assert [r.final_output for r in replayed] == [r.final_output for r in recorded]
    Trajectory(replayed[1]).assert_final_output("You said 2 thing(s), last: and again")

    # A session holding another history asks another question: the cassette says where.
    other = SQLiteSession("user-1", tmp_path / "3.db")
    try:
        await other.add_items([{"role": "user", "content": "something else"}])
        with pytest.raises(CassetteMismatch) as caught:
            await Runner.run(Agent("a", model=ReplayModel(cassette)), "hello", session=other)
    finally:
        other.close()
    assert caught.value.difference is not None
    assert caught.value.difference.path == "input[0].content"
