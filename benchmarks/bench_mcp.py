"""What tooluse's MCP client adds to a tool call, over the `mcp` package's own client.

Run with:
    pip install -e '.[bench,mcp]' && python benchmarks/bench_mcp.py

One MCP server (`_mcp_server.py`, the `mcp` package's `MCPServer`, formerly FastMCP, with
one trivial tool `echo`) runs as a subprocess, over stdio and over streamable HTTP on
127.0.0.1. Each is called three ways: with the bare `mcp` client (`ClientSession.call_tool`,
the result's text read back; `Client.call_tool` printed too); through tooluse, as a run
calls it (the `FunctionTool` that `MCPServerStdio.list_tools()` offers, its
`on_invoke_tool(ctx, arguments_json)` with a `ToolContext`); and, printed for reference,
through openai-agents' `MCPServerStdio` tool the same way (skipped if it cannot connect).
Every session is connected and its tools listed once, outside the timing; each side is
warmed and all sides must return the same text before a ratio is printed; then the sides
are called in turn, one call each (who goes first rotating), and each side's median call
is kept. The figures are tooluse / the bare `ClientSession` call (target <= 1.1, issue
#15), over stdio and over HTTP. `--quick`: 300 calls a side instead of 3,000; `--json
PATH`: also write the ratios.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx2
from _common import Results, arguments, verdict, warm
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from tooluse import FunctionTool, ToolContext
from tooluse.mcp import MCPServerStdio, MCPServerStreamableHttp

SERVER = Path(__file__).with_name("_mcp_server.py")
TEXT = "hello"
ARGUMENTS = json.dumps({"text": TEXT})
TARGET = 1.1

Runner = Callable[[], Awaitable[Any]]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def http_server() -> Any:
    """The server over streamable HTTP on a free port: its URL, once it listens."""
    port = free_port()
    command = [sys.executable, str(SERVER), "http", str(port)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("the benchmark's MCP server did not start over HTTP") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


def stdio_params() -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=[str(SERVER)])


async def bare_client(stack: AsyncExitStack, transport: Any, *, session: bool) -> Runner:
    """The `mcp` package's own client over `transport`, connected and its tools listed.

    `Client` negotiates the protocol version as tooluse's connection does (a 2026-era
    server is not sent the legacy handshake); its `ClientSession`'s `call_tool` is the
    bare call (`session=True`), `Client.call_tool` the one it wraps.
    """
    client = await stack.enter_async_context(Client(transport))
    await client.list_tools()
    call_tool = client.session.call_tool if session else client.call_tool

    async def call() -> Any:
        result = await call_tool("echo", {"text": TEXT})
        return result.content[0].text  # pyright: ignore[reportAttributeAccessIssue]

    return call


async def tooluse_tool(stack: AsyncExitStack, server: Any) -> Runner:
    """tooluse's tool for `echo`, invoked as a run invokes it."""
    await stack.enter_async_context(server)
    tools: list[FunctionTool] = await server.list_tools()
    tool = next(t for t in tools if t.name == "echo")
    ctx = ToolContext(context=None, tool_name="echo", tool_call_id="c1", tool_arguments=ARGUMENTS)

    async def call() -> Any:
        output = await tool.on_invoke_tool(ctx, ARGUMENTS)
        return output["text"] if isinstance(output, dict) else output  # its one text block

    return call


async def agents_tool(stack: AsyncExitStack) -> Runner | None:
    """openai-agents' tool for `echo` over stdio, or None if it cannot run on this `mcp`."""
    try:
        from agents import Agent
        from agents.mcp import MCPServerStdio as AgentsStdio
        from agents.tool_context import ToolContext as AgentsToolContext

        server = AgentsStdio({"command": sys.executable, "args": [str(SERVER)]})
        await stack.enter_async_context(server)
        agent = Agent(name="bench")
        listed = await agents_mcp_tools(server, agent)
        tool = next(t for t in listed if t.name == "echo")
        ctx = AgentsToolContext(
            context=None, tool_name="echo", tool_call_id="c1", tool_arguments=ARGUMENTS
        )
        await tool.on_invoke_tool(ctx, ARGUMENTS)
    except Exception as error:  # a peer that does not run on this mcp version is skipped
        print(f"  (openai-agents' MCPServerStdio skipped: {type(error).__name__}: {error})")
        return None

    async def call() -> Any:
        output = await tool.on_invoke_tool(ctx, ARGUMENTS)
        return output["text"] if isinstance(output, dict) else output  # its one text block

    return call


