"""An OpenAI-compatible HTTP server on 127.0.0.1 that plays scripted turns.

It serves `/v1/responses` and `/v1/chat/completions`, plain and streamed
(server-sent events), so the tests drive the real `openai` client over real
HTTP. Each request takes the next scripted `Turn` and is recorded, body and
all, for the test to inspect.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from openai import AsyncOpenAI

USAGE_RESPONSES = {
    "input_tokens": 10,
    "output_tokens": 5,
    "total_tokens": 15,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens_details": {"reasoning_tokens": 0},
}
USAGE_CHAT = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


@dataclass
class Call:
    """A tool call in a scripted turn."""

    name: str
    arguments: str = "{}"
    call_id: str = ""


@dataclass
class Turn:
    """What the scripted model answers to one request."""

    text: str | None = None
    calls: list[Call] = field(default_factory=list[Call])
    status: int = 200
    items: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    """More Responses output items, as they are (hosted tool calls, ...)."""


class ScriptedServer:
    """The server, its script, and the requests it received."""

    def __init__(self) -> None:
        self.turns: list[Turn] = []
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(
            target=self._http.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._http.server_address[1]}/v1"

    def client(self) -> AsyncOpenAI:
        return AsyncOpenAI(base_url=self.base_url, api_key="test-key", max_retries=0)

    def script(self, *turns: Turn) -> None:
        self.turns.extend(turns)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._http.shutdown()
        self._http.server_close()

    def _next(self, path: str, body: dict[str, Any]) -> Turn:
        with self._lock:
            self.requests.append({"path": path, "body": body})
            return self.turns.pop(0) if self.turns else Turn(text="(no more turns scripted)")

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                turn = server._next(self.path, body)  # pyright: ignore[reportPrivateUsage]
                if turn.status != 200:
                    self._send_json({"error": {"message": "scripted failure"}}, turn.status)
                elif self.path.endswith("/responses"):
                    events = responses_events(body, turn)
                    self._send(body, events) if body.get("stream") else self._send_json(
                        responses_body(body, turn)
                    )
                else:
                    chunks = chat_chunks(body, turn)
                    self._send(body, chunks) if body.get("stream") else self._send_json(
                        chat_body(body, turn)
                    )

            def _send_json(self, payload: dict[str, Any], status: int = 200) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _send(self, body: dict[str, Any], events: Iterator[str]) -> None:
                del body
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for event in events:
                    self.wfile.write(event.encode())
                    self.wfile.flush()

            def log_message(self, format: str, *args: Any) -> None:
                del format, args  # keep test output quiet

        return Handler


def _calls(turn: Turn) -> list[Call]:
    return [
        Call(call.name, call.arguments, call.call_id or f"call_{index}")
        for index, call in enumerate(turn.calls, 1)
    ]


def responses_output(turn: Turn) -> list[dict[str, Any]]:
    output: list[dict[str, Any]] = list(turn.items)
    if turn.text is not None:
        output.append(
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": turn.text, "annotations": []}],
            }
        )
    output.extend(
        {
            "type": "function_call",
            "id": f"fc_{call.call_id}",
            "call_id": call.call_id,
            "name": call.name,
            "arguments": call.arguments,
            "status": "completed",
        }
        for call in _calls(turn)
    )
    return output


def responses_body(body: dict[str, Any], turn: Turn, status: str = "completed") -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "model": body.get("model", "test"),
        "status": status,
        "output": responses_output(turn) if status == "completed" else [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": USAGE_RESPONSES,
    }


def _sse(event: dict[str, Any]) -> str:
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n"


def responses_events(body: dict[str, Any], turn: Turn) -> Iterator[str]:
    sequence = iter(range(1000))
    created = {"type": "response.created", "response": responses_body(body, turn, "in_progress")}
    yield _sse({**created, "sequence_number": next(sequence)})
    for index, item in enumerate(responses_output(turn)):
        started = {**item, "status": "in_progress"}
        yield _sse(
            {
                "type": "response.output_item.added",
                "output_index": index,
                "item": started,
                "sequence_number": next(sequence),
            }
        )
        if item["type"] == "message":
            yield _sse(
                {
                    "type": "response.output_text.delta",
                    "item_id": item["id"],
                    "output_index": index,
                    "content_index": 0,
                    "delta": item["content"][0]["text"],
                    "logprobs": [],
                    "sequence_number": next(sequence),
                }
            )
        else:
            yield _sse(
                {
                    "type": "response.function_call_arguments.delta",
                    "item_id": item["id"],
                    "output_index": index,
                    "delta": item["arguments"],
                    "sequence_number": next(sequence),
                }
            )
        yield _sse(
            {
                "type": "response.output_item.done",
                "output_index": index,
                "item": item,
                "sequence_number": next(sequence),
            }
        )
    completed = {"type": "response.completed", "response": responses_body(body, turn)}
    yield _sse({**completed, "sequence_number": next(sequence)})


def chat_body(body: dict[str, Any], turn: Turn) -> dict[str, Any]:
    calls = [
        {
            "id": c.call_id,
            "type": "function",
            "function": {"name": c.name, "arguments": c.arguments},
        }
        for c in _calls(turn)
    ]
    message: dict[str, Any] = {"role": "assistant", "content": turn.text}
    if calls:
        message["tool_calls"] = calls
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "test"),
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
        ],
        "usage": USAGE_CHAT,
    }


def chat_chunks(body: dict[str, Any], turn: Turn) -> Iterator[str]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        payload = {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": body.get("model", "test"),
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return f"data: {json.dumps(payload)}\n\n"

    yield chunk({"role": "assistant", "content": ""})
    if turn.text:
        half = len(turn.text) // 2
        yield chunk({"content": turn.text[:half]})
        yield chunk({"content": turn.text[half:]})
    for index, call in enumerate(_calls(turn)):
        head = {
            "index": index,
            "id": call.call_id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        yield chunk({"tool_calls": [head]})
        yield chunk({"tool_calls": [{"index": index, "function": {"arguments": call.arguments}}]})
    yield chunk({}, "tool_calls" if turn.calls else "stop")
    usage: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": body.get("model", "test"),
        "choices": [],
        "usage": USAGE_CHAT,
    }
    yield f"data: {json.dumps(usage)}\n\n"
    yield "data: [DONE]\n\n"


def sent_tool_outputs(body: dict[str, Any]) -> dict[str, str]:
    """The tool outputs a request carried, by call id, whichever API it went to."""
    if "input" in body:
        return {
            item["call_id"]: item["output"]
            for item in body["input"]
            if item.get("type") == "function_call_output"
        }
    return {m["tool_call_id"]: m["content"] for m in body["messages"] if m["role"] == "tool"}


def sent_call_ids(body: dict[str, Any]) -> list[str]:
    """The ids of the function calls a request carried, whichever API it went to."""
    if "input" in body:
        return [item["call_id"] for item in body["input"] if item.get("type") == "function_call"]
    return [
        call["id"]
        for message in body["messages"]
        if message["role"] == "assistant"
        for call in message.get("tool_calls", [])
    ]
