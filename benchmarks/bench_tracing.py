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

Then the floor (issue #35), in one more fresh interpreter with the SDK provider and the
in-memory exporter: a traced run, an untraced run (`RunConfig(tracing_disabled=True)`)
and a replay of the traced run's own spans, alternating round by round. The replay is
what any instrumentation recording those spans must do through the same provider: it
starts each span with its parent's context, its kind and its final attributes (taken
from the exporter after a traced run: the same names, parents and attributes), makes
the run's span and the tool call's span current while they are open (so that a nested
run or the user's own spans nest in them), and ends each, in the run's order. Prints
the median over the rounds of (traced - untraced) / replay: 1.0 is the floor, the issue's
target is 1.3. `--callgrind` counts instructions instead of time (valgrind's callgrind:
repeatable on a loaded machine): each kind of run in a process of its own, with and
without the timed runs, the difference divided by their number.
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
FLOOR_ROUNDS = 40
FLOOR_RUNS = 300
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
    tooluse, agent = _calc_agent()
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


def _calc_agent() -> tuple[Any, Any]:
    """The benchmark's agent (an async `add` tool, a scripted model) and `tooluse`."""
    import tooluse
    from tooluse.testing import FunctionModel, ModelReply, ToolCall

    async def add(a: int, b: int) -> int:  # async: a sync tool's thread hop is noise here
        """Add two numbers.

        Args:
            a: The first number.
            b: The second number.
        """
        return a + b

    def reply(items: list[Any], tools: Any) -> ModelReply | str:
        outputs = [i["output"] for i in items if i.get("type") == "function_call_output"]
        if not outputs:
            return ModelReply(tool_calls=[ToolCall("add", {"a": 2, "b": 3}, "call_1")])
        return f"The sum is {outputs[0]}."

    agent = tooluse.Agent("calc", tools=[tooluse.function_tool(add)], model=FunctionModel(reply))
    return tooluse, agent


FLOOR_KINDS = ("traced", "untraced", "replay")
CURRENT_OPERATIONS = ("invoke_workflow", "execute_tool")
"""The spans a run makes current while they are open (what nests in them must find them)."""


def _floor_runners() -> tuple[dict[str, Any], Any]:
    """The three kinds of the floor, as async callables, and the exporter they record into.

    The replay is built from the spans of one traced run, read back from the exporter.
    """
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tooluse, agent = _calc_agent()
    traced_config = tooluse.RunConfig(tracer_provider=provider)
    untraced_config = tooluse.RunConfig(tracer_provider=provider, tracing_disabled=True)

    async def traced() -> None:
        await tooluse.Runner.run(agent, "What is 2 + 3?", run_config=traced_config)

    async def untraced() -> None:
        await tooluse.Runner.run(agent, "What is 2 + 3?", run_config=untraced_config)

    asyncio.run(traced())
    recorded = exporter.get_finished_spans()
    exporter.clear()
    if len(recorded) != 5:
        raise SystemExit(f"floor: a traced run made {len(recorded)} spans, not 5")
    replay_spans = _replayer(recorded, provider.get_tracer("tooluse", tooluse.__version__))

    async def replay() -> None:  # beside an untraced run: the caches as full as in a traced one
        await untraced()
        replay_spans()

    replay_spans()
    replayed = exporter.get_finished_spans()
    exporter.clear()
    same = [(s.name, s.kind, dict(s.attributes or {})) for s in replayed]
    wanted = [(s.name, s.kind, dict(s.attributes or {})) for s in recorded]
    if sorted(same, key=repr) != sorted(wanted, key=repr):
        raise SystemExit(f"floor: the replay's spans differ from the run's: {same!r}")
    return {"traced": traced, "untraced": untraced, "replay": replay}, exporter


def _replayer(recorded: Any, tracer: Any) -> Any:
    """A function making `recorded`'s spans again with `tracer`, in the order they were made."""
    from opentelemetry import context, trace

    # The run's order: every span's start and end, by the clock the SDK read.
    steps = sorted(
        [(s.start_time or 0, 0, i) for i, s in enumerate(recorded)]
        + [(s.end_time or 0, 1, i) for i, s in enumerate(recorded)]
    )
    by_id = {s.context.span_id: i for i, s in enumerate(recorded) if s.context is not None}
    parents = [by_id.get(s.parent.span_id) if s.parent else None for s in recorded]
    names = [s.name for s in recorded]
    kinds = [s.kind for s in recorded]
    attributes = [dict(s.attributes or {}) for s in recorded]
    current = [a.get("gen_ai.operation.name") in CURRENT_OPERATIONS for a in attributes]
    start_span, set_span_in_context = tracer.start_span, trace.set_span_in_context
    attach, detach = context.attach, context.detach

    def replay_spans() -> None:
        spans: list[Any] = [None] * len(names)
        tokens: list[Any] = [None] * len(names)
        for _, end, i in steps:
            if end:
                if current[i]:
                    detach(tokens[i])
                spans[i].end()
                continue
            parent = parents[i]
            under = None if parent is None else set_span_in_context(spans[parent])
            spans[i] = span = start_span(
                names[i], context=under, kind=kinds[i], attributes=attributes[i]
            )
            if current[i]:
                tokens[i] = attach(set_span_in_context(span))

    return replay_spans


def floor_worker(rounds: int, runs: int) -> None:
    """Time the three kinds round by round in this interpreter; print a JSON line a round."""
    import json

    runners, exporter = _floor_runners()

    async def serve() -> None:
        for runner in runners.values():  # warm up
            for _ in range(20):
                await runner()
        exporter.clear()
        for round_ in range(rounds):
            turn = round_ % len(FLOOR_KINDS)  # each kind follows each in turn
            sample: dict[str, float] = {}
            for kind in FLOOR_KINDS[turn:] + FLOOR_KINDS[:turn]:
                runner = runners[kind]
                gc.collect()  # nobody's garbage collected in somebody else's window
                start = time.process_time()
                for _ in range(runs):
                    await runner()
                sample[kind] = (time.process_time() - start) / runs
                exporter.clear()  # outside the timing: keep the memory flat
            print(json.dumps(sample), flush=True)

    asyncio.run(serve())


def count_worker(kind: str, runs: int) -> None:
    """Set up, warm every kind, then make `runs` runs of `kind` (callgrind counts the process).

    Every kind warms the same way, so that one process making no runs is the baseline of all.
    """
    runners, exporter = _floor_runners()
    runner = runners[kind]

    async def serve() -> None:
        for warming in runners.values():
            for _ in range(20):
                await warming()
        exporter.clear()
        for _ in range(runs):
            await runner()

    asyncio.run(serve())


def floor(quick: bool) -> list[dict[str, float]]:
    """The floor's rounds, from fresh interpreters (one per 10 rounds)."""
    import json

    samples: list[dict[str, float]] = []
    total = FLOOR_ROUNDS // 10 if quick else FLOOR_ROUNDS
    while len(samples) < total:
        rounds = min(GENERATION, total - len(samples))
        command = [sys.executable, __file__, "--floor-worker", str(rounds), str(FLOOR_RUNS)]
        out = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True).stdout
        samples.extend(json.loads(line) for line in out.splitlines())
    return samples


