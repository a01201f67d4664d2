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
import functools
import inspect
import ipaddress
import itertools
import json
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Optional, cast
from urllib.parse import urlsplit

import jsonschema.validators
import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator, FormatChecker, ValidationError
from pydantic import BaseModel, Field, TypeAdapter

from tooluse import Agent, FunctionTool, Runner, function_tool
from tooluse.schema._strict import to_strict_schema
from tooluse.testing import TestModel, value_for_schema
from tooluse.testing._regex_sample import strings_matching
from tooluse.testing._schema_check import admits, is_multiple, resolve
from tooluse.testing._schema_hints import UNIQUE_KEYS, with_hints

from .conftest import examples, tool_context
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


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(signatures())
async def test_test_model_fits_generated_signatures(sig: Signature) -> None:
    arguments, output = await arguments_and_output(sig.tool)
    assert validation_errors(sig.tool.params_json_schema, arguments) == []
    assert output == "ok", output


async def test_an_invocation_with_the_sample_runs_the_function_directly() -> None:
    tool = function_tool(formats)
    text = json.dumps(value_for_schema(tool.params_json_schema))
    assert await tool.on_invoke_tool(tool_context("formats", text), text) == "ok"


# --- generated constrained schemas ----------------------------------------------------


@dataclass(frozen=True)
class Drawn:
    """A generated schema node that admits a value, with the definitions it refers to."""

    schema: dict[str, Any]
    wide: bool = False  # admits several distinct values (enough for unique array items)
    defs: dict[str, Any] = field(default_factory=dict[str, Any])


_defs = itertools.count()
STEPS = [1, 2, 3, 5, 10, 0.5, 0.25, 2.5, 0.1]
GAPS = [0, 0.001, 0.1, 0.5, 1, 3, 10, 1000]


@st.composite
def numbers(draw: st.DrawFn) -> Drawn:
    kind = draw(st.sampled_from(["integer", "number"]))
    step = draw(st.none() | st.sampled_from(STEPS))
    inside = draw(st.integers(-1000, 1000)) * (step or 1)
    if kind == "integer" and not float(inside).is_integer():
        inside = round(inside)
        step = (
            None if step is None or float(step).is_integer() else step * 2 if step == 0.5 else None
        )
        inside = inside - inside % (step or 1)
    schema: dict[str, Any] = {"type": kind}
    if step is not None:
        schema["multipleOf"] = step
        if validation_errors(schema, inside):  # 71.3 / 0.1 is not whole in floating point
            inside = 0
    below, above = draw(st.sampled_from(GAPS)), draw(st.sampled_from(GAPS))
    if draw(st.booleans()):
        key = "exclusiveMinimum" if below and draw(st.booleans()) else "minimum"
        schema[key] = inside - below
    if draw(st.booleans()):
        key = "exclusiveMaximum" if above and draw(st.booleans()) else "maximum"
        schema[key] = inside + above
    bounded = "minimum" in schema or "exclusiveMinimum" in schema
    bounded = bounded and ("maximum" in schema or "exclusiveMaximum" in schema)
    wide = not bounded or (below + above) / (step or 1) >= 12
    return Drawn(schema, wide)


# Regular expressions drawn together with a string they match in full.
REGEX_ATOMS = st.sampled_from(
    [
        *[("a", "a"), ("Z", "Z"), ("0", "0"), ("-", "-"), ("_", "_"), (r"\.", "."), (r"\d", "7")],
        *[(r"\w", "k"), (r"\s", " "), ("[a-z]", "m"), ("[A-F0-9]", "C"), ("[^a-c]", "x")],
        *[("[a-z0-9_]", "_"), (".", "?"), (r"\D", "d"), (r"\W", "-"), (r"[\w.-]", ".")],
        ("[0-9]", "5"),
    ]
)
QUANTIFIERS = st.sampled_from(
    [
        *[("", 1, 1), ("?", 0, 1), ("*", 0, 3), ("+", 1, 3), ("{2}", 2, 2), ("{1,3}", 1, 3)],
        *[("{0,2}", 0, 2), ("{2,}", 2, 4), ("+?", 1, 3)],
    ]
)
Regex = tuple[str, str]


@st.composite
def quantified(draw: st.DrawFn, inner: st.SearchStrategy[Regex], group: bool) -> Regex:
    pattern, witness = draw(inner)
    quantifier, least, most = draw(QUANTIFIERS)
    pattern = f"(?:{pattern})" if group else pattern
    return pattern + quantifier, witness * draw(st.integers(least, most))


@st.composite
def alternation(draw: st.DrawFn, inner: st.SearchStrategy[Regex]) -> Regex:
    branches = draw(st.lists(inner, min_size=2, max_size=3))
    chosen = draw(st.sampled_from(branches))
    return "|".join(pattern for pattern, _ in branches), chosen[1]


def sequence(parts: list[Regex]) -> Regex:
    return "".join(p for p, _ in parts), "".join(w for _, w in parts)


REGEXES = st.recursive(
    quantified(REGEX_ATOMS, group=False),
    lambda inner: st.one_of(
        st.lists(inner, min_size=1, max_size=4).map(sequence),
        quantified(alternation(inner), group=True),
    ),
    max_leaves=8,
)

FORMAT_NAMES = [
    *["date-time", "date", "time", "duration", "email", "hostname", "uri", "uuid"],
    *["ipv4", "ipv6"],
]


