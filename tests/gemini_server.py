"""A server on 127.0.0.1 that speaks Gemini's `generateContent` API and plays scripted turns.

It serves `POST /v1beta/models/{model}:generateContent` and
`:streamGenerateContent?alt=sse` (each chunk a `data:` event), so the tests drive
the official `google-genai` client over real HTTP. Each request takes the next
scripted `Turn` and is recorded.

It refuses what the real API refuses, with a 400 in Google's error shape: a first
content that is not the user's; a `functionResponse` that answers no
`functionCall` of the content before it (by name), or calls left unanswered; a
`functionCall` part of a thinking model's reply sent back without the
`thoughtSignature` it came with; and a schema outside Gemini's OpenAPI subset
(`additionalProperties`, `$ref`, `$defs`, `const`, a type list, an `enum` of
anything but strings, an object schema without properties).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, cast

from google.genai import Client

from tooluse.models import GeminiModel

SCHEMA_KEYS = {
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
    "title",
}
TYPES = {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"}
SIGNATURE = "c2lnbmVk"  # base64 of b"signed"


@dataclass
class FunctionCall:
    """A `functionCall` part in a scripted turn."""

    name: str
    args: dict[str, Any] = field(default_factory=dict[str, Any])
    id: str | None = None


@dataclass
class Turn:
    """What the scripted model answers to one request."""

    text: str | None = None
    calls: list[FunctionCall] = field(default_factory=list[FunctionCall])
    thought: str | None = None
    """A thought summary first, and a thought signature on the first call (or the text)."""
    finish_reason: str = "STOP"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict[str, str])
    ends_early: bool = False
    """Streams only: no chunk with a finish reason."""


class GeminiServer:
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

    def client(self) -> Client:
        return Client(api_key="test-key", http_options={"base_url": self.base_url})

    def model(self) -> GeminiModel:
        return GeminiModel("gemini-test", self.client())

    def script(self, *turns: Turn) -> None:
        self.turns.extend(turns)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._http.shutdown()
        self._http.server_close()

    def _next(self, path: str, body: dict[str, Any]) -> Turn:
        if self._reply is not None:
            return self._reply(body)
        with self._lock:
            self.requests.append({"path": path, "body": body})
            return self.turns.pop(0) if self.turns else Turn(text="(no more turns scripted)")

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                refused = refusal(body)
                if refused is not None:
                    with server._lock:  # pyright: ignore[reportPrivateUsage]
                        server.requests.append(
                            {"path": self.path, "body": body, "refused": refused}
                        )
                    self._send_json(_error(400, "INVALID_ARGUMENT", refused), 400, {})
                    return
                turn = server._next(self.path, body)  # pyright: ignore[reportPrivateUsage]
                if turn.status != 200:
                    error = _error(turn.status, "UNAVAILABLE", "scripted failure")
                    self._send_json(error, turn.status, turn.headers)
                elif ":streamGenerateContent" in self.path:
                    self._stream(turn)
                else:
                    self._send_json(response_body(turn), 200, turn.headers)

            def _send_json(self, payload: object, status: int, headers: dict[str, str]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, turn: Turn) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for chunk in stream_chunks(turn):
                    self.wfile.write(f"data: {json.dumps(chunk)}\r\n\r\n".encode())
                    self.wfile.flush()

            def log_message(self, format: str, *args: Any) -> None:
                del format, args

        return Handler


def _error(code: int, status: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "status": status}}


def refusal(body: dict[str, Any]) -> str | None:
    """What the real API would refuse in this request; None if nothing."""
    tools: list[dict[str, Any]] = body.get("tools") or []
    for group in tools:
        declarations: list[dict[str, Any]] = group.get("functionDeclarations") or []
        for index, declaration in enumerate(declarations):
            schema = declaration.get("parameters")
            if schema is not None:
                problem = schema_problem(
                    schema, f"tools[0].function_declarations[{index}].parameters"
                )
                if problem:
                    return problem
    generation: dict[str, Any] = body.get("generationConfig") or {}
    if "responseSchema" in generation:
        problem = schema_problem(generation["responseSchema"], "generation_config.response_schema")
        if problem:
            return problem
    contents: list[dict[str, Any]] = body.get("contents") or []
    if not contents or contents[0].get("role") != "user":
        return "Please ensure that the first turn is a user turn."
    calls: list[str] = []
    for index, content in enumerate(contents):
        parts: list[dict[str, Any]] = content["parts"]
        responses = [p["functionResponse"]["name"] for p in parts if "functionResponse" in p]
        if sorted(responses) != sorted(calls) and (responses or content["role"] == "user"):
            return (
                f"contents[{index}]: Please ensure that the number of function response parts "
                "is equal to the number of function call parts of the function call turn."
            )
        calls = [p["functionCall"]["name"] for p in parts if "functionCall" in p]
        for part in parts:
            call = part.get("functionCall")
            signed = call is not None and call.get("name", "").startswith("signed_")
            if signed and part.get("thoughtSignature") != SIGNATURE:
                return f"contents[{index}]: Function call is missing a thought_signature."
    return None


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


def schema_problem(given: Any, where: str) -> str | None:
    if not isinstance(given, dict):
        return f"{where}: a schema is an object"
    # The API reads proto JSON: each field in snake case or camel case.
    fields = cast("dict[str, Any]", given)
    schema = {_camel(key): value for key, value in fields.items()}
    unknown = set(schema) - SCHEMA_KEYS
    if unknown:
        return f"Invalid JSON payload received. Unknown name \"{sorted(unknown)[0]}\" at '{where}'"
    kind = schema.get("type")
    if kind is not None and kind not in TYPES:
        return f"{where}.type: invalid type {kind!r}"
    enum = schema.get("enum")
    if enum is not None and not all(isinstance(value, str) for value in enum):
        return f"{where}.enum: only strings are allowed"
    if kind == "OBJECT" and not schema.get("properties"):
        return f"{where}.properties: should be non-empty for OBJECT type"
    properties: dict[str, Any] = schema.get("properties") or {}
    for name, sub in properties.items():
        problem = schema_problem(sub, f"{where}.properties[{name}]")
        if problem:
            return problem
    for key in ("items",):
        if key in schema:
            problem = schema_problem(schema[key], f"{where}.{key}")
            if problem:
                return problem
    for index, sub in enumerate(schema.get("anyOf") or []):
        problem = schema_problem(sub, f"{where}.any_of[{index}]")
        if problem:
            return problem
    return None


def parts(turn: Turn) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if turn.thought is not None:
        found.append({"text": turn.thought, "thought": True})
    if turn.text is not None:
        found.append({"text": turn.text})
    for call in turn.calls:
        function: dict[str, Any] = {"name": call.name, "args": call.args}
        if call.id is not None:
            function["id"] = call.id
        found.append({"functionCall": function})
    if turn.thought is not None:
        found[1 if len(found) > 1 else 0]["thoughtSignature"] = SIGNATURE
    return found


def usage() -> dict[str, int]:
    return {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}


def response_body(turn: Turn) -> dict[str, Any]:
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": parts(turn)},
                "finishReason": turn.finish_reason,
                "index": 0,
            }
        ],
        "usageMetadata": usage(),
        "modelVersion": "gemini-test-001",
        "responseId": "resp_test",
    }


def stream_chunks(turn: Turn) -> Iterator[dict[str, Any]]:
    """The turn as Gemini streams it: text in pieces, each call whole, the finish reason last."""
    for part in parts(turn):
        text = part.get("text")
        pieces = [text[i : i + 4] for i in range(0, len(text), 4)] if text else [None]
        for number, piece in enumerate(pieces):
            sent = dict(part) if piece is None else {**part, "text": piece}
            if number:
                sent.pop("thoughtSignature", None)  # on the part's first piece only
            content = {"role": "model", "parts": [sent]}
            yield {
                "candidates": [{"content": content, "index": 0}],
                "modelVersion": "gemini-test-001",
            }
    if turn.ends_early:
        return
    yield {
        "candidates": [
            {
                "content": {"role": "model", "parts": []},
                "finishReason": turn.finish_reason,
                "index": 0,
            }
        ],
        "usageMetadata": usage(),
        "modelVersion": "gemini-test-001",
        "responseId": "resp_test",
    }


def tool_user(body: dict[str, Any]) -> Turn:
    """An answer like `TestModel`'s: the first offered function called once with values
    its schema accepts, then the results in words (for the docs' examples)."""
    from tooluse.testing import value_for_schema

    last: list[dict[str, Any]] = body["contents"][-1]["parts"]
    results = [p["functionResponse"]["response"] for p in last if "functionResponse" in p]
    if results:
        said = "; ".join(str(next(iter(result.values()))) for result in results)
        return Turn(text=f"The tools said: {said}")
    groups: list[dict[str, Any]] = body.get("tools") or []
    declarations: list[dict[str, Any]] = []
    for group in groups:
        declarations.extend(group.get("functionDeclarations") or [])
    if declarations:
        first = declarations[0]
        schema = _lower_types(first.get("parameters") or {"type": "object", "properties": {}})
        return Turn(calls=[FunctionCall(first["name"], value_for_schema(schema))])
    return Turn(text="Hello from the local generateContent server.")


def _lower_types(schema: Any) -> Any:
    """A Gemini schema read back as JSON Schema, enough for `value_for_schema`."""
    if isinstance(schema, dict):
        fields = cast("dict[str, Any]", schema)
        read = {
            key: value.lower() if key == "type" else _lower_types(value)
            for key, value in fields.items()
            if key != "nullable"
        }
        described = str(fields.get("description", ""))
        if "enum" not in read and "One of: " in described:  # an enum kept in words
            read["enum"] = json.loads(f"[{described.rsplit('One of: ', 1)[1].rstrip('.')}]")
        return read
    if isinstance(schema, list):
        return [_lower_types(each) for each in cast("list[Any]", schema)]
    return schema
