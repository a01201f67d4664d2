"""`RecordingModel` and `ReplayModel`: a model's calls written to a cassette, and read back.

Both sit at the `Model` seam, so they work for every provider's model, whole or
streamed, in a run or in a Temporal model activity. Replay makes no network call and
never sleeps; the tools still run for real, so a changed tool output shows as a
mismatch in the next request.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Generator
from contextlib import contextmanager

from ..core._items import message_text
from ..models import (
    Model,
    ModelProvider,
    ModelRequest,
    ModelResponse,
    ResponseDone,
    StreamDelta,
    StreamEvent,
    TextDelta,
    ToolCallArgumentsDelta,
)
from ..models._base import name_of
from ..run._model_wrapper import model_wrapper
from ..schema._strict_rules import JsonValue
from ._cassette import Cassette, CassetteMismatch, Recorded, dump_response, load_response, to_json

__all__ = [
    "CassetteProvider",
    "RecordedEvent",
    "RecordingModel",
    "ReplayModel",
    "use_cassette",
]

CassetteSource = Cassette | str | os.PathLike[str]


def _cassette(source: CassetteSource) -> Cassette:
    return source if isinstance(source, Cassette) else Cassette(source)


class RecordingModel(Model):
    """Calls a real model and records each call (request and answer) in a cassette.

    Example:
        `Agent("a", model=RecordingModel(OpenAIResponsesModel("gpt-4.1"), "refund.jsonl"))`
    """

    def __init__(self, model: Model, cassette: CassetteSource) -> None:
        """Record `model`'s calls.

        Args:
            model: The model that answers.
            cassette: A `Cassette`, or the path of a JSONL file (started afresh at the
                first call recorded).
        """
        self.wrapped = model
        """The model that answers."""
        self.cassette = _cassette(cassette)
        """Where the calls are written."""
        self.model = name_of(model)
        """The wrapped model's name (usage entries and spans record it)."""

    async def close(self) -> None:
        """Close the wrapped model."""
        await self.wrapped.close()

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        """Call the wrapped model, and record the call.

        Args:
            request: The conversation, tools and settings.

        Returns:
            The wrapped model's response.
        """
        fingerprint = self.cassette.fingerprint(request, self.model)
        response = await self.wrapped.get_response(request)
        self.cassette.record(fingerprint, {"response": dump_response(response)})
        return response

    async def stream_response(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Stream the wrapped model's events, and record them in order.

        Args:
            request: The conversation, tools and settings.

        Yields:
            The wrapped model's events.
        """
        fingerprint = self.cassette.fingerprint(request, self.model)
        events: list[JsonValue] = []
        stream = self.wrapped.stream_response(request)
        try:
            async for event in stream:
                events.append(_event_json(event))
                if isinstance(event, ResponseDone):  # the run stops reading at this one
                    self.cassette.record(fingerprint, {"events": events})
                yield event
        finally:
            close = getattr(stream, "aclose", None)
            if close is not None:
                await close()


class ReplayModel(Model):
    """Answers from a cassette: no network, no sleeps, the same answers in the same order.

    Example:
        `Agent("a", model=ReplayModel("tests/cassettes/refund.jsonl"))`
    """

    def __init__(self, cassette: CassetteSource, *, model: str | None = None) -> None:
        """Replay the calls recorded in `cassette`.

        Args:
            cassette: A `Cassette`, or the path of a JSONL file.
            model: The model's name, which requests must have been recorded with; None
                matches any (and the name recorded first is the one usage reports).
        """
        self.cassette = _cassette(cassette)
        """Where the calls are read from."""
        self._model = model

    @property
    def model(self) -> str:
        """The model's name: the one given, else the first one the cassette recorded."""
        if self._model is not None:
            return self._model
        calls = self.cassette.calls()
        recorded = calls[0].request.get("model") if calls else None
        return recorded if isinstance(recorded, str) else type(self).__name__

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        """The recorded response to this request.

        Args:
            request: The conversation, tools and settings.

        Returns:
            The response, as it was recorded (whole, or at the end of a stream).

        Raises:
            CassetteMismatch: If the cassette holds no such request.
        """
        call = self._replayed(request)
        if "response" in call.answer:
            return load_response(call.answer["response"])
        return _done(call, self.cassette)

    async def stream_response(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """The recorded events, in order (made from the response if it was recorded whole).

        Args:
            request: The conversation, tools and settings.

        Yields:
            The events.

        Raises:
            CassetteMismatch: If the cassette holds no such request.
        """
        call = self._replayed(request)
        events = call.answer.get("events")
        if isinstance(events, list):
            for event in events:
                yield _event(event, self.cassette)
            return
        response = load_response(call.answer["response"])
        for event in _events_of(response):
            yield event

    def _replayed(self, request: ModelRequest) -> Recorded:
        fingerprint = self.cassette.fingerprint(request, self._model)
        return self.cassette.replay(fingerprint, any_model=self._model is None, request=request)


class CassetteProvider(ModelProvider):
    """A `ModelProvider` whose models record into, or replay from, one cassette.

    Give it as `RunConfig(model_provider=...)`, or to `TooluseTemporalPlugin` so that
    the cassette is recorded and replayed inside the model activity.
    """

    def __init__(self, cassette: CassetteSource, provider: ModelProvider | None = None) -> None:
        """Record `provider`'s models, or replay (with no provider).

        Args:
            cassette: A `Cassette`, or the path of a JSONL file.
            provider: The provider of the real models, to record them; None replays.
        """
        self.cassette = _cassette(cassette)
        """The cassette."""
        self.provider = provider
        """The real models' provider; None replays."""

    def get_model(self, model_name: str | None) -> Model:
        """A recording model for the name, or one that replays it.

        Args:
            model_name: The model's name; None for the provider's default.

        Returns:
            A `RecordingModel` or a `ReplayModel`.
        """
        if self.provider is None:
            return ReplayModel(self.cassette, model=model_name)
        recording = RecordingModel(self.provider.get_model(model_name), self.cassette)
        if model_name is not None:  # recorded under the name a replay will be asked for
            recording.model = model_name
        return recording


class RecordedEvent(dict[str, JsonValue]):
    """A provider's raw stream event, replayed: its JSON, whose keys read as attributes too.

    `event.data.type` reads as it does on the SDK's own event object.
    """

    def __getattr__(self, name: str) -> object:
        try:
            value = self[name]
        except KeyError:
            raise AttributeError(name) from None
        return RecordedEvent(value) if isinstance(value, dict) else value


def _event_json(event: StreamEvent) -> JsonValue:
    if isinstance(event, StreamDelta):
        return {"raw": to_json(event.data)}
    if isinstance(event, TextDelta):
        return {"text": event.delta}
    if isinstance(event, ToolCallArgumentsDelta):
        return {
            "arguments": {"call_id": event.call_id, "tool": event.tool_name, "delta": event.delta}
        }
    return {"done": dump_response(event.response)}


def _event(data: JsonValue, cassette: Cassette) -> StreamEvent:
    if isinstance(data, dict):
        if "text" in data and isinstance(data["text"], str):
            return TextDelta(data["text"])
        arguments = data.get("arguments")
        if isinstance(arguments, dict):
            call_id, tool, delta = (str(arguments.get(k, "")) for k in ("call_id", "tool", "delta"))
            return ToolCallArgumentsDelta(call_id, tool, delta)
        raw = data.get("raw")
        if "raw" in data:
            return StreamDelta(RecordedEvent(raw) if isinstance(raw, dict) else raw)
        if "done" in data:
            return ResponseDone(load_response(data["done"]))
    message = f"cassette {cassette.path}: a recorded stream event is unreadable: {data!r:.200}"
    raise CassetteMismatch(cassette.path, message)


def _done(call: Recorded, cassette: Cassette) -> ModelResponse:
    events = call.answer.get("events")
    for event in reversed(events if isinstance(events, list) else []):
        if isinstance(event, dict) and "done" in event:
            return load_response(event["done"])
    message = (
        f"cassette {cassette.path}, line {call.number}: a recorded stream without its "
        f'response (a last event {{"done": ...}}): {cassette.hint}'
    )
    raise CassetteMismatch(cassette.path, message)


def _events_of(response: ModelResponse) -> list[StreamEvent]:
    """A stream made from a whole response: its text, its calls' arguments, the response."""
    events: list[StreamEvent] = []
    for item in response.output:
        text = message_text(item)
        if text:
            events.append(TextDelta(text))
        elif item.get("type") == "function_call":
            call_id, name = str(item.get("call_id", "")), str(item.get("name", ""))
            events.append(ToolCallArgumentsDelta(call_id, name, str(item.get("arguments", ""))))
    events.append(ResponseDone(response))
    return events


@contextmanager
def use_cassette(cassette: CassetteSource, *, record: bool) -> Generator[Cassette]:
    """Record or replay every model the runs inside the block call, with no change to agents.

    Models named by agents (resolved by the run's provider), models given as objects,
    handoff targets' and agents used as tools' are all wrapped: in a `RecordingModel`
    when `record` is true, else in a `ReplayModel` of the model's name. Models already
    recording or replaying are left as they are. The pytest plugin uses it for each test
    with a cassette.

    Args:
        cassette: A `Cassette`, or the path of a JSONL file.
        record: Call the real models and record them (True), or replay (False).

    Yields:
        The cassette.
    """
    source = _cassette(cassette)
    made: dict[int, tuple[Model, Model]] = {}  # the model kept too, so that its id stays its own

    def wrap(model: Model) -> Model:
        if isinstance(model, (RecordingModel, ReplayModel)):
            return model
        found = made.get(id(model))
        if found is None:
            replacement: Model = (
                RecordingModel(model, source)
                if record
                else ReplayModel(source, model=name_of(model))
            )
            found = made[id(model)] = (model, replacement)
        return found[1]

    token = model_wrapper.set(wrap)
    try:
        yield source
    finally:
        model_wrapper.reset(token)
