"""Run every benchmark, write benchmarks/results.md and the scaling plot; or check for regressions.

Run with:
    pip install -e '.[dev,bench]' && python benchmarks/run_all.py [--quick] [--temporal] [--check]

Runs each `benchmarks/bench_*.py` in its own interpreter, in turn (bench_temporal.py only
with `--temporal`: it needs the Temporal dev server and takes minutes), passing
`--json PATH` (and `--quick`) and showing its output as it goes. Each script writes its
ratios there (benchmarks/_common.py); all of them are lower-is-better. Then:

- by default: writes benchmarks/results.md (a table per script: ratio, the issue's
  target, ok/MISSED; and a fenced `json` block holding every ratio, which `--check`
  reads) and benchmarks/scaling.png (the curves of bench_scaling.py);
- with `--check`: writes nothing, compares the fresh ratios with those committed in
  results.md and lists every one that got worse by more than 20 %; exits 1 if any did.
  Not a timed test: ratios of both sides measured in the same rounds, not absolute times.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results.md"
PLOT = HERE / "scaling.png"
TOLERANCE = 1.2  # a ratio may grow by 20 % before --check calls it a regression
JSON_BLOCK = re.compile(r"```json\n(.*?)\n```", re.DOTALL)


def scripts(temporal: bool) -> list[Path]:
    found = sorted(HERE.glob("bench_*.py"))
    return [s for s in found if temporal or s.name != "bench_temporal.py"]


def run(script: Path, quick: bool) -> dict[str, Any] | None:
    """Run one script; its JSON results, or None (and a note) if it failed."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "results.json"
        command = [sys.executable, str(script), "--json", str(out)]
        if quick:
            command.append("--quick")
        print(f"\n=== {script.name} {'--quick' if quick else ''}", flush=True)
        code = subprocess.run(command, check=False, cwd=HERE.parent).returncode
        if not out.exists():
            print(f"=== {script.name} failed (exit {code}), no results", flush=True)
            return None
        data: dict[str, Any] = json.loads(out.read_text())
        if "ratios" not in data:  # not written through _common.Results
            print(f"=== {script.name} wrote no ratios (use _common.Results)", flush=True)
            return None
        data["exit"] = code
        return data


def status(ratio: float, target: float | None) -> str:
    if target is None:
        return ""
    return "ok" if ratio <= target else "MISSED"


def markdown(results: dict[str, dict[str, Any]], quick: bool) -> str:
    today = datetime.date.today().isoformat()
    lines = [
        "# Benchmark results",
        "",
        f"Written by `benchmarks/run_all.py{' --quick' if quick else ''}` on {today}, "
        f"Python {platform.python_version()}, {platform.machine()}. Every figure is a ratio, "
        "lower is better: tooluse/peer measured in the same process with alternating rounds, "
        "or how much tooluse's own cost grows along a curve. `run_all.py --check` compares "
        "fresh ratios with the block at the end and reports any more than 20 % worse.",
        "",
        f"![scaling curves]({PLOT.name})",
    ]
    for script, data in results.items():
        lines += ["", f"## `{script}`", "", "| figure | ratio | target | |", "|---|---:|---:|---|"]
        for figure, ratio in data["ratios"].items():
            target = data["targets"].get(figure)
            shown = "" if target is None else f"<= {target}"
            lines.append(f"| {figure} | {ratio:.3f} | {shown} | {status(ratio, target)} |")
    block = {script: data["ratios"] for script, data in results.items()}
    lines += ["", "## Ratios for `--check`", "", "```json", json.dumps(block, indent=2), "```", ""]
    return "\n".join(lines)


def plot(curves: dict[str, dict[str, Any]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(curves), figsize=(5 * len(curves), 4.2), squeeze=False)
    for ax, curve in zip(axes[0], curves.values(), strict=True):
        for sdk, ys in curve["series"].items():
            points = [(x, y) for x, y in zip(curve["x"], ys, strict=True) if y is not None]
            if points:
                ax.plot(*zip(*points, strict=True), marker="o", label=sdk)
        ax.set(title=curve["title"], xlabel=curve["xlabel"], ylabel=curve["ylabel"])
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(PLOT, dpi=110)
    plt.close(fig)


def committed() -> dict[str, dict[str, float]]:
    match = JSON_BLOCK.search(RESULTS.read_text()) if RESULTS.exists() else None
    if match is None:
        raise SystemExit(f"no ```json block of ratios in {RESULTS}: run run_all.py first")
    return json.loads(match.group(1))


def check(results: dict[str, dict[str, Any]]) -> int:
    """Report every ratio more than 20 % worse than the committed one; 1 if any."""
    before = committed()
    worse = []
    for script, data in results.items():
        for figure, ratio in data["ratios"].items():
            old = before.get(script, {}).get(figure)
            if old is None:
                print(f"  new      {script}: {figure} = {ratio:.3f} (not committed yet)")
            elif ratio > old * TOLERANCE:
                worse.append(
                    f"  WORSE    {script}: {figure} = {ratio:.3f}, committed {old:.3f}"
                    f" (x{ratio / old:.2f})"
                )
    for script, figures in before.items():
        for figure in figures.keys() - results.get(script, {}).get("ratios", {}).keys():
            print(f"  gone     {script}: {figure} (committed, not measured now)")
    print("\n".join(worse) if worse else "no ratio got worse by more than 20 %")
    return 1 if worse else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="pass --quick to every script")
    parser.add_argument("--temporal", action="store_true", help="also run bench_temporal.py")
    parser.add_argument(
        "--check", action="store_true", help="compare with results.md, write nothing"
    )
    args = parser.parse_args()
    results: dict[str, dict[str, Any]] = {}
    failed = []
    for script in scripts(args.temporal):
        data = run(script, args.quick)
        if data is None or data["exit"]:
            failed.append(script.name)
        if data is not None:
            results[script.name] = data
    print("\n=== summary")
    for script, data in results.items():
        for figure, ratio in data["ratios"].items():
            target = data["targets"].get(figure)
            print(f"  {script:<26} {figure:<58} {ratio:>8.3f}  {status(ratio, target)}")
    if failed:
        print(f"  failed: {', '.join(failed)}")
    if args.check:
        return check(results) or (1 if failed else 0)
    RESULTS.write_text(markdown(results, args.quick))
    curves = {name: curve for data in results.values() for name, curve in data["curves"].items()}
    if curves:
        plot(curves)
    print(f"wrote {RESULTS.relative_to(HERE.parent)}" + (f" and {PLOT.name}" if curves else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
