"""Function-call arguments as they stream: one `ToolCallArgumentsDelta` per piece.

Each piece names its call and tool though the API names them once, follows the
raw event that carried it, and the pieces of a call joined are its arguments;
pieces split as servers split them (many deltas, all in the first chunk,
parallel calls interleaved, only in the finished item) and odd events (unknown
items, nameless calls) are tried over real HTTP from a `CannedServer`. The
scripted models stream their calls' arguments in pieces too.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import openai
import pytest

from tooluse import function_tool
from tooluse.models import ModelRequest, StreamDelta, ToolCallArgumentsDelta
from tooluse.testing import FunctionModel, ModelReply, TestModel, ToolCall

from .canned_server import (
    REQUEST,
    CannedServer,
    argument_delta,
    arguments_by_call,
    call_head,
    call_piece,
    chunk,
    done,
    events_of,
    function_call_item,
    joined,
    message_item,
    model_for,
    pieces,
    pieces_index,
    responses_body,
    responses_events,
    split,
)


@pytest.fixture
def server() -> Iterator[CannedServer]:
    canned = CannedServer()
    canned.start()
    try:
        yield canned
    finally:
        canned.stop()


@pytest.fixture
async def client(server: CannedServer) -> AsyncIterator[openai.AsyncOpenAI]:
    async with server.client() as client:
        yield client


# ---------------------------------------------------------------- arguments as they stream: Responses


async def test_responses_arguments_stream_as_pieces_naming_their_call(
    server: CannedServer, client: openai.AsyncOpenAI
) -> None:
    call = function_call_item("call_w", "weather", '{"city": "Paris", "unit": "C"}')
    server.events(responses_events([message_item("One moment."), call], None))

    events = await events_of(model_for("responses", client))

    assert pieces(events) == [
        ("call_w", "weather", part) for part in split('{"city": "Paris", "unit": "C"}')
    ]
    assert joined(events) == arguments_by_call(done(events))
    # Each piece follows the raw event that carried it.
    for index, event in enumerate(events):
        if isinstance(event, ToolCallArgumentsDelta):
            raw = events[index - 1]
            assert isinstance(raw, StreamDelta)
            assert raw.data.type == "response.function_call_arguments.delta"
            assert raw.data.delta == event.delta


async def test_responses_arguments_sent_only_with_the_finished_item_go_out_then(
    server: CannedServer, client: openai.AsyncOpenAI
) -> None:
    call = function_call_item("call_w", "weather", '{"city": "Paris"}')
    events = [
        {"type": "response.output_item.added", "output_index": 0, "item": call},  # whole
        {"type": "response.output_item.done", "output_index": 0, "item": call},
        {"type": "response.completed", "response": responses_body([call], None)},
    ]
    server.events(events)

    streamed = await events_of(model_for("responses", client))

    assert pieces(streamed) == [("call_w", "weather", '{"city": "Paris"}')]
    raw = streamed[pieces_index(streamed) - 1]
    assert isinstance(raw, StreamDelta)
    assert raw.data.type == "response.output_item.done"


async def test_responses_arguments_the_deltas_left_out_go_out_with_the_finished_item(
    server: CannedServer, client: openai.AsyncOpenAI
) -> None:
    call = function_call_item("call_w", "weather", '{"city": "Paris"}')
    events = [
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**call, "arguments": ""},
        },
        argument_delta("fc_call_w", 0, '{"city"'),
        {"type": "response.output_item.done", "output_index": 0, "item": call},
        {"type": "response.completed", "response": responses_body([call], None)},
    ]
    server.events(events)

    streamed = await events_of(model_for("responses", client))

    assert [delta for _, _, delta in pieces(streamed)] == ['{"city"', ': "Paris"}']
    assert joined(streamed) == arguments_by_call(done(streamed))


async def test_responses_deltas_for_unknown_items_are_skipped(
    server: CannedServer, client: openai.AsyncOpenAI
) -> None:
    first = function_call_item("call_1", "weather", '{"city": "Oslo"}')
    second = function_call_item("call_2", "time", '{"zone": "CET"}')
    events = [
        argument_delta("fc_nobody", 7, "{}"),  # before anything was added
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**first, "arguments": ""},
        },
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {**second, "arguments": ""},
        },
        argument_delta("fc_call_2", 1, '{"zone": '),  # interleaved, by item id
        argument_delta(None, 0, '{"city": '),  # no item id: by output index
        argument_delta("fc_nobody", None, "junk"),  # unknown id, no index
        argument_delta(None, None, "junk"),  # nothing to go by
        argument_delta("fc_call_1", 0, ""),  # an empty piece says nothing
        argument_delta("fc_call_1", 0, '"Oslo"}'),
        argument_delta("fc_call_2", 1, '"CET"}'),
        {"type": "response.output_item.done", "output_index": 0, "item": first},
        {"type": "response.output_item.done", "output_index": 1, "item": second},
        {"type": "response.completed", "response": responses_body([first, second], None)},
    ]
    server.events(events)

    streamed = await events_of(model_for("responses", client))

    assert pieces(streamed) == [
        ("call_2", "time", '{"zone": '),
        ("call_1", "weather", '{"city": '),
        ("call_1", "weather", '"Oslo"}'),
        ("call_2", "time", '"CET"}'),
    ]
    assert joined(streamed) == arguments_by_call(done(streamed))


async def test_responses_hosted_tools_and_nameless_calls_stream_no_argument_pieces(
    server: CannedServer, client: openai.AsyncOpenAI
) -> None:
    search = {"type": "web_search_call", "id": "ws_1", "status": "completed"}
    nameless = {**function_call_item("call_x", "", "{}"), "name": None}
    events = [
        {"type": "response.output_item.added", "output_index": 0, "item": search},
        {"type": "response.output_item.done", "output_index": 0, "item": search},
        {"type": "response.output_item.added", "output_index": 1, "item": nameless},
        argument_delta("fc_call_x", 1, "{}"),
        {"type": "response.output_item.done", "output_index": 1, "item": nameless},
        {"type": "response.completed", "response": responses_body([search, nameless], None)},
    ]
    server.events(events)

    streamed = await events_of(model_for("responses", client))

    assert pieces(streamed) == []
    assert [item["type"] for item in done(streamed).output] == ["web_search_call", "function_call"]


async def test_responses_items_without_ids_are_followed_by_output_index(
    server: CannedServer, client: openai.AsyncOpenAI
) -> None:
    call = {
        key: value for key, value in function_call_item("c", "weather", "{}").items() if key != "id"
    }
    events = [
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**call, "arguments": ""},
        },
        argument_delta(None, 0, "{"),
        argument_delta(None, 0, "}"),
        {"type": "response.output_item.done", "output_index": 0, "item": call},
        {"type": "response.completed", "response": responses_body([call], None)},
    ]
    server.events(events)

    streamed = await events_of(model_for("responses", client))

    assert pieces(streamed) == [("c", "weather", "{"), ("c", "weather", "}")]


# ---------------------------------------------------------------- arguments as they stream: Chat


async def test_chat_arguments_stream_as_pieces_naming_their_call(
    server: CannedServer, client: openai.AsyncOpenAI
) -> None:
    arguments = '{"city": "Paris", "unit": "C"}'
    server.events(
        [
            chunk({"role": "assistant", "content": None}),
            chunk(call_head(0, "call_w", "weather")),
            *(chunk(call_piece(0, part)) for part in split(arguments)),
            chunk({}, "tool_calls"),
        ],
        named=False,
    )

    events = await events_of(model_for("chat", client))

    assert pieces(events) == [("call_w", "weather", part) for part in split(arguments)]
    assert arguments_by_call(done(events)) == {"call_w": arguments}
    for index, event in enumerate(events):
        if isinstance(event, ToolCallArgumentsDelta):
            raw = events[index - 1]
            assert isinstance(raw, StreamDelta)
            assert raw.data.choices[0].delta.tool_calls[0].function.arguments == event.delta


async def test_chat_arguments_sent_whole_in_the_first_chunk(
    server: CannedServer, client: openai.AsyncOpenAI
) -> None:
    # Some servers (vLLM's and Ollama's tool parsers) send each call whole, several in a chunk.
    both = {
        "tool_calls": [
            call_head(0, "call_1", "weather", '{"city": "Oslo"}')["tool_calls"][0],
            call_head(1, "call_2", "time", '{"zone": "CET"}')["tool_calls"][0],
        ]
    }
    server.events([chunk(both), chunk({}, "tool_calls")], named=False)

    events = await events_of(model_for("chat", client))

    assert pieces(events) == [
        ("call_1", "weather", '{"city": "Oslo"}'),
        ("call_2", "time", '{"zone": "CET"}'),
    ]
    assert isinstance(events[0], StreamDelta)
    assert [type(event) for event in events[1:3]] == [ToolCallArgumentsDelta] * 2
    assert joined(events) == arguments_by_call(done(events))


async def test_chat_parallel_calls_interleaved_keep_their_pieces_apart(
    server: CannedServer, client: openai.AsyncOpenAI
) -> None:
    server.events(
        [
            chunk(call_head(0, "call_1", "weather")),
            chunk(call_head(1, "call_2", "time")),
            chunk(call_piece(0, '{"city": ')),
            chunk(call_piece(1, '{"zone": ')),
            chunk(call_piece(1, '"CET"}')),
            chunk(call_piece(0, '"Oslo"}')),
            chunk({}, "tool_calls"),
        ],
        named=False,
    )

    events = await events_of(model_for("chat", client))

    assert pieces(events) == [
        ("call_1", "weather", '{"city": '),
        ("call_2", "time", '{"zone": '),
        ("call_2", "time", '"CET"}'),
        ("call_1", "weather", '"Oslo"}'),
    ]
    assert joined(events) == arguments_by_call(done(events))


async def test_chat_odd_chunks_neither_crash_nor_announce_unnamed_pieces(
    server: CannedServer, client: openai.AsyncOpenAI
) -> None:
    server.events(
        [
            chunk(None),  # a choice without a delta
            chunk(
                {"tool_calls": [{"index": 0, "id": "call_1", "type": "function"}]}
            ),  # no function
            chunk(call_piece(3, '{"lost": true}')),  # a call never named
            chunk(call_piece(0, {"city": "Oslo"})),  # arguments that are not text
            chunk({"tool_calls": [{"index": 0, "function": {"name": "weather"}}]}),
            chunk(call_piece(0, '{"city": "Oslo"}')),
            chunk({}, "tool_calls"),
        ],
        named=False,
    )

    events = await events_of(model_for("chat", client))

    assert pieces(events) == [("call_1", "weather", '{"city": "Oslo"}')]
    assert arguments_by_call(done(events)) == {"call_1": '{"city": "Oslo"}', "": '{"lost": true}'}


# ---------------------------------------------------------------- the scripted models


@function_tool
def forecast(city: str, days: int) -> str:
    """Forecast the weather.

    Args:
        city: Where.
        days: How many days ahead.
    """
    return f"{city}: sunny for {days} days"


async def test_test_model_streams_its_calls_arguments_in_pieces() -> None:
    request = ModelRequest(instructions=None, input=REQUEST.input, tools=[forecast])

    events = await events_of(TestModel(), request)

    response = done(events)
    assert response.model == "test"
    assert isinstance(events[0], StreamDelta)
    assert len(pieces(events)) > 1
    assert all(len(delta) <= 16 for _, _, delta in pieces(events))
    assert {name for _, name, _ in pieces(events)} == {"forecast"}
    assert joined(events) == arguments_by_call(response)
    assert response == await TestModel().get_response(request)


async def test_function_model_names_itself_after_the_function() -> None:
    def reply(items: list[Any], tools: Any) -> ModelReply:
        del items, tools
        return ModelReply("Let me look.", [ToolCall("forecast", {"city": "Rome"}, call_id="c1")])

    events = await events_of(FunctionModel(reply))

    assert done(events).model == "function:reply"
    assert pieces(events) == [("c1", "forecast", '{"city": "Rome"}')]
