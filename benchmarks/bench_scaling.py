"""How each SDK's cost grows: with history length, with tool count, with concurrent runs.

Run with:
    pip install -e '.[bench]' && python benchmarks/bench_scaling.py

The same agent on tooluse, openai-agents and pydantic-ai, each with the minimal
scripted model of benchmarks/_peers.py (equal O(1) work per turn) and an async tool,
built once per point outside the timing, warmed, and checked to give the same output:

- history: one run of N turns (N - 1 tool calls, then the answer), for N from 1 to
  200: the CPU cost per turn, at least 3 runs a sample. Flat means a turn does not
  re-walk the history.
- tools: a two-turn run with K tools offered, for K from 1 to 500: the cost per run.
- concurrency: C two-turn runs at once (`asyncio.gather`), for C from 100 to 5,000:
  the wall time of all of them, and the CPU time per run. The tool yields to the event
  loop once (`asyncio.sleep(0)`, as one doing I/O would), so all C runs are in flight
  together (without it each run would finish in its task's first step, one after the
  other). Each round starts with `gc.collect()` (no side pays for another's garbage)
  and repeats its batch until it has done 1,000 runs and used 3 s of CPU (`ROUND_CPU`).
  A side whose next point would take longer than a minute (extrapolated) is not measured
  there. tooluse's growth along it (5,000 over 100) is measured apart, in paired rounds:
  both ends back to back in each round, the order alternating, the median of the
  rounds' ratios (the curve's points, minutes apart, drift with the machine's speed).

Prints each curve and the ratios: growth of tooluse's own cost (last point over the
cheapest; for concurrency, the paired figure) and tooluse/peer at the last point.
`--quick`: smaller sizes and fewer rounds; `--json PATH`: also write ratios and curves
(benchmarks/_common.py).
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import time
from typing import Any

from _common import Results, arguments, compare, same_outputs, verdict
from _peers import SDKS, gather, runners

TURNS = {"full": [1, 10, 50, 100, 200], "quick": [1, 10, 50]}
TOOLS = {"full": [1, 10, 100, 500], "quick": [1, 10, 100]}
CONCURRENT = {"full": [100, 500, 1000, 2000, 5000], "quick": [100, 1000, 5000]}
LIMIT_SECONDS = {"full": 60.0, "quick": 10.0}
GROWTH = "concurrency CPU: tooluse growth (most / fewest runs, paired rounds)"
GROWTH_ROUNDS = {"full": 9, "quick": 3}


def show(title: str, unit: str, xs: list[int], series: dict[str, list[float | None]]) -> None:
    print(title)
    print(f"  {'':>8}" + "".join(f"{sdk:>16}" for sdk in series))
    for i, x in enumerate(xs):
        cells = [series[sdk][i] for sdk in series]
        print(f"  {x:>8}" + "".join(f"{'-' if c is None else f'{c:.1f}':>14}{unit}" for c in cells))


def growth(values: list[float | None]) -> float:
    known = [v for v in values if v is not None]
    return known[-1] / min(known)


def record(
    results: Results, name: str, curve: dict[str, Any], target: float | None, *, grows: bool = True
) -> None:
    """The curve, tooluse's growth along it (when meaningful), and tooluse/peer at its end."""
    results.curves[name] = curve
    series = curve["series"]
    if grows:
        results.ratio(
            f"{name}: tooluse growth (last / cheapest)", growth(series["tooluse"]), target
        )
    for peer in SDKS[1:]:
        pairs = [
            (t, p) for t, p in zip(series["tooluse"], series[peer], strict=True) if p is not None
        ]
        if pairs and pairs[-1][0] is not None:
            results.ratio(
                f"{name}: tooluse/{peer} at the largest size", pairs[-1][0] / pairs[-1][1]
            )