@st.composite
def strings(draw: st.DrawFn) -> Drawn:
    shape = draw(st.sampled_from(["plain", "format", "pattern"]))
    if shape == "format":
        return Drawn({"type": "string", "format": draw(st.sampled_from(FORMAT_NAMES))}, True)
    schema: dict[str, Any] = {"type": "string"}
    if shape == "pattern":
        pattern, witness = draw(REGEXES)
        start, end = draw(st.sampled_from(["", "^"])), draw(st.sampled_from(["", "$"]))
        schema["pattern"] = f"{start}{pattern}{end}"
        assert re.fullmatch(schema["pattern"], witness)
        length = len(witness)
    else:
        length = draw(st.integers(0, 6))
    if draw(st.booleans()):
        schema["minLength"] = length - draw(st.integers(0, length))
    if draw(st.booleans()):
        schema["maxLength"] = length + draw(st.integers(0, 3))
    return Drawn(schema, shape == "plain" and schema.get("maxLength", 1) >= 1)


SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=3))


@st.composite
def choices(draw: st.DrawFn) -> Drawn:
    values = draw(st.lists(SCALARS, min_size=1, max_size=5, unique_by=json.dumps))
    if len(values) == 1 and draw(st.booleans()):
        return Drawn({"const": values[0]})
    return Drawn({"enum": values}, len(values) >= 4)


def nullable(drawn: Drawn) -> Drawn:
    kind = drawn.schema.get("type")
    if not isinstance(kind, str):
        return Drawn({"anyOf": [drawn.schema, {"type": "null"}]}, drawn.wide, drawn.defs)
    return Drawn({**drawn.schema, "type": [kind, "null"]}, drawn.wide, drawn.defs)


def referenced(drawn: Drawn) -> Drawn:
    name = f"D{next(_defs)}"
    return Drawn({"$ref": f"#/$defs/{name}"}, drawn.wide, {**drawn.defs, name: drawn.schema})


LEAF_SCHEMAS = st.one_of(numbers(), strings(), choices(), st.just(Drawn({"type": "boolean"})))


def _merged_defs(parts: list[Drawn]) -> dict[str, Any]:
    return {name: node for part in parts for name, node in part.defs.items()}


@st.composite
def arrays(draw: st.DrawFn, items: st.SearchStrategy[Drawn]) -> Drawn:
    item = draw(items)
    least = draw(st.integers(0, 3))
    schema: dict[str, Any] = {"type": "array", "items": item.schema, "minItems": least}
    if draw(st.booleans()):
        schema["maxItems"] = least + draw(st.integers(0, 2))
    if item.wide and draw(st.booleans()):
        schema["uniqueItems"] = True
    return Drawn(schema, False, item.defs)


@st.composite
def objects(draw: st.DrawFn, values: st.SearchStrategy[Drawn]) -> Drawn:
    parts = draw(st.lists(values, min_size=1, max_size=4))
    names = [f"p{index}" for index in range(len(parts))]
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {name: part.schema for name, part in zip(names, parts, strict=True)},
        "required": [name for name in names if draw(st.booleans())],
    }
    if draw(st.booleans()):
        schema["additionalProperties"] = False
    return Drawn(schema, any(part.wide for part in parts), _merged_defs(parts))


@st.composite
def dicts(draw: st.DrawFn, values: st.SearchStrategy[Drawn]) -> Drawn:
    value = draw(values)
    schema: dict[str, Any] = {
        "type": "object",
        "additionalProperties": value.schema,
        "minProperties": draw(st.integers(0, 3)),
    }
    if draw(st.booleans()):
        schema["propertyNames"] = {"pattern": "^[a-z]+$", "maxLength": 4}
    return Drawn(schema, True, value.defs)


@st.composite
def unions(draw: st.DrawFn, branches: st.SearchStrategy[Drawn]) -> Drawn:
    parts = draw(st.lists(branches, min_size=2, max_size=3))
    schemas = [part.schema for part in parts]
    return Drawn({"anyOf": schemas}, any(p.wide for p in parts), _merged_defs(parts))


@st.composite
def exclusive_unions(draw: st.DrawFn) -> Drawn:
    """`oneOf` over branches of different JSON types, so at most one admits a value."""
    makers = {
        "number": numbers(),
        "string": strings(),
        "boolean": st.just(Drawn({"type": "boolean"})),
        "null": st.just(Drawn({"type": "null"})),
        "array": arrays(LEAF_SCHEMAS),
    }
    kinds = draw(st.lists(st.sampled_from(list(makers)), min_size=2, max_size=4, unique=True))
    parts = [draw(makers[kind]) for kind in kinds]
    return Drawn(
        {"oneOf": [p.schema for p in parts]}, any(p.wide for p in parts), _merged_defs(parts)
    )


@st.composite
def all_of_objects(draw: st.DrawFn, values: st.SearchStrategy[Drawn]) -> Drawn:
    """`allOf` of two open objects with different properties."""
    first, second = draw(values), draw(values)
    schemas = [
        {"type": "object", "properties": {"a": first.schema}, "required": ["a"]},
        {"type": "object", "properties": {"b": second.schema}, "required": ["b"]},
    ]
    return Drawn({"allOf": schemas}, first.wide or second.wide, _merged_defs([first, second]))


def recursive_lists(value: Drawn) -> Drawn:
    """A definition that refers to itself twice: a linked list and a tree in one."""
    name = f"R{next(_defs)}"
    ref = {"$ref": f"#/$defs/{name}"}
    node = {
        "type": "object",
        "properties": {
            "value": value.schema,
            "next": {"anyOf": [ref, {"type": "null"}]},
            "children": {"type": "array", "items": ref},
        },
        "required": ["value", "next", "children"],
        "additionalProperties": False,
    }
    return Drawn(ref, value.wide, {**value.defs, name: node})


