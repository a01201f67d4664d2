"""Strict-mode adapters: what the model sends arrives as the type the function declared."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest
from inline_snapshot import snapshot

from tooluse import FunctionTool, check_strict_schema, function_schema, function_tool

from .conftest import assert_admits, tool_context, tool_taking
from .types_for_tests import Box, Branch, Color, Sparse, Tagged

SECRET = "s3cr3t"


async def send(tool: FunctionTool, value: Any) -> str:
    """Send {"value": value}, first checking the schema admits it, as strict decoding would."""
    assert_admits(tool.params_json_schema, {"value": value})
    arguments = json.dumps({"value": value})
    return await tool.on_invoke_tool(tool_context(tool.name, arguments), arguments)


def pairs(**items: Any) -> list[dict[str, Any]]:
    return [{"key": key, "value": value} for key, value in items.items()]


@pytest.mark.parametrize(
    ("annotation", "sent", "expected"),
    [
        (dict[str, int], pairs(a=1, b=2), {"a": 1, "b": 2}),
        (dict[str, int], [], {}),
        (dict[str, int], [{"key": "a", "value": 1}, {"key": "a", "value": 2}], {"a": 2}),
        (Mapping[str, int], pairs(a=1), {"a": 1}),
        (dict[str, dict[str, int]], [{"key": "x", "value": pairs(y=1)}], {"x": {"y": 1}}),
        (dict[Color, int], [{"key": "red", "value": 1}], {Color.RED: 1}),
        (list[dict[str, int]], [pairs(a=1), pairs(b=2)], [{"a": 1}, {"b": 2}]),
        (dict[str, int] | None, None, None),
        (dict[str, int] | None, pairs(a=1), {"a": 1}),
        (dict[str, int] | list[int], [1, 2], [1, 2]),
        (tuple[int, str], {"item_0": 1, "item_1": "a"}, (1, "a")),
        (list[tuple[int, bool]], [{"item_0": 1, "item_1": True}], [(1, True)]),
        (tuple[int, dict[str, int]], {"item_0": 1, "item_1": pairs(k=2)}, (1, {"k": 2})),
        (Any, '{"free": [1, "form"]}', {"free": [1, "form"]}),
        (dict[str, Any], [{"key": "a", "value": "[1, 2]"}], {"a": [1, 2]}),
        (list, ["1", '"two"'], [1, "two"]),  # pyright: ignore[reportUnknownArgumentType]
    ],
    ids=str,
)
async def test_round_trip(annotation: Any, sent: Any, expected: Any) -> None:
    tool, received = tool_taking(annotation)
    assert check_strict_schema(tool.params_json_schema) == []
    assert await send(tool, sent) == "ok"
    assert received == [expected]


async def test_inside_models_dataclasses_and_typeddicts() -> None:
    received: list[Any] = []

    @function_tool
    def file(item: Tagged, box: Box, extra: Sparse) -> str:
        received.extend([item, box, extra])
        return "ok"

    arguments = {
        "item": {"name": "n", "tags": pairs(x=1)},
        "box": {"size": {"item_0": 2, "item_1": 3}, "labels": pairs(front="F")},
        "extra": {"note": None, "scores": pairs(a=5)},
    }
    assert_admits(file.params_json_schema, arguments)
    text = json.dumps(arguments)
    assert await file.on_invoke_tool(tool_context("file", text), text) == "ok"
    assert received == [
        Tagged(name="n", tags={"x": 1}),
        Box(size=(2, 3), labels={"front": "F"}),
        {"scores": {"a": 5}},
    ]


async def test_recursive_model_with_dicts_at_every_level() -> None:
    tool, received = tool_taking(Branch)
    sent: dict[str, Any] = {
        "weights": pairs(a=1.0),
        "children": [{"weights": pairs(b=2.0), "children": [{"weights": [], "children": []}]}],
    }
    assert await send(tool, sent) == "ok"
    assert received == [
        Branch(
            weights={"a": 1.0}, children=[Branch(weights={"b": 2.0}, children=[Branch(weights={})])]
        )
    ]


async def test_var_keyword_arguments_in_strict_mode() -> None:
    @function_tool
    def configure(name: str, **options: int) -> str:
        return f"{name}:{sorted(options.items())}"

    assert configure.params_json_schema["properties"]["options"]["type"] == "array"
    arguments = json.dumps({"name": "n", "options": pairs(b=2, a=1)})
    assert await configure.on_invoke_tool(tool_context(), arguments) == "n:[('a', 1), ('b', 2)]"


def test_schema_the_model_sees_for_a_dict() -> None:
    def f(scores: dict[str, int]) -> str:
        """Record scores.

        Args:
            scores: Points per player.
        """
        return ""

    assert function_schema(f).params_json_schema["properties"]["scores"] == snapshot(
        {
            "description": 'Points per player. Given as a list of {"key": ..., "value": ...} pairs; a repeated key keeps its last value.',
            "title": "Scores",
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"key": {"type": "string"}, "value": {"type": "integer"}},
                "required": ["key", "value"],
                "additionalProperties": False,
            },
        }
    )


class TestMismatches:
    @pytest.mark.parametrize(
        ("annotation", "sent"),
        [
            (dict[str, int], {"a": 1}),
            (dict[str, int], [{"key": "a"}]),
            (dict[str, int], [{"key": "a", "value": 1, "extra": SECRET}]),
            (tuple[int, str], {"item_0": 1}),
            (Any, 5),
            (Any, "{not json " + SECRET),
        ],
        ids=str,
    )
    async def test_wrong_shape_is_an_argument_error(self, annotation: Any, sent: Any) -> None:
        tool, received = tool_taking(annotation)
        arguments = json.dumps({"value": sent})
        text = await tool.on_invoke_tool(tool_context("take"), arguments)
        assert received == []
        assert SECRET not in text
        assert text.startswith("Tool 'take' was called with invalid arguments:\n- value")

    async def test_messages(self) -> None:
        tool, _ = tool_taking(dict[str, list[tuple[int, int]]])
        sent = [{"key": "a", "value": [{"item_0": 1, "item_1": 2}, {"item_0": 1}]}]
        arguments = json.dumps({"value": sent})
        assert await tool.on_invoke_tool(tool_context("take"), arguments) == snapshot("""\
