"""What the OpenAI models read beyond the output: billable usage, the model's name, and
function-call arguments as they stream.

A small server of its own answers each request with a handwritten body (JSON, or
server-sent events), so that the real `openai` client parses exactly what a
server sent: cached and reasoning token counts present, missing or null (as
vLLM and Ollama leave them), the model's name or none, and arguments split
across delta events in the ways servers split them.
"""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import aclosing
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

import openai
import pytest

from tooluse import InputTokensDetails, OutputTokensDetails, Usage, function_tool
from tooluse.models import (
    ModelRequest,
    ModelResponse,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    ResponseDone,
    StreamDelta,
    StreamEvent,
    ToolCallArgumentsDelta,
)
from tooluse.testing import FunctionModel, ModelReply, TestModel, ToolCall

Api = Literal["responses", "chat"]
Mode = Literal["whole", "streamed"]
Json = dict[str, Any]

REQUEST = ModelRequest(instructions=None, input=[{"role": "user", "content": "Weather?"}])
SNAPSHOT = "gpt-4.1-2025-04-14"


# ---------------------------------------------------------------- the canned server


class CannedServer:
    """Answers each POST with the next canned body: JSON, or server-sent events."""

    def __init__(self) -> None:
        self.bodies: list[tuple[str, str]] = []
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._http.daemon_threads = True
        self._thread = threading.Thread(
            target=self._http.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    def client(self) -> openai.AsyncOpenAI:
        port = self._http.server_address[1]
        return openai.AsyncOpenAI(
            base_url=f"http://127.0.0.1:{port}/v1", api_key="test-key", max_retries=0
        )

    def json(self, body: Json) -> None:
        self.bodies.append(("application/json", json.dumps(body)))

    def events(self, events: list[Json], *, named: bool = True) -> None:
        """Server-sent events; Responses events carry their type as the event's name."""
        lines = [
            (f"event: {event['type']}\n" if named else "") + f"data: {json.dumps(event)}\n\n"
            for event in events
        ]
        if not named:
            lines.append("data: [DONE]\n\n")
        self.bodies.append(("text/event-stream", "".join(lines)))

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._http.shutdown()
        self._http.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        bodies = self.bodies

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["Content-Length"]))
                kind, body = bodies.pop(0)
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                del format, args

        return Handler


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


def model_for(
    api: Api, client: openai.AsyncOpenAI
) -> OpenAIResponsesModel | OpenAIChatCompletionsModel:
    if api == "responses":
        return OpenAIResponsesModel("gpt-4.1", client)
    return OpenAIChatCompletionsModel("gpt-4.1", client)


async def events_of(model: Any, request: ModelRequest = REQUEST) -> list[StreamEvent]:
    async with aclosing(model.stream_response(request)) as stream:
        return [event async for event in stream]


def done(events: list[StreamEvent]) -> ModelResponse:
    last = events[-1]
    assert isinstance(last, ResponseDone)
    return last.response


def pieces(events: list[StreamEvent]) -> list[tuple[str, str, str]]:
    return [
        (event.call_id, event.tool_name, event.delta)
        for event in events
        if isinstance(event, ToolCallArgumentsDelta)
    ]


def arguments_by_call(response: ModelResponse) -> dict[str, str]:
    return {
        item["call_id"]: item["arguments"]
        for item in response.output
        if item.get("type") == "function_call"
    }


def joined(events: list[StreamEvent]) -> dict[str, str]:
    result: dict[str, str] = {}
    for call_id, _, delta in pieces(events):
        result[call_id] = result.get(call_id, "") + delta
    return result


async def answer(api: Api, mode: Mode, client: openai.AsyncOpenAI) -> ModelResponse:
    model = model_for(api, client)
    if mode == "whole":
        return await model.get_response(REQUEST)
    return done(await events_of(model))


# ---------------------------------------------------------------- bodies, by API


def responses_body(
    output: list[Json], usage: Json | None, model: str | None = SNAPSHOT, status: str = "completed"
) -> Json:
    body: Json = {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "status": status,
        "output": output,
        "usage": usage,
        "error": None,
        "incomplete_details": None,
    }
    if model is not None:
        body["model"] = model
    return body


def responses_events(
    output: list[Json], usage: Json | None, model: str | None = SNAPSHOT
) -> list[Json]:
    """A realistic stream: each item added, its text or arguments in pieces, done."""
    events: list[Json] = [
        {"type": "response.created", "response": responses_body([], None, model, "in_progress")}
    ]
    for index, item in enumerate(output):
        events.extend(responses_item_events(index, item))
    events.append({"type": "response.completed", "response": responses_body(output, usage, model)})
    return [{**event, "sequence_number": n} for n, event in enumerate(events)]


