"""What the package index shows and what the sdist holds.

The sdist is built here, offline, with the setuptools the dev extra installs (no
isolated build environment to download); it must hold every file its tests read.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"\]\(([^)\s]+)\)")
# What tests read besides themselves: the docs and examples they run, the script one calls.
READ_BY_TESTS = ["tests", "docs", "examples", "scripts/count_any.py", "README.md"]


def test_readme_links_work_on_the_package_index() -> None:
    # The index renders README.md away from the repository: a relative link leads nowhere.
    links = LINK.findall((ROOT / "README.md").read_text())
    assert links
    relative = [link for link in links if not link.startswith(("https://", "http://", "#"))]
    assert relative == []


def _files(path: Path) -> set[str]:
    if path.is_file():
        return {path.relative_to(ROOT).as_posix()}
    return {
        found.relative_to(ROOT).as_posix()
        for found in path.rglob("*")
        if found.is_file()
        and not {"__pycache__", "node_modules"} & set(found.parts)
        and found.suffix != ".pyc"
    }


def test_the_sdist_holds_every_file_its_tests_read(tmp_path: Path) -> None:
    build = (
        "import sys\n"
        "from setuptools import build_meta\n"
        "print(build_meta.build_sdist(sys.argv[1]))\n"
    )
    # A copy: .ci/run's runs beside each other would otherwise share one egg-info folder.
    tree = tmp_path / "tree"
    shutil.copytree(
        ROOT,
        tree,
        ignore=shutil.ignore_patterns(".venv*", ".git", "site", "node_modules", "*.egg-info"),
    )
    done = subprocess.run(
        [sys.executable, "-c", build, str(tmp_path)],
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    name = done.stdout.strip().splitlines()[-1]
    with tarfile.open(tmp_path / name) as sdist:
        inside = {member.split("/", 1)[1] for member in sdist.getnames() if "/" in member}

    needed = {name for each in READ_BY_TESTS for name in _files(ROOT / each)}
    assert sorted(needed - inside) == []
    assert not any("__pycache__" in member for member in inside)
