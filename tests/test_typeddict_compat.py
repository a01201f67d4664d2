"""`typing.TypedDict` works wherever it appears, also where pydantic alone refuses it (< 3.12)."""

from __future__ import annotations

import json
from typing import Annotated, Any

import pytest
from inline_snapshot import snapshot
from typing_extensions import TypedDict

from tooluse import function_schema, function_tool

from .conftest import tool_context
from .types_for_tests import Address, Point, Stripped


class Envelope(TypedDict):
    """A typing_extensions TypedDict holding a typing one."""

    to: Address


def test_nested_in_annotated_optional_union_and_containers() -> None:
    def f(
        a: Annotated[Point, "A point."],
        b: Point | None,
        c: Point | int,
        d: dict[str, list[Point]],
        e: Envelope,
    ) -> str:
        return ""

    schema = function_schema(f, strict_json_schema=False).params_json_schema
    assert schema["properties"]["a"]["description"] == "A point."
    assert set(schema["$defs"]) == {"Point", "Address", "Envelope"}


def test_docstring_annotated_fields_and_not_required_keys_survive() -> None:
    def f(where: Address) -> str:
        return ""

    schema = function_schema(f, strict_json_schema=False).params_json_schema
    assert schema["$defs"]["Address"] == snapshot(
        {
            "description": "A postal address.",
            "properties": {
                "street": {"title": "Street", "type": "string"},
                "city": {"title": "City", "type": "string"},
                "zip": {"title": "Zip", "type": "string"},
            },
            "required": ["street", "city"],
            "title": "Address",
            "type": "object",
        }
    )


async def test_config_of_the_typeddict_is_kept() -> None:
    received: list[Any] = []

    @function_tool
    def f(who: Stripped) -> str:
        received.append(who)
        return "ok"

    arguments = json.dumps({"who": {"name": "  ann  "}})
    await f.on_invoke_tool(tool_context(), arguments)
    assert received == [{"name": "ann"}]


@pytest.mark.parametrize("strict", [False, True])
async def test_not_required_key_may_be_left_out_in_loose_mode(strict: bool) -> None:
    received: list[Any] = []

    @function_tool(strict_mode=strict)
    def f(where: Address) -> str:
        received.append(where)
        return "ok"

    arguments = json.dumps({"where": {"street": "1 Main St", "city": "Oslo"}})
    await f.on_invoke_tool(tool_context(), arguments)
    assert received == [{"street": "1 Main St", "city": "Oslo"}]
