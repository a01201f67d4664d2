"""The strict-rule checker, one rule at a time, and keywords moved into descriptions."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from inline_snapshot import snapshot
from pydantic import Field

from tooluse import StrictViolation, check_strict_schema, function_schema
from tooluse.schema._strict import to_strict_schema


def obj(**properties: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def rules(schema: dict[str, Any], name: str | None = None) -> list[tuple[str, str]]:
    return [(v.path, v.rule) for v in check_strict_schema(schema, name=name)]


def test_a_good_schema_passes() -> None:
    schema = obj(
        a={"type": "string", "pattern": "^x", "format": "date-time"},
        b={"type": "integer", "minimum": 1, "maximum": 5, "multipleOf": 1},
        c={"type": "array", "items": {"type": "number"}, "minItems": 1, "maxItems": 3},
        d={"anyOf": [{"$ref": "#/$defs/D"}, {"type": "null"}]},
        e={"enum": ["x", "y"]},
        f={"const": 1, "title": "F", "description": "The f."},
    )
    schema["$defs"] = {"D": obj(x={"type": "boolean"})}
    assert check_strict_schema(schema, name="good-name_1") == []


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"anyOf": [obj()]}, [("", "root-object")]),
        ({"type": "array", "items": {"type": "string"}}, [("", "root-object")]),
        (
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            [("", "additionalProperties")],
        ),
        (
            {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "additionalProperties": False,
            },
            [("", "required")],
        ),
        (obj(a={"type": "string", "minLength": 1}), [("properties.a", "unsupported-keyword")]),
        (obj(a={"type": "string", "default": "x"}), [("properties.a", "unsupported-keyword")]),
        (obj(a={"type": "string", "format": "uri"}), [("properties.a", "unsupported-format")]),
        (obj(a={}), [("properties.a", "untyped")]),
        (obj(a={"type": "str"}), [("properties.a", "type")]),
        (
            obj(a={"allOf": [{"type": "string"}]}),
            [("properties.a", "unsupported-keyword"), ("properties.a", "untyped")],
        ),
        (
            obj(a={"type": "array", "items": {"type": "integer"}, "uniqueItems": True}),
            [("properties.a", "unsupported-keyword")],
        ),
    ],
    ids=lambda value: str(value)[:60],
)
def test_each_rule(schema: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    assert rules(schema) == expected


@pytest.mark.parametrize("name", ["", "has space", "dots.not.ok", "x" * 65, "émoji"])
def test_bad_tool_names(name: str) -> None:
    assert rules(obj(), name=name) == [("name", "tool-name")]


def test_good_tool_names() -> None:
    assert rules(obj(), name="a" * 64) == []
    assert rules(obj(), name="get_weather-2") == []


def nest(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        schema = obj(inner=schema)
    return schema


def test_nesting_limit() -> None:
    assert rules(nest(10)) == []
    assert rules(nest(11)) == [("", "max-nesting")]


def test_property_limit() -> None:
    wide = obj(**{f"p{i}": {"type": "string"} for i in range(5_001)})
    assert ("", "max-properties") in rules(wide)


def test_enum_value_limit() -> None:
    schema = obj(a={"enum": list(range(600))}, b={"enum": list(range(600))})
    assert rules(schema) == [("", "max-enum-values")]


def test_large_enum_size_limit() -> None:
    values = [f"{i:03d}" + "x" * 60 for i in range(251)]
    assert rules(obj(a={"type": "string", "enum": values})) == [("", "max-large-enum-size")]
    assert rules(obj(a={"type": "string", "enum": values[:250]})) == []


def test_string_size_limit() -> None:
    schema = obj(
        **{f"p{i}_" + "n" * 40: {"type": "string", "enum": ["v" * 40]} for i in range(1_500)}
    )
    assert ("", "max-string-size") in rules(schema)


def test_violation_text() -> None:
    [violation] = check_strict_schema(obj(a={"type": "string", "minLength": 2}))
    assert violation == StrictViolation(
        path="properties.a",
        rule="unsupported-keyword",
        message="the keyword 'minLength' is not supported",
        fix="remove it (tooluse states such constraints in the description)",
    )
    assert str(violation) == snapshot(
        "properties.a: the keyword 'minLength' is not supported [unsupported-keyword]; fix: remove it (tooluse states such constraints in the description)"
    )


class TestKeywordsMoveIntoDescriptions:
    def test_constraints_in_plain_words(self) -> None:
        def f(
            code: Annotated[str, Field(min_length=2, max_length=8, description="The code.")],
            tags: set[str],
            site: Annotated[str, Field(json_schema_extra={"format": "uri"})],
            sample: Annotated[int, Field(examples=[1, 2])],
        ) -> str:
            return ""

        schema = function_schema(f).params_json_schema
        assert {k: p.get("description") for k, p in schema["properties"].items()} == snapshot(
            {
                "code": "The code. At most 8 characters long. At least 2 characters long.",
                "tags": "Items must be unique.",
                "site": "Format: uri.",
                "sample": "Examples: [1, 2].",
            }
        )
        assert check_strict_schema(schema) == []

    async def test_pydantic_still_enforces_them(self) -> None:
        from tooluse import function_tool

        from .conftest import tool_context

        @function_tool
        def f(code: Annotated[str, Field(min_length=2)]) -> str:
            return code

        assert await f.on_invoke_tool(tool_context("f"), '{"code": "x"}') == snapshot("""\
Tool 'f' was called with invalid arguments:
- code: String should have at least 2 characters
Call 'f' again with corrected arguments.\
""")

    def test_supported_keywords_stay(self) -> None:
        def f(
            n: Annotated[int, Field(ge=1, lt=9, multiple_of=2)],
            s: Annotated[str, Field(pattern="^a")],
            items: Annotated[list[int], Field(min_length=1, max_length=3)],
        ) -> str:
            return ""

        props = function_schema(f).params_json_schema["properties"]
        assert props == snapshot(
            {
                "n": {
                    "exclusiveMaximum": 9,
                    "minimum": 1,
                    "multipleOf": 2,
                    "title": "N",
                    "type": "integer",
                },
                "s": {"pattern": "^a", "title": "S", "type": "string"},
                "items": {
                    "items": {"type": "integer"},
                    "maxItems": 3,
                    "minItems": 1,
                    "title": "Items",
                    "type": "array",
                },
            }
        )


def test_hand_built_schema_keywords_are_relocated_without_adapters() -> None:
    result = to_strict_schema(obj(a={"type": "string", "minLength": 3, "deprecated": True}))
    assert result.adapters == {}
    assert result.schema["properties"]["a"] == {
        "type": "string",
        "description": "At least 3 characters long. Deprecated.",
    }
