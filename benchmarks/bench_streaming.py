"""What one streamed event costs, side by side in one process.

Run with:
    pip install -e '.[bench]' && python benchmarks/bench_streaming.py

Each SDK streams a run whose model sends N text deltas and then the whole
message, through its own public streaming API, and the consumer looks at every
event: tooluse `Runner.run_streamed(...).stream_events()`, openai-agents
`Runner.run_streamed(...).stream_events()` (tracing disabled), pydantic-ai
`Agent.run_stream_events()`. The models are minimal and of equal cost: each
yields events built once, before the clock (the same `ResponseTextDeltaEvent`
objects for tooluse and openai-agents, the same strings for pydantic-ai's
`FunctionModel`). The cost per event is the CPU time of a run with N deltas
less that of a run with one, divided by N - 1, so what a run costs anyway
(agents, turns, items) cancels out. Rounds alternate between the SDKs; the
medians are printed with the ratios (tooluse/other; below 1.0: tooluse is
faster), each the median over the rounds of the round's ratio: the machine's
speed drifts over seconds, and the samples of one round drift together. Before
printing, the script checks that every SDK produced the same text and showed
the consumer every delta.

`--quick` runs fewer and shorter rounds; `--json PATH` writes the ratios (tooluse's
per-event cost over each peer's; target against openai-agents: half of the 0.19 measured
before the bounded buffer, issue #15) for `run_all.py`.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import agents
from _common import Results, arguments, paired_ratio, verdict
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseTextDeltaEvent,
    ResponseUsage,
)
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails
from pydantic_ai import Agent as PydanticAgent
from pydantic_ai.messages import ModelMessage, PartDeltaEvent, PartStartEvent, TextPart
from pydantic_ai.models.function import AgentInfo
from pydantic_ai.models.function import FunctionModel as PydanticFunctionModel
from pydantic_ai.run import AgentRunResultEvent

import tooluse
from tooluse.models import ModelRequest, ModelResponse, ResponseDone, StreamDelta, StreamEvent

PIECE = "x"
"""What each delta says; a run's answer is N of them."""
QUESTION = "Say something long."
TEXT_DELTA = "response.output_text.delta"
TARGET = 0.1
"""tooluse/openai-agents per streamed event: half of 0.19, the ratio before (issue #15)."""

Run = Callable[[], Awaitable[tuple[int, str]]]
"""One streamed run: how many text deltas the consumer saw, and the final answer."""


def delta_events(n: int) -> list[ResponseTextDeltaEvent]:
    return [
        ResponseTextDeltaEvent(
            type=TEXT_DELTA,
            delta=PIECE,
            item_id="msg_1",
            output_index=0,
            content_index=0,
            sequence_number=i,
            logprobs=[],
        )
        for i in range(n)
    ]


# --- tooluse ---------------------------------------------------------------


