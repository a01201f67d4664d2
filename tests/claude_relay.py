"""Runs code written for any model on `AnthropicModel`: the model's replies, relayed through Claude.

`ClaudeRelay(model)` stands in for a model (a `FunctionModel`, a `TestModel`, a cassette's
model, ...): for each call it first asks that model for its reply, then sends the very
request through `AnthropicModel` (the official `anthropic` client, real HTTP) to a local
Messages API server (`tests/anthropic_server.py`), which answers with that reply in the
Messages API's shapes (text and `tool_use` blocks, usage, a status and `retry-after` for
a scripted failure; streamed in the pieces the model streamed). What the run receives is
what `AnthropicModel` made of the answer, so the run's conversation goes through the
Claude conversion both ways, and the server refuses what the real API would refuse (a
`tool_result` that answers no `tool_use`, two user messages in a row, ...).

The relay tags each request with a header naming its reply, so that concurrent calls
(parallel agents as tools) each get their own. `tests/test_docs.py` runs every docs
example this way a second time (`model_wrapper`, as the cassette plugin wraps models).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import ssl
import weakref
from collections.abc import AsyncIterator, Callable, Generator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any, cast

import pytest
from anthropic import AsyncAnthropic, DefaultAsyncHttpxClient

from tooluse.models import (
    AnthropicModel,
    GeminiModel,
    Model,
    ModelRequest,
    ModelResponse,
    ModelTransportError,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    ResponseDone,
    StreamEvent,
    TextDelta,
    ToolCallArgumentsDelta,
)
from tooluse.models._base import name_of
from tooluse.run._model_wrapper import model_wrapper
from tooluse.testing import FunctionModel, ReplayModel, TestModel

from .anthropic_server import AnthropicServer, Turn, Use

RELAY_HEADER = "x-tooluse-relay"
"""The request header that names the reply the server is to send."""

relaying: ContextVar[bool] = ContextVar("relaying", default=False)
"""True while the relay asks the model it stands in for: a call made otherwise went
around Claude (`tests/test_docs.py` counts those)."""

_ERROR_TYPES = {429: "rate_limit_error", 529: "overloaded_error", 400: "invalid_request_error"}
_STOP_REASONS = {"max_output_tokens": "max_tokens", "length": "max_tokens"}


class NotRelayable(Exception):
    """A reply holds something the Messages API has no form for (a hosted tool's call)."""


class RelayServer(AnthropicServer):
    """The local Messages API server, answering each request with the reply it is tagged with."""

    def __init__(self) -> None:
        super().__init__()
        self._replies: dict[str, Turn] = {}
        self._keys = itertools.count(1)
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncAnthropic] = (
            weakref.WeakKeyDictionary()
        )
        self._tls = ssl.create_default_context()
        self.answered = 0
        """Requests answered with a relayed reply."""

    def expect(self, turn: Turn) -> str:
        """Keep a reply for the request that will carry the returned key in its header."""
        with self._lock:
            key = str(next(self._keys))
            self._replies[key] = turn
        return key

    def next_turn(self, body: dict[str, Any], headers: dict[str, str]) -> Turn:
        del body
        with self._lock:
            turn = self._replies.pop(headers.get(RELAY_HEADER, ""), None)
            if turn is None:
                return Turn(status=400, error_type="invalid_request_error")
            self.answered += 1
            return turn

    def client_for_this_loop(self) -> AsyncAnthropic:
        """One client per event loop: each `asyncio.run` of an example has its own."""
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            # One TLS context for all: making one is most of a new client's time (0.1-0.2 s).
            http = DefaultAsyncHttpxClient(verify=self._tls)
            client = AsyncAnthropic(
                base_url=self.base_url, api_key="test-key", max_retries=0, http_client=http
            )
            self._clients[loop] = client
        return client


