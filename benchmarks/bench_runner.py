"""A whole run with one tool call (two model turns), side by side in one process.

Run with:
    pip install -e '.[bench]' && python benchmarks/bench_runner.py

In process, each SDK runs the same agent with a minimal scripted model of equal cost
(benchmarks/_peers.py: prebuilt responses, an O(1) look at the last item; the tool is
a sync function, so each side hops to its worker threads). Then the same run over HTTP
against one local scripted server (tests/openai_server.py), tooluse and openai-agents
each through the real `openai` client with the same settings. Agents, models and tools
are built once, outside the timing; every side is warmed (its thread pool started) and
must give the same final output before a ratio is printed. Prints medians and ratios
(tooluse/other; below 1.0: tooluse is faster). `--quick`: a tenth of the runs;
`--json PATH`: also write the ratios (benchmarks/_common.py).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import agents
from _common import Results, arguments, compare, verdict
from _peers import QUESTION, runners

import tooluse

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.openai_server import Call, ScriptedServer, Turn

ROUNDS = 9
TARGETS = {"openai-agents": 0.05, "openai-agents over HTTP": 0.5}


def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


def http_runners(server: ScriptedServer) -> dict[str, Callable[[], Awaitable[Any]]]:
    def script() -> None:
        server.script(Turn(calls=[Call("add", '{"a": 2, "b": 3}', "call_1")]), Turn(text="5"))

    tooluse_model = tooluse.OpenAIResponsesModel("test-model", server.client())
    agents_model = agents.OpenAIResponsesModel("test-model", server.client())
    ours = tooluse.Agent("calc", tools=[tooluse.function_tool(add)], model=tooluse_model)
    theirs = agents.Agent("calc", tools=[agents.function_tool(add)], model=agents_model)

    async def tooluse_http() -> Any:
        script()
        return (await tooluse.Runner.run(ours, QUESTION)).final_output

    async def agents_http() -> Any:
        script()
        return (await agents.Runner.run(theirs, QUESTION)).final_output

    return {"tooluse": tooluse_http, "openai-agents": agents_http}


def report(title: str, medians: dict[str, float], results: Results, suffix: str = "") -> None:
    ours = medians["tooluse"]
    print(title)
    for name, seconds in medians.items():
        line = f"  {name:<14} {seconds * 1e6:>10.1f}us"
        if name != "tooluse":
            figure = f"{name}{suffix}"
            target = TARGETS.get(figure)
            results.ratio(f"run, tooluse/{figure}", ours / seconds, target)
            line += f"  tooluse/{name} = {ours / seconds:.3f}  {verdict(ours / seconds, target)}"
        print(line)


async def main() -> None:
    args = arguments(__doc__ or "")
    results = Results()
    in_process = await compare(runners(sync=True), 20 if args.quick else 200, ROUNDS)
    report("in-process scripted model, one sync tool call, two turns:", in_process, results)
    server = ScriptedServer()
    server.start()
    try:
        over_http = await compare(http_runners(server), 5 if args.quick else 30, ROUNDS)
        report(
            "over HTTP (local scripted server, Responses API):", over_http, results, " over HTTP"
        )
    finally:
        server.stop()
    results.write(args.json)


if __name__ == "__main__":
    asyncio.run(main())
