"""An OpenAI-compatible HTTP server on 127.0.0.1 that plays scripted turns.

It serves `/v1/responses` and `/v1/chat/completions`, plain and streamed
(server-sent events), so the tests drive the real `openai` client over real
HTTP. Each request takes the next scripted `Turn` and is recorded, body and
all, for the test to inspect. Besides ordinary answers, a turn can script each
way a real answer ends badly: incomplete, failed, an error event mid-stream, a
stream cut short, bytes that are not JSON at all, an HTTP error with the headers
a server sends with it (`Retry-After`), or no answer at all (a dropped connection).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import json
import os
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

from openai import AsyncOpenAI, DefaultAsyncHttpxClient

from tooluse import OpenAIChatCompletionsModel, OpenAIResponsesModel
from tooluse.models import Model

USAGE_RESPONSES = {
    "input_tokens": 10,
    "output_tokens": 5,
    "total_tokens": 15,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens_details": {"reasoning_tokens": 0},
}
USAGE_CHAT = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
# The Chat Completions finish_reason for each Responses incomplete reason.
CHAT_FINISH = {"max_output_tokens": "length", "content_filter": "content_filter"}


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
    incomplete: str | None = None
    """The model stopped short for this reason (`max_output_tokens`, `content_filter`):
    Responses status "incomplete", streamed as `response.incomplete`; Chat finish_reason
    from `CHAT_FINISH`."""
    failed: tuple[str, str] | None = None
    """Responses only: the response failed with this (code, message), streamed as
    `response.failed`."""
    finish_reason: str | None = None
    """Chat only: the finish_reason to send instead of the one the turn implies."""
    error_event: tuple[str, str] | None = None
    """Streams only: an error event with this (code, message) in place of the terminal
    event, in the API's own shape (a Responses `error` event, a Chat `error` chunk)."""
    ends_early: bool = False
    """Streams only: stop before the terminal event (Responses) or the finishing chunk
    (Chat), as a dropped connection would."""
    raw_body: str | None = None
    """A whole answer of exactly this text, sent as a 200 JSON response."""
    raw_events: list[str] | None = None
    """A streamed answer of exactly these texts, written as they are (end each with a
    blank line, as server-sent events do)."""
    headers: dict[str, str] = field(default_factory=dict[str, str])
    """Headers added to the answer, e.g. `{"Retry-After": "1"}` with `status=429`."""
    drop: bool = False
    """Close the connection without answering, as a server that goes away does."""
    cut: bool = False
    """Streams on a kept-alive connection only: close it after the events, without the
    chunked body's last chunk, as a connection cut mid-stream is (with `ends_early`)."""
    linger: float = 0.0
    """Streams only: seconds to keep the stream open after its last event before ending it."""
    usage: dict[str, Any] | None = None
    """Responses only: the `usage` to report instead of `USAGE_RESPONSES` (a server that
    counts each request's tokens, say)."""


class _Server(ThreadingHTTPServer):
    request_queue_size = 512  # the listen backlog: tests open hundreds of connections at once
    daemon_threads = True


_TLS = ssl.create_default_context()
"""One TLS context for every test client: each new client would load the machine's CA
certificates again (0.1 to 0.2 s, most of a test against this plain-HTTP server)."""


class _ClosingHttpClient(DefaultAsyncHttpxClient):
    """openai's default HTTP client, closed when dropped in a running loop, as openai's own."""

    def __del__(self) -> None:
        if not self.is_closed:
            with contextlib.suppress(RuntimeError):  # no running loop: nothing to schedule on
                asyncio.get_running_loop().create_task(self.aclose())


