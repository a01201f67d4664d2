"""The strict transform on its own, and on hand-built tools."""

from __future__ import annotations

import copy
from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st
from inline_snapshot import snapshot

from tooluse import FunctionTool, UserError, function_tool
from tooluse.schema._strict import to_strict_schema

from .types_for_tests import Node


async def echo(ctx: Any, arguments: str) -> str:
    return arguments


def strict(schema: dict[str, Any]) -> dict[str, Any]:
    result = to_strict_schema(schema)
    assert result.problems == []
    assert result.adapters == {}
    return result.schema


def test_objects_are_closed_and_fully_required() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string"},
            "b": {"type": "object", "properties": {"c": {"type": "integer"}}},
        },
        "required": ["a"],
    }
    assert strict(schema) == snapshot(
        {
            "type": "object",
            "properties": {
                "a": {"type": "string"},
                "b": {
                    "type": "object",
                    "properties": {"c": {"type": "integer"}},
                    "additionalProperties": False,
                    "required": ["c"],
                },
            },
            "required": ["a", "b"],
            "additionalProperties": False,
        }
    )


def test_defaults_move_into_the_description() -> None:
    schema = {
        "type": "object",
        "properties": {
            "none": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            "text": {"type": "string", "default": "a", "description": "The text"},
            "count": {"type": "integer", "default": 3, "description": "How many."},
            "flags": {"type": "array", "items": {"type": "string"}, "default": ["x", "é"]},
        },
    }
    assert strict(schema)["properties"] == snapshot(
        {
            "none": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "text": {"type": "string", "description": 'The text. Defaults to "a".'},
            "count": {"type": "integer", "description": "How many. Defaults to 3."},
            "flags": {
                "type": "array",
                "items": {"type": "string"},
                "description": 'Defaults to ["x", "é"].',
            },
        }
    )


def test_one_of_becomes_any_of_and_discriminator_goes() -> None:
    schema = {
        "type": "object",
        "properties": {
            "pet": {
                "oneOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}],
                "discriminator": {"propertyName": "kind"},
            }
        },
        "$defs": {
            "Cat": {"type": "object", "properties": {"kind": {"const": "cat"}}},
            "Dog": {"type": "object", "properties": {"kind": {"const": "dog"}}},
        },
    }
    assert strict(schema) == snapshot(
        {
            "type": "object",
            "properties": {"pet": {"anyOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}]}},
            "$defs": {
                "Cat": {
                    "type": "object",
                    "properties": {"kind": {"const": "cat"}},
                    "additionalProperties": False,
                    "required": ["kind"],
                },
                "Dog": {
                    "type": "object",
                    "properties": {"kind": {"const": "dog"}},
                    "additionalProperties": False,
                    "required": ["kind"],
                },
            },
            "additionalProperties": False,
            "required": ["pet"],
        }
    )


def test_ref_with_siblings_is_inlined_and_unused_defs_dropped() -> None:
    schema = {
        "type": "object",
        "properties": {
            "home": {"$ref": "#/$defs/Place", "description": "Where you live."},
            "work": {"$ref": "#/$defs/Other"},
        },
        "$defs": {
            "Place": {"type": "object", "properties": {"city": {"type": "string"}}},
            "Other": {"type": "object", "properties": {"desk": {"type": "integer"}}},
        },
    }
    assert strict(schema) == snapshot(
        {
            "type": "object",
            "properties": {
                "home": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "description": "Where you live.",
                    "additionalProperties": False,
                    "required": ["city"],
                },
                "work": {"$ref": "#/$defs/Other"},
            },
            "$defs": {
                "Other": {
                    "type": "object",
                    "properties": {"desk": {"type": "integer"}},
                    "additionalProperties": False,
                    "required": ["desk"],
                }
            },
            "additionalProperties": False,
            "required": ["home", "work"],
        }
    )


def test_single_all_of_is_unwrapped() -> None:
    schema = {
        "type": "object",
        "properties": {"p": {"allOf": [{"$ref": "#/$defs/P"}], "description": "d"}},
        "$defs": {"P": {"type": "object", "properties": {"x": {"type": "integer"}}}},
    }
    assert strict(schema)["properties"] == snapshot(
        {"p": {"$ref": "#/$defs/P", "description": "d"}}
    )


def test_a_typed_single_all_of_ref_is_the_definition_it_refers_to() -> None:
    # Wrapping a definition as `{"type": "object", "allOf": [{"$ref": ...}]}`, nested too,
    # adds nothing: the result is the definition, not a key-less (free-form) object.
    schema = {
        "type": "object",
        "allOf": [{"$ref": "#/$defs/Outer"}],
        "$defs": {
            "Inner": {"type": "object", "properties": {"x": {"type": "integer"}}},
            "Outer": {"type": "object", "allOf": [{"$ref": "#/$defs/Inner"}]},
        },
    }
    assert strict(schema) == snapshot(
        {
            "type": "object",
            "properties": {"x": {"type": "integer"}},
            "additionalProperties": False,
            "required": ["x"],
        }
    )


def test_recursive_definitions_survive() -> None:
    result = strict(Node.model_json_schema())
    assert result == snapshot(
        {
            "properties": {
                "label": {"title": "Label", "type": "string"},
                "next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]},
            },
            "required": ["label", "next"],
            "title": "Node",
            "type": "object",
            "$defs": {
                "Node": {
                    "properties": {
                        "label": {"title": "Label", "type": "string"},
                        "next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]},
                    },
                    "required": ["label", "next"],
                    "title": "Node",
                    "type": "object",
                    "additionalProperties": False,
                }
            },
            "additionalProperties": False,
        }
    )


def test_input_is_not_modified() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string", "default": "x"}},
        "$defs": {"Unused": {"type": "string"}},
    }
    before = copy.deepcopy(schema)
    strict(schema)
    assert schema == before


