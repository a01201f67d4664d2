"""Serving tooluse tools over MCP: `tooluse serve` as a real process, and `tool_server`.

`tooluse serve examples/weather.py faulty.py` runs as a subprocess, driven by the `mcp`
package's own client over stdio and over streamable HTTP on 127.0.0.1 (a free port,
which the server prints). Both see the same things: the natural schemas, each tool's
answer, value-free errors, `ModelRetry` messages as written, a timeout, and the MCP
request id as the call id. The in-process tests connect the `mcp` client to the server
object `tool_server` builds.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import socket
import subprocess
import sys
import textwrap
import threading
from collections.abc import AsyncGenerator, Generator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters, types
from mcp.client.stdio import stdio_client

from tooluse import (
    Agent,
    FunctionTool,
    ModelRetry,
    RunContextWrapper,
    Runner,
    ToolContext,
    ToolOutput,
    ToolOutputFileContent,
    ToolOutputImage,
    ToolOutputText,
    function_tool,
)
from tooluse.cli._loading import import_location, module_tools
from tooluse.cli._main import main
from tooluse.exceptions import UserError
from tooluse.mcp import _server  # pyright: ignore[reportPrivateUsage]
from tooluse.mcp._server import listening_socket, serve, tool_server
from tooluse.testing import TestModel

ROOT = Path(__file__).resolve().parent.parent
WEATHER = str(ROOT / "examples" / "weather.py")
SCRIPT = Path(sys.executable).with_name("tooluse")  # the console script, as pip installs it
START_SECONDS = 30  # a server that has not answered by then is reported with its stderr

FAULTY = '''
"""Tools that fail in each way a served tool can."""

import asyncio
from typing import Any

from tooluse import ModelRetry, ToolContext, function_tool


@function_tool
def explode(secret: str) -> str:
    """Fail with the argument in the exception's message.

    Args:
        secret: A value that must not reach the client.
    """
    raise RuntimeError(f"cannot use {secret}")


@function_tool
def picky(number: int) -> str:
    """Ask for another number.

    Args:
        number: Any number.
    """
    raise ModelRetry(f"Use a number below 10, not {number}.")


@function_tool(timeout=0.2)
async def slow() -> str:
    """Take longer than the timeout."""
    await asyncio.sleep(30)
    return "too late"


@function_tool(mcp_annotations={"readOnlyHint": True, "title": "Who am I"})
def whoami(ctx: ToolContext[Any]) -> str:
    """Say the id of this call."""
    return ctx.tool_call_id
'''

NAMES = ["fetch_weather", "fetch_data", "explode", "picky", "slow", "whoami"]
HIDDEN = (
    "Tool 'explode' failed with an internal error (RuntimeError); its details are hidden. "
    "Do not retry the same call unchanged."
)
TIMED_OUT = (
    "Tool 'slow' timed out after 0.2 s and was stopped. Try a smaller request, or another approach."
)


@pytest.fixture(scope="module")
def faulty(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("served") / "faulty_tools.py"
    path.write_text(FAULTY)
    return path


def text_of(result: types.CallToolResult) -> str:
    [block] = result.content
    assert isinstance(block, types.TextContent)
    return block.text


def natural_schemas() -> dict[str, dict[str, Any]]:
    tools = module_tools(import_location(WEATHER))
    return {tool.name: tool.with_strict_mode(False).params_json_schema for tool in tools}


async def check_served_tools(client: Client) -> None:
    """What every transport shows: the schemas, the answers and each kind of failure."""
    listed = (await client.list_tools()).tools
    assert [tool.name for tool in listed] == NAMES
    by_name = {tool.name: tool for tool in listed}
    for name, schema in natural_schemas().items():
        assert by_name[name].input_schema == schema
    assert by_name["fetch_data"].input_schema["required"] == ["path"]  # not strict's all-required
    assert by_name["fetch_weather"].description == "Fetch the weather for a given location."
    assert by_name["whoami"].annotations == types.ToolAnnotations(
        read_only_hint=True, title="Who am I"
    )
    assert by_name["fetch_weather"].annotations is None

    weather = await client.call_tool("fetch_weather", {"location": {"lat": 1, "long": 2}})
    assert (text_of(weather), weather.is_error) == ("Sunny at 1.00, 2.00", False)
    data = await client.call_tool("fetch_data", {"path": "notes.txt"})  # `directory` left out
    assert (text_of(data), data.is_error) == ("(contents of ./notes.txt)", False)

    bad = await client.call_tool("fetch_weather", {"location": {"lat": "secret-42", "long": 2}})
    assert bad.is_error
    assert "Tool 'fetch_weather' was called with invalid arguments:" in text_of(bad)
    assert "location.lat" in text_of(bad)
    assert "secret-42" not in text_of(bad)

    exploded = await client.call_tool("explode", {"secret": "hunter2"})
    assert (text_of(exploded), exploded.is_error) == (HIDDEN, True)
    retry = await client.call_tool("picky", {"number": 12})
    assert (text_of(retry), retry.is_error) == ("Use a number below 10, not 12.", True)
    late = await client.call_tool("slow", {})
    assert (text_of(late), late.is_error) == (TIMED_OUT, True)

    first, second = [text_of(await client.call_tool("whoami", {})) for _ in range(2)]
    assert first not in {"", "None"}
    assert first != second  # each call has its own request id


@contextlib.contextmanager
def explained(stderr: Path, transport: str) -> Generator[None]:
    """A server that cannot start, or dies, fails the test with what it printed."""
    try:
        yield
    except AssertionError:
        raise
    except Exception as error:  # the client's error says little; the server's stderr says why
        pytest.fail(
            f"tooluse serve over {transport} did not answer ({error!r}); its stderr:\n"
            f"{stderr.read_text()}"
        )


async def test_serve_over_stdio(faulty: Path, tmp_path: Path) -> None:
    params = StdioServerParameters(command=str(SCRIPT), args=["serve", WEATHER, str(faulty)])
    stderr = tmp_path / "stderr.txt"
    with stderr.open("w") as errlog, explained(stderr, "stdio"), anyio.fail_after(START_SECONDS):
        async with Client(stdio_client(params, errlog)) as client:
            await check_served_tools(client)


@contextlib.contextmanager
def http_server(*targets: str) -> Generator[str]:
    """`tooluse serve --transport http --port 0` running; yields its URL."""
    command = [str(SCRIPT), "serve", *targets, "--transport", "http", "--port", "0"]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    killer = threading.Timer(START_SECONDS, process.kill)  # a server that never says where
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
                # The rest of its stderr is read, so that the server never blocks on it.
                drain.start()
                yield found[1]
                break
        else:
            pytest.fail(
                f"tooluse serve over HTTP exited ({process.wait()}) before serving; "
                f"its stderr:\n{''.join(printed)}"
            )
    finally:
        killer.cancel()
        process.terminate()
        process.wait(timeout=10)
        if drain.is_alive():
            drain.join()
        process.stderr.close()


async def test_serve_over_streamable_http(faulty: Path) -> None:
    with http_server(WEATHER, str(faulty)) as url:
        assert url.startswith("http://127.0.0.1:")  # loopback unless told otherwise
        with anyio.fail_after(START_SECONDS):
            async with Client(url) as client:
                await check_served_tools(client)


# In process: the server object `tool_server` builds, for apps to embed.


@function_tool
def add(a: int, b: int = 1) -> int:
    """Add two numbers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


