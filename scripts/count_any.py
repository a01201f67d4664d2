"""Count how often `Any` is used in `src/`, per 1,000 lines, and fail above a bound.

Run with: python scripts/count_any.py [--max 25] [--top 10]

Every use of the name counts: `Any` and `typing.Any` in annotations, casts, type
aliases and subscripts, including inside string annotations ("Agent[Any]"). The
import of the name and prose in docstrings and comments do not.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"


def uses(tree: ast.AST) -> Iterator[int]:
    """The line of each use of `Any` in a module's AST (string annotations parsed too)."""
    docstrings = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    for node in ast.walk(tree):
        if (isinstance(node, ast.Name) and node.id == "Any") or (
            isinstance(node, ast.Attribute) and node.attr == "Any"
        ):
            yield node.lineno
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and "Any" in node.value
        ):
            yield from _in_string(node.value, node.lineno)


def _in_string(text: str, line: int) -> Iterator[int]:
    """Uses of `Any` in a string that is a type expression (a forward reference)."""
    try:
        parsed = ast.parse(text, mode="eval")
    except SyntaxError:
        return
    for node in ast.walk(parsed):
        if isinstance(node, ast.Name) and node.id == "Any":
            yield line


def count(root: Path) -> tuple[int, int, dict[Path, int]]:
    """Lines of Python under `root`, uses of `Any` in them, and the uses per file."""
    lines = used = 0
    per_file: dict[Path, int] = {}
    for path in sorted(root.rglob("*.py")):
        text = path.read_text()
        lines += text.count("\n")
        found = sum(1 for _ in uses(ast.parse(text, str(path))))
        per_file[path] = found
        used += found
    return lines, used, per_file


def main(argv: list[str] | None = None) -> int:
    """Print the figure; exit 1 if it is over `--max`."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max", type=float, default=25.0, help="the bound per 1,000 lines")
    parser.add_argument("--top", type=int, default=10, help="how many files to list")
    parser.add_argument("--root", type=Path, default=SRC, help="the tree to count")
    args = parser.parse_args(argv)
    lines, used, per_file = count(args.root)
    figure = used * 1000 / max(lines, 1)
    print(f"Any: {used} uses in {lines} lines = {figure:.1f} per 1,000 (bound {args.max:g})")
    for path, found in sorted(per_file.items(), key=lambda item: -item[1])[: args.top]:
        print(f"  {found:4d}  {path.relative_to(args.root)}")
    return 0 if figure <= args.max else 1


if __name__ == "__main__":
    sys.exit(main())
