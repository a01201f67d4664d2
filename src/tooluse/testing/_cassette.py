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

import copy
import functools
import json
import operator
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import NamedTuple

from pydantic import TypeAdapter

from ..core._errors import TooluseError
from ..core._settings import ModelSettings
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


class _Listed(NamedTuple):
    """A request's tools or items, and the JSON and canonical text of each."""

    values: list[object]
    json: list[JsonValue]
    text: list[str]


class Recorded:
    """One recorded model call: its line, parsed when first read."""

    __slots__ = ("_answer", "_cassette", "_key", "_line", "_request", "number")

    def __init__(self, number: int, line: str, cassette: Cassette) -> None:
        """The call on line `number` of `cassette`'s file.

        Args:
            number: Its place in the file, from 1.
            line: The line.
            cassette: The cassette (for the error naming a line that is not a call).
        """
        self.number = number
        """Its place in the file, from 1."""
        self._line = line
        self._cassette = cassette
        self._request: JsonObject | None = None
        self._answer: JsonObject | None = None
        self._key: str | None = None

    @property
    def request(self) -> JsonObject:
        """The request's fingerprint."""
        if self._request is None:
            self._parse()
        assert self._request is not None
        return self._request

    @property
    def answer(self) -> JsonObject:
        """`{"response": ...}`, or `{"events": [...]}` for a streamed call."""
        if self._answer is None:
            self._parse()
        assert self._answer is not None
        return self._answer

    @property
    def key(self) -> str:
        """The fingerprint without the model's name, as canonical JSON."""
        if self._key is None:
            self._key = _canonical({k: v for k, v in self.request.items() if k != "model"})
        return self._key

    def _parse(self) -> None:
        cassette = self._cassette
        try:
            data: JsonValue = json.loads(self._line)
        except ValueError:
            data = None  # refused below, with the line's number
        request = data.get("request") if isinstance(data, dict) else None
        if not isinstance(data, dict) or not isinstance(request, dict):
            data = request = {}
        if not ({"response", "events"} & data.keys()):
            message = (
                f"cassette {cassette.path}, line {self.number}: not a recorded model call "
                f"(a JSON object with 'request' and 'response' or 'events'): {cassette.hint}"
            )
            raise CassetteMismatch(cassette.path, message)
        self._request = request
        self._answer = {k: v for k, v in data.items() if k != "request"}

    def written_as(self, fingerprint: JsonObject, any_model: bool, body: str) -> bool:
        """Whether the line holds this request as `Cassette.record` writes it.

        Text equal to what the cassette would write means an equal request, with no need
        to parse the line's request (every line repeats the conversation so far): only
        its answer is parsed then. A line written otherwise (by hand, by another writer)
        is compared as JSON instead.

        Args:
            fingerprint: The request's fingerprint.
            any_model: Match whatever the model's name.
            body: The fingerprint's fields after its model, as `json.dumps` writes them.

        Returns:
            True if it does (and the call's request is then known without parsing it).
        """
        found = None if self._request is not None else _as_written(self._line, body)
        if found is None:  # not as written (or parsed already: compared as JSON)
            return False
        recorded, answer = found
        if not (any_model or recorded == fingerprint.get("model")):
            return False
        self._request = {**fingerprint, "model": recorded}  # equal to the line's, as written
        self._answer = answer
        return True


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
        self._parts: dict[int, tuple[object, JsonValue, str]] = {}
        self._next = 0  # every call before this one was replayed
        self._settings: tuple[tuple[object, ...], JsonValue, str] | None = None
        self._lists: dict[str, _Listed] = {}
        self._last_instructions: tuple[str, str] | None = None

    def fingerprint(self, request: ModelRequest, model: str | None) -> JsonObject:
        """What of a request decides its answer, as JSON, secrets redacted.

        Args:
            request: The request.
            model: The model's name.

        Returns:
            The fingerprint.
        """
        fingerprint: JsonObject = {
            "model": model,
            "instructions": self._instructions(request.instructions),
            "tools": list(self._listed("tools", request.tools, _tool).json),
            "input": list(self._listed("input", request.input, to_json).json),
            "settings": self._settings_json(request.settings),
        }
        if request.output_schema is not None:
            fingerprint["output_schema"] = self._redactor.json(to_json(request.output_schema))
        if request.prompt is not None:
            fingerprint["prompt"] = self._redactor.json(to_json(request.prompt))
        if request.previous_response_id is not None:
            fingerprint["previous_response_id"] = request.previous_response_id
        return fingerprint

    def _instructions(self, instructions: str | None) -> JsonValue:
        """The instructions, redacted: a run's requests most often repeat the last one's."""
        if instructions is None:
            return None
        last = self._last_instructions
        if last is None or last[0] != instructions:
            last = self._last_instructions = (instructions, self._redactor.text(instructions))
        return last[1]

    def _settings_json(self, settings: ModelSettings) -> JsonValue:
        """The settings that are set, as JSON, redacted: made again only when they changed.

        A run's requests carry equal settings (most often the agent's own object); a copy
        of their values is kept to compare with, as settings may be changed between runs.
        """
        values = _setting_values(settings)
        made = self._settings
        if made is not None and made[0] == values:
            return made[1]
        converted = _object(to_json({f.name: getattr(settings, f.name) for f in fields(settings)}))
        found = self._redactor.json({k: v for k, v in converted.items() if v not in (None, {}, [])})
        self._settings = (copy.deepcopy(values), found, _written(found))
        return found

    def _listed(
        self, kind: str, values: Sequence[object], convert: Callable[[object], JsonValue]
    ) -> _Listed:
        """A request's tools' or items' JSON (redacted) and text, each made once.

        Every request of a run holds the conversation so far, and a run's items and tools
        are not changed once made: each is converted at its first request only. The last
        request's list is kept, so that a request repeating it (the same objects, then
        more) converts only what follows, with no look-up for what it repeats.
        """
        last = self._lists.get(kind)
        if last is not None:
            size = len(last.values)
            if len(values) >= size and all(map(operator.is_, values[:size], last.values)):
                if len(values) == size:
                    return last
                tail = [self._made(value, convert) for value in values[size:]]
                listed = _Listed(
                    [*last.values, *values[size:]],
                    [*last.json, *(made[1] for made in tail)],
                    [*last.text, *(made[2] for made in tail)],
                )
                self._lists[kind] = listed
                return listed
        made = [self._made(value, convert) for value in values]
        listed = _Listed(list(values), [m[1] for m in made], [m[2] for m in made])
        self._lists[kind] = listed
        return listed

    def _made(
        self, value: object, convert: Callable[[object], JsonValue]
    ) -> tuple[object, JsonValue, str]:
        """`value`, its JSON (redacted) and that JSON's text as a cassette writes it, made once."""
        found = self._parts.get(id(value))
        if found is None or found[0] is not value:
            if convert is to_json:  # its text is the one `to_json` parses, unless redacted
                text = _written(value, default=_plain)
                plain: JsonValue = json.loads(text)
                json_value = self._redactor.json(plain)
                if json_value != plain:
                    text = _written(json_value)
            else:
                json_value = self._redactor.json(convert(value))
                text = _written(json_value)
            found = self._parts[id(value)] = (value, json_value, text)
        return found

    def _body(self, fingerprint: JsonObject, request: ModelRequest | None) -> str:
        """The fingerprint's fields after its model, as `record` writes them.

        Put together from each tool's and item's text, made once each: every request of
        a run repeats the conversation so far, and encoding it all again at each turn
        (and parsing it again from each line) made a 50-turn replay cost 3-4 times the run.
        """
        made: dict[str, list[str]] = {}
        if request is not None:
            made = {
                "tools": self._listed("tools", request.tools, _tool).text,
                "input": self._listed("input", request.input, to_json).text,
            }
        settings = self._settings
        fields: list[str] = []
        for k, v in fingerprint.items():
            if k == "model":
                continue
            if k in made:
                text = "[" + ", ".join(made[k]) + "]"
            elif settings is not None and v is settings[1]:
                text = settings[2]
            else:
                text = _written(v)
            name = _NAMES.get(k) or f"{_written(k)}: "
            fields.append(name + text)
        return ", ".join(fields)

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

    def replay(
        self,
        fingerprint: JsonObject,
        *,
        any_model: bool = False,
        request: ModelRequest | None = None,
    ) -> Recorded:
        """The first call not yet replayed whose request equals this fingerprint.

        Args:
            fingerprint: The request's fingerprint.
            any_model: Match whatever the model's name (a `ReplayModel` given none).
            request: The request the fingerprint was made of (its parts' text is reused).

        Returns:
            The recorded call.

        Raises:
            CassetteMismatch: If no call left has an equal request.
        """
        calls = self.calls()
        body = self._body(fingerprint, request)
        key: str | None = None  # made only for a call not written as this request
        model = fingerprint.get("model")
        replayed = self._replayed
        for index in range(self._next, len(calls)):
            call = calls[index]
            if call.number in replayed:
                continue
            if not call.written_as(fingerprint, any_model, body):
                if key is None:
                    key = _canonical({k: v for k, v in fingerprint.items() if k != "model"})
                if call.key != key or not (any_model or call.request.get("model") == model):
                    continue
            replayed.add(call.number)
            while self._next < len(calls) and calls[self._next].number in replayed:
                self._next += 1
            return call
        left = [call for call in calls if call.number not in replayed]
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
            call = Recorded(number, line, self)
            if not line.startswith(_WRITTEN_HEAD):
                call.request  # noqa: B018 - not as written: parsed now, refused now if not a call
            calls.append(call)
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