@function_tool
def owner(ctx: RunContextWrapper[dict[str, str]]) -> str:
    """Say whose context this is."""
    return ctx.context["user"]


@contextlib.asynccontextmanager
async def connected(*tools: FunctionTool, **options: Any) -> AsyncGenerator[Client]:
    async with Client(tool_server(tools, **options)) as client:
        yield client


async def test_listing_keeps_the_natural_schema_and_annotations() -> None:
    hints = types.ToolAnnotations(read_only_hint=True, idempotent_hint=True, title="Adder")
    async with connected(add, owner, annotations={"add": hints}) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert listed["add"].input_schema == add.with_strict_mode(False).params_json_schema
    assert listed["add"].input_schema["required"] == ["a"]
    assert listed["add"].annotations == hints
    assert listed["owner"].annotations is None
    assert listed["owner"].input_schema["properties"] == {}  # the context is no argument


async def test_rich_outputs_reach_the_client_as_mcp_content() -> None:
    @function_tool
    def chart() -> list[ToolOutput]:
        """Draw a chart and attach its data."""
        return [
            ToolOutputText(text="the chart"),
            ToolOutputImage(image_url="data:image/png;base64,iVBORw0K"),
            ToolOutputImage(image_url="https://example.com/chart.png"),
            ToolOutputImage(file_id="file-1"),
            ToolOutputFileContent(file_data="data:text/csv;base64,YSxiCg==", filename="d.csv"),
            ToolOutputFileContent(file_url="https://example.com/d.pdf", filename="d.pdf"),
            ToolOutputFileContent(file_id="file-2"),
        ]

    async with connected(chart) as client:
        result = await client.call_tool("chart", {})

    text, image, link, image_id, embedded, file_link, file_id = result.content
    assert not result.is_error
    assert isinstance(text, types.TextContent)
    assert text.text == "the chart"
    assert isinstance(image, types.ImageContent)
    assert (image.mime_type, image.data) == ("image/png", "iVBORw0K")
    assert isinstance(link, types.ResourceLink)
    assert link.uri == "https://example.com/chart.png"
    assert isinstance(image_id, types.TextContent)
    assert "file-1" in image_id.text
    assert isinstance(embedded, types.EmbeddedResource)
    assert isinstance(embedded.resource, types.BlobResourceContents)
    assert (embedded.resource.mime_type, embedded.resource.blob) == ("text/csv", "YSxiCg==")
    assert str(embedded.resource.uri) == "file:///d.csv"
    assert isinstance(file_link, types.ResourceLink)
    assert file_link.name == "d.pdf"
    assert isinstance(file_id, types.TextContent)
    assert "file-2" in file_id.text


