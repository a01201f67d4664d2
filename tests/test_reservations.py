"""The loop counts requests and tool calls itself, and reserves them before awaiting.

A model written only from the documented interface (`ModelResponse(output=...)`, its
`usage` left empty) is counted all the same, and `request_limit` stops it at exactly
the limit. Four agents used as tools, run at once in one turn, share one `Usage`:
however their model and tool calls interleave, what starts never passes a limit.
The counts here are made by the models and tools themselves, not read from `Usage`.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Literal

import pytest

from tooluse import (
    Agent,
    FunctionTool,
    RunConfig,
    RunContextWrapper,
    Runner,
    RunResult,
    Usage,
    UsageLimitExceeded,
    UsageLimits,
    function_tool,
)
from tooluse.models import Model, ModelRequest, ModelResponse, ResponseDone, StreamEvent

from .scripted import Item, call, text

Mode = Literal["whole", "streamed"]
MODES: list[Mode] = ["whole", "streamed"]


async def run_in(
    mode: Mode, agent: Agent[Any], config: RunConfig | None = None, context: Any = None
) -> RunResult:
    """The run's result, from `Runner.run` or from a streamed run read to its end."""
    if mode == "whole":
        return await Runner.run(agent, "go", run_config=config, context=context)
    streamed = Runner.run_streamed(agent, "go", run_config=config, context=context)
    async for _ in streamed.stream_events():
        pass
    return streamed


