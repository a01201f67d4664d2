"""TestModel's arguments fit the tools' schemas, and the tools accept them.

For every tool in the test corpus (the parameter types of `test_types`, the reference
tools, the types of `types_for_tests`, the generated signatures of
`test_strict_properties`) and for tools with constrained parameters, in strict and
loose mode: the arguments `TestModel` sends validate against `params_json_schema`
(Draft 2020-12, formats checked) and the tool runs without an argument error. A
Hypothesis property checks `value_for_schema` on generated constrained schemas.
"""

from __future__ import annotations

import datetime
import decimal
import ipaddress
import json
import re
import uuid
from collections.abc import Callable
from typing import Annotated, Any, Literal, Optional
from urllib.parse import urlsplit

import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from jsonschema import Draft202012Validator, FormatChecker
from pydantic import BaseModel, Field

from tooluse import Agent, FunctionTool, Runner, function_tool
from tooluse.testing import TestModel, value_for_schema

from .conftest import tool_context
from .test_reference_tools import fetch_weather, read_file
from .test_strict_properties import Signature, signatures
from .test_types import TYPES
from .types_for_tests import (
    Address,
    Box,
    Branch,
    Color,
    Node,
    Options,
    Point,
    Sparse,
    Stripped,
    Tagged,
    Tree,
    User,
    Window,
)

ARGUMENT_ERROR = "was called with invalid arguments"

# jsonschema checks only the formats whose libraries are installed: the ones TestModel
# makes and that are missing here are checked by these, to RFC 3339 / 3986 / 1123.
FORMATS = FormatChecker()
_TIME = r"\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})"
_DURATION = r"P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?"
_LABEL = r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)"


@FORMATS.checks("date-time")
def _is_date_time(text: object) -> bool:
    if not isinstance(text, str) or not re.fullmatch(rf"\d{{4}}-\d{{2}}-\d{{2}}[Tt]{_TIME}", text):
        return not isinstance(text, str)
    datetime.datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
    return True


@FORMATS.checks("time")
def _is_time(text: object) -> bool:
    return not isinstance(text, str) or re.fullmatch(_TIME, text) is not None


@FORMATS.checks("duration")
def _is_duration(text: object) -> bool:
    return not isinstance(text, str) or re.fullmatch(_DURATION, text) is not None


@FORMATS.checks("hostname")
def _is_hostname(text: object) -> bool:
    if not isinstance(text, str):
        return True
    return len(text) <= 253 and all(re.fullmatch(_LABEL, part) for part in text.split("."))


@FORMATS.checks("uri")
def _is_uri(text: object) -> bool:
    if not isinstance(text, str):
        return True
    parts = urlsplit(text)
    return bool(re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*", parts.scheme)) and " " not in text


def validation_errors(schema: dict[str, Any], instance: Any) -> list[str]:
    validator: Any = Draft202012Validator(schema, format_checker=FORMATS)
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(instance)]


def test_the_added_format_checks_refuse_what_they_should() -> None:
    schema = {"type": "string"}
    for fmt, bad in [
        ("date-time", "2024-01-01"),
        ("time", "12:00"),
        ("duration", "P"),
        ("hostname", "-bad-.example"),
        ("uri", "no scheme"),
        ("date", "2024-13-01"),
        ("uuid", "not-a-uuid"),
        ("ipv4", "300.0.0.1"),
    ]:
        assert validation_errors({**schema, "format": fmt}, bad), fmt


# --- the corpus ---------------------------------------------------------------------


class Level(BaseModel):
    """A model with constrained fields, one of them recursive."""

    name: Annotated[str, Field(min_length=2, max_length=12, pattern=r"^[A-Z][a-z]+$")]
    score: Annotated[float, Field(gt=0, le=1)]
    below: Level | None = None


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: Annotated[int, Field(ge=1, le=9)]


class Dog(BaseModel):
    kind: Literal["dog"]
    name: str


def constrained(
    count: Annotated[int, Field(ge=3, le=9, multiple_of=3)],
    ratio: Annotated[float, Field(gt=0.5, lt=0.75)],
    step: Annotated[float, Field(ge=1, multiple_of=0.25)],
    negative: Annotated[int, Field(lt=-10)],
    code: Annotated[str, Field(pattern=r"^[A-Z]{3}-\d{4}$")],
    slug: Annotated[str, Field(min_length=5, max_length=8, pattern=r"^[a-z]+\d{2}$")],
    word: Annotated[str, Field(min_length=4)],
    short: Annotated[str, Field(max_length=0)],
    version: Annotated[str, pydantic.StringConstraints(pattern=r"^v\d+(\.\d+){2}$")],
    mode: Literal["fast", "slow"],
    answer: Literal[42],
    color: Color,
) -> str:
    del count, ratio, step, negative, code, slug, word, short, version, mode, answer, color
    return "ok"


