"""Every parameter type the issue lists: its loose and strict schema, and its round trip."""

from __future__ import annotations

import datetime
import decimal
import json
import uuid
from typing import Any, Literal, Optional, Union

import pytest
from inline_snapshot import snapshot
from jsonschema import Draft202012Validator

from tooluse import check_strict_schema

from .conftest import assert_admits, tool_context, tool_taking
from .types_for_tests import Color, Node, Options, Point, Tree, User, Window

TYPES: dict[str, Any] = {
    "str": str,
    "int": int,
    "float": float,
    "bool": bool,
    "optional": Optional[int],  # noqa: UP045 - the typing spelling is what is under test
    "pipe_none": int | None,
    "union": Union[int, str],  # noqa: UP007 - the typing spelling is what is under test
    "literal": Literal["a", "b"],
    "enum": Color,
    "list": list[int],
    "tuple_of_any_length": tuple[int, ...],
    "fixed_tuple": tuple[int, str],
    "set": set[str],
    "dict": dict[str, int],
    "typing_typeddict": Point,
    "total_false_typeddict": Options,
    "recursive_typeddict": Tree,
    "dataclass": Window,
    "model": User,
    "recursive_model": Node,
    "datetime": datetime.datetime,
    "date": datetime.date,
    "time": datetime.time,
    "uuid": uuid.UUID,
    "decimal": decimal.Decimal,
}

# JSON the model might send for each type, and the Python value the function receives.
SAMPLES: dict[str, tuple[Any, Any]] = {
    "str": ("hi", "hi"),
    "int": (3, 3),
    "float": (1.5, 1.5),
    "bool": (True, True),
    "optional": (None, None),
    "pipe_none": (4, 4),
    "union": ("x", "x"),
    "literal": ("b", "b"),
    "enum": ("green", Color.GREEN),
    "list": ([1, 2], [1, 2]),
    "tuple_of_any_length": ([1, 2, 3], (1, 2, 3)),
    "fixed_tuple": ([1, "a"], (1, "a")),
    "set": (["a", "b"], {"a", "b"}),
    "dict": ({"a": 1}, {"a": 1}),
    "typing_typeddict": ({"x": 1, "y": 2}, {"x": 1, "y": 2}),
    "total_false_typeddict": ({"verbose": True}, {"verbose": True}),
    "recursive_typeddict": (
        {"value": 1, "children": [{"value": 2, "children": []}]},
        {"value": 1, "children": [{"value": 2, "children": []}]},
    ),
    "dataclass": ({"width": 3, "height": 4}, Window(3, 4)),
    "model": ({"name": "ann", "age": 3}, User(name="ann", age=3)),
    "recursive_model": (
        {"label": "a", "next": {"label": "b", "next": None}},
        Node(label="a", next=Node(label="b")),
    ),
    "datetime": (
        "2024-05-01T12:30:00Z",
        datetime.datetime(2024, 5, 1, 12, 30, tzinfo=datetime.timezone.utc),
    ),
    "date": ("2024-05-01", datetime.date(2024, 5, 1)),
    "time": ("12:30:00", datetime.time(12, 30)),
    "uuid": (
        "12345678-1234-5678-1234-567812345678",
        uuid.UUID("12345678-1234-5678-1234-567812345678"),
    ),
    "decimal": ("1.25", decimal.Decimal("1.25")),
}

# What the model sends for these in strict mode, where the schema adapts the type.
STRICT_WIRE: dict[str, Any] = {
    "dict": [{"key": "a", "value": 1}],
    "fixed_tuple": {"item_0": 1, "item_1": "a"},
    "total_false_typeddict": {"verbose": True, "label": None},
}


@pytest.mark.parametrize("name", TYPES)
def test_loose_schema(name: str) -> None:
    tool, _ = tool_taking(TYPES[name], strict=False)
    Draft202012Validator.check_schema(tool.params_json_schema)
    assert tool.params_json_schema == LOOSE[name]


