"""What `tooluse check` says of MCP servers: each is connected to, and each of its tools reported.

For each tool the agent would be offered (after the server's filter and prefix):
whether its schema is sent strict, and why (`ToolSchema.why`), as an `mcp-strict`
note or an `mcp-non-strict` warning; and, when the server's name is one the API
refuses, the name it is offered under (`mcp-renamed`, a note). A server that
cannot be reached, or does not answer within `CHECK_SECONDS`, is an
`mcp-unavailable` warning with the error; two of its tools offered under one
name are an `mcp-tool-names` error (a run would fail on them), as are two tools
of one name among an agent's function tools and its servers' (`duplicate-name`).
The servers are checked at once, each connected only for the check.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

from ..core._agent_base import AgentBase
from ..exceptions import MCPServerError, UserError
from ..schema._lints import Finding
from ..tools._function_tool import FunctionTool
from ._client import MCPServer, ServerToolInvoker

__all__ = ["CHECK_SECONDS", "ServerCheck", "check_servers"]

CHECK_SECONDS = 30.0
"""How long a server may take to start and list its tools before it counts as unavailable."""

ServerCheck = tuple[list[Finding], list[str]]
"""The findings about one server and the names its tools are offered under."""


def check_servers(
    servers: Sequence[tuple[MCPServer[Any], AgentBase | None]],
) -> list[ServerCheck]:
    """Connect to each server, list its tools, and say how each is sent.

    Args:
        servers: Each server, with the agent that lists it (for a filter function) or None.

    Returns:
        Per server, in order: its findings and the names of the tools checked.
    """

    async def all_at_once() -> list[ServerCheck]:
        return list(await asyncio.gather(*(_check(server, agent) for server, agent in servers)))

    # An event loop in a thread of its own: a caller inside an event loop can check too.
    with ThreadPoolExecutor(1, thread_name_prefix="tooluse-check") as pool:
        return pool.submit(asyncio.run, all_at_once()).result()


async def _check(server: MCPServer[Any], agent: AgentBase | None) -> ServerCheck:
    try:
        tools = await asyncio.wait_for(_listed(server, agent), CHECK_SECONDS)
    except UserError as error:  # tools the model could not tell apart
        return [Finding("mcp-tool-names", "error", server.name, _one_line(error))], []
    except Exception as error:  # it cannot be started, reached, or listed: say so and go on
        problem = _unavailable(error)
        message = f"MCP server {server.name!r} could not be checked: {problem}"
        return [Finding("mcp-unavailable", "warning", server.name, message)], []
    findings = [finding for tool in tools for finding in _tool_findings(server, tool)]
    return findings, [tool.name for tool in tools]


async def _listed(server: MCPServer[Any], agent: AgentBase | None) -> list[FunctionTool]:
    # connect(), not `async with`: what stopped the server from starting is shown as it is,
    # in the developer's own terminal.
    await server.connect()
    try:
        return await server.list_tools(None, agent)
    finally:
        await server.cleanup()


def _tool_findings(server: MCPServer[Any], tool: FunctionTool) -> list[Finding]:
    invoker = tool.on_invoke_tool
    if not isinstance(invoker, ServerToolInvoker):  # pragma: no cover - a server lists its own
        return []
    where = f"from MCP server {server.name!r}"
    why = invoker.schema.why
    findings = [
        Finding("mcp-strict", "info", tool.name, f"{where}: {why}")
        if invoker.schema.strict
        else Finding(
            "mcp-non-strict",
            "warning",
            tool.name,
            f"{where}: {why}; the model's arguments are not held to the schema",
        )
    ]
    prefix = server.tool_name_prefix
    given = f"{prefix}_{invoker.tool_name}" if prefix else invoker.tool_name
    if tool.name != given:
        findings.append(
            Finding(
                "mcp-renamed",
                "info",
                tool.name,
                f"{where}: offered as {tool.name!r}, as the API refuses the name {given!r}; "
                f"the server is still called {invoker.tool_name!r}",
            )
        )
    return findings


def _unavailable(error: BaseException) -> str:
    """`ConnectionError: ...` of the error, or of the one error a group holds."""
    while (inner := _only_error(error)) is not None:
        error = inner  # anyio's task groups wrap errors in groups
    if isinstance(error, (TimeoutError, asyncio.TimeoutError)):
        return f"it did not answer within {CHECK_SECONDS:g} s"
    if isinstance(error, MCPServerError):
        return f"it {error.problem}"
    text = _one_line(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _only_error(error: BaseException) -> BaseException | None:
    """The one error in a group of one (an exception group's `exceptions`), else None."""
    inner: object = getattr(error, "exceptions", None)
    if not isinstance(inner, tuple):
        return None
    held = cast("tuple[object, ...]", inner)  # true of any tuple
    return held[0] if len(held) == 1 and isinstance(held[0], BaseException) else None


def _one_line(error: BaseException) -> str:
    return " ".join(line.strip() for line in str(error).splitlines() if line.strip())
