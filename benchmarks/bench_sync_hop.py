"""The sync-tool run and the bare thread hop, pinned to one CPU and not, the hop mode printed.

Run with:
    pip install -e '.[bench]' && python benchmarks/bench_sync_hop.py

A sync tool runs in a worker thread. What that hop costs depends on the virtual
machine's idle mode more than on Python: when the event loop and the worker share a
vCPU the hop is a switch between threads; when the worker's vCPU has halted, waking it
costs several times more, and nothing in the process changes that (issue #35). So the
figures are taken both ways, each with its mode printed beside it:

- pinned: this script again, under `taskset -c <first allowed CPU>` (the loop and every
  worker share one vCPU);
- unpinned: this process, on every CPU it may use (printed: how many).

In each mode: the run of bench_runner.py with a sync tool (tooluse/openai-agents, CPU
time of every thread, paired rounds; targets 0.05 pinned, 0.075 unpinned), and the
bare hop, a no-op sync function awaited through tooluse's pool (`run_in_thread`) and
through `asyncio.to_thread` (target: the pool at most 0.45 of `to_thread`). Without
`taskset`, or with one CPU allowed, the pinned figures are not taken, and it says so.
`--quick`: a tenth of the runs; `--json PATH`: also write the ratios
(benchmarks/_common.py).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import Results, arguments, paired_ratio, rounds_of, verdict
from _peers import runners

from tooluse.tools._threads import run_in_thread

ROUNDS = 9
CLOCK = time.process_time
RUN_TARGETS = {"pinned": 0.05, "unpinned": 0.075}
HOP_TARGET = 0.45
CHILD = "TOOLUSE_BENCH_PINNED_CHILD"
"""Set in the pinned copy of this script: it measures its mode and writes its ratios."""


def hop_mode() -> tuple[str, str]:
    """The mode (`pinned`, `unpinned`) and what it means on this machine."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) == 1:
        return "pinned", f"pinned to CPU {cpus[0]}: the loop and the workers share a vCPU"
    return "unpinned", f"unpinned, {len(cpus)} CPUs: a worker may wake a halted vCPU"


def no_op() -> None:
    """The tool of the bare hop: nothing, so that the hop is all that is timed."""


async def measure(quick: bool, results: Results) -> None:
    mode, meaning = hop_mode()
    print(f"hop mode: {meaning}")
    runs = 20 if quick else 200
    samples = await rounds_of(runners(("tooluse", "openai-agents"), sync=True), runs, ROUNDS, CLOCK)
    ratio = paired_ratio(samples["tooluse"], samples["openai-agents"])
    figure = f"run, sync tool, {mode}, tooluse/openai-agents"
    results.ratio(figure, ratio, RUN_TARGETS[mode])
    print(f"  {figure} (CPU) = {ratio:.3f}  {verdict(ratio, RUN_TARGETS[mode])}")

    hops = {
        "tooluse pool": lambda: run_in_thread(no_op, [], {}),
        "asyncio.to_thread": lambda: asyncio.to_thread(no_op),
    }
    samples = await rounds_of(hops, runs * 10, ROUNDS, CLOCK)
    ratio = paired_ratio(samples["tooluse pool"], samples["asyncio.to_thread"])
    figure = f"bare hop, {mode}, tooluse pool/asyncio.to_thread"
    results.ratio(figure, ratio, HOP_TARGET)
    print(f"  {figure} (CPU) = {ratio:.3f}  {verdict(ratio, HOP_TARGET)}")


def pinned_copy(quick: bool) -> dict[str, float]:
    """This script's ratios measured under `taskset`, pinned to the first allowed CPU."""
    cpus = sorted(os.sched_getaffinity(0))
    taskset = shutil.which("taskset")
    if len(cpus) == 1 or taskset is None:
        print("pinned: not measured (taskset missing, or this process already on one CPU)")
        return {}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "pinned.json"
        command = [taskset, "-c", str(cpus[0]), sys.executable, __file__, "--json", str(path)]
        if quick:
            command.append("--quick")
        subprocess.run(command, check=True, env={**os.environ, CHILD: "1"})
        ratios: dict[str, float] = json.loads(path.read_text())["ratios"]
        return ratios


async def main() -> None:
    args = arguments(__doc__ or "")
    results = Results()
    if not os.environ.get(CHILD):
        for figure, ratio in pinned_copy(args.quick).items():
            target = RUN_TARGETS["pinned"] if figure.startswith("run") else HOP_TARGET
            results.ratio(figure, ratio, target)
    await measure(args.quick, results)
    results.write(args.json)


if __name__ == "__main__":
    asyncio.run(main())
