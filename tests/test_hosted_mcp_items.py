"""A hosted MCP server's items as openai-agents hands them out: item objects and events.

`mcp_list_tools`, `mcp_approval_request` and `mcp_approval_response` items are
`MCPListToolsItem`, `MCPApprovalRequestItem` and `MCPApprovalResponseItem`, streamed as
`mcp_list_tools`, `mcp_approval_requested` and `mcp_approval_response`; an `mcp_call` is
a `ToolCallItem` streamed as `tool_called`. The expected sequences below are what
openai-agents 0.24 gives for the same scripts on the same local server (measured by
running both SDKs on it). Runs go through the real `openai` client to the local
scripted server.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import RunAgentInput

from tooluse import (
    Agent,
    HostedMCPTool,
    MCPApprovalRequestItem,
    MCPApprovalResponseItem,
    MCPListToolsItem,
    MCPToolApprovalFunctionResult,
    MCPToolApprovalRequest,
    MessageOutputItem,
    Runner,
    RunResult,
    RunResultStreaming,
    RunState,
    ToolCallItem,
    function_tool,
)
from tooluse.cli._chat import run_chat
from tooluse.ui._ag_ui import ag_ui_stream
from tooluse.ui._threads import Threads
from tooluse.ui._vercel import vercel_request, vercel_stream

from .openai_server import Call, ScriptedServer, Turn
from .test_hosted_mcp import ASKED, CONFIG
from .test_ui_ag_ui import run_input

LISTED: dict[str, Any] = {
    "type": "mcp_list_tools",
    "id": "mcpl_1",
    "server_label": "wiki",
    "tools": [{"name": "ask_wiki_question", "input_schema": {"type": "object"}}],
}
CALLED: dict[str, Any] = {
    "type": "mcp_call",
    "id": "mcp_1",
    "name": "ask_wiki_question",
    "arguments": '{"repo": "openai/codex"}',
    "server_label": "wiki",
    "output": "Rust",
}
APPROVED: dict[str, Any] = {
    "type": "mcp_approval_response",
    "approval_request_id": "apr_1",
    "approve": True,
}


@function_tool
def note(text: str) -> str:
    """Write a note.

    Args:
        text: The note.
    """
    return "noted"


def approve_all(_request: MCPToolApprovalRequest) -> MCPToolApprovalFunctionResult:
    return {"approve": True}


def wiki_agent(server: ScriptedServer, approve: bool = False) -> Agent[Any]:
    tool = HostedMCPTool(CONFIG, on_approval_request=approve_all if approve else None)
    return Agent("a", tools=[tool, note], model=server.model("responses"))


async def run(
    agent: Agent[Any], given: str | RunState, streamed: bool, names: list[str]
) -> RunResult | RunResultStreaming:
    """The run, with the names of its item events (and each item's class) in `names`."""
    if not streamed:
        return await Runner.run(agent, given)
    result = Runner.run_streamed(agent, given)
    names.extend(
        [
            f"{event.name}:{event.item.type}"
            async for event in result.stream_events()
            if event.type == "run_item_stream_event"
        ]
    )
    return result


async def ui_streams(
    server: ScriptedServer, agent: Agent[Any], turns: tuple[Turn, ...]
) -> tuple[str, str]:
    """What the AG-UI and the Vercel stream write for a user's "hi", the turns played to each."""
    server.script(*turns)
    body = run_input("t", [{"id": "u1", "role": "user", "content": "hi"}])
    ag_ui = "".join([c async for c in ag_ui_stream(agent, Threads(None), RunAgentInput(**body))])
    server.script(*turns)
    message = {"id": "u", "role": "user", "parts": [{"type": "text", "text": "hi"}]}
    chat_id, request, continued = vercel_request({"id": "c", "messages": [message]})
    vercel = "".join(
        [c async for c in vercel_stream(agent, Threads(None), chat_id, request, None, continued)]
    )
    return ag_ui, vercel


def chat_says_hi(
    server: ScriptedServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    tool_class: str,
    tool: str,
) -> str:
    """What `tooluse chat` shows for a user's "hi" to an agent with one tool (its source)."""
    module = tmp_path / "chat_agent.py"
    module.write_text(
        "import os\nfrom openai import AsyncOpenAI\n"
        f"from tooluse import Agent, {tool_class}\n"
        "from tooluse.models import OpenAIResponsesModel\n"
        "client = AsyncOpenAI(base_url=os.environ['CHAT_URL'], api_key='test')\n"
        f"tool = {tool}\n"
        "agent = Agent('a', tools=[tool], model=OpenAIResponsesModel('m', client))\n"
    )
    monkeypatch.setenv("CHAT_URL", server.base_url)
    lines, out = ["hi"], io.StringIO()

    def read(_prompt: str) -> str:
        if not lines:
            raise EOFError  # the end of the user's input
        return lines.pop(0)

    assert run_chat(str(module), read=read, out=out) == 0
    return out.getvalue()


async def paused_on_request(
    server: ScriptedServer, streamed: bool, names: list[str], answer: str
) -> tuple[Agent[Any], RunResult | RunResultStreaming]:
    """The wiki agent's run paused on its server's request, beside a function call."""
    server.script(
        Turn(items=[LISTED, ASKED], calls=[Call("note", '{"text": "x"}', "c1")]),
        Turn(text=answer),
    )
    agent = wiki_agent(server)
    return agent, await run(agent, "go", streamed, names)


def kinds(result: RunResult | RunResultStreaming) -> list[str]:
    return [f"{item.type}:{item.raw_item['type']}" for item in result.new_items]


STREAMED = pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])


