"""The docs pages of the run loop run as written: every Python block, in order, on one page."""

from __future__ import annotations

import ast
import asyncio
import contextlib
import io
import re
from pathlib import Path
from types import CodeType
from typing import Any

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGES = ["running.md", "agents.md", "architecture.md"]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def blocks(page: str) -> list[str]:
    return BLOCK.findall((DOCS / page).read_text())


def compiled(source: str, page: str) -> CodeType:
    return compile(source, f"docs/{page}", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)


def promised(source: str) -> list[str]:
    """What the page says a block prints: the comment after each `print(...)`."""
    return [
        line.split("  # ", 1)[1]
        for line in source.splitlines()
        if "print(" in line and "  # " in line
    ]


@pytest.mark.parametrize("page", PAGES)
def test_every_python_block_of_the_page_runs(page: str) -> None:
    namespace: dict[str, Any] = {}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        for source in blocks(page):
            result = eval(compiled(source, page), namespace)  # top-level await: a coroutine
            if asyncio.iscoroutine(result):
                asyncio.run(result)
    for text in (text for source in blocks(page) for text in promised(source)):
        assert text in printed.getvalue()


def test_the_run_loop_pages_show_their_capabilities() -> None:
    running = "".join(blocks("running.md"))
    for shown in (
        "RunHooks",
        "RunState.from_json",
        "PrefixedToolset",
        "FilteredToolset",
        "aclosing",
    ):
        assert shown in running
    assert (DOCS / "architecture.md").read_text().count("|") > 20  # the module table
