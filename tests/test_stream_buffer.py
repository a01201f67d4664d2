"""A streamed run's buffer is bounded while a loop reads it: a slow reader slows the model's
stream; with no reader, or one that left, the run never waits."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import math
from collections.abc import AsyncIterator

import pytest

from tooluse import (
    Agent,
    RawResponsesStreamEvent,
    Runner,
    RunResultStreaming,
    ToolCallArgumentsDeltaStreamEvent,
    UserError,
)
from tooluse.models import (
    Model,
    ModelRequest,
    ModelResponse,
    ResponseDone,
    StreamDelta,
    StreamEvent,
)
from tooluse.run import _stream_buffer as stream_buffer
from tooluse.run._stream_buffer import STREAM_BUFFER_SIZE, EventBuffer

from .scripted import text


class Deltas(Model):
    """Streams `count` deltas (their numbers), then "done"; counts what it has sent.

    With `network`, it lets other tasks run before each delta, as reading a socket would;
    `kind` is the class of the deltas.
    """

    def __init__(
        self, count: int, *, network: bool = False, kind: type[StreamDelta] = StreamDelta
    ) -> None:
        self.count = count
        self.network = network
        self.kind = kind
        self.sent = 0
        self.closed = False

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        raise NotImplementedError

    async def stream_response(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        try:
            for number in range(self.count):
                if self.network:
                    await asyncio.sleep(0)
                self.sent += 1
                yield self.kind(number)
            yield ResponseDone(ModelResponse([text("done")]))
        finally:
            self.closed = True


async def ended(result: RunResultStreaming) -> None:
    """Poll until the run has ended (never reading its events); fail after 10 s."""

    async def poll() -> None:
        while not result.is_complete:
            await asyncio.sleep(0.001)

    await asyncio.wait_for(poll(), 10)


def waiting(result: RunResultStreaming) -> int:
    return len(result._run.buffer)  # pyright: ignore[reportPrivateUsage]


@dataclasses.dataclass
class TaggedDelta(StreamDelta):
    """A model's own kind of delta."""

    tag: str = "mine"


@pytest.mark.parametrize("kind", [StreamDelta, TaggedDelta])
async def test_a_slow_consumer_slows_the_model_stream_instead_of_growing_the_buffer(
    kind: type[StreamDelta],
) -> None:
    model = Deltas(10_000, kind=kind)
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
    await ended(result)  # the cancelled run closes the model's stream, then ends
    assert model.sent <= STREAM_BUFFER_SIZE
    assert (result.cancelled, result.is_complete, model.closed) == (True, True, True)


async def test_a_cancelled_reader_stops_the_run_waiting_for_room() -> None:
    model = Deltas(10_000, network=True)
    result = Runner.run_streamed(Agent("a", model=model), "go")
    started = asyncio.Event()

    async def read() -> None:
        async for _ in result.stream_events():
            started.set()
            await asyncio.sleep(60)  # a reader stuck on a slow client

    reader = asyncio.ensure_future(read())
    await started.wait()
    await asyncio.sleep(0.01)  # the model fills the buffer meanwhile, and waits
    assert model.sent <= STREAM_BUFFER_SIZE
    reader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reader
    await ended(result)
    assert (result.cancelled, result.is_complete, model.closed) == (True, True, True)


async def test_with_no_reader_the_run_finishes_and_keeps_every_event_for_a_later_one() -> None:
    model = Deltas(3 * STREAM_BUFFER_SIZE)
    result = Runner.run_streamed(Agent("a", model=model), "go")
    await ended(result)  # awaiting the end without reading never deadlocks
    assert (result.final_output, model.sent, model.closed) == ("done", model.count, True)
    events = [event async for event in result.stream_events()]
    assert len(events) == 1 + model.count + 2  # the agent, the deltas, usage, the message


async def test_reading_to_the_end_awaits_completion_whatever_the_number_of_events() -> None:
    model = Deltas(5 * STREAM_BUFFER_SIZE)
    result = Runner.run_streamed(Agent("a", model=model), "go")
    async for _ in result.stream_events():
        pass
    assert (result.is_complete, result.final_output) == (True, "done")


