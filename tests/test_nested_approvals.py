"""An agent used as a tool whose nested run pauses: the pause reaches the caller's run.

As in openai-agents: the caller's result holds the nested call waiting (its `agent`
the nested agent), `state.approve`/`reject` decide it, and `Runner.run(agent, state)`
resumes the nested run, whose answer becomes the tool call's output. The turn's other
calls keep their answers and are not run again.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tooluse import (
    Agent,
    RunConfig,
    RunHooks,
    Runner,
    RunState,
    ToolContext,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrailData,
    ToolOutputGuardrailData,
    UserError,
    function_tool,
    tool_input_guardrail,
    tool_output_guardrail,
)
from tooluse.testing import FunctionModel, ModelReply, ToolCall

from .nested_approval_main import RAN, clerk, clerk_script, desk, note, run

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def fresh_counts() -> None:
    RAN.clear()


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_the_nested_pause_reaches_the_caller_and_resumes_there(streamed: bool) -> None:
    paused = await run("refund A-17", streamed)
    assert [(i.name, i.agent.name, i.arguments) for i in paused.interruptions] == [
        ("refund", "clerk", '{"order": "A-17"}')
    ]
    assert dict(RAN) == {"note": 1}  # the turn's other call ran; refund waits
    state = paused.to_state()
    state.approve(paused.interruptions[0])
    done = await run(state, streamed)
    assert done.final_output == "desk: clerk: refunded A-17 | noted x"
    assert dict(RAN) == {"note": 1, "refund": 1}  # note was not run again
    assert not done.interruptions


async def test_a_rejected_nested_call_tells_the_nested_model() -> None:
    paused = await run("refund A-17", False)
    state = paused.to_state()
    state.reject(paused.interruptions[0], rejection_message="no refunds today")
    done = await run(state, False)
    assert done.final_output == "desk: clerk: no refunds today | noted x"
    assert "refund" not in RAN


async def test_an_undecided_nested_call_pauses_again() -> None:
    paused = await run("refund A-17", False)
    again = await run(paused.to_state(), False)
    assert [(i.name, i.agent.name) for i in again.interruptions] == [("refund", "clerk")]
    assert dict(RAN) == {"note": 1}
    state = again.to_state()
    state.approve(again.interruptions[0])
    assert (await run(state, False)).final_output == "desk: clerk: refunded A-17 | noted x"


async def test_an_approved_agent_tool_then_its_nested_call_are_decided_apart() -> None:
    # The nested model numbers its calls as the outer one does (both say call_1): the
    # nested call is approved under its own id, `<outer call>/<nested call>`.
    def outer(items: list[Any], tools: Any) -> ModelReply | str:
        answered = [i for i in items if i.get("type") == "function_call_output"]
        if answered:
            return f"outer: {answered[-1]['output']}"
        return ModelReply(tool_calls=[ToolCall("ask_clerk", {"input": "refund A-17"})])

    clerk_here = Agent("clerk", tools=clerk.tools, model=FunctionModel(clerk_script))
    agent = Agent(
        "outer",
        tools=[clerk_here.as_tool(tool_name="ask_clerk", needs_approval=True)],
        model=FunctionModel(outer),
    )
    first = await Runner.run(agent, "go")
    assert [(i.name, i.agent.name) for i in first.interruptions] == [("ask_clerk", "outer")]
    state = first.to_state()
    state.approve(first.interruptions[0])
    second = await Runner.run(agent, state)
    [nested] = second.interruptions
    assert (nested.name, nested.agent.name, nested.call_id) == ("refund", "clerk", "call_1")
    assert nested.approval_id == "call_1/call_1"
    state = second.to_state()
    state.approve(nested)
    done = await Runner.run(agent, state)
    assert done.final_output == "outer: clerk: refunded A-17"


async def test_an_agent_tool_wrapped_by_a_tool_of_yours_pauses_through_its_context() -> None:
    # The pause reaches the run through the call's context: a tool that hands its own
    # context to an agent tool pauses the run as the agent tool would.
    ask_clerk = clerk.as_tool(tool_name="ask_clerk", tool_description="Ask the clerk.")

    @function_tool
    async def ask_politely(ctx: ToolContext[Any], request: str) -> str:
        """Ask the clerk, politely.

        Args:
            request: What to ask.
        """
        answer = await ask_clerk.on_invoke_tool(ctx, json.dumps({"input": f"please {request}"}))
        return f"{answer} (thanks)"

    def outer(items: list[Any], tools: Any) -> ModelReply | str:
        answered = [i for i in items if i.get("type") == "function_call_output"]
        if answered:
            return f"outer: {answered[-1]['output']}"
        return ModelReply(tool_calls=[ToolCall("ask_politely", {"request": "refund A-17"})])

    agent = Agent("outer", tools=[ask_politely], model=FunctionModel(outer))
    paused = await Runner.run(agent, "go")
    assert [(i.name, i.agent.name) for i in paused.interruptions] == [("refund", "clerk")]
    state = paused.to_state()
    state.approve(paused.interruptions[0])
    done = await Runner.run(agent, state)
    assert done.final_output == "outer: clerk: refunded A-17 (thanks)"
    assert dict(RAN) == {"refund": 1}


async def test_a_nested_pause_outside_a_runs_turn_says_where_to_call_the_agent_tool() -> None:
    ask_clerk = clerk.as_tool(tool_name="ask_clerk", tool_description="Ask the clerk.")
    ctx = ToolContext.for_testing(tool_name="ask_clerk", tool_call_id="call_1")
    with pytest.raises(UserError) as raised:
        await ask_clerk.on_invoke_tool(ctx, json.dumps({"input": "refund A-17"}))
    assert str(raised.value) == (
        "Agent 'clerk', used as a tool, paused for approval where the pause cannot reach a "
        "run (the tool called outside a run's turn, with a context the run did not make, or "
        "beside another agent tool in one parallel call): call the agent tool from an "
        "agent's run with the context the run gives, one call each"
    )
    assert "refund" not in RAN


async def test_a_nested_run_streamed_to_on_stream_pauses_and_resumes() -> None:
    events: list[str] = []

    def seen(event: Any) -> None:
        events.append(event["event"].type)

    clerk_here = Agent("clerk", tools=clerk.tools, model=FunctionModel(clerk_script))
    agent = Agent(
        "desk",
        tools=[clerk_here.as_tool(tool_name="ask_clerk", on_stream=seen), note],
        model=desk.model,
    )
    paused = await Runner.run(agent, "go")
    assert [i.agent.name for i in paused.interruptions] == ["clerk"]
    state = paused.to_state()
    state.approve(paused.interruptions[0])
    done = await Runner.run(agent, state)
    assert done.final_output == "desk: clerk: refunded A-17 | noted x"
    assert "run_item_stream_event" in events


class ToolWatch(RunHooks[Any]):
    """The caller's tool hooks, in the order they fire."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, str | None]] = []

    async def on_tool_start(self, context: Any, agent: Any, tool: Any) -> None:
        self.seen.append(("start", tool.name, None))

    async def on_tool_end(self, context: Any, agent: Any, tool: Any, result: str) -> None:
        self.seen.append(("end", tool.name, result))


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_the_paused_call_ends_once_with_its_real_output(streamed: bool) -> None:
    # Its hooks and its span: not at the pause (it has no output yet), once on resuming.
    watch, exporter, provider = ToolWatch(), InMemorySpanExporter(), TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    config = RunConfig(tracer_provider=provider, trace_include_sensitive_data=True)

    async def go(given: str | RunState) -> Any:
        if not streamed:
            return await Runner.run(desk, given, hooks=watch, run_config=config)
        result = Runner.run_streamed(desk, given, hooks=watch, run_config=config)
        async for _ in result.stream_events():
            pass
        return result

    paused = await go("refund A-17")
    assert sorted(watch.seen) == [
        ("end", "note", "noted x"), ("start", "ask_clerk", None), ("start", "note", None)
    ]  # fmt: skip
    state = paused.to_state()
    state.approve(paused.interruptions[0])
    await go(state)
    assert watch.seen[3:] == [("end", "ask_clerk", "clerk: refunded A-17")]
    results = [
        (span.attributes or {}).get("gen_ai.tool.call.result")
        for span in exporter.get_finished_spans()
        if span.name == "execute_tool ask_clerk"
    ]
    assert sorted(results, key=str) == [None, "clerk: refunded A-17"]  # the paused span: none


