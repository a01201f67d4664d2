"""Throughput of tooluse runs on Temporal: 200 agent workflows on 1, then 2 worker processes.

Each workflow runs `Runner.run` on an agent (tests/temporal_crash_workflows.py):
the model asks for one call of the `pause` tool, an I/O-bound tool that sleeps
50 ms (`asyncio.sleep`), then answers; so two model activities and one tool
activity per run. One dev server (tests/temporal_server.py) serves both set-ups;
the model is an OpenAI-compatible server in this process that answers by what a
request carries (a tool output or not), since hundreds of runs ask at once. The
workers are tests/temporal_worker_main.py processes on a fresh task queue each
round, started before the clock. Prints workflows per second for each set-up, and
the ratio 2 workers / 1 worker (above 1.0: the second process adds throughput),
and where the CPU went per workflow (Linux: read from /proc): the worker
processes, the dev server, and this process (client and model server). When
their sum nears the machine's CPUs, a second worker process cannot help.

Run with:
    .venv/bin/pip install -q -e '.[dev]' && .venv/bin/python benchmarks/bench_temporal.py

`--quick` runs 40 workflows a round instead of 200; `--json PATH` also writes the ratio
(benchmarks/_common.py).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from temporalio.client import Client
from tests.openai_server import Call, ScriptedServer, Turn, sent_tool_outputs
from tests.temporal_crash_workflows import ToolsWorkflow
from tests.temporal_server import TemporalDevServer
from tests.temporal_worker_main import READY, WorkerProcess, connect

WORKFLOWS = 200
TOOL_MS = 50
WARM_UP = 10
"""Runs on each new worker set-up before the clock starts (sandbox and client warm-up)."""
ROUNDS = 3
"""Rounds of 1 then 2 workers; the median of each is reported."""
READY_WAIT = 60.0


class AnsweringServer(ScriptedServer):
    """A scripted server that answers by what a request carries, not in order."""

    def __init__(self) -> None:
        super().__init__()
        self.answered = itertools.count()

    def _next(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> Turn:
        next(self.answered)
        if sent_tool_outputs(body):
            return Turn(text="done")
        return Turn(calls=[Call("pause", json.dumps({"ms": TOOL_MS}), "call_1")])


async def start_workers(
    count: int, temporal: TemporalDevServer, model: AnsweringServer, state: Path
) -> tuple[str, list[WorkerProcess]]:
    queue = f"bench-{uuid.uuid4()}"
    args = [temporal.target, model.base_url, queue, str(state), "--activity-timeout", "60"]
    workers = [WorkerProcess(args, state / f"{queue}-{n}.out") for n in range(count)]
    deadline = time.monotonic() + READY_WAIT
    for worker in workers:
        while not worker.printed(READY):
            if time.monotonic() > deadline:
                raise RuntimeError(f"worker {worker.pid} not ready:\n{worker.output()}")
            await asyncio.sleep(0.05)
    return queue, workers


def cpu_seconds() -> dict[str, float]:
    """CPU time so far of this process, and of its children by role (Linux: from /proc)."""
    usage = {"workers": 0.0, "dev server": 0.0, "this process": sum(os.times()[:2])}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # the process ended meanwhile
            continue
        name = text[text.index("(") + 1 : text.rindex(")")]
        fields = text[text.rindex(")") + 2 :].split()  # state, ppid, ..., utime, stime
        if int(fields[1]) == os.getpid():
            role = "dev server" if name == "temporal" else "workers"
            seconds = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            usage[role] += seconds
    return usage


async def run_all(client: Client, queue: str, count: int) -> float:
    """Start `count` runs at once and wait for them all; seconds from first start to last end."""
    started = time.perf_counter()
    handles = await asyncio.gather(
        *(
            client.start_workflow(ToolsWorkflow.run, "go", id=f"{queue}-{n}", task_queue=queue)
            for n in range(count)
        )
    )
    results = await asyncio.gather(*(handle.result() for handle in handles))
    elapsed = time.perf_counter() - started
    if set(results) != {"done"}:
        raise RuntimeError(f"unexpected answers: {set(results)}")
    return elapsed


async def throughput(
    processes: int, client: Client, temporal: TemporalDevServer, model: AnsweringServer, n: int
) -> tuple[float, dict[str, float]]:
    """Workflows per second on `processes` fresh worker processes, and CPU ms per workflow."""
    with tempfile.TemporaryDirectory() as state:
        queue, workers = await start_workers(processes, temporal, model, Path(state))
        try:
            await run_all(client, queue, WARM_UP)
            before = cpu_seconds()
            rate = n / await run_all(client, queue, n)
            after = cpu_seconds()
            return rate, {role: (after[role] - before[role]) * 1000 / n for role in after}
        finally:
            for worker in workers:
                worker.kill()


def report(n: int, rates: dict[int, list[float]], cpu: dict[int, list[dict[str, float]]]) -> None:
    print(
        f"{n} agent workflows, each: model turn, `pause` tool ({TOOL_MS} ms asyncio.sleep), "
        f"model turn; one dev server; {os.cpu_count()} CPUs; median of {ROUNDS} rounds:"
    )
    medians = {processes: statistics.median(values) for processes, values in rates.items()}
    for processes, rate in medians.items():
        label = f"{processes} worker process{'es' if processes > 1 else ''}"
        rounds = ", ".join(f"{value:.1f}" for value in rates[processes])
        ratio = f"  {processes} workers/1 worker = {rate / medians[1]:.2f}" if processes > 1 else ""
        print(f"  {label:<20} {rate:>6.1f} workflows/s  (rounds: {rounds}){ratio}")
        print(f"  {'':<20} CPU ms/workflow: {cpu_line(cpu[processes])}")


def cpu_line(rounds: list[dict[str, float]]) -> str:
    """The median CPU ms per workflow of each role, over the rounds."""
    roles = rounds[0]
    return ", ".join(f"{role} {statistics.median(r[role] for r in rounds):.1f}" for role in roles)


async def main() -> None:
    from _common import Results, arguments

    args = arguments(__doc__ or "")
    n = 40 if args.quick else WORKFLOWS
    temporal = TemporalDevServer()
    temporal.start()
    model = AnsweringServer()
    model.start()
    try:
        client = await connect(temporal.target)
        rates: dict[int, list[float]] = {1: [], 2: []}
        cpu: dict[int, list[dict[str, float]]] = {1: [], 2: []}
        for _ in range(ROUNDS):
            for processes, values in rates.items():
                rate, spent = await throughput(processes, client, temporal, model, n)
                values.append(rate)
                cpu[processes].append(spent)
        report(n, rates, cpu)
        results = Results()  # lower is better: time per workflow, 2 workers over 1
        medians = {processes: statistics.median(values) for processes, values in rates.items()}
        results.ratio("time per workflow, 2 worker processes / 1", medians[1] / medians[2])
        results.write(args.json)
    finally:
        model.stop()
        temporal.stop()


if __name__ == "__main__":
    asyncio.run(main())