def formats(
    ident: uuid.UUID,
    ident4: pydantic.UUID4,
    when: datetime.datetime,
    day: datetime.date,
    clock: datetime.time,
    span: datetime.timedelta,
    host: ipaddress.IPv4Address,
    host6: ipaddress.IPv6Address,
    network: ipaddress.IPv4Network,
    anywhere: pydantic.IPvAnyAddress,
    site: pydantic.HttpUrl,
    link: pydantic.AnyUrl,
    secret: pydantic.SecretStr,
    encoded: pydantic.Base64Str,
    payload: pydantic.Json[list[int]],
    size: pydantic.ByteSize,
    amount: Annotated[decimal.Decimal, Field(gt=99, max_digits=4, decimal_places=1)],
) -> str:
    del ident, ident4, when, day, clock, span, host, host6, network, anywhere, site, link
    del secret, encoded, payload, size, amount
    return "ok"


def collections(
    pair: Annotated[list[int], Field(min_length=2, max_length=4)],
    tags: Annotated[set[str], Field(min_length=3)],
    frozen: Annotated[frozenset[Literal["a", "b", "c"]], Field(min_length=2)],
    table: Annotated[dict[str, int], Field(min_length=2)],
    grid: tuple[int, str, bool],
    levels: Annotated[list[Level], Field(min_length=1)],
    pet: Annotated[Cat | Dog, Field(discriminator="kind")],
    maybe: Annotated[int, Field(ge=5)] | None,
    anything: Any,
    optional_word: Annotated[str, Field(min_length=3)] = "abc",
) -> str:
    del pair, tags, frozen, table, grid, levels, pet, maybe, anything, optional_word
    return "ok"


def taking(annotation: Any) -> Callable[..., str]:
    def take(value: Any) -> str:
        del value
        return "ok"

    take.__annotations__ = {"value": annotation, "return": str}
    return take


FUNCTIONS: dict[str, Callable[..., Any]] = {
    **{f"types.{name}": taking(annotation) for name, annotation in TYPES.items()},
    **{
        f"types_for_tests.{cls.__name__}": taking(cls)
        for cls in (
            Address,
            Box,
            Branch,
            Color,
            Node,
            Options,
            Point,
            Sparse,
            Stripped,
            Tagged,
            Tree,
            User,
            Window,
        )
    },
    "reference.fetch_weather": fetch_weather,
    "reference.read_file": read_file,
    "constrained": constrained,
    "formats": formats,
    "collections": collections,
    "optional_level": taking(Optional[Level]),  # noqa: UP045 - as users write it
}
CORPUS = [
    pytest.param(name, strict, id=f"{name}-{'strict' if strict else 'loose'}")
    for name in FUNCTIONS
    for strict in (True, False)
]


async def arguments_and_output(tool: FunctionTool) -> tuple[Any, str]:
    """What TestModel sends the tool in a run, and what the tool answers."""
    result = await Runner.run(Agent("a", tools=[tool], model=TestModel()), "go")
    calls = [i for i in result.new_items if i.get("type") == "function_call"]
    outputs = [i for i in result.new_items if i.get("type") == "function_call_output"]
    assert len(calls) == len(outputs) == 1
    return json.loads(calls[0]["arguments"]), outputs[0]["output"]


@pytest.mark.parametrize(("name", "strict"), CORPUS)
async def test_test_model_arguments_fit_the_schema_and_the_tool(name: str, strict: bool) -> None:
    tool = function_tool(strict_mode=strict)(FUNCTIONS[name])
    arguments, output = await arguments_and_output(tool)
    assert validation_errors(tool.params_json_schema, arguments) == []
    assert ARGUMENT_ERROR not in output
    if name.startswith(("types", "constrained", "formats", "collections", "optional")):
        assert output == "ok"


async def test_constrained_arguments_are_the_simplest_that_fit() -> None:
    arguments, _ = await arguments_and_output(function_tool(constrained))
    assert arguments == {
        "count": 3,
        "ratio": 0.625,
        "step": 1.0,
        "negative": -11,
        "code": "AAA-0000",
        "slug": "aaa00",
        "word": "aaaa",
        "short": "",
        "version": "v0.0.0",
        "mode": "fast",
        "answer": 42,
        "color": "red",
    }


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(signatures())
async def test_test_model_fits_generated_signatures(sig: Signature) -> None:
    arguments, output = await arguments_and_output(sig.tool)
    assert validation_errors(sig.tool.params_json_schema, arguments) == []
    assert output == "ok", output


async def test_an_invocation_with_the_sample_runs_the_function_directly() -> None:
    tool = function_tool(formats)
    text = json.dumps(value_for_schema(tool.params_json_schema))
    assert await tool.on_invoke_tool(tool_context("formats", text), text) == "ok"
