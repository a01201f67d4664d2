"""One MCP server shared: by the application and its runs, and by concurrent runs; and
a server that fails, stopping the run with `MCPServerError`.

Real servers as subprocesses over stdio: `mcp_test_server.py` (whose `pid` tool says
which process answers) and `mcp_bad_server.py` (which misbehaves in one way each).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any, cast

import mcp_types as types
import pytest

from tooluse import Agent, RunHooks, Runner
from tooluse.exceptions import MCPServerError, RunStopped, UserError
from tooluse.mcp import MCPServerStdio, server_error_message
from tooluse.testing import FunctionModel, ModelReply, ToolCall, tool_outputs

from . import preforked

HERE = Path(__file__).parent
SERVER = HERE / "mcp_test_server.py"
BAD_SERVER = HERE / "mcp_bad_server.py"
SECRET = "secret-in-the-error"


def stdio(**options: Any) -> MCPServerStdio:
    # Forked from a process that has imported `mcp` (tests/preforked.py): a real
    # process over stdio, started in milliseconds.
    return MCPServerStdio(preforked.command(str(SERVER)), **options)


def calling(name: str, arguments: dict[str, Any]) -> FunctionModel:
    """A model that calls one tool, then answers with what it returned."""

    def reply(items: list[Any], tools: Any) -> ModelReply | str:
        del tools
        outputs = tool_outputs(items)
        return outputs[0] if outputs else ModelReply(tool_calls=[ToolCall(name, arguments)])

    return FunctionModel(reply)


def pid_in(text: str) -> int:
    """The process id in a `pid` result: `1234`, or `{"result": 1234}` as structured content."""
    value: object = json.loads(text)
    if isinstance(value, dict):
        value = cast(dict[str, object], value)["result"]
    assert isinstance(value, int)
    return value


async def server_pid(server: MCPServerStdio) -> int:
    result = await server.call_tool("pid", {})
    content = result.content[0]
    assert isinstance(content, types.TextContent)
    return pid_in(content.text)


async def test_a_server_the_application_entered_stays_one_process_across_runs() -> None:
    server = stdio()
    agent = Agent("a", mcp_servers=[server], model=calling("pid", {}))
    async with server:
        before = await server_pid(server)
        first = await Runner.run(agent, "which process?")
        second = await Runner.run(agent, "which process?")
        after = await server_pid(server)  # still connected after the runs
    assert pid_in(first.final_output) == before  # the runs used the application's process
    assert pid_in(second.final_output) == before
    assert after == before
    with pytest.raises(UserError, match="is not connected"):  # the application's exit closed it
        await server.list_tools()


async def test_concurrent_runs_share_one_server_and_the_last_to_leave_closes_it() -> None:
    server = stdio()
    quick = Agent("quick", mcp_servers=[server], model=calling("echo", {"text": "hi"}))
    slow = Agent("slow", mcp_servers=[server], model=calling("slow", {"seconds": 1.0}))
    in_flight = asyncio.Event()

    class Started(RunHooks):
        async def on_tool_start(self, context: Any, agent: Any, tool: Any) -> None:
            in_flight.set()

    slow_run = asyncio.ensure_future(Runner.run(slow, "wait", hooks=Started()))
    await asyncio.wait_for(in_flight.wait(), 30)  # the slow run's call is in flight
    quick_result = await Runner.run(quick, "echo")  # enters and leaves meanwhile
    slow_result = await slow_run
    assert quick_result.final_output == "hi"  # the server's text, as it wrote it
    assert slow_result.final_output == "done"  # not cut off
    with pytest.raises(UserError, match="is not connected"):  # the last run closed it
        await server.list_tools()


async def test_concurrent_runs_see_one_process() -> None:
    server = stdio()
    agents = [Agent(f"a{n}", mcp_servers=[server], model=calling("pid", {})) for n in range(3)]
    results = await asyncio.gather(*(Runner.run(agent, "which?") for agent in agents))
    assert len({pid_in(result.final_output) for result in results}) == 1  # one process for all


def bad(mode: str, **options: Any) -> MCPServerStdio:
    params = {"command": sys.executable, "args": [str(BAD_SERVER), mode]}
    return MCPServerStdio(params, name=f"bad-{mode}", client_session_timeout_seconds=1, **options)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("mode", "problem"),
    [
        ("silent", "did not answer initialize within 1 s"),
        ("list_error", "failed tools/list (MCP error -32603)"),
        ("list_hang", "did not answer tools/list within 1 s"),
        ("invalid_list", "answered tools/list with something that is not MCP"),
    ],
)
async def test_a_failing_server_stops_the_run_with_a_typed_error_naming_it(
    mode: str, problem: str
) -> None:
    agent = Agent("a", mcp_servers=[bad(mode)], model=calling("echo", {"text": "hi"}))
    with pytest.raises(MCPServerError) as raised:
        await asyncio.wait_for(Runner.run(agent, "hello there"), 30)
    error = raised.value
    assert isinstance(error, RunStopped)
    assert error.server_name == f"bad-{mode}"
    assert error.server == f"command {sys.executable}"
    assert error.problem == problem
    assert error.server_message is None
    assert SECRET not in str(error)  # the server's own words stay out unless trusted
    assert error.__cause__ is None
    assert [item.get("content") for item in error.items] == ["hello there"]  # the conversation
    assert error.state is not None  # and the state to resume from


async def test_a_trusted_servers_words_are_kept() -> None:
    server = bad("list_error", failure_error_function=server_error_message)
    agent = Agent("a", mcp_servers=[server], model=calling("echo", {"text": "hi"}))
    with pytest.raises(MCPServerError) as raised:
        await asyncio.wait_for(Runner.run(agent, "hello"), 30)
    assert raised.value.server_message is not None
    assert SECRET in raised.value.server_message