async def test_calls_get_the_context_and_json_output() -> None:
    async with connected(add, owner, context={"user": "ada"}) as client:
        summed = await client.call_tool("add", {"a": 2})
        who = await client.call_tool("owner", {})
        unknown = await client.call_tool("nope", {})
    assert (text_of(summed), summed.is_error) == ("3", False)
    assert text_of(who) == "ada"
    assert unknown.is_error
    assert text_of(unknown) == "There is no tool 'nope'; call one of: add, owner."


@function_tool
async def count(ctx: ToolContext[Any]) -> str:
    """Count to 3, reporting each step."""
    for step in range(1, 4):
        await ctx.report_progress(step, 3, f"step {step}")
    return "counted to 3"


async def test_progress_reports_reach_the_client_as_notifications() -> None:
    reports: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        reports.append((progress, total, message))

    async with connected(count) as client:
        reported = await client.call_tool("count", {}, progress_callback=on_progress)
        unasked = await client.call_tool("count", {})  # no progress token: none sent
    assert (text_of(reported), reported.is_error) == ("counted to 3", False)
    assert reports == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
    assert (text_of(unasked), unasked.is_error) == ("counted to 3", False)
    assert len(reports) == 3


async def test_progress_reports_in_a_run_go_nowhere() -> None:
    agent = Agent("counter", tools=[count], model=TestModel())
    result = await Runner.run(agent, "Count.")
    [output] = [
        item for item in result.to_input_list() if item.get("type") == "function_call_output"
    ]
    assert output["output"] == "counted to 3"
    ctx = ToolContext.for_testing(tool_name="count")
    assert await ctx.report_progress(1, message="alone") is None


async def test_a_strict_hand_built_tool_is_served_with_its_loose_schema() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"note": {"type": "string"}},
        "required": [],
    }
    received: list[str] = []

    async def invoke(ctx: ToolContext[Any], arguments: str) -> str:
        received.append(arguments)
        return "done"

    tool = FunctionTool("tag", "Tag things.", schema, invoke)  # strict: the schema is rewritten
    assert tool.params_json_schema != schema
    async with connected(tool) as client:
        [listed] = (await client.list_tools()).tools
        result = await client.call_tool("tag", {})  # `note` left out, as the schema allows
    assert listed.input_schema == schema
    assert (text_of(result), result.is_error) == ("done", False)
    assert json.loads(received[0]) == {}


def hand_built(invoke: Any, **options: Any) -> FunctionTool:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {},
        "additionalProperties": False,
        "required": [],
    }
    return FunctionTool("hand", "A hand-built tool.", schema, invoke, **options)


