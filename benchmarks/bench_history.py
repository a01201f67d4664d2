"""Per-turn cost against history length, on both OpenAI APIs, side by side with openai-agents.

Run with:
    pip install -e '.[bench]' && python benchmarks/bench_history.py [--quick] [--json PATH]

Each SDK runs its own OpenAI model (Chat Completions, then Responses) over the
same in-process scripted client (`_scripted_client.py`): every turn the model
calls a trivial tool, the last turn answers "done". So each turn pays for what
the SDK does with the conversation so far (converting it, copying it) and the
"server" costs both sides the same.

The cost of a turn at history h is read inside one run of 211 turns: the client
notes the process's CPU time as each request comes in, and the time from the
request made after h turns to the one made after h + 10, divided by 10, is what
the SDK spent on each of those turns (taking the response in, calling the tool,
building the next request). Every history length comes from the same run, so a
drift in the machine's speed between runs (tens of percent here) falls on all of
them alike; each figure is the median over every run. (Measured before as the
difference between whole runs of h + 10 and h turns, the 200-turn figure was a
small difference of two large, noisy numbers: tooluse's growth read 0.33 to 1.46
and openai-agents' went negative.) The growth factor is that cost at 200 turns
over that cost at 1 turn: 1.0 is flat. Ratios are tooluse/openai-agents (below
1.0: tooluse is faster).
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


LONGEST = HISTORY[-1] + STEP + 1
"""Turns in every run: each window ends before the final answer."""
BUDGET = 0.3
"""Seconds of CPU each case gets per round: as many runs as fit, at least one."""


class Case:
    """One SDK on one API: its client, its runner, and the script of a run."""

    def __init__(self, sdk: str, api: str) -> None:
        self.sdk = sdk
        self.client = ScriptedClient(stamped=True)
        self.run = _runner(sdk, api, self.client)
        self.script = (chat_script if api == "chat" else responses_script)(LONGEST)
        self.repeat = 1

    async def turn_costs(self) -> dict[int, float]:
        """One run; CPU seconds per turn at each history length, from the client's stamps."""
        await timed_runs(self.sdk, self.client, self.run, self.script, 1)
        stamps = self.client.stamps
        assert stamps is not None
        return {h: (stamps[h + STEP] - stamps[h]) / STEP for h in HISTORY}

    async def warm(self) -> None:
        """A first run, untimed; sets how many runs fit in a round."""
        seconds = await timed_runs(self.sdk, self.client, self.run, self.script, 1)
        self.repeat = max(1, int(BUDGET / seconds))


async def check_same(cases: dict[tuple[str, str], Case]) -> None:
    """Both SDKs make the same model calls and tool calls for a run."""
    for api in APIS:
        made = {}
        for sdk in SDKS:
            case = cases[sdk, api]
            before_requests, before_calls = case.client.requests, calls[sdk]
            await case.turn_costs()
            made[sdk] = (case.client.requests - before_requests, calls[sdk] - before_calls)
        if len(set(made.values())) != 1 or made["tooluse"] != (LONGEST, LONGEST - 1):
            raise AssertionError(f"{api}: the SDKs differ (model calls, tool calls): {made}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    parser.add_argument("--json", metavar="PATH", help="write the figures as JSON")
    args = parser.parse_args()
    rounds = 3 if args.quick else 9
    cases = {(sdk, api): Case(sdk, api) for sdk in SDKS for api in APIS}
    await check_same(cases)
    for case in cases.values():  # warm both sides: imports, caches, first-call paths
        await case.warm()
    samples: dict[tuple[str, str, int], list[float]] = {}
    for _ in range(rounds):  # alternating: machine noise falls on every case alike
        for key, case in cases.items():
            for _ in range(case.repeat):
                for h, seconds in (await case.turn_costs()).items():
                    samples.setdefault((*key, h), []).append(seconds)
    per_turn = {key: statistics.median(values) for key, values in samples.items()}
    report_growth(per_turn, HISTORY, "turns of history", args.json)


if __name__ == "__main__":
    asyncio.run(main())
