"""openai-agents' own function-tool tests, run against tooluse with only their imports changed.

openai-agents 0.24's sdist ships its tests. Three files test the tool API tooluse
follows: `test_function_schema.py`, `test_function_tool.py` and
`test_function_tool_decorator.py`. Each is ported by rewriting its imports of
`agents` only: every imported name is looked up in `tooluse` (or `tooluse.testing`,
`tooluse.mcp` for those modules); a name tooluse does not have becomes a stand-in
that fails the test using it (and only that test) with `PortedNameMissing`, so one
missing internal does not stop a whole file at import. The ported files are written
to a cache outside the repository (the tests' code is never copied into it) and run
with pytest; the count of passing tests (by case and by test function) is printed.

Run with: `python -m tests.agents_tool_tests [-v]` (`-v` lists the failing tests).
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from tests.agents_examples import CACHE, sdist

FILES = ("test_function_schema.py", "test_function_tool.py", "test_function_tool_decorator.py")
"""The test files measured."""

_MODULES = {"agents.testing": "tooluse.testing", "agents.mcp": "tooluse.mcp"}
_FROM = re.compile(
    r"^(?P<indent>[ \t]*)from (?P<module>agents(?:\.[\w.]+)?) import "
    r"(?:\((?P<group>[^)]*)\)|(?P<line>[^\n]+))",
    re.MULTILINE,
)
_IMPORT = re.compile(
    r"^(?P<indent>[ \t]*)import (?P<module>agents(?:\.[\w.]+)?)(?: as (?P<alias>\w+))?[ \t]*$",
    re.MULTILINE,
)

_HELPER = '''"""Looks up the names the ported tests import from `agents` in tooluse."""

import importlib


class PortedNameMissing(AttributeError):
    """A name openai-agents has and tooluse does not."""


class Missing:
    """Stands in for a name tooluse does not have: any use fails the test using it."""

    def __init__(self, where: str) -> None:
        object.__setattr__(self, "_where", where)

    def _fail(self, *args: object, **kwargs: object) -> "Missing":
        raise PortedNameMissing(f"tooluse has no {object.__getattribute__(self, '_where')}")

    __call__ = _fail

    def __getattr__(self, name: str) -> "Missing":
        return Missing(f"{object.__getattribute__(self, '_where')}.{name}")

    def __setattr__(self, name: str, value: object) -> None:
        self._fail()

    __iter__ = __getitem__ = __instancecheck__ = __subclasscheck__ = _fail
    __or__ = __ror__ = __mro_entries__ = _fail


TARGETS = %(targets)r


def _target(module: str) -> object:
    for old, new in TARGETS.items():
        if module == old or module.startswith(old + "."):
            return importlib.import_module(new)
    return importlib.import_module("tooluse")


def name(module: str, attribute: str) -> object:
    """`attribute` of `module`'s counterpart in tooluse, or a stand-in."""
    found = getattr(_target(module), attribute, None)
    return Missing(f"{module}.{attribute}") if found is None else found


def module(module: str) -> object:
    """`module`'s counterpart in tooluse: the names of its public module."""
    if module.rsplit(".", 1)[-1].startswith("_"):
        return Missing(module)  # a private module of openai-agents
    return _Module(module)


class _Module:
    def __init__(self, module: str) -> None:
        object.__setattr__(self, "_module", module)

    def __getattr__(self, attribute: str) -> object:
        return name(object.__getattribute__(self, "_module"), attribute)
'''


def _names(group: str) -> list[tuple[str, str]]:
    """`(name, alias)` pairs of an import's name list."""
    found: list[tuple[str, str]] = []
    for written in group.replace("\n", " ").split(","):
        entry = written.split("#")[0].strip()
        if not entry:
            continue
        name, _, alias = entry.partition(" as ")
        found.append((name.strip(), (alias or name).strip()))
    return found


def port(source: str) -> str:
    """The test file with its imports of `agents` looked up in tooluse."""

    def from_(match: re.Match[str]) -> str:
        indent, module = match.group("indent"), match.group("module")
        pairs = _names(match.group("group") or match.group("line"))
        lines = [f"{alias} = _ported.name({module!r}, {name!r})" for name, alias in pairs]
        return "\n".join(indent + line for line in lines)

    def import_(match: re.Match[str]) -> str:
        indent, module = match.group("indent"), match.group("module")
        alias = match.group("alias") or module.split(".")[0]
        return f"{indent}{alias} = _ported.module({module!r})"

    ported = _IMPORT.sub(import_, _FROM.sub(from_, source))
    future = "from __future__ import annotations\n"
    if ported.startswith(future):
        return future + "import _ported  # noqa\n" + ported[len(future) :]
    return "import _ported  # noqa\n" + ported


def ported_tests(root: Path) -> Path:
    """A folder with the three test files ported, and the helper they import."""
    digest = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]
    target = CACHE / f"tool-tests-{digest}"
    if target.is_dir():
        return target
    work = Path(tempfile.mkdtemp(dir=CACHE))
    for name in FILES:
        (work / name).write_text(port((root / "tests" / name).read_text()))
    (work / "_ported.py").write_text(_HELPER % {"targets": _MODULES})
    (work / "conftest.py").write_text("")
    try:
        work.rename(target)
    except OSError:  # another process made it first
        shutil.rmtree(work)
    return target


class Outcome(NamedTuple):
    """What a run of the ported tests came to."""

    passed: int
    """Tests that passed, each parametrised case counted."""
    total: int
    """Tests run, each parametrised case counted."""
    failing: list[str]
    """The failing tests' ids."""
    functions_passed: int
    """Test functions all of whose cases passed (the issue counts these)."""
    functions_total: int
    """Test functions run."""


def _function(test_id: str) -> str:
    """The test function a test id belongs to: its parameters left out."""
    return test_id.split("[", 1)[0]


def run(folder: Path) -> Outcome:
    """Run the ported tests and count what passed, by case and by test function."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-rA",
            "--continue-on-collection-errors",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:_tooluse_pytest",
            "-o",
            "asyncio_mode=auto",
            "-o",
            "addopts=",
            "-o",
            "filterwarnings=",
            "-W",
            "ignore",
            "--rootdir",
            str(folder),
            *FILES,
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    out = done.stdout
    passing = re.findall(r"^PASSED (\S+)", out, re.MULTILINE)
    failing = re.findall(r"^(?:FAILED|ERROR) (\S+)", out, re.MULTILINE)
    functions = {_function(test) for test in passing + failing}
    failed_functions = {_function(test) for test in failing}
    return Outcome(
        passed=len(passing),
        total=len(passing) + len(failing),
        failing=failing,
        functions_passed=len(functions - failed_functions),
        functions_total=len(functions),
    )


def main(argv: Sequence[str]) -> int:
    outcome = run(ported_tests(sdist()))
    if "-v" in argv:
        for test in outcome.failing:
            print(f"FAILED {test}")
    print(
        f"{outcome.passed} of {outcome.total} of openai-agents' function-tool tests pass on "
        f"tooluse ({outcome.functions_passed} of {outcome.functions_total} test functions)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