async def history(mode: str, rounds: int) -> dict[str, Any]:
    xs = TURNS[mode]
    series: dict[str, list[float | None]] = {sdk: [] for sdk in SDKS}
    for turns in xs:
        # CPU time, several runs a sample: one wall-clock run per sample read 12.5x and
        # 4.4x growth in two quick runs where the CPU time is flat (issue #35).
        runs = max(3, (600 if mode == "full" else 120) // turns)
        medians = await compare(
            runners(turns=turns, sync=False), runs, rounds, clock=time.process_time
        )
        for sdk, seconds in medians.items():
            series[sdk].append(seconds / turns * 1e6)
    show("per-turn cost against history length (us per turn):", "us", xs, series)
    return {
        "title": "Per-turn cost vs history length",
        "xlabel": "turns in the run",
        "ylabel": "us per turn",
        "x": xs,
        "series": series,
    }


async def tools(mode: str, rounds: int) -> dict[str, Any]:
    xs = TOOLS[mode]
    series: dict[str, list[float | None]] = {sdk: [] for sdk in SDKS}
    for count in xs:
        medians = await compare(
            runners(tools=count, sync=False), 20 if mode == "full" else 5, rounds
        )
        for sdk, seconds in medians.items():
            series[sdk].append(seconds * 1e6)
    show("per-run cost against tool count (us per run, two turns):", "us", xs, series)
    return {
        "title": "Per-run cost vs tool count",
        "xlabel": "tools offered",
        "ylabel": "us per run",
        "x": xs,
        "series": series,
    }


BATCH_RUNS = 1000
ROUND_CPU = {"full": 3.0, "quick": 0.5}
"""A round repeats its batch of C runs at once until it has done 1,000 runs and used this
many CPU seconds: long enough for the collector's full collections to come at their
steady-state rate at every point. (1,000 tooluse runs at 100 take under 0.1 s and end
before the first full collection, which those runs pay for in a long-lived process; the
first point then left that cost out.) Peers' rounds take longer than this already."""


async def timed_batches(runner: Any, count: int, cpu_floor: float) -> tuple[int, float, float, Any]:
    """Batches of `count` runs at once, until 1,000 runs and `cpu_floor` CPU seconds.

    Returns:
        The batches run, their wall and CPU seconds, and the last batch's outputs.
    """
    wall, cpu = time.perf_counter(), time.process_time()
    outputs, batches = await gather(runner, count), 1
    while batches * count < BATCH_RUNS or time.process_time() - cpu < cpu_floor:
        outputs = await gather(runner, count)
        batches += 1
    return batches, time.perf_counter() - wall, time.process_time() - cpu, outputs


async def concurrent_round(
    runner: Any, count: int, cpu_floor: float
) -> tuple[float, float, list[Any]]:
    """Wall time of one batch of `count` runs at once, and the CPU per batch, in a round.

    The garbage of earlier rounds (the other side's above all) is collected first, so
    that each side's CPU is its own, cyclic GC included.
    """
    gc.collect()
    batches, wall, cpu, outputs = await timed_batches(runner, count, cpu_floor)
    return wall / batches, cpu / batches, outputs


async def concurrency(mode: str, rounds: int) -> tuple[dict[str, Any], dict[str, Any]]:
    xs = CONCURRENT[mode]
    built = runners(turns=2, sync=False, pause=True)
    expected = await built["tooluse"]()
    for runner in built.values():
        same_outputs({"tooluse": expected, "peer": (await gather(runner, 10))[-1]})
    walls: dict[str, list[float | None]] = {sdk: [] for sdk in SDKS}
    cpus: dict[str, list[float | None]] = {sdk: [] for sdk in SDKS}
    for i, count in enumerate(xs):
        samples: dict[str, list[tuple[float, float]]] = {sdk: [] for sdk in SDKS}
        active = [
            sdk
            for sdk in SDKS
            if i == 0
            or (
                walls[sdk][-1] is not None
                and walls[sdk][-1] * count / xs[i - 1] <= LIMIT_SECONDS[mode]
            )
        ]
        for round_ in range(rounds):
            for sdk in active:
                if round_ and samples[sdk][0][0] > LIMIT_SECONDS[mode] / 4:
                    continue  # one slow round is enough
                wall, cpu, outputs = await concurrent_round(built[sdk], count, ROUND_CPU[mode])
                same_outputs({"one run": expected, f"{sdk} x {count}": outputs[-1]})
                samples[sdk].append((wall, cpu))
        for sdk in SDKS:
            points = samples[sdk]
            walls[sdk].append(statistics.median(w for w, _ in points) if points else None)
            cpus[sdk].append(
                statistics.median(c for _, c in points) / count * 1e6 if points else None
            )
    show("wall time of C concurrent two-turn runs (s):", "s ", xs, walls)
    show("CPU time per run at C concurrent runs (us):", "us", xs, cpus)
    wall_curve = {
        "title": "Run time vs concurrent runs",
        "xlabel": "concurrent runs",
        "ylabel": "seconds for all runs",
        "x": xs,
        "series": walls,
    }
    cpu_curve = {
        "title": "CPU per run vs concurrent runs",
        "xlabel": "concurrent runs",
        "ylabel": "CPU us per run",
        "x": xs,
        "series": cpus,
    }
    return wall_curve, cpu_curve


async def paired_growth(mode: str) -> float:
    """tooluse's CPU per run at the most concurrent runs over the fewest, paired by round.

    The curve times its points minutes apart, while this machine's speed drifts by tens
    of percent over seconds. Here each round times both ends back to back with
    `concurrent_round` (each after a `gc.collect()`, for at least `ROUND_CPU`), the order
    alternating from round to round; the figure is the median of the rounds' ratios.
    """
    runner = runners(("tooluse",), turns=2, sync=False, pause=True)["tooluse"]
    expected = await runner()
    fewest, most = CONCURRENT[mode][0], CONCURRENT[mode][-1]
    ratios: list[float] = []
    for round_ in range(GROWTH_ROUNDS[mode]):
        per_run: dict[int, float] = {}
        for count in (fewest, most) if round_ % 2 == 0 else (most, fewest):
            _, cpu, outputs = await concurrent_round(runner, count, ROUND_CPU[mode])
            same_outputs({"one run": expected, f"tooluse x {count}": outputs[-1]})
            per_run[count] = cpu / count
        ratios.append(per_run[most] / per_run[fewest])
    print(
        f"tooluse's CPU per run at {most:,} concurrent runs over {fewest}, round by round: "
        + ", ".join(f"{ratio:.3f}" for ratio in ratios)
    )
    return statistics.median(ratios)


class CollectorClock:
    """Collections and seconds spent in the cyclic collector, by generation, while entered."""

    def __init__(self) -> None:
        self.counts = [0, 0, 0]
        self.seconds = [0.0, 0.0, 0.0]
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.counts[info["generation"]] += 1
            self.seconds[info["generation"]] += time.perf_counter() - self._started

    def __enter__(self) -> CollectorClock:
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self)


