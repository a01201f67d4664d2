"""Normalising the calls in a response, unit by unit."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

from tooluse import Agent, RunConfig, Runner, function_tool
from tooluse._items import function_call
from tooluse._tool_calls import plan_calls
from tooluse.models._base import Tool
from tooluse.testing import FunctionModel, ModelReply, ToolCall


@function_tool
def lookup(key: str) -> str:
    """Look a key up.

    Args:
        key: The key.
    """
    return key


def test_missing_ids_are_filled_in_the_item_too() -> None:
    items = [
        function_call("", "lookup", '{"key": "a"}'),
        function_call("", "lookup", '{"key": "b"}'),
    ]
    new_items = list(items)
    groups = plan_calls(items, [lookup], new_items)
    ids = [group.call_id for group in groups]
    assert len(set(ids)) == 2
    assert [item["call_id"] for item in new_items] == ids


def test_duplicate_ids_keep_the_first_call_only() -> None:
    first, second = (
        function_call("x", "lookup", '{"key": "a"}'),
        function_call("x", "lookup", '{"key": "b"}'),
    )
    new_items = [first, second]
    groups = plan_calls([first, second], [lookup], new_items)
    assert [g.calls[0].arguments for g in groups] == ['{"key": "a"}']
    assert new_items == [first]


def test_a_real_tool_named_parallel_is_not_a_wrapper() -> None:
    parallel = function_tool(name_override="parallel")(lambda: "real")  # pyright: ignore[reportUnknownLambdaType]
    [group] = plan_calls([function_call("c", "parallel", "{}")], [parallel], [])
    assert not group.wrapper
    assert group.calls[0].tool is parallel


def test_wrapper_parameters_may_be_text() -> None:
    payload = {"tool_uses": [{"recipient_name": "lookup", "parameters": '{"key": "k"}'}, "junk"]}
    [group] = plan_calls(
        [function_call("c", "multi_tool_use.parallel", json.dumps(payload))], [lookup], []
    )
    assert group.wrapper
    assert [(c.name, c.arguments, c.error is None) for c in group.calls] == [
        ("lookup", '{"key": "k"}', True),
        ("?", "", False),
    ]


async def test_run_wide_timeout_applies_to_tools_without_one() -> None:
    @function_tool
    async def dawdle() -> str:
        """Dawdle."""
        await asyncio.sleep(5)
        return "late"

    def reply(items: list[dict[str, Any]], tools: Sequence[Tool]) -> ModelReply | str:
        outputs = [i["output"] for i in items if i.get("type") == "function_call_output"]
        return outputs[0] if outputs else ModelReply(tool_calls=[ToolCall("dawdle")])

    agent = Agent("a", tools=[dawdle], model=FunctionModel(reply))
    result = await Runner.run(agent, "go", run_config=RunConfig(tool_timeout=0.05))
    assert (
        result.final_output
        == "Tool 'dawdle' timed out after 0.05 s and was stopped. Try a smaller request, or another approach."
    )


def test_a_duplicate_already_removed_is_not_removed_twice() -> None:
    first, second = function_call("x", "lookup", "{}"), function_call("x", "lookup", '{"key": "b"}')
    new_items = [first]  # a resumed run: the repeat was removed before the pause
    groups = plan_calls([first, second], [lookup], new_items)
    assert [g.call_id for g in groups] == ["x"]
    assert new_items == [first]