class DocumentedModel(Model):
    """A model written from `Model`'s docstrings alone: no usage reported, ever."""

    def __init__(self, *turns: list[Item]) -> None:
        self.turns = list(turns)
        self.calls = 0

    def _next(self) -> ModelResponse:
        self.calls += 1
        return ModelResponse(output=self.turns.pop(0) if self.turns else [text("done")])

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        return self._next()

    async def stream_response(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        yield ResponseDone(self._next())


@function_tool
def ping(n: int) -> str:
    """Ping.

    Args:
        n: A number.
    """
    return f"pong {n}"


def four_pings_then_done() -> DocumentedModel:
    """A model that needs five calls: four turns that each call `ping`, then an answer."""
    return DocumentedModel(*[[call(f"c{n}", "ping", {"n": n})] for n in range(4)])


# --- a model that reports no usage is counted ---------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_a_model_that_reports_no_usage_is_counted_once_per_call(mode: Mode) -> None:
    model = four_pings_then_done()
    result = await run_in(mode, Agent("a", tools=[ping], model=model))
    assert result.final_output == "done"
    assert model.calls == 5
    assert result.usage.requests == 5
    assert result.usage.tool_calls == 4
    assert len(result.usage.request_usage_entries) == 5


@pytest.mark.parametrize("mode", MODES)
async def test_the_request_limit_stops_a_model_that_reports_no_usage_at_the_limit(
    mode: Mode,
) -> None:
    model = four_pings_then_done()
    agent = Agent("a", tools=[ping], model=model)
    config = RunConfig(usage_limits=UsageLimits(request_limit=2))
    with pytest.raises(UsageLimitExceeded) as raised:
        await run_in(mode, agent, config)
    assert model.calls == 2  # exactly two requests sent, not five
    error = raised.value
    assert (error.limit, error.value, error.used) == ("request_limit", 2, 3)
    assert error.state is not None
    assert error.state.usage.requests == 2


async def test_a_model_reporting_more_requests_than_it_made_is_counted_by_the_calls() -> None:
    class Overreporting(DocumentedModel):
        async def get_response(self, request: ModelRequest) -> ModelResponse:
            response = self._next()
            response.usage = Usage(requests=3, input_tokens=7)  # its client's own retries, say
            return response

    model = Overreporting([call("c1", "ping", {"n": 1})])
    result = await Runner.run(Agent("a", tools=[ping], model=model), "go")
    assert model.calls == 2
    assert result.usage.requests == 2
    assert result.usage.input_tokens == 14  # the tokens it reports are still added


# --- four agents used as tools, at once, under one budget -----------------------------------


@dataclass
class Started:
    """What started, counted as it starts, across every run of the tree."""

    model_calls: int = 0
    tools: int = 0


class InterleavingModel(Model):
    """Answers with `reply(request)`, after yielding to the loop a random number of times."""

    def __init__(
        self, started: Started, reply: Callable[[ModelRequest], list[Item]], rng: random.Random
    ) -> None:
        self.started = started
        self.reply = reply
        self.rng = rng

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        self.started.model_calls += 1
        for _ in range(self.rng.randint(0, 3)):
            await asyncio.sleep(0)  # let the other runs of the tree go on meanwhile
        return ModelResponse(output=self.reply(request))

    async def stream_response(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        yield ResponseDone(await self.get_response(request))


NESTED = ("north", "south", "east", "west")
ROUNDS = 3  # turns in which each nested agent calls its tool
WIDTH = 3  # calls of the tool in each of those turns
WHOLE_TREE_REQUESTS = 1 + len(NESTED) * (ROUNDS + 1) + 1  # 18
WHOLE_TREE_TOOL_CALLS = len(NESTED) + len(NESTED) * ROUNDS * WIDTH  # 40


def outputs_in(request: ModelRequest) -> int:
    return sum(item.get("type") == "function_call_output" for item in request.input)


def nested_reply(name: str) -> Callable[[ModelRequest], list[Item]]:
    """`ROUNDS` turns of `WIDTH` calls of `lookup`, then an answer."""

    def reply(request: ModelRequest) -> list[Item]:
        turn = outputs_in(request) // WIDTH
        if turn >= ROUNDS:
            return [text(f"{name} is done")]
        return [call(f"{name}_{turn}_{n}", "lookup", {"n": n}) for n in range(WIDTH)]

    return reply


def outer_reply(request: ModelRequest) -> list[Item]:
    """All four agents at once, then an answer."""
    if outputs_in(request):
        return [text("all four answered")]
    return [call(f"ask_{name}", name, {"input": "look it up"}) for name in NESTED]


@function_tool
async def lookup(ctx: RunContextWrapper[Started], n: int) -> str:
    """Look something up.

    Args:
        n: What to look up.
    """
    # Counted through the run's context, which the nested runs share: a tool defined here,
    # not in each test, leaves no argument model of its own to collect after the test.
    ctx.context.tools += 1
    await asyncio.sleep(0)
    return f"found {n}"


def tree(started: Started, seed: int) -> Agent[Any]:
    """The outer agent, with the four nested agents as its tools."""

    def model(name: str, reply: Callable[[ModelRequest], list[Item]]) -> InterleavingModel:
        return InterleavingModel(started, reply, random.Random(f"{seed}-{name}"))

    agent_tools: list[FunctionTool] = [
        Agent(name, tools=[lookup], model=model(name, nested_reply(name))).as_tool()
        for name in NESTED
    ]
    return Agent("outer", tools=agent_tools, model=model("outer", outer_reply))


@pytest.mark.parametrize("mode", MODES)
async def test_the_whole_tree_is_counted_in_the_callers_usage(mode: Mode) -> None:
    started = Started()
    result = await run_in(mode, tree(started, seed=0), context=started)
    assert result.final_output == "all four answered"
    assert started.model_calls == result.usage.requests == WHOLE_TREE_REQUESTS
    assert started.tools == ROUNDS * WIDTH * len(NESTED)
    assert result.usage.tool_calls == WHOLE_TREE_TOOL_CALLS


SEEDS = range(6)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("seed", SEEDS)
async def test_no_more_tools_start_than_the_tool_call_limit_however_the_runs_interleave(
    mode: Mode, seed: int
) -> None:
    started = Started()
    config = RunConfig(usage_limits=UsageLimits(tool_calls_limit=15))
    with pytest.raises(UsageLimitExceeded) as raised:
        await run_in(mode, tree(started, seed), config, started)
    assert raised.value.limit == "tool_calls_limit"
    # The four agent tools started, each at most once, and then the tools they called.
    assert started.tools > 0
    assert len(NESTED) + started.tools <= 15
    state = raised.value.state
    assert state is not None
    assert state.usage.tool_calls <= 15


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("limit", [2, 3, 7, 12])  # 2: one outer call, then four nested at once
async def test_no_more_model_calls_start_than_the_request_limit_however_the_runs_interleave(
    mode: Mode, seed: int, limit: int
) -> None:
    started = Started()
    config = RunConfig(usage_limits=UsageLimits(request_limit=limit))
    with pytest.raises(UsageLimitExceeded) as raised:
        await run_in(mode, tree(started, seed), config, started)
    assert raised.value.limit == "request_limit"
    assert started.model_calls <= limit
    state = raised.value.state
    assert state is not None
    assert state.usage.requests == started.model_calls  # each call counted as it was sent
