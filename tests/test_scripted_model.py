"""`ScriptedModel`: openai-agents' `agents.testing` spelling, one step per model call."""

from __future__ import annotations

from typing import Any

import pytest

from tooluse import Agent, ModelBehaviorError, Runner, UserError, function_tool
from tooluse.testing import ScriptedModel, assistant_message, function_call

received: list[int] = []


@function_tool(failure_error_function=None)
def restock(quantity: int) -> str:
    """Restock the shelf.

    Args:
        quantity: How many items.
    """
    received.append(quantity)
    return f"restocked {quantity}"


def _outputs(result: Any) -> list[str]:
    return [i["output"] for i in result.new_items if i.get("type") == "function_call_output"]


async def test_each_call_gets_the_next_step_and_the_tool_runs_between() -> None:
    received.clear()
    model = ScriptedModel(
        [
            [function_call("restock", {"quantity": 5}, call_id="call-1")],
            [assistant_message("Done: 5 more.")],
        ]
    )
    result = await Runner.run(Agent("shop", tools=[restock], model=model), "Restock 5")
    assert result.final_output == "Done: 5 more."
    assert received == [5]
    assert _outputs(result) == ["restocked 5"]
    assert model.remaining_steps == 0
    model.assert_complete()
    assert len(model.calls) == 2
    assert model.calls[1].input[-1]["call_id"] == "call-1"  # the tool's output went back


async def test_a_bad_call_from_a_tool_that_re_raises_stops_the_run_before_the_tool() -> None:
    received.clear()
    model = ScriptedModel([[function_call("restock", '{"quantity": "many"}', call_id="c")]])
    with pytest.raises(ModelBehaviorError, match="Invalid JSON input for tool restock"):
        await Runner.run(Agent("shop", tools=[restock], model=model), "Restock")
    assert received == []


async def test_a_text_step_an_exception_step_and_running_out() -> None:
    model = ScriptedModel(["Hello.", RuntimeError("the provider is down")])
    agent = Agent("greeter", model=model)
    assert (await Runner.run(agent, "Hi")).final_output == "Hello."
    with pytest.raises(RuntimeError, match="the provider is down"):
        await Runner.run(agent, "Hi again")
    with pytest.raises(UserError, match="call 3 has no step left"):
        await Runner.run(agent, "Anyone?")


def test_a_step_of_another_kind_is_refused_saying_what_fits() -> None:
    with pytest.raises(UserError, match="step 2 is int; give a list of items"):
        ScriptedModel(["ok", 3])  # pyright: ignore[reportArgumentType]
    unused = ScriptedModel(["ok"])
    with pytest.raises(AssertionError, match="1 step\\(s\\) left after 0 call\\(s\\)"):
        unused.assert_complete()
