"""Importing the file or module a command-line target names, and finding its tools."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from ._function_tool import FunctionTool
from .exceptions import UserError

__all__ = ["CliError", "import_failed", "import_location", "module_tools", "select_tools"]


class CliError(Exception):
    """A problem to report as one line and exit status 2."""


def import_location(location: str) -> ModuleType:
    """Import `path/to/file.py` or `package.module`.

    Args:
        location: A file path or a dotted module name.

    Returns:
        The module.

    Raises:
        CliError: If it does not exist or fails to import (other than by a `UserError`).
        UserError: If a tool in it cannot be defined; callers may report its lines.
    """
    looks_like_path = location.endswith(".py") or "/" in location or "\\" in location
    try:
        if looks_like_path:
            return _import_file(Path(location))
        return importlib.import_module(location)
    except (CliError, UserError):
        raise
    except ModuleNotFoundError as error:
        raise CliError(f"no module named '{error.name}' (importing {location})") from None
    except Exception as error:
        raise import_failed(location, error) from None


def import_failed(location: str, error: Exception) -> CliError:
    """The one-line error for a module whose import raised.

    Args:
        location: The module or file, as the user named it.
        error: What its import raised.

    Returns:
        The error to report, its message folded onto one line.
    """
    detail = " ".join(line.strip() for line in str(error).splitlines())
    return CliError(f"importing {location} failed: {type(error).__name__}: {detail}")


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
            raise CliError(f"{location} has no tool named '{name}' (tools: {available})")
        return named[:1]
    if not tools:
        raise CliError(f"{location} defines no FunctionTool")
    return tools


def _import_file(path: Path) -> ModuleType:
    if not path.is_file():
        raise CliError(f"no such file: {path}")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    if spec is None or spec.loader is None:
        raise CliError(f"cannot import {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses and pydantic look their module up here
    sys.path.insert(0, str(path.parent.resolve()))
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[spec.name]
        raise
    return module