def _written(value: object, default: Callable[[object], object] | None = None) -> str:
    """A value as a cassette's line holds it (`Cassette.record`'s `json.dumps`)."""
    return json.dumps(value, ensure_ascii=False, default=default)


_WRITTEN_HEAD = '{"request": {"model": '
"""How `Cassette.record` starts a line: a fingerprint's first field is its model."""
_DECODER = json.JSONDecoder()
_setting_values: Callable[[ModelSettings], tuple[object, ...]] = operator.attrgetter(
    *(f.name for f in fields(ModelSettings))
)
"""Every field of a `ModelSettings`, as a tuple (quicker to compare than the dataclass)."""
_NAMES = {name: f'"{name}": ' for name in ("instructions", "tools", "input", "settings")}
"""The fingerprint's field names as a line writes them."""


def _as_written(line: str, body: str) -> tuple[JsonValue, JsonObject] | None:
    """The model and answer of a line holding `body` as `Cassette.record` writes it, or None."""
    if not line.startswith(_WRITTEN_HEAD):
        return None
    try:
        model, end = _DECODER.raw_decode(line, len(_WRITTEN_HEAD))
    except ValueError:
        return None
    after = end + len(body) + 4  # `, ` before the body and `}, ` after it
    if not line.startswith(body, end + 2) or not line.startswith("}, ", after - 2):
        return None
    try:
        answer: JsonValue = json.loads("{" + line[after + 1 :])
    except ValueError:
        return None
    if not isinstance(answer, dict) or not ({"response", "events"} & answer.keys()):
        return None
    return model, answer


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
