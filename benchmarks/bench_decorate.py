"""tooluse vs openai-agents, side by side in one process: decorating a documented function.

Run with:
    pip install -e '.[bench]' && python benchmarks/bench_decorate.py [--quick] [--json PATH]

Three cases, on a fresh 5-parameter Google-documented function each time (built
outside the timing, so no cache helps):

- decorate: `function_tool(f)` alone. tooluse checks the signature and the
  docstring at once and builds the schema on first use, so a module of 100
  tools imported by a CLI pays only for the tools it uses.
- decorate + schema: `function_tool(f).params_json_schema`. tooluse writes a plain
  signature's strict schema directly; its pydantic model waits for the first call.
- decorate + schema + first call: then one call of the tool (a sync function, so
  each side's worker thread) — where tooluse builds that model. No target: shown
  so that the cost moved to the first call stays in sight.

Rounds alternate between the SDKs so that machine noise hits both alike. Before
timing, both sides' schemas are checked to name the same properties and the calls
to return the same text. Prints each median and the ratio tooluse/openai-agents
(below 1.0: tooluse is faster); `--json PATH` writes them (benchmarks/_common.py).
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Callable
from typing import Any

import agents
from _common import Results, arguments, make_documented_function, verdict
from agents.tool_context import ToolContext as AgentsToolContext

import tooluse

CASES: dict[str, float | None] = {
    "decorate": 0.2,
    "decorate + schema": 0.6,
    "decorate + schema + first call": None,
}
ROUNDS = 15
ARGUMENTS = (
    '{"origin": "AMS", "destination": "LIS", "passengers": 2, "max_price": null, "airlines": null}'
)


Decorator = Callable[[Callable[..., Any]], Any]
SDKS: dict[str, Decorator] = {
    "tooluse": tooluse.function_tool,
    "openai-agents": agents.function_tool,
}
CONTEXTS: dict[str, Any] = {"tooluse": tooluse.ToolContext, "openai-agents": AgentsToolContext}


def call(sdk: str, tool: Any, loop: asyncio.AbstractEventLoop) -> Any:
    """One call of the tool through its SDK's invoker, as a run would make it."""
    ctx = CONTEXTS[sdk](
        context=None, tool_name=tool.name, tool_call_id="call_1", tool_arguments=ARGUMENTS
    )
    return loop.run_until_complete(tool.on_invoke_tool(ctx, ARGUMENTS))


def time_case(sdk: str, case: str, n: int, loop: asyncio.AbstractEventLoop) -> float:
    decorator = SDKS[sdk]
    funcs = [make_documented_function() for _ in range(n)]  # outside the timing
    start = time.perf_counter()
    if case == "decorate":
        for func in funcs:
            decorator(func)
    elif case == "decorate + schema":
        for func in funcs:
            decorator(func).params_json_schema  # noqa: B018
    else:
        for func in funcs:
            tool = decorator(func)
            tool.params_json_schema  # noqa: B018
            call(sdk, tool, loop)
    return (time.perf_counter() - start) / n


def check_same_results(loop: asyncio.AbstractEventLoop) -> None:
    """Both sides describe the same arguments and give the same output.

    The schemas' details differ by design: tooluse notes a default in the description
    where openai-agents keeps a `default` keyword that strict mode does not accept.
    """
    tools = {sdk: decorator(make_documented_function()) for sdk, decorator in SDKS.items()}
    ours, theirs = (tool.params_json_schema for tool in tools.values())
    if [*ours["properties"]] != [*theirs["properties"]] or ours["required"] != theirs["required"]:
        raise SystemExit(f"the schemas differ:\n{ours}\n{theirs}")
    outputs = {sdk: call(sdk, tool, loop) for sdk, tool in tools.items()}
    if len(set(outputs.values())) != 1:
        raise SystemExit(f"the outputs differ: {outputs}")


def measure(case: str, n: int, loop: asyncio.AbstractEventLoop) -> dict[str, float]:
    samples: dict[str, list[float]] = {sdk: [] for sdk in SDKS}
    for sdk in SDKS:
        time_case(sdk, case, max(n // 10, 1), loop)  # warm up
    for _ in range(ROUNDS):
        for sdk in SDKS:
            samples[sdk].append(time_case(sdk, case, n, loop))
    return {sdk: statistics.median(runs) for sdk, runs in samples.items()}


def main() -> None:
    args = arguments(__doc__ or "")
    loop = asyncio.new_event_loop()
    check_same_results(loop)
    n = 20 if args.quick else 100
    results = Results()
    print(f"{'case':<31} {'tooluse':>12} {'openai-agents':>14} {'ratio':>7}  target")
    for case, target in CASES.items():
        medians = measure(case, n, loop)
        ours, theirs = medians["tooluse"], medians["openai-agents"]
        ratio = ours / theirs
        results.ratio(f"{case}, tooluse/openai-agents", ratio, target)
        print(
            f"{case:<31} {ours * 1e6:>10.1f}us {theirs * 1e6:>12.1f}us {ratio:>7.2f}"
            f"  {verdict(ratio, target)}"
        )
    loop.close()
    results.write(args.json)


if __name__ == "__main__":
    main()
