"""`tooluse check` reports every target it could not import, each failure once.

A package whose `__init__` imports a broken module fails for every module of it, and a
file named twice (as a path and as a module) is one target: the message would repeat.
Run in a fresh interpreter, in a folder of broken modules, as pre-commit runs it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def _check(folder: Path, *targets: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "tooluse", "check", *targets],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    return done.stdout.splitlines()


def _package(folder: Path, init: str) -> None:
    (folder / "shop").mkdir()
    (folder / "shop" / "__init__.py").write_text(init)
    (folder / "shop" / "a.py").write_text("import missing_one\n")
    (folder / "shop" / "b.py").write_text("import missing_two\n")
    (folder / "shop" / "c.py").write_text("raise ValueError('c broke')\n")


def test_each_broken_module_is_reported_with_its_own_error(tmp_path: Path) -> None:
    _package(tmp_path, "")

    lines = _check(tmp_path, "shop", "shop/a.py", "shop.b")  # a and b named twice

    assert lines == [
        "cannot check shop/a.py: importing it needs module 'missing_one', which is not "
        "installed (at shop/a.py:1); install it where tooluse runs",
        "cannot check shop/b.py: importing it needs module 'missing_two', which is not "
        "installed (at shop/b.py:1); install it where tooluse runs",
        "cannot check shop/c.py: importing it raised ValueError at shop/c.py:1: c broke; fix "
        "the module so that it imports",
        "tooluse check: 0 errors, 0 warnings in 0 tools from 1 file; cannot check 3 files",
    ]


def test_a_failure_shared_by_many_targets_is_reported_once(tmp_path: Path) -> None:
    _package(tmp_path, "from . import a\n")  # the package fails as a.py does

    lines = _check(tmp_path, "shop")

    assert lines == [
        "cannot check shop/__init__.py: importing it fails as shop/a.py does (reported "
        "there); fix that first",
        "cannot check shop/a.py: importing it needs module 'missing_one', which is not "
        "installed (at shop/a.py:1); install it where tooluse runs",
        "cannot check shop/b.py: importing it fails as shop/a.py does (reported there); fix "
        "that first",
        "cannot check shop/c.py: importing it fails as shop/a.py does (reported there); fix "
        "that first",
        "tooluse check: 0 errors, 0 warnings in 0 tools from 0 files; cannot check 4 files",
    ]
