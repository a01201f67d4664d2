"""The relay that runs the docs' examples on Claude (tests/claude_relay.py) relays faithfully.

Its replies reach the run through `AnthropicModel` and the local Messages API server:
the conversation goes out in the Messages API's shapes, the pieces of a streamed reply
keep their size, a scripted failure is the API's error status, and a model called around
the relay is noticed.
"""

from __future__ import annotations

from typing import Any

import pytest

from tooluse import (
    Agent,
    RetryPolicy,
    RunConfig,
    Runner,
    TextDeltaStreamEvent,
    function_tool,
)
from tooluse.exceptions import ModelAPIError
from tooluse.models import ModelTransportError
from tooluse.testing import FunctionModel, ModelReply, ToolCall, current_turn

from .claude_relay import AroundClaude, RelayServer, on_claude


@function_tool
def weather(city: str) -> str:
    """The weather.

    Args:
        city: The city.
    """
    return f"Sunny in {city}"


def forecaster(items: list[Any], tools: Any) -> ModelReply | str:
    del tools
    outputs = [i["output"] for i in current_turn(items) if i.get("type") == "function_call_output"]
    if outputs:
        return " / ".join(outputs)
    return ModelReply(
        tool_calls=[ToolCall("weather", {"city": "Oslo"}), ToolCall("weather", {"city": "Rome"})]
    )


async def test_a_run_goes_through_claude_both_ways(claude_relay: RelayServer) -> None:
    before = claude_relay.answered
    with on_claude(claude_relay):
        agent = Agent("w", tools=[weather], model=FunctionModel(forecaster))
        result = await Runner.run(agent, "Weather?")
    assert result.final_output == "Sunny in Oslo / Sunny in Rome"
    assert claude_relay.answered - before == 2
    assert [entry.model for entry in result.usage.request_usage_entries] == [
        "function:forecaster",
        "function:forecaster",
    ]


async def test_a_streamed_reply_keeps_the_models_pieces(claude_relay: RelayServer) -> None:
    model = FunctionModel(lambda items, tools: "abcdefghijk", piece_size=5)
    with on_claude(claude_relay):
        streamed = Runner.run_streamed(Agent("s", model=model), "Go")
        pieces = [
            event.delta
            async for event in streamed.stream_events()
            if isinstance(event, TextDeltaStreamEvent)
        ]
    assert pieces == ["abcde", "fghij", "k"]
    assert streamed.final_output == "abcdefghijk"


async def test_a_scripted_failure_is_the_apis_error_status(claude_relay: RelayServer) -> None:
    calls: list[int] = []

    def flaky(items: list[Any], tools: Any) -> str:
        del items, tools
        calls.append(1)
        if len(calls) == 1:
            raise ModelTransportError("busy", 529, retry_after=0.01)
        return "done"

    policy = RetryPolicy(initial_delay=0.01, jitter=0)
    with on_claude(claude_relay):
        agent = Agent("f", model=FunctionModel(flaky))
        result = await Runner.run(agent, "Go", run_config=RunConfig(retry_policy=policy))
    assert result.final_output == "done"
    assert len(calls) == 2  # the 529 went through Claude's client and was retried


def test_a_model_called_around_the_relay_is_noted(monkeypatch: pytest.MonkeyPatch) -> None:
    around = AroundClaude()
    around.watch(monkeypatch)
    result = Runner.run_sync(Agent("a", model=FunctionModel(lambda items, tools: "hi")), "Go")
    assert result.final_output == "hi"
    assert around.calls == ["FunctionModel.get_response"]


async def test_a_request_without_a_relayed_reply_is_refused(claude_relay: RelayServer) -> None:
    claude = claude_relay.model()  # an AnthropicModel that names no relayed reply
    with pytest.raises(ModelAPIError, match="HTTP 400"):
        await Runner.run(Agent("c", model=claude), "Go")
    await claude.client.close()
