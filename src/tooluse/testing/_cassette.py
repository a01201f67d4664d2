"""`Cassette`: model calls recorded in a JSONL file, and found again by their request.

One line per model call, readable and diffable:

```text
{"request": {"model": ..., "instructions": ..., "tools": [...], ...}, "response": {...}}
{"request": {...}, "events": [{"text": "Sun"}, {"text": "ny"}, {"done": {...}}]}
```

The request is a fingerprint of what decides the answer: the model's name, the
instructions, the tools (name, description, parameters, strict; a hosted tool's API
param), the conversation items, the settings that are set, and the output schema. The
answer is the neutral `ModelResponse` (or the stream's neutral events) as JSON, never an
SDK's objects, so a model of any provider records and replays the same way.

A replayed request takes the first recorded call not yet replayed whose fingerprint is
equal, so concurrent calls (agents used as tools) and a run resumed in another process
find theirs; with none equal, `CassetteMismatch` names the first path at which the
request differs from the next call the recording holds.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields, is_dataclass
from pathlib import Path

from pydantic import TypeAdapter

from ..core._errors import TooluseError
from ..models import ModelRequest, ModelResponse
from ..schema._strict_rules import JsonValue
from ..tools._function_tool import FunctionTool
from ._cassette_diff import Difference, first_difference, shown
from ._redaction import Redactor

__all__ = ["Cassette", "CassetteMismatch", "Recorded", "dump_response", "load_response", "to_json"]

JsonObject = dict[str, JsonValue]

_RERECORD = (
    "record it again: pytest --tooluse-record=rewrite (with the tooluse pytest plugin), "
    "or run once with RecordingModel"
)


class CassetteMismatch(TooluseError, AssertionError):
    """A model request that the cassette did not record: the recording is stale.

    The message names the cassette, the first path at which the request differs from
    the call the recording expected next, both values there, and how to record again.
    """

    def __init__(self, path: Path, message: str, difference: Difference | None = None) -> None:
        """A mismatch in the cassette at `path`.

        Args:
            path: The cassette's file.
            message: What differs, and how to record again.
            difference: The first difference, if the request was compared with one.
        """
        super().__init__(message)
        self.path = path
        """The cassette's file."""
        self.difference = difference
        """Where the request first differs from the recording, and the two values there;
        None when there was nothing to compare it with (the recording had ended)."""


@dataclass
class Recorded:
    """One recorded model call."""

    number: int
    """Its place in the file, from 1."""
    request: JsonObject
    """The request's fingerprint."""
    key: str
    """The fingerprint without the model's name, as canonical JSON."""
    answer: JsonObject
    """`{"response": ...}`, or `{"events": [...]}` for a streamed call."""