@STREAMED
async def test_a_listing_and_a_call_are_items_and_events_of_their_own(
    openai_server: ScriptedServer, streamed: bool
) -> None:
    openai_server.script(Turn(items=[LISTED, CALLED], text="Rust."))
    agent, names = wiki_agent(openai_server), list[str]()

    result = await run(agent, "Which language?", streamed, names)

    assert kinds(result) == [
        "mcp_list_tools_item:mcp_list_tools",
        "tool_call_item:mcp_call",
        "message_output_item:message",
    ]
    listed, called, _ = result.new_items
    assert isinstance(listed, MCPListToolsItem)
    assert isinstance(called, ToolCallItem)
    assert listed.raw_item == LISTED
    assert listed.raw_item.server_label == "wiki"
    assert [tool.name for tool in listed.raw_item.tools] == ["ask_wiki_question"]
    assert listed.agent is agent
    assert called.agent is agent
    assert [item.to_input_item() for item in result.new_items][:2] == [LISTED, CALLED]
    assert [item.get("type") for item in result.to_input_list()][1:] == [
        "mcp_list_tools",
        "mcp_call",
        "message",
    ]
    if streamed:
        assert names == [
            "mcp_list_tools:mcp_list_tools_item",
            "tool_called:tool_call_item",
            "message_output_created:message_output_item",
        ]


@STREAMED
async def test_an_answered_request_and_its_answer_come_in_the_turns_order(
    openai_server: ScriptedServer, streamed: bool
) -> None:
    openai_server.script(Turn(items=[LISTED, ASKED]), Turn(text="Rust."))
    agent, names = wiki_agent(openai_server, approve=True), list[str]()

    result = await run(agent, "Which language?", streamed, names)

    assert kinds(result) == [
        "mcp_list_tools_item:mcp_list_tools",
        "mcp_approval_request_item:mcp_approval_request",
        "mcp_approval_response_item:mcp_approval_response",
        "message_output_item:message",
    ]
    _, request, response, message = result.new_items
    assert isinstance(request, MCPApprovalRequestItem)
    assert request.raw_item == ASKED
    assert isinstance(response, MCPApprovalResponseItem)
    assert response.raw_item == APPROVED
    assert response.to_input_item() == APPROVED
    assert response.agent is agent
    assert isinstance(message, MessageOutputItem)
    assert openai_server.requests[1]["body"]["input"][-2:] == [ASKED, APPROVED]
    if streamed:
        assert names == [
            "mcp_list_tools:mcp_list_tools_item",
            "mcp_approval_requested:mcp_approval_request_item",
            "mcp_approval_response:mcp_approval_response_item",
            "message_output_created:message_output_item",
        ]


@STREAMED
async def test_the_answer_follows_the_turns_function_outputs(
    openai_server: ScriptedServer, streamed: bool
) -> None:
    openai_server.script(
        Turn(items=[LISTED, ASKED], calls=[Call("note", '{"text": "x"}', "c1")]),
        Turn(text="Done."),
    )
    agent, names = wiki_agent(openai_server, approve=True), list[str]()

    result = await run(agent, "go", streamed, names)

    assert kinds(result) == [
        "mcp_list_tools_item:mcp_list_tools",
        "mcp_approval_request_item:mcp_approval_request",
        "tool_call_item:function_call",
        "tool_call_output_item:function_call_output",
        "mcp_approval_response_item:mcp_approval_response",
        "message_output_item:message",
    ]
    assert [item["type"] for item in openai_server.requests[1]["body"]["input"][-3:]] == [
        "function_call",
        "function_call_output",
        "mcp_approval_response",
    ]
    if streamed:
        assert names == [
            "mcp_list_tools:mcp_list_tools_item",
            "mcp_approval_requested:mcp_approval_request_item",
            "tool_called:tool_call_item",
            "tool_output:tool_call_output_item",
            "mcp_approval_response:mcp_approval_response_item",
            "message_output_created:message_output_item",
        ]