def _extend(inner: st.SearchStrategy[Drawn]) -> st.SearchStrategy[Drawn]:
    return st.one_of(
        arrays(inner),
        objects(inner),
        dicts(inner),
        unions(inner),
        all_of_objects(inner),
        inner.map(nullable),
        inner.map(referenced),
        inner.map(recursive_lists),
    )


SCHEMAS = st.recursive(st.one_of(LEAF_SCHEMAS, exclusive_unions()), _extend, max_leaves=8)


@settings(max_examples=examples(1000), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SCHEMAS)
def test_the_sample_of_a_constrained_schema_validates(drawn: Drawn) -> None:
    schema = {**drawn.schema, "$defs": drawn.defs} if drawn.defs else drawn.schema
    Draft202012Validator.check_schema(schema)
    value = value_for_schema(schema)
    # Float multiples as pydantic (the tools' validator) takes them: within its tolerance.
    # Python's jsonschema wants an exact quotient, which [-66.10000000000001, -66.099] with
    # multipleOf 0.1 has no float for.
    validator: Any = PydanticDraft(schema, format_checker=FORMATS)
    assert [e.message for e in validator.iter_errors(value)] == [], (schema, value)


# --- generated signatures with constrained parameters ----------------------------------


@st.composite
def constrained_ints(draw: st.DrawFn) -> Any:
    step = draw(st.sampled_from([None, 1, 2, 3, 7]))
    low = draw(st.integers(-100, 100))
    low -= low % (step or 1)  # a multiple, so the range holds one
    high = low + draw(st.integers(0, 50))
    if draw(st.booleans()):
        return Annotated[int, Field(ge=low, le=high, multiple_of=step)]
    return Annotated[int, Field(gt=low - 1, lt=high + 1, multiple_of=step)]


@st.composite
def constrained_floats(draw: st.DrawFn) -> Any:
    low = draw(st.floats(-1e6, 1e6, allow_nan=False))
    width = draw(st.sampled_from([0.001, 0.5, 10.0, 1e6]))
    return Annotated[float, Field(gt=low, lt=low + width)]


@st.composite
def constrained_strs(draw: st.DrawFn) -> Any:
    if draw(st.booleans()):
        least = draw(st.integers(0, 5))
        return Annotated[str, Field(min_length=least, max_length=least + draw(st.integers(0, 3)))]
    pattern, witness = draw(REGEXES)
    pattern = f"^{pattern}$"
    least = len(witness) - draw(st.integers(0, len(witness)))
    return Annotated[str, Field(pattern=pattern, min_length=least)]


@st.composite
def constrained_collections(draw: st.DrawFn) -> Any:
    size = draw(st.integers(0, 3))
    letters = Literal["a", "b", "c", "d"]
    return draw(
        st.sampled_from(
            [
                Annotated[set[int], Field(min_length=size)],
                Annotated[frozenset[letters], Field(min_length=size)],
                Annotated[list[Annotated[int, Field(ge=0, le=2)]], Field(min_length=size)],
                Annotated[dict[str, Annotated[int, Field(ge=5)]], Field(min_length=size)],
                Annotated[dict[letters, bool], Field(min_length=size)],
            ]
        )
    )


FORMAT_TYPES = st.sampled_from(
    [
        *[uuid.UUID, pydantic.UUID4, datetime.datetime, datetime.date, datetime.time],
        *[datetime.timedelta, ipaddress.IPv4Address, ipaddress.IPv6Address, pydantic.HttpUrl],
    ]
)
CONSTRAINED = st.one_of(
    constrained_ints(),
    constrained_floats(),
    constrained_strs(),
    constrained_collections(),
    FORMAT_TYPES,
    # pydantic cannot read an integer past 64 bits from JSON for a Literal: kept within.
    st.lists(
        st.text(max_size=3) | st.integers(-(2**53), 2**53), min_size=1, max_size=4, unique=True
    ).map(
        lambda values: Literal[tuple(values)]  # type: ignore[valid-type]
    ),
)
ANNOTATIONS = st.recursive(
    CONSTRAINED,
    lambda inner: inner.map(lambda a: Optional[a]) | inner.map(lambda a: list[a]),  # noqa: UP045
    max_leaves=2,
)


@st.composite
def constrained_tools(draw: st.DrawFn) -> FunctionTool:
    annotations = {f"p{i}": draw(ANNOTATIONS) for i in range(draw(st.integers(1, 3)))}

    def call(**kwargs: Any) -> str:
        del kwargs
        return "ok"

    parameters = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation)
        for name, annotation in annotations.items()
    ]
    call.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    call.__annotations__ = annotations
    return function_tool(strict_mode=draw(st.booleans()))(call)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constrained_tools())
async def test_test_model_fits_generated_constrained_signatures(tool: FunctionTool) -> None:
    arguments, output = await arguments_and_output(tool)
    assert validation_errors(tool.params_json_schema, arguments) == []
    assert output == "ok", (tool.params_json_schema, arguments, output)


