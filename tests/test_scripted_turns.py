"""The scripted models read the current turn only: a new message is answered afresh.

Earlier turns' tool outputs answered earlier messages; a conversation carried on
(`to_input_list()` plus a message, or a session) gets its tools called again.
"""

from __future__ import annotations

from typing import Any

from tooluse import Agent, Runner, SQLiteSession, function_tool
from tooluse.testing import (
    FunctionModel,
    ModelReply,
    TestModel,
    ToolCall,
    current_turn,
    tool_outputs,
)

calls: list[str] = []


@function_tool
def get_time(city: str) -> str:
    """Get the time.

    Args:
        city: The city.
    """
    calls.append(city)
    return "noon"


def _called(result: Any) -> list[str]:
    return [item["name"] for item in result.new_items if item.get("type") == "function_call"]


async def test_test_model_calls_the_tools_again_for_a_new_message() -> None:
    agent = Agent("clock", tools=[get_time], model=TestModel())
    first = await Runner.run(agent, "Time?")
    again = await Runner.run(
        agent, [*first.to_input_list(), {"role": "user", "content": "And now?"}]
    )

    assert (_called(first), _called(again)) == (["get_time"], ["get_time"])
    assert again.final_output == '{"get_time": "noon"}'


async def test_test_model_on_a_session_calls_the_tools_on_every_run(tmp_path: Any) -> None:
    calls.clear()
    agent = Agent("clock", tools=[get_time], model=TestModel())
    session = SQLiteSession("s", tmp_path / "s.db")
    try:
        for message in ("Time?", "And now?", "Still?"):
            await Runner.run(agent, message, session=session)
    finally:
        session.close()

    assert calls == ["a", "a", "a"]


def test_current_turn_is_the_last_user_message_and_what_followed() -> None:
    history: list[Any] = [
        {"role": "user", "content": "one"},
        {"type": "function_call", "call_id": "c1", "name": "get_time", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "noon"},
        {"role": "assistant", "content": "noon"},
        {"role": "user", "content": "two"},
        {"type": "function_call", "call_id": "c2", "name": "get_time", "arguments": "{}"},
    ]

    assert current_turn(history) == history[4:]
    assert current_turn(history[1:4]) == history[1:4]  # no user message: all of it
    assert current_turn([]) == []


def test_tool_outputs_reads_text_and_parts_as_text() -> None:
    items: list[Any] = [
        {"role": "user", "content": "go"},
        {"type": "function_call_output", "call_id": "c1", "output": "noon"},
        {"type": "function_call_output", "call_id": "c2", "output": [
            {"type": "input_text", "text": "a chart:"},
            {"type": "input_image", "image_url": "data:image/png;base64,AAAA"},
        ]},
        {"role": "assistant", "content": "done"},
    ]  # fmt: skip

    assert tool_outputs(items) == ["noon", "a chart:\n[image: image/png, 3 bytes]"]
    assert tool_outputs(items[:1]) == []


async def test_a_function_model_reading_the_current_turn_answers_each_message() -> None:
    def clock(items: list[Any], tools: Any) -> ModelReply | str:
        turn = current_turn(items)
        outputs = [item["output"] for item in turn if item.get("type") == "function_call_output"]
        if outputs:
            return f"It is {outputs[-1]} ({turn[0]['content']})"
        return ModelReply(tool_calls=[ToolCall("get_time", {"city": "Oslo"})])

    agent = Agent("clock", tools=[get_time], model=FunctionModel(clock))
    first = await Runner.run(agent, "Time?")
    again = await Runner.run(agent, [*first.to_input_list(), {"role": "user", "content": "Now?"}])

    assert (first.final_output, again.final_output) == ("It is noon (Time?)", "It is noon (Now?)")
    assert _called(again) == ["get_time"]
