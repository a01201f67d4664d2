"""tooluse vs openai-agents, side by side in one process: decorating and invoking tools.

Run with:
    pip install -e '.[bench]' && python benchmarks/bench_function_tools.py

Prints, per case, the median CPU time of each SDK and the ratio tooluse/openai-agents
(below 1.0: tooluse is faster): the median over the rounds of each round's ratio, with
the same ratio of wall times printed beside it (not recorded: no target). Rounds
alternate between the SDKs so that machine noise hits both alike. CPU time of the whole
process (every thread, `time.process_time`), as in bench_runner.py: the wall time of a
sync tool's thread hop is mostly an idle core waking up, which on this virtual machine
swings from round to round (0.25 to 0.81 of the peer's within one run, against 0.24 to
0.43 in CPU time).

Fair by construction: the invoked tools and their contexts are built once, outside the
timing; every round of every case runs in one event loop, so each side's worker threads
(sync tools) are started by the warm-up and stay warm; and both sides must give the
same result (the same schema, the same tool output) before a ratio is printed.
"decorate + 1st call" decorates a new function and calls it once (what a server's first
request pays); "decorate + warm + 1st call" calls tooluse's `FunctionTool.warm()` in
between, which moves that cost to start-up without changing the total.
`--quick`: a tenth of the iterations; `--json PATH`: also write the ratios
(benchmarks/_common.py).
"""

from __future__ import annotations

import asyncio
import queue
import statistics
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import agents
from _common import (
    Results,
    Timing,
    arguments,
    make_documented_function,
    paired_ratio,
    same_outputs,
    timed,
    verdict,
)
from agents.tool_context import ToolContext as AgentsToolContext

import tooluse

TARGETS: dict[str, float | None] = {
    "decorate + schema": 0.6,
    "decorate + 1st call": 0.25,  # issue #35: the validator is built at the first call
    "decorate + warm + 1st call": None,  # the same with `warm()` at start-up: the total
    "invoke async tool": 0.3,
    "invoke sync tool": 0.5,
}
ROUNDS = 15
ARGUMENTS = '{"a": 1, "b": 2}'