# --- strings for a pattern -------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "lengths", "first"),
    [
        (r"^[a-z]+\d{2}$", (5, 8), "aaa00"),
        (r"^\d{3}-\d{4}$", (0, None), "000-0000"),
        (r"^(foo|bar)+$", (7, None), "foofoofoo"),
        (r"^(aaa|b)+$", (2, 2), "bb"),
        (r"^(?P<year>\d{4})-(?P<month>\d{2})$", (0, None), "0000-00"),
        (r"^(?<year>\d{4})$", (0, None), "0000"),  # ECMA's named group, which `re` lacks
        (r"^[^a-c]$", (0, None), "d"),
        (r"^\x41\u0042\.\n$", (0, None), "AB.\n"),
        (r"^a{,2}b$", (0, None), "b"),
        (r"^a{x}$", (0, None), "a{x}"),
        (r"^[\d\-x]{2}\S\W\D$", (0, None), "xxa-a"),
        (r"^a+?b*+$", (3, None), "abb"),
        (r"abc", (6, None), "abcaaa"),
        (r"^\bword\B?$", (0, None), "word"),
        (r"^(?:)$", (0, None), ""),
        (r"^\d{1000}$", (0, None), "0" * 1000),
        (r"(?=.*\d)\w+", (0, None), "0"),  # a lookahead: the plain candidates, checked
        (r"\p{L}+", (0, None), "a"),  # not Python's syntax: unchecked candidates
    ],
)
def test_strings_for_a_pattern(pattern: str, lengths: tuple[int, int | None], first: str) -> None:
    found = list(strings_matching(pattern, *lengths))
    assert found[0] == first
    assert found == list(strings_matching(pattern, *lengths))  # deterministic
    assert len(set(found)) == len(found)
    assert all(_search_or_true(pattern, text) for text in found)


@pytest.mark.parametrize(
    ("pattern", "lengths"),
    [
        (r"^(a)\1$", (0, None)),
        (r"^x{2,}y?$", (0, 1)),
        (r"^\d{100}$", (0, 99)),
    ],
)
def test_patterns_nothing_fits(pattern: str, lengths: tuple[int, int | None]) -> None:
    assert list(strings_matching(pattern, *lengths)) == []


@pytest.mark.parametrize(
    "pattern", ["a)", "*a", r"[\b]", r"\u00", "(?=a", "(?i)x+", "[z-a]", "a\\", "(a", r"[^\w\W]"]
)
def test_unsupported_patterns_fall_back_to_plain_candidates(pattern: str) -> None:
    found = list(strings_matching(pattern))
    assert found == [text for text in found if _search_or_true(pattern, text)]


def _search_or_true(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return True


# --- the checker agrees with jsonschema ------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-20, 20) | st.floats(-20, 20) | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3)
    ),
    max_leaves=6,
)


@functools.cache
def float_multiples(step: float) -> pydantic.TypeAdapter[float]:
    return pydantic.TypeAdapter(Annotated[float, Field(multiple_of=step)])


def pydantic_multiple_of(validator: Any, step: Any, instance: Any, schema: Any) -> Any:
    """`multipleOf` as the tool's pydantic model checks it: floats within its tolerance."""
    del schema
    if not validator.is_type(instance, "number"):
        return
    if isinstance(step, int) and isinstance(instance, int):
        fits = instance % step == 0
    else:
        try:
            float_multiples(step).validate_python(instance)
            fits = True
        except pydantic.ValidationError:
            fits = False
    if not fits:
        yield ValidationError(f"{instance!r} is not a multiple of {step!r}")


# Draft 2020-12 with pydantic's `multipleOf`: what the checker claims to decide.
PydanticDraft: Any = cast(Any, jsonschema.validators).extend(
    Draft202012Validator, {"multipleOf": pydantic_multiple_of}
)