async def test_a_late_reader_is_bounded_from_when_it_comes() -> None:
    model = Deltas(4 * STREAM_BUFFER_SIZE, network=True)
    result = Runner.run_streamed(Agent("a", model=model), "go")
    while model.sent < 2 * STREAM_BUFFER_SIZE:  # nobody reads yet: the run does not wait
        await asyncio.sleep(0)
    events = result.stream_events()
    waited = waiting(result)
    await anext(events)
    await asyncio.sleep(0.01)  # the reader is attached: the model waits for it
    assert model.sent < model.count
    assert waiting(result) <= waited + STREAM_BUFFER_SIZE // 2
    rest = [event async for event in events]
    assert len(rest) == model.count + 2
    assert result.final_output == "done"


async def test_a_loop_left_unclosed_holds_the_run_only_while_its_task_lives() -> None:
    model = Deltas(3 * STREAM_BUFFER_SIZE, network=True)
    result = Runner.run_streamed(Agent("a", model=model), "go")
    kept: list[object] = []
    sent_while_reading: list[int] = []

    async def read_one() -> None:
        events = result.stream_events()
        kept.append(events)  # never closed, never collected: the run is not cancelled
        async for _ in events:
            await asyncio.sleep(0.01)  # the model fills the buffer meanwhile, and waits
            sent_while_reading.append(model.sent)
            break

    await asyncio.ensure_future(read_one())  # its task ends: the run reads on, to the end
    await ended(result)
    assert sent_while_reading[0] <= STREAM_BUFFER_SIZE
    assert (result.cancelled, result.final_output, model.sent) == (False, "done", model.count)


async def test_a_loop_left_unclosed_in_a_task_that_goes_on_holds_the_run_only_a_moment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(stream_buffer, "READER_PATIENCE", 0.05)
    model = Deltas(3 * STREAM_BUFFER_SIZE, network=True)
    result = Runner.run_streamed(Agent("a", model=model), "go")
    events = result.stream_events()  # kept, never closed: the run is not cancelled
    async for _ in events:
        break
    await ended(result)  # this task goes on: after the patience, the run reads on
    assert (result.cancelled, result.final_output, model.sent) == (False, "done", model.count)
    assert len([event async for event in events]) == model.count + 2  # all kept for it


async def test_a_reader_with_no_patience_holds_the_run_however_long_it_takes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(stream_buffer, "READER_PATIENCE", 0.05)
    model = Deltas(3 * STREAM_BUFFER_SIZE, network=True)
    result = Runner.run_streamed(Agent("a", model=model), "go")
    async with contextlib.aclosing(result.stream_events(patience=math.inf)) as events:
        async for _ in events:
            await asyncio.sleep(0.3)  # stuck on a slow client, six default patiences long
            assert model.sent <= STREAM_BUFFER_SIZE  # the run waited all along
            break
    await ended(result)
    assert (result.cancelled, model.closed) == (True, True)


async def test_reading_each_event_in_a_task_of_its_own_stays_bounded() -> None:
    # wait_for(anext(...)) does this before 3.12: the loop's first task ends at once.
    model = Deltas(3 * STREAM_BUFFER_SIZE, network=True)
    result = Runner.run_streamed(Agent("a", model=model), "go")
    events = result.stream_events()
    most = 0
    while True:
        try:
            await asyncio.ensure_future(anext(events))
        except StopAsyncIteration:
            break
        most = max(most, waiting(result))
        await asyncio.sleep(0)  # slower than the model
    assert most <= STREAM_BUFFER_SIZE + 8
    assert result.final_output == "done"


async def test_a_second_loop_in_the_same_task_goes_on_where_a_left_one_stopped() -> None:
    model = Deltas(3 * STREAM_BUFFER_SIZE)
    result = Runner.run_streamed(Agent("a", model=model), "go")
    first = result.stream_events()
    seen = [await anext(first) for _ in range(10)]  # then left, unclosed
    await asyncio.sleep(0.01)
    seen += [event async for event in result.stream_events()]
    deltas = [e.data for e in seen if isinstance(e, RawResponsesStreamEvent)]
    assert deltas == list(range(model.count))
    assert (result.final_output, result.cancelled) == ("done", False)
    await first.aclose()  # the run has ended: closing the old loop changes nothing
    assert result.cancelled is False


