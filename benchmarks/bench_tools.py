"""Per-run cost against the number of tools an agent has, side by side with openai-agents.

Run with:
    pip install -e '.[bench]' && python benchmarks/bench_tools.py [--quick] [--json PATH]

An agent with 1, 10, 100 or 500 function tools answers in two turns: it calls
the first tool, then says "done". Each SDK runs its own OpenAI model (Chat
Completions, then Responses) over the same in-process scripted client
(`_scripted_client.py`), so the whole request path runs, tool params
included, and the "server" costs both sides the same. The agents and tools are
built once, outside the timing; each timed run is a new `Runner.run`.

The growth factor is the per-run cost with 500 tools over that with 1 tool
(target: <= 1.5). Ratios are tooluse/openai-agents (below 1.0: tooluse is
faster).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import agents

import tooluse

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _scripted_client import (
    APIS,
    SDKS,
    ScriptedClient,
    chat_script,
    report_growth,
    responses_script,
    timed_runs,
)

TOOLS = (1, 10, 100, 500)

calls = {"tooluse": 0, "openai-agents": 0}
agents.set_tracing_disabled(True)  # its default exporter would only complain of no key


def _function(sdk: str, index: int) -> Callable[[int], Awaitable[str]]:
    async def tool(x: int) -> str:
        """Add this tool's number to x.

        Args:
            x: The number.
        """
        calls[sdk] += 1
        return str(x + index)

    return tool


def _runner(sdk: str, api: str, tools: int, client: ScriptedClient) -> Callable[[], Awaitable[Any]]:
    functions = [(f"tool_{i}", _function(sdk, i)) for i in range(tools)]
    if sdk == "tooluse":
        model_class: Any = (
            tooluse.OpenAIChatCompletionsModel if api == "chat" else tooluse.OpenAIResponsesModel
        )
        tooluse_agent = tooluse.Agent(
            "bench",
            tools=[tooluse.function_tool(f, name_override=name) for name, f in functions],
            model=model_class("scripted", openai_client=client),
        )

        async def run_tooluse() -> Any:
            return (await tooluse.Runner.run(tooluse_agent, "go")).final_output

        return run_tooluse
    peer_class: Any = (
        agents.OpenAIChatCompletionsModel if api == "chat" else agents.OpenAIResponsesModel
    )
    peer_agent = agents.Agent(
        name="bench",
        tools=[agents.function_tool(f, name_override=name) for name, f in functions],
        model=peer_class(model="scripted", openai_client=client),
    )

    async def run_agents() -> Any:
        return (await agents.Runner.run(peer_agent, "go")).final_output

    return run_agents


class Case:
    """One SDK on one API with some number of tools: its client, its runner, its script."""

    def __init__(self, sdk: str, api: str, tools: int) -> None:
        self.sdk = sdk
        self.client = ScriptedClient()
        self.run = _runner(sdk, api, tools, self.client)
        make = chat_script if api == "chat" else responses_script
        self.script = make(2, tool="tool_0")

    async def timed(self, repeat: int) -> float:
        return await timed_runs(self.sdk, self.client, self.run, self.script, repeat)


async def check_same(cases: dict[tuple[str, str, int], Case]) -> None:
    """Both SDKs make the same model calls and tool calls."""
    for (sdk, api, tools), case in cases.items():
        before_requests, before_calls = case.client.requests, calls[sdk]
        await case.timed(1)
        made = (case.client.requests - before_requests, calls[sdk] - before_calls)
        if made != (2, 1):
            raise AssertionError(f"{sdk}/{api}/{tools} tools: (model calls, tool calls) {made}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    parser.add_argument("--json", metavar="PATH", help="write the figures as JSON")
    args = parser.parse_args()
    rounds, repeat = (3, 20) if args.quick else (7, 60)
    cases = {(sdk, api, n): Case(sdk, api, n) for sdk in SDKS for api in APIS for n in TOOLS}
    await check_same(cases)
    for case in cases.values():  # warm both sides: imports, caches, first-call paths
        await case.timed(3)
    run_seconds: dict[tuple[str, str, int], list[float]] = {}
    for _ in range(rounds):  # alternating: machine noise falls on every case alike
        for key, case in cases.items():
            run_seconds.setdefault(key, []).append(await case.timed(repeat))
    report(run_seconds, args.json)


def report(run_seconds: dict[tuple[str, str, int], list[float]], json_path: str | None) -> None:
    run = {key: statistics.median(values) for key, values in run_seconds.items()}
    report_growth(run, TOOLS, "tools", json_path)


if __name__ == "__main__":
    asyncio.run(main())
