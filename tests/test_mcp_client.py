"""MCP servers as toolsets, against a real server (`tests/mcp_test_server.py`) in a subprocess."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import mcp_types
import pytest
from mcp import MCPError

from tooluse import (
    Agent,
    FunctionTool,
    RunConfig,
    Runner,
    ToolOutputFileContent,
    ToolOutputImage,
    ToolOutputText,
    UserError,
    function_tool,
)
from tooluse.cli._main import main
from tooluse.mcp import (
    MCPServer,
    MCPServerSse,
    MCPServerStdio,
    MCPServerStreamableHttp,
    MCPToolError,
    RequireApproval,
    ToolFilterContext,
    create_static_tool_filter,
    server_error_message,
)
from tooluse.mcp._check import _unavailable as unavailable  # pyright: ignore[reportPrivateUsage]
from tooluse.mcp._check import check_servers
from tooluse.mcp._names import model_name
from tooluse.mcp._options import approval_for
from tooluse.mcp._results import error_message, result_output, result_text
from tooluse.mcp._schemas import tool_schema
from tooluse.run._scope import TurnTools
from tooluse.testing import FunctionModel, ModelReply, ToolCall, tool_outputs

from . import preforked
from .conftest import tool_context
from .mcp_test_server import ODD_SCHEMA
from .openai_server import Call, ScriptedServer, Turn

SERVER = Path(__file__).with_name("mcp_test_server.py")


def stdio(**options: Any) -> MCPServerStdio:
    # Forked from a process that has imported `mcp` (tests/preforked.py): a real
    # process over stdio, started in milliseconds.
    return MCPServerStdio(preforked.command(str(SERVER)), **options)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def launch(mode: str, port: int) -> subprocess.Popen[bytes]:
    """The test server over HTTP on `port`, once it listens; a clear failure if it does not."""
    process = subprocess.Popen(
        [sys.executable, str(SERVER), mode, str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    while True:
        if process.poll() is not None:
            _, err = process.communicate()
            pytest.fail(f"the MCP test server ({mode}) exited at start:\n{err.decode()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return process
        except OSError:
            if time.monotonic() > deadline:
                stop(process)
                pytest.fail(f"the MCP test server ({mode}) did not listen on {port} in 30 s")
            time.sleep(0.05)


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:  # pragma: no cover - a server that ignores SIGTERM
        process.kill()
        process.wait()
    assert process.stderr is not None
    process.stderr.close()


def started(mode: str) -> Iterator[str]:
    """The test server over HTTP on a free port: its base URL, until the test module ends."""
    port = free_port()
    process = launch(mode, port)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(process)


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    yield from started("http")


@pytest.fixture(scope="module")
def sse_url() -> Iterator[str]:
    yield from started("sse")


def by_name(tools: Sequence[FunctionTool]) -> dict[str, FunctionTool]:
    return {tool.name: tool for tool in tools}


def text_output(text: str) -> dict[str, str]:
    """A text block's output, as an MCP tool's direct call returns it (openai-agents' form)."""
    return {"type": "text", "text": text}


async def call(tool: FunctionTool, arguments: dict[str, Any] | str) -> tuple[Any, Any]:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    ctx = tool_context(tool.name, text)
    return await tool.on_invoke_tool(ctx, text), ctx.error


def test_importing_tooluse_does_not_import_mcp() -> None:
    code = "import sys, tooluse; print(sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'mcp_types') or m == 'tooluse.mcp'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


async def test_lists_and_calls_tools_over_stdio() -> None:
    async with stdio() as server:
        tools = by_name(await server.list_tools())
        assert set(tools) == {
            "echo", "add", "fail", "slow", "report", "pid", "odd", "nested", "files_read"
        }  # fmt: skip
        assert tools["add"].description == "Add two integers."
        assert tools["add"].strict_json_schema
        assert tools["add"].params_json_schema["additionalProperties"] is False
        assert await call(tools["add"], {"a": 2, "b": 3}) == (text_output("5"), None)
        assert await call(tools["echo"], {"text": "hé"}) == (text_output("hé"), None)


REPORT_PARTS = [
    ToolOutputText(text='{"city": "Oslo", "temperature": 21}'),
    ToolOutputImage(image_url="data:image/png;base64,iVBORw0KGgo="),
    ToolOutputFileContent(
        file_data="data:application/pdf;base64,JVBERi0xLjQK", filename="Oslo.pdf"
    ),
    ToolOutputText(text="[audio: audio/wav, 6 bytes]"),
]
REPORT_DICTS = [
    {key: value for key, value in dataclasses.asdict(part).items() if value is not None}
    for part in REPORT_PARTS
]


async def test_structured_content_an_image_a_file_and_audio() -> None:
    async with stdio() as server:
        report = by_name(await server.list_tools())["report"]
        output, error = await call(report, {"city": "Oslo"})
        assert error is None  # a part a block, the text as the server wrote it, as in openai-agents
        assert output == [text_output("Report for Oslo"), *REPORT_DICTS[1:]]
        server.use_structured_content = True  # read at each call
        output, error = await call(report, {"city": "Oslo"})
    assert error is None
    assert output == REPORT_DICTS


async def test_an_is_error_result_hides_the_servers_message_unless_trusted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with stdio() as server:
        fail = by_name(await server.list_tools())["fail"]
        with caplog.at_level(logging.DEBUG, logger="tooluse"):
            text, error = await call(fail, {"reason": "secret-value"})
        assert text == (
            "Tool 'fail' reported an error; the server's message is hidden, as it may repeat "
            "tool data. Check the arguments against the tool's description before calling it "
            "again."
        )
        assert isinstance(error, MCPToolError)
        assert error.message == "Error executing tool fail"
        assert "returned an error result: Error executing tool fail" in caplog.text
        server.failure_error_function = server_error_message  # read at each call
        text, _ = await call(fail, {"reason": "x"})
        assert text == "Tool 'fail' reported an error: Error executing tool fail"

        def custom(ctx: Any, error: Exception) -> str:
            return f"custom: {type(error).__name__}"

        server.failure_error_function = custom
        assert (await call(fail, {"reason": "x"}))[0] == "custom: MCPToolError"
        server.failure_error_function = None
        with pytest.raises(MCPToolError, match="Error executing tool fail"):
            await call(fail, {"reason": "x"})


async def test_bad_arguments_are_refused_before_the_server_sees_them() -> None:
    async with stdio() as server:
        tools = by_name(await server.list_tools())
        text, error = await call(tools["add"], "{not json")
        assert text == (
            "Tool 'add' was called with invalid arguments:\n"
            "- the arguments are not valid JSON: Expecting property name enclosed in double "
            "quotes at line 1 column 2\nCall 'add' again with corrected arguments."
        )
        assert error is not None
        text, error = await call(tools["add"], "[1]")
        assert "expected a JSON object (the arguments by name), not a JSON array" in text
        assert error is not None
    schema = {"type": "object", "properties": {"d": {"type": "object"}}, "required": ["d"]}
    listed = mcp_types.Tool(name="pairs", input_schema=schema)
    pairs = stdio()._function_tool(listed)  # pyright: ignore[reportPrivateUsage]
    text, error = await call(pairs, {"d": "not pairs"})  # refused before any connection
    assert text == (
        "Tool 'pairs' was called with invalid arguments:\n"
        '- d: expected an array of {"key": ..., "value": ...} objects\n'
        "Call 'pairs' again with corrected arguments."
    )


async def test_a_schema_strict_mode_cannot_express_is_sent_non_strict(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.DEBUG, logger="tooluse"):
        async with stdio() as server:
            odd = by_name(await server.list_tools())["odd"]
            assert await call(odd, {"text": "x", "n": 2}) == (text_output("x:2"), None)
    assert not odd.strict_json_schema
    assert odd.params_json_schema == ODD_SCHEMA
    assert "MCP tool 'odd' is offered non-strict: parameter 'n' (at properties.n) uses 'allOf'" in (
        caplog.text
    )


async def test_optional_keys_are_nullable_and_left_out_when_null() -> None:
    async with stdio() as server:
        nested = by_name(await server.list_tools())["nested"]
        assert nested.strict_json_schema
        options = nested.params_json_schema["properties"]["options"]
        assert options["anyOf"][1] == {"type": "null"}
        full = {"query": "q", "options": {"limit": 2, "lang": "en"}}
        assert (await call(nested, full))[0] == text_output("q [('lang', 'en'), ('limit', 2)]")
        partial = {"query": "q", "options": {"limit": 2, "lang": None}}
        assert (await call(nested, partial))[0] == text_output("q [('limit', 2)]")
        assert (await call(nested, {"query": "q", "options": None}))[0] == text_output("q []")


async def test_filters_by_name_and_by_function() -> None:
    allowed = stdio(tool_filter=create_static_tool_filter(allowed_tool_names=["echo", "add"]))
    blocked = stdio(tool_filter=create_static_tool_filter(blocked_tool_names=["fail", "slow"]))
    seen: list[ToolFilterContext] = []

    async def only_e(context: ToolFilterContext, tool: mcp_types.Tool) -> bool:
        seen.append(context)
        return tool.name.startswith("e")

    by_function = stdio(tool_filter=only_e, name="mine")

    def only_pid(context: ToolFilterContext, tool: mcp_types.Tool) -> bool:
        return tool.name == "pid"

    sync = stdio(tool_filter=only_pid)
    async with allowed, blocked, by_function, sync:
        assert {t.name for t in await allowed.list_tools()} == {"echo", "add"}
        assert {t.name for t in await blocked.list_tools()} == {
            "echo", "add", "report", "pid", "odd", "nested", "files_read"
        }  # fmt: skip
        assert [t.name for t in await by_function.list_tools()] == ["echo"]
        assert [t.name for t in await sync.list_tools()] == ["pid"]
    assert seen[0].server_name == "mine"
    assert create_static_tool_filter() is None


async def test_prefixes_keep_two_servers_tools_apart() -> None:
    async with stdio(tool_name_prefix="a") as a, stdio(tool_name_prefix="b") as b:
        names = [t.name for t in [*await a.list_tools(), *await b.list_tools()]]
        echo = by_name(await b.list_tools())["b_echo"]
        assert await call(echo, {"text": "hi"}) == (text_output("hi"), None)
    assert "a_echo" in names
    assert "b_echo" in names
    assert len(set(names)) == len(names)


async def test_the_tool_list_is_cached_until_invalidated() -> None:
    async with stdio(cache_tools_list=True) as cached, stdio() as fresh:
        first, second = await cached.list_tools(), await cached.list_tools()
        assert first[0] is second[0]
        cached.invalidate_tools_cache()
        assert (await cached.list_tools())[0] is not first[0]
        assert (await fresh.list_tools())[0] is not (await fresh.list_tools())[0]


async def test_a_call_past_the_session_timeout_is_an_error_for_the_model() -> None:
    async with stdio(client_session_timeout_seconds=0.5) as server:
        slow = by_name(await server.list_tools())["slow"]
        text, error = await call(slow, {"seconds": 5})
    assert text == (
        "Tool 'slow' timed out after 0.5 s waiting for its MCP server; it may still finish. "
        "Check its effect before retrying."
    )
    assert error is not None


async def test_a_killed_server_is_an_error_once_then_reconnected() -> None:
    async with stdio() as server:
        tools = by_name(await server.list_tools())
        pid = int((await call(tools["pid"], {}))[0]["text"])
        os.kill(pid, signal.SIGKILL)
        text, error = await call(tools["add"], {"a": 1, "b": 2})
        assert text.startswith("Tool 'add' failed: the connection to its MCP server was lost")
        assert error is not None
        assert await call(tools["add"], {"a": 1, "b": 2}) == (text_output("3"), None)
        new_pid = int((await call(tools["pid"], {}))[0]["text"])
        assert new_pid != pid


async def test_a_server_that_cannot_be_restarted_is_given_up() -> None:
    async with stdio() as server:
        tools = by_name(await server.list_tools())
        pid = int((await call(tools["pid"], {}))[0]["text"])
        server.params = {"command": str(SERVER.with_name("no-such-server"))}
        os.kill(pid, signal.SIGKILL)
        assert "connection to its MCP server was lost" in (await call(tools["add"], {}))[0]
        unavailable = (
            "Tool 'add' could not be run: its MCP server is unavailable. "
            "Do not call its tools again in this conversation."
        )
        assert (await call(tools["add"], {"a": 1, "b": 2}))[0] == unavailable
        assert (await call(tools["add"], {"a": 1, "b": 2}))[0] == unavailable
        with pytest.raises(ConnectionError, match="could not be reconnected"):
            await server.call_tool("add", {"a": 1, "b": 2})
        assert await server.list_tools() == []  # a run goes on without its tools


async def test_a_listing_that_finds_the_server_gone_reconnects() -> None:
    async with stdio() as server:
        tools = by_name(await server.list_tools())
        pid = int((await call(tools["pid"], {}))[0]["text"])
        os.kill(pid, signal.SIGKILL)
        await asyncio.sleep(0.2)
        assert len(await server.list_tools()) == len(tools)


async def test_a_connect_cancelled_midway_leaves_nothing_running() -> None:
    server = stdio()
    connecting = asyncio.create_task(server.connect())
    await asyncio.sleep(0.05)
    connecting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await connecting
    with pytest.raises(UserError, match="is not connected"):
        await server.list_tools()


async def test_unknown_tools_and_protocol_errors() -> None:
    async with stdio() as server:
        result = await server.call_tool("nope", None)
        assert result.is_error
        assert error_message(result) == "Unknown tool: nope"


async def test_a_server_that_is_not_connected_says_how_to_connect() -> None:
    server = stdio()
    with pytest.raises(UserError, match="is not connected: use `async with server:`"):
        await server.list_tools()
    await server.cleanup()  # harmless when not connected


async def test_a_server_that_cannot_start_raises_at_connect() -> None:
    server = MCPServerStdio({"command": str(SERVER.with_name("no-such-server"))})
    with pytest.raises(OSError, match="no-such-server"):
        await server.connect()
    assert server.name == f"stdio: {SERVER.with_name('no-such-server')}"


def test_settings_are_checked() -> None:
    with pytest.raises(UserError, match="client_session_timeout_seconds=-1 must be a positive"):
        stdio(client_session_timeout_seconds=-1)
    with pytest.raises(UserError, match="tool_filter must be create_static_tool_filter"):
        stdio(tool_filter=["echo"])  # pyright: ignore[reportArgumentType]


async def test_streamable_http(http_url: str) -> None:
    server = MCPServerStreamableHttp(
        {"url": f"{http_url}/mcp", "headers": {"X-Test": "1"}, "timeout": 10},
        tool_name_prefix="web",
    )
    assert server.name == f"streamable_http: {http_url}/mcp"
    async with server:
        tools = by_name(await server.list_tools())
        assert await call(tools["web_add"], {"a": 4, "b": 5}) == (text_output("9"), None)
        output, _ = await call(tools["web_report"], {"city": "Rome"})
        assert output[0] == text_output("Report for Rome")


async def test_a_streamable_http_server_restarted_is_reconnected() -> None:
    port = free_port()
    process = launch("http", port)
    try:
        async with MCPServerStreamableHttp({"url": f"http://127.0.0.1:{port}/mcp"}) as server:
            add = by_name(await server.list_tools())["add"]
            assert await call(add, {"a": 1, "b": 2}) == (text_output("3"), None)
            stop(process)
            text, error = await call(add, {"a": 1, "b": 2})
            assert "the connection to its MCP server was lost" in text
            assert error is not None
            process = launch("http", port)
            assert await call(add, {"a": 1, "b": 2}) == (text_output("3"), None)
    finally:
        if process.poll() is None:
            stop(process)


async def test_sse(sse_url: str) -> None:
    server = MCPServerSse({"url": f"{sse_url}/sse"})
    assert server.name == f"sse: {sse_url}/sse"
    async with server:
        tools = by_name(await server.list_tools())
        assert await call(tools["echo"], {"text": "over sse"}) == (text_output("over sse"), None)


@function_tool
def shout(text: str) -> str:
    """Upper-case the text."""
    return text.upper()


async def test_an_agent_calls_mcp_tools_next_to_function_tools() -> None:
    server = stdio(tool_name_prefix="srv")
    offered: list[list[str]] = []

    def reply(items: list[Any], tools: Sequence[Any]) -> ModelReply | str:
        offered.append([tool.name for tool in tools])
        if outputs := tool_outputs(items):
            return " | ".join(outputs)
        return ModelReply(
            tool_calls=[
                ToolCall("srv_add", {"a": 20, "b": 22}),
                ToolCall("shout", {"text": "hi"}),
                ToolCall("srv_fail", {"reason": "x"}),
            ]
        )

    agent = Agent("helper", tools=[shout], mcp_servers=[server], model=FunctionModel(reply))

    def run_wide(ctx: Any, error: Exception) -> str:  # for tools that kept the default
        return f"run-wide: {ctx.tool_name} {type(error).__name__}"

    result = await Runner.run(agent, "go", run_config=RunConfig(failure_error_function=run_wide))
    assert result.final_output == "42 | HI | run-wide: srv_fail MCPToolError"
    assert offered[0][0] == "shout"
    assert "srv_add" in offered[0]
    with pytest.raises(UserError, match="is not connected"):  # the run closed it
        await server.list_tools()


async def test_a_runner_timeout_applies_to_mcp_tools() -> None:
    server = stdio(timeout_seconds=0.3)

    def reply(items: list[Any], tools: Sequence[Any]) -> ModelReply | str:
        outputs = [item["output"] for item in items if item.get("type") == "function_call_output"]
        return outputs[0] if outputs else ModelReply(tool_calls=[ToolCall("slow", {"seconds": 3})])

    result = await Runner.run(Agent("helper", tools=[server], model=FunctionModel(reply)), "go")
    assert result.final_output.startswith("Tool 'slow' timed out after 0.3 s and was stopped")


@pytest.mark.parametrize("api", ["responses", "chat"])
async def test_an_agent_over_the_openai_client(openai_server: ScriptedServer, api: str) -> None:
    report = Call("mcp_report", '{"city": "Oslo"}', "c3")
    openai_server.script(
        Turn(
            calls=[
                Call("mcp_add", '{"a": 1, "b": 2}', "c1"), Call("shout", '{"text": "x"}', "c2"),
                report,
            ]
        ),
        Turn(text="done"),
    )  # fmt: skip
    agent = Agent(
        "helper", tools=[shout], mcp_servers=[stdio(tool_name_prefix="mcp")],
        model=openai_server.model(api),
    )  # fmt: skip
    result = await Runner.run(agent, "go")
    assert result.final_output == "done"
    first, second = (request["body"] for request in openai_server.requests)
    names = [t.get("name") or t["function"]["name"] for t in first["tools"]]
    assert names[0] == "shout"
    assert "mcp_nested" in names
    sent = json.dumps(second)
    assert '"text": "3"' in sent  # a one-part list, as in openai-agents
    assert "X" in sent
    if api == "responses":  # the image and the file as input parts
        (output,) = [
            i["output"] for i in second["input"] if i.get("call_id") == "c3" and "output" in i
        ]
        assert output == [
            {"type": "input_text", "text": "Report for Oslo"},
            {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="},
            {
                "type": "input_file",
                "file_data": "data:application/pdf;base64,JVBERi0xLjQK",
                "filename": "Oslo.pdf",
            },
            {"type": "input_text", "text": "[audio: audio/wav, 6 bytes]"},
        ]
    else:  # a tool message holds text only: a line says what each is
        (content,) = [m["content"] for m in second["messages"] if m.get("tool_call_id") == "c3"]
        assert [part["text"] for part in content] == [
            "Report for Oslo",
            "[image: image/png, 9 bytes]",
            "[file: Oslo.pdf]",
            "[audio: audio/wav, 6 bytes]",
        ]
    assert result.new_items[-2]["output"][1]["type"] == "input_image"  # the run's items too


def test_agent_mcp_servers_join_its_tools() -> None:
    server = stdio()
    other = stdio()
    agent = Agent("a", tools=[shout], mcp_servers=[server])
    assert list(agent.tools) == [shout, server]
    clone = agent.clone(mcp_servers=[other])
    assert list(clone.tools) == [shout, other]
    assert list(agent.clone(tools=[]).tools) == [server]
    assert list(Agent("b", tools=[shout]).tools) == [shout]
    with pytest.raises(UserError, match=r"mcp_servers\[0\] is 'x', not an MCP server"):
        Agent("c", mcp_servers=["x"])  # pyright: ignore[reportArgumentType]
    with pytest.raises(UserError, match="mcp_servers must be a list of MCP servers"):
        Agent("c", mcp_servers=server)  # pyright: ignore[reportArgumentType]
    assert isinstance(server, MCPServer)


@pytest.mark.parametrize(
    "schema",
    [
        None,
        "text",
        {},
        {"type": "string"},
        {"type": "object"},
        {"$ref": "#/$defs/Missing"},
        {"type": "object", "properties": {"a": {"$ref": "#/definitions/Nope"}}},
        {"type": "object", "properties": {"d": {"type": "object"}}},
        {"type": "object", "properties": {"t": {"prefixItems": [{"type": "string"}]}}},
        {"type": "object", "properties": {"x": {"type": "object", "properties": 3}}},
        {"properties": {"a": {"type": "integer", "description": "A."}}},
        {"type": "object", "additionalProperties": True},
    ],
)
def test_no_schema_makes_listing_fail(schema: Any) -> None:
    result = tool_schema("t", schema)
    assert result.params_json_schema["type"] == "object"
    assert result.strict or result.reasons


def test_a_ref_into_a_nested_id_resource_is_offered_non_strict_as_the_server_wrote_it() -> None:
    schema = {
        "type": "object",
        "properties": {"word": {"$ref": "#/$defs/Word"}},
        "$defs": {"Word": {"$id": "https://example.test/word", "type": "string"}},
    }
    result = tool_schema("t", schema)
    assert not result.strict
    assert result.params_json_schema == schema
    assert "nested `$id` resource" in result.reasons[0]


def test_optional_root_keys_keep_their_description() -> None:
    schema = {"properties": {"a": {"type": "integer", "description": "A."}}}
    result = tool_schema("t", schema)
    assert result.params_json_schema["properties"]["a"] == {
        "anyOf": [{"type": "integer"}, {"type": "null"}],
        "description": "A.",
    }
    assert result.adapters is not None
    assert result.adapters.apply({"a": None}) == {}


def test_results_describe_what_is_not_text() -> None:
    blocks: list[Any] = [
        mcp_types.TextContent(type="text", text="hello"),
        mcp_types.AudioContent(type="audio", data="AAAA", mime_type="audio/wav"),
        mcp_types.ResourceLink(
            type="resource_link", name="f", uri="file:///f.txt", mime_type="text/plain"
        ),
        mcp_types.EmbeddedResource(
            type="resource",
            resource=mcp_types.TextResourceContents(uri="file:///a", text="inline text"),
        ),
        mcp_types.EmbeddedResource(
            type="resource",
            resource=mcp_types.BlobResourceContents(uri="file:///b", blob="AAAA"),
        ),
    ]
    text = result_text(mcp_types.CallToolResult(content=blocks))
    assert text.splitlines() == [
        "hello",
        "[audio: audio/wav, 3 bytes]",
        "[resource link: file:///f.txt, text/plain]",
        "inline text",
        "[resource: file:///b]",
    ]
    assert result_output(mcp_types.CallToolResult(content=blocks[:1])) == text_output("hello")
    assert result_output(mcp_types.CallToolResult(content=blocks)) == [
        text_output("hello"),
        text_output("[audio: audio/wav, 3 bytes]"),
        text_output("[resource link: file:///f.txt, text/plain]"),
        text_output("inline text"),
        {"type": "file", "file_data": "data:application/octet-stream;base64,AAAA", "filename": "b"},
    ]
    image = mcp_types.ImageContent(type="image", data="AAAA", mime_type="image/gif")
    assert result_output(mcp_types.CallToolResult(content=[image])) == {
        "type": "image",
        "image_url": "data:image/gif;base64,AAAA",
    }
    assert result_output(mcp_types.CallToolResult(content=[])) == ""


def test_server_error_message_passes_the_servers_words_cut_at_2000() -> None:
    ctx = tool_context("t", "{}")
    assert server_error_message(ctx, MCPToolError("t", "")) == (
        "Tool 't' reported an error without a message."
    )
    assert server_error_message(ctx, MCPToolError("t", "x" * 3000)).endswith("x [...]")
    assert len(server_error_message(ctx, MCPToolError("t", "x" * 3000))) < 2100
    protocol = MCPError(code=-32603, message="db down")
    assert server_error_message(ctx, protocol) == (
        "Tool 't' failed: its MCP server answered: db down"
    )
    assert "internal error (ValueError)" in server_error_message(ctx, ValueError("secret"))


async def test_the_connection_outlives_the_task_that_opened_it() -> None:
    server = stdio()
    await asyncio.create_task(server.connect())
    try:
        tools = by_name(await server.list_tools())
        assert await call(tools["add"], {"a": 1, "b": 1}) == (text_output("2"), None)
    finally:
        await asyncio.create_task(server.cleanup())


async def test_calls_can_wait_for_approval() -> None:
    server = stdio(require_approval={"always": {"tool_names": ["add"]}})

    def reply(items: list[Any], tools: Sequence[Any]) -> ModelReply | str:
        if outputs := tool_outputs(items):
            return " | ".join(outputs)
        return ModelReply(
            tool_calls=[ToolCall("add", {"a": 1, "b": 1}), ToolCall("echo", {"text": "e"})]
        )

    agent = Agent("helper", mcp_servers=[server], model=FunctionModel(reply))
    paused = await Runner.run(agent, "go")
    assert [i.tool_name for i in paused.interruptions] == ["add"]
    state = paused.to_state()
    state.approve(paused.interruptions[0])
    resumed = await Runner.run(agent, state)
    assert resumed.final_output == "2 | e"


def test_require_approval_forms() -> None:
    assert approval_for(None, "a") is False
    assert approval_for(True, "a") is True
    assert approval_for("always", "a") is True
    assert approval_for("never", "a") is False
    assert approval_for({"a": "always", "b": "never"}, "a") is True
    assert approval_for({"a": "always", "b": "never"}, "b") is False
    assert approval_for({"a": "always"}, "c") is False
    per_list: RequireApproval = {
        "always": {"tool_names": ["x"]},
        "never": {"tool_names": ["y"]},
    }
    assert (approval_for(per_list, "x"), approval_for(per_list, "y")) == (True, False)
    for bad in ("sometimes", {"a": "maybe"}, {"always": ["x"]}, {1: "always"}, 3):
        with pytest.raises(UserError, match=r"require_approval=.* must be 'always', 'never'"):
            stdio(require_approval=bad)  # pyright: ignore[reportArgumentType]


def test_without_the_mcp_package_the_import_error_says_what_to_install() -> None:
    code = (
        "import sys\n"
        "sys.modules['mcp'] = None\n"
        "try:\n"
        "    import tooluse.mcp\n"
        "except ImportError as error:\n"
        "    print(error)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "tooluse.mcp needs the mcp package: pip install 'tooluse[mcp]'"


def test_tool_names_the_api_refuses_are_rewritten() -> None:
    assert model_name("files.read") == "files_read"
    assert model_name("github/search issues") == "github_search_issues"
    assert model_name("ok-name_1") == "ok-name_1"
    long_a, long_b = "a" * 70, "a" * 69 + "b"
    cut_a, cut_b = model_name(long_a), model_name(long_b)
    assert len(cut_a) == len(cut_b) == 64
    assert cut_a != cut_b
    assert cut_a == model_name(long_a)  # stable from run to run
    assert cut_a.startswith("a" * 55 + "_")


async def test_a_renamed_tool_calls_the_server_by_its_own_name(
    http_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    only = create_static_tool_filter(allowed_tool_names=["files.read"])  # the server's name
    server = MCPServerStreamableHttp(
        {"url": f"{http_url}/mcp"}, tool_filter=only, tool_name_prefix="my.disk"
    )
    with caplog.at_level(logging.DEBUG, logger="tooluse"):
        async with server:
            [tool] = await server.list_tools()
            assert tool.name == "my_disk_files_read"
            assert await call(tool, {"path": "a.txt"}) == (text_output("contents of a.txt"), None)
    assert "tool 'my.disk_files.read' is offered as 'my_disk_files_read'" in caplog.text


def cached(name: str, *tool_names: str, **options: Any) -> MCPServerStdio:
    """A server whose tool list is already fetched: listing it needs no connection."""
    server = stdio(cache_tools_list=True, name=name, **options)
    schema: dict[str, Any] = {"type": "object", "properties": {}}
    server._listed = [mcp_types.Tool(name=n, input_schema=schema) for n in tool_names]  # pyright: ignore[reportPrivateUsage]
    return server


async def test_two_tools_offered_under_one_name_are_refused() -> None:
    with pytest.raises(UserError) as caught:
        await cached("disk", "files.read", "files_read", "ok").list_tools()
    assert str(caught.value) == (
        "MCP server 'disk' has tools the model could not tell apart (names the API refuses are "
        "rewritten: other characters than letters, digits, '_' and '-' become '_', and names "
        "past 64 characters are cut):\n"
        "  - 'files.read' and 'files_read' would both be offered as 'files_read'\n"
        "Offer one of each only, e.g. tool_filter=create_static_tool_filter("
        "blocked_tool_names=['files.read'])"
    )
    blocked = create_static_tool_filter(blocked_tool_names=["files.read"])
    kept = await cached("disk", "files.read", "files_read", tool_filter=blocked).list_tools()
    assert [tool.name for tool in kept] == ["files_read"]
    twice = await cached("odd", "same", "same").list_tools()  # the run's own check refuses it
    assert [tool.name for tool in twice] == ["same", "same"]


async def test_two_servers_tools_of_one_name_are_refused_naming_both() -> None:
    a, b = cached("a", "search"), cached("b", "search")
    tools: list[Any] = [*await a.list_tools(), *await b.list_tools()]
    with pytest.raises(UserError) as caught:
        TurnTools.index(Agent("helper"), tools, [])
    assert str(caught.value) == (
        "Agent 'helper' offers more than one tool named 'search' (tool 'search' of MCP server "
        "'a', tool 'search' of MCP server 'b'): rename one (function_tool(name_override=...)), "
        "give each MCP server its own tool_name_prefix, or wrap a toolset in PrefixedToolset"
    )


def test_check_reports_how_each_mcp_tool_is_sent(
    http_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module = tmp_path / "agents_with_mcp.py"
    module.write_text(
        "from tooluse import Agent, function_tool\n"
        "from tooluse.mcp import MCPServerStdio, MCPServerStreamableHttp, create_static_tool_filter\n"
        'only = create_static_tool_filter(allowed_tool_names=["add", "odd", "nested", "files.read"])\n'
        f'web = MCPServerStreamableHttp({{"url": "{http_url}/mcp"}}, tool_name_prefix="web",\n'
        '                               tool_filter=only, name="web")\n'
        "@function_tool\n"
        "def shout(text: str) -> str:\n"
        '    """Upper-case the text.\n\n    Args:\n        text: The text.\n    """\n'
        "    return text.upper()\n"
        'agent = Agent("helper", tools=[shout], mcp_servers=[web])\n'
        '@function_tool(name_override="web_add")\n'
        "def add_here(a: int, b: int) -> int:\n"
        '    """Add.\n\n    Args:\n        a: A.\n        b: B.\n    """\n'
        "    return a + b\n"
        'clash = Agent("clash", tools=[add_here], mcp_servers=[web])\n'
        f'gone = MCPServerStdio({{"command": "{tmp_path / "no-such-server"}"}}, name="gone")\n'
    )
    assert main(["check", str(module)]) == 1  # a clash in the agent 'clash'
    lines = [line.removeprefix(f"{module}: ") for line in capsys.readouterr().out.splitlines()]
    web = "from MCP server 'web'"
    assert lines == [
        f"web_add: info: {web}: sent strict: its schema fits strict mode [mcp-strict]",
        f"web_files_read: info: {web}: sent strict: its schema fits strict mode [mcp-strict]",
        f"web_files_read: info: {web}: offered as 'web_files_read', as the API refuses the name "
        "'web_files.read'; the server is still called 'files.read' [mcp-renamed]",
        f"web_odd: warning: {web}: sent non-strict: parameter 'n' (at properties.n) uses 'allOf', "
        "which strict mode cannot express; simplify the type, or turn strict mode off (sent "
        "non-strict); the model's arguments are not held to the schema [mcp-non-strict]",
        f"web_nested: info: {web}: sent strict after rewrites undone on the arguments before "
        "they reach the server: optional keys made nullable, and left out when null [mcp-strict]",
        "gone: warning: MCP server 'gone' could not be checked: FileNotFoundError: [Errno 2] No "
        f"such file or directory: '{tmp_path / 'no-such-server'}' [mcp-unavailable]",
        "web_add: error: agent 'clash' is offered 2 tools of this name, from a function tool, "
        "MCP server 'web'; the model cannot tell them apart: give each MCP server its own "
        "tool_name_prefix, or rename the function tool (name_override='...') [duplicate-name]",
        "tooluse check: 1 error, 2 warnings in 6 tools from 1 file",
    ]
    assert main(["check", "--no-mcp", str(module)]) == 0
    assert capsys.readouterr().out == "tooluse check: 0 errors, 0 warnings in 2 tools from 1 file\n"
    with monkeypatch.context() as patched:  # a module with servers imported tooluse.mcp: not here
        patched.delitem(sys.modules, "tooluse.mcp._client")
        assert main(["check", str(module)]) == 0
    assert capsys.readouterr().out.endswith("0 warnings in 2 tools from 1 file\n")


def test_check_says_why_a_server_could_not_be_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    clashing = cached("disk", "files.read", "files_read")

    async def connected_already() -> None:
        pass

    monkeypatch.setattr(clashing, "connect", connected_already)
    [(findings, names)] = check_servers([(clashing, None)])
    assert (names, [(f.code, f.severity, f.tool) for f in findings]) == (
        [], [("mcp-tool-names", "error", "disk")]
    )  # fmt: skip
    assert findings[0].message.startswith("MCP server 'disk' has tools the model could not tell")

    class Group(Exception):  # as anyio's task groups wrap the error (ExceptionGroup on 3.11+)
        exceptions = (ConnectionError("refused"),)

    assert unavailable(Group("unhandled errors in a TaskGroup")) == "ConnectionError: refused"
    assert unavailable(asyncio.TimeoutError()) == "it did not answer within 30 s"
    assert unavailable(OSError()) == "OSError"
