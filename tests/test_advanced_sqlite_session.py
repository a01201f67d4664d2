"""`AdvancedSQLiteSession`: turns, usage by turn and branches, over a real SQLite file.

Runs go through the `openai` client to the local server; openai-agents' own
`AdvancedSQLiteSession` reads and writes the same file.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tooluse import Agent, Runner, TResponseInputItem, UserError, function_tool
from tooluse.sessions import AdvancedSQLiteSession

from .openai_server import Call, ScriptedServer, Turn

Item = TResponseInputItem


@function_tool
def get_weather(city: str) -> str:
    """The weather in a city.

    Args:
        city: The city.
    """
    return f"{city}: sunny"


@pytest.fixture
async def session(tmp_path: Path) -> AsyncIterator[AdvancedSQLiteSession]:
    advanced = AdvancedSQLiteSession(session_id="chat", db_path=tmp_path / "a.db")
    yield advanced
    advanced.close()


async def _converse(server: ScriptedServer, session: AdvancedSQLiteSession, *asks: str) -> None:
    agent = Agent("a", tools=[get_weather], model=server.model("responses"))
    for ask in asks:
        server.script(Turn(calls=[Call("get_weather", '{"city": "Oslo"}')]), Turn(text="Sunny."))
        result = await Runner.run(agent, ask, session=session)
        await session.store_run_usage(result)


def _contents(items: list[Item]) -> list[Any]:
    return [item.get("content") for item in items if item.get("role") == "user"]


async def test_turns_and_their_usage_are_recorded(
    openai_server: ScriptedServer, session: AdvancedSQLiteSession
) -> None:
    await _converse(openai_server, session, "one", "two")

    assert await session.get_session_usage() == {
        "requests": 4,
        "input_tokens": 40,
        "output_tokens": 20,
        "total_tokens": 60,
        "total_turns": 2,
    }
    turns = await session.get_turn_usage()
    assert isinstance(turns, list)
    assert [(t["user_turn_number"], t["total_tokens"]) for t in turns] == [(1, 30), (2, 30)]
    assert turns[0]["input_tokens_details"]["cached_tokens"] == 0
    second = await session.get_turn_usage(2)
    assert isinstance(second, dict)
    assert second["requests"] == 2
    assert await session.get_turn_usage(9) == {}
    by_turn = await session.get_conversation_by_turns()
    assert [item["type"] for item in by_turn[1]] == [
        "user",
        "function_call",
        "function_call_output",
        "assistant",
    ]
    assert by_turn[1][1]["tool_name"] == "get_weather"
    assert await session.get_tool_usage() == [("get_weather", 1, 1), ("get_weather", 1, 2)]
    assert [t["content"] for t in await session.get_conversation_turns()] == ["one", "two"]
    assert [t["turn"] for t in await session.find_turns_by_content("tw")] == [2]


async def test_a_branch_starts_before_a_turn_and_goes_its_own_way(
    openai_server: ScriptedServer, session: AdvancedSQLiteSession
) -> None:
    await _converse(openai_server, session, "one", "two", "three")

    branch = await session.create_branch_from_turn(2)
    assert branch.startswith("branch_from_turn_2_")
    assert session.current_branch_id == branch
    assert _contents(await session.get_items()) == ["one"]
    await _converse(openai_server, session, "two, differently")

    sent = openai_server.requests[-2]["body"]["input"]
    assert _contents(sent) == ["one", "two, differently"]  # the model saw the branch only
    assert _contents(await session.get_items()) == ["one", "two, differently"]
    branches = {b["branch_id"]: b for b in await session.list_branches()}
    assert (branches["main"]["user_turns"], branches["main"]["is_current"]) == (3, False)
    assert (branches[branch]["message_count"], branches[branch]["is_current"]) == (8, True)
    usage = await session.get_session_usage(branch)  # only what ran on the branch
    assert usage is not None
    assert (usage["total_turns"], usage["requests"]) == (1, 2)

    assert await session.pop_item() is not None  # the branch's own answer
    await session.switch_to_branch("main")
    assert _contents(await session.get_items()) == ["one", "two", "three"]
    assert len(await session.get_items()) == 12


async def test_deleting_a_branch_keeps_what_main_shares(
    openai_server: ScriptedServer, session: AdvancedSQLiteSession
) -> None:
    await _converse(openai_server, session, "one", "two")
    branch = await session.create_branch_from_content("two", branch_name="retry")
    assert branch == "retry"

    with pytest.raises(UserError, match=r"delete_branch\('retry'\): it is the current branch"):
        await session.delete_branch("retry")
    await session.delete_branch("retry", force=True)

    assert session.current_branch_id == "main"
    assert [b["branch_id"] for b in await session.list_branches()] == ["main"]
    assert len(await session.get_items()) == 8


async def test_mistakes_are_refused_with_what_to_do(
    openai_server: ScriptedServer, session: AdvancedSQLiteSession
) -> None:
    await _converse(openai_server, session, "one")
    with pytest.raises(UserError, match=r"turn 5 of branch 'main' has no user message"):
        await session.create_branch_from_turn(5)
    with pytest.raises(UserError, match=r"has a branch of that name already"):
        await session.create_branch_from_turn(1, branch_name="main")
    with pytest.raises(UserError, match=r"switch_to_branch\('nope'\): .* its branches are main"):
        await session.switch_to_branch("nope")
    with pytest.raises(UserError, match=r"the main branch cannot be deleted"):
        await session.delete_branch("main")
    with pytest.raises(UserError, match=r"no user message of branch 'main' contains 'zzz'"):
        await session.create_branch_from_content("zzz")


async def test_clearing_forgets_turns_usage_and_branches(
    openai_server: ScriptedServer, session: AdvancedSQLiteSession
) -> None:
    await _converse(openai_server, session, "one", "two")
    await session.create_branch_from_turn(2)
    await session.clear_session()
    assert session.current_branch_id == "main"
    assert await session.get_items() == []
    assert await session.list_branches() == []
    assert await session.get_session_usage() is None


async def test_openai_agents_reads_and_extends_the_same_file(tmp_path: Path) -> None:
    from agents.extensions.memory import AdvancedSQLiteSession as AgentsAdvancedSQLiteSession

    path = tmp_path / "shared.db"
    ours = AdvancedSQLiteSession(session_id="chat", db_path=path)
    items: list[Item] = [
        {"role": "user", "content": "one"},
        {"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "sunny"},
        {"role": "user", "content": "two"},
    ]
    await ours.add_items(items)
    theirs = AgentsAdvancedSQLiteSession(session_id="chat", db_path=str(path), create_tables=True)
    try:
        assert await theirs.get_items() == items
        assert await theirs.get_tool_usage() == [("get_weather", 1, 1)]
        await theirs.add_items([{"role": "user", "content": "three"}])
        await theirs.create_branch_from_turn(2, "alt")

        assert _contents(await ours.get_items()) == ["one", "two", "three"]
        await ours.switch_to_branch("alt")
        assert await ours.get_items() == items[:3]
    finally:
        theirs.close()
        ours.close()