def responses_item_events(index: int, item: Json) -> list[Json]:
    started = {**item, "status": "in_progress"}
    if item["type"] == "function_call":
        started["arguments"] = ""
    events: list[Json] = [
        {"type": "response.output_item.added", "output_index": index, "item": started}
    ]
    if item["type"] == "function_call":
        events.extend(argument_delta(item["id"], index, part) for part in split(item["arguments"]))
    elif item["type"] == "message":
        text = item["content"][0]["text"]
        events.append(
            {
                "type": "response.output_text.delta",
                "item_id": item["id"],
                "output_index": index,
                "content_index": 0,
                "delta": text,
                "logprobs": [],
            }
        )
    events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    return events


def argument_delta(item_id: str | None, index: int | None, delta: str) -> Json:
    event: Json = {"type": "response.function_call_arguments.delta", "delta": delta}
    if item_id is not None:
        event["item_id"] = item_id
    if index is not None:
        event["output_index"] = index
    return event


def split(text: str, size: int = 5) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def message_item(text: str) -> Json:
    return {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def function_call_item(call_id: str, name: str, arguments: str) -> Json:
    return {
        "type": "function_call",
        "id": f"fc_{call_id}",
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "status": "completed",
    }


def chat_body(message: Json, usage: Json | None, model: str | None = SNAPSHOT) -> Json:
    body: Json = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": usage,
    }
    if model is not None:
        body["model"] = model
    return body


def chunk(
    delta: Json | None = None,
    finish: str | None = None,
    *,
    model: str | None = SNAPSHOT,
    usage: Json | None = None,
    choices: bool = True,
) -> Json:
    body: Json = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0}
    if model is not None:
        body["model"] = model
    body["choices"] = [{"index": 0, "delta": delta, "finish_reason": finish}] if choices else []
    if usage is not None:
        body["usage"] = usage
    return body


def call_head(index: int, call_id: str, name: str, arguments: str = "") -> Json:
    return {
        "tool_calls": [
            {
                "index": index,
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": arguments},
            }
        ]
    }


def call_piece(index: int, arguments: Any) -> Json:
    return {"tool_calls": [{"index": index, "function": {"arguments": arguments}}]}


def chat_chunks(text: str, usage: Json | None, model: str | None = SNAPSHOT) -> list[Json]:
    return [
        chunk({"role": "assistant", "content": ""}, model=model),
        chunk({"content": text}, model=model),
        chunk({}, "stop", model=model),
        chunk(model=model, usage=usage, choices=False),
    ]


def script(
    server: CannedServer, api: Api, mode: Mode, usage: Json | None, model: str | None
) -> None:
    """A text answer "Sunny." with this usage and model name, as the API and mode send it."""
    if api == "responses":
        output = [message_item("Sunny.")]
        if mode == "whole":
            server.json(responses_body(output, usage, model))
        else:
            server.events(responses_events(output, usage, model))
    elif mode == "whole":
        server.json(chat_body({"role": "assistant", "content": "Sunny."}, usage, model))
    else:
        server.events(chat_chunks("Sunny.", usage, model), named=False)


# ---------------------------------------------------------------- usage you can bill

BILLED = Usage(
    requests=1,
    input_tokens=1200,
    output_tokens=300,
    total_tokens=1500,
    input_tokens_details=InputTokensDetails(cached_tokens=1024),
    output_tokens_details=OutputTokensDetails(reasoning_tokens=256),
)
NO_DETAILS = Usage(requests=1, input_tokens=1200, output_tokens=300, total_tokens=1500)
COUNTS = {
    "responses": ("input_tokens", "output_tokens"),
    "chat": ("prompt_tokens", "completion_tokens"),
}
DETAILS = {
    "responses": ("input_tokens_details", "output_tokens_details"),
    "chat": ("prompt_tokens_details", "completion_tokens_details"),
}


def usage_json(api: Api, details: Literal["present", "missing", "null", "null counts"]) -> Json:
    sent, produced = COUNTS[api]
    usage: Json = {sent: 1200, produced: 300, "total_tokens": 1500}
    input_details, output_details = DETAILS[api]
    if details == "present":
        usage[input_details] = {"cached_tokens": 1024, "audio_tokens": 0}
        usage[output_details] = {"reasoning_tokens": 256, "audio_tokens": 0}
    elif details == "null":
        usage[input_details] = usage[output_details] = None
    elif details == "null counts":
        usage[input_details] = {"cached_tokens": None}
        usage[output_details] = {"reasoning_tokens": None}
    return usage


@pytest.mark.parametrize("mode", ["whole", "streamed"])
@pytest.mark.parametrize("api", ["responses", "chat"])
@pytest.mark.parametrize(
    ("details", "expected"),
    [
        ("present", BILLED),
        ("missing", NO_DETAILS),
        ("null", NO_DETAILS),
        ("null counts", NO_DETAILS),
    ],
)
async def test_cached_and_reasoning_tokens_are_read_and_default_to_zero(
    server: CannedServer,
    client: openai.AsyncOpenAI,
    api: Api,
    mode: Mode,
    details: Literal["present", "missing", "null", "null counts"],
    expected: Usage,
) -> None:
    script(server, api, mode, usage_json(api, details), SNAPSHOT)

    response = await answer(api, mode, client)

    assert response.usage == expected
    assert response.usage.cached_input_tokens == expected.input_tokens_details.cached_tokens
    assert response.usage.reasoning_tokens == expected.output_tokens_details.reasoning_tokens


