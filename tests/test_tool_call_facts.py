"""What a call's item object says of its tool: `description`, `title`, `tool_origin`, ...

openai-agents' `ToolCallItem` carries the tool's `description`, an MCP tool's display
`title`, a `tool_origin` (a function tool, an MCP server's tool, an agent as a tool),
`tool_name` and `call_id`; its `ToolCallOutputItem` and `ToolApprovalItem` carry the
`tool_origin` too. The expected values below are what openai-agents 0.24 gave for the
same scripts on the same local server (measured by running both SDKs on it), for the
result's items and the stream's alike.
"""

from __future__ import annotations

from typing import Any

import pytest

from tooluse import (
    Agent,
    HostedMCPTool,
    LocalShellTool,
    Runner,
    RunResult,
    RunResultStreaming,
    ToolCallItem,
    ToolCallOutputItem,
    ToolOrigin,
    ToolOriginType,
    WebSearchTool,
    function_tool,
)
from tooluse.testing import FunctionModel, ModelReply, ToolCall, current_turn

from .openai_server import Call, ScriptedServer, Turn
from .test_hosted_item_events import LOCAL_SHELL
from .test_hosted_mcp import ASKED, CONFIG
from .test_hosted_mcp_items import CALLED
from .test_mcp_client import stdio

LISTED: dict[str, Any] = {
    "type": "mcp_list_tools",
    "id": "mcpl_1",
    "server_label": "wiki",
    "tools": [
        {
            "name": "ask_wiki_question",
            "description": "Ask a question.",
            "annotations": {"title": "Ask the wiki"},
            "input_schema": {"type": "object"},
        }
    ],
}
SEARCHED: dict[str, Any] = {
    "type": "web_search_call",
    "id": "ws_1",
    "status": "completed",
    "action": {"type": "search", "query": "q"},
}
MCP = ToolOrigin(ToolOriginType.MCP, mcp_server_name="wiki")
FUNCTION = ToolOrigin(ToolOriginType.FUNCTION)
HELPER = ToolOrigin(ToolOriginType.AGENT_AS_TOOL, agent_name="inner", agent_tool_name="helper")


@function_tool
def note(text: str) -> str:
    """Write a note.

    Args:
        text: The note.
    """
    return "noted"


def facts(item: ToolCallItem) -> tuple[object, ...]:
    return (item.description, item.title, item.tool_origin, item.tool_name, item.call_id)


async def run(
    agent: Agent[Any], streamed: bool
) -> tuple[list[Any], RunResult | RunResultStreaming]:
    """The run's items: the stream's event items, or the result's new items."""
    if not streamed:
        result = await Runner.run(agent, "go")
        return list(result.new_items), result
    streaming = Runner.run_streamed(agent, "go")
    events = [e async for e in streaming.stream_events() if e.type == "run_item_stream_event"]
    return [e.item for e in events], streaming


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_calls_say_what_openai_agents_says_of_their_tools(
    openai_server: ScriptedServer, streamed: bool
) -> None:
    openai_server.script(
        Turn(
            items=[LISTED, CALLED, SEARCHED, LOCAL_SHELL],
            calls=[Call("helper", '{"input": "x"}', "c9"), Call("note", '{"text": "x"}', "c1")],
        ),
        Turn(text="inner"),
        Turn(text="Done."),
    )
    model = openai_server.model("responses")
    inner = Agent("inner", model=model)
    tools = [
        HostedMCPTool(CONFIG),
        WebSearchTool(),
        LocalShellTool(lambda action: "hi"),
        inner.as_tool("helper", "Ask the helper."),
        note,
    ]
    agent = Agent("a", tools=tools, model=model)

    items, _ = await run(agent, streamed)

    calls = {
        item.raw_item["type"] + str(item.call_id): item
        for item in items
        if isinstance(item, ToolCallItem)
    }
    assert facts(calls["mcp_callmcp_1"]) == (
        "Ask a question.",
        "Ask the wiki",
        MCP,
        "ask_wiki_question",
        "mcp_1",
    )
    assert facts(calls["web_search_callws_1"]) == (None, None, None, None, "ws_1")
    assert facts(calls["local_shell_calllsc_1"]) == (None, None, None, "local_shell", "lsc_1")
    assert facts(calls["function_callc9"]) == ("Ask the helper.", None, HELPER, "helper", "c9")
    assert facts(calls["function_callc1"]) == ("Write a note.", None, FUNCTION, "note", "c1")
    outputs = {item.call_id: item for item in items if isinstance(item, ToolCallOutputItem)}
    assert outputs["c9"].tool_origin == HELPER
    assert outputs["c1"].tool_origin == FUNCTION
    assert outputs["lsc_1"].tool_origin is None
    assert HELPER.to_json_dict() == {
        "type": "agent_as_tool",
        "agent_name": "inner",
        "agent_tool_name": "helper",
    }


async def test_an_mcp_call_with_no_listing_in_the_run_has_its_origin_alone(
    openai_server: ScriptedServer,
) -> None:
    openai_server.script(Turn(items=[CALLED], text="Rust."))
    agent = Agent("a", tools=[HostedMCPTool(CONFIG)], model=openai_server.model("responses"))

    items, _ = await run(agent, False)

    assert facts(items[0]) == (None, None, MCP, "ask_wiki_question", "mcp_1")


async def test_a_waiting_calls_origin_is_its_tools_and_none_for_a_servers_request(
    openai_server: ScriptedServer,
) -> None:
    @function_tool(needs_approval=True)
    def guarded(text: str) -> str:
        """Needs a yes.

        Args:
            text: Anything.
        """
        return text

    openai_server.script(Turn(items=[ASKED], calls=[Call("guarded", '{"text": "x"}', "c1")]))
    agent = Agent(
        "a", tools=[HostedMCPTool(CONFIG), guarded], model=openai_server.model("responses")
    )

    _, result = await run(agent, False)

    assert {i.item_type: i.tool_origin for i in result.interruptions} == {
        "function_call": FUNCTION,
        "mcp_approval_request": None,
    }


async def test_a_local_mcp_servers_tool_is_of_that_server() -> None:
    def reply(items: list[Any], tools: Any) -> ModelReply | str:
        if any(i.get("type") == "function_call_output" for i in current_turn(items)):
            return "done"
        return ModelReply(tool_calls=[ToolCall("echo", {"text": "hi"})])

    server = stdio(name="test-server")
    agent = Agent("a", mcp_servers=[server], model=FunctionModel(reply))
    async with server:
        result = await Runner.run(agent, "go")

    call = result.new_items[0]
    assert isinstance(call, ToolCallItem)
    origin = ToolOrigin(ToolOriginType.MCP, mcp_server_name="test-server")
    assert facts(call) == ("Say the text back.", None, origin, "echo", call.call_id)
    output = result.new_items[1]
    assert isinstance(output, ToolCallOutputItem)
    assert output.tool_origin == origin
