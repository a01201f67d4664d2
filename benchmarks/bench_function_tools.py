"""tooluse vs openai-agents, side by side in one process: decorating and invoking tools.

Run with:
    pip install -e '.[bench]' && python benchmarks/bench_function_tools.py

Prints, per case, the median time of each SDK and the ratio tooluse/openai-agents
(below 1.0: tooluse is faster). Rounds alternate between the SDKs so that
machine noise hits both alike.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import agents
from agents.tool_context import ToolContext as AgentsToolContext

import tooluse

TARGETS = {"decorate + schema": 1.0, "invoke async tool": 0.5, "invoke sync tool": 0.75}
ROUNDS = 15


def make_documented_function() -> Callable[..., str]:
    """A fresh 5-parameter, Google-documented function (new object, nothing cached)."""

    def search_flights(
        origin: str,
        destination: str,
        passengers: int = 1,
        max_price: float | None = None,
        airlines: list[str] | None = None,
    ) -> str:
        """Search for flights between two airports.

        Args:
            origin: IATA code of the departure airport.
            destination: IATA code of the arrival airport.
            passengers: How many seats are needed.
            max_price: The most to pay per seat, in euros.
            airlines: Only these airlines, when given.
        """
        return f"{origin}-{destination}"

    return search_flights


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


def time_decorate(decorator: Callable[[Callable[..., Any]], Any], n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        decorator(make_documented_function()).params_json_schema  # noqa: B018
    return (time.perf_counter() - start) / n


async def time_invoke(invoke: Callable[[], Awaitable[str]], n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        await invoke()
    return (time.perf_counter() - start) / n


def invoker(sdk: str, func: Callable[..., Any]) -> Callable[[], Awaitable[str]]:
    arguments = '{"a": 1, "b": 2}'
    if sdk == "tooluse":
        tool = tooluse.function_tool(func)
        ctx = tooluse.ToolContext(
            context=None, tool_name=tool.name, tool_call_id="call_1", tool_arguments=arguments
        )
    else:
        tool = agents.function_tool(func)
        ctx = AgentsToolContext(
            context=None, tool_name=tool.name, tool_call_id="call_1", tool_arguments=arguments
        )
    return lambda: tool.on_invoke_tool(ctx, arguments)  # type: ignore[arg-type]


def measure(case: str, n: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {"tooluse": [], "openai-agents": []}
    decorators = {"tooluse": tooluse.function_tool, "openai-agents": agents.function_tool}
    funcs = {"invoke async tool": add_async, "invoke sync tool": add_sync}
    for _ in range(ROUNDS):
        for sdk, runs in samples.items():
            if case == "decorate + schema":
                runs.append(time_decorate(decorators[sdk], n))
            else:
                runs.append(asyncio.run(time_invoke(invoker(sdk, funcs[case]), n)))
    return samples


def main() -> None:
    quick = "--quick" in sys.argv
    sizes = {"decorate + schema": 50, "invoke async tool": 2000, "invoke sync tool": 500}
    print(f"{'case':<20} {'tooluse':>12} {'openai-agents':>14} {'ratio':>7} {'target':>7}")
    for case, n in sizes.items():
        samples = measure(case, n // 10 if quick else n)
        ours = statistics.median(samples["tooluse"])
        theirs = statistics.median(samples["openai-agents"])
        ratio = ours / theirs
        verdict = "ok" if ratio <= TARGETS[case] else "MISSED"
        print(
            f"{case:<20} {ours * 1e6:>10.1f}us {theirs * 1e6:>12.1f}us {ratio:>7.2f}"
            f" {'<= ' + str(TARGETS[case]):>7} {verdict}"
        )


if __name__ == "__main__":
    main()