@pytest.mark.parametrize("mode", ["whole", "streamed"])
@pytest.mark.parametrize("api", ["responses", "chat"])
async def test_a_server_without_usage_or_totals_counts_what_it_sent(
    server: CannedServer, client: openai.AsyncOpenAI, api: Api, mode: Mode
) -> None:
    sent, produced = COUNTS[api]
    script(server, api, mode, None, SNAPSHOT)
    script(server, api, mode, {sent: 7, produced: None}, SNAPSHOT)  # no total, a null count

    assert (await answer(api, mode, client)).usage == Usage(requests=1)
    assert (await answer(api, mode, client)).usage == Usage(
        requests=1, input_tokens=7, output_tokens=0, total_tokens=7
    )


@pytest.mark.parametrize("mode", ["whole", "streamed"])
@pytest.mark.parametrize("api", ["responses", "chat"])
async def test_counts_that_are_not_whole_numbers_count_zero(
    server: CannedServer, client: openai.AsyncOpenAI, api: Api, mode: Mode
) -> None:
    sent, produced = COUNTS[api]
    input_details, output_details = DETAILS[api]
    usage: Json = {sent: "12", produced: 3, "total_tokens": 3, input_details: 5, output_details: []}
    script(server, api, mode, usage, SNAPSHOT)

    assert (await answer(api, mode, client)).usage == Usage(
        requests=1, input_tokens=0, output_tokens=3, total_tokens=3
    )


# ---------------------------------------------------------------- the model's name


@pytest.mark.parametrize("mode", ["whole", "streamed"])
@pytest.mark.parametrize("api", ["responses", "chat"])
@pytest.mark.parametrize(("sent", "expected"), [(SNAPSHOT, SNAPSHOT), (None, None), ("", None)])
async def test_the_model_name_is_the_one_the_api_reports(
    server: CannedServer,
    client: openai.AsyncOpenAI,
    api: Api,
    mode: Mode,
    sent: str | None,
    expected: str | None,
) -> None:
    script(server, api, mode, usage_json(api, "present"), sent)

    assert (await answer(api, mode, client)).model == expected


async def test_a_streamed_chat_reply_takes_the_first_model_name_it_is_given(
    server: CannedServer, client: openai.AsyncOpenAI
) -> None:
    # Azure's first chunk (prompt filter results) has an empty model; the others name it.
    chunks = chat_chunks("Sunny.", None)
    server.events([chunk(choices=False, model=""), *chunks], named=False)

    assert done(await events_of(model_for("chat", client))).model == SNAPSHOT


# ---------------------------------------------------------------- plain and streamed agree


@pytest.mark.parametrize("api", ["responses", "chat"])
async def test_plain_and_streamed_give_the_same_response(
    server: CannedServer, client: openai.AsyncOpenAI, api: Api
) -> None:
    calls = [("call_a", "weather", '{"city": "Paris"}'), ("call_b", "time", '{"zone": "CET"}')]
    usage = usage_json(api, "present")
    if api == "responses":
        output = [message_item("Checking."), *(function_call_item(*call) for call in calls)]
        server.json(responses_body(output, usage))
        server.events(responses_events(output, usage))
    else:
        tool_calls = [
            {"id": i, "type": "function", "function": {"name": n, "arguments": a}}
            for i, n, a in calls
        ]
        message = {"role": "assistant", "content": "Checking.", "tool_calls": tool_calls}
        server.json(chat_body(message, usage))
        server.events(
            [
                chunk({"role": "assistant", "content": "Checking."}),
                *(chunk(call_head(i, call_id, name)) for i, (call_id, name, _) in enumerate(calls)),
                *(
                    chunk(call_piece(i, part))
                    for i, call in enumerate(calls)
                    for part in split(call[2])
                ),
                chunk({}, "stop"),
                chunk(usage=usage, choices=False),
            ],
            named=False,
        )
    model = model_for(api, client)

    whole = await model.get_response(REQUEST)
    events = await events_of(model)

    assert done(events) == whole
    assert whole.model == SNAPSHOT
    assert whole.usage == BILLED
    assert joined(events) == arguments_by_call(whole) == {c: a for c, _, a in calls}


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
            chunk(usage=usage_json("chat", "present"), choices=False),
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
    assert done(events).usage == BILLED


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


def pieces_index(events: list[StreamEvent]) -> int:
    return next(i for i, event in enumerate(events) if isinstance(event, ToolCallArgumentsDelta))
