"""The `tooluse` command line.

- `tooluse schema PATH_OR_MODULE[:NAME] [--api chat|responses] [--no-strict]` prints tool params.
- `tooluse check TARGET... [--json] [--no-mcp] [--provider openai|anthropic|gemini]` lints
  the tools of files, folders and
  modules (`TARGET` as pre-commit passes them, optionally `:NAME`): every finding, then
  the targets that could not be checked, then a count. The MCP servers a module
  holds are connected to and each of their tools reported, unless `--no-mcp`. Exit 1
  on errors or an unusable target, 0 when there are only warnings (and notes). With
  `--provider`, each tool also gets what that provider would refuse (errors) and what
  was rewritten for its schema dialect (notes).
- `tooluse serve TARGET... [--transport stdio|http] [--host 127.0.0.1] [--port N]
  [--token T] [--allow-host NAME]... [--allow-unauthenticated]` serves the tools of
  files and modules over MCP (needs `tooluse[mcp]`); HTTP listens on loopback unless
  `--host` says otherwise, answers only requests naming an allowed host, and with a
  token (`--token`, or `TOOLUSE_SERVE_TOKEN`) only those that carry it. Only MCP is on
  stdout.
- `tooluse chat PATH_OR_MODULE[:AGENT] [--session ID] [--db FILE]` talks with an agent
  in the terminal (see `_chat.py`); `--session` keeps the conversation in a SQLite file.
- `tooluse web PATH_OR_MODULE[:AGENT] [--host] [--port] [--db FILE]` serves a page to chat
  with an agent and see its runs (see `_web.py`; needs `tooluse[ui]`).
- `tooluse --version`.

Exit status 2 means the command line itself is wrong (or, for `schema` and
`serve`, that there is nothing to print or serve); `serve` exits with 1 when it
cannot listen where it is told. Only the command's output is on stdout; what
imported code prints goes to stderr. When whoever reads stdout stops reading
(`tooluse schema tools.py | head`), the command stops quietly with status 141,
as a program killed by SIGPIPE does.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import json
import os
import sys
from collections import Counter
from collections.abc import Sequence
from typing import get_args

from .._version import __version__
from ..exceptions import UserError
from ..models._tool_params import chat_completions_tool_param, responses_tool_param
from ..schema._dialects import PROVIDERS, Provider
from ..tools._function_tool import FunctionTool
from ._chat import DEFAULT_DB, run_chat
from ._check import CheckReport, Kind, check_targets
from ._loading import CliError, import_failed, import_location, select_tools, split_target
from ._web import add_web_parser, run_web

__all__ = ["main"]

EXIT_FINDINGS = 1
EXIT_SERVE_FAILED = 1  # the server could not start (its address is taken)
EXIT_USAGE = 2
EXIT_BROKEN_PIPE = 128 + 13  # what a shell reports for a program killed by SIGPIPE


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `tooluse` command.

    Args:
        argv: The arguments after the program name; defaults to `sys.argv[1:]`.

    Returns:
        The exit status: 0 on success; for `check` 1 when it finds errors or a
        target cannot be checked; for `serve` 1 when it cannot listen; 2 when
        `schema` or `serve` has nothing to use; 141 when stdout was closed before
        the output was written. Bad arguments exit
        with 2 through argparse (`SystemExit`), as does `--version` with 0.
    """
    args = _parser().parse_args(argv)
    try:
        status = _run(args)
        sys.stdout.flush()  # a closed pipe shows here, not at exit as an ignored exception
    except BrokenPipeError:
        # Python's documented idiom: stdout goes nowhere, so that exiting flushes nothing to it.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    return status


def _run(args: argparse.Namespace) -> int:
    if args.command == "check":
        return _check(args.targets, as_json=args.json, mcp=not args.no_mcp, provider=args.provider)
    try:
        if args.command == "serve":
            return _serve(args)
        if args.command == "chat":
            return _chat(args)
        if args.command == "web":
            return run_web(args)
        return _schema(args.target, api=args.api, strict=not args.no_strict)
    except CliError as error:
        print(f"tooluse: error: {error}", file=sys.stderr)
        return EXIT_USAGE