async def test_hand_built_tools_fail_as_text() -> None:
    async def raises(ctx: ToolContext[Any], arguments: str) -> str:
        raise KeyError("secret")

    async def sleeps(ctx: ToolContext[Any], arguments: str) -> str:
        await asyncio.sleep(30)
        return "late"

    async def unwritable(ctx: ToolContext[Any], arguments: str) -> Any:
        return 10**5000  # past Python's str() limit

    async with connected(hand_built(raises)) as client:
        raised = await client.call_tool("hand", {})
    assert raised.is_error
    assert text_of(raised) == (
        "Tool 'hand' failed with an internal error (KeyError); its details are hidden. "
        "Do not retry the same call unchanged."
    )
    async with connected(hand_built(sleeps, timeout_seconds=0.05)) as client:
        late = await client.call_tool("hand", {})
    assert late.is_error
    assert text_of(late).startswith("Tool 'hand' timed out after 0.05 s and was stopped.")
    async with connected(hand_built(unwritable)) as client:
        odd = await client.call_tool("hand", {})
    assert odd.is_error
    assert "internal error (UnwritableOutput)" in text_of(odd)


async def test_a_timeout_error_function_and_re_raising_tools() -> None:
    @function_tool(
        timeout=0.05,
        timeout_behavior="raise_exception",  # no run to stop: the client is told all the same
        timeout_error_function=lambda ctx, error: f"{error.tool_name} gave up",  # pyright: ignore[reportUnknownLambdaType, reportAttributeAccessIssue, reportUnknownMemberType]
    )
    async def wait() -> str:
        """Wait too long."""
        await asyncio.sleep(30)
        return "late"

    @function_tool(failure_error_function=None)
    def strict_retry(n: int) -> str:
        """Re-raise failures.

        Args:
            n: A number.
        """
        if n:
            raise ModelRetry("Call me with 0.")
        raise ValueError("secret")

    async with connected(wait, strict_retry) as client:
        waited = await client.call_tool("wait", {})
        retried = await client.call_tool("strict_retry", {"n": 1})
        failed = await client.call_tool("strict_retry", {"n": 0})
        invalid = await client.call_tool("strict_retry", {"n": "x"})
    assert (text_of(waited), waited.is_error) == ("wait gave up", True)
    assert (text_of(retried), retried.is_error) == ("Call me with 0.", True)
    assert failed.is_error
    assert "internal error (ValueError)" in text_of(failed)
    assert "secret" not in text_of(failed)
    assert invalid.is_error
    assert "called with invalid arguments" in text_of(invalid)


def test_tools_that_cannot_be_served_together() -> None:
    @function_tool(name_override="add")
    def other(a: int) -> int:
        """Another add."""
        return a

    with pytest.raises(UserError, match="two tools are named 'add'"):
        tool_server([add, other])
    with pytest.raises(UserError, match="is not a FunctionTool"):
        tool_server([add.__wrapped__])  # pyright: ignore[reportArgumentType]
    with pytest.raises(UserError, match=r"annotations for 'sum', which no tool is named"):
        tool_server([add], annotations={"sum": types.ToolAnnotations()})


def test_annotations_from_the_decorator_and_over_them() -> None:
    @function_tool(mcp_annotations={"destructiveHint": True, "idempotentHint": False})
    def wipe() -> str:
        """Wipe everything."""
        return "gone"

    assert wipe.mcp_annotations == {"destructiveHint": True, "idempotentHint": False}
    assert wipe.with_strict_mode(False).mcp_annotations == wipe.mcp_annotations
    listed = tool_server([wipe])
    over = tool_server([wipe], annotations={"wipe": types.ToolAnnotations(title="Wipe")})

    async def annotations_of(server: Any) -> types.ToolAnnotations | None:
        async with Client(server) as client:
            return (await client.list_tools()).tools[0].annotations

    async def both() -> list[types.ToolAnnotations | None]:
        return [await annotations_of(listed), await annotations_of(over)]

    assert asyncio.run(both()) == [
        types.ToolAnnotations(destructive_hint=True, idempotent_hint=False),
        types.ToolAnnotations(title="Wipe"),  # the server's option replaces the decorator's
    ]


