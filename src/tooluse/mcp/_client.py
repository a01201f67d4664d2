"""MCP servers as toolsets: `MCPServerStdio`, `MCPServerStreamableHttp`, `MCPServerSse`.

Each is a `Toolset`: `list_tools(context, agent)` lists the server's tools as
`FunctionTool`s (filtered, prefixed, their schemas strict when they fit, see
`_schemas`), and each tool's `on_invoke_tool` calls the server. A run enters
the server when its agent first takes over and leaves it when the run ends.
Entering is counted: the first entry connects, only the last exit closes, and a
server the application connected (`async with server:`, or `connect()`) stays
the same connection, and the same process, across runs, concurrent ones too.
A server that cannot be started or answered, or cannot list its tools, stops
the run with `MCPServerError` naming it (`_failures`).

The connection lives in a task of its own, so that any task may call the
server and the transport is opened and closed in one task, as anyio requires.
A call that finds the server gone is an error for the model; the next call
reconnects once, and if that fails too the server is given up on until
`connect()` is called again.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
from collections.abc import AsyncGenerator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, Generic, Literal, TypeVar, cast

import httpx2
import mcp_types as types
from mcp import Client, MCPError, StdioServerParameters
from mcp.client import Transport
from mcp.client.sse import sse_client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from typing_extensions import NotRequired, Self, TypedDict

from ..core._agent_base import AgentBase
from ..core._context import RunContextWrapper, ToolContext
from ..core._values import is_positive_number
from ..exceptions import MCPServerError, ToolArgumentsError, UserError
from ..guardrails._tool_guardrails import ToolInputGuardrail, ToolOutputGuardrail
from ..schema._adapters import AdapterMismatch
from ..schema._argument_errors import (
    format_location,
    json_syntax_problem,
    not_an_object_problem,
)
from ..schema._strict_rules import JsonValue
from ..tools._errors import default_tool_error_function
from ..tools._function_tool import FunctionTool
from ..tools._invocation import ToolErrorFunction
from ._failures import Stage, plain_url, server_failure
from ._names import model_name
from ._options import (
    RequireApproval,
    ToolFilter,
    ToolFilterContext,
    ToolFilterStatic,
    approval_for,
    check_require_approval,
    check_tool_filter,
)
from ._results import (
    MCPToolError,
    ToolOutputDict,
    error_message,
    failure_text,
    result_output,
    server_error_message,
)
from ._schemas import ToolSchema, tool_schema

__all__ = [
    "MCPServer",
    "MCPServerSse",
    "MCPServerSseParams",
    "MCPServerStdio",
    "MCPServerStdioParams",
    "MCPServerStreamableHttp",
    "MCPServerStreamableHttpParams",
    "MCPToolError",
    "ServerToolInvoker",
]

logger = logging.getLogger("tooluse")
ParamsT = TypeVar("ParamsT")
"""What a transport needs to reach its server (`MCPServerStdioParams`, ...)."""


class _Unavailable(ConnectionError):
    """The server cannot be reached, and reconnecting did not help (or was tried already)."""

    def __init__(self, server: str) -> None:
        super().__init__(
            f"MCP server {server!r} is unavailable: it was lost and could not be reconnected; "
            "call connect() to try again"
        )


class MCPServer(Generic[ParamsT]):
    """The tools of an MCP server, as a toolset; connect with `async with` or let a run do it.

    The three transports share everything but how the connection is made: each subclass
    says how from its `params`, and what the server is called by default.
    """

    def __init__(
        self,
        params: ParamsT,
        cache_tools_list: bool = False,
        name: str | None = None,
        client_session_timeout_seconds: float | None = 5,
        tool_filter: ToolFilter = None,
        *,
        tool_name_prefix: str | None = None,
        timeout_seconds: float | None = None,
        require_approval: RequireApproval = None,
        tool_input_guardrails: list[ToolInputGuardrail[Any]] | None = None,
        tool_output_guardrails: list[ToolOutputGuardrail[Any]] | None = None,
        failure_error_function: ToolErrorFunction | None = default_tool_error_function,
        use_structured_content: bool = False,
    ) -> None:
        """Connect to the server `params` describes, when connected (by a run, or `async with`).

        Args:
            params: How to reach the server: the command to start (stdio), or its URL.
            cache_tools_list: Fetch the tool list once (until `invalidate_tools_cache()`).
            name: A readable name; default the transport and the command or URL.
            client_session_timeout_seconds: Seconds each request may take; None for no limit.
            tool_filter: `create_static_tool_filter(...)`, or a function of
                (`ToolFilterContext`, tool) returning whether to offer it.
            tool_name_prefix: Offer tools as `<prefix>_<name>`.
            timeout_seconds: Seconds one tool call may take in a run.
            require_approval: Which tools' calls wait for a human: "always", "never", or
                per tool (`{"delete": "always"}`, `{"always": {"tool_names": [...]}}`).
            tool_input_guardrails: Checks every call goes through before it is sent.
            tool_output_guardrails: Checks of every call's output.
            failure_error_function: What the model is told of an `isError` result (an
                `MCPToolError`) or a protocol error; None raises it, stopping the run. The
                default hides the server's message; `server_error_message` passes it on.
            use_structured_content: Send the model a result's `structuredContent` as JSON
                in place of its text blocks; off, as in openai-agents, the text goes as
                the server wrote it (structured content only when there is no content).
        """
        self.params: ParamsT = params
        """How to reach the server."""
        name = name or self._default_name(params)
        owner = f"MCP server {name!r}"
        check_require_approval(owner, require_approval)
        for label, value in (
            ("client_session_timeout_seconds", client_session_timeout_seconds),
            ("timeout_seconds", timeout_seconds),
        ):
            if value is not None and not is_positive_number(value):
                raise UserError(f"{owner}: {label}={value!r} must be a positive number or None")
        check_tool_filter(owner, tool_filter)
        self._name = name
        self.cache_tools_list = cache_tools_list
        """Whether the server's tool list is fetched once and kept (`invalidate_tools_cache`)."""
        self.client_session_timeout_seconds = client_session_timeout_seconds
        """Seconds each request to the server (listing, calls) may take; None for no limit."""
        self.tool_filter: ToolFilter = tool_filter
        """Which of the server's tools are offered."""
        self.tool_name_prefix = tool_name_prefix
        """Offer each tool as `<prefix>_<name>`, so that two servers' tools cannot clash."""
        self.timeout_seconds = timeout_seconds
        """Seconds one tool call may take in a run (the runner's per-tool timeout)."""
        self.require_approval: RequireApproval = require_approval
        """Which tools' calls wait for a human's approval (the run pauses, as for a function
        tool's `needs_approval`)."""
        self.tool_input_guardrails = tool_input_guardrails
        """Checks every call of the server's tools goes through before it is sent."""
        self.tool_output_guardrails = tool_output_guardrails
        """Checks of every call's output."""
        self.use_structured_content = use_structured_content
        """Whether a result's `structuredContent` (as JSON) goes to the model in place of
        its text blocks."""
        self.failure_error_function = failure_error_function
        """What the model is told of an `isError` result or a protocol error (None: raise)."""
        self._connection: _Connection | None = None
        self._entered = 0  # `async with` entries not yet left (runs and the application)
        self._owns_connection = False  # whether the first entry connected, so the last closes
        self._entering: asyncio.Lock | None = None
        self._broken = False
        self._gave_up = False
        self._reconnecting: asyncio.Lock | None = None
        self._listed: list[types.Tool] | None = None
        self._built: dict[str, tuple[types.Tool, FunctionTool]] = {}

    @property
    def name(self) -> str:
        """A readable name for the server."""
        return self._name

    def listed_tools(self) -> list[tuple[types.Tool, FunctionTool]]:
        """The server's tools it listed so far, each with the function tool offering it.

        Returns:
            (the server's tool, the function tool) pairs; empty before a listing.
        """
        return list(self._built.values())

    def _default_name(self, params: ParamsT) -> str:  # pragma: no cover - each has its own
        raise NotImplementedError

    def _transport(self) -> Transport:  # pragma: no cover - each transport has its own
        raise NotImplementedError

    async def connect(self) -> None:
        """Start the server (stdio) or open the session (HTTP); a reconnect if connected.

        Raises:
            Exception: Whatever the transport raised when the server could not be reached.
        """
        await self.cleanup()
        connection = _Connection(self._client)
        await connection.open()
        self._connection = connection
        self._broken = self._gave_up = False

    async def cleanup(self) -> None:
        """Close the session (and stop a stdio server); calling it twice is harmless."""
        connection, self._connection = self._connection, None
        if connection is not None:
            await connection.close()

    async def __aenter__(self) -> Self:
        """Connect, unless connected already: by an earlier entry, or by `connect()`.

        Raises:
            MCPServerError: If the server cannot be started or does not answer.
        """
        if self._entering is None:
            self._entering = asyncio.Lock()
        async with self._entering:
            if self._entered == 0:
                self._owns_connection = self._connection is None
                if self._owns_connection:
                    try:
                        await self.connect()
                    except Exception as error:
                        self._owns_connection = False
                        raise self._failure("start", error) from None
            self._entered += 1
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Leave; the last exit closes the connection the first entry opened."""
        if self._entering is None:  # pragma: no cover - left without being entered
            self._entering = asyncio.Lock()
        async with self._entering:
            self._entered = max(0, self._entered - 1)
            if self._entered == 0 and self._owns_connection:
                self._owns_connection = False
                await self.cleanup()

    def _failure(self, stage: Stage, error: BaseException) -> MCPServerError:
        return server_failure(
            self.name, self._address(), stage, error,
            timeout=self.client_session_timeout_seconds,
            trusted=self.failure_error_function is server_error_message,
        )  # fmt: skip

    def _address(self) -> str:  # pragma: no cover - each transport has its own
        raise NotImplementedError

    def invalidate_tools_cache(self) -> None:
        """Fetch the tool list again at the next listing (with `cache_tools_list=True`)."""
        self._listed = None

    def _client(self) -> Client:
        return Client(
            self._transport(), read_timeout_seconds=self.client_session_timeout_seconds, cache=None
        )

    async def list_tools(
        self, context: RunContextWrapper[Any] | None = None, agent: AgentBase | None = None
    ) -> list[FunctionTool]:
        """The server's tools for the coming turn, filtered and prefixed.

        Args:
            context: The run context (for a filter function).
            agent: The agent about to be called (for a filter function).

        Returns:
            One `FunctionTool` per server tool the filter keeps.

        Raises:
            MCPServerError: If the server fails to list its tools, does not answer in
                time, or answers with something that is not MCP.
        """
        listed = self._listed if self.cache_tools_list else None
        if listed is None:
            try:
                listed = await self._fetch_tools()
            except UserError:
                raise  # not connected: the developer's to fix, as it says
            except Exception as error:
                raise self._failure("list", error) from None
            if self.cache_tools_list:
                self._listed = listed
        run_context = context if context is not None else RunContextWrapper(None)
        kept = [t for t in listed if await self._keeps(t, run_context, agent)]
        tools = [self._function_tool(tool) for tool in kept]
        self._refuse_clashes(kept, tools)
        return tools

    async def call_tool(
        self, tool_name: str, arguments: dict[str, Any] | None
    ) -> types.CallToolResult:
        """Call one of the server's tools directly (by its own name), reconnecting once.

        Args:
            tool_name: The server's name for the tool.
            arguments: The arguments, as the server's schema has them.

        Returns:
            The server's result, `isError` ones included.
        """
        client = await self._live_client()
        try:
            return await client.call_tool(tool_name, arguments or {})
        except Exception as error:
            self._note_if_lost(error)
            raise

    async def _fetch_tools(self) -> list[types.Tool]:
        """The server's whole tool list; none (with a warning) once the server is given up."""
        try:
            try:
                return await self._pages()
            except Exception as error:
                if not self._note_if_lost(error):
                    raise
                return await self._pages()  # the server was lost: this reconnects, once
        except _Unavailable:
            logger.warning("MCP server %r is unavailable: its tools are not offered", self.name)
            return []

    async def _pages(self) -> list[types.Tool]:
        client = await self._live_client()
        tools: list[types.Tool] = []
        cursor: str | None = None
        while True:
            page = await client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                return tools

    def _note_if_lost(self, error: Exception) -> bool:
        """Whether `error` means the server is gone; if so, the next request reconnects."""
        connection = self._connection
        if connection is None:  # not connected (a UserError), or already given up
            return False
        closed = isinstance(error, MCPError) and error.code == types.CONNECTION_CLOSED
        lost = closed or connection.finished
        self._broken = self._broken or lost
        return lost

    async def _live_client(self) -> Client:
        connection = self._connection
        if connection is None and not self._broken:
            raise UserError(
                f"MCP server {self.name!r} is not connected: use `async with server:`, "
                "`await server.connect()`, or list it in an agent's tools for a run to connect it"
            )
        if connection is not None and not self._broken and not connection.finished:
            return connection.client
        if self._reconnecting is None:
            self._reconnecting = asyncio.Lock()
        async with self._reconnecting:  # calls that found it gone at once reconnect once
            current = self._connection
            if current is not None and not self._broken and not current.finished:
                return current.client
            if self._gave_up:
                raise _Unavailable(self.name)
            logger.warning("MCP server %r was lost; reconnecting once", self.name)
            try:
                await self.connect()
            except Exception as error:
                self._broken = self._gave_up = True
                logger.warning(
                    "MCP server %r could not be reconnected (%s)", self.name, type(error).__name__
                )
                raise _Unavailable(self.name) from error
            return cast(_Connection, self._connection).client

    async def _keeps(
        self, tool: types.Tool, context: RunContextWrapper[Any], agent: AgentBase | None
    ) -> bool:
        chosen = self.tool_filter
        if chosen is None:
            return True
        if not callable(chosen):
            static: ToolFilterStatic = chosen
            allowed: list[str] | None = static.get("allowed_tool_names")
            blocked: list[str] = static.get("blocked_tool_names") or []
            return (allowed is None or tool.name in allowed) and tool.name not in blocked
        keep = chosen(ToolFilterContext(context, agent, self.name), tool)
        return bool(await keep if inspect.isawaitable(keep) else keep)

    def _function_tool(self, tool: types.Tool) -> FunctionTool:
        built = self._built.get(tool.name)
        if built is not None and built[0] is tool:
            return built[1]
        schema = tool_schema(tool.name, tool.input_schema)
        given = f"{self.tool_name_prefix}_{tool.name}" if self.tool_name_prefix else tool.name
        name = model_name(given)
        if name != given:
            logger.debug(
                "MCP server %r: tool %r is offered as %r, a name the API accepts",
                self.name,
                given,
                name,
            )
        function_tool = FunctionTool(
            name=name,
            description=tool.description or tool.title or "",
            params_json_schema=schema.params_json_schema,
            on_invoke_tool=ServerToolInvoker(self, tool.name, schema),
            strict_json_schema=False,  # already strict when it can be: no second transform
            timeout_seconds=self.timeout_seconds,
            needs_approval=approval_for(self.require_approval, tool.name),
            tool_input_guardrails=self.tool_input_guardrails,
            tool_output_guardrails=self.tool_output_guardrails,
        )
        object.__setattr__(function_tool, "strict_json_schema", schema.strict)  # new: no change
        self._built[tool.name] = (tool, function_tool)
        return function_tool

    def _refuse_clashes(self, listed: list[types.Tool], tools: list[FunctionTool]) -> None:
        """Refuse two server tools offered under one name (`files.read` and `files_read`)."""
        originals: dict[str, list[str]] = {}
        for tool, offered in zip(listed, tools, strict=True):
            names = originals.setdefault(offered.name, [])
            if tool.name not in names:
                names.append(tool.name)
        clashes = {name: names for name, names in originals.items() if len(names) > 1}
        if not clashes:
            return
        lines = "\n".join(
            f"  - {' and '.join(map(repr, names))} would both be offered as {name!r}"
            for name, names in clashes.items()
        )
        blocked = [names[0] for names in clashes.values()]
        raise UserError(
            f"MCP server {self.name!r} has tools the model could not tell apart (names the API "
            f"refuses are rewritten: other characters than letters, digits, '_' and '-' become "
            f"'_', and names past 64 characters are cut):\n{lines}\n"
            "Offer one of each only, e.g. tool_filter=create_static_tool_filter("
            f"blocked_tool_names={blocked!r})"
        )


