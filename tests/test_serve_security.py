"""Who can reach `serve` over HTTP: Host and Origin allow-lists, a bearer token, and a
refusal to listen beyond loopback without one; an unknown tool's name echoed cut short.

The servers are real: `serve(...)` in this process, listening on loopback addresses
(127.0.0.2 stands for an address other than the one a request names), and `tooluse
serve` as a subprocess, read with the `mcp` client and with plain HTTP requests.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import subprocess
import sys
import threading
from collections.abc import AsyncGenerator, Generator
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client

from tooluse import function_tool
from tooluse.exceptions import UserError
from tooluse.mcp import serve, tool_server
from tooluse.mcp._server import listening_socket

ROOT = Path(__file__).resolve().parent.parent
WEATHER = str(ROOT / "examples" / "weather.py")
SCRIPT = Path(sys.executable).with_name("tooluse")
START_SECONDS = 30
TOKEN = "s3cret-token-for-tests"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}

calls: list[int] = []


@function_tool
def record(n: int) -> str:
    """Record a number.

    Args:
        n: The number.
    """
    calls.append(n)
    return f"recorded {n}"


def free_port(host: str) -> int:
    with listening_socket(host, 0) as sock:
        port: int = sock.getsockname()[1]
    return port


@contextlib.asynccontextmanager
async def serving(host: str = "127.0.0.1", **options: object) -> AsyncGenerator[str]:
    """`serve([record], transport="http")` running in this process; yields its URL."""
    port = free_port(host)
    task = asyncio.ensure_future(
        serve([record], transport="http", host=host, port=port, **options)  # type: ignore[arg-type]
    )
    url = f"http://{host}:{port}/mcp"
    try:
        http = httpx2.AsyncClient()  # `async with ... as` loses its type
        async with http:
            for _ in range(500):  # until it answers
                if task.done():
                    task.result()  # it failed to start: say why
                try:
                    await http.get(url.replace("/mcp", "/"), timeout=1)
                    break
                except httpx2.TransportError:
                    await asyncio.sleep(0.01)
        yield url
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def post(url: str, headers: dict[str, str] | None = None) -> httpx2.Response:
    http = httpx2.AsyncClient()
    async with http:
        return await http.post(url, json=INITIALIZE, headers={**MCP_HEADERS, **(headers or {})})


async def call_record(url: str, n: int, headers: dict[str, str] | None = None) -> str:
    http = httpx2.AsyncClient(headers=headers or {})
    async with http, Client(streamable_http_client(url, http_client=http)) as client:
        result = await client.call_tool("record", {"n": n})
    content = result.content[0]
    assert isinstance(content, types.TextContent)
    return content.text


async def test_with_a_token_only_requests_that_carry_it_reach_the_tools() -> None:
    calls.clear()
    async with serving(token=TOKEN) as url:
        missing = await post(url)
        wrong = await post(url, {"Authorization": "Bearer not-the-token"})
        bare = await post(url, {"Authorization": TOKEN})
        right = await post(url, {"Authorization": f"Bearer {TOKEN}"})
        with pytest.raises(Exception):  # noqa: B017,PT011 - the client's error, whatever its type
            await call_record(url, 1)
        answered = await call_record(url, 2, {"Authorization": f"Bearer {TOKEN}"})
    assert [missing.status_code, wrong.status_code, bare.status_code] == [401, 401, 401]
    assert missing.headers["www-authenticate"] == "Bearer"
    assert right.status_code == 200
    assert answered == "recorded 2"
    assert calls == [2]  # the call without the token never ran


async def test_host_and_origin_must_name_the_bound_address_or_loopback() -> None:
    async with serving("127.0.0.2") as url:
        port = url.split(":")[2].split("/")[0]
        as_bound = await post(url)
        as_localhost = await post(url, {"Host": f"localhost:{port}"})
        rebound = await post(url, {"Host": f"attacker.example:{port}"})
        other_address = await post(url, {"Host": f"127.0.0.3:{port}"})
        good_origin = await post(url, {"Origin": f"http://localhost:{port}"})
        bad_origin = await post(url, {"Origin": "http://attacker.example"})
        null_origin = await post(url, {"Origin": "null"})
    assert [as_bound.status_code, as_localhost.status_code, good_origin.status_code] == [200] * 3
    assert [rebound.status_code, other_address.status_code] == [421, 421]
    assert [bad_origin.status_code, null_origin.status_code] == [403, 403]


async def test_more_host_names_are_allowed_when_named() -> None:
    async with serving(allowed_hosts=["tools.example"]) as url:
        port = url.split(":")[2].split("/")[0]
        named = await post(url, {"Host": f"tools.example:{port}"})
        unnamed = await post(url, {"Host": f"other.example:{port}"})
    assert (named.status_code, unnamed.status_code) == (200, 421)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "tools.example"])
async def test_serve_refuses_to_listen_beyond_loopback_without_a_token(host: str) -> None:
    with pytest.raises(UserError, match="allow_unauthenticated=True") as refused:
        # Bounded: a server that listens instead of refusing fails the test, not hangs it.
        await asyncio.wait_for(serve([record], transport="http", host=host, port=0), 5)
    assert "token" in str(refused.value)


async def test_http_options_are_refused_for_stdio() -> None:
    with pytest.raises(UserError, match="transport='http' only"):
        await serve([record], transport="stdio", token=TOKEN)


@contextlib.contextmanager
def cli_server(*options: str, env: dict[str, str] | None = None) -> Generator[str]:
    """`tooluse serve examples/weather.py --transport http --port 0 ...`; yields its URL."""
    command = [str(SCRIPT), "serve", WEATHER, "--transport", "http", "--port", "0", *options]
    environ = {**os.environ, **(env or {})}
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=environ)
    killer = threading.Timer(START_SECONDS, process.kill)
    killer.start()
    assert process.stderr is not None
    printed: list[str] = []
    drain = threading.Thread(target=printed.extend, args=(process.stderr,))
    try:
        for line in process.stderr:
            printed.append(line)
            found = re.search(r"serving MCP on (http://\S+)", line)
            if found:
                killer.cancel()
                drain.start()
                yield found[1]
                break
        else:
            pytest.fail(f"tooluse serve exited ({process.wait()}): {''.join(printed)}")
    finally:
        killer.cancel()
        process.terminate()
        process.wait(timeout=10)
        if drain.is_alive():
            drain.join()
        process.stderr.close()


async def test_the_command_reads_its_token_from_the_environment() -> None:
    with cli_server(env={"TOOLUSE_SERVE_TOKEN": TOKEN}) as url:
        without = await post(url)
        with_it = await post(url, {"Authorization": f"Bearer {TOKEN}"})
    assert (without.status_code, with_it.status_code) == (401, 200)


async def test_the_command_takes_a_token_flag_and_more_hosts() -> None:
    with cli_server("--token", TOKEN, "--allow-host", "tools.example") as url:
        port = url.split(":")[2].split("/")[0]
        named = await post(
            url, {"Authorization": f"Bearer {TOKEN}", "Host": f"tools.example:{port}"}
        )
        without = await post(url, {"Host": f"tools.example:{port}"})
        with anyio.fail_after(START_SECONDS):
            http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"})
            async with http, Client(streamable_http_client(url, http_client=http)) as client:
                listed = await client.list_tools()
    assert (named.status_code, without.status_code) == (200, 401)
    assert "fetch_weather" in {tool.name for tool in listed.tools}


def test_the_command_refuses_a_public_address_without_a_token() -> None:
    command = [str(SCRIPT), "serve", WEATHER, "--transport", "http", "--host", "0.0.0.0"]
    environ = {k: v for k, v in os.environ.items() if k != "TOOLUSE_SERVE_TOKEN"}
    done = subprocess.run(
        command, check=False, capture_output=True, text=True, timeout=60, env=environ
    )
    assert done.returncode != 0
    assert "--allow-unauthenticated" in done.stderr
    assert "TOOLUSE_SERVE_TOKEN" in done.stderr
    assert "serving MCP" not in done.stderr  # it never listened


async def test_an_unknown_tool_name_is_echoed_cut_short() -> None:
    name = "x" * 100_000
    async with Client(tool_server([record])) as client:
        result = await client.call_tool(name, {})
    content = result.content[0]
    assert isinstance(content, types.TextContent)
    assert result.is_error
    assert "x" * 100 + "..." in content.text
    assert "x" * 101 not in content.text
    assert len(content.text) < 300
