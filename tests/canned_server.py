"""A server of handwritten answers, for tests of what the OpenAI models read.

`CannedServer` answers each request with the next body a test gave it (JSON, or
server-sent events), so that the real `openai` client parses exactly what a
server sent; the helpers below write those bodies in each API's shapes, and
read what a model made of them.
"""

from __future__ import annotations

import json
import threading
from contextlib import aclosing
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

import openai

from tooluse.models import (
    ModelRequest,
    ModelResponse,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    ResponseDone,
    StreamEvent,
    ToolCallArgumentsDelta,
)

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


def pieces_index(events: list[StreamEvent]) -> int:
    return next(i for i, event in enumerate(events) if isinstance(event, ToolCallArgumentsDelta))
