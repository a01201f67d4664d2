"""`import tooluse` against `import agents`: time, and that no optional integration loads.

Run with:
    pip install -e '.[bench]' && python benchmarks/bench_import.py

Each import is timed in a fresh interpreter (`perf_counter` around the import statement,
so interpreter start-up is left out), alternating the two modules round after round,
with bytecode caches written by the warm-up (`PYTHONDONTWRITEBYTECODE` is dropped from
the interpreters' environment: set, it left the editable tooluse compiling every module
from source in every round while the peer's installed files had theirs, 0.18 for 0.12);
prints the medians and the ratio tooluse/agents (target <= 0.15). Then it checks that
`import tooluse` loaded none of the optional integrations (opentelemetry, mcp, sqlite3,
sqlalchemy, temporalio) and exits 1 if it did. `--quick`: 7 rounds instead of 31;
`--json PATH`: also write the ratio (benchmarks/_common.py).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys

from _common import Results, arguments, verdict

TARGET = 0.15
OPTIONAL = ("opentelemetry", "mcp", "sqlite3", "_sqlite3", "sqlalchemy", "temporalio")
PROBE = """
import json, sys, time
start = time.perf_counter()
import {module}
seconds = time.perf_counter() - start
modules = sorted({{m.split(".")[0] for m in sys.modules}})
print(json.dumps({{"seconds": seconds, "modules": modules}}))
"""


ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def probe(module: str) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(module=module)],
        check=True,
        capture_output=True,
        text=True,
        env=ENV,
    ).stdout
    return json.loads(out)


def main() -> None:
    args = arguments(__doc__ or "")
    rounds = 7 if args.quick else 31
    modules = ("tooluse", "agents")
    for module in modules:
        probe(module)  # warm-up: bytecode caches written, files in the page cache
    samples: dict[str, list[float]] = {module: [] for module in modules}
    loaded: set[str] = set()
    for _ in range(rounds):
        for module in modules:
            result = probe(module)
            samples[module].append(float(result["seconds"]))  # type: ignore[arg-type]
            if module == "tooluse":
                loaded |= set(result["modules"])  # type: ignore[arg-type]
    ours, theirs = (statistics.median(samples[m]) for m in modules)
    results = Results()
    results.ratio("import tooluse / import agents", ours / theirs, TARGET)
    print(f"import time, median of {rounds} fresh interpreters:")
    print(f"  tooluse  {ours * 1e3:8.1f}ms")
    print(
        f"  agents   {theirs * 1e3:8.1f}ms  tooluse/agents = {ours / theirs:.3f}"
        f"  {verdict(ours / theirs, TARGET)}"
    )
    imported = sorted(loaded & set(OPTIONAL))
    print(f"optional integrations imported by `import tooluse`: {', '.join(imported) or 'none'}")
    results.write(args.json)
    if imported:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