async def test_a_second_task_reading_at_once_is_told_to_read_in_one_loop() -> None:
    model = Deltas(3 * STREAM_BUFFER_SIZE)
    result = Runner.run_streamed(Agent("a", model=model), "go")
    events = result.stream_events()
    first = await anext(events)

    async def read_elsewhere() -> None:
        async for _ in result.stream_events():
            pass

    with pytest.raises(UserError, match="read stream_events\\(\\) in one loop"):
        await asyncio.ensure_future(read_elsewhere())
    rest = [event async for event in events]  # the first reader is unaffected
    assert len([first, *rest]) == 1 + model.count + 2
    assert (result.final_output, result.cancelled) == ("done", False)


class TestEventBuffer:
    async def test_a_put_that_fills_half_says_so_and_room_comes_with_the_next_batch(
        self,
    ) -> None:
        buffer = EventBuffer(4)
        buffer.attach(current())
        event = RawResponsesStreamEvent("x")
        assert [buffer.put(event) for _ in range(2)] == [False, True]
        assert buffer.refill()
        assert [buffer.put(event) for _ in range(2)] == [False, True]
        room = asyncio.ensure_future(buffer.room())
        await asyncio.sleep(0)
        buffer.ready.popleft()
        await asyncio.sleep(0)
        assert (room.done(), len(buffer)) == (False, 3)  # the batch is not yet read
        buffer.ready.popleft()
        assert buffer.refill()
        await asyncio.sleep(0)
        assert (room.done(), len(buffer), len(buffer.ready)) == (True, 2, 2)

    async def test_it_is_unbounded_without_a_reader_and_detaching_frees_the_run(self) -> None:
        buffer = EventBuffer(4)
        event = RawResponsesStreamEvent("x")
        assert [buffer.put(event) for _ in range(5)] == [False] * 5  # no reader: no bound
        token = buffer.attach(current())
        assert buffer.put(event)
        room = asyncio.ensure_future(buffer.room())
        await asyncio.sleep(0)
        assert not room.done()
        buffer.detach(object())  # not the attached reader's token: nothing changes
        await asyncio.sleep(0)
        assert not room.done()
        buffer.detach(token)
        await asyncio.sleep(0)
        assert (room.done(), buffer.reader, buffer.put(event)) == (True, None, False)

    async def test_a_reader_whose_task_ends_is_detached(self) -> None:
        buffer = EventBuffer(2)
        buffer.attach(asyncio.ensure_future(asyncio.sleep(0)))
        assert buffer.put(RawResponsesStreamEvent("x")) is True
        await asyncio.sleep(0.01)
        assert (buffer.reader, buffer.put(RawResponsesStreamEvent("x"))) == (None, False)

    async def test_the_end_is_put_even_when_full_and_wakes_the_reader(self) -> None:
        buffer = EventBuffer(1)
        buffer.attach(current())
        assert not buffer.refill()
        arrival = asyncio.ensure_future(buffer.arrival())
        await asyncio.sleep(0)
        assert buffer.put(RawResponsesStreamEvent("x"))
        buffer.put(None)
        await arrival
        assert buffer.refill()
        assert list(buffer.ready) == [RawResponsesStreamEvent("x"), None]


def current() -> asyncio.Task[object]:
    task = asyncio.current_task()
    assert task is not None
    return task


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


def test_events_are_frozen_dataclasses_as_openai_agents_builds_them() -> None:
    raw = RawResponsesStreamEvent(data="x", type="raw_response_event")
    assert dataclasses.is_dataclass(raw)
    assert dataclasses.asdict(raw) == {"data": "x", "type": "raw_response_event"}
    assert dataclasses.replace(raw, data="y") == RawResponsesStreamEvent("y")
    with pytest.raises(UserError, match="has type 'raw_response_event', not 'usage_event'"):
        RawResponsesStreamEvent("x", type="usage_event")  # pyright: ignore[reportArgumentType]