async def test_the_paused_call_is_counted_once() -> None:
    paused = await run("refund A-17", False)
    assert paused.usage.tool_calls == 2  # ask_clerk and note; refund waits
    state = paused.to_state()
    state.approve(paused.interruptions[0])
    done = await run(state, False)
    assert done.usage.tool_calls == 3  # and refund, inside the clerk's run


async def test_the_paused_call_is_guarded_once_each_side() -> None:
    # Its input is checked when it starts, its output when it has one: after resuming.
    checked: list[tuple[str, Any]] = []

    @tool_input_guardrail
    def look_in(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        checked.append(("input", data.context.tool_arguments))
        return ToolGuardrailFunctionOutput.allow()

    @tool_output_guardrail
    def look_out(data: ToolOutputGuardrailData) -> ToolGuardrailFunctionOutput:
        checked.append(("output", data.output))
        return ToolGuardrailFunctionOutput.allow()

    asking = replace(
        clerk.as_tool(tool_name="ask_clerk"),
        tool_input_guardrails=[look_in],
        tool_output_guardrails=[look_out],
    )
    agent = Agent("desk", tools=[asking, note], model=desk.model)
    paused = await Runner.run(agent, "go")
    assert checked == [("input", '{"input": "refund A-17"}')]
    state = paused.to_state()
    state.approve(paused.interruptions[0])
    done = await Runner.run(agent, state)
    assert done.final_output == "desk: clerk: refunded A-17 | noted x"
    assert checked[1:] == [("output", "clerk: refunded A-17")]
    assert len(done.tool_output_guardrail_results) == 1


def test_the_nested_state_round_trips_through_json() -> None:
    state = RunState("desk", [], nested={"call_1": RunState("clerk", [])})
    back = RunState.from_json(state.to_json())
    assert back == state
    assert isinstance(back.nested["call_1"], RunState)


def _half(phase: str, mode: str, state: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "tests.nested_approval_main", phase, mode, str(state)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize("mode", ["plain", "streamed"])
def test_a_nested_pause_is_resumed_in_another_process(mode: str, tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    assert _half("start", mode, state) == "[('refund', 'clerk')] {'note': 1}"
    assert _half("resume", mode, state) == "desk: clerk: refunded A-17 | noted x {'refund': 1}"
