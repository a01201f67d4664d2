"""tooluse vs openai-agents, side by side in one process: decorating a documented function.

Run with:
    pip install -e '.[bench]' && python benchmarks/bench_decorate.py [--quick] [--json PATH]

Two cases, on a fresh 5-parameter Google-documented function each time (built
outside the timing, so no cache helps):

- decorate: `function_tool(f)` alone. tooluse checks the signature and the
  docstring at once and builds the schema on first use, so a module of 100
  tools imported by a CLI pays only for the tools it uses.
- decorate + schema: `function_tool(f).params_json_schema`.

Rounds alternate between the SDKs so that machine noise hits both alike. Before
timing, both sides' schemas are checked to name the same properties. Prints
each median and the ratio tooluse/openai-agents (below 1.0: tooluse is faster); `--json PATH` writes
`{"decorate": ratio, "decorate_schema": ratio}`.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import agents
from _common import make_documented_function

import tooluse

TARGETS = {"decorate": 0.2, "decorate_schema": 0.6}
ROUNDS = 15


Decorator = Callable[[Callable[..., Any]], Any]
SDKS: dict[str, Decorator] = {
    "tooluse": tooluse.function_tool,
    "openai-agents": agents.function_tool,
}


def time_case(decorator: Decorator, read_schema: bool, n: int) -> float:
    funcs = [make_documented_function() for _ in range(n)]  # outside the timing
    start = time.perf_counter()
    if read_schema:
        for func in funcs:
            decorator(func).params_json_schema  # noqa: B018
    else:
        for func in funcs:
            decorator(func)
    return (time.perf_counter() - start) / n


def check_same_schema() -> None:
    """Both sides describe the same arguments: same properties, in order, all required.

    The details differ by design: tooluse notes a default in the description where
    openai-agents keeps a `default` keyword that strict mode does not accept.
    """
    ours = tooluse.function_tool(make_documented_function()).params_json_schema
    theirs = agents.function_tool(make_documented_function()).params_json_schema
    if [*ours["properties"]] != [*theirs["properties"]] or ours["required"] != theirs["required"]:
        raise SystemExit(f"the schemas differ:\n{ours}\n{theirs}")


def measure(read_schema: bool, n: int) -> dict[str, float]:
    samples: dict[str, list[float]] = {sdk: [] for sdk in SDKS}
    for decorator in SDKS.values():
        time_case(decorator, read_schema, max(n // 10, 1))  # warm up
    for _ in range(ROUNDS):
        for sdk, decorator in SDKS.items():
            samples[sdk].append(time_case(decorator, read_schema, n))
    return {sdk: statistics.median(runs) for sdk, runs in samples.items()}


def main() -> None:
    quick = "--quick" in sys.argv
    check_same_schema()
    n = 20 if quick else 100
    ratios: dict[str, float] = {}
    print(f"{'case':<18} {'tooluse':>12} {'openai-agents':>14} {'ratio':>7} {'target':>8}")
    for case, read_schema in (("decorate", False), ("decorate_schema", True)):
        medians = measure(read_schema, n)
        ratio = ratios[case] = medians["tooluse"] / medians["openai-agents"]
        verdict = "ok" if ratio <= TARGETS[case] else "MISSED"
        print(
            f"{case:<18} {medians['tooluse'] * 1e6:>10.1f}us"
            f" {medians['openai-agents'] * 1e6:>12.1f}us {ratio:>7.2f}"
            f" {'<= ' + str(TARGETS[case]):>8} {verdict}"
        )
    if "--json" in sys.argv:
        path = sys.argv[sys.argv.index("--json") + 1]
        with open(path, "w", encoding="utf-8") as file:
            json.dump({case: round(ratio, 4) for case, ratio in ratios.items()}, file)


if __name__ == "__main__":
    main()
