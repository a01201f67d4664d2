"""What every benchmark shares: alternating rounds, the same-output check, `--json`.

The `--json PATH` convention (read by run_all.py): a script given it also writes

    {"ratios": {figure: ratio, ...},      # lower is better; tooluse/peer or growth
     "targets": {figure: target, ...},    # the issue's bound ("ratio <= target"), or null
     "curves": {name: {"title", "xlabel", "ylabel", "x": [...],
                       "series": {sdk: [y or null, ...]}}}}   # optional, for the plot

Fairness rules every script follows: both sides' agents, models, tools and inputs are
built once, outside the timing; every runner is called once before the clock (imports,
caches, thread pools, connections); rounds alternate between the sides; and the outputs
of the warm-up calls must be equal (`same_outputs`) before any ratio is printed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, NamedTuple

Runner = Callable[[], Awaitable[Any]]


def arguments(description: str) -> argparse.Namespace:
    """`--quick` (fewer iterations) and `--json PATH` (write ratios and curves there)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="fewer rounds and iterations")
    parser.add_argument("--json", type=Path, help="also write the ratios (and curves) as JSON")
    return parser.parse_args()


def same_outputs(outputs: dict[str, Any]) -> None:
    """Stop before any ratio is printed unless every side produced the same output."""
    distinct = {repr(value) for value in outputs.values()}
    if len(distinct) != 1:
        raise SystemExit(f"outputs differ, no ratio printed: {outputs!r}")


async def warm(runners: dict[str, Runner], calls: int = 3) -> None:
    """Call each runner a few times, then check their last outputs agree."""
    outputs: dict[str, Any] = {}
    for name, runner in runners.items():
        for _ in range(calls):
            outputs[name] = await runner()
    same_outputs(outputs)


async def per_call(runner: Runner, n: int, clock: Callable[[], float] = time.perf_counter) -> float:
    """Seconds per call over `n` calls in a row (by `clock`: wall time, or CPU time)."""
    start = clock()
    for _ in range(n):
        await runner()
    return (clock() - start) / n


class Timing(NamedTuple):
    """Seconds per call: wall time, and CPU time of the whole process (every thread)."""

    wall: float
    cpu: float


async def timed(runner: Runner, n: int) -> Timing:
    """Wall and CPU seconds per call over `n` calls in a row."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(n):
        await runner()
    return Timing((time.perf_counter() - wall) / n, (time.process_time() - cpu) / n)


async def compare(
    runners: dict[str, Runner],
    n: int,
    rounds: int,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, float]:
    """Warm and check every runner, then alternate rounds; the median seconds per call.

    `clock=time.process_time` times the CPU of the whole process (every thread): on a
    shared machine, waiting for a core (a worker thread's wake-up above all) is left out.
    """
    samples = await rounds_of(runners, n, rounds, clock)
    return {name: statistics.median(values) for name, values in samples.items()}


async def rounds_of(
    runners: dict[str, Runner],
    n: int,
    rounds: int,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, list[float]]:
    """Warm and check every runner, then alternate rounds; seconds per call, round by round."""
    await warm(runners)
    samples: dict[str, list[float]] = {name: [] for name in runners}
    for _ in range(rounds):
        for name, runner in runners.items():
            samples[name].append(await per_call(runner, n, clock))
    return samples


def paired_ratio(ours: list[float], theirs: list[float]) -> float:
    """The median over the rounds of ours/theirs, each round's samples taken side by side.

    The machine's speed drifts over seconds; samples of one round drift together, so
    their ratio holds still where a ratio of medians taken apart would not.
    """
    return statistics.median(a / b for a, b in zip(ours, theirs, strict=True))


class Results:
    """The ratios (and curves) a script reports, written as JSON when `--json` was given."""

    def __init__(self) -> None:
        self.ratios: dict[str, float] = {}
        self.targets: dict[str, float | None] = {}
        self.curves: dict[str, dict[str, Any]] = {}

    def ratio(self, figure: str, value: float, target: float | None = None) -> None:
        self.ratios[figure] = round(value, 4)
        self.targets[figure] = target

    def write(self, path: Path | None) -> None:
        if path is None:
            return
        data = {"ratios": self.ratios, "targets": self.targets, "curves": self.curves}
        path.write_text(json.dumps(data, indent=2) + "\n")


def verdict(ratio: float, target: float | None) -> str:
    if target is None:
        return ""
    return f"<= {target}: {'ok' if ratio <= target else 'MISSED'}"


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