@pytest.mark.parametrize(
    ("annotations", "message"),
    [
        (
            {"readOnly": True, "title": 3, "openWorldHint": "no"},
            "FunctionTool 'f': mcp_annotations: 'readOnly' is no MCP annotation; use "
            "readOnlyHint, destructiveHint, idempotentHint, openWorldHint or title; 'title' must "
            "be a str, not int; 'openWorldHint' must be True or False, not str",
        ),
        (
            [("readOnlyHint", True)],
            "FunctionTool 'f': mcp_annotations=[('readOnlyHint', True)] must be a dict such as "
            '{"readOnlyHint": True}, or None',
        ),
    ],
)
def test_mcp_annotations_are_checked_when_the_tool_is_made(annotations: Any, message: str) -> None:
    def f() -> str:
        """Do nothing."""
        return ""

    with pytest.raises(UserError) as raised:
        function_tool(mcp_annotations=annotations)(f)
    assert str(raised.value) == message

    async def invoke(ctx: ToolContext[Any], arguments: str) -> str:
        return ""

    schema: dict[str, Any] = {"type": "object", "properties": {}}
    with pytest.raises(UserError):  # a hand-built tool too
        FunctionTool("f", "", schema, invoke, strict_json_schema=False, mcp_annotations=annotations)


def test_the_input_schema_lookup_of_modern_http() -> None:
    server = tool_server([add])
    assert server.get_tool_input_schema is not None
    assert server.get_tool_input_schema("add") == add.with_strict_mode(False).params_json_schema
    assert server.get_tool_input_schema("nope") is None


async def test_serve_refuses_an_unknown_transport() -> None:
    with pytest.raises(UserError, match="transport='sse' must be 'stdio' or 'http'"):
        await serve([add], transport="sse")  # pyright: ignore[reportArgumentType]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_serve_over_http_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    port = free_port()
    task = asyncio.create_task(serve([add], transport="http", port=port))
    await asyncio.sleep(0)  # it listens from its first step: the client waits in the backlog
    try:
        with anyio.fail_after(START_SECONDS):
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                result = await client.call_tool("add", {"a": 1, "b": 2})
        assert text_of(result) == "3"
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    assert task.cancelled()  # stopped as at Ctrl-C: nothing logged
    assert capsys.readouterr().err == f"tooluse: serving MCP on http://127.0.0.1:{port}/mcp\n"