@settings(max_examples=examples(500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SCHEMAS, JSON_VALUES, st.data())
def test_the_checker_agrees_with_jsonschema(drawn: Drawn, value: Any, data: st.DataObject) -> None:
    schema = {**drawn.schema, "$defs": drawn.defs} if drawn.defs else drawn.schema
    sample = value_for_schema(schema)
    for candidate in (value, sample, data.draw(mutations(sample))):
        validator = PydanticDraft(schema)
        assert admits(schema, candidate, schema) == validator.is_valid(candidate), candidate


def mutations(value: Any) -> st.SearchStrategy[Any]:
    """The value with one part replaced by another JSON value."""
    if isinstance(value, dict) and value:
        mapping = cast(dict[str, Any], value)
        return st.sampled_from(sorted(mapping)).flatmap(
            lambda key: mutations(mapping[key]).map(lambda inner: {**mapping, key: inner})
        )
    if isinstance(value, list) and value:
        items = cast(list[Any], value)
        return st.integers(0, len(items) - 1).flatmap(
            lambda i: mutations(items[i]).map(lambda inner: [*items[:i], inner, *items[i + 1 :]])
        )
    return JSON_VALUES


@pytest.mark.parametrize(
    ("schema", "value", "fits"),
    [
        ({"dependentRequired": {"a": ["b"]}}, {"a": 1}, False),
        ({"dependentSchemas": {"a": {"required": ["b"]}}}, {"a": 1, "b": 2}, True),
        ({"if": {"type": "integer"}, "then": {"minimum": 3}, "else": {"type": "string"}}, 2, False),
        (
            {"if": {"type": "integer"}, "then": {"minimum": 3}, "else": {"type": "string"}},
            "x",
            True,
        ),
        ({"not": {"type": "null"}}, None, False),
        (
            {"patternProperties": {"^x": {"type": "integer"}}, "additionalProperties": False},
            {"xa": 1},
            True,
        ),
        ({"patternProperties": {"^x": {"type": "integer"}}}, {"xa": "1"}, False),
        ({"prefixItems": [{"type": "integer"}], "items": False}, [1, 2], False),
        ({"$ref": "#/$defs/missing"}, 1, False),
        ({"$ref": "https://example.com/schema"}, 1, False),
        ({"pattern": r"\p{L}"}, "1", True),  # a pattern `re` cannot read is taken as matching
        ({"contentMediaType": "application/json", "contentSchema": {"type": "array"}}, "[1]", True),
        ({"contentMediaType": "application/json", "contentSchema": {"type": "array"}}, "{", False),
        ({"multipleOf": 0}, 3, True),
        ({"type": "integer"}, 2.0, True),
        ({"const": 1}, True, False),
        ({"$defs": {"a": {"type": "string"}}, "items": {"$ref": "#/$defs/a"}}, ["x"], True),
        ({"items": [{"$ref": "#/items/1"}, {"type": "null"}]}, 1, True),
        ({"uniqueItems": True}, [1, 1.0], False),
        ({"items": None}, [1], True),  # not a schema: nothing to check
    ],
)
def test_the_checker_on_rarer_keywords(schema: dict[str, Any], value: Any, fits: bool) -> None:
    assert admits(schema, value, schema) is fits


def test_references_resolve_as_json_pointers() -> None:
    root = {"$defs": {"a/b": {"type": "integer"}, "c~d": [{"const": 1}]}}
    assert resolve(root, "#/$defs/a~1b") == {"type": "integer"}
    assert resolve(root, "#/$defs/c~0d/0") == {"const": 1}
    assert resolve(root, "#/$defs/c~0d/5") is None
    assert resolve(root, "#") is root


# --- float multiples -------------------------------------------------------------------


def between_tenths(value: Annotated[float, Field(multiple_of=0.1, gt=0.2, lt=0.4)]) -> str:
    return f"{value!r}"


def a_price(value: Annotated[float, Field(multiple_of=0.01, ge=19.99, le=19.99)]) -> str:
    return f"{value!r}"


@pytest.mark.parametrize("strict", [True, False])
@pytest.mark.parametrize(("function", "sent"), [(between_tenths, 0.3), (a_price, 19.99)])
async def test_a_float_multiple_in_a_narrow_range_is_sent_and_accepted(
    function: Callable[..., str], sent: float, strict: bool
) -> None:
    tool = function_tool(strict_mode=strict)(function)
    arguments, output = await arguments_and_output(tool)
    assert arguments == {"value": sent}
    assert output == repr(sent)  # pydantic took it, though jsonschema wants a whole quotient
    assert admits(tool.params_json_schema, arguments, tool.params_json_schema)


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"multipleOf": 0.01, "minimum": 0.07, "maximum": 0.07}, 0.07),  # ceil(0.07 / 0.01) is 8
        ({"multipleOf": 0.01, "exclusiveMinimum": 0.07, "exclusiveMaximum": 0.09}, 0.08),
        ({"multipleOf": 0.1, "minimum": -0.35, "maximum": -0.25}, -0.3),
        ({"multipleOf": 1e-05, "minimum": 0.00003, "maximum": 0.00003}, 3e-05),
        ({"multipleOf": 2.5, "exclusiveMinimum": 5, "maximum": 7.5}, 7.5),
        ({"multipleOf": 0.1, "minimum": 0.25}, 0.4),  # 0.3 / 0.1 is not whole: 0.4 is, first
        ({"multipleOf": 0.1, "exclusiveMinimum": 0.3, "exclusiveMaximum": 0.4}, None),
    ],
)
def test_float_multiples_are_counted_in_the_numbers_as_written(
    schema: dict[str, Any], expected: float | None
) -> None:
    assert value_for_schema({"type": "number", **schema}) == expected


def test_integers_within_float_bounds_are_exact() -> None:
    assert value_for_schema({"type": "integer", "minimum": 1e20}) == 10**20
    assert value_for_schema({"type": "integer", "multipleOf": 0.5, "exclusiveMinimum": 2.0}) == 3


@pytest.mark.parametrize(
    ("value", "step", "fits"),
    [
        (0.3, 0.1, True),
        (-0.3, 0.1, True),
        (19.99, 0.01, True),
        (0.35, 0.1, False),
        (1 + 2e-9, 1, False),
        (1 + 1e-10, 1, True),
        (7, 2, False),
        (10**30 + 1, 10**30, False),  # integers divide exactly, whatever their size
        (10**400, 0.5, False),  # no float holds it
    ],
)
def test_multiples_are_judged_as_pydantic_judges_them(
    value: float, step: float, fits: bool
) -> None:
    assert is_multiple(value, step) is fits
    if not isinstance(value, int) or value < 2**53:
        assert PydanticDraft({"multipleOf": step}).is_valid(value) is fits


@settings(max_examples=examples(300), deadline=None)
@given(
    st.sampled_from(["0.1", "0.01", "0.05", "0.3", "0.001", "2.5", "1e-05", "0.07", "3"]),
    st.integers(-(10**6), 10**6),
    st.integers(0, 2),
    st.booleans(),
)
def test_a_float_multiple_within_written_bounds_is_found(
    step: str, k: int, width: int, is_open: bool
) -> None:
    unit = decimal.Decimal(step)
    low, high = float(unit * k), float(unit * (k + width))
    if is_open:
        bounds = Field(
            multiple_of=float(unit), gt=float(unit * (k - 1)), lt=float(unit * (k + width + 1))
        )
    else:
        bounds = Field(multiple_of=float(unit), ge=low, le=high)
    adapter = pydantic.TypeAdapter(Annotated[float, bounds])
    value = value_for_schema(adapter.json_schema())
    assert low <= value <= high
    adapter.validate_python(value)