class ServerToolInvoker:
    """`on_invoke_tool` of a server's tool: the arguments checked and restored, the call made.

    `tooluse check` reads which server tool it calls, and how its schema is sent.
    """

    def __init__(self, server: MCPServer[Any], tool_name: str, schema: ToolSchema) -> None:
        """Call `tool_name` of `server`, its arguments checked against `schema`.

        Args:
            server: The server.
            tool_name: The server's name for the tool.
            schema: What the model is offered, and how its arguments come back.
        """
        self.server = server
        """The server the tool is called on."""
        self.tool_name = tool_name
        """The server's name for the tool (before any prefix)."""
        self.schema = schema
        """What the model is offered, and how its arguments come back."""

    @property
    def origin(self) -> str:
        """Where the tool comes from, for messages (a run's clash of tool names reads it)."""
        return f"tool {self.tool_name!r} of MCP server {self.server.name!r}"

    async def __call__(
        self, ctx: ToolContext[Any], arguments: str
    ) -> str | ToolOutputDict | list[ToolOutputDict]:
        try:
            parsed = self._arguments(ctx.tool_name, arguments)
            result = await self.server.call_tool(self.tool_name, parsed)
        except ToolArgumentsError as error:
            ctx.error = error
            return default_tool_error_function(ctx, error)
        except _Unavailable as error:
            ctx.error = error
            return (
                f"Tool '{ctx.tool_name}' could not be run: its MCP server is unavailable. "
                "Do not call its tools again in this conversation."
            )
        except MCPError as error:
            ctx.error = error
            return await self._protocol_error(ctx, error)
        except Exception as error:
            ctx.error = error
            logger.warning("MCP tool %r raised %s", ctx.tool_name, type(error).__name__)
            return default_tool_error_function(ctx, error)
        if result.is_error:
            error = MCPToolError(ctx.tool_name, error_message(result))
            logger.debug("%s", error)
            return await failure_text(self.server.failure_error_function, ctx, error)
        return result_output(result, structured=self.server.use_structured_content)

    async def _protocol_error(self, ctx: ToolContext[Any], error: MCPError) -> str:
        name = ctx.tool_name
        if error.code == types.REQUEST_TIMEOUT:
            limit = self.server.client_session_timeout_seconds or 0
            return (
                f"Tool '{name}' timed out after {limit:g} s waiting for its MCP server; it may "
                "still finish. Check its effect before retrying."
            )
        if error.code == types.CONNECTION_CLOSED:
            return (
                f"Tool '{name}' failed: the connection to its MCP server was lost, and the call "
                "may not have run. The next call reconnects; retry if it is safe to."
            )
        logger.warning("MCP tool %r failed with MCPError %s", name, error.code)
        return await failure_text(self.server.failure_error_function, ctx, error)

    def _arguments(self, name: str, arguments: str) -> dict[str, object]:
        try:
            parsed: object = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as error:
            raise ToolArgumentsError(name, [json_syntax_problem(error)]) from None
        if not isinstance(parsed, dict):
            raise ToolArgumentsError(name, [not_an_object_problem(parsed)])
        values = cast("dict[str, JsonValue]", parsed)  # what json.loads makes of an object
        adapters = self.schema.adapters
        if adapters is None:
            return dict(values)
        try:
            return adapters.apply(values)
        except AdapterMismatch as error:
            problem = f"{format_location(error.location)}: {error.message}"
            raise ToolArgumentsError(name, [problem]) from None


