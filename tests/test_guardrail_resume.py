"""Guardrails across stops and resumes: what a stopped run keeps, and what a resumed run checks."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tooluse import (
    Agent,
    GuardrailFunctionOutput,
    InputGuardrail,
    InputGuardrailTripwireTriggered,
    OutputGuardrail,
    OutputGuardrailTripwireTriggered,
    RunConfig,
    Runner,
    RunTimeoutError,
    function_tool,
)

from .scripted import ScriptModel, call, text

PASS = GuardrailFunctionOutput(output_info="fine", tripwire_triggered=False)
TRIP = GuardrailFunctionOutput(output_info="bad", tripwire_triggered=True)
wired: list[int] = []


@function_tool
def wire_money(amount: int) -> str:
    """Wire money.

    Args:
        amount: How much.
    """
    wired.append(amount)
    return "wired"


async def test_a_resumed_run_gives_input_guardrails_the_input_as_it_was_given() -> None:
    seen: list[object] = []

    def no_bad_words(ctx: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
        seen.append(input)
        return TRIP if "bad" in input else PASS

    model = ScriptModel([text("dropped")], [call("c1", "wire_money", {"amount": 5})])
    agent = Agent(
        "a", tools=[wire_money], input_guardrails=[InputGuardrail(no_bad_words)], model=model
    )
    with pytest.raises(InputGuardrailTripwireTriggered) as raised:
        await Runner.run(agent, "bad words")
    state = raised.value.state
    assert state is not None
    with pytest.raises(InputGuardrailTripwireTriggered):
        await Runner.run(agent, state)
    assert seen == ["bad words", "bad words"]  # the text both times, not a list of items


async def test_a_run_stopped_while_input_guardrails_ran_checks_them_again_on_resume() -> None:
    wired.clear()

    async def slow_check(ctx: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
        await asyncio.sleep(2)
        return TRIP

    model = ScriptModel([call("c1", "wire_money", {"amount": 5})], [text("done")])
    agent = Agent(
        "a", tools=[wire_money], input_guardrails=[InputGuardrail(slow_check)], model=model
    )
    with pytest.raises(RunTimeoutError) as raised:
        await Runner.run(agent, "go", run_config=RunConfig(run_timeout=0.2))
    state = raised.value.state
    assert state is not None
    assert state.new_items == []  # the response that came first is not kept
    assert state.turn is None

    def fast_trip(ctx: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
        return TRIP

    checked = Agent(
        "a", tools=[wire_money], input_guardrails=[InputGuardrail(fast_trip)], model=model
    )
    with pytest.raises(InputGuardrailTripwireTriggered):
        await Runner.run(checked, state)
    assert wired == []


async def test_a_streamed_run_keeps_the_output_guardrail_result_that_tripped() -> None:
    guard = OutputGuardrail(lambda ctx, agent, output: TRIP, name="no_answers")
    agent = Agent("a", output_guardrails=[guard], model=ScriptModel([text("an answer")]))
    result = Runner.run_streamed(agent, "go")
    with pytest.raises(OutputGuardrailTripwireTriggered):
        async for _ in result.stream_events():
            pass
    assert [r.guardrail.get_name() for r in result.output_guardrail_results] == ["no_answers"]