class Cassette:
    """A JSONL file of model calls: recorded by `RecordingModel`, replayed by `ReplayModel`.

    Give several models one `Cassette` to record them into one file, or to replay one
    file between them; a path given to a model makes a cassette of its own.

    Example:
        `cassette = Cassette("tests/cassettes/refund.jsonl", redact=["acct-1234"])`
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        redact: Iterable[str | re.Pattern[str]] = (),
        append: bool = False,
        hint: str = _RERECORD,
    ) -> None:
        """A cassette at `path`.

        Args:
            path: The JSONL file.
            redact: Values (strings) and regular expressions never to write, beside API
                keys and `Authorization` headers, which are never written.
            append: Recording adds to the file (a run resumed in another process continues
                its cassette); by default the first call recorded starts the file afresh.
            hint: How to record again, as a mismatch tells it.
        """
        self.path = Path(path)
        """The JSONL file."""
        self.hint = hint
        """How to record again, as a mismatch tells it."""
        self._redactor = Redactor(redact)
        self._fresh = not append
        self._calls: list[Recorded] | None = None
        self._replayed: set[int] = set()
        self._parts: dict[int, tuple[object, JsonValue]] = {}

    def fingerprint(self, request: ModelRequest, model: str | None) -> JsonObject:
        """What of a request decides its answer, as JSON, secrets redacted.

        Args:
            request: The request.
            model: The model's name.

        Returns:
            The fingerprint.
        """
        settings = _object(
            to_json({f.name: getattr(request.settings, f.name) for f in fields(request.settings)})
        )
        fingerprint: JsonObject = {
            "model": model,
            "instructions": request.instructions,
            "tools": [self._part(tool, _tool) for tool in request.tools],
            "input": [self._part(item, to_json) for item in request.input],
            "settings": {k: v for k, v in settings.items() if v not in (None, {}, [])},
        }
        if request.output_schema is not None:
            fingerprint["output_schema"] = to_json(request.output_schema)
        for name in ("instructions", "settings", "output_schema"):
            if name in fingerprint:
                fingerprint[name] = self._redactor.json(fingerprint[name])
        return fingerprint

    def _part(self, value: object, convert: Callable[[object], JsonValue]) -> JsonValue:
        """An item's or a tool's JSON, redacted: made once for each.

        Every request of a run holds the conversation so far, and a run's items and tools
        are not changed once made: each is converted at its first request only.
        """
        found = self._parts.get(id(value))
        if found is None or found[0] is not value:
            found = self._parts[id(value)] = (value, self._redactor.json(convert(value)))
        return found[1]

    def _key(self, fingerprint: Mapping[str, JsonValue]) -> str:
        """The fingerprint without the model's name, as canonical text.

        Equal requests have equal keys. One `json.dumps` of the whole: its C encoder is
        faster than caching each part's text.
        """
        return _canonical({k: v for k, v in fingerprint.items() if k != "model"})

    def record(self, fingerprint: JsonObject, answer: JsonObject) -> None:
        """Write one call's line (the answer's secrets redacted).

        Args:
            fingerprint: The request's fingerprint.
            answer: `{"response": ...}` or `{"events": [...]}`.
        """
        line = json.dumps(
            {"request": fingerprint, **_object(self._redactor.json(answer))}, ensure_ascii=False
        )
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self._fresh:
            self.path.write_text("", encoding="utf-8")
            self._fresh = False
        with self.path.open("a", encoding="utf-8") as file:
            file.write(line + "\n")

    def replay(self, fingerprint: JsonObject, *, any_model: bool = False) -> Recorded:
        """The first call not yet replayed whose request equals this fingerprint.

        Args:
            fingerprint: The request's fingerprint.
            any_model: Match whatever the model's name (a `ReplayModel` given none).

        Returns:
            The recorded call.

        Raises:
            CassetteMismatch: If no call left has an equal request.
        """
        calls = self.calls()
        key = self._key(fingerprint)
        model = fingerprint.get("model")
        left = [call for call in calls if call.number not in self._replayed]
        for call in left:
            if call.key == key and (any_model or call.request.get("model") == model):
                self._replayed.add(call.number)
                return call
        raise self._mismatch(fingerprint, left, any_model)

    def calls(self) -> list[Recorded]:
        """The recorded calls, read from the file once.

        Raises:
            CassetteMismatch: If the file does not exist or a line is not a recorded call.
        """
        if self._calls is None:
            self._calls = self._read()
        return self._calls

    def _read(self) -> list[Recorded]:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            message = f"cassette {self.path} does not exist: {self.hint}"
            raise CassetteMismatch(self.path, message) from None
        calls: list[Recorded] = []
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                data: JsonValue = json.loads(line)
            except ValueError:
                data = None  # refused below, with the line's number
            request = data.get("request") if isinstance(data, dict) else None
            if not isinstance(data, dict) or not isinstance(request, dict):
                data = request = {}
            if not ({"response", "events"} & data.keys()):
                message = (
                    f"cassette {self.path}, line {number}: not a recorded model call "
                    f"(a JSON object with 'request' and 'response' or 'events'): {self.hint}"
                )
                raise CassetteMismatch(self.path, message)
            answer = {k: v for k, v in data.items() if k != "request"}
            calls.append(Recorded(number, request, self._key(request), answer))
        return calls

    def _mismatch(
        self, fingerprint: JsonObject, left: list[Recorded], any_model: bool
    ) -> CassetteMismatch:
        if not left:
            message = (
                f"cassette {self.path}: the run made a model request the recording does not "
                f"hold (all {len(self.calls())} recorded calls were replayed already); {self.hint}"
            )
            return CassetteMismatch(self.path, message)
        same_model = [c for c in left if c.request.get("model") == fingerprint.get("model")]
        expected = (left if any_model or not same_model else same_model)[0]
        new = (
            fingerprint
            if not any_model
            else {**fingerprint, "model": expected.request.get("model")}
        )
        difference = first_difference(expected.request, new) or Difference("", None, None)
        message = (
            f"cassette {self.path}: the model request differs from the one recorded on line "
            f"{expected.number} at {difference.path or 'the request'}\n"
            f"  recorded: {shown(difference.recorded)}\n"
            f"  new:      {shown(difference.new)}\n"
            f"The recording is stale: {self.hint}."
        )
        return CassetteMismatch(self.path, message, difference)


def _object(value: JsonValue) -> JsonObject:
    """A JSON value known to be an object (what `to_json` makes of a dict)."""
    assert isinstance(value, dict)
    return value


def _canonical(value: JsonValue) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _tool(tool: object) -> JsonValue:
    if isinstance(tool, FunctionTool):
        found: JsonObject = {
            "name": tool.name,
            "description": tool.description,
            "parameters": to_json(tool.params_json_schema),
            "strict": tool.strict_json_schema,
        }
        if tool.namespace:
            found["namespace"] = tool.namespace
        return found
    param = getattr(tool, "to_tool_param", None)  # hosted tools, and their Temporal stand-ins
    return {"hosted": to_json(param() if callable(param) else repr(tool))}


def to_json(value: object) -> JsonValue:
    """A value as plain JSON: SDK objects dumped (`model_dump`), dataclasses as dicts.

    Args:
        value: The value.

    Returns:
        The JSON value `json.loads` would give for it.
    """
    return json.loads(json.dumps(value, default=_plain, ensure_ascii=False))


def _plain(value: object) -> object:
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in fields(value)}
    return repr(value)


@functools.cache
def _responses() -> TypeAdapter[ModelResponse]:
    return TypeAdapter(ModelResponse)


def dump_response(response: ModelResponse) -> JsonValue:
    """A response as JSON.

    Args:
        response: The response.

    Returns:
        Its JSON form.
    """
    return to_json(_responses().dump_python(response, mode="json"))


def load_response(data: JsonValue) -> ModelResponse:
    """A response back from its JSON form.

    Args:
        data: What `dump_response` gave.

    Returns:
        The response.
    """
    return _responses().validate_python(data)
