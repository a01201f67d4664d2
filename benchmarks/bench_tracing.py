"""What OpenTelemetry tracing costs a run: off, the API with no provider, the SDK recording.

Run with:
    pip install -e '.[dev]' && python benchmarks/bench_tracing.py

The run of bench_runner.py (an in-process scripted model, one tool call, two turns),
with an async tool (a sync tool's hop to a worker thread would add tens of microseconds
of noise to the few measured here), timed in three set-ups, each in a fresh interpreter
of its own (so that "off" really has no `opentelemetry` module imported):

- off: `import tooluse` only (the worker checks that no opentelemetry module is loaded);
- api, no provider: `opentelemetry.trace` imported, no SDK configured (the global
  provider is the API's proxy, which records nothing);
- sdk + in-memory: the SDK's `TracerProvider` set as the global provider, with a
  `SimpleSpanProcessor` into an `InMemorySpanExporter` (5 spans a run, counted and
  cleared after each round);
- control: "off" again, in another interpreter: how far two identical set-ups read
  apart, the noise floor of the other ratios.

Each round times 1,000 runs in each interpreter in turn (a tenth of a second apiece),
each round starting one case later than the last, so that each follows each in turn;
every 10 rounds fresh interpreters take over, so that no interpreter's own speed (its
memory layout, its hash seed) stays in a ratio. The machine's speed drifts by tens of
percent over seconds here, far more than the microsecond measured, so a set-up is
compared with "off" round by round: prints the median CPU time per run (of every
thread) and the median over the rounds of each set-up's ratio to the "off" sample of its
round (1.00: no cost). `--quick`: a tenth of the rounds; `--json PATH`: also write the
ratios (benchmarks/_common.py).
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import subprocess
import sys
import time
from typing import Any

ROUNDS = 60
RUNS = 1000
GENERATION = 10
"""Rounds a set of interpreters serves before fresh ones take over."""
CASES = {
    "off": "tracing off (opentelemetry not imported)",
    "control": "the same, another interpreter (control)",
    "api": "opentelemetry-api imported, no provider",
    "sdk": "SDK provider + in-memory exporter",
}


def worker(case: str) -> None:
    """Time rounds of runs in this interpreter, set up as `case`, as stdin asks for them.

    Reads a number of runs per line and prints CPU seconds per run for each; at the end
    of stdin, checks that the case was what it claims.
    """
    exporter = _set_up(case)
    import tooluse
    from tooluse.testing import FunctionModel, ModelReply, ToolCall

    async def add(a: int, b: int) -> int:  # async: a sync tool's thread hop is noise here
        """Add two numbers.

        Args:
            a: The first number.
            b: The second number.
        """
        return a + b

    def reply(items: list[dict[str, Any]], tools: Any) -> ModelReply | str:
        outputs = [i["output"] for i in items if i.get("type") == "function_call_output"]
        if not outputs:
            return ModelReply(tool_calls=[ToolCall("add", {"a": 2, "b": 3}, "call_1")])
        return f"The sum is {outputs[0]}."

    agent = tooluse.Agent("calc", tools=[tooluse.function_tool(add)], model=FunctionModel(reply))
    spans = 0  # recorded and cleared round by round (sdk)

    async def serve() -> int:
        nonlocal spans
        for _ in range(20):  # warm up
            await tooluse.Runner.run(agent, "What is 2 + 3?")
        # Start each case from the same heap: the garbage its imports left (more with
        # opentelemetry imported) would otherwise be collected in some timed windows only.
        gc.collect()
        total = 20
        for line in sys.stdin:  # one round: how many runs to time
            runs = int(line)
            # CPU time (every thread's) rather than wall time: on a shared machine, time
            # spent waiting for a core would swamp the microseconds measured here.
            start = time.process_time()
            for _ in range(runs):
                await tooluse.Runner.run(agent, "What is 2 + 3?")
            print((time.process_time() - start) / runs, flush=True)
            total += runs
            if exporter is not None:  # outside the timing: keep the memory flat
                spans += len(exporter.get_finished_spans())
                exporter.clear()
        return total

    total = asyncio.run(serve())
    loaded = any(name.split(".")[0] == "opentelemetry" for name in sys.modules)
    if loaded != (case in ("api", "sdk")):
        raise SystemExit(f"case {case}: opentelemetry imported = {loaded}")
    if exporter is not None and spans + len(exporter.get_finished_spans()) != 5 * total:
        raise SystemExit(f"case {case}: expected 5 spans a run")


def _set_up(case: str) -> Any:
    """The set-up before tooluse is imported; the in-memory exporter for `sdk`."""
    if case in ("off", "control"):
        return None
    from opentelemetry import trace

    if case == "api":
        return None
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    return exporter


class Worker:
    """A fresh interpreter set up as one case, timing a round of runs when asked."""

    def __init__(self, case: str) -> None:
        self.case = case
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--worker", case],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,  # stderr: ours, so that a failing worker's traceback shows
        )
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.stdin, self.stdout = self.process.stdin, self.process.stdout

    def sample(self, runs: int) -> float:
        """Seconds of CPU per run, over `runs` runs."""
        try:
            self.stdin.write(f"{runs}\n")
            self.stdin.flush()
        except BrokenPipeError:  # it exited already
            self.close()
        line = self.stdout.readline()
        try:
            return float(line)
        except ValueError:
            self.close()  # raises, unless it exited cleanly: then the line is the problem
            raise SystemExit(f"worker {self.case} printed {line!r}, not seconds") from None

    def close(self) -> None:
        """Let the worker check its case and exit; raise if it failed."""
        out, _ = self.process.communicate()
        if self.process.returncode != 0:
            raise SystemExit(f"worker {self.case} failed (its traceback is above):\n{out}")


def main() -> None:
    from _common import Results, arguments

    args = arguments(__doc__ or "")
    quick = args.quick
    cases = list(CASES)
    workers: dict[str, Worker] = {}
    samples: dict[str, list[float]] = {case: [] for case in CASES}
    for round_ in range(ROUNDS // 10 if quick else ROUNDS):
        if round_ % GENERATION == 0:  # an interpreter's own speed must not stay in the ratio
            for worker in workers.values():
                worker.close()
            workers = {case: Worker(case) for case in CASES}
        turn = round_ % len(cases)  # nor the order: each case follows each in turn
        for case in cases[turn:] + cases[:turn]:
            samples[case].append(workers[case].sample(RUNS))
    for worker in workers.values():
        worker.close()
    ratios = {
        case: statistics.median(a / b for a, b in zip(values, samples["off"], strict=True))
        for case, values in samples.items()
    }
    print("in-process scripted model, one tool call, two turns (CPU time per run):")
    for case, title in CASES.items():
        ratio = "" if case == "off" else f"  {case}/off = {ratios[case]:.3f}"
        print(f"  {title:<42} {statistics.median(samples[case]) * 1e6:>8.1f}us{ratio}")
    results = Results()
    results.ratio("tracing off, another interpreter / off (control)", ratios["control"])
    results.ratio("opentelemetry-api imported, no provider / off", ratios["api"], 1.05)
    results.ratio("SDK provider + in-memory exporter / off", ratios["sdk"])
    results.write(args.json)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        worker(sys.argv[2])
    else:
        main()