def _schema(target: str, *, api: str, strict: bool) -> int:
    location, name = split_target(target)
    try:
        tools = select_tools(import_location(location), location, name)
    except UserError as error:
        raise import_failed(location, error) from None
    serialise = chat_completions_tool_param if api == "chat" else responses_tool_param
    params = [serialise(_in_mode(tool, location, strict=strict)) for tool in tools]
    print(json.dumps(params, indent=2, ensure_ascii=False))
    return 0


def _in_mode(tool: FunctionTool, location: str, *, strict: bool) -> FunctionTool:
    try:
        return tool.with_strict_mode(strict)
    except UserError as error:  # a loose tool whose schema or name strict mode refuses
        detail = " ".join(line.strip() for line in str(error).splitlines())
        raise CliError(
            f"{location}: tool '{tool.name}' cannot be printed strict: {detail}; "
            "print it as defined with --no-strict"
        ) from None


def _serve(args: argparse.Namespace) -> int:
    try:
        # `mcp` is an optional extra
        from ..mcp._http_guard import TOKEN_ENVIRONMENT_VARIABLE  # noqa: PLC0415
        from ..mcp._server import serve  # noqa: PLC0415
    except ImportError as error:  # tooluse.mcp's own guard raises ImportError(name="mcp")
        if (error.name or "").partition(".")[0] not in _MCP_MODULES:
            raise
        raise CliError(
            f"serve needs the '{error.name}' package, which is not installed; "
            "pip install 'tooluse[mcp]'"
        ) from None
    tools = _tools_of(args.targets)
    if args.transport == "http":
        token: str | None = args.token
        if token is None:  # an empty variable is no token; an empty --token is refused
            token = os.environ.get(TOKEN_ENVIRONMENT_VARIABLE) or None
        serving = serve(
            tools, name=args.name, transport="http", host=args.host, port=args.port,
            token=token, allowed_hosts=args.allow_host,
            allow_unauthenticated=args.allow_unauthenticated,
        )  # fmt: skip
    elif args.token is not None or args.allow_host or args.allow_unauthenticated:
        raise CliError(
            "--token, --allow-host and --allow-unauthenticated apply to --transport http only"
        )
    else:
        if sys.stdin.isatty():
            # A person who typed the command sees why nothing happens: MCP clients start it.
            print(
                f"tooluse serve: {_count(len(tools), 'tool')} over MCP on stdio, waiting for an "
                "MCP client to speak on stdin (Ctrl-C stops; --transport http serves over HTTP)",
                file=sys.stderr,
                flush=True,
            )
        serving = serve(
            tools, name=args.name, transport=args.transport, host=args.host, port=args.port
        )
    try:
        asyncio.run(serving)
    except UserError as error:  # tools that cannot be served together
        raise CliError(" ".join(line.strip() for line in str(error).splitlines())) from None
    except OSError as error:  # the address: in use, or not this machine's
        print(
            f"tooluse: error: {error.strerror or error}; choose another --port (0 for a free "
            "one) or --host",
            file=sys.stderr,
        )
        return EXIT_SERVE_FAILED
    except KeyboardInterrupt:  # Ctrl-C: the usual way to stop a server
        pass
    return 0


def _chat(args: argparse.Namespace) -> int:
    if args.db is not None and args.session is None:
        raise CliError("--db names where a session is kept: give --session ID with it")
    with contextlib.suppress(ImportError):  # line editing and history for input(), where it exists
        importlib.import_module("readline")
    return run_chat(args.target, session_id=args.session, db=args.db)


_MCP_MODULES = frozenset({"mcp", "mcp_types", "uvicorn", "starlette", "anyio"})


def _tools_of(targets: list[str]) -> list[FunctionTool]:
    """Every tool the targets name, each once (a module named twice adds nothing)."""
    tools: dict[int, FunctionTool] = {}
    for target in targets:
        location, name = split_target(target)
        try:
            found = select_tools(import_location(location), location, name)
        except UserError as error:
            raise import_failed(location, error) from None
        for tool in found:
            tools.setdefault(id(tool), tool)
    return list(tools.values())


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is no port: give 0 to 65535 (0 for a free one)")
    return port