def test_problems_are_reported_with_paths() -> None:
    schema = {
        "type": "object",
        "properties": {
            "tags": {"type": "object", "additionalProperties": {"type": "string"}},
            "pair": {"type": "array", "prefixItems": [{"type": "integer"}]},
            "anything": {},
        },
    }
    problems = to_strict_schema(schema).problems
    assert [(p.path, p.message.split(",")[0]) for p in problems] == snapshot(
        [
            (
                ("properties", "tags"),
                "is a dict (an object whose keys come from additionalProperties)",
            ),
            (("properties", "pair"), "is a fixed-length tuple"),
            (("properties", "anything"), "is a value of any type (Any"),
        ]
    )


JSON_LEAVES = st.sampled_from(
    [
        {"type": "string"},
        {"type": "integer", "default": 1},
        {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        {"enum": ["a", "b"], "type": "string"},
        {"$ref": "#/$defs/Leaf", "description": "A leaf."},
        {"oneOf": [{"type": "integer"}, {"type": "boolean"}]},
    ]
)


def objects(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(st.from_regex(r"[a-z]{1,6}", fullmatch=True), children, max_size=4).map(
        lambda props: {"type": "object", "properties": props}
    )


SCHEMAS = st.recursive(JSON_LEAVES, objects, max_leaves=10).map(
    lambda node: {
        "type": "object",
        "properties": {"root": node},
        "$defs": {"Leaf": {"type": "object", "properties": {"v": {"type": "number"}}}},
    }
)


@given(SCHEMAS)
def test_transform_is_idempotent_and_closes_every_object(schema: dict[str, Any]) -> None:
    once = strict(schema)
    assert strict(once) == once

    def check(node: Any) -> None:
        if isinstance(node, dict):
            mapping = cast(dict[str, Any], node)
            assert "default" not in mapping
            assert "oneOf" not in mapping
            assert not ("$ref" in mapping and len(mapping) > 1)
            if mapping.get("type") == "object":
                assert mapping["additionalProperties"] is False
                assert mapping["required"] == list(mapping["properties"])
            for value in mapping.values():
                check(value)
        elif isinstance(node, list):
            for item in cast(list[Any], node):
                check(item)

    check(once)


HAND_BUILT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"q": {"type": "string", "default": "all"}},
}


class TestHandBuiltTools:
    def test_strict_tool_gets_the_transform(self) -> None:
        tool = FunctionTool("search", "Search.", copy.deepcopy(HAND_BUILT_SCHEMA), echo)
        assert tool.params_json_schema == snapshot(
            {
                "type": "object",
                "properties": {"q": {"type": "string", "description": 'Defaults to "all".'}},
                "additionalProperties": False,
                "required": ["q"],
            }
        )

    def test_loose_tool_keeps_its_schema(self) -> None:
        tool = FunctionTool(
            "search", None, copy.deepcopy(HAND_BUILT_SCHEMA), echo, strict_json_schema=False
        )
        assert tool.params_json_schema == HAND_BUILT_SCHEMA

    def test_unfixable_schema_names_the_tool(self) -> None:
        schema = {"type": "object", "properties": {"meta": {"type": "object"}}}
        with pytest.raises(UserError) as raised:
            FunctionTool("search", None, schema, echo)
        assert str(raised.value) == snapshot("""\
Cannot make FunctionTool 'search' strict:
  - parameter 'meta' (at properties.meta) is a dict (an object whose keys come from additionalProperties), which strict mode can express only through a rewrite that tooluse undoes for tools made by @function_tool; use @function_tool, or turn strict mode off (strict_json_schema=False)\
""")

    def test_object_without_properties_is_a_tool_without_arguments(self) -> None:
        tool = FunctionTool("ping", None, {"type": "object"}, echo)
        assert tool.params_json_schema == {
            "type": "object",
            "properties": {},
            "additionalProperties": False,
            "required": [],
        }

    def test_open_root_names_the_arguments_object(self) -> None:
        with pytest.raises(UserError) as raised:
            FunctionTool("any", None, {"type": "object", "additionalProperties": True}, echo)
        assert str(raised.value) == snapshot("""\
Cannot make FunctionTool 'any' strict:
  - the arguments object is a dict with free-form keys, which strict mode cannot express at the root; name the arguments, or turn strict mode off (strict_json_schema=False)\
""")

    def test_with_strict_mode_both_ways(self) -> None:
        loose = FunctionTool(
            "search", None, copy.deepcopy(HAND_BUILT_SCHEMA), echo, strict_json_schema=False
        )
        made_strict = loose.with_strict_mode(True)
        assert made_strict.strict_json_schema
        assert made_strict.params_json_schema["required"] == ["q"]
        back = made_strict.with_strict_mode(False)
        assert back.params_json_schema == HAND_BUILT_SCHEMA
        assert back.with_strict_mode(False) is back

    def test_decorated_tool_with_strict_mode_rebuilds_from_the_function(self) -> None:
        @function_tool
        def search(q: str = "all") -> str:
            return q

        loose = search.with_strict_mode(False)
        assert loose.strict_json_schema is False
        assert loose.params_json_schema["properties"]["q"]["default"] == "all"
        assert loose.with_strict_mode(True).params_json_schema == search.params_json_schema
