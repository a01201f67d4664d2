"""The package's layers: imports go downwards only, and no module imports itself back.

The graph is drawn from the source (the AST of every module of `src/tooluse`), with
every import counted: at the top of a module, inside a function, and under
`if TYPE_CHECKING:`, since the type checker follows those too. `LAYERS` is the
order docs/architecture.md draws; a module may import its own layer and the layers
below it.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).parent.parent / "src"
ARCHITECTURE = Path(__file__).parent.parent / "docs" / "architecture.md"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("tooluse.core", "tooluse._version"),
    ("tooluse.exceptions",),
    ("tooluse.schema",),
    ("tooluse.guardrails",),
    ("tooluse.tools",),
    ("tooluse.models",),
    ("tooluse.agents",),
    ("tooluse.tracing",),
    ("tooluse.sessions",),
    ("tooluse.run",),
    ("tooluse.mcp",),
    ("tooluse.sandbox",),
    ("tooluse.extensions",),
    ("tooluse.testing",),
    ("tooluse.temporal",),
    ("tooluse.ui",),
    ("tooluse.cli",),
    ("tooluse", "tooluse.__main__", "tooluse.handoff_filters", "_tooluse_pytest"),
)
"""From the bottom up: each entry is a package (with its modules) or a module."""


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in sorted(SRC.rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imported(module: str, path: Path) -> Iterator[tuple[str, int]]:
    """Every tooluse module `module` imports, with the line it does so on."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                origin = ".".join([*base, *([node.module] if node.module else [])])
            else:
                origin = node.module or ""
            # `from package import module` imports the module; anything else, the origin.
            names = [origin, *(f"{origin}.{alias.name}" for alias in node.names)]
        else:
            continue
        for name in names:
            if name in MODULES and name != module:
                yield name, node.lineno


@functools.cache
def graph() -> dict[str, dict[str, int]]:
    """Each module's imports of tooluse modules, with their lines.

    Parsed by the first test that reads it, not at import: every xdist worker imports
    this file to collect it, and only one runs its tests.
    """
    return {module: dict(_imported(module, path)) for module, path in MODULES.items()}


def layer_of(module: str) -> int:
    """The index in `LAYERS` of the entry that holds `module` (the longest match wins)."""
    best, length = -1, -1
    for index, entries in enumerate(LAYERS):
        for entry in entries:
            holds = module == entry or (entry != "tooluse" and module.startswith(entry + "."))
            if holds and len(entry) > length:
                best, length = index, len(entry)
    if best < 0:
        raise AssertionError(f"{module} is in no layer: add it to LAYERS and docs/architecture.md")
    return best


def test_every_module_has_a_layer() -> None:
    for module in MODULES:
        layer_of(module)


def test_imports_go_downwards_only() -> None:
    upwards = [
        f"{module}:{line} imports {target} "
        f"(layer {layer_of(target)} > {layer_of(module)}: {LAYERS[layer_of(module)][0]})"
        for module, targets in graph().items()
        for target, line in targets.items()
        if layer_of(target) > layer_of(module)
    ]
    assert not upwards, "imports against the layer order:\n" + "\n".join(sorted(upwards))


def _cycles() -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph()[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph()):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle() -> None:
    cycles = _cycles()
    shown = [
        " -> ".join(cycle)
        + "\n    "
        + "\n    ".join(
            f"{a} imports {b} (line {graph()[a][b]})"
            for a in cycle
            for b in graph()[a]
            if b in cycle
        )
        for cycle in cycles
    ]
    assert not cycles, "import cycles:\n" + "\n".join(shown)


def test_the_checker_sees_a_cycle_and_an_upward_import(tmp_path: Path) -> None:
    """The graph counts imports under TYPE_CHECKING and inside functions."""
    module = tmp_path / "m.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from tooluse.run import _runner\n"
        "def f():\n    from tooluse.cli import _main\n"
    )
    assert {name for name, _ in _imported("tooluse.core.m", module)} >= {
        "tooluse.run._runner",
        "tooluse.cli._main",
    }


@pytest.mark.parametrize(
    "package", sorted(m for m, p in MODULES.items() if p.name == "__init__.py" and m != "tooluse")
)
def test_each_package_says_what_it_holds_and_may_import(package: str) -> None:
    docstring = ast.get_docstring(ast.parse(MODULES[package].read_text())) or ""
    assert re.search(r"^Imports?: ", docstring, re.MULTILINE), (
        f"{package}'s docstring should end with a line 'Imports: ...' naming what it may import"
    )


def test_architecture_page_draws_the_same_layers() -> None:
    text = ARCHITECTURE.read_text()
    drawn = re.findall(r"^\d+\. `([\w.]+)`", text, re.MULTILINE)
    assert drawn == [entries[0] for entries in LAYERS], (
        "docs/architecture.md's numbered list of layers should name LAYERS' first entries, "
        "bottom first"
    )


def test_any_is_used_at_most_25_times_per_1000_lines() -> None:
    """`scripts/count_any.py`'s figure for src/ stays under its bound (issue #27)."""
    import runpy

    script = runpy.run_path(str(SRC.parent / "scripts" / "count_any.py"))
    lines, used, _ = script["count"](SRC)
    assert used * 1000 / lines <= 25, (
        f"Any: {used} uses in {lines} lines; run python scripts/count_any.py to see where"
    )