Tool 'take' was called with invalid arguments:
- value[0].value[1]: expected an object with item_0, item_1
Call 'take' again with corrected arguments.\
""")

    async def test_value_errors_after_the_adapter_name_the_key(self) -> None:
        tool, _ = tool_taking(dict[str, int])
        arguments = json.dumps({"value": [{"key": "a", "value": "many"}]})
        assert await tool.on_invoke_tool(tool_context("take"), arguments) == snapshot("""\
Tool 'take' was called with invalid arguments:
- value.a: Input should be a valid integer, unable to parse string as an integer
Call 'take' again with corrected arguments.\
""")

    @pytest.mark.parametrize("arguments", ['{"value": [', "[1]", ""])
    async def test_bad_json_on_the_adapted_path(self, arguments: str) -> None:
        tool, _ = tool_taking(dict[str, int])
        assert (
            await tool.on_invoke_tool(tool_context("take"), arguments)
            == ADAPTED_JSON_ERRORS[arguments]
        )


ADAPTED_JSON_ERRORS: dict[str, str] = snapshot(
    {
        '{"value": [': """\
Tool 'take' was called with invalid arguments:
- the arguments are not valid JSON: Expecting value at line 1 column 12
Call 'take' again with corrected arguments.\
""",
        "[1]": """\
Tool 'take' was called with invalid arguments:
- expected a JSON object (the arguments by name), not a JSON array
Call 'take' again with corrected arguments.\
""",
        "": """\
Tool 'take' was called with invalid arguments:
- value: required field is missing
Call 'take' again with corrected arguments.\
""",
    }
)


def test_tools_without_rewrites_keep_the_one_pass_path() -> None:
    def plain(a: int, b: list[str]) -> str:
        return ""

    def adapted(a: dict[str, int]) -> str:
        return ""

    assert function_schema(plain)._adapters is None  # pyright: ignore[reportPrivateUsage]
    assert function_schema(adapted)._adapters is not None  # pyright: ignore[reportPrivateUsage]
    assert function_schema(adapted, strict_json_schema=False)._adapters is None  # pyright: ignore[reportPrivateUsage]


def test_hand_built_strict_tool_cannot_use_adapters() -> None:
    async def invoke(ctx: Any, arguments: str) -> str:
        return arguments

    schema = {
        "type": "object",
        "properties": {"tags": {"type": "object", "additionalProperties": {"type": "string"}}},
    }
    with pytest.raises(Exception) as raised:  # noqa: PT011 - the message is what is checked
        FunctionTool("tagger", None, schema, invoke)
    assert str(raised.value) == snapshot("""\
Cannot make FunctionTool 'tagger' strict:
  - parameter 'tags' (at properties.tags) is a dict (an object whose keys come from additionalProperties), which strict mode can express only through a rewrite that tooluse undoes for tools made by @function_tool; use @function_tool, or turn strict mode off (strict_json_schema=False)\
""")
