"""The JSON schema of a plain signature, written directly, equals pydantic's to the byte.

Decorating a tool writes a plain signature's schema without building its pydantic
model (`_plain_schema`). For generated plain signatures (names, kinds, plain types
nested in lists, unions, literals and `Annotated`, scalar defaults, docstrings with
Args) the direct schema and pydantic's are compared as JSON text, keys in order:
the loose schema against `model_json_schema()`, and the final tool schema (strict
or not) against the one built through pydantic.
"""

from __future__ import annotations

import inspect
import json
import keyword
from collections.abc import Callable
from types import NoneType
from typing import Annotated, Any, Literal, Union, cast
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import create_model
from pydantic.fields import FieldInfo

from tooluse import check_strict_schema, function_schema, function_tool
from tooluse.exceptions import UserError
from tooluse.schema._function_schema import deferred_function_schema  # pyright: ignore[reportPrivateUsage]
from tooluse.schema._plain import plain_json_schema  # pyright: ignore[reportPrivateUsage]
from tooluse.tools._invocation import Invoker

from .conftest import examples, tool_context

_P = inspect.Parameter
SCALARS: list[Any] = [str, int, float, bool, NoneType]
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
# Descriptions griffe reads back as written: words and punctuation on one line.
WORDS = st.from_regex(r"[A-Za-z][A-Za-z0-9 ,.;:!?()'\"-]{0,30}[A-Za-z.!?]", fullmatch=True)
LITERAL_VALUES = st.one_of(
    st.text(st.characters(exclude_categories=("Cs",)), max_size=6),
    st.integers(-3, 3),
    st.booleans(),
)


# The special forms, subscripted at run time with drawn values and types.
LITERAL: Any = Literal
UNION: Any = Union


def literal(values: list[Any]) -> Any:
    return LITERAL[tuple(values)]


def union(members: list[Any]) -> Any:
    return UNION[tuple(members)]


def extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    several = st.lists(children, min_size=1, max_size=3)
    return st.one_of(
        children.map(lambda item: list[item]),
        several.map(union),
        children.map(lambda inner: inner | None),
        st.tuples(children, WORDS).map(lambda pair: Annotated[pair[0], pair[1]]),
    )


LEAVES = st.one_of(
    st.sampled_from(SCALARS),
    st.lists(LITERAL_VALUES, min_size=1, max_size=4).map(literal),
)
PLAIN_TYPES = st.recursive(LEAVES, extend, max_leaves=5)
DEFAULTS = st.one_of(
    st.none(),
    TEXT,
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
)
RESERVED = ["schema", "json", "copy", "model_config", "model_fields", "dict", "validate"]
# `model_config` and `model_fields` warn that they read as pydantic's on a model instance;
# the schemas are what these properties are about.
SHADOWING_WARNS = pytest.mark.filterwarnings(
    "ignore:.*has the name of a pydantic BaseModel attribute:UserWarning"
)
NAMES = st.one_of(
    st.from_regex(r"_{0,2}[a-zA-Z][a-zA-Z0-9_]{0,8}", fullmatch=True),
    st.sampled_from(RESERVED),
).filter(lambda name: not keyword.iskeyword(name) and name not in {"self", "cls"})


@st.composite
def plain_functions(draw: st.DrawFn) -> Callable[..., str]:
    names = draw(st.lists(NAMES, min_size=0, max_size=5, unique=True))
    parameters: list[_P] = []
    annotations: dict[str, Any] = {}
    documented: dict[str, str] = {}
    kind = _P.POSITIONAL_OR_KEYWORD  # then optionally *args, then keyword-only
    for index, name in enumerate(names):
        annotation = draw(st.none() | PLAIN_TYPES)
        default = draw(st.just(_P.empty) | DEFAULTS)
        if annotation is None and default is _P.empty:
            annotation = str
        if index == 0 and default is _P.empty and draw(st.booleans()):
            kind = _P.POSITIONAL_OR_KEYWORD
        elif kind is _P.POSITIONAL_OR_KEYWORD and index > 0 and draw(st.booleans()):
            kind, default = _P.VAR_POSITIONAL, _P.empty
        else:
            kind = _P.KEYWORD_ONLY
        parameters.append(_P(name, kind, default=default, annotation=annotation or _P.empty))
        if annotation is not None:
            annotations[name] = annotation
        if draw(st.booleans()):
            documented[name] = draw(WORDS)

    def tool(*args: Any, **kwargs: Any) -> str:
        return json.dumps([args, kwargs], default=str)

    tool.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    tool.__annotations__ = annotations
    tool.__name__ = draw(st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True))
    tool.__doc__ = docstring(draw(WORDS), documented)
    return tool