async def add_async(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


def add_sync(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


DECORATORS: dict[str, Callable[[Callable[..., Any]], Any]] = {
    "tooluse": tooluse.function_tool,
    "openai-agents": agents.function_tool,
}


def decorate(sdk: str) -> Callable[[], Awaitable[Any]]:
    decorator = DECORATORS[sdk]

    async def once() -> Any:
        return decorator(make_documented_function()).params_json_schema

    return once


def make_add() -> Callable[..., Awaitable[int]]:
    """A new `add_async` each time: neither SDK may reuse what it built for another."""

    async def add(a: int, b: int) -> int:
        """Add two numbers.

        Args:
            a: The first number.
            b: The second number.
        """
        return a + b

    return add


def first_call(sdk: str, *, warm: bool) -> Callable[[], Awaitable[Any]]:
    """Decorate a new function and call the tool once: a server's first request.

    With `warm`, tooluse's tool is warmed (`FunctionTool.warm()`) between the two, as at
    start-up; openai-agents has no such step, so its side is the same either way.
    """
    decorator = DECORATORS[sdk]
    context_type = tooluse.ToolContext if sdk == "tooluse" else AgentsToolContext

    async def once() -> Any:
        tool = decorator(make_add())
        if warm and sdk == "tooluse":
            tool.warm()
        ctx = context_type(
            context=None, tool_name=tool.name, tool_call_id="call_1", tool_arguments=ARGUMENTS
        )
        return await tool.on_invoke_tool(ctx, ARGUMENTS)

    return once


def schema_shape(schema: dict[str, Any]) -> dict[str, Any]:
    """What both SDKs must agree on: the parameters, their types and descriptions, `required`.

    By design tooluse states a default in the description ("Defaults to 1.") rather than
    as `default`, which strict mode would not allow; that one difference is left out.
    """
    properties = {
        name: {
            **{key: value for key, value in prop.items() if key not in {"default", "description"}},
            "description": prop.get("description", "").split(" Defaults to ")[0],
        }
        for name, prop in schema["properties"].items()
    }
    return {"properties": properties, "required": schema["required"]}


def invoker(sdk: str, func: Callable[..., Any]) -> Callable[[], Awaitable[Any]]:
    """Build the tool and its context once; the returned call only invokes it."""
    tool = DECORATORS[sdk](func)
    context_type = tooluse.ToolContext if sdk == "tooluse" else AgentsToolContext
    ctx = context_type(
        context=None, tool_name=tool.name, tool_call_id="call_1", tool_arguments=ARGUMENTS
    )
    return lambda: tool.on_invoke_tool(ctx, ARGUMENTS)


def case_runners(case: str) -> dict[str, Callable[[], Awaitable[Any]]]:
    if case == "decorate + schema":
        return {sdk: decorate(sdk) for sdk in DECORATORS}
    if case.startswith("decorate + "):
        return {sdk: first_call(sdk, warm="warm" in case) for sdk in DECORATORS}
    func = add_async if case == "invoke async tool" else add_sync
    return {sdk: invoker(sdk, func) for sdk in DECORATORS}


Samples = dict[str, list[Timing]]
"""Per SDK, round by round: seconds per call."""


def tooluse_over_peer(samples: Samples) -> tuple[float, float]:
    """tooluse/openai-agents in CPU time and in wall time, each paired by round."""
    ours, theirs = samples["tooluse"], samples["openai-agents"]
    return (
        paired_ratio([t.cpu for t in ours], [t.cpu for t in theirs]),
        paired_ratio([t.wall for t in ours], [t.wall for t in theirs]),
    )


async def measure(case: str, n: int) -> Samples:
    calls = case_runners(case)
    outputs: dict[str, Any] = {}
    for sdk, call in calls.items():  # warm-up: caches, and each side's worker threads
        for _ in range(3):
            outputs[sdk] = await call()
    if case == "decorate + schema":
        outputs = {sdk: schema_shape(schema) for sdk, schema in outputs.items()}
    same_outputs({sdk: str(output) for sdk, output in outputs.items()})
    samples: Samples = {sdk: [] for sdk in calls}
    for _ in range(ROUNDS):
        for sdk, call in calls.items():
            samples[sdk].append(await timed(call, n))
    return samples


async def handoff_floor(n: int) -> Timing:
    """Median seconds per round trip of a token between two threads (`SimpleQueue`s).

    No event loop and no tool: the least any thread hop costs on this machine (a sync
    tool's call pays it, plus waking the event loop when the result is back).
    """
    there: queue.SimpleQueue[bool] = queue.SimpleQueue()
    back: queue.SimpleQueue[bool] = queue.SimpleQueue()

    def echo() -> None:
        while there.get():
            back.put(True)

    async def round_trip() -> None:  # blocks the loop's thread, which waits for nothing else
        there.put(True)
        back.get()

    threading.Thread(target=echo, daemon=True).start()
    samples = [await timed(round_trip, n) for _ in range(ROUNDS + 1)]
    there.put(False)
    warm = samples[1:]  # the first round warms the thread up
    return Timing(statistics.median(t.wall for t in warm), statistics.median(t.cpu for t in warm))


async def main() -> None:
    args = arguments(__doc__ or "")
    results = Results()
    sizes = {
        "decorate + schema": 50,
        "decorate + 1st call": 50,
        "decorate + warm + 1st call": 50,
        "invoke async tool": 2000,
        "invoke sync tool": 500,
    }
    header = f"{'case (CPU)':<26} {'tooluse':>12} {'openai-agents':>14} {'ratio':>7}"
    print(f"{header}  {'wall':>5}  target")
    for case, n in sizes.items():
        samples = await measure(case, n // 10 if args.quick else n)
        ratio, wall = tooluse_over_peer(samples)
        results.ratio(f"{case}, tooluse/openai-agents", ratio, TARGETS[case])
        ours, theirs = (
            statistics.median(t.cpu for t in samples[sdk]) for sdk in ("tooluse", "openai-agents")
        )
        print(
            f"{case:<26} {ours * 1e6:>10.1f}us {theirs * 1e6:>12.1f}us {ratio:>7.2f}"
            f" {wall:>6.2f}  {verdict(ratio, TARGETS[case])}"
        )
    floor = await handoff_floor(50 if args.quick else 500)
    print(
        f"{'thread round trip':<26} {floor.cpu * 1e6:>10.1f}us  ({floor.wall * 1e6:.1f}us wall;"
        " SimpleQueue, no loop: the floor)"
    )
    results.write(args.json)


if __name__ == "__main__":
    asyncio.run(main())
