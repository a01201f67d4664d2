"""An MCP server's failure, as a run reports it: `MCPServerError` naming the server.

The `mcp` package raises what it meets as it is: an exception group from the task
group that holds a connection, `MCPError` for an error or a timeout, pydantic's
`ValidationError` for an answer that is not MCP. Here each becomes a few words on
what went wrong and when; what the server said is kept only for a trusted server,
since a server's error text can hold a secret.
"""

from __future__ import annotations

from typing import Literal, cast
from urllib.parse import urlsplit

import mcp_types as types
from mcp import MCPError
from pydantic import ValidationError

from ..exceptions import MCPServerError

__all__ = ["Stage", "plain_url", "server_failure"]

Stage = Literal["start", "list"]
"""When the server failed: while the run connected to it, or while listing its tools."""

_MAX_SERVER_MESSAGE = 2000


def server_failure(
    name: str,
    server: str,
    stage: Stage,
    error: BaseException,
    *,
    timeout: float | None,
    trusted: bool,
) -> MCPServerError:
    """The run's error for a server that failed.

    Args:
        name: The server's name.
        server: Its command or URL.
        stage: When it failed.
        error: What the `mcp` package (or the transport) raised.
        timeout: The server's request timeout, to say how long it was waited for.
        trusted: Whether the server's own words may go into the message.

    Returns:
        The error to raise, with `error` left out of it unless `trusted`.
    """
    inner = _single(error)
    problem = _problem(stage, inner, timeout)
    said = None
    if trusted:
        said = str(inner)[:_MAX_SERVER_MESSAGE] or None
    return MCPServerError(name, server, problem, server_message=said)


def plain_url(url: str) -> str:
    """A server's URL as an error names it: without a user, password, query or fragment.

    Args:
        url: The URL the server was given.

    Returns:
        The scheme, host, port and path, where a secret is unlikely to be.
    """
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    port = f":{parts.port}" if parts.port is not None else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


def _problem(stage: Stage, error: BaseException, timeout: float | None) -> str:
    request = "initialize" if stage == "start" else "tools/list"
    if _timed_out(error):
        waited = f" within {timeout:g} s" if timeout is not None else ""
        return f"did not answer {request}{waited}"
    if isinstance(error, ValidationError):
        return f"answered {request} with something that is not MCP"
    if isinstance(error, MCPError):
        return f"failed {request} (MCP error {error.code})"
    if stage == "start" and isinstance(error, OSError):
        return f"could not be started or reached ({type(error).__name__})"
    return f"failed {request} ({type(error).__name__})"


def _timed_out(error: BaseException) -> bool:
    if isinstance(error, MCPError):
        return error.code == types.REQUEST_TIMEOUT
    return isinstance(error, TimeoutError)


def _single(error: BaseException) -> BaseException:
    """The one error inside exception groups of one (anyio's task groups wrap it).

    Read by duck type: on Python 3.10 the groups are the `exceptiongroup` backport's.
    """
    while True:
        inner: object = getattr(error, "exceptions", None)
        if not isinstance(inner, tuple):
            return error
        held = cast("tuple[object, ...]", inner)  # true of any tuple
        if len(held) != 1 or not isinstance(held[0], BaseException):
            return error
        error = held[0]