def _check(targets: list[str], *, as_json: bool, mcp: bool, provider: Provider | None) -> int:
    reports = check_targets(targets, mcp=mcp, provider=provider)
    unusable = [report for report in reports if report.problem is not None]
    errors = sum(report.errors for report in reports)
    findings = [finding for report in reports for finding in report.findings]
    counts = {
        "errors": errors,
        "warnings": sum(finding.severity == "warning" for finding in findings),
        "tools": sum(report.tools for report in reports),
        "files": len(reports) - len(unusable),  # files and modules: the key predates modules
    }
    (_print_json if as_json else _print_text)(reports, unusable, counts)
    return EXIT_FINDINGS if errors or unusable else 0


def _print_json(
    reports: list[CheckReport], unusable: list[CheckReport], counts: dict[str, int]
) -> None:
    document = {
        "findings": [row for report in reports for row in report.as_json()],
        "unusable": [{"target": report.target, "message": report.problem} for report in unusable],
        **counts,
    }
    print(json.dumps(document, indent=2, ensure_ascii=False))


def _print_text(
    reports: list[CheckReport], unusable: list[CheckReport], counts: dict[str, int]
) -> None:
    for report in reports:
        for finding in report.findings:
            print(f"{report.target}: {finding}")
    for report in unusable:
        print(f"cannot check {report.problem}")
    errors, warnings, tools = (
        _count(counts[key], key[:-1]) for key in ("errors", "warnings", "tools")
    )
    checked = [report for report in reports if report.problem is None]
    summary = f"{errors}, {warnings} in {tools} from {_targets(checked)}"
    if unusable:
        summary += f"; cannot check {_targets(unusable)}"
    print(f"tooluse check: {summary}")


def _targets(reports: list[CheckReport]) -> str:
    """`2 files and 1 module`: how many of each kind, or `0 files`."""
    kinds = Counter(report.kind for report in reports)
    counted = [_count(kinds[kind], kind) for kind in get_args(Kind) if kinds[kind]]
    return " and ".join(counted) or "0 files"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tooluse", description="Tools for LLMs, from functions.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    schema = commands.add_parser("schema", help="print the tool params of a file's tools")
    schema.add_argument("target", help="a .py file or module, optionally :NAME of one tool")
    schema.add_argument("--api", choices=["chat", "responses"], default="responses")
    schema.add_argument("--no-strict", action="store_true", help="print non-strict schemas")
    check = commands.add_parser("check", help="lint the tools of files, folders or modules")
    check.add_argument(
        "targets", nargs="+", help=".py files, folders (searched for .py files) or modules"
    )
    check.add_argument("--json", action="store_true", help="print one JSON document")
    check.add_argument(
        "--provider",
        choices=PROVIDERS,
        help="also say, per tool, what this provider would refuse and what was rewritten for it",
    )
    check.add_argument(
        "--no-mcp", action="store_true", help="do not connect to the MCP servers found"
    )
    serve = commands.add_parser("serve", help="serve the tools of files or modules over MCP")
    serve.add_argument(
        "targets", nargs="+", help=".py files, folders or modules, each optionally :NAME"
    )
    serve.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    serve.add_argument("--host", default="127.0.0.1", help="HTTP address (default: loopback)")
    serve.add_argument("--port", type=_port, default=8000, help="HTTP port; 0 for a free one")
    serve.add_argument("--name", default="tooluse", help="the server's name, shown to clients")
    serve.add_argument(
        "--token",
        help="HTTP: the bearer token clients must send (default: $TOOLUSE_SERVE_TOKEN, which "
        "other users cannot read from the process list); required off loopback",
    )
    serve.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="HTTP: a host name clients use, beside the bound address and loopback (repeatable)",
    )
    serve.add_argument(
        "--allow-unauthenticated",
        action="store_true",
        help="HTTP: listen off loopback with no token (something in front authenticates)",
    )
    chat = commands.add_parser("chat", help="chat with an agent in the terminal")
    chat.add_argument("target", help="a .py file or module, optionally :NAME of one agent")
    chat.add_argument(
        "--session", metavar="ID", help="keep the conversation in this session (default: memory)"
    )
    chat.add_argument(
        "--db", metavar="FILE", help=f"the session's SQLite file (default: ./{DEFAULT_DB})"
    )
    add_web_parser(commands)
    return parser