def callgrind(runs: int) -> dict[str, float]:
    """Instructions per run of each kind, counted by callgrind (set-up and warm-up left out)."""
    import os
    import tempfile

    def instructions(kind: str, n: int) -> int:
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "callgrind.out")
            command = [
                "valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                sys.executable, __file__, "--count-worker", kind, str(n),
            ]  # fmt: skip
            env = {**os.environ, "PYTHONHASHSEED": "0"}  # the same hashing in every process
            subprocess.run(command, check=True, stderr=subprocess.DEVNULL, env=env)
            with open(out) as file:
                for line in file:
                    if line.startswith(("summary:", "totals:")):
                        return int(line.split()[1])
        raise SystemExit(f"callgrind wrote no totals for {kind}")

    baseline = instructions("untraced", 0)
    return {kind: (instructions(kind, runs) - baseline) / runs for kind in FLOOR_KINDS}


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
    from _common import Results, arguments, verdict

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
    rounds = floor(quick)
    over = statistics.median(
        (r["traced"] - r["untraced"]) / (r["replay"] - r["untraced"]) for r in rounds
    )
    print("the same run, SDK provider + in-memory exporter, one interpreter (CPU time per run):")
    for kind, title in FLOOR_TITLES.items():
        print(f"  {title:<42} {statistics.median(r[kind] for r in rounds) * 1e6:>8.1f}us")
    print(f"  (traced - untraced) / (replay - untraced) = {over:.2f}  {verdict(over, 1.3)}")
    results.ratio("tracing's cost (traced - untraced) / its spans replayed", over, 1.3)
    results.write(args.json)


FLOOR_TITLES = {
    "traced": "traced run",
    "untraced": "untraced run (tracing_disabled)",
    "replay": "untraced run + its 5 spans replayed",
}


def main_callgrind(runs: int) -> None:
    """Print instructions per run (callgrind) of each kind, and tracing's over the floor."""
    counts = callgrind(runs)
    for kind, title in FLOOR_TITLES.items():
        print(f"  {title:<42} {counts[kind]:>12,.0f} instructions")
    traced, spans = (counts[kind] - counts["untraced"] for kind in ("traced", "replay"))
    print(f"  traced - untraced {traced:,.0f}; replay - untraced {spans:,.0f}")
    print(f"  (traced - untraced) / (replay - untraced) = {traced / spans:.2f}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        worker(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "--floor-worker":
        floor_worker(int(sys.argv[2]), int(sys.argv[3]))
    elif len(sys.argv) == 4 and sys.argv[1] == "--count-worker":
        count_worker(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) in (2, 3) and sys.argv[1] == "--callgrind":
        main_callgrind(int(sys.argv[2]) if len(sys.argv) == 3 else 200)
    else:
        main()
