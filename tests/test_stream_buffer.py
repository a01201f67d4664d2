"""A streamed run's buffer is bounded: a slow consumer slows the model's stream."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest

from tooluse import (
    Agent,
    RawResponsesStreamEvent,
    Runner,
    RunResultStreaming,
    ToolCallArgumentsDeltaStreamEvent,
)
from tooluse._stream_buffer import STREAM_BUFFER_SIZE, EventBuffer
from tooluse.models import (
    Model,
    ModelRequest,
    ModelResponse,
    ResponseDone,
    StreamDelta,
    StreamEvent,
)

from .scripted import text


class Deltas(Model):
    """Streams `count` deltas (their numbers), then "done"; counts what it has sent."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.sent = 0
        self.closed = False

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        raise NotImplementedError

    async def stream_response(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        try:
            for number in range(self.count):
                self.sent += 1
                yield StreamDelta(number)
            yield ResponseDone(ModelResponse([text("done")]))
        finally:
            self.closed = True


def waiting(result: RunResultStreaming) -> int:
    return len(result._buffer)  # pyright: ignore[reportPrivateUsage]


async def test_a_slow_consumer_slows_the_model_stream_instead_of_growing_the_buffer() -> None:
    model = Deltas(10_000)
    result = Runner.run_streamed(Agent("a", model=model), "go")
    numbers: list[int] = []
    most_waiting = most_ahead = 0
    async for event in result.stream_events():
        await asyncio.sleep(0)  # slower than the model: the run gets a turn after each event
        most_waiting = max(most_waiting, waiting(result))
        if isinstance(event, RawResponsesStreamEvent):
            numbers.append(event.data)
            most_ahead = max(most_ahead, model.sent - len(numbers))
    assert numbers == list(range(10_000))
    assert result.final_output == "done"
    assert most_waiting <= STREAM_BUFFER_SIZE
    assert STREAM_BUFFER_SIZE // 2 <= most_ahead <= STREAM_BUFFER_SIZE  # it waited, and read on


async def test_a_consumer_that_leaves_while_the_model_waits_for_room_stops_the_run() -> None:
    model = Deltas(10_000)
    result = Runner.run_streamed(Agent("a", model=model), "go")
    async with contextlib.aclosing(result.stream_events()) as events:
        async for _ in events:
            await asyncio.sleep(0.01)  # the model fills the buffer meanwhile, and waits
            break
    await asyncio.sleep(0.01)  # the cancelled run closes the model's stream, then ends
    assert model.sent <= STREAM_BUFFER_SIZE
    assert (result.cancelled, result.is_complete, model.closed) == (True, True, True)


async def test_a_run_read_only_at_its_end_still_ends_its_events() -> None:
    count = STREAM_BUFFER_SIZE - 1  # after the agent's event, the last delta fills the buffer
    model = Deltas(count)
    result = Runner.run_streamed(Agent("a", model=model), "go")
    await asyncio.sleep(0.01)
    assert (model.sent, result.is_complete) == (count, False)  # waiting for room
    events = [event async for event in result.stream_events()]
    assert len(events) == 1 + count + 2  # the agent, the deltas, usage, the message
    assert (result.is_complete, result.final_output) == (True, "done")


class TestEventBuffer:
    async def test_a_put_that_fills_it_says_so_and_room_comes_at_half(self) -> None:
        buffer = EventBuffer(4)
        event = RawResponsesStreamEvent("x")
        assert [buffer.put(event) for _ in range(4)] == [False, False, False, True]
        room = asyncio.ensure_future(buffer.room())
        await asyncio.sleep(0)
        buffer.take()
        await asyncio.sleep(0)
        assert not room.done()  # three wait: more than half
        buffer.take()
        await asyncio.sleep(0)
        assert (room.done(), len(buffer)) == (True, 2)

    async def test_the_end_is_put_even_when_full_and_wakes_the_reader(self) -> None:
        buffer = EventBuffer(1)
        arrival = asyncio.ensure_future(buffer.arrival())
        await asyncio.sleep(0)
        assert buffer.put(RawResponsesStreamEvent("x"))
        buffer.put(None)
        await arrival
        assert [buffer.take(), buffer.take()] == [RawResponsesStreamEvent("x"), None]
        with pytest.raises(IndexError):
            buffer.take()


def test_events_compare_hash_print_and_match_by_their_fields() -> None:
    delta = ToolCallArgumentsDeltaStreamEvent("call_1", "add", '{"a"')
    same = ToolCallArgumentsDeltaStreamEvent("call_1", "add", '{"a"')
    assert delta == same
    assert hash(delta) == hash(same)
    assert delta != ToolCallArgumentsDeltaStreamEvent("call_1", "add", "1}")
    assert RawResponsesStreamEvent("x") != ToolCallArgumentsDeltaStreamEvent("x", "x", "x")
    assert repr(delta) == (
        "ToolCallArgumentsDeltaStreamEvent(call_id='call_1', tool_name='add', delta='{\"a\"', "
        "type='tool_call_arguments_delta_event')"
    )
    match delta:
        case ToolCallArgumentsDeltaStreamEvent(call_id, _, piece, kind):
            assert (call_id, piece, kind) == ("call_1", '{"a"', delta.type)
