"""The `tooluse` command line: `tooluse schema PATH_OR_MODULE[:NAME]`."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from ._function_tool import FunctionTool
from ._tool_params import chat_completions_tool_param, responses_tool_param

__all__ = ["main"]

EXIT_USAGE = 2


class CliError(Exception):
    """A problem to report as one line and exit status 2."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `tooluse` command.

    Args:
        argv: The arguments after the program name; defaults to `sys.argv[1:]`.

    Returns:
        The exit status: 0 on success, 2 on a usage or import problem.
    """
    args = _parser().parse_args(argv)
    try:
        tools = find_tools(args.target)
    except CliError as error:
        print(f"tooluse: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    serialise = chat_completions_tool_param if args.api == "chat" else responses_tool_param
    params = [serialise(tool.with_strict_mode(not args.no_strict)) for tool in tools]
    print(json.dumps(params, indent=2, ensure_ascii=False))
    return 0


def find_tools(target: str) -> list[FunctionTool]:
    """Import a file or module and return its function tools (or the one named).

    Args:
        target: `path/to/file.py`, `package.module`, either followed by `:NAME`.

    Returns:
        The tools, in the order the module defines them.

    Raises:
        CliError: If the target cannot be imported, or names no tool.
    """
    location, _, name = target.partition(":")
    module = _import(location)
    tools = [value for value in vars(module).values() if isinstance(value, FunctionTool)]
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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tooluse", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    schema = commands.add_parser("schema", help="print the tool params of a file's tools")
    schema.add_argument("target", help="a .py file or module, optionally :NAME of one tool")
    schema.add_argument("--api", choices=["chat", "responses"], default="responses")
    schema.add_argument("--no-strict", action="store_true", help="print non-strict schemas")
    return parser


def _import(location: str) -> ModuleType:
    looks_like_path = location.endswith(".py") or "/" in location or "\\" in location
    try:
        if looks_like_path:
            return _import_file(Path(location))
        return importlib.import_module(location)
    except CliError:
        raise
    except ModuleNotFoundError as error:
        raise CliError(f"no module named '{error.name}' (importing {location})") from None
    except Exception as error:
        detail = " ".join(line.strip() for line in str(error).splitlines())
        raise CliError(f"importing {location} failed: {type(error).__name__}: {detail}") from None


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