# --- value_for_schema, case by case -----------------------------------------------------

NODE = {
    "type": "object",
    "properties": {
        "label": {"type": "string"},
        "next": {"anyOf": [{"$ref": "#"}, {"type": "null"}]},
    },
    "required": ["label", "next"],
    "additionalProperties": False,
}


def depth_of(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((depth_of(v) for v in cast(dict[str, Any], value).values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth_of(v) for v in cast(list[Any], value)), default=0)
    return 0


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "string", "examples": ["hello", 3]}, "hello"),
        ({"type": "string", "examples": [3]}, "a"),
        ({"oneOf": [{"type": "integer"}, {"type": "number"}]}, 0.5),
        ({"type": "number", "multipleOf": 0.1, "minimum": 0.25}, 0.4),
        ({"type": "integer", "multipleOf": 0.5, "minimum": 0.7}, 1),
        ({"type": "integer", "exclusiveMinimum": 3, "exclusiveMaximum": 5}, 4),
        ({"type": "number", "minimum": 2.5, "maximum": 2.5}, 2.5),
        ({"type": ["integer", "null"], "minimum": 1}, 1),
        ({"enum": ["x", "yy", "zzz"], "minLength": 2}, "yy"),
        ({"type": "string", "format": "uuid4"}, "12345678-1234-4234-8234-000000000000"),
        ({"type": "string", "format": "binary"}, "a"),
        ({"type": "string", "format": "date", "pattern": r"^\d{4}-01-02$"}, "2024-01-02"),
        ({"type": "string", "contentMediaType": "application/json"}, "null"),
        (
            {
                "type": "string",
                "contentMediaType": "application/json",
                "contentSchema": {"type": "array", "minItems": 1},
            },
            "[null]",
        ),
        ({"type": "array", "items": {"enum": [1, 2]}, "minItems": 3}, [1, 2, 1]),
        ({"type": "array", "items": {"enum": [1, 2]}, "minItems": 3, "uniqueItems": True}, None),
        (
            {"type": "array", "prefixItems": [{"const": 1}, {"type": "string"}], "minItems": 2},
            [1, "a"],
        ),
        (
            {"type": "object", "minProperties": 2, "additionalProperties": {"type": "boolean"}},
            {"a": False, "b": False},
        ),
        ({"type": "object", "minProperties": 1, "additionalProperties": False}, {}),
        ({"type": "object", "required": ["a"], "additionalProperties": False}, {}),
        ({"type": "object", "required": ["a"]}, {"a": None}),
        ({"type": "object", "propertyNames": {"enum": ["k"]}, "minProperties": 2}, {}),
        (
            {
                "allOf": [
                    {"properties": {"a": {"type": "integer"}}},
                    {"properties": {"a": {"minimum": 2}}},
                ]
            },
            {"a": 2},
        ),
        ({"anyOf": [{"type": "string"}, {"type": "integer"}], "minimum": 1, "maxLength": 0}, ""),
        ({"$ref": "#/definitions/A", "definitions": {"A": {"const": "draft-07"}}}, "draft-07"),
        ({"$ref": "#/$defs/missing"}, None),
        ({"not": {}}, None),
        ({"anyOf": [{"$ref": "#"}, {"type": "null"}]}, None),  # a cycle that ends, for null
        ({"minimum": 3}, 3.0),
        ({}, None),
        ({"type": "weird"}, None),
        ({"type": "array", "maxItems": 0}, []),
        ({"type": "object", "properties": {"a": {"not": {}}}}, {}),
        ({"type": "object", "minProperties": 1, "additionalProperties": {"not": {}}}, {}),
        (
            {
                "properties": {"a": {"type": "integer"}},
                "dependentRequired": {"a": ["b"]},
                "additionalProperties": False,
            },
            {},
        ),
        (
            {
                "type": "array",
                "items": {"type": "object", "additionalProperties": {"type": "integer"}},
                "minItems": 3,
                "uniqueItems": True,
            },
            [{}, {"a": 0}, {"b": 0}],
        ),
        (
            {
                "type": "array",
                "items": {"type": "string", "maxLength": 1},
                "minItems": 36,
                "uniqueItems": True,
            },
            [*"abcdefghijklmnopqrstuvwxyz0123456789"],
        ),
        (
            {
                "type": "array",
                "items": {"type": "string", "maxLength": 1},
                "minItems": 37,
                "uniqueItems": True,
            },
            None,
        ),
    ],
)
def test_value_for_schema(schema: dict[str, Any], expected: Any) -> None:
    value = value_for_schema(schema)
    assert value == expected
    assert type(value) is type(expected)


def test_value_for_schema_reads_a_strict_schemas_words() -> None:
    schema = function_tool(collections).params_json_schema
    value = value_for_schema(schema)
    assert value["tags"] == ["a", "b", "c"]  # "Items must be unique."
    assert value["table"] == [{"key": "a", "value": 0}, {"key": "b", "value": 0}]  # distinct keys
    assert value["optional_word"] == "aaa"  # "At least 3 characters long."
    assert value["anything"] == "null"  # any JSON value, as JSON text
    described = {
        "type": "string",
        "description": 'Must satisfy x-broken: {. Must satisfy contentSchema: {"const": 2}.',
    }
    assert value_for_schema({**described, "contentMediaType": "application/json"}) == "2"
    assert value_for_schema(
        {"type": "string", "description": "Format: uri. At most 30 characters long."}
    ) == ("https://example.com/")


