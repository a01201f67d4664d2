"""`FunctionTool.warm()`: what the first call would build is built at once, and calls agree."""

from __future__ import annotations

import pytest

from tooluse import FunctionTool, ToolContext, function_tool
from tooluse.schema import _function_schema
from tooluse.tools import _invocation


def make_add() -> FunctionTool:
    @function_tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    return add


async def call(tool: FunctionTool, arguments: str) -> object:
    return await tool.on_invoke_tool(ToolContext.for_testing(tool_name=tool.name), arguments)


async def test_a_warmed_tool_builds_nothing_at_its_first_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    expected = await call(make_add(), '{"a": 2, "b": "x"}')
    tool = make_add()
    assert "params_json_schema" not in vars(tool)  # deferred by the decorator
    assert tool.warm() is tool
    assert sorted(vars(tool)["params_json_schema"]["properties"]) == ["a", "b"]

    def built_late(model: object) -> None:
        raise AssertionError(f"the first call built a validator for {model}")

    monkeypatch.setattr(_invocation, "_fields_validator", built_late)
    monkeypatch.setattr(_function_schema, "plain_fields_validator", built_late)
    assert await call(tool, '{"a": 2, "b": 3}') == 5
    assert await call(tool, '{"a": 2, "b": "x"}') == expected
    assert "invalid arguments" in str(expected)


async def test_an_unwarmed_tool_builds_at_its_first_call(monkeypatch: pytest.MonkeyPatch) -> None:
    # A plain signature's validator is written directly (`plain_fields_validator`); any
    # other's is taken from the model (`_fields_validator`): either is built once.
    built: list[object] = []
    real = _invocation._fields_validator  # pyright: ignore[reportPrivateUsage]
    written = _function_schema.plain_fields_validator

    def counted(model: type[object]) -> object:
        built.append(model)
        return real(model)  # pyright: ignore[reportArgumentType]

    def counted_written(title: str, fields: object, *, closed: bool) -> object:
        built.append(title)
        return written(title, fields, closed=closed)  # pyright: ignore[reportArgumentType]

    monkeypatch.setattr(_invocation, "_fields_validator", counted)
    monkeypatch.setattr(_function_schema, "plain_fields_validator", counted_written)
    tool = make_add()
    assert built == []
    assert await call(tool, '{"a": 1, "b": 1}') == 2
    assert len(built) == 1
    tool.warm()  # already built: nothing again
    assert await call(tool, '{"a": 1, "b": 2}') == 3
    assert len(built) == 1


async def test_warming_a_tool_built_by_hand_changes_nothing() -> None:
    async def invoke(ctx: ToolContext[object], arguments: str) -> str:
        return f"got {arguments}"

    tool = FunctionTool("echo", "Echo.", {"type": "object", "properties": {}}, invoke)
    schema = dict(tool.params_json_schema)
    assert tool.warm() is tool
    assert tool.params_json_schema == schema
    assert await call(tool, "{}") == "got {}"