class _Connection:
    """One session with a server, opened and closed by a task of its own."""

    def __init__(self, make_client: Callable[[], Client]) -> None:
        self._make_client = make_client
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._client: Client | None = None

    @property
    def client(self) -> Client:
        return cast(Client, self._client)

    @property
    def finished(self) -> bool:
        """Whether the session ended on its own (the server went away)."""
        return self._task is None or self._task.done()

    async def open(self) -> None:
        ready: asyncio.Future[Client] = asyncio.get_running_loop().create_future()
        task = self._task = asyncio.create_task(self._hold(ready))
        try:
            self._client = await asyncio.shield(ready)
        except BaseException:
            task.cancel()  # cancelled while connecting: the handshake is not waited for
            await asyncio.wait((task,))
            raise

    async def _hold(self, ready: asyncio.Future[Client]) -> None:
        try:
            async with self._make_client() as client:
                ready.set_result(client)
                await self._stop.wait()
        except Exception as error:
            if not ready.done():
                ready.set_exception(error)
            else:
                logger.debug("An MCP session ended with %s", type(error).__name__)
        if not ready.done():  # pragma: no cover - the session ended before it started
            ready.set_exception(ConnectionError("the MCP session ended before it started"))

    async def close(self) -> None:
        self._stop.set()
        task = self._task
        if task is not None and not task.done():
            await asyncio.wait((task,))