@pytest.mark.parametrize("name", TYPES)
def test_strict_schema(name: str) -> None:
    tool, _ = tool_taking(TYPES[name], strict=True)
    Draft202012Validator.check_schema(tool.params_json_schema)
    assert check_strict_schema(tool.params_json_schema) == []
    assert tool.params_json_schema == STRICT[name]


@pytest.mark.parametrize("strict", [False, True], ids=["loose", "strict"])
@pytest.mark.parametrize("name", TYPES)
async def test_value_arrives_as_python_type(name: str, strict: bool) -> None:
    tool, received = tool_taking(TYPES[name], strict=strict)
    sent, expected = SAMPLES[name]
    if strict:
        sent = STRICT_WIRE.get(name, sent)
        assert_admits(tool.params_json_schema, {"value": sent})
    arguments = json.dumps({"value": sent})
    assert await tool.on_invoke_tool(tool_context("take", arguments), arguments) == "ok"
    assert received == [expected]
    assert type(received[0]) is type(expected)


def test_every_type_has_a_sample() -> None:
    assert set(SAMPLES) == set(TYPES)


LOOSE: dict[str, Any] = snapshot(
    {
        "str": {
            "properties": {"value": {"title": "Value", "type": "string"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "int": {
            "properties": {"value": {"title": "Value", "type": "integer"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "float": {
            "properties": {"value": {"title": "Value", "type": "number"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "bool": {
            "properties": {"value": {"title": "Value", "type": "boolean"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "optional": {
            "properties": {
                "value": {"anyOf": [{"type": "integer"}, {"type": "null"}], "title": "Value"}
            },
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "pipe_none": {
            "properties": {
                "value": {"anyOf": [{"type": "integer"}, {"type": "null"}], "title": "Value"}
            },
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "union": {
            "properties": {
                "value": {"anyOf": [{"type": "integer"}, {"type": "string"}], "title": "Value"}
            },
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "literal": {
            "properties": {"value": {"enum": ["a", "b"], "title": "Value", "type": "string"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "enum": {
            "$defs": {"Color": {"enum": ["red", "green"], "title": "Color", "type": "string"}},
            "properties": {"value": {"$ref": "#/$defs/Color"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "list": {
            "properties": {
                "value": {"items": {"type": "integer"}, "title": "Value", "type": "array"}
            },
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "tuple_of_any_length": {
            "properties": {
                "value": {"items": {"type": "integer"}, "title": "Value", "type": "array"}
            },
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "fixed_tuple": {
            "properties": {
                "value": {
                    "maxItems": 2,
                    "minItems": 2,
                    "prefixItems": [{"type": "integer"}, {"type": "string"}],
                    "title": "Value",
                    "type": "array",
                }
            },
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "set": {
            "properties": {
                "value": {
                    "items": {"type": "string"},
                    "title": "Value",
                    "type": "array",
                    "uniqueItems": True,
                }
            },
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "dict": {
            "properties": {
                "value": {
                    "additionalProperties": {"type": "integer"},
                    "title": "Value",
                    "type": "object",
                }
            },
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "typing_typeddict": {
            "$defs": {
                "Point": {
                    "properties": {
                        "x": {"title": "X", "type": "integer"},
                        "y": {"title": "Y", "type": "integer"},
                    },
                    "required": ["x", "y"],
                    "title": "Point",
                    "type": "object",
                }
            },
            "properties": {"value": {"$ref": "#/$defs/Point"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "total_false_typeddict": {
            "$defs": {
                "Options": {
                    "properties": {
                        "verbose": {"title": "Verbose", "type": "boolean"},
                        "label": {"title": "Label", "type": "string"},
                    },
                    "title": "Options",
                    "type": "object",
                }
            },
            "properties": {"value": {"$ref": "#/$defs/Options"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "recursive_typeddict": {
            "$defs": {
                "Tree": {
                    "properties": {
                        "value": {"title": "Value", "type": "integer"},
                        "children": {
                            "items": {"$ref": "#/$defs/Tree"},
                            "title": "Children",
                            "type": "array",
                        },
                    },
                    "required": ["value", "children"],
                    "title": "Tree",
                    "type": "object",
                }
            },
            "properties": {"value": {"$ref": "#/$defs/Tree"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "dataclass": {
            "$defs": {
                "Window": {
                    "properties": {
                        "width": {"title": "Width", "type": "integer"},
                        "height": {"default": 10, "title": "Height", "type": "integer"},
                    },
                    "required": ["width"],
                    "title": "Window",
                    "type": "object",
                }
            },
            "properties": {"value": {"$ref": "#/$defs/Window"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "model": {
            "$defs": {
                "User": {
                    "properties": {
                        "name": {"title": "Name", "type": "string"},
                        "age": {
                            "anyOf": [{"type": "integer"}, {"type": "null"}],
                            "default": None,
                            "title": "Age",
                        },
                    },
                    "required": ["name"],
                    "title": "User",
                    "type": "object",
                }
            },
            "properties": {"value": {"$ref": "#/$defs/User"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "recursive_model": {
            "$defs": {
                "Node": {
                    "properties": {
                        "label": {"title": "Label", "type": "string"},
                        "next": {
                            "anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}],
                            "default": None,
                        },
                    },
                    "required": ["label"],
                    "title": "Node",
                    "type": "object",
                }
            },
            "properties": {"value": {"$ref": "#/$defs/Node"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "datetime": {
            "properties": {"value": {"format": "date-time", "title": "Value", "type": "string"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "date": {
            "properties": {"value": {"format": "date", "title": "Value", "type": "string"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "time": {
            "properties": {"value": {"format": "time", "title": "Value", "type": "string"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "uuid": {
            "properties": {"value": {"format": "uuid", "title": "Value", "type": "string"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "decimal": {
            "properties": {
                "value": {"anyOf": [{"type": "number"}, {"type": "string"}], "title": "Value"}
            },
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
    }
)
STRICT: dict[str, Any] = snapshot(
    {
        "bool": {
            "additionalProperties": False,
            "properties": {"value": {"title": "Value", "type": "boolean"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "dataclass": {
            "$defs": {
                "Window": {
                    "additionalProperties": False,
                    "properties": {
                        "width": {"title": "Width", "type": "integer"},
                        "height": {
                            "title": "Height",
                            "type": "integer",
                            "description": "Defaults to 10.",
                        },
                    },
                    "required": ["width", "height"],
                    "title": "Window",
                    "type": "object",
                }
            },
            "additionalProperties": False,
            "properties": {"value": {"$ref": "#/$defs/Window"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "date": {
            "additionalProperties": False,
            "properties": {"value": {"format": "date", "title": "Value", "type": "string"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "datetime": {
            "additionalProperties": False,
            "properties": {"value": {"format": "date-time", "title": "Value", "type": "string"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "decimal": {
            "additionalProperties": False,
            "properties": {
                "value": {"anyOf": [{"type": "number"}, {"type": "string"}], "title": "Value"}
            },
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "enum": {
            "$defs": {"Color": {"enum": ["red", "green"], "title": "Color", "type": "string"}},
            "additionalProperties": False,
            "properties": {"value": {"$ref": "#/$defs/Color"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "float": {
            "additionalProperties": False,
            "properties": {"value": {"title": "Value", "type": "number"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "int": {
            "additionalProperties": False,
            "properties": {"value": {"title": "Value", "type": "integer"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "list": {
            "additionalProperties": False,
            "properties": {
                "value": {"items": {"type": "integer"}, "title": "Value", "type": "array"}
            },
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "literal": {
            "additionalProperties": False,
            "properties": {"value": {"enum": ["a", "b"], "title": "Value", "type": "string"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "model": {
            "$defs": {
                "User": {
                    "properties": {
                        "name": {"title": "Name", "type": "string"},
                        "age": {"anyOf": [{"type": "integer"}, {"type": "null"}], "title": "Age"},
                    },
                    "required": ["name", "age"],
                    "title": "User",
                    "type": "object",
                    "additionalProperties": False,
                }
            },
            "additionalProperties": False,
            "properties": {"value": {"$ref": "#/$defs/User"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "optional": {
            "additionalProperties": False,
            "properties": {
                "value": {"anyOf": [{"type": "integer"}, {"type": "null"}], "title": "Value"}
            },
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "pipe_none": {
            "additionalProperties": False,
            "properties": {
                "value": {"anyOf": [{"type": "integer"}, {"type": "null"}], "title": "Value"}
            },
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "recursive_model": {
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
            "properties": {"value": {"$ref": "#/$defs/Node"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "recursive_typeddict": {
            "$defs": {
                "Tree": {
                    "additionalProperties": False,
                    "properties": {
                        "value": {"title": "Value", "type": "integer"},
                        "children": {
                            "items": {"$ref": "#/$defs/Tree"},
                            "title": "Children",
                            "type": "array",
                        },
                    },
                    "required": ["value", "children"],
                    "title": "Tree",
                    "type": "object",
                }
            },
            "additionalProperties": False,
            "properties": {"value": {"$ref": "#/$defs/Tree"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "set": {
            "additionalProperties": False,
            "properties": {
                "value": {
                    "items": {"type": "string"},
                    "title": "Value",
                    "type": "array",
                    "description": "Items must be unique.",
                }
            },
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "str": {
            "additionalProperties": False,
            "properties": {"value": {"title": "Value", "type": "string"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "time": {
            "additionalProperties": False,
            "properties": {"value": {"format": "time", "title": "Value", "type": "string"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "total_false_typeddict": {
            "$defs": {
                "Options": {
                    "additionalProperties": False,
                    "properties": {
                        "verbose": {
                            "anyOf": [{"type": "boolean"}, {"type": "null"}],
                            "title": "Verbose",
                            "description": "Null leaves it out.",
                        },
                        "label": {
                            "anyOf": [{"type": "string"}, {"type": "null"}],
                            "title": "Label",
                            "description": "Null leaves it out.",
                        },
                    },
                    "title": "Options",
                    "type": "object",
                    "required": ["verbose", "label"],
                }
            },
            "additionalProperties": False,
            "properties": {"value": {"$ref": "#/$defs/Options"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "tuple_of_any_length": {
            "additionalProperties": False,
            "properties": {
                "value": {"items": {"type": "integer"}, "title": "Value", "type": "array"}
            },
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "typing_typeddict": {
            "$defs": {
                "Point": {
                    "additionalProperties": False,
                    "properties": {
                        "x": {"title": "X", "type": "integer"},
                        "y": {"title": "Y", "type": "integer"},
                    },
                    "required": ["x", "y"],
                    "title": "Point",
                    "type": "object",
                }
            },
            "additionalProperties": False,
            "properties": {"value": {"$ref": "#/$defs/Point"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "union": {
            "additionalProperties": False,
            "properties": {
                "value": {"anyOf": [{"type": "integer"}, {"type": "string"}], "title": "Value"}
            },
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "uuid": {
            "additionalProperties": False,
            "properties": {"value": {"format": "uuid", "title": "Value", "type": "string"}},
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "fixed_tuple": {
            "additionalProperties": False,
            "properties": {
                "value": {
                    "title": "Value",
                    "type": "object",
                    "properties": {"item_0": {"type": "integer"}, "item_1": {"type": "string"}},
                    "required": ["item_0", "item_1"],
                    "additionalProperties": False,
                    "description": "The tuple's 2 items in order, as item_0, item_1.",
                }
            },
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
        "dict": {
            "additionalProperties": False,
            "properties": {
                "value": {
                    "title": "Value",
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"key": {"type": "string"}, "value": {"type": "integer"}},
                        "required": ["key", "value"],
                        "additionalProperties": False,
                    },
                    "description": 'Given as a list of {"key": ..., "value": ...} pairs; a repeated key keeps its last value.',
                }
            },
            "required": ["value"],
            "title": "take_args",
            "type": "object",
        },
    }
)