@pytest.mark.parametrize(
    ("description", "hints"),
    [
        ("Format: YYYY-MM-DD. Use the local date.", {}),  # the user's words, not at the end
        ("Dates as YYYY-MM-DD. At least 10 characters long.", {"minLength": 10}),
        ("At least 3 characters long, please.", {}),
        ("Keep it short.At most 3 characters long.", {}),  # the transform puts a space between
        ("Format: date. Format: uri.", {"format": "uri"}),  # the later sentence wins
        ('Defaults to "x. y". Examples: [1, 2]. Deprecated. Null leaves it out.', {}),
        (
            "The tuple's 2 items in order, as item_0, item_1. At most 2 entries.",
            {"maxProperties": 2},
        ),
        ('Must satisfy x-unit: "kg". Items must be unique.', {"x-unit": "kg", "uniqueItems": True}),
        ("Must satisfy x-unit: kg. At most 4 characters long.", {"maxLength": 4}),
        ("Must satisfy x-unit: 1 At most 4 characters long.", {"maxLength": 4}),
        ("Text. Format: .", {}),
    ],
)
def test_only_the_transforms_sentences_at_the_end_are_read(
    description: str, hints: dict[str, Any]
) -> None:
    node = {"type": "string", "description": description}
    assert with_hints(node) == {**hints, **node}


def test_every_sentence_the_transform_writes_is_read_back() -> None:
    loose = {
        "type": "object",
        "properties": {
            "text": {
                "type": "string",
                "minLength": 2,
                "maxLength": 5,
                "format": "uri",
                "description": "Format: YYYY-MM-DD.",  # the user's, then the transform's
            },
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            "table": {
                "type": "object",
                "properties": {"a": {"type": "integer"}},
                "additionalProperties": {"type": "integer"},
                "minProperties": 1,
                "maxProperties": 3,
            },
            "pairs": {"type": "object", "additionalProperties": {"type": "integer"}},
            "anything": {"description": "Whatever you like."},
            "weight": {
                "type": "integer",
                "x-unit": "kg",
                "default": 3,
                "examples": [1],
                "deprecated": True,
            },
        },
    }
    strict = to_strict_schema(loose, adapters=True).schema
    read = {name: with_hints(node) for name, node in strict["properties"].items()}
    assert {key: read["text"][key] for key in ("minLength", "maxLength", "format")} == {
        "minLength": 2,
        "maxLength": 5,
        "format": "uri",
    }
    assert read["tags"]["uniqueItems"] is True
    assert (read["table"]["minProperties"], read["table"]["maxProperties"]) == (1, 3)
    assert read["pairs"][UNIQUE_KEYS] == "key"
    assert read["anything"]["contentMediaType"] == "application/json"
    assert read["weight"]["x-unit"] == "kg"


def unknown_formats(
    site: Annotated[pydantic.HttpUrl, Field(description="Format: YYYY-MM-DD.")],
    day: Annotated[datetime.date, Field(description="Format: YYYY-MM-DD.")],
    text: Annotated[str, Field(description="Format: YYYY-MM-DD.")],
    other: Annotated[str, Field(json_schema_extra={"format": "x-own"})],
) -> str:
    del site, day, text, other
    return "ok"


@pytest.mark.parametrize("strict", [True, False])
async def test_a_format_in_the_users_words_or_unknown_does_not_break_sampling(
    strict: bool,
) -> None:
    _, output = await arguments_and_output(function_tool(strict_mode=strict)(unknown_formats))
    assert output == "ok"


def loose_words(
    code: Annotated[str, Field(max_length=2, description="Send it. At least 3 characters long.")],
) -> str:
    return code


async def test_a_loose_tools_descriptions_are_only_words() -> None:
    arguments, output = await arguments_and_output(function_tool(strict_mode=False)(loose_words))
    assert arguments == {"code": "a"}
    assert output == "a"


def test_value_for_schema_takes_definitions_apart() -> None:
    assert value_for_schema({"$ref": "#/$defs/A"}, {"A": {"type": "integer", "minimum": 4}}) == 4


def test_recursive_schemas_end() -> None:
    value = value_for_schema(NODE)
    assert validation_errors(NODE, value) == []
    assert 1 < depth_of(value) < 10
    tree = {
        "$defs": {
            "T": {
                "type": "object",
                "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/T"}}},
                "required": ["kids"],
            }
        },
        "$ref": "#/$defs/T",
    }
    assert value_for_schema(tree) == {"kids": []}


def test_a_schema_nothing_satisfies_gives_an_empty_object_quickly() -> None:
    endless = {"type": "object", "properties": {"a": {"$ref": "#"}}, "required": ["a"]}
    assert value_for_schema(endless) == {"a": {"a": {"a": {}}}}  # the levels near the top
    doubling: dict[str, Any] = {"$defs": {}, "$ref": "#/$defs/L0"}
    for level in range(40):  # each level needs the next one twice, and the last is impossible
        nxt = {"$ref": f"#/$defs/L{level + 1}"}
        doubling["$defs"][f"L{level}"] = {
            "anyOf": [
                {"type": "array", "items": nxt, "minItems": 1},
                {"type": "object", "properties": {"x": nxt}, "required": ["x"]},
            ]
        }
    doubling["$defs"]["L40"] = {"not": {}}
    assert value_for_schema(doubling) is None
    assert (
        value_for_schema({"type": "object", "$ref": "#/$defs/L0", "$defs": doubling["$defs"]}) == {}
    )