class MCPServerStdioParams(TypedDict):
    """How to start a server that talks over its standard input and output."""

    command: str
    """The program to run."""
    args: NotRequired[list[str]]
    """Its command-line arguments."""
    env: NotRequired[dict[str, str]]
    """Environment variables, over the few the `mcp` package passes on (PATH, HOME, ...)."""
    cwd: NotRequired[str | Path]
    """Its working directory."""
    encoding: NotRequired[str]
    """The text encoding of the messages; utf-8 by default."""
    encoding_error_handler: NotRequired[Literal["strict", "ignore", "replace"]]
    """What to do with bytes the encoding cannot read."""


class MCPServerStdio(MCPServer[MCPServerStdioParams]):
    """An MCP server run as a subprocess, over its standard input and output.

    `params` holds the command, its args, env and cwd; it is started when connected and
    stopped when closed. Its default name is `stdio: <command>`.
    """

    def _default_name(self, params: MCPServerStdioParams) -> str:
        return f"stdio: {params['command']}"

    def _address(self) -> str:
        return f"command {self.params['command']}"  # not its args, which may hold secrets

    def _transport(self) -> Transport:
        params = self.params
        return stdio_client(
            StdioServerParameters(
                command=params["command"],
                args=params.get("args", []),
                env=params.get("env"),
                cwd=params.get("cwd"),
                encoding=params.get("encoding", "utf-8"),
                encoding_error_handler=params.get("encoding_error_handler", "strict"),
            )
        )