@contextlib.contextmanager
def taken_port() -> Generator[int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


def test_a_port_in_use_is_said_before_serving() -> None:
    with taken_port() as port, pytest.raises(OSError, match=f"cannot listen on 127.0.0.1:{port}"):
        listening_socket("127.0.0.1", port)
    with listening_socket("::1", 0) as sock:  # an IPv6 address binds an IPv6 socket
        assert sock.family == socket.AF_INET6


# The command line, in process: its errors.


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_serve_a_port_in_use(capsys: pytest.CaptureFixture[str]) -> None:
    with taken_port() as port:
        code, out, err = run(capsys, "serve", WEATHER, "--transport", "http", "--port", str(port))
    assert (code, out) == (1, "")
    assert err == (
        f"tooluse: error: cannot listen on 127.0.0.1:{port}: Address already in use; "
        "choose another --port (0 for a free one) or --host\n"
    )


def test_serve_without_tools(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    empty = tmp_path / "empty.py"
    empty.write_text("X = 1\n")
    code, out, err = run(capsys, "serve", str(empty))
    assert (code, out) == (2, "")
    assert err.startswith(f"tooluse: error: {empty}: defines no FunctionTool;")
    code, _, err = run(capsys, "serve", str(tmp_path / "missing.py"))
    assert code == 2
    assert "no such file" in err


def test_serve_two_tools_of_one_name(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    copy = tmp_path / "weather_copy.py"
    copy.write_text(Path(WEATHER).read_text())
    code, _, err = run(capsys, "serve", WEATHER, str(copy), WEATHER)  # the same file twice: once
    assert code == 2
    assert err.startswith("tooluse: error: tool_server: two tools are named 'fetch_weather';")


def test_serve_a_module_whose_tool_cannot_be_defined(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    broken = tmp_path / "broken_tools.py"
    broken.write_text(
        textwrap.dedent("""
        from tooluse import function_tool

        @function_tool(timeout=-1)
        def f() -> str:
            \"\"\"Nothing.\"\"\"
            return ""
        """)
    )
    code, _, err = run(capsys, "serve", str(broken))
    assert code == 2
    assert "importing it raised UserValueError" in err


def test_serve_without_mcp_installed(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(sys.modules, "tooluse.mcp._server")
    monkeypatch.setitem(sys.modules, "mcp", None)  # importing it raises ModuleNotFoundError
    code, out, err = run(capsys, "serve", WEATHER)
    assert (code, out) == (2, "")
    assert err == (
        "tooluse: error: serve needs the 'mcp' package, which is not installed; "
        "pip install 'tooluse[mcp]'\n"
    )


def test_serve_lets_other_missing_modules_through(monkeypatch: pytest.MonkeyPatch) -> None:
    # A module of ours that is missing is a bug, not a missing extra: it is raised.
    monkeypatch.setitem(sys.modules, "tooluse.mcp._server", None)
    with pytest.raises(ModuleNotFoundError):
        main(["serve", WEATHER])


def test_serve_stops_quietly_at_ctrl_c(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    served: list[dict[str, Any]] = []

    async def interrupted(tools: list[FunctionTool], **options: Any) -> None:
        served.append({"tools": [tool.name for tool in tools], **options})
        raise KeyboardInterrupt

    monkeypatch.setattr(_server, "serve", interrupted)
    code, out, err = run(capsys, "serve", f"{WEATHER}:fetch_data", "--name", "files")
    assert (code, out, err) == (0, "", "")
    assert served == [
        {
            "tools": ["fetch_data"],
            "name": "files",
            "transport": "stdio",
            "host": "127.0.0.1",
            "port": 8000,
        }
    ]


@pytest.mark.parametrize("port", ["70000", "-1", "http"])
def test_serve_refuses_a_port_that_is_none(capsys: pytest.CaptureFixture[str], port: str) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["serve", WEATHER, "--port", port])
    assert exited.value.code == 2
    assert "is no port: give 0 to 65535" in capsys.readouterr().err


def test_importing_tooluse_imports_no_mcp() -> None:
    code = "import sys, tooluse, tooluse.cli._main; print(sorted(m for m in sys.modules if m.split('.')[0] in {'mcp', 'uvicorn'}))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "[]\n"


@function_tool
def count_sync(ctx: ToolContext[Any]) -> str:
    """Count to 3 in a worker thread, reporting each step."""
    assert threading.current_thread() is not threading.main_thread()
    for step in range(1, 4):
        ctx.report_progress_sync(step, 3, f"step {step}")
    return "counted to 3"


@function_tool
async def count_async_sync(ctx: ToolContext[Any]) -> str:
    """Report with the sync form from the event loop: it is scheduled, not waited for."""
    ctx.report_progress_sync(1, 1, "scheduled")
    await asyncio.sleep(0.01)
    return "scheduled"


async def test_sync_tools_report_progress_from_their_thread() -> None:
    reports: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        reports.append((progress, total, message))

    async with connected(count_sync, count_async_sync) as client:
        counted = await client.call_tool("count_sync", {}, progress_callback=on_progress)
        unasked = await client.call_tool("count_sync", {})  # no progress token: none sent
        scheduled = await client.call_tool("count_async_sync", {}, progress_callback=on_progress)
    assert (text_of(counted), counted.is_error) == ("counted to 3", False)
    assert (text_of(unasked), unasked.is_error) == ("counted to 3", False)
    assert (text_of(scheduled), scheduled.is_error) == ("scheduled", False)
    assert reports == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3"), (1, 1, "scheduled")]
    result = await Runner.run(Agent("counter", tools=[count_sync], model=TestModel()), "Count.")
    assert "counted to 3" in str(result.to_input_list())  # in a run, reports go nowhere
    assert ToolContext.for_testing().report_progress_sync(1) is None


def test_a_sync_report_after_the_server_stopped_goes_nowhere() -> None:
    stopped = asyncio.new_event_loop()
    stopped.close()
    request: Any = None  # never reached: the report is dropped before it is sent
    ctx = _server._ServedToolContext(  # pyright: ignore[reportPrivateUsage]
        context=None,
        tool_name="t",
        tool_call_id="1",
        tool_arguments="{}",
        request=request,
        loop=stopped,
    )
    assert ctx.report_progress_sync(1) is None