class ToolUseDeltaModel(tooluse.Model):
    """Streams N prebuilt deltas, then the whole message."""

    def __init__(self, n: int) -> None:
        self.deltas = [StreamDelta(event) for event in delta_events(n)]
        message = {
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": PIECE * n, "annotations": []}],
        }
        self.done = ResponseDone(ModelResponse(output=[message]))

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        return self.done.response

    async def stream_response(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        for delta in self.deltas:
            yield delta
        yield self.done


def streamed_run(runner: Any, agent: Any) -> Run:
    """A streamed run of `agent` by `runner` (tooluse's or openai-agents' `Runner`, which
    stream alike): how many text deltas it yielded, and its final output."""

    async def run() -> tuple[int, str]:
        result = runner.run_streamed(agent, QUESTION)
        seen = 0
        async for event in result.stream_events():
            if event.type == "raw_response_event" and event.data.type == TEXT_DELTA:
                seen += 1
        return seen, result.final_output

    return run


def tooluse_run(n: int) -> Run:
    return streamed_run(tooluse.Runner, tooluse.Agent("talker", model=ToolUseDeltaModel(n)))


# --- openai-agents ---------------------------------------------------------

agents.set_tracing_disabled(True)


class AgentsDeltaModel(agents.Model):
    """Streams N prebuilt deltas, then the completed response."""

    def __init__(self, n: int) -> None:
        self.deltas = delta_events(n)
        text = ResponseOutputText(type="output_text", text=PIECE * n, annotations=[])
        message = ResponseOutputMessage(
            id="msg_1", type="message", role="assistant", status="completed", content=[text]
        )
        usage = ResponseUsage(
            input_tokens=0, output_tokens=0, total_tokens=0,
            input_tokens_details=InputTokensDetails(cached_tokens=0, cache_write_tokens=0),
            output_tokens_details=OutputTokensDetails(reasoning_tokens=0),
        )  # fmt: skip
        response = Response(
            id="resp_1", created_at=0, model="scripted", object="response", output=[message],
            parallel_tool_calls=False, tool_choice="auto", tools=[], usage=usage,
        )  # fmt: skip
        self.done = ResponseCompletedEvent(
            type="response.completed", response=response, sequence_number=n
        )

    async def get_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        for delta in self.deltas:
            yield delta
        yield self.done


def agents_run(n: int) -> Run:
    return streamed_run(agents.Runner, agents.Agent("talker", model=AgentsDeltaModel(n)))


# --- pydantic-ai -------------------------------------------------------------


def pydantic_run(n: int) -> Run:
    pieces = [PIECE] * n

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        for piece in pieces:
            yield piece

    agent = PydanticAgent(PydanticFunctionModel(stream_function=stream))

    async def run() -> tuple[int, str]:
        seen, output = 0, ""
        async with agent.run_stream_events(QUESTION) as events:
            async for event in events:
                if isinstance(event, PartDeltaEvent) or (
                    isinstance(event, PartStartEvent) and isinstance(event.part, TextPart)
                ):
                    seen += 1  # the first piece starts the text part, each later one a delta
                elif isinstance(event, AgentRunResultEvent):
                    output = str(event.result.output)
        return seen, output

    return run


# --- timing --------------------------------------------------------------------

SIDES: dict[str, Callable[[int], Run]] = {
    "tooluse": tooluse_run,
    "openai-agents": agents_run,
    "pydantic-ai": pydantic_run,
}


async def cpu_per_run(run: Run, runs: int) -> float:
    start = time.process_time()
    for _ in range(runs):
        await run()
    return (time.process_time() - start) / runs


async def check(name: str, run: Run, n: int) -> None:
    seen, output = await run()
    if (seen, output) != (n, PIECE * n):
        raise SystemExit(f"{name}: saw {seen} deltas and answered {len(output)} characters")


async def per_event(n: int, runs: int, rounds: int) -> dict[str, list[float]]:
    long = {name: make(n) for name, make in SIDES.items()}
    short = {name: make(1) for name, make in SIDES.items()}
    for name in SIDES:  # warm up, and the same outputs on every side
        await check(name, long[name], n)
        await check(name, short[name], 1)
    samples: dict[str, list[float]] = {name: [] for name in SIDES}
    for _ in range(rounds):
        for name in SIDES:
            extra = await cpu_per_run(long[name], runs) - await cpu_per_run(short[name], runs)
            samples[name].append(extra / (n - 1))
    return samples


def report(n: int, samples: dict[str, list[float]]) -> Results:
    ours = samples["tooluse"]
    results = Results()
    print(f"per streamed event (a run of {n} text deltas less a run of 1, CPU time):")
    for name, theirs in samples.items():
        seconds = statistics.median(theirs)
        if name == "tooluse":
            print(f"  {name:<14} {seconds * 1e6:>8.3f}us")
            continue
        target = TARGET if name == "openai-agents" else None
        ratio = paired_ratio(ours, theirs)
        results.ratio(f"per streamed event, tooluse / {name}", ratio, target)
        print(
            f"  {name:<14} {seconds * 1e6:>8.3f}us  tooluse/{name} = {ratio:.3f}"
            f"  {verdict(ratio, target)}"
        )
    return results


async def main() -> None:
    args = arguments(__doc__ or "")
    n = 500 if args.quick else 2000
    samples = await per_event(n, runs=2 if args.quick else 5, rounds=3 if args.quick else 15)
    report(n, samples).write(args.json)


if __name__ == "__main__":
    asyncio.run(main())