async def agents_mcp_tools(server: Any, agent: Any) -> list[Any]:
    from agents import RunContextWrapper
    from agents.mcp import MCPUtil

    return await MCPUtil.get_function_tools(
        server, convert_schemas_to_strict=False, run_context=RunContextWrapper(None), agent=agent
    )


async def interleaved(runners: dict[str, Runner], calls: int) -> dict[str, float]:
    """Warm and check every side, then call them in turn, one call each; each side's median.

    A call takes a millisecond or two, most of it waiting for the server: one call per
    side per round, and the median of thousands, keeps a neighbour's burst of load from
    falling on one side only.
    """
    await warm(runners)
    samples: dict[str, list[float]] = {name: [] for name in runners}
    clock = time.perf_counter
    names = list(runners)
    for index in range(calls):
        shift = index % len(names)  # each side goes first as often: no place in line favoured
        for name in names[shift:] + names[:shift]:
            start = clock()
            await runners[name]()
            samples[name].append(clock() - start)
    return {name: statistics.median(values) for name, values in samples.items()}


def show(title: str, medians: dict[str, float]) -> float:
    bare = medians["mcp ClientSession"]
    print(title)
    for name, seconds in medians.items():
        print(f"  {name:<22} {seconds * 1e6:9.1f}us  {seconds / bare:5.3f}x the ClientSession")
    return medians["tooluse"] / bare


async def measure(transport: str, calls: int, url: str | None) -> dict[str, float]:
    """Each side on a connection of its own (over stdio, a server process of its own too),
    so that no side's call finds a server another side has just woken."""
    async with AsyncExitStack() as stack:
        runners: dict[str, Runner] = {}
        if transport == "stdio":
            for name, session in (("mcp ClientSession", True), ("mcp Client", False)):
                bare = stdio_client(stdio_params())
                runners[name] = await bare_client(stack, bare, session=session)
            server: Any = MCPServerStdio({"command": sys.executable, "args": [str(SERVER)]})
        else:
            assert url is not None
            for name, session in (("mcp ClientSession", True), ("mcp Client", False)):
                http = await stack.enter_async_context(httpx2.AsyncClient())
                bare = streamable_http_client(url, http_client=http)
                runners[name] = await bare_client(stack, bare, session=session)
            server = MCPServerStreamableHttp({"url": url})
        runners["tooluse"] = await tooluse_tool(stack, server)
        if transport == "stdio":
            peer = await agents_tool(stack)
            if peer is not None:
                runners["openai-agents"] = peer
        return await interleaved(runners, calls)


async def main() -> None:
    args = arguments(__doc__ or "")
    calls = 300 if args.quick else 3000
    results = Results()
    stdio = await measure("stdio", calls, None)
    ratio = show(f"MCP tool call over stdio (median of {calls} calls each, in turn):", stdio)
    print(f"  tooluse/mcp client = {ratio:.3f}  {verdict(ratio, TARGET)}")
    results.ratio("MCP tool call, tooluse/mcp client", ratio, TARGET)
    if "openai-agents" in stdio:
        results.ratio(
            "MCP tool call, tooluse/openai-agents", stdio["tooluse"] / stdio["openai-agents"]
        )
    with http_server() as url:
        http = await measure("http", calls, url)
    ratio = show(
        f"MCP tool call over streamable HTTP (median of {calls} calls each, in turn):", http
    )
    print(f"  tooluse/mcp client = {ratio:.3f}  {verdict(ratio, TARGET)}")
    results.ratio("MCP tool call over HTTP, tooluse/mcp client", ratio, TARGET)
    results.write(args.json)


if __name__ == "__main__":
    asyncio.run(main())
