"""The layer rule of the Model seam: no code outside a model names a provider's SDK.

Drawn from the source: the AST of every module of `src/tooluse` outside
`src/tooluse/models/`. None may import `openai` (at the top, in a function, or under
`if TYPE_CHECKING:`, which the type checker follows), load it by name
(`importlib.import_module`, `__import__`, `find_spec`), or look it up in
`sys.modules`; and only the modules listed below, each for a reason that has
nothing to do with a provider, read `sys.modules` at all.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).parent.parent / "src"
PACKAGE = SRC / "tooluse"
MODELS = PACKAGE / "models"

PROVIDER_SDKS = ("openai", "anthropic", "google")
"""The top-level packages of the providers' SDKs the models wrap."""

SYS_MODULES_READERS = {
    "tooluse/tracing/_tracer.py": "finds opentelemetry.trace imported already, to skip importing it",
    "tooluse/cli/_loading.py": "loads the user's target files as modules, under their names",
    "tooluse/cli/_check.py": "checks MCP servers only if the target imported the MCP client",
}
"""The modules outside `models/` that may read `sys.modules`, and why."""

LOADERS = ("import_module", "__import__", "find_spec")


def _sources() -> dict[str, str]:
    return {
        path.relative_to(SRC).as_posix(): path.read_text()
        for path in sorted(PACKAGE.rglob("*.py"))
        if MODELS not in path.parents
    }


@functools.cache
def _trees() -> dict[str, tuple[str, ast.Module]]:
    """Every module outside `models/`, by its path under `src/`: its text and its tree.

    Parsed by the first test that reads them, not at import: every xdist worker imports
    this file to collect it, and only one runs its tests.
    """
    return {path: (source, ast.parse(source, path)) for path, source in _sources().items()}


def outside_models(mentioning: str = "") -> Iterator[tuple[str, ast.Module]]:
    """The modules' trees; only those whose text mentions `mentioning`, if given."""
    for path, (source, tree) in _trees().items():
        if mentioning in source:
            yield path, tree


def names_a_provider(name: str | None) -> bool:
    return name is not None and name.partition(".")[0] in PROVIDER_SDKS


def type_checking_lines(tree: ast.Module) -> set[int]:
    """The lines of the statements under an `if TYPE_CHECKING:` (or `typing.TYPE_CHECKING`)."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        test = node.test if isinstance(node, ast.If) else None
        name = getattr(test, "id", None) or getattr(test, "attr", None)
        if isinstance(node, ast.If) and name == "TYPE_CHECKING":
            for statement in node.body:
                end = statement.end_lineno or statement.lineno
                lines.update(range(statement.lineno, end + 1))
    return lines


def provider_imports(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """Each import of a provider's SDK: its line, and the module imported."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if names_a_provider(alias.name):
                    yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and not node.level and names_a_provider(node.module):
            yield node.lineno, node.module or ""
        elif isinstance(node, ast.Call) and _called(node) in LOADERS:
            named = [a.value for a in node.args if isinstance(a, ast.Constant)]
            for value in named:
                if isinstance(value, str) and names_a_provider(value):
                    yield node.lineno, value


def _called(node: ast.Call) -> str | None:
    function = node.func
    if isinstance(function, ast.Name):
        return function.id
    return function.attr if isinstance(function, ast.Attribute) else None


def sys_modules_reads(tree: ast.Module) -> Iterator[tuple[int, ast.AST]]:
    """Each use of `sys.modules` (or of `modules` imported from `sys`), with its parent."""
    imported_from_sys = any(
        isinstance(node, ast.ImportFrom)
        and node.module == "sys"
        and any(alias.name == "modules" for alias in node.names)
        for node in ast.walk(tree)
    )
    for parent in ast.walk(tree):
        for node in ast.iter_child_nodes(parent):
            if isinstance(node, ast.Attribute):
                read = node.attr == "modules" and getattr(node.value, "id", None) == "sys"
            elif isinstance(node, ast.Name):
                read = imported_from_sys and node.id == "modules"
            else:
                continue
            if read:
                yield node.lineno, parent


def key_of(parent: ast.AST) -> str | None:
    """The string a `sys.modules[k]` or `k in sys.modules` looks up, if it is a constant."""
    key: ast.AST | None = None
    if isinstance(parent, ast.Subscript):
        key = parent.slice
    elif isinstance(parent, ast.Compare):
        key = parent.left
    return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None


