"""The `tooluse` command line.

- `tooluse schema PATH_OR_MODULE[:NAME] [--api chat|responses] [--no-strict]` prints tool params.
- `tooluse check PATH_OR_MODULE[:NAME]... [--json]` lints tools; exit 1 on errors.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from ._check import CheckReport, check_target
from ._loading import CliError, import_failed, import_location, select_tools
from ._tool_params import chat_completions_tool_param, responses_tool_param
from .exceptions import UserError

__all__ = ["main"]

EXIT_FINDINGS = 1
EXIT_USAGE = 2


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `tooluse` command.

    Args:
        argv: The arguments after the program name; defaults to `sys.argv[1:]`.

    Returns:
        The exit status: 0 on success, 1 when `check` finds errors, 2 on a usage
        or import problem.
    """
    args = _parser().parse_args(argv)
    try:
        if args.command == "schema":
            return _schema(args.target, api=args.api, strict=not args.no_strict)
        return _check(args.targets, as_json=args.json)
    except CliError as error:
        print(f"tooluse: error: {error}", file=sys.stderr)
        return EXIT_USAGE


def _schema(target: str, *, api: str, strict: bool) -> int:
    location, _, name = target.partition(":")
    try:
        tools = select_tools(import_location(location), location, name)
    except UserError as error:
        raise import_failed(location, error) from None
    serialise = chat_completions_tool_param if api == "chat" else responses_tool_param
    params = [serialise(tool.with_strict_mode(strict)) for tool in tools]
    print(json.dumps(params, indent=2, ensure_ascii=False))
    return 0


def _check(targets: list[str], *, as_json: bool) -> int:
    reports = [check_target(target) for target in targets]
    errors = sum(report.errors for report in reports)
    findings = sum(len(report.findings) for report in reports)
    tools = sum(report.tools for report in reports)
    if as_json:
        rows = [row for report in reports for row in report.as_json()]
        summary = {"findings": rows, "errors": errors, "warnings": findings - errors}
        print(json.dumps({**summary, "tools": tools}, indent=2, ensure_ascii=False))
    else:
        _print_report(reports, errors=errors, warnings=findings - errors, tools=tools)
    return EXIT_FINDINGS if errors else 0


def _print_report(reports: list[CheckReport], *, errors: int, warnings: int, tools: int) -> None:
    for report in reports:
        for finding in report.findings:
            print(f"{report.target}: {finding}")
    print(f"tooluse check: {errors} errors, {warnings} warnings in {tools} tools")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tooluse", description="Tools for LLMs, from functions.")
    commands = parser.add_subparsers(dest="command", required=True)
    schema = commands.add_parser("schema", help="print the tool params of a file's tools")
    schema.add_argument("target", help="a .py file or module, optionally :NAME of one tool")
    schema.add_argument("--api", choices=["chat", "responses"], default="responses")
    schema.add_argument("--no-strict", action="store_true", help="print non-strict schemas")
    check = commands.add_parser("check", help="lint the tools of files or modules")
    check.add_argument("targets", nargs="+", help=".py files or modules, optionally :NAME")
    check.add_argument("--json", action="store_true", help="print the findings as JSON")
    return parser