class ClaudeRelay(Model):
    """A model's replies, sent to the run through `AnthropicModel` and the relay server."""

    provider_name = "anthropic"

    def __init__(self, inner: Model, server: RelayServer) -> None:
        self.inner = inner
        """The model whose replies are relayed."""
        self.server = server
        self.model = name_of(inner)
        """The name usage entries and spans record: the model's (as if it were Claude's)."""

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        try:
            with _relaying():
                response = await self.inner.get_response(request)
            turn = _turn(response)
        except ModelTransportError as error:
            response, turn = ModelResponse([]), _failure(error)
        return await self._claude(response).get_response(self._tagged(request, turn))

    async def stream_response(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        try:
            response, size = await self._streamed_reply(request)
            turn = replace(_turn(response), piece_size=size)
        except ModelTransportError as error:
            response, turn = ModelResponse([]), _failure(error)
        async for event in self._claude(response).stream_response(self._tagged(request, turn)):
            yield event

    async def _streamed_reply(self, request: ModelRequest) -> tuple[ModelResponse, int]:
        """The model's streamed reply, and the size of its pieces (for the server's)."""
        sizes: list[int] = []
        with _relaying():
            async for event in self.inner.stream_response(request):
                if isinstance(event, TextDelta | ToolCallArgumentsDelta):
                    sizes.append(len(event.delta))
                elif isinstance(event, ResponseDone):
                    return event.response, max(sizes, default=4)
        raise AssertionError(f"{self.inner!r} streamed no ResponseDone")

    def _claude(self, response: ModelResponse) -> AnthropicModel:
        """Claude, under the name the model answered with (spans and results show it)."""
        return RelayedClaude(response.model or "claude-relay", self.server.client_for_this_loop())

    def _tagged(self, request: ModelRequest, turn: Turn) -> ModelRequest:
        key = self.server.expect(turn)
        headers = {**(request.settings.extra_headers or {}), RELAY_HEADER: key}
        return replace(request, settings=replace(request.settings, extra_headers=headers))


@contextmanager
def _relaying() -> Generator[None]:
    token = relaying.set(True)
    try:
        yield
    finally:
        relaying.reset(token)


def _failure(error: ModelTransportError) -> Turn:
    """A scripted failure as the API would answer it; a failure with no status stays raised."""
    if error.status_code is None:
        raise error
    headers = {} if error.retry_after is None else {"retry-after": str(error.retry_after)}
    kind = _ERROR_TYPES.get(error.status_code, "api_error")
    return Turn(status=error.status_code, error_type=kind, headers=headers)


def _turn(response: ModelResponse) -> Turn:
    """The reply as the Messages API's content blocks, usage and stop reason."""
    texts: list[str] = []
    uses: list[Use] = []
    for item in response.output:
        kind = item.get("type")
        if kind == "message":
            texts.extend(
                part["text"] for part in item["content"] if part.get("type") == "output_text"
            )
        elif kind == "function_call":
            uses.append(Use(item["name"], _input(item["name"], item["arguments"]), item["call_id"]))
        elif kind != "reasoning":
            raise NotRelayable(f"a {kind!r} item has no Messages API form")
    usage = response.usage
    counts = {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}
    stop = _STOP_REASONS.get(response.reason or "") if response.status == "incomplete" else None
    return Turn(text="".join(texts) or None, uses=uses, usage=counts, stop_reason=stop)


class RelayedClaude(AnthropicModel):
    """The `AnthropicModel` the relay calls (told apart from one an example makes)."""


CALLED_MODELS: tuple[type[Model], ...] = (
    FunctionModel,
    TestModel,
    ReplayModel,
    OpenAIResponsesModel,
    OpenAIChatCompletionsModel,
    AnthropicModel,
    GeminiModel,
)
"""The models an example may call: each call of theirs should be the relay's."""


@dataclass
class AroundClaude:
    """The model calls made while relaying, but not by the relay: they went around Claude."""

    calls: list[str] = field(default_factory=list[str])

    def watch(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Note every call of `CALLED_MODELS`' methods not made by the relay."""
        for cls in CALLED_MODELS:
            for name in ("get_response", "stream_response"):
                monkeypatch.setattr(cls, name, self._noting(cls, getattr(cls, name)))

    def _noting(self, cls: type[Model], method: Callable[..., Any]) -> Callable[..., Any]:
        def call(model: Model, request: ModelRequest) -> Any:
            if not relaying.get() and not isinstance(model, RelayedClaude):
                self.calls.append(f"{cls.__name__}.{method.__name__}")
            return method(model, request)

        return call


def _input(name: str, arguments: str) -> dict[str, Any]:
    """A call's arguments as a `tool_use` input, which the API always sends as an object."""
    try:
        value = json.loads(arguments or "{}")
    except json.JSONDecodeError:
        value = None
    if not isinstance(value, dict):
        raise NotRelayable(
            f"{name!r} is called with arguments that are not a JSON object: {arguments!r}"
        )
    return cast(dict[str, Any], value)


@contextmanager
def on_claude(relay: RelayServer) -> Generator[None]:
    """Every model a run calls inside the block answers through Claude."""
    token = model_wrapper.set(lambda model: ClaudeRelay(model, relay))
    try:
        yield
    finally:
        model_wrapper.reset(token)
