"""Serving function tools over MCP: `tool_server` builds the `mcp` server, `serve` runs it.

An MCP client is not bound by OpenAI's strict mode, so each tool is listed with its
natural schema (`tool.with_strict_mode(False)`) and called through that same tool: the
arguments are validated as in a run, and every failure (bad arguments, an exception, a
timeout) comes back as an `isError` result with the text the model would get in a run,
free of argument values and exception messages; a `ModelRetry` message goes as written.
Each call gets a `ToolContext` whose `tool_call_id` is the MCP request's id and whose
`report_progress` (awaited by an async tool) and `report_progress_sync` (called by a sync
tool, from its worker thread) send MCP progress notifications, when the request asked
for them.

What only a run has is not applied here: `is_enabled`, `needs_approval` (an MCP
client asks its user itself) and tool guardrails (they take the agent).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import socket
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import uvicorn
from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings

from .._version import __version__
from ..core._context import ToolContext
from ..core._http_access import AccessGuard, host_names
from ..exceptions import ToolTimeoutError, UserError
from ..tools._errors import default_tool_error_function, echoed_name
from ..tools._function_tool import FunctionTool
from ..tools._invocation import (
    Invoker,
    InvokeSettings,
    ToolOutcome,
    UnwritableOutput,
    run_within,
    timeout_text,
    tool_output_text,
    unwritable_outcome,
)
from ..tools._threads import CallTimedOut
from ._http_guard import check_exposure
from ._results import served_content

__all__ = ["Transport", "serve", "tool_server"]

logger = logging.getLogger("tooluse")

Transport = Literal["stdio", "http"]
"""How `serve` talks to clients: over its stdin and stdout, or streamable HTTP."""

DEFAULT_PORT = 8000
"""The port `serve(transport="http")` listens on unless told otherwise."""

_NO_TRANSPORT_SECURITY = TransportSecuritySettings(enable_dns_rebinding_protection=False)


def tool_server(
    tools: Iterable[FunctionTool],
    *,
    name: str = "tooluse",
    context: object = None,
    annotations: Mapping[str, types.ToolAnnotations] | None = None,
) -> Server[Any]:
    """An MCP server (the `mcp` package's low-level `Server`) offering these tools.

    Run it over any transport the `mcp` package has, or mount its
    `streamable_http_app()` in an ASGI application; `serve` does either for you.

    Args:
        tools: The function tools to offer; their names must differ.
        name: The server's name, shown to clients.
        context: The object each call's `ToolContext.context` holds, as a run's `context=`.
        annotations: MCP hints per tool name (read-only, destructive, idempotent,
            open-world, title), over those the tools were given (`mcp_annotations`).

    Returns:
        The server, not yet running.

    Raises:
        UserError: If two tools share a name, a tool is not a `FunctionTool`, or an
            annotation names no tool.
    """
    served = _ServedTools(list(tools), context, dict(annotations or {}))
    return Server(
        name,
        version=__version__,
        on_list_tools=served.list_tools,
        on_call_tool=served.call_tool,
        get_tool_input_schema=served.input_schema,
    )


async def serve(
    tools: Iterable[FunctionTool],
    *,
    name: str = "tooluse",
    transport: Transport = "stdio",
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    context: object = None,
    annotations: Mapping[str, types.ToolAnnotations] | None = None,
    token: str | None = None,
    allowed_hosts: Iterable[str] = (),
    allow_unauthenticated: bool = False,
) -> None:
    """Serve the tools over MCP until cancelled (or, over stdio, until the client leaves).

    Over HTTP, every request must name an allowed host in `Host` (and in `Origin`, when
    a browser sends one): the bound address, loopback, and `allowed_hosts`. With a
    `token`, it must also carry `Authorization: Bearer TOKEN`.

    Args:
        tools: The function tools to offer; their names must differ.
        name: The server's name, shown to clients.
        transport: `"stdio"` (the process's stdin and stdout) or `"http"` (streamable
            HTTP at `http://HOST:PORT/mcp`).
        host: The address HTTP listens on: loopback unless you say otherwise.
        port: The HTTP port; 0 picks a free one (the address is logged).
        context: The object each call's `ToolContext.context` holds.
        annotations: MCP hints per tool name.
        token: HTTP only: the bearer token every request must carry (401 without it).
            Required to listen on an address other than loopback.
        allowed_hosts: HTTP only: more host names clients reach the server by (a DNS
            name, a public address), beside the bound address and loopback.
        allow_unauthenticated: HTTP only: listen beyond loopback with no token, when
            something in front of the server authenticates.

    Raises:
        UserError: If the tools cannot be served together, the transport is unknown,
            HTTP options are given for stdio, or `host` is not loopback and no token is set.
        OSError: If HTTP cannot listen at `host:port` (in use, or not this machine's).
    """
    server = tool_server(tools, name=name, context=context, annotations=annotations)
    if transport == "stdio":
        if token is not None or allowed_hosts or allow_unauthenticated:
            raise UserError(
                "serve: token, allowed_hosts and allow_unauthenticated apply to "
                "transport='http' only; leave them out for stdio"
            )
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    elif transport == "http":
        check_exposure(host, token=token, allow_unauthenticated=allow_unauthenticated)
        sock = listening_socket(host, port)
        await _serve_http(server, sock, host_names(host, allowed_hosts), token)
    else:
        raise UserError(f"serve: transport={transport!r} must be 'stdio' or 'http'")


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket listening at `host:port`, so that a port in use fails before serving starts.

    Args:
        host: The address to listen on.
        port: The port; 0 for a free one.

    Returns:
        The listening socket.

    Raises:
        OSError: If the address cannot be bound, with the address in its message.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen()  # clients that come before the server is up wait in the backlog
    except OSError as error:
        sock.close()
        raise OSError(error.errno, f"cannot listen on {host}:{port}: {error.strerror}") from None
    return sock


async def _serve_http(
    server: Server[Any], sock: socket.socket, hosts: frozenset[str], token: str | None
) -> None:
    host, port = sock.getsockname()[:2]
    # The MCP app's own Host checks are left off: AccessGuard makes them, on any `mcp` version.
    app = server.streamable_http_app(host=host, transport_security=_NO_TRANSPORT_SECURITY)
    guarded = AccessGuard(app, hosts=hosts, token=token)
    config = uvicorn.Config(guarded, log_level="warning", lifespan="on")
    shown = f"[{host}]" if ":" in host else host
    print(f"tooluse: serving MCP on http://{shown}:{port}/mcp", file=sys.stderr, flush=True)
    http = uvicorn.Server(config)
    with sock:
        running = asyncio.ensure_future(http.serve(sockets=[sock]))
        try:
            await asyncio.shield(running)
        except asyncio.CancelledError:  # stop as at Ctrl-C: open requests end, then lifespan
            http.should_exit = True
            await running
            raise


class _ServedTools:
    """The tools of one server, in their natural (non-strict) form, and its two handlers."""

    def __init__(
        self,
        tools: list[FunctionTool],
        context: object,
        annotations: dict[str, types.ToolAnnotations],
    ) -> None:
        self._tools: dict[str, FunctionTool] = {}
        for tool in tools:
            if not isinstance(tool, FunctionTool):  # pyright: ignore[reportUnnecessaryIsInstance]
                raise UserError(
                    f"tool_server: {tool!r} is not a FunctionTool; decorate the function "
                    "with @function_tool"
                )
            if tool.name in self._tools:
                raise UserError(
                    f"tool_server: two tools are named '{tool.name}'; give one another name "
                    "(@function_tool(name_override=...))"
                )
            self._tools[tool.name] = tool.with_strict_mode(False)
        unknown = sorted(set(annotations) - set(self._tools))
        if unknown:
            raise UserError(
                f"tool_server: annotations for {', '.join(map(repr, unknown))}, which no tool "
                f"is named; the tools are {', '.join(self._tools) or 'none'}"
            )
        self._context = context
        self._listed = [
            types.Tool(
                name=tool.name,
                description=tool.description or None,
                input_schema=tool.params_json_schema,
                annotations=annotations.get(tool.name) or _annotations(tool),
            )
            for tool in self._tools.values()
        ]

    def input_schema(self, name: str) -> Mapping[str, object] | None:
        tool = self._tools.get(name)
        return None if tool is None else tool.params_json_schema

    async def list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        del ctx, params
        return types.ListToolsResult(tools=self._listed)

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        tool = self._tools.get(params.name)
        if tool is None:
            known = ", ".join(self._tools) or "none"
            unknown = echoed_name(params.name)  # a client may send a name of any length
            return _result(f"There is no tool '{unknown}'; call one of: {known}.", failed=True)
        arguments = json.dumps(params.arguments or {})
        call = _ServedToolContext(
            context=self._context,
            tool_name=tool.name,
            tool_call_id=str(ctx.request_id),
            tool_arguments=arguments,
            request=ctx,
            loop=asyncio.get_running_loop(),
        )
        outcome = await call_served_tool(tool, call, arguments)
        if outcome.parts is not None and not outcome.failed:
            return types.CallToolResult(content=served_content(outcome.parts))
        return _result(outcome.output, failed=outcome.failed)


@dataclass(eq=False, kw_only=True)
class _ServedToolContext(ToolContext[object]):
    """A call's context whose progress reports go to the MCP client."""

    request: ServerRequestContext[Any]
    """The MCP request being answered."""
    loop: asyncio.AbstractEventLoop
    """The server's event loop: where a sync tool's reports are sent from."""
    _sending: set[asyncio.Task[None]] = field(default_factory=set[asyncio.Task[None]], repr=False)

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Send an MCP progress notification (nothing, when the request has no progress token).

        Args:
            progress: How much is done.
            total: How much there is to do, if known.
            message: What is being done.
        """
        await self.request.session.report_progress(progress, total, message)

    def report_progress_sync(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Send an MCP progress notification from a sync tool's thread, and wait until it is.

        Args:
            progress: How much is done.
            total: How much there is to do, if known.
            message: What is being done.
        """
        sending = self.report_progress(progress, total, message)
        if _running_loop() is self.loop:  # an async tool: the loop cannot wait for itself
            task = self.loop.create_task(sending)
            self._sending.add(task)  # held until done, as the loop keeps only weak references
            task.add_done_callback(self._sending.discard)
            return
        try:
            sent = asyncio.run_coroutine_threadsafe(sending, self.loop)
        except RuntimeError:  # the loop is closed: the server stopped, there is nobody to tell
            sending.close()
            return
        sent.result()


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:  # a worker thread
        return None


async def call_served_tool(
    tool: FunctionTool, ctx: ToolContext[Any], arguments: str
) -> ToolOutcome:
    """Call a tool as a run would, within its timeout; every failure is text.

    Args:
        tool: The tool, in the form it is listed in.
        ctx: The call's context.
        arguments: The raw JSON arguments.

    Returns:
        The text for the client, and whether the call failed.
    """
    try:
        return await _invoke(tool, ctx, arguments)
    except CallTimedOut as limit:
        return await _timed_out(tool, ctx, limit)
    except Exception as error:  # a developer's mistake met in the call, or a re-raised failure
        ctx.error = error
        logger.warning("Tool %r raised %s", tool.name, type(error).__name__)
        return ToolOutcome(default_tool_error_function(ctx, error), failed=True)


async def _invoke(tool: FunctionTool, ctx: ToolContext[Any], arguments: str) -> ToolOutcome:
    invoker = tool.on_invoke_tool
    if isinstance(invoker, Invoker):
        return await invoker.invoke(ctx, arguments, InvokeSettings(timeout=tool.timeout_seconds))
    call = invoker(ctx, arguments)  # a hand-built tool
    timeout = tool.timeout_seconds
    output = await (call if timeout is None else run_within(call, timeout, ctx))
    try:
        text = tool_output_text(output, tool.name)
    except UnwritableOutput as error:
        return unwritable_outcome(ctx, error)
    return ToolOutcome(text, failed=ctx.error is not None)


async def _timed_out(tool: FunctionTool, ctx: ToolContext[Any], limit: CallTimedOut) -> ToolOutcome:
    """The client is told, whatever `timeout_behavior` says: there is no run to stop."""
    if tool.timeout_error_function is None:
        return ToolOutcome(timeout_text(tool.name, limit), failed=True)
    error = ToolTimeoutError(tool.name, limit.timeout)
    ctx.error = error
    text = tool.timeout_error_function(ctx, error)
    return ToolOutcome(await text if inspect.isawaitable(text) else text, failed=True)


def _annotations(tool: FunctionTool) -> types.ToolAnnotations | None:
    given = tool.mcp_annotations
    return None if given is None else types.ToolAnnotations.model_validate(given)


def _result(text: str, *, failed: bool) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=failed)
