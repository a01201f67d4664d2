"""A server on 127.0.0.1 that speaks Anthropic's Messages API and plays scripted turns.

It serves `POST /v1/messages`, whole and streamed (the Messages API's server-sent
events: `message_start`, `content_block_start`, `content_block_delta`,
`content_block_stop`, `message_delta`, `message_stop`, `ping`, `error`), so the
tests drive the official `anthropic` client over real HTTP. Each request takes the
next scripted `Turn` and is recorded.

It refuses what the real API refuses, with a 400 in the API's error shape, so that
a conversion bug fails a test: no `max_tokens`; a first message that is not the
user's; two messages of one role in a row; an empty text block; a `tool_use` whose
`input` is not an object; a `tool_result` whose id matches no `tool_use` of the
message before it, or a `tool_use` left without its `tool_result`; a `thinking`
block without its signature, or one changed since it was sent; a tool whose
`input_schema` is not an object schema, or whose name the API does not take.

It compacts as the API does with the beta `context_management` edit
`compact_20260112`, and refuses what the API refuses about it
(`tests/anthropic_compaction.py`).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from anthropic import AsyncAnthropic

from tests.anthropic_compaction import compaction, compaction_refusal, compaction_usage
from tooluse.models import AnthropicModel

TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")


@dataclass
class Use:
    """A tool call (a `tool_use` block) in a scripted turn."""

    name: str
    input: dict[str, Any] = field(default_factory=dict[str, Any])
    id: str = ""


@dataclass
class Turn:
    """What the scripted model answers to one request."""

    text: str | None = None
    uses: list[Use] = field(default_factory=list[Use])
    thinking: str | None = None
    """A thinking block before the rest, signed (the server checks it comes back unchanged)."""
    stop_reason: str | None = None
    """The stop_reason to send instead of the one the turn implies."""
    usage: dict[str, int] = field(default_factory=dict[str, int])
    """Counts added to the usage (e.g. `cache_read_input_tokens`)."""
    status: int = 200
    error_type: str = "api_error"
    """The error body's `error.type` with a status other than 200."""
    headers: dict[str, str] = field(default_factory=dict[str, str])
    error_event: str | None = None
    """Streams only: an `error` event of this type after the first block."""
    ends_early: bool = False
    """Streams only: stop before `message_stop`, as a dropped connection would."""
    piece_size: int = 4
    """Streams only: the characters of text or of arguments each delta carries."""


def signature(thinking: str) -> str:
    """The signature the server gives a thinking block (and expects back with it)."""
    return f"sig-{abs(hash(thinking)) % 10**8}"