class Halfway(BaseModel):
    flag: bool
    between: Annotated[int, Field(gt=1, lt=2)]


def partly_possible(
    count: int, impossible: Annotated[str, Field(min_length=3, max_length=2)], inner: Halfway
) -> str:
    del count, impossible, inner
    return "ok"


@pytest.mark.parametrize("strict", [True, False])
async def test_the_properties_that_can_be_made_are_sent(strict: bool) -> None:
    arguments, output = await arguments_and_output(
        function_tool(strict_mode=strict)(partly_possible)
    )
    assert arguments == {"count": 0, "inner": {"flag": False}}
    problems = [line for line in output.splitlines() if line.startswith("- ")]
    assert problems == [
        "- impossible: required field is missing",
        "- inner.between: required field is missing",
    ]


def must_be_odd(number: int) -> int:
    if number % 2 == 0:
        raise ValueError("must be odd")
    return number


def not_a(text: str) -> str:
    if text == "a":
        raise ValueError("must not be 'a'")
    return text


class Switch(BaseModel):
    on: bool
    label: str

    @pydantic.model_validator(mode="after")
    def must_be_on(self) -> Switch:
        if not self.on:
            raise ValueError("must be on")
        return self


def picky(
    odd: Annotated[int, pydantic.AfterValidator(must_be_odd)],
    word: Annotated[str, pydantic.AfterValidator(not_a)],
    switch: Switch,
    plain: int,
) -> str:
    return f"{odd} {word} {switch.on} {plain}"


@pytest.mark.parametrize("strict", [True, False])
async def test_a_decorated_tools_validator_picks_among_the_samples(strict: bool) -> None:
    tool = function_tool(strict_mode=strict)(picky)
    arguments, output = await arguments_and_output(tool)
    assert arguments == {"odd": 1, "word": "b", "switch": {"on": True, "label": "a"}, "plain": 0}
    assert output == "1 b True 0"
    assert validation_errors(tool.params_json_schema, arguments) == []
    assert json.dumps((await arguments_and_output(tool))[0]) == json.dumps(arguments)


class Refusals:
    """A validator that refuses every value, counting its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, number: int) -> int:
        self.calls += 1
        raise ValueError("never")


async def test_a_field_the_tool_always_refuses_costs_a_bounded_number_of_checks() -> None:
    refuse = Refusals()

    def stubborn(
        a: Annotated[int, pydantic.AfterValidator(refuse)],
        b: Annotated[int, pydantic.AfterValidator(refuse)],
        c: Annotated[int, pydantic.AfterValidator(refuse)],
        d: Annotated[int, pydantic.AfterValidator(refuse)],
        fine: Annotated[int, pydantic.AfterValidator(must_be_odd)],
    ) -> str:
        del a, b, c, d, fine
        return "ok"

    arguments, output = await arguments_and_output(function_tool(stubborn))
    assert arguments == {"a": 0, "b": 0, "c": 0, "d": 0, "fine": 1}  # fields take turns
    problems = [line.split(":")[0] for line in output.splitlines() if line.startswith("- ")]
    assert problems == ["- a", "- b", "- c", "- d"]
    assert refuse.calls <= 4 * 24 + 4  # four fields in each of at most 24 checks, and the call


def broken_check(number: int) -> int:
    raise RuntimeError("a bug in the validator")


async def test_a_validator_that_crashes_leaves_the_sample_to_the_call() -> None:
    def fragile(n: Annotated[int, pydantic.AfterValidator(broken_check)]) -> str:
        del n
        return "ok"

    arguments, output = await arguments_and_output(function_tool(fragile))
    assert arguments == {"n": 0}
    assert output.startswith("Tool 'fragile' failed with an internal error (RuntimeError)")


async def test_a_hand_built_tool_gets_the_plain_sample() -> None:
    seen: list[str] = []

    async def invoke(ctx: Any, arguments: str) -> str:
        del ctx
        seen.append(arguments)
        return "done"

    schema = {
        "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 2}},
        "required": ["n"],
        "additionalProperties": False,
    }
    tool = FunctionTool("by_hand", "A tool.", schema, invoke)
    arguments, output = await arguments_and_output(tool)
    assert (arguments, output, seen) == ({"n": 2}, "done", ['{"n": 2}'])


def test_values_are_deterministic() -> None:
    schema = function_tool(collections).params_json_schema
    assert json.dumps(value_for_schema(schema)) == json.dumps(value_for_schema(schema))


async def test_test_model_fills_a_constrained_output_type() -> None:
    result = await Runner.run(Agent("a", model=TestModel(), output_type=Level), "go")
    level, levels = result.final_output, 1
    while level.below is not None:
        level, levels = level.below, levels + 1
    assert (level.name, level.score, levels) == ("Aa", 1.0, 3)


def test_a_closed_bound_a_hair_off_a_multiple_is_sampled() -> None:
    """Found by the property above: no exact multiple lies in [66.10000000000001] itself."""
    bound = 66.10000000000001
    schema = {"type": "number", "multipleOf": 0.1, "minimum": bound, "maximum": bound}
    value = value_for_schema(schema)
    assert value == bound
    TypeAdapter(Annotated[float, Field(multiple_of=0.1, ge=bound, le=bound)]).validate_python(value)