class ScriptedServer:
    """The server, its script, and the requests it received."""

    def __init__(
        self, reply: Callable[[dict[str, Any]], Turn] | None = None, *, keep_alive: bool = False
    ) -> None:
        """A server on a free port, not yet started.

        Args:
            reply: Chooses each answer from the request's body, in place of the script;
                nothing is recorded (a benchmark's server answers any number of runs).
            keep_alive: Speak HTTP/1.1 and keep connections open between requests, as
                real APIs do (streams are sent chunked); by default each answer closes
                its connection (HTTP/1.0).
        """
        self.turns: list[Turn] = []
        self.requests: list[dict[str, Any]] = []
        self.refused: list[str] = []
        self.compact_status = 200
        """The status `POST /v1/responses/compact` answers; an error body when not 200."""
        """The messages of the requests refused as the real API refuses them (`refusal`)."""
        self._reply = reply
        self._lock = threading.Lock()
        self._http = _Server(("127.0.0.1", 0), self._handler(keep_alive))
        self._thread = threading.Thread(
            target=self._http.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._http.server_address[1]}/v1"

    def model(self, api: str) -> Model:
        """A model calling this server: `"responses"` or `"chat"` (Chat Completions)."""
        if api == "responses":
            return OpenAIResponsesModel("test-model", self.client())
        return OpenAIChatCompletionsModel("test-model", self.client())

    def client(self) -> AsyncOpenAI:
        http_client = _ClosingHttpClient(verify=_TLS)
        return AsyncOpenAI(
            base_url=self.base_url, api_key="test-key", max_retries=0, http_client=http_client
        )

    def script(self, *turns: Turn) -> None:
        self.turns.extend(turns)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._http.shutdown()
        self._http.server_close()

    def _next(
        self, path: str, body: dict[str, Any], headers: dict[str, str], client: tuple[str, int]
    ) -> Turn:
        if self._reply is not None:
            return self._reply(body)
        with self._lock:
            # `client`: the connection's (host, port), the same for requests sharing one.
            self.requests.append({"path": path, "body": body, "headers": headers, "client": client})
            return self.turns.pop(0) if self.turns else Turn(text="(no more turns scripted)")

    def compact(
        self, path: str, body: dict[str, Any], headers: dict[str, str], client: tuple[str, int]
    ) -> dict[str, Any]:
        """Answer `POST /v1/responses/compact` (recorded like any request, scripted or not)."""
        if self._reply is None:
            with self._lock:
                self.requests.append(
                    {"path": path, "body": body, "headers": headers, "client": client}
                )
        return compacted_body(body)

    def _handler(self, keep_alive: bool) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            extra_headers: dict[str, str]  # the turn's, set for each request
            protocol_version = "HTTP/1.1" if keep_alive else "HTTP/1.0"
            # Headers and body go out in separate writes: with Nagle's algorithm on, a kept-
            # alive connection waits for the client's delayed ACK (40 ms) before the body.
            disable_nagle_algorithm = keep_alive

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                headers = {name.lower(): value for name, value in self.headers.items()}
                if urlsplit(self.path).path.endswith("/responses/compact"):
                    self.extra_headers = {}
                    answer = server.compact(self.path, body, headers, self.client_address)
                    if server.compact_status != 200:
                        answer = {"error": {"message": "scripted failure", "type": "invalid"}}
                    self._send_json(answer, server.compact_status)
                    return
                refused = refusal(urlsplit(self.path).path, body)
                if refused is not None:  # as the real API: a 400, and no turn played
                    server.refused.append(refused)
                    self.extra_headers = {}
                    error = {"message": refused, "type": "invalid_request_error"}
                    self._send_json({"error": error}, 400)
                    return
                turn = server._next(self.path, body, headers, self.client_address)  # pyright: ignore[reportPrivateUsage]
                self.extra_headers = turn.headers
                if turn.drop:
                    self.close_connection = True  # nothing written: the client sees EOF
                elif turn.status != 200:
                    self._send_json({"error": {"message": "scripted failure"}}, turn.status)
                elif turn.raw_body is not None:
                    self._send_bytes(turn.raw_body.encode())
                elif turn.raw_events is not None:
                    self._send(turn, iter(turn.raw_events))
                elif urlsplit(self.path).path.endswith("/responses"):
                    events = responses_events(body, turn)
                    self._send(turn, events) if body.get("stream") else self._send_json(
                        responses_body(body, turn)
                    )
                else:
                    chunks = chat_chunks(body, turn)
                    self._send(turn, chunks) if body.get("stream") else self._send_json(
                        chat_body(body, turn)
                    )

            def _send_json(self, payload: dict[str, Any], status: int = 200) -> None:
                self._send_bytes(json.dumps(payload).encode(), status)

            def _send_bytes(self, data: bytes, status: int = 200) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self._end_headers()
                self.wfile.write(data)

            def _send(self, turn: Turn, events: Iterator[str]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                if keep_alive:  # the stream's end can no longer be the connection's
                    self.send_header("Transfer-Encoding", "chunked")
                self._end_headers()
                for event in events:
                    data = event.encode()
                    if keep_alive:
                        data = b"%x\r\n%s\r\n" % (len(data), data)
                    self.wfile.write(data)
                    self.wfile.flush()
                time.sleep(turn.linger)
                if turn.cut:
                    self.close_connection = True  # the body never ends: a protocol error
                    return
                if keep_alive:
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()

            def _end_headers(self) -> None:
                for name, value in self.extra_headers.items():
                    self.send_header(name, value)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                del format, args  # keep test output quiet

        return Handler


_SHELL_ENVIRONMENTS = ("local", "container_auto", "container_reference")


def refusal(path: str, body: dict[str, Any]) -> str | None:
    """Why the real API would refuse this request's shell tool, shell or MCP items, or None.

    Only what the API is known to refuse is checked: the `shell` tool's param, that every
    `shell_call` in the input has a well-formed `shell_call_output` (and every output a
    call), and the form of `mcp_approval_response` items (their published schema).
    """
    tools: list[dict[str, Any]] = body.get("tools") or []
    if not path.endswith("/responses"):
        shells = [tool for tool in tools if tool.get("type") == "shell"]
        return (
            "Invalid value: 'shell'. Supported values are: 'function' and 'custom'."
            if shells
            else None
        )
    for tool in tools:
        environment = tool.get("environment") or {"type": "local"}
        if tool.get("type") == "shell" and environment.get("type") not in _SHELL_ENVIRONMENTS:
            return f"Invalid value for tools[].environment.type: {environment.get('type')!r}"
    given: Any = body.get("input")
    if not isinstance(given, list):
        return None
    items = cast(list[dict[str, Any]], given)
    return _shell_items_refusal(items) or _mcp_answers_refusal(items)


_MCP_ANSWER_FIELDS = {
    "type": str,
    "id": str,
    "approval_request_id": str,
    "approve": bool,
    "reason": str,
}
_OPTIONAL = ("id", "reason")


def _mcp_answers_refusal(items: list[dict[str, Any]]) -> str | None:
    """A malformed `mcp_approval_response`, worded as the API words a 400.

    The API validates input items against their schema (openai's `McpApprovalResponse`:
    `approval_request_id` and `approve` required, `id` and `reason` optional, nothing
    else), as for every item. Whether the id names a request the conversation holds is not
    judged: a `previous_response_id` can hold the request where this body does not.
    """
    for index, item in enumerate(items):
        if item.get("type") != "mcp_approval_response":
            continue
        where = f"input[{index}]"
        for name in ("approval_request_id", "approve"):
            if name not in item:
                return f"Missing required parameter: '{where}.{name}'."
        for name, value in item.items():
            expected = _MCP_ANSWER_FIELDS.get(name)
            if expected is None:
                return f"Unknown parameter: '{where}.{name}'."
            if not isinstance(value, expected) and not (name in _OPTIONAL and value is None):
                return f"Invalid type for '{where}.{name}'."
    return None


def _shell_items_refusal(items: list[dict[str, Any]]) -> str | None:
    calls: list[str] = []
    answered: set[str] = set()
    for index, item in enumerate(items):
        if not isinstance(item.get("call_id"), str):
            continue  # only calls and outputs the run made are judged here
        if item.get("type") == "shell_call":
            calls.append(item.get("call_id", ""))
        elif item.get("type") == "shell_call_output":
            if item.get("call_id") not in calls:
                return (
                    f"No tool call found for shell call output with call_id {item.get('call_id')}."
                )
            answered.add(item["call_id"])
            problem = _shell_output_problem(item.get("output"))
            if problem:
                return f"Invalid 'input[{index}].output': {problem}"
    waiting = [call_id for call_id in calls if call_id not in answered]
    return f"No tool output found for shell call {waiting[0]}." if waiting else None


def _shell_output_problem(output: Any) -> str | None:
    if not isinstance(output, list):
        return "expected an array of output chunks"
    entries = cast(list[Any], output)
    for entry in entries:
        if not isinstance(entry, dict) or set(cast(dict[str, Any], entry)) != {
            "stdout",
            "stderr",
            "outcome",
        }:
            return "each chunk has exactly stdout, stderr and outcome"
        if not isinstance(entry["stdout"], str) or not isinstance(entry["stderr"], str):
            return "stdout and stderr are strings"
        given = cast(object, entry["outcome"])
        outcome = cast(dict[str, Any], given) if isinstance(given, dict) else {}
        exited = outcome == {"type": "exit", "exit_code": outcome.get("exit_code")} and isinstance(
            outcome.get("exit_code"), int
        )
        if not exited and outcome != {"type": "timeout"}:
            return "outcome is {'type': 'exit', 'exit_code': <int>} or {'type': 'timeout'}"
    return None


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
                "status": "incomplete" if turn.incomplete else "completed",  # cut off
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


def responses_status(turn: Turn) -> str:
    """The status a turn's whole Responses answer ends with."""
    if turn.failed is not None:
        return "failed"
    return "incomplete" if turn.incomplete is not None else "completed"


def responses_body(
    body: dict[str, Any], turn: Turn, *, in_progress: bool = False
) -> dict[str, Any]:
    """The Responses object for a turn: as it ends, or as it starts (no output yet)."""
    response: dict[str, Any] = {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "model": body.get("model", "test"),
        "status": "in_progress" if in_progress else responses_status(turn),
        "output": [] if in_progress else responses_output(turn),
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": None if in_progress else turn.usage or USAGE_RESPONSES,
        "error": None,
        "incomplete_details": None,
    }
    if not in_progress and turn.failed is not None:
        code, message = turn.failed
        response["error"] = {"code": code, "message": message}
    if not in_progress and turn.incomplete is not None:
        response["incomplete_details"] = {"reason": turn.incomplete}
    return response


def compacted_body(body: dict[str, Any]) -> dict[str, Any]:
    """What `POST /v1/responses/compact` answers, in the API's shape (`CompactedResponse`).

    The input's user messages, then one `compaction` item whose `encrypted_content` is,
    here, a digest of the compacted input in base64 (opaque to the client, and short, as
    the real one is); usage counts a token a quarter of the input's JSON.
    """
    given: Any = body.get("input") or []
    items: list[Any] = [{"role": "user", "content": given}] if isinstance(given, str) else given
    users = [
        {
            "type": "message",
            "id": f"msg_user_{index}",
            "role": "user",
            "status": "completed",
            "content": [{"type": "input_text", "text": _text_of(item.get("content"))}],
        }
        for index, item in enumerate(items)
        if item.get("role") == "user"
    ]
    digest = hashlib.sha256(json.dumps(items).encode()).hexdigest()
    sealed = base64.b64encode(f"{len(items)} items, {digest}".encode()).decode()
    compaction = {"type": "compaction", "id": "cmp_1", "encrypted_content": sealed}
    tokens = -(-len(json.dumps(given)) // 4)
    usage = {**USAGE_RESPONSES, "input_tokens": tokens, "total_tokens": tokens + 5}
    return {
        "id": "resp_compact_1",
        "object": "response.compaction",
        "created_at": 0,
        "output": [*users, compaction],
        "usage": usage,
    }


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts: list[Any] = content if isinstance(content, list) else []  # pyright: ignore[reportUnknownVariableType]
    texts: list[str] = [str(part.get("text", "")) for part in parts]
    return "".join(texts)


def sse(event: dict[str, Any]) -> str:
    """A Responses event as a server-sent event."""
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n"


def responses_events(body: dict[str, Any], turn: Turn) -> Iterator[str]:
    sequence = iter(range(1000))
    created = {
        "type": "response.created",
        "response": responses_body(body, turn, in_progress=True),
    }
    yield sse({**created, "sequence_number": next(sequence)})
    for index, item in enumerate(responses_output(turn)):
        started = {**item, "status": "in_progress"}
        yield sse(
            {
                "type": "response.output_item.added",
                "output_index": index,
                "item": started,
                "sequence_number": next(sequence),
            }
        )
        if item["type"] == "message":
            yield sse(
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
        elif item["type"] == "shell_call":
            yield from _shell_command_events(index, item, sequence)
        elif item["type"] == "function_call":
            yield sse(
                {
                    "type": "response.function_call_arguments.delta",
                    "item_id": item["id"],
                    "output_index": index,
                    "delta": item["arguments"],
                    "sequence_number": next(sequence),
                }
            )
        yield sse(
            {
                "type": "response.output_item.done",
                "output_index": index,
                "item": item,
                "sequence_number": next(sequence),
            }
        )
    yield from _responses_end(body, turn, next(sequence))


def _shell_command_events(
    index: int, item: dict[str, Any], sequence: Iterator[int]
) -> Iterator[str]:
    """A shell call's commands as the API streams them: added, one delta, done."""
    for position, command in enumerate(item["action"]["commands"]):
        where = {"output_index": index, "command_index": position}
        yield sse(
            {"type": "response.shell_call_command.added", **where, "command": ""} | _n(sequence)
        )
        delta = {"type": "response.shell_call_command.delta", **where, "delta": command}
        yield sse(delta | _n(sequence))
        yield sse(
            {"type": "response.shell_call_command.done", **where, "command": command} | _n(sequence)
        )


def _n(sequence: Iterator[int]) -> dict[str, int]:
    return {"sequence_number": next(sequence)}


def _responses_end(body: dict[str, Any], turn: Turn, sequence_number: int) -> Iterator[str]:
    """The terminal event (`response.completed`, `.incomplete`, `.failed`), or what replaces it."""
    if turn.error_event is not None:
        code, message = turn.error_event
        error = {"type": "error", "code": code, "message": message, "param": None}
        yield sse({**error, "sequence_number": sequence_number})
    elif not turn.ends_early:
        response = responses_body(body, turn)
        end = {"type": f"response.{response['status']}", "response": response}
        yield sse({**end, "sequence_number": sequence_number})


def chat_finish_reason(turn: Turn) -> str:
    """The finish_reason a turn's Chat answer ends with."""
    if turn.finish_reason is not None:
        return turn.finish_reason
    if turn.incomplete is not None:
        return CHAT_FINISH[turn.incomplete]
    return "tool_calls" if turn.calls else "stop"


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
        "choices": [{"index": 0, "message": message, "finish_reason": chat_finish_reason(turn)}],
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
    if turn.error_event is not None:
        code, message = turn.error_event
        error = {"message": message, "type": code, "param": None, "code": code}
        yield f"data: {json.dumps({'error': error})}\n\n"
        return
    if turn.ends_early:
        return
    yield chunk({}, chat_finish_reason(turn))
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


def open_sockets() -> int:
    """The sockets this process holds open (the client's and the server threads')."""
    assert Path("/proc/self/fd").is_dir(), "counting open sockets needs Linux's /proc"
    return sum(link(fd).startswith("socket:") for fd in Path("/proc/self/fd").iterdir())


def link(fd: Path) -> str:
    try:
        return os.readlink(fd)
    except FileNotFoundError:  # the descriptor listing the directory used, closed since
        return ""
