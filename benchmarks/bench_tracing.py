"""What OpenTelemetry tracing costs a run: off, the API with no provider, the SDK recording.

Run with:
    pip install -e '.[dev]' && python benchmarks/bench_tracing.py

The run of bench_runner.py (an in-process scripted model, one tool call, two turns),
with an async tool (a sync tool's hop to a worker thread would add tens of microseconds
of noise to the few measured here), timed in three set-ups, each in a fresh interpreter
so that "off" really has no `opentelemetry` module imported:

- off: `import tooluse` only (the worker checks that no opentelemetry module is loaded);
- api, no provider: `opentelemetry.trace` imported, no SDK configured (the global
  provider is the API's proxy, which records nothing);
- sdk + in-memory: the SDK's `TracerProvider` set as the global provider, with a
  `SimpleSpanProcessor` into an `InMemorySpanExporter` (5 spans a run).

Rounds alternate the set-ups so that machine noise falls on each; prints the median
CPU time per run (of every thread) and the ratios
to "off" (1.00: no cost). `--json PATH`: also write the ratios (benchmarks/_common.py).
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import time
from typing import Any

ROUNDS = 9
CASES = {
    "off": "tracing off (opentelemetry not imported)",
    "api": "opentelemetry-api imported, no provider",
    "sdk": "SDK provider + in-memory exporter",
}


def worker(case: str, runs: int) -> None:
    """Time `runs` runs in this interpreter, set up as `case`; print seconds per run."""
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

    async def timed() -> float:
        for _ in range(20):  # warm up
            await tooluse.Runner.run(agent, "What is 2 + 3?")
        # CPU time (every thread's) rather than wall time: on a shared machine, time spent
        # waiting for a core would swamp the microseconds measured here.
        start = time.process_time()
        for _ in range(runs):
            await tooluse.Runner.run(agent, "What is 2 + 3?")
        return (time.process_time() - start) / runs

    seconds = asyncio.run(timed())
    loaded = any(name.split(".")[0] == "opentelemetry" for name in sys.modules)
    if loaded != (case != "off"):
        raise SystemExit(f"case {case}: opentelemetry imported = {loaded}")
    if exporter is not None and len(exporter.get_finished_spans()) != 5 * (runs + 20):
        raise SystemExit(f"case {case}: expected 5 spans a run")
    print(seconds)


def _set_up(case: str) -> Any:
    """The set-up before tooluse is imported; the in-memory exporter for `sdk`."""
    if case == "off":
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


def sample(case: str, runs: int) -> float:
    done = subprocess.run(
        [sys.executable, __file__, "--worker", case, str(runs)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"worker {case} failed:\n{done.stderr}{done.stdout}")
    return float(done.stdout)


def main() -> None:
    from _common import Results, arguments

    args = arguments(__doc__ or "")
    quick = args.quick
    runs = 200 if quick else 2000
    samples: dict[str, list[float]] = {case: [] for case in CASES}
    for _ in range(3 if quick else ROUNDS):
        for case in CASES:
            samples[case].append(sample(case, runs))
    medians = {case: statistics.median(values) for case, values in samples.items()}
    off = medians["off"]
    print("in-process scripted model, one tool call, two turns (CPU time per run):")
    for case, title in CASES.items():
        ratio = "" if case == "off" else f"  {case}/off = {medians[case] / off:.3f}"
        print(f"  {title:<42} {medians[case] * 1e6:>8.1f}us{ratio}")
    results = Results()
    results.ratio("opentelemetry-api imported, no provider / off", medians["api"] / off, 1.05)
    results.ratio("SDK provider + in-memory exporter / off", medians["sdk"] / off)
    results.write(args.json)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--worker":
        worker(sys.argv[2], int(sys.argv[3]))
    else:
        main()