async def tracked_per_waiting_run(runner: Any, count: int) -> float:
    """The objects the collector tracks that each run keeps while `count` wait in their tool.

    Each run reaches its tool (`asyncio.sleep(0)`) in its task's first step; the count is
    taken once every task has had its first step, before any has had a second. What each
    run keeps then is what a full collection walks, run by run, at this concurrency.
    """
    gc.collect()
    before = len(gc.get_objects())
    counted: list[int] = []
    batch = asyncio.gather(*(runner() for _ in range(count)))
    asyncio.get_running_loop().call_soon(lambda: counted.append(len(gc.get_objects())))
    await batch
    return (counted[0] - before) / count


async def collector_share(mode: str, results: Results) -> None:
    """Where tooluse's CPU per run goes at the ends of the concurrency curve.

    With and without `gc.freeze()` (the heap of imported modules moved out of the
    collector's sight, as a server can do once at start-up): a full collection walks
    every tracked object, and the imports of three SDKs are most of them.
    """
    runner = runners(("tooluse",), turns=2, sync=False, pause=True)["tooluse"]
    await gather(runner, 10)
    ends = [CONCURRENT[mode][0], CONCURRENT[mode][-1]]
    tracked = await tracked_per_waiting_run(runner, 1000)
    print(f"objects the collector tracks, per tooluse run waiting on its tool: {tracked:.1f}")
    print("tooluse's CPU per run and the cyclic collector, by concurrent runs:")
    per_run: dict[tuple[int, bool], float] = {}
    for frozen in (False, True):
        for count in ends:
            gc.collect()  # as each round of the curve starts; nor is earlier garbage frozen
            if frozen:
                gc.freeze()
            try:
                with CollectorClock() as clock:
                    batches, _, cpu, _ = await timed_batches(runner, count, ROUND_CPU[mode])
            finally:
                gc.unfreeze()
            runs = batches * count
            per_run[count, frozen] = cpu / runs * 1e6
            print(
                f"  {count:>6} runs{' (gc.freeze())' if frozen else '':<15}"
                f" {per_run[count, frozen]:>7.1f}us per run;"
                f" full collections {clock.counts[2]}, {clock.seconds[2] / runs * 1e6:.1f}us"
                f" per run; younger {sum(clock.counts[:2])},"
                f" {sum(clock.seconds[:2]) / runs * 1e6:.1f}us per run"
            )
    for count in ends:
        results.ratio(
            f"CPU per run at {count:,} concurrent runs, gc.freeze() after imports / without",
            per_run[count, True] / per_run[count, False],
        )


async def main() -> None:
    args = arguments(__doc__ or "")
    mode = "quick" if args.quick else "full"
    rounds = 2 if args.quick else 3
    results = Results()
    record(results, "history", await history(mode, rounds), 1.5)
    record(results, "tools", await tools(mode, rounds), 1.5)
    wall_curve, cpu_curve = await concurrency(mode, rounds)
    record(results, "concurrency", wall_curve, None, grows=False)
    record(results, "concurrency CPU", cpu_curve, None, grows=False)
    results.ratio(GROWTH, await paired_growth(mode), 1.5)
    await collector_share(mode, results)
    for figure, ratio in results.ratios.items():
        print(f"  {figure:<58} {ratio:>8.3f}  {verdict(ratio, results.targets[figure])}")
    results.write(args.json)


if __name__ == "__main__":
    asyncio.run(main())
