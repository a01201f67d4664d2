"""`tooluse web`: a local page to chat with an agent and see what each run did.

The page (`tooluse/ui/static`, shipped in the wheel) talks to the agent over AG-UI:
streamed text, each tool call with its arguments and result, approvals as buttons,
handoffs, errors, and a timeline of each run's turns and calls. The agent is found as
`tooluse chat` finds it, and runs on `TestModel` without `OPENAI_API_KEY` as there.

It listens on loopback by default. Off loopback it needs a bearer token (`--token`, or
`TOOLUSE_SERVE_TOKEN`, as `tooluse serve`) unless `--allow-unauthenticated`, and it
answers only requests whose Host and Origin are the bound address, loopback, or a
name given with `--allow-host`.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import sys
from typing import Any, TextIO

from ..agents._agent import Agent
from ..core._http_access import host_names, is_loopback
from ..exceptions import UserError
from ..sessions import SQLiteSession
from ..testing._scripted import TestModel
from ._chat import find_agent, offline_run_config
from ._loading import CliError, import_failed, import_location, split_target

__all__ = ["TOKEN_ENVIRONMENT_VARIABLE", "add_web_parser", "run_web"]

TOKEN_ENVIRONMENT_VARIABLE = "TOOLUSE_SERVE_TOKEN"
"""Where `tooluse web` reads its bearer token when `--token` is not given (as `serve`)."""

_UI_MODULES = frozenset({"starlette", "ag_ui", "uvicorn"})


def add_web_parser(commands: Any) -> None:
    """Add `tooluse web` to the command line's subcommands.

    Args:
        commands: The parser's subparsers.
    """
    web = commands.add_parser("web", help="chat with an agent in the browser, see its runs")
    web.add_argument("target", help="a .py file or module, optionally :NAME of one agent")
    web.add_argument("--host", default="127.0.0.1", help="address (default: loopback)")
    web.add_argument("--port", type=int, default=8000, help="port; 0 for a free one")
    web.add_argument(
        "--db", metavar="FILE", help="keep each conversation in this SQLite file (default: memory)"
    )
    web.add_argument(
        "--token",
        help=f"the bearer token the page must send (default: ${TOKEN_ENVIRONMENT_VARIABLE}); "
        "needed off loopback",
    )
    web.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name the server answers for, besides the address and loopback",
    )
    web.add_argument(
        "--allow-unauthenticated",
        action="store_true",
        help="listen off loopback without a token (something in front authenticates)",
    )


def run_web(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Serve the page and the agent until Ctrl-C.

    Args:
        args: The parsed `tooluse web` arguments.
        out: Where the address is written; stdout when None.

    Returns:
        0 once stopped.

    Raises:
        CliError: If the `ui` extra is missing, the target names no single agent, or
            the address is off loopback with no token.
    """
    try:
        import uvicorn  # noqa: PLC0415 - `ui` is an optional extra

        from ..ui._web import web_app  # noqa: PLC0415
    except ModuleNotFoundError as error:
        if (error.name or "").partition(".")[0] not in _UI_MODULES:
            raise
        raise CliError(
            f"web needs the '{error.name}' package, which is not installed; "
            "pip install 'tooluse[ui]'"
        ) from None
    token = args.token if args.token is not None else os.environ.get(TOKEN_ENVIRONMENT_VARIABLE)
    token = token or None
    if not is_loopback(args.host) and token is None and not args.allow_unauthenticated:
        raise CliError(
            f"--host {args.host} is reachable from other machines: set a bearer token "
            f"(--token or {TOKEN_ENVIRONMENT_VARIABLE}=...), or --allow-unauthenticated if "
            "something in front of the server authenticates"
        )
    agent = _agent(args.target)
    config = offline_run_config(agent)
    db = args.db

    def sessions(thread_id: str) -> SQLiteSession:
        return SQLiteSession(thread_id, db)

    app = web_app(
        agent,
        run_config=config,
        sessions=sessions if db else None,
        model_line=_model_line(agent, config.model),
        hosts=host_names(args.host, args.allow_host),
        token=token,
    )
    listener = _listen(args.host, args.port)
    port = listener.getsockname()[1]
    shown = f"[{args.host}]" if ":" in args.host else args.host
    fragment = f"#token={token}" if token else ""
    stream = out or sys.stdout
    stream.write(f"tooluse web: chatting with {agent.name!r} at http://{shown}:{port}/{fragment}\n")
    stream.flush()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C: the usual way to stop a server
        server.run(sockets=[listener])
    return 0


def _agent(target: str) -> Agent[object]:
    location, name = split_target(target)
    try:
        return find_agent(import_location(location), location, name)
    except UserError as error:
        raise import_failed(location, error) from None


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as error:
        listener.close()
        raise CliError(
            f"cannot listen on {host}:{port} ({error.strerror or error}); choose another "
            "--port (0 for a free one) or --host"
        ) from None
    listener.listen(128)
    return listener


def _model_line(agent: Agent[object], model: object) -> str:
    if isinstance(model, TestModel):
        return "model: TestModel (no OPENAI_API_KEY)"
    chosen = agent.model
    if chosen is None:
        return "model: the default"
    return f"model: {chosen if isinstance(chosen, str) else type(chosen).__name__}"