def docstring(summary: str, documented: dict[str, str]) -> str:
    if not documented:
        return summary
    lines = [f"    {name}: {text}" for name, text in documented.items()]
    return "\n".join([summary, "", "Args:", *lines])


def through_pydantic() -> Any:
    """The schema built the way it was before: pydantic's model, then its JSON schema."""
    return mock.patch("tooluse.schema._function_schema.plain_json_schema", return_value=None)


def outcome(build: Callable[[], dict[str, Any]]) -> str:
    try:
        return json.dumps(build())
    except UserError as error:
        return f"UserError: {error}"


SETTINGS = settings(
    max_examples=examples(400),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@SHADOWING_WARNS
@SETTINGS
@given(plain_functions(), st.booleans())
def test_the_direct_schema_is_pydantics(func: Callable[..., str], strict: bool) -> None:
    pending = deferred_function_schema(func, strict_json_schema=strict)._pending  # pyright: ignore[reportPrivateUsage]
    assert pending is not None
    assert pending.plain
    direct = plain_json_schema(f"{func.__name__}_args", pending.fields, closed=strict)
    assert direct is not None
    assert json.dumps(direct) == json.dumps(pending.model().model_json_schema())


@SHADOWING_WARNS
@SETTINGS
@given(plain_functions(), st.booleans())
def test_the_tool_schema_is_the_one_built_through_pydantic(
    func: Callable[..., str], strict: bool
) -> None:
    fast = outcome(lambda: function_schema(func, strict_json_schema=strict).params_json_schema)
    with through_pydantic():
        slow = outcome(lambda: function_schema(func, strict_json_schema=strict).params_json_schema)
    assert fast == slow


def test_the_documented_function_is_written_directly() -> None:
    def search(
        origin: str,
        passengers: int = 1,
        max_price: float | None = None,
        airlines: list[str] | None = None,
        cabin: Literal["economy", "business"] = "economy",
    ) -> str:
        """Search flights.

        Args:
            origin: IATA code.
            passengers: Seats.
            max_price: Euros.
            airlines: Only these.
            cabin: Which cabin.
        """
        return origin

    written: list[dict[str, Any] | None] = []

    def recording(*args: Any, **kwargs: Any) -> dict[str, Any] | None:
        written.append(plain_json_schema(*args, **kwargs))
        return written[-1]

    with mock.patch("tooluse.schema._function_schema.plain_json_schema", side_effect=recording):
        fast = function_schema(search).params_json_schema
    assert len(written) == 1
    assert written[0] is not None
    with through_pydantic():
        assert json.dumps(fast) == json.dumps(function_schema(search).params_json_schema)


def test_reading_the_schema_does_not_build_the_model() -> None:
    def f(a: int, b: list[str] | None = None) -> str:
        return str(a)

    source = cast(Invoker, function_tool(f).on_invoke_tool).schema
    assert source is not None
    assert source.params_json_schema["required"] == ["a", "b"]
    assert "params_pydantic_model" not in vars(source)
    assert source.params_pydantic_model.model_fields.keys() == {"a", "b"}
    assert source._pending is None  # pyright: ignore[reportPrivateUsage] - all built: released


def test_the_model_first_then_the_schema() -> None:
    def f(a: int, b: int = 2) -> str:
        return str(a + b)

    source = cast(Invoker, function_tool(f).on_invoke_tool).schema
    assert source is not None
    model = source.params_pydantic_model
    assert "params_json_schema" not in vars(source)
    with through_pydantic():
        eager = function_schema(f)
    assert json.dumps(source.params_json_schema) == json.dumps(eager.params_json_schema)
    assert source.params_pydantic_model is model  # built once


async def test_a_call_after_reading_the_schema_validates_as_before() -> None:
    def f(a: int, mode: Literal["x", "y"] = "x") -> str:
        return f"{a}{mode}"

    tool = function_tool(f)
    assert tool.params_json_schema["properties"]["mode"]["enum"] == ["x", "y"]
    arguments = '{"a": 1, "mode": "y"}'
    assert await tool.on_invoke_tool(tool_context("f", arguments), arguments) == "1y"
    bad = '{"a": 1, "mode": "z"}'
    assert "invalid arguments" in await tool.on_invoke_tool(tool_context("f", bad), bad)


@pytest.mark.parametrize(
    "default",
    [float("inf"), float("nan"), "\ud800"],
    ids=["inf", "nan", "lone-surrogate"],
)
def test_defaults_pydantic_may_write_otherwise_are_left_to_pydantic(default: Any) -> None:
    info = FieldInfo(default=default)
    assert plain_json_schema("m", {"x": (type(default), info)}, closed=True) is None


def test_a_type_outside_the_plain_ones_is_left_to_pydantic() -> None:
    assert plain_json_schema("m", {"x": (dict[str, int], FieldInfo())}, closed=True) is None


@pytest.mark.parametrize(
    "annotation",
    [  # typing.Union spelled out where its origin (not types.UnionType) is the point
        Union[Literal[1, "a"], Literal[True, "a"]],  # noqa: UP007 - equal as Python values: pydantic keeps one
        Union[Literal[1], Literal[True], None],  # noqa: UP007
        Union[Annotated[None, "x"], None],  # noqa: UP007
        Union[int, Annotated[int, "x"], float],  # noqa: UP007
        list[Annotated[str, "x"]],
        Literal[1, True, "a"],
        Union[None, int, str],  # noqa: UP007
        Union[Literal["a"], Literal["a", "b"], None],  # noqa: UP007
        list[list[int | None] | None] | None,
        Annotated[Annotated[int, "inner"] | None, "outer"],
    ],
)
def test_corner_cases_are_pydantics(annotation: Any) -> None:
    for info in (FieldInfo(), FieldInfo(default=None, description="d"), FieldInfo(default=1)):
        fields = {"value": (annotation, info)}
        direct = plain_json_schema("m_args", fields, closed=False)
        model = create_model("m_args", **cast("dict[str, Any]", fields))
        assert json.dumps(direct) == json.dumps(model.model_json_schema())


def test_a_plain_signature_at_every_limit_is_strict_without_the_checker() -> None:
    """The direct strict schema skips the strict checker: `_all_plain`'s limits keep it inside."""
    deep: Any = int
    for _ in range(5):  # as deep as a plain type goes
        deep = list[deep]
    words = [f"{index:03d}" + "x" * 61 for index in range(200)]  # as many and as long as allowed
    parameters = [_P("deep", _P.KEYWORD_ONLY, annotation=deep)]
    parameters.append(_P("word", _P.KEYWORD_ONLY, annotation=literal(words), default=words[0]))
    parameters += [_P(f"p{i}", _P.KEYWORD_ONLY, annotation=float, default=0.5) for i in range(98)]

    def wide(**kwargs: Any) -> str:
        return str(kwargs)

    wide.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    wide.__annotations__ = {param.name: param.annotation for param in parameters}
    pending = deferred_function_schema(wide)._pending  # pyright: ignore[reportPrivateUsage]
    assert pending is not None
    assert pending.plain
    fast = function_schema(wide).params_json_schema
    assert check_strict_schema(fast) == []
    with through_pydantic():
        assert json.dumps(fast) == json.dumps(function_schema(wide).params_json_schema)


def test_a_signature_past_a_limit_is_built_through_pydantic() -> None:
    parameters = [_P(f"p{i}", _P.KEYWORD_ONLY, annotation=int) for i in range(101)]

    def wide(**kwargs: Any) -> str:
        return str(kwargs)

    wide.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    wide.__annotations__ = {param.name: int for param in parameters}
    with mock.patch("tooluse.schema._function_schema.plain_json_schema") as direct:
        function_schema(wide)
    direct.assert_not_called()