class MCPServerStreamableHttpParams(TypedDict):
    """Where a Streamable HTTP server is, and how to talk to it."""

    url: str
    """The endpoint, e.g. `http://127.0.0.1:8000/mcp`."""
    headers: NotRequired[dict[str, str]]
    """Headers sent with every request (authorization, ...)."""
    timeout: NotRequired[float]
    """Seconds to connect and send; 5 by default."""
    sse_read_timeout: NotRequired[float]
    """Seconds to wait for the next event of a response stream; 300 by default."""
    terminate_on_close: NotRequired[bool]
    """Whether closing ends the session on the server too; True by default."""


class MCPServerStreamableHttp(MCPServer[MCPServerStreamableHttpParams]):
    """An MCP server reached over Streamable HTTP.

    `params` holds the URL, headers and timeouts. Its default name is
    `streamable_http: <url>`.
    """

    def _default_name(self, params: MCPServerStreamableHttpParams) -> str:
        return f"streamable_http: {params['url']}"

    def _address(self) -> str:
        return f"URL {plain_url(self.params['url'])}"

    def _transport(self) -> Transport:
        params = self.params
        url, terminate = params["url"], params.get("terminate_on_close", True)
        return _over_http_client(
            params,
            lambda client: streamable_http_client(
                url, http_client=client, terminate_on_close=terminate
            ),
        )


