"""Usage you can bill: totals with cached and reasoning tokens, one entry per model call,
nested runs counted in their caller's, streamed runs counted as plain ones; and the
stream's usage and handoff events."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tooluse import (
    Agent,
    InputTokensDetails,
    OutputTokensDetails,
    RequestUsage,
    Runner,
    RunState,
    TResponseInputItem,
    Usage,
    UsageStreamEvent,
    function_tool,
    handoff,
)
from tooluse.models import Model, ModelRequest, ModelResponse, ResponseDone, StreamEvent

from .scripted import call, text


class BilledModel(Model):
    """Answers with the scripted outputs; each response uses the next scripted usage."""

    def __init__(self, name: str, *turns: list[TResponseInputItem]) -> None:
        self.model = name
        self.turns = list(turns)
        self.calls = 0

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        self.calls += 1
        output = self.turns.pop(0) if self.turns else [text(f"{self.model} done")]
        usage = Usage(
            requests=1,
            input_tokens=100 * self.calls,
            output_tokens=10,
            total_tokens=100 * self.calls + 10,
            input_tokens_details=InputTokensDetails(cached_tokens=50),
            output_tokens_details=OutputTokensDetails(reasoning_tokens=4),
        )
        return ModelResponse(output, usage, f"resp_{self.calls}", model=f"{self.model}-2026")

    async def stream_response(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        yield ResponseDone(await self.get_response(request))


@function_tool
def ping() -> str:
    """Ping."""
    return "pong"


async def run(agent: Agent[Any], streamed: bool) -> Any:
    if not streamed:
        return await Runner.run(agent, "go")
    result = Runner.run_streamed(agent, "go")
    async for _ in result.stream_events():
        pass
    return result


@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "streamed"])
async def test_totals_and_one_entry_per_call(streamed: bool) -> None:
    agent = Agent("solo", tools=[ping], model=BilledModel("m1", [call("c1", "ping")]))
    result = await run(agent, streamed)
    usage = result.usage
    assert (usage.requests, usage.input_tokens, usage.output_tokens, usage.total_tokens) == (
        2,
        300,
        20,
        320,
    )
    assert (usage.cached_input_tokens, usage.reasoning_tokens, usage.tool_calls) == (100, 8, 1)
    assert usage.input_tokens_details == InputTokensDetails(cached_tokens=100)
    entries = usage.request_usage_entries
    assert [(e.model, e.agent_name, e.input_tokens, e.total_tokens) for e in entries] == [
        ("m1", "solo", 100, 110),
        ("m1", "solo", 200, 210),
    ]
    assert all(e.duration_seconds > 0 for e in entries)
    assert entries[0].output_tokens_details == OutputTokensDetails(reasoning_tokens=4)


async def test_streamed_and_plain_runs_count_the_same() -> None:
    def agent() -> Agent[Any]:
        return Agent("solo", tools=[ping], model=BilledModel("m1", [call("c1", "ping")]))

    plain, streamed = (await run(agent(), False)).usage, (await run(agent(), True)).usage
    for entry in (*plain.request_usage_entries, *streamed.request_usage_entries):
        entry.duration_seconds = 0.0
    assert plain == streamed


async def test_handoffs_and_nested_runs_add_to_the_callers_usage() -> None:
    helper = Agent("helper", model=BilledModel("m-helper"))
    closer = Agent("closer", model=BilledModel("m-closer"))
    lead = Agent(
        "lead",
        tools=[helper.as_tool()],
        handoffs=[handoff(closer)],
        model=BilledModel(
            "m-lead",
            [call("c1", "helper", {"input": "help"})],
            [call("c2", "transfer_to_closer")],
        ),
    )
    result = await Runner.run(lead, "go")
    assert result.final_output == "m-closer done"
    entries = result.usage.request_usage_entries
    assert [(e.agent_name, e.model) for e in entries] == [
        ("lead", "m-lead"),
        ("helper", "m-helper"),
        ("lead", "m-lead"),
        ("closer", "m-closer"),
    ]
    assert result.usage.requests == 4
    assert result.usage.total_tokens == sum(e.total_tokens for e in entries)
    assert result.usage.cached_input_tokens == 200


def test_usage_survives_the_run_state_json() -> None:
    state = RunState("a", [])
    state.usage.add(
        Usage(requests=1, input_tokens=3, input_tokens_details=InputTokensDetails(2), tool_calls=1)
    )
    state.usage.request_usage_entries.append(RequestUsage(3, 1, 4, model="m", agent_name="a"))
    back = RunState.from_json(state.to_json())
    assert back.usage == state.usage


def test_adding_usage_keeps_entries_in_order_and_details_apart() -> None:
    first = Usage(requests=1, request_usage_entries=[RequestUsage(1)])
    second = Usage(
        requests=1,
        output_tokens_details=OutputTokensDetails(reasoning_tokens=7),
        request_usage_entries=[RequestUsage(2)],
    )
    first.add(second)
    assert [e.input_tokens for e in first.request_usage_entries] == [1, 2]
    assert first.reasoning_tokens == 7
    with pytest.raises(dataclasses.FrozenInstanceError):  # shared, so never changed in place
        second.output_tokens_details.reasoning_tokens = 0  # type: ignore[misc]
    first.add(second)
    assert (first.reasoning_tokens, second.reasoning_tokens) == (14, 7)
    assert Usage().input_tokens_details is Usage().input_tokens_details  # one zero for all


async def test_the_stream_reports_usage_and_handoffs_in_order() -> None:
    closer = Agent("closer", model=BilledModel("m-closer"))
    lead = Agent(
        "lead",
        tools=[ping],
        handoffs=[closer],
        model=BilledModel("m-lead", [call("c1", "ping"), call("c2", "transfer_to_closer")]),
    )
    result = Runner.run_streamed(lead, "go")
    events = [event async for event in result.stream_events()]
    names = [getattr(e, "name", e.type) for e in events]
    assert names == [
        "agent_updated_stream_event",
        "usage_event",
        "tool_called",
        "handoff_requested",
        "tool_output",
        "handoff_occured",
        "agent_updated_stream_event",
        "usage_event",
        "message_output_created",
    ]
    first_usage = events[1]
    assert isinstance(first_usage, UsageStreamEvent)
    assert first_usage.request.agent_name == "lead"
    assert first_usage.usage is result.usage
