"""The scripted models stream offline: text and arguments in pieces of a size you set.

A streamed run over `TestModel` or `FunctionModel` yields `TextDeltaStreamEvent`s and
`ToolCallArgumentsDeltaStreamEvent`s, as a provider's model does, so the usual
loop that prints the answer as it arrives can be tried and tested without a key.
"""

from __future__ import annotations

from typing import Any

import pytest

from tooluse import Agent, Runner, function_tool
from tooluse.exceptions import UserError
from tooluse.testing import FunctionModel, ModelReply, TestModel, ToolCall

ANSWER = "The weather in Paris is sunny, 21 degrees, with a light breeze."


@function_tool
def get_weather(city: str) -> str:
    """Get the weather.

    Args:
        city: The city.
    """
    return f"Sunny in {city}"


async def _streamed(agent: Agent[Any], text: str = "Weather in Paris?") -> list[Any]:
    result = Runner.run_streamed(agent, text)
    return [event async for event in result.stream_events()]


def _text_pieces(events: list[Any]) -> list[str]:
    return [event.delta for event in events if event.type == "text_delta_event"]


def _argument_pieces(events: list[Any]) -> list[str]:
    return [event.delta for event in events if event.type == "tool_call_arguments_delta_event"]


async def test_function_model_streams_the_answer_in_pieces_of_16_by_default() -> None:
    events = await _streamed(Agent("weather", model=FunctionModel(lambda items, tools: ANSWER)))

    pieces = _text_pieces(events)
    assert "".join(pieces) == ANSWER
    assert [len(piece) for piece in pieces] == [16, 16, 16, 15]


@pytest.mark.parametrize(("size", "lengths"), [(1, [1] * 63), (10, [10] * 6 + [3]), (100, [63])])
async def test_function_model_streams_pieces_of_the_size_set(size: int, lengths: list[int]) -> None:
    model = FunctionModel(lambda items, tools: ANSWER, piece_size=size)

    pieces = _text_pieces(await _streamed(Agent("weather", model=model)))

    assert [len(piece) for piece in pieces] == lengths
    assert "".join(pieces) == ANSWER


async def test_test_model_streams_arguments_and_answer_in_pieces_of_the_size_set() -> None:
    agent = Agent("weather", tools=[get_weather], model=TestModel(piece_size=4))

    events = await _streamed(agent)

    arguments = _argument_pieces(events)
    assert "".join(arguments) == '{"city": "a"}'
    assert [len(piece) for piece in arguments] == [4, 4, 4, 1]
    answer = _text_pieces(events)
    assert "".join(answer) == '{"get_weather": "Sunny in a"}'
    assert {len(piece) for piece in answer[:-1]} == {4}


async def test_a_streamed_call_and_answer_come_in_order() -> None:
    def script(items: list[Any], tools: Any) -> ModelReply | str:
        if any(item.get("type") == "function_call_output" for item in items):
            return "Sunny."
        return ModelReply(tool_calls=[ToolCall("get_weather", {"city": "Oslo"})])

    agent = Agent("weather", tools=[get_weather], model=FunctionModel(script, piece_size=5))

    events = await _streamed(agent)

    kinds = [
        event.type
        for event in events
        if event.type in {"text_delta_event", "tool_call_arguments_delta_event"}
    ]
    assert kinds == ["tool_call_arguments_delta_event"] * 4 + ["text_delta_event"] * 2
    assert _argument_pieces(events) == ['{"cit', 'y": "', 'Oslo"', "}"]
    assert _text_pieces(events) == ["Sunny", "."]


@pytest.mark.parametrize("size", [0, -1, 2.5, True, "8"])
def test_a_piece_size_that_is_no_whole_number_above_zero_is_refused(size: Any) -> None:
    with pytest.raises(UserError) as function_model:
        FunctionModel(lambda items, tools: "", piece_size=size)
    with pytest.raises(UserError) as test_model:
        TestModel(piece_size=size)

    assert str(function_model.value) == (
        f"FunctionModel(piece_size={size!r}): the characters per streamed piece must be a "
        "whole number of at least 1"
    )
    assert str(test_model.value).startswith(f"TestModel(piece_size={size!r}): ")