_Streams = TypeVar("_Streams")


@asynccontextmanager
async def _over_http_client(
    params: MCPServerStreamableHttpParams,
    transport: Callable[[httpx2.AsyncClient], AbstractAsyncContextManager[_Streams]],
) -> AsyncGenerator[_Streams]:
    """`transport`'s streams, over an HTTP client opened and closed with them."""
    timeout = httpx2.Timeout(params.get("timeout", 5), read=params.get("sse_read_timeout", 300))
    http_client = httpx2.AsyncClient(headers=params.get("headers"), timeout=timeout)
    async with http_client, transport(http_client) as streams:
        yield streams


class MCPServerSseParams(TypedDict):
    """Where a server speaking the older HTTP with server-sent events transport is."""

    url: str
    """The SSE endpoint, e.g. `http://127.0.0.1:8000/sse`."""
    headers: NotRequired[dict[str, str]]
    """Headers sent with every request."""
    timeout: NotRequired[float]
    """Seconds for each HTTP operation; 5 by default."""
    sse_read_timeout: NotRequired[float]
    """Seconds to wait for the next event; 300 by default."""


class MCPServerSse(MCPServer[MCPServerSseParams]):
    """An MCP server reached over HTTP with server-sent events (the older transport).

    `params` holds the URL, headers and timeouts. Its default name is `sse: <url>`.
    """

    def _default_name(self, params: MCPServerSseParams) -> str:
        return f"sse: {params['url']}"

    def _address(self) -> str:
        return f"URL {plain_url(self.params['url'])}"

    def _transport(self) -> Transport:
        params = self.params
        return sse_client(
            params["url"],
            headers=params.get("headers"),
            timeout=params.get("timeout", 5),
            sse_read_timeout=params.get("sse_read_timeout", 300),
        )
