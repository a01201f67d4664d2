"""Normalising the calls in a response, unit by unit."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

import pytest

from tooluse import Agent, RunConfig, Runner, TResponseInputItem, function_tool
from tooluse.core._items import function_call
from tooluse.models._base import Tool
from tooluse.run._tool_calls import normalise_calls, plan_calls
from tooluse.testing import FunctionModel, ModelReply, ToolCall
from tooluse.tools._threads import CallTimedOut


@function_tool
def lookup(key: str) -> str:
    """Look a key up.

    Args:
        key: The key.
    """
    return key


def test_missing_ids_are_filled_on_copies() -> None:
    items = [
        function_call("", "lookup", '{"key": "a"}'),
        function_call("", "lookup", '{"key": "b"}'),
    ]
    normalised = normalise_calls(items, turn=3)
    assert [item["call_id"] for item in normalised] == ["call_3_0", "call_3_1"]
    assert [item["call_id"] for item in items] == ["", ""]  # the response is not changed


def test_duplicate_ids_keep_the_first_call_only() -> None:
    first, second = (
        function_call("x", "lookup", '{"key": "a"}'),
        function_call("x", "lookup", '{"key": "b"}'),
    )
    message: dict[str, Any] = {"type": "message", "role": "assistant", "content": []}
    assert normalise_calls([first, message, second], turn=1) == [first, message]


def test_a_real_tool_named_parallel_is_not_a_wrapper() -> None:
    parallel = function_tool(name_override="parallel")(lambda: "real")  # pyright: ignore[reportUnknownLambdaType]
    [group] = plan_calls([function_call("c", "parallel", "{}")], {"parallel": parallel})
    assert not group.wrapper
    assert group.calls[0].tool is parallel


def test_wrapper_entries_have_approval_ids_and_parameters_may_be_text() -> None:
    payload = {"tool_uses": [{"recipient_name": "lookup", "parameters": '{"key": "k"}'}, "junk"]}
    [group] = plan_calls(
        [function_call("c", "multi_tool_use.parallel", json.dumps(payload))], {"lookup": lookup}
    )
    assert group.wrapper
    assert [(c.name, c.arguments, c.approval_id, c.error is None) for c in group.calls] == [
        ("lookup", '{"key": "k"}', "c:0", True),
        ("?", "", "c:1", False),
    ]


def test_a_plain_call_is_approved_by_its_call_id() -> None:
    [group] = plan_calls([function_call("c7", "lookup", "{}")], {"lookup": lookup})
    assert group.calls[0].approval_id == "c7"


def test_an_unknown_name_is_echoed_cut_short() -> None:
    name = "x" * 10_000
    [group] = plan_calls([function_call("c", name, "{}")], {"lookup": lookup})
    [call] = group.calls
    assert call.name == "x" * 100 + "..."
    assert call.error == f"Tool '{'x' * 100}...' does not exist. Available tools: lookup."


@pytest.mark.parametrize("calls", [1, 2])
async def test_a_timeout_a_tool_lets_out_without_a_limit_is_its_own_failure(calls: int) -> None:
    # A request inside the tool timed out and the tool let the error go. With no limit on
    # the tool, that is the tool's own failure, alike in a turn of one call (awaited
    # straight from the run step) and of several (run at once).
    @function_tool
    async def fetch(n: int) -> str:
        """Fetch a page.

        Args:
            n: The page.
        """
        raise CallTimedOut(1.0, "the inner request")

    def reply(items: list[TResponseInputItem], tools: Sequence[Tool]) -> ModelReply | str:
        outputs = [i["output"] for i in items if i.get("type") == "function_call_output"]
        if outputs:
            return " | ".join(outputs)
        return ModelReply(tool_calls=[ToolCall("fetch", {"n": n}, f"c{n}") for n in range(calls)])

    agent = Agent("a", tools=[fetch], model=FunctionModel(reply))
    result = await Runner.run(agent, "go")
    failure = (
        "Tool 'fetch' failed with an internal error (CallTimedOut); its details are hidden. "
        "Do not retry the same call unchanged."
    )
    assert result.final_output == " | ".join([failure] * calls)
    assert result.usage.tool_calls == calls


async def test_run_wide_timeout_applies_to_tools_without_one() -> None:
    @function_tool
    async def dawdle() -> str:
        """Dawdle."""
        await asyncio.sleep(5)
        return "late"

    def reply(items: list[TResponseInputItem], tools: Sequence[Tool]) -> ModelReply | str:
        outputs = [i["output"] for i in items if i.get("type") == "function_call_output"]
        return outputs[0] if outputs else ModelReply(tool_calls=[ToolCall("dawdle")])

    agent = Agent("a", tools=[dawdle], model=FunctionModel(reply))
    result = await Runner.run(agent, "go", run_config=RunConfig(tool_timeout=0.05))
    assert (
        result.final_output
        == "Tool 'dawdle' timed out after 0.05 s and was stopped. Try a smaller request, or another approach."
    )
