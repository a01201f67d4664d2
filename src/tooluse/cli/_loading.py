"""Importing what a command-line target names, and finding its tools.

A target is a `.py` file, a folder, or a dotted module name, optionally
followed by `:NAME`. A file inside a package (folders with `__init__.py`) is
imported as that package's module, with the folder above the package on
`sys.path`, so its relative imports work; a package's folder is imported as the
package. A file outside any package is imported on its own, its folder on
`sys.path` as `python file.py` would put it. Module names are looked up from
the current directory first, as with `python -m`. What imported code prints
goes to stderr: stdout is the command's.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import os
import pkgutil
import re
import sys
import traceback
from pathlib import Path
from types import ModuleType

from ..exceptions import UserError
from ..tools._function_tool import FunctionTool

__all__ = [
    "CliError",
    "import_failed",
    "import_location",
    "looks_like_path",
    "module_tools",
    "python_files",
    "select_tools",
    "shown_path",
    "split_target",
    "submodule_names",
]

_TARGET = re.compile(r"(.+):([\w-]+)")
_SKIPPED_FOLDERS = frozenset({"__pycache__", "node_modules", "site-packages"})
_TOOLUSE = Path(__file__).resolve().parent


class CliError(Exception):
    """A target that cannot be used, said in one line: what, where and how to fix it."""


def split_target(target: str) -> tuple[str, str]:
    """Split `location:NAME` into the location and the name ("" when there is none).

    Args:
        target: A file, folder or module, optionally followed by `:NAME`.

    Returns:
        The location and the name. A colon followed by a path (after a Windows
        drive letter) is part of the location.
    """
    match = _TARGET.fullmatch(target)
    return (match[1], match[2]) if match else (target, "")


def looks_like_path(location: str) -> bool:
    """Whether a location names a file or folder rather than a dotted module.

    Args:
        location: A target without its `:NAME`.

    Returns:
        True for `*.py`, anything with a path separator, and what exists on disk.
    """
    return (
        location.endswith(".py")
        or "/" in location
        or os.sep in location
        or os.path.exists(location)
    )


def python_files(folder: Path) -> list[Path]:
    """The `.py` files under a folder, recursively, in a stable order.

    Hidden files and folders, `__pycache__`, virtual environments (a folder with
    `pyvenv.cfg` or `conda-meta`), `site-packages` and `node_modules` are skipped:
    they hold no code of the project's own. So are `__main__.py` files: importing
    one runs the program.

    Args:
        folder: The folder to search.

    Returns:
        The files, sorted by path.
    """
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        here = Path(dirpath)
        dirnames[:] = [name for name in dirnames if not _skipped(here / name)]
        found.extend(
            here / name
            for name in filenames
            if name.endswith(".py") and not name.startswith(".") and name != "__main__.py"
        )
    return sorted(found)


def _skipped(folder: Path) -> bool:
    return (
        folder.name.startswith(".")
        or folder.name in _SKIPPED_FOLDERS
        or (folder / "pyvenv.cfg").is_file()
        or (folder / "conda-meta").is_dir()
    )


def submodule_names(module: ModuleType) -> list[str]:
    """The dotted names of a package's modules and subpackages, one level down.

    `__main__` is left out: importing it runs the program. A module that is no
    package has none.

    Args:
        module: An imported module.

    Returns:
        The names, in the order `pkgutil.iter_modules` finds them.
    """
    path: list[str] = list(getattr(module, "__path__", []))
    found = pkgutil.iter_modules(path, prefix=f"{module.__name__}.")
    return [info.name for info in found if not info.name.endswith(".__main__")]


def import_location(location: str) -> ModuleType:
    """Import `path/to/file.py` or `package.module`, its printed output sent to stderr.

    Args:
        location: A file path or a dotted module name.

    Returns:
        The module.

    Raises:
        CliError: If it does not exist or fails to import (other than by a `UserError`).
        UserError: If a tool in it cannot be defined; callers may report its lines.
    """
    try:
        with contextlib.redirect_stdout(sys.stderr):
            if looks_like_path(location):
                return _import_file(Path(location))
            return _import_module(location)
    except (CliError, UserError):
        raise
    except ModuleNotFoundError as error:
        raise _not_found(location, error) from None
    except (Exception, SystemExit) as error:
        raise import_failed(location, error) from None


def import_failed(location: str, error: BaseException) -> CliError:
    """The one-line error for a module whose import raised.

    Args:
        location: The module or file, as the user named it.
        error: What its import raised.

    Returns:
        The error to report: the exception, the line that raised it, and the fix.
    """
    message = error.msg if isinstance(error, SyntaxError) else str(error)  # without its place
    detail = " ".join(line.strip() for line in message.splitlines())
    where = _raised_at(error)
    at = f" at {where}" if where else ""
    # A UserError's message already says how to fix the tool.
    fix = "" if isinstance(error, UserError) else "; fix the module so that it imports"
    return CliError(f"{location}: importing it raised {type(error).__name__}{at}: {detail}{fix}")


def _not_found(location: str, error: ModuleNotFoundError) -> CliError:
    missing = error.name or "?"
    if location == missing or location.startswith(f"{missing}."):
        return CliError(
            f"{location}: no module named '{missing}'; check the name, run tooluse from the "
            "folder that holds it, or install it"
        )
    where = _raised_at(error)
    at = f" (at {where})" if where else ""
    return CliError(
        f"{location}: importing it needs module '{missing}', which is not installed{at}; "
        "install it where tooluse runs"
    )


def _raised_at(error: BaseException) -> str:
    """`file:line` of the innermost frame outside tooluse and importlib, or ""."""
    if isinstance(error, SyntaxError) and error.filename:
        return f"{shown_path(error.filename)}:{error.lineno}"
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if not frame.filename.startswith("<") and not _is_ours(frame.filename)
    ]
    return f"{shown_path(frames[-1].filename)}:{frames[-1].lineno}" if frames else ""


def _is_ours(filename: str) -> bool:
    path = Path(filename).resolve()
    return path.is_relative_to(_TOOLUSE) or path.parent.name == "importlib"


def shown_path(filename: str) -> str:
    """A path as messages show it: relative to the current directory when it is below it.

    Args:
        filename: A file's path.

    Returns:
        The path to show.
    """
    path = Path(filename).resolve()
    return str(path.relative_to(Path.cwd())) if path.is_relative_to(Path.cwd()) else filename


def module_tools(module: ModuleType) -> list[FunctionTool]:
    """The distinct function tools a module defines, in definition order.

    Args:
        module: The imported module.

    Returns:
        Each tool once, even when bound to several names.
    """
    tools: dict[int, FunctionTool] = {}
    for value in vars(module).values():
        if isinstance(value, FunctionTool):
            tools.setdefault(id(value), value)
    return list(tools.values())


def select_tools(module: ModuleType, location: str, name: str) -> list[FunctionTool]:
    """The module's tools, or the one named (by tool name, else by attribute name).

    Args:
        module: The imported module.
        location: How the user named the module, for messages.
        name: A tool or attribute name, or "" for all tools.

    Returns:
        The selected tools.

    Raises:
        CliError: If the module has no tool, or none by that name.
    """
    tools = module_tools(module)
    if name:
        named = [tool for tool in tools if tool.name == name] or [
            tool for attr, tool in vars(module).items() if attr == name and tool in tools
        ]
        if not named:
            available = ", ".join(tool.name for tool in tools) or "none"
            raise CliError(f"{location}: no tool named '{name}'; use one of its tools: {available}")
        return named[:1]
    if not tools:
        raise CliError(
            f"{location}: defines no FunctionTool; decorate a function with @function_tool, "
            "or name the module that holds the tools"
        )
    return tools


def _import_module(name: str) -> ModuleType:
    cwd = os.getcwd()
    if "" not in sys.path and cwd not in sys.path:  # `python -m` has it; a console script not
        sys.path.insert(0, cwd)
    return importlib.import_module(name)


def _import_file(path: Path) -> ModuleType:
    if path.is_dir():
        if not (path / "__init__.py").is_file():
            raise CliError(
                f"{path}: is a folder without __init__.py, so no package; name a .py file "
                "in it, or a module"
            )
        path /= "__init__.py"
    if not path.is_file():
        raise CliError(f"{path}: no such file; check the path")
    if path.suffix != ".py":
        raise CliError(f"{path}: not a .py file; name Python source, a folder or a module")
    root, name = _package_module(path.resolve())
    if name:
        return _import_package_module(path, root, name)
    return _import_loose_file(path)


def _package_module(path: Path) -> tuple[Path, str]:
    """The folder above the file's outermost package, and the file's dotted name there.

    The name is "" when the file is in no package (or its name is no identifier).
    """
    parts = [] if path.name == "__init__.py" else [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file() and folder.name.isidentifier():
        parts.insert(0, folder.name)
        folder = folder.parent
    if len(parts) < (1 if path.name == "__init__.py" else 2) or not path.stem.isidentifier():
        return folder, ""
    return folder, ".".join(parts)


def _import_package_module(path: Path, root: Path, name: str) -> ModuleType:
    top = name.partition(".")[0]
    imported = sys.modules.get(top)
    if imported is not None and not _imported_from(imported, root / top):
        raise CliError(
            f"{path}: its package '{top}' is already imported from {_origin(imported)}, so "
            f"this file would not be the one checked; install '{top}' from this folder "
            "(pip install -e .) or run tooluse where it is not installed"
        )
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    return importlib.import_module(name)


def _imported_from(package: ModuleType, folder: Path) -> bool:
    paths: list[str] = list(getattr(package, "__path__", []))
    return any(Path(entry).resolve() == folder for entry in paths)


def _origin(module: ModuleType) -> str:
    paths: list[str] = list(getattr(module, "__path__", []))
    return paths[0] if paths else str(getattr(module, "__file__", None) or "a built-in module")


def _import_loose_file(path: Path) -> ModuleType:
    resolved = path.resolve()
    name = path.stem
    imported = sys.modules.get(name)
    if imported is not None:
        file: str | None = getattr(imported, "__file__", None)
        if file and Path(file).resolve() == resolved:
            return imported  # already imported, by another target's `import`
        # A module of that name is loaded (say a file `json.py`): do not replace it.
        name = f"{name}_{hashlib.sha256(str(resolved).encode()).hexdigest()[:8]}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:  # pragma: no cover - a .py file always has one
        raise CliError(f"{path}: cannot be imported; name a .py file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pydantic look their module up here
    if str(resolved.parent) not in sys.path:
        sys.path.insert(0, str(resolved.parent))
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module
