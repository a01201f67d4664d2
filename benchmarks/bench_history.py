"""Per-turn cost against history length, on both OpenAI APIs, side by side with openai-agents.

Run with:
    pip install -e '.[bench]' && python benchmarks/bench_history.py [--quick] [--json PATH]

Each SDK runs its own OpenAI model (Chat Completions, then Responses) over the
same in-process scripted client (`_scripted_client.py`): every turn the model
calls a trivial tool, the last turn answers "done". So each turn pays for what
the SDK does with the conversation so far (converting it, copying it) and the
"server" costs both sides the same.

The cost of a turn at history h is measured as the difference between a run of
h + 10 turns and a run of h turns, divided by 10. The growth factor is that
cost at 200 turns over that cost at 1 turn: 1.0 is flat. Ratios are
tooluse/openai-agents (below 1.0: tooluse is faster).
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

HISTORY = (1, 10, 50, 200)
STEP = 10

calls = {"tooluse": 0, "openai-agents": 0}


async def echo(x: int) -> str:
    """Echo a number back.

    Args:
        x: The number.
    """
    return str(x)


async def _tooluse_echo(x: int) -> str:
    calls["tooluse"] += 1
    return await echo(x)


async def _agents_echo(x: int) -> str:
    calls["openai-agents"] += 1
    return await echo(x)


_tooluse_echo.__name__ = _agents_echo.__name__ = "echo"
_tooluse_echo.__doc__ = _agents_echo.__doc__ = echo.__doc__
agents.set_tracing_disabled(True)


def _runner(sdk: str, api: str, client: ScriptedClient) -> Callable[[], Awaitable[Any]]:
    if sdk == "tooluse":
        model_class: Any = (
            tooluse.OpenAIChatCompletionsModel if api == "chat" else tooluse.OpenAIResponsesModel
        )
        tooluse_agent = tooluse.Agent(
            "bench",
            tools=[tooluse.function_tool(_tooluse_echo)],
            model=model_class("scripted", openai_client=client),
        )

        async def run_tooluse() -> Any:
            return (await tooluse.Runner.run(tooluse_agent, "go", max_turns=1000)).final_output

        return run_tooluse
    peer_class: Any = (
        agents.OpenAIChatCompletionsModel if api == "chat" else agents.OpenAIResponsesModel
    )
    peer_agent = agents.Agent(
        name="bench",
        tools=[agents.function_tool(_agents_echo)],
        model=peer_class(model="scripted", openai_client=client),
    )

    async def run_agents() -> Any:
        return (await agents.Runner.run(peer_agent, "go", max_turns=1000)).final_output

    return run_agents


class Case:
    """One SDK on one API: its client, its runner, and a script per run length."""

    def __init__(self, sdk: str, api: str, lengths: list[int]) -> None:
        self.sdk = sdk
        self.client = ScriptedClient()
        self.run = _runner(sdk, api, self.client)
        make = chat_script if api == "chat" else responses_script
        self.scripts = {turns: make(turns) for turns in lengths}

    async def timed(self, turns: int, repeat: int) -> float:
        return await timed_runs(self.sdk, self.client, self.run, self.scripts[turns], repeat)


async def check_same(cases: dict[tuple[str, str], Case], turns: int) -> None:
    """Both SDKs make the same model calls and tool calls for a run of `turns` turns."""
    for api in APIS:
        made = {}
        for sdk in SDKS:
            case = cases[sdk, api]
            before_requests, before_calls = case.client.requests, calls[sdk]
            await case.timed(turns, 1)
            made[sdk] = (case.client.requests - before_requests, calls[sdk] - before_calls)
        if len(set(made.values())) != 1 or made["tooluse"] != (turns, turns - 1):
            raise AssertionError(f"{api}: the SDKs differ (model calls, tool calls): {made}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    parser.add_argument("--json", metavar="PATH", help="write the figures as JSON")
    args = parser.parse_args()
    rounds, budget = (3, 60) if args.quick else (5, 300)
    lengths = sorted({n for h in HISTORY for n in (h, h + STEP)})
    cases = {(sdk, api): Case(sdk, api, lengths) for sdk in SDKS for api in APIS}
    await check_same(cases, lengths[1])
    for case in cases.values():  # warm both sides: imports, caches, first-call paths
        await case.timed(lengths[-1], 1)
    run_seconds: dict[tuple[str, str, int], list[float]] = {}
    for _ in range(rounds):  # alternating: machine noise falls on every case alike
        for turns in lengths:
            repeat = max(1, budget // turns)
            for key, case in cases.items():
                seconds = await case.timed(turns, repeat)
                run_seconds.setdefault((*key, turns), []).append(seconds)
    report(run_seconds, args.json)


def report(run_seconds: dict[tuple[str, str, int], list[float]], json_path: str | None) -> None:
    run = {key: statistics.median(values) for key, values in run_seconds.items()}
    per_turn = {
        (sdk, api, h): (run[sdk, api, h + STEP] - run[sdk, api, h]) / STEP
        for sdk in SDKS
        for api in APIS
        for h in HISTORY
    }
    report_growth(per_turn, HISTORY, "turns of history", json_path)


if __name__ == "__main__":
    asyncio.run(main())