@STREAMED
async def test_a_paused_request_is_an_item_and_its_answer_one_of_the_resumed_run(
    openai_server: ScriptedServer, streamed: bool
) -> None:
    names = list[str]()

    agent, paused = await paused_on_request(openai_server, streamed, names, "Done.")

    # (openai-agents adds the ToolApprovalItem to new_items too; here it is in
    # interruptions only, and the function call waits for the decision.)
    assert kinds(paused) == [
        "mcp_list_tools_item:mcp_list_tools",
        "mcp_approval_request_item:mcp_approval_request",
        "tool_call_item:function_call",
    ]
    assert [item.raw_item for item in paused.interruptions] == [ASKED]
    if streamed:
        assert names == [
            "mcp_list_tools:mcp_list_tools_item",
            "mcp_approval_requested:mcp_approval_request_item",
            "tool_called:tool_call_item",
        ]
    state = RunState.from_json(paused.to_state().to_string())
    state.approve(state.get_interruptions()[0])
    names.clear()

    done = await run(agent, state, streamed, names)

    # The MCP answer follows the turn's other answers, as in openai-agents.
    assert kinds(done)[3:] == [
        "tool_call_output_item:function_call_output",
        "mcp_approval_response_item:mcp_approval_response",
        "message_output_item:message",
    ]
    assert isinstance(done.new_items[1], MCPApprovalRequestItem)
    assert done.new_items[4].raw_item == APPROVED
    if streamed:
        assert names == [
            "tool_output:tool_call_output_item",
            "mcp_approval_response:mcp_approval_response_item",
            "message_output_created:message_output_item",
        ]


async def test_the_ui_protocols_write_nothing_for_the_servers_items(
    openai_server: ScriptedServer,
) -> None:
    # No call the client runs (a tool_called for an mcp_call has no call_id: a KeyError).
    turns = (Turn(items=[LISTED, CALLED, ASKED]), Turn(text="Rust."))
    for written in await ui_streams(openai_server, wiki_agent(openai_server, approve=True), turns):
        assert "Rust." in written
        assert "error" not in written.lower()
        assert "mcp_1" not in written
        assert "apr_1" not in written


def test_the_chat_says_what_the_server_did(
    openai_server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    openai_server.script(Turn(items=[LISTED, CALLED, ASKED]), Turn(text="Rust."))
    tool = f"HostedMCPTool({CONFIG!r}, on_approval_request=lambda r: {{'approve': True}})"

    shown = chat_says_hi(openai_server, tmp_path, monkeypatch, "HostedMCPTool", tool)

    assert "[mcp] wiki lists 1 tools\n" in shown
    assert '[mcp] wiki.ask_wiki_question({"repo": "openai/codex"}) -> Rust\n' in shown
    assert '[mcp] wiki asks to run wiki.ask_wiki_question({"repo": "openai/codex"})\n' in shown
    assert "[mcp] approved\n" in shown
    assert "a> Rust.\n" in shown
    assert "[error]" not in shown


@STREAMED
async def test_a_rejected_request_pauses_and_resumes_as_in_openai_agents(
    openai_server: ScriptedServer, streamed: bool
) -> None:
    # openai-agents 0.24, same script and server: paused new_items are mcp_list_tools,
    # mcp_approval_request, function_call, function_call_output, then the ToolApprovalItem;
    # resumed: those, then mcp_approval_response and the message; the stream shows
    # mcp_approval_response and message_output_created on resume, and nothing for the
    # ToolApprovalItem. Here (docs/migrating.md) the function call waits for the decision,
    # so its output comes on resume, and the ToolApprovalItem is in interruptions only.
    names = list[str]()

    agent, paused = await paused_on_request(openai_server, streamed, names, "Not asked.")

    assert [item.get("type", "message") for item in paused.to_input_list()] == [
        "message",
        "mcp_list_tools",
        "mcp_approval_request",
        "function_call",
    ]
    (waiting,) = paused.interruptions
    assert (waiting.type, waiting.name, waiting.tool_name, waiting.call_id) == (
        "tool_approval_item",
        "ask_wiki_question",
        "ask_wiki_question",
        "apr_1",
    )
    assert waiting.raw_item == ASKED
    assert waiting.agent is agent
    assert waiting.tool_origin is None  # as openai-agents' for a hosted server's request
    state = RunState.from_json(paused.to_state().to_string())
    state.reject(state.get_interruptions()[0], rejection_message="Not now.")
    names.clear()

    done = await run(agent, state, streamed, names)

    assert kinds(done) == [
        "mcp_list_tools_item:mcp_list_tools",
        "mcp_approval_request_item:mcp_approval_request",
        "tool_call_item:function_call",
        "tool_call_output_item:function_call_output",
        "mcp_approval_response_item:mcp_approval_response",
        "message_output_item:message",
    ]
    assert done.new_items[4].raw_item == {**APPROVED, "approve": False, "reason": "Not now."}
    assert [item.get("type", "message") for item in done.to_input_list()][-3:] == [
        "function_call_output",
        "mcp_approval_response",
        "message",
    ]
    if streamed:
        assert names == [
            "tool_output:tool_call_output_item",
            "mcp_approval_response:mcp_approval_response_item",
            "message_output_created:message_output_item",
        ]