def keys_looked_up(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """The string constants looked up in `sys.modules`, in every form of lookup."""
    for line, parent in sys_modules_reads(tree):
        key = key_of(parent)
        if key is not None:
            yield line, key
    for node in ast.walk(tree):  # sys.modules.get("x") and friends: the key is the call's
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("get", "pop", "setdefault", "__getitem__", "__contains__")
            and isinstance(node.func.value, ast.Attribute)
            and node.func.value.attr == "modules"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            yield node.lineno, node.args[0].value


CAUGHT = """
import sys, importlib
from typing import TYPE_CHECKING
import openai
from openai.types import Model
if TYPE_CHECKING:
    from openai import AsyncOpenAI
client = sys.modules.get("openai")
loaded = "openai" in sys.modules
held = sys.modules["openai._exceptions"]
sdk = importlib.import_module("openai")
spec = importlib.util.find_spec("openai")
"""


def test_the_scan_finds_each_way_of_naming_a_provider() -> None:
    tree = ast.parse(CAUGHT)
    assert sorted(provider_imports(tree)) == [
        (4, "openai"),
        (5, "openai.types"),
        (7, "openai"),
        (11, "openai"),
        (12, "openai"),
    ]
    assert type_checking_lines(tree) == {7}
    assert sorted(keys_looked_up(tree)) == [
        (8, "openai"),
        (9, "openai"),
        (10, "openai._exceptions"),
    ]
    assert len(list(sys_modules_reads(tree))) == 3


def test_the_scan_sees_the_models_own_imports() -> None:
    """The scan finds what it looks for: the OpenAI models do import `openai`."""
    found = [
        (path.name, module)
        for path in sorted(MODELS.glob("*.py"))
        if "openai" in (source := path.read_text())
        for _, module in provider_imports(ast.parse(source))
    ]
    assert ("_openai_errors.py", "openai") in found
    assert {path for path, _ in outside_models()} >= {
        "tooluse/run/_retries.py",
        "tooluse/run/_model_call.py",
    }


def test_no_module_outside_the_models_imports_a_providers_sdk_at_run_time() -> None:
    found = [
        f"{path}:{line} imports {module}"
        for path, tree in outside_models(mentioning="openai")
        for line, module in provider_imports(tree)
        if line not in type_checking_lines(tree)
    ]
    assert found == []


TYPE_ONLY_SDK_IMPORTS = {
    # OpenAI's hosted tools (web search, file search, ...) are declarations of that
    # provider's own tools: their Responses params are typed by the SDK's TypedDicts, for
    # the type checker only (nothing is imported at run time, as the test above shows).
    "tooluse/tools/_hosted.py": "openai",
    "tooluse/tools/_shell.py": "openai",  # the shell tool's param, as the hosted tools'
    # OpenAI's own compaction: `client=` is openai-agents' `AsyncOpenAI` parameter (the
    # call itself goes through `OpenAIResponsesModel.compact`, imported when first made).
    "tooluse/sessions/_responses_compaction.py": "openai",
}


def test_no_module_outside_the_models_imports_a_providers_sdk_for_the_type_checker() -> None:
    found = [
        f"{path}:{line} imports {module} under TYPE_CHECKING"
        for path, tree in outside_models(mentioning="openai")
        for line, module in provider_imports(tree)
        if line in type_checking_lines(tree)
        and TYPE_ONLY_SDK_IMPORTS.get(path) != module.partition(".")[0]
    ]
    assert found == []


def test_no_module_outside_the_models_looks_a_providers_sdk_up_in_sys_modules() -> None:
    found = [
        f"{path}:{line} looks up {key!r} in sys.modules"
        for path, tree in outside_models(mentioning="modules")
        for line, key in keys_looked_up(tree)
        if names_a_provider(key)
    ]
    assert found == []


def test_only_the_listed_modules_read_sys_modules_and_each_for_its_reason() -> None:
    readers = {
        path for path, tree in outside_models(mentioning="modules") if any(sys_modules_reads(tree))
    }
    assert readers, "the scan found no sys.modules read at all: it is looking wrongly"
    assert readers <= set(SYS_MODULES_READERS), (
        f"new readers of sys.modules: {sorted(readers - set(SYS_MODULES_READERS))}"
    )
