"""A whole run over loopback HTTP, the scripted server in another process.

Run with:
    pip install -e '.[dev,bench]' && python benchmarks/bench_http.py

One run: the model calls a sync tool `add` once, then answers (two model calls).
The model is a scripted OpenAI-compatible server (`_http_server.py`, the server of
tests/openai_server.py) in a process of its own, as a real API is, so that its work
is not in this process's timings; it keeps connections open (HTTP/1.1). tooluse and
openai-agents each call it through their own `AsyncOpenAI` client, built with the
same settings, with a no-op `RunHooks` subclass installed (every callback overridden,
so each one is called), and `opentelemetry.trace` imported with no tracer provider
configured (openai-agents' own tracing disabled). Agents, models, clients and tools
are built once, outside the timing; every side is warmed (connections opened, thread
pools started) and must give the same final output before a ratio is printed.

Timed per run, rounds alternating between the sides: the wall time, and this
process's CPU time (`time.process_time`, every thread's). The CPU ratio is the figure
reported against the target: it is what each SDK itself costs, while the wall time
also holds the server's work and the waits for a core on a shared machine. Both are
printed, for the Responses API (the figures) and Chat Completions (printed), plain and
streamed. Then tooluse's overhead with the OpenTelemetry SDK recording into an
in-memory exporter (no target). `--quick`: a tenth of the runs; `--json PATH`: also
write the ratios (benchmarks/_common.py).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import agents
import opentelemetry.trace  # noqa: F401 - imported, with no provider: what the target assumes
from _common import Results, Timing, arguments, same_outputs, timed, verdict
from _peers import no_op_hooks
from openai import AsyncOpenAI
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import tooluse

QUESTION = "What is 2 + 3?"
ANSWER = "The sum is 5."
ROUNDS = 9
TARGET = 0.5
STREAMED_TARGET = 0.45
"""Streamed, tooluse/openai-agents (issue #35)."""
BARE_TARGET = 1.0
"""Streamed: tooluse/a bare `openai` client reading every event (issue #35)."""
SERVER = Path(__file__).resolve().parent / "_http_server.py"

agents.set_tracing_disabled(True)

Run = Callable[[], Awaitable[Any]]


def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


def start_server() -> tuple[subprocess.Popen[str], str]:
    """The scripted server in its own process, and its base URL."""
    server = subprocess.Popen(
        [sys.executable, str(SERVER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert server.stdout is not None
    return server, server.stdout.readline().strip()


def client(base_url: str) -> AsyncOpenAI:
    """The client each side gets: the same settings (no retries: the server never fails)."""
    return AsyncOpenAI(base_url=base_url, api_key="test-key", max_retries=0)


def tooluse_run(base_url: str, api: str, *, streamed: bool, config: Any = None) -> Run:
    model_class = (
        tooluse.OpenAIResponsesModel if api == "responses" else tooluse.OpenAIChatCompletionsModel
    )
    model = model_class("test-model", client(base_url))
    agent = tooluse.Agent("calc", tools=[tooluse.function_tool(add)], model=model)
    hooks = no_op_hooks(tooluse.RunHooks)
    config = config or tooluse.RunConfig()

    async def plain() -> Any:
        return (
            await tooluse.Runner.run(agent, QUESTION, hooks=hooks, run_config=config)
        ).final_output

    async def stream() -> Any:
        result = tooluse.Runner.run_streamed(agent, QUESTION, hooks=hooks, run_config=config)
        async for _ in result.stream_events():
            pass
        return result.final_output

    return stream if streamed else plain


def agents_run(base_url: str, api: str, *, streamed: bool) -> Run:
    model_class = (
        agents.OpenAIResponsesModel if api == "responses" else agents.OpenAIChatCompletionsModel
    )
    model = model_class("test-model", client(base_url))
    agent = agents.Agent("calc", tools=[agents.function_tool(add)], model=model)
    hooks = no_op_hooks(agents.RunHooks)

    async def plain() -> Any:
        return (await agents.Runner.run(agent, QUESTION, hooks=hooks)).final_output

    async def stream() -> Any:
        result = agents.Runner.run_streamed(agent, QUESTION, hooks=hooks)
        async for _ in result.stream_events():
            pass
        return result.final_output

    return stream if streamed else plain


ADD_TOOL_RESPONSES = {
    "type": "function",
    "name": "add",
    "description": "Add two numbers.",
    "parameters": {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
        "additionalProperties": False,
    },
    "strict": True,
}
ADD_TOOL_CHAT = {
    "type": "function",
    "function": {key: ADD_TOOL_RESPONSES[key] for key in ("name", "description", "parameters")},
}


def bare_run(base_url: str, api: str, *, streamed: bool) -> Run:
    """The floor: a bare `openai` client making the run's two requests, calling `add` itself.

    Streamed, it reads every event the client builds, as a run's consumer would.
    """
    bare = client(base_url)

    async def call(**params: Any) -> Any:
        if api == "responses":
            create: Any = bare.responses.create
        else:
            create = bare.chat.completions.create
        if not streamed:
            return await create(**params)
        async with await create(**params, stream=True) as stream:
            events: list[Any] = [event async for event in stream]
        return events[-1]

    async def responses() -> Any:
        question = [{"role": "user", "content": QUESTION}]
        first = await call(model="test-model", input=question, tools=[ADD_TOOL_RESPONSES])
        made = first.response.output[0] if streamed else first.output[0]
        output = str(add(**json.loads(made.arguments)))
        follow = [made.model_dump(exclude_none=True)]
        follow.append({"type": "function_call_output", "call_id": made.call_id, "output": output})
        second = await call(model="test-model", input=question + follow, tools=[ADD_TOOL_RESPONSES])
        return (second.response if streamed else second).output_text

    async def chat() -> Any:
        question: list[Any] = [{"role": "user", "content": QUESTION}]
        params = {"stream_options": {"include_usage": True}} if streamed else {}
        first = await call(model="test-model", messages=question, tools=[ADD_TOOL_CHAT], **params)
        if streamed:
            return await chat_streamed(question, params)
        made = first.choices[0].message.tool_calls[0]
        output = str(add(**json.loads(made.function.arguments)))
        follow = [first.choices[0].message.model_dump(exclude_none=True)]
        follow.append({"role": "tool", "tool_call_id": made.id, "content": output})
        second = await call(model="test-model", messages=question + follow, tools=[ADD_TOOL_CHAT])
        return second.choices[0].message.content

    async def chat_streamed(question: list[Any], params: dict[str, Any]) -> Any:
        # The first request was made; its call is the scripted one (a=2, b=3, call_1).
        follow = [
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": str(add(2, 3))},
        ]
        stream = await bare.chat.completions.create(
            model="test-model",
            messages=question + follow,
            tools=[ADD_TOOL_CHAT],
            stream=True,
            **params,
        )
        async with stream:
            events: list[Any] = [event async for event in stream]
        return "".join(e.choices[0].delta.content or "" for e in events if e.choices)

    return responses if api == "responses" else chat


async def measure(runs: dict[str, Run], n: int, rounds: int) -> dict[str, tuple[float, float]]:
    """Warm and check every side, then alternate rounds: median (wall, CPU) per run."""
    outputs: dict[str, Any] = {}
    for name, run in runs.items():
        for _ in range(5):
            outputs[name] = await run()
    same_outputs({**outputs, "expected": ANSWER})
    samples: dict[str, list[Timing]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            samples[name].append(await timed(run, n))
    return {
        name: (statistics.median(s.wall for s in values), statistics.median(s.cpu for s in values))
        for name, values in samples.items()
    }


def report(title: str, medians: dict[str, tuple[float, float]], base: str) -> tuple[float, float]:
    """Print each side's times and the ratios to `base`; return (wall, CPU) ratios of the first."""
    print(title)
    first = next(iter(medians))
    ours_wall, ours_cpu = medians[first]
    ratios = (0.0, 0.0)
    for name, (wall, cpu) in medians.items():
        line = f"  {name:<28} wall {wall * 1e6:>9.1f}us  cpu {cpu * 1e6:>9.1f}us"
        if name == base:
            ratios = ours_wall / wall, ours_cpu / cpu
            line += f"  {first}/{name}: wall {ratios[0]:.3f}  cpu {ratios[1]:.3f}"
        print(line)
    return ratios


async def compare_sdks(base_url: str, n: int, results: Results) -> None:
    for api, label in (("responses", "Responses API"), ("chat", "Chat Completions")):
        for streamed in (False, True):
            runs = {
                "tooluse": tooluse_run(base_url, api, streamed=streamed),
                "openai-agents": agents_run(base_url, api, streamed=streamed),
                "bare openai client": bare_run(base_url, api, streamed=streamed),
            }
            mode = ", streamed" if streamed else ""
            medians = await measure(runs, n, ROUNDS)
            wall, cpu = report(f"{label}{mode} (per run):", medians, "openai-agents")
            bare_cpu = medians["tooluse"][1] / medians["bare openai client"][1]
            print(f"  tooluse/bare openai client: cpu {bare_cpu:.3f}")
            if api == "responses":
                figure = f"run, tooluse/openai-agents over HTTP{mode}"
                results.ratio(figure, cpu, STREAMED_TARGET if streamed else TARGET)
                results.ratio(f"{figure} (wall)", wall)
                target = STREAMED_TARGET if streamed else TARGET
                print(f"  {figure} (CPU) = {cpu:.3f}  {verdict(cpu, target)}")
                floor = f"run, tooluse/bare openai client over HTTP{mode}"
                results.ratio(floor, bare_cpu, BARE_TARGET if streamed else None)
                print(f"  {floor} (CPU) = {bare_cpu:.3f}")


async def tracing_overhead(base_url: str, n: int, results: Results) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    config = tooluse.RunConfig(tracer_provider=provider)
    for streamed in (False, True):
        runs = {
            "tooluse + OTel SDK in memory": tooluse_run(
                base_url, "responses", streamed=streamed, config=config
            ),
            "tooluse": tooluse_run(base_url, "responses", streamed=streamed),
        }
        mode = ", streamed" if streamed else ""
        title = f"tracing overhead, Responses API{mode} (per run):"
        _, cpu = report(title, await measure(runs, n, ROUNDS), "tooluse")
        results.ratio(f"run over HTTP{mode}, OTel SDK in-memory exporter / API only", cpu)
        exporter.clear()


async def main() -> None:
    args = arguments(__doc__ or "")
    results = Results()
    server, base_url = start_server()
    try:
        n = 5 if args.quick else 40
        await compare_sdks(base_url, n, results)
        await tracing_overhead(base_url, n, results)
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=10)
    results.write(args.json)


if __name__ == "__main__":
    asyncio.run(main())
