"""A run writes each turn to its session in exactly one write, and a failed write loses
no more than its own turn.

Spies around real sessions (a SQLite file, and a session with openai-agents' four
methods) count the writes and what each holds; one of them fails its second write.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tooluse import Agent, Runner, TResponseInputItem, function_tool
from tooluse.sessions import SQLiteSession

from .scripted import ScriptModel, call, text

Item = TResponseInputItem


class WriteFailed(Exception):
    """The spy's injected failure."""


class SpySQLiteSession(SQLiteSession):
    """A SQLite session that records each `add_turn`, and can fail the one numbered `fail_at`."""

    def __init__(self, path: Path, fail_at: int | None = None) -> None:
        super().__init__("spied", path)
        self.writes: list[list[Item]] = []
        self.fail_at = fail_at

    async def add_turn(self, items: list[Item], *, paused_state: str | None) -> None:
        if len(self.writes) + 1 == self.fail_at:
            self.writes.append([])
            raise WriteFailed
        self.writes.append(list(items))
        await super().add_turn(items, paused_state=paused_state)


class SpyPlainSession:
    """A session with openai-agents' four methods only, recording each `add_items`."""

    def __init__(self, fail_at: int | None = None) -> None:
        self.session_id = "plain"
        self.items: list[Item] = []
        self.writes: list[list[Item]] = []
        self.fail_at = fail_at

    async def get_items(self, limit: int | None = None) -> list[Item]:
        return list(self.items if limit is None else self.items[-limit:])

    async def add_items(self, items: list[Item]) -> None:
        if len(self.writes) + 1 == self.fail_at:
            self.writes.append([])
            raise WriteFailed
        self.writes.append(list(items))
        self.items.extend(items)

    async def pop_item(self) -> Item | None:
        return self.items.pop() if self.items else None

    async def clear_session(self) -> None:
        self.items.clear()


@function_tool
def lookup(city: str) -> str:
    """Look a city up.

    Args:
        city: The city.
    """
    return f"{city}: sunny"


def three_turns() -> ScriptModel:
    """Two turns of two calls each, then an answer."""
    return ScriptModel(
        [call("c1", "lookup", {"city": "Oslo"}), call("c2", "lookup", {"city": "Rome"})],
        [call("c3", "lookup", {"city": "Lima"}), call("c4", "lookup", {"city": "Pune"})],
        [text("All sunny.")],
    )


def kinds(items: list[Item]) -> list[str]:
    return [str(item.get("role") or item.get("type")) for item in items]


TURN = ["function_call", "function_call", "function_call_output", "function_call_output"]


def spy(kind: str, tmp_path: Path, fail_at: int | None = None) -> Any:
    if kind == "sqlite":
        return SpySQLiteSession(tmp_path / "sessions.db", fail_at)
    return SpyPlainSession(fail_at)


async def stored(session: Any) -> list[Item]:
    items: list[Item] = await session.get_items()
    return items


@pytest.mark.parametrize("kind", ["sqlite", "plain"])
async def test_each_turn_is_one_write(kind: str, tmp_path: Path) -> None:
    session = spy(kind, tmp_path)
    agent = Agent("a", tools=[lookup], model=three_turns())
    result = await Runner.run(agent, "Weather?", session=session)
    assert result.final_output == "All sunny."
    assert [kinds(write) for write in session.writes] == [["user", *TURN], TURN, ["assistant"]]
    assert kinds(await stored(session)) == ["user", *TURN, *TURN, "assistant"]


@pytest.mark.parametrize("kind", ["sqlite", "plain"])
async def test_a_failed_write_leaves_whole_turns_only(kind: str, tmp_path: Path) -> None:
    session = spy(kind, tmp_path, fail_at=2)  # the second turn's write fails
    agent = Agent("a", tools=[lookup], model=three_turns())
    with pytest.raises(WriteFailed):
        await Runner.run(agent, "Weather?", session=session)
    assert len(session.writes) == 2  # the run stopped at the failed write
    assert kinds(await stored(session)) == ["user", *TURN]  # the first turn, whole