class AnthropicServer:
    """The server, its script, and the requests it received."""

    def __init__(self, reply: Callable[[dict[str, Any]], Turn] | None = None) -> None:
        """A server on a free port, not yet started.

        Args:
            reply: Chooses each answer from the request's body, in place of the script
                (`tool_user`, for the docs); nothing is recorded then.
        """
        self._reply = reply
        self.turns: list[Turn] = []
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._http.daemon_threads = True
        self._thread = threading.Thread(
            target=self._http.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._http.server_address[1]}"

    def client(self) -> AsyncAnthropic:
        return AsyncAnthropic(base_url=self.base_url, api_key="test-key", max_retries=0)

    def model(self, **options: Any) -> AnthropicModel:
        return AnthropicModel("claude-test", self.client(), **options)

    def script(self, *turns: Turn) -> None:
        self.turns.extend(turns)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._http.shutdown()
        self._http.server_close()

    def next_turn(self, body: dict[str, Any], headers: dict[str, str]) -> Turn:
        """The answer to a request the server does not refuse (a subclass may choose it)."""
        if self._reply is not None:
            return self._reply(body)
        with self._lock:
            self.requests.append({"body": body, "headers": headers})
            return self.turns.pop(0) if self.turns else Turn(text="(no more turns scripted)")

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                headers = {name.lower(): value for name, value in self.headers.items()}
                if not self.path.startswith("/v1/messages"):
                    self._send_json(_error("not_found_error", self.path), 404)
                    return
                refused = refusal(body) or compaction_refusal(body, headers)
                if refused is None and body.get("stream") and body.get("context_management"):
                    refused = "this test server streams no compaction"
                if refused is not None:
                    server.requests.append({"body": body, "headers": headers, "refused": refused})
                    self._send_json(_error("invalid_request_error", refused), 400)
                    return
                compacted = compaction(body)
                if compacted is not None and compacted[1]:  # paused: the block alone
                    server.requests.append({"body": body, "headers": headers, "compacted": True})
                    self._send_json(paused_body(body, compacted[0]), 200)
                    return
                turn = server.next_turn(body, headers)
                if turn.status != 200:
                    self._send_json(_error(turn.error_type, "scripted failure"), turn.status, turn)
                elif body.get("stream"):
                    self._stream(body, turn)
                else:
                    answer = message_body(body, turn)
                    if compacted is not None:
                        answer["content"] = [compacted[0], *answer["content"]]
                        answer["usage"].update(compaction_usage(body, compacted[0]))
                    self._send_json(answer, 200, turn)

            def _send_json(self, payload: object, status: int, turn: Turn | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (turn.headers if turn else {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, body: dict[str, Any], turn: Turn) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for event in stream_events(body, turn):
                    self.wfile.write(event.encode())
                    self.wfile.flush()
                time.sleep(0)

            def log_message(self, format: str, *args: Any) -> None:
                del format, args

        return Handler


def _error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def refusal(body: dict[str, Any]) -> str | None:
    """What the real API would refuse in this request, in its words; None if nothing."""
    if not isinstance(body.get("max_tokens"), int):
        return "max_tokens: Field required"
    for index, tool in enumerate(body.get("tools") or []):
        if not TOOL_NAME.match(str(tool.get("name"))):
            return f"tools.{index}.name: String should match pattern '^[a-zA-Z0-9_-]{{1,128}}$'"
        schema: Any = tool.get("input_schema")
        if not isinstance(schema, dict) or schema["type"] != "object":
            return f"tools.{index}.input_schema.type: Input should be 'object'"
    messages: list[dict[str, Any]] = body.get("messages") or []
    if not messages:
        return "messages: at least one message is required"
    if messages[0].get("role") != "user":
        return 'messages: first message must use the "user" role'
    previous_uses: set[str] = set()
    for index, message in enumerate(messages):
        if index and message["role"] == messages[index - 1]["role"]:
            return f'messages.{index}: roles must alternate between "user" and "assistant"'
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        problem = _blocks_problem(index, message["role"], blocks, previous_uses)
        if problem is not None:
            return problem
        previous_uses = {b["id"] for b in blocks if b["type"] == "tool_use"}
    if previous_uses:
        return f"messages.{len(messages) - 1}: tool_use ids were found without tool_result blocks"
    return None


def _blocks_problem(
    index: int, role: str, blocks: list[dict[str, Any]], uses: set[str]
) -> str | None:
    answered = {b.get("tool_use_id") for b in blocks if b["type"] == "tool_result"}
    if uses and role == "user" and uses - answered:
        missing = sorted(uses - answered)
        return (
            f"messages.{index}: tool_use ids were found without tool_result blocks "
            f"immediately after: {', '.join(missing)}"
        )
    for number, block in enumerate(blocks):
        where = f"messages.{index}.content.{number}"
        kind = block["type"]
        if kind == "text" and not block.get("text"):
            return f"{where}: text content blocks must be non-empty"
        if kind == "tool_use" and not isinstance(block.get("input"), dict):
            return f"{where}.input: Input should be a valid dictionary"
        if kind == "tool_result" and block["tool_use_id"] not in uses:
            return (
                f"{where}: unexpected `tool_use_id` found in `tool_result` blocks: "
                f"{block['tool_use_id']}. Each `tool_result` block must have a corresponding "
                "`tool_use` block in the previous message."
            )
        if kind == "thinking" and block.get("signature") != signature(block.get("thinking", "")):
            return f"{where}: Invalid `signature` in `thinking` block"
        if kind in ("thinking", "tool_use", "redacted_thinking") and role != "assistant":
            return f"{where}: {kind} blocks belong to assistant messages"
    return None


def _uses(turn: Turn) -> list[Use]:
    return [Use(u.name, u.input, u.id or f"toolu_{i}") for i, u in enumerate(turn.uses, 1)]


def content(turn: Turn) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if turn.thinking is not None:
        blocks.append(
            {"type": "thinking", "thinking": turn.thinking, "signature": signature(turn.thinking)}
        )
    if turn.text is not None:
        blocks.append({"type": "text", "text": turn.text})
    blocks.extend(
        {"type": "tool_use", "id": u.id, "name": u.name, "input": u.input} for u in _uses(turn)
    )
    return blocks


def stop_reason(turn: Turn) -> str:
    return turn.stop_reason or ("tool_use" if turn.uses else "end_turn")


def usage(turn: Turn) -> dict[str, int]:
    return {"input_tokens": 10, "output_tokens": 5, **turn.usage}


def message_body(body: dict[str, Any], turn: Turn) -> dict[str, Any]:
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": content(turn),
        "stop_reason": stop_reason(turn),
        "stop_sequence": None,
        "usage": usage(turn),
    }


def paused_body(body: dict[str, Any], block: dict[str, Any]) -> dict[str, Any]:
    """The answer of a compaction with `pause_after_compaction`: the block alone."""
    return {
        "id": "msg_compaction",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": [block],
        "stop_reason": "compaction",
        "stop_sequence": None,
        "usage": {"input_tokens": 0, "output_tokens": 0, **compaction_usage(body, block)},
    }


def _sse(kind: str, data: dict[str, Any]) -> str:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n"


def stream_events(body: dict[str, Any], turn: Turn) -> Iterator[str]:
    """The turn as the Messages API streams it: text and arguments in pieces."""
    counts = usage(turn)
    start: dict[str, Any] = {**message_body(body, turn), "content": [], "stop_reason": None}
    start["usage"] = {**counts, "output_tokens": 1}
    yield _sse("message_start", {"message": start})
    yield _sse("ping", {})
    for index, block in enumerate(content(turn)):
        yield from _block_events(index, block, turn.piece_size)
        if turn.error_event is not None:
            yield _sse("error", {"error": {"type": turn.error_event, "message": "scripted"}})
            return
    if turn.ends_early:
        return
    delta = {"stop_reason": stop_reason(turn), "stop_sequence": None}
    yield _sse(
        "message_delta", {"delta": delta, "usage": {"output_tokens": counts["output_tokens"]}}
    )
    yield _sse("message_stop", {})


def _block_events(index: int, block: dict[str, Any], size: int) -> Iterator[str]:
    kind = block["type"]
    if kind == "text":
        yield _sse(
            "content_block_start", {"index": index, "content_block": {"type": "text", "text": ""}}
        )
        for piece in _pieces(block["text"], size):
            yield _sse(
                "content_block_delta",
                {"index": index, "delta": {"type": "text_delta", "text": piece}},
            )
    elif kind == "tool_use":
        opened: dict[str, Any] = {**block, "input": {}}
        yield _sse("content_block_start", {"index": index, "content_block": opened})
        for piece in _pieces(json.dumps(block["input"]), size):
            delta = {"type": "input_json_delta", "partial_json": piece}
            yield _sse("content_block_delta", {"index": index, "delta": delta})
    else:  # thinking
        opened = {"type": "thinking", "thinking": "", "signature": ""}
        yield _sse("content_block_start", {"index": index, "content_block": opened})
        for piece in _pieces(block["thinking"], size):
            delta = {"type": "thinking_delta", "thinking": piece}
            yield _sse("content_block_delta", {"index": index, "delta": delta})
        delta = {"type": "signature_delta", "signature": block["signature"]}
        yield _sse("content_block_delta", {"index": index, "delta": delta})
    yield _sse("content_block_stop", {"index": index})


def _pieces(text: str, size: int) -> list[str]:
    """The text in pieces of at most `size` characters, as a stream would send it."""
    return [text[i : i + size] for i in range(0, len(text), size)]


def tool_user(body: dict[str, Any]) -> Turn:
    """An answer like `TestModel`'s: each offered tool called once with values its schema
    accepts, then the tools' results in words (for the docs' examples)."""
    from tooluse.testing import value_for_schema

    content: list[dict[str, Any]] | str = body["messages"][-1]["content"]
    last = [] if isinstance(content, str) else content
    results = [block for block in last if block.get("type") == "tool_result"]
    if results:
        said = "; ".join(str(block.get("content")) for block in results)
        return Turn(text=f"The tools said: {said}")
    tools: list[dict[str, Any]] = body.get("tools") or []
    if tools:
        uses = [Use(t["name"], value_for_schema(t["input_schema"])) for t in tools[:1]]
        return Turn(uses=uses)
    output: dict[str, Any] = body.get("output_config") or {}
    output_format: dict[str, Any] = output.get("format") or {}
    schema: dict[str, Any] | None = output_format.get("schema")
    if schema is not None:
        return Turn(text=json.dumps(value_for_schema(schema)))
    return Turn(text="Hello from the local Messages API server.")
