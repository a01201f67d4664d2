"""Hosted MCP servers: `MCPToolChoice`, and approval requests in both SDKs' shapes.

Runs go through the real `openai` client to the local scripted server, which plays the
provider's `mcp_approval_request` items and records what the run sends back.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from ag_ui.core import RunAgentInput

from tooluse import (
    Agent,
    HostedMCPTool,
    MCPToolApprovalFunctionResult,
    MCPToolApprovalRequest,
    MCPToolChoice,
    ModelSettings,
    RunConfig,
    Runner,
)
from tooluse.exceptions import UserError
from tooluse.models import ModelRequest
from tooluse.temporal._payloads import request_from_payload, request_payload
from tooluse.ui._ag_ui import ag_ui_stream
from tooluse.ui._threads import Threads
from tooluse.ui._vercel import vercel_request, vercel_stream

from .openai_server import ScriptedServer, Turn
from .test_ui_ag_ui import run_input

CONFIG: Any = {"type": "mcp", "server_label": "wiki", "server_url": "https://example.invalid/mcp"}
ASKED: dict[str, Any] = {
    "type": "mcp_approval_request",
    "id": "apr_1",
    "name": "ask_wiki_question",
    "arguments": '{"repo": "openai/codex"}',
    "server_label": "wiki",
}
CHOICE = MCPToolChoice(server_label="wiki", name="ask_wiki_question")


async def run(agent: Agent[Any], streamed: bool, **options: Any) -> object:
    if not streamed:
        return (await Runner.run(agent, "hi", **options)).final_output
    result = Runner.run_streamed(agent, "hi", **options)
    async for _ in result.stream_events():
        pass
    return result.final_output


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_an_mcp_tool_choice_is_sent_in_the_apis_shape(
    openai_server: ScriptedServer, streamed: bool
) -> None:
    openai_server.script(Turn(text="Rust"))
    agent = Agent(
        "a",
        tools=[HostedMCPTool(CONFIG)],
        model=openai_server.model("responses"),
        model_settings=ModelSettings(tool_choice=CHOICE),
    )
    assert await run(agent, streamed) == "Rust"
    body = openai_server.requests[0]["body"]
    assert body["tool_choice"] == {
        "type": "mcp",
        "server_label": "wiki",
        "name": "ask_wiki_question",
    }


async def test_the_run_configs_choice_wins_over_the_agents(openai_server: ScriptedServer) -> None:
    openai_server.script(Turn(text="ok"))
    agent = Agent(
        "a",
        tools=[HostedMCPTool(CONFIG)],
        model=openai_server.model("responses"),
        model_settings=ModelSettings(tool_choice=CHOICE),
    )
    config = RunConfig(model_settings=ModelSettings(tool_choice="auto"))
    await run(agent, False, run_config=config)
    assert openai_server.requests[0]["body"]["tool_choice"] == "auto"


async def test_chat_completions_refuses_an_mcp_tool_choice(openai_server: ScriptedServer) -> None:
    agent = Agent(
        "a", model=openai_server.model("chat"), model_settings=ModelSettings(tool_choice=CHOICE)
    )
    with pytest.raises(UserError, match="OpenAIChatCompletionsModel cannot force MCPToolChoice"):
        await run(agent, False)
    assert openai_server.requests == []


def test_an_mcp_tool_choice_crosses_to_a_temporal_worker() -> None:
    request = ModelRequest(None, [], settings=ModelSettings(tool_choice=CHOICE))
    assert request_from_payload(request_payload(request)).settings.tool_choice == CHOICE


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_an_approval_function_reads_the_request_as_openai_agents_does(
    openai_server: ScriptedServer, streamed: bool
) -> None:
    seen: list[tuple[str, object, str, object]] = []

    def approve(request: MCPToolApprovalRequest) -> MCPToolApprovalFunctionResult:
        data = request.data
        seen.append((data.name, json.loads(data.arguments), data.id, request.ctx_wrapper.context))
        result: MCPToolApprovalFunctionResult = {"approve": False}
        result["reason"] = "User denied"
        return result

    openai_server.script(Turn(items=[ASKED]), Turn(text="Not asked."))
    agent = Agent(
        "a",
        tools=[HostedMCPTool(CONFIG, on_approval_request=approve)],
        model=openai_server.model("responses"),
    )
    assert await run(agent, streamed, context="ctx") == "Not asked."
    assert seen == [("ask_wiki_question", {"repo": "openai/codex"}, "apr_1", "ctx")]
    assert openai_server.requests[1]["body"]["input"][-1] == {
        "type": "mcp_approval_response",
        "approval_request_id": "apr_1",
        "approve": False,
        "reason": "User denied",
    }


async def test_the_dict_form_keeps_working(openai_server: ScriptedServer) -> None:
    seen: list[dict[str, Any]] = []

    async def approve(request: dict[str, Any]) -> dict[str, Any]:
        seen.append(dict(request))
        return {"approve": True}

    openai_server.script(Turn(items=[ASKED]), Turn(text="Rust."))
    agent = Agent(
        "a",
        tools=[HostedMCPTool(CONFIG, on_approval_request=approve)],
        model=openai_server.model("responses"),
    )
    assert await run(agent, False) == "Rust."
    assert seen == [ASKED]  # the item as the provider sent it, nothing added
    assert openai_server.requests[1]["body"]["input"][-1] == {
        "type": "mcp_approval_response",
        "approval_request_id": "apr_1",
        "approve": True,
    }


@pytest.mark.parametrize("answer", [True, None, {"reason": "no"}])
async def test_an_answer_that_is_not_a_decision_is_refused(
    openai_server: ScriptedServer, answer: object
) -> None:
    openai_server.script(Turn(items=[ASKED]), Turn(text="?"))
    agent = Agent(
        "a",
        tools=[HostedMCPTool(CONFIG, on_approval_request=lambda _request: answer)],  # type: ignore[arg-type, return-value]
        model=openai_server.model("responses"),
    )
    with pytest.raises(UserError, match=r"server_label='wiki'\): on_approval_request returned"):
        await run(agent, False)
    assert len(openai_server.requests) == 1


async def test_an_answered_request_streams_to_both_ui_protocols(
    openai_server: ScriptedServer,
) -> None:
    # The answer is a tool_output event with no call id: the UIs never saw its request
    # as a call, so they write nothing for it (both raised KeyError before).
    agent = Agent(
        "a",
        tools=[HostedMCPTool(CONFIG, on_approval_request=lambda request: {"approve": True})],
        model=openai_server.model("responses"),
    )
    openai_server.script(Turn(items=[ASKED]), Turn(text="Rust."))
    body = run_input("t", [{"id": "u1", "role": "user", "content": "hi"}])
    ag_ui = [c async for c in ag_ui_stream(agent, Threads(None), RunAgentInput(**body))]
    openai_server.script(Turn(items=[ASKED]), Turn(text="Rust."))
    message = {"id": "u", "role": "user", "parts": [{"type": "text", "text": "hi"}]}
    chat_id, request, continued = vercel_request({"id": "c", "messages": [message]})
    vercel = [
        c async for c in vercel_stream(agent, Threads(None), chat_id, request, None, continued)
    ]
    for written in (ag_ui, vercel):
        text = "".join(written)
        assert "Rust." in text
        assert "error" not in text.lower()
        assert "apr_1" not in text


async def test_a_request_waiting_for_a_human_is_an_ag_ui_interrupt_and_resumes(
    openai_server: ScriptedServer,
) -> None:
    agent = Agent("a", tools=[HostedMCPTool(CONFIG)], model=openai_server.model("responses"))
    openai_server.script(Turn(items=[ASKED]), Turn(text="Rust."))
    threads = Threads(None)
    body = run_input("t", [{"id": "u1", "role": "user", "content": "hi"}])
    paused = "".join([c async for c in ag_ui_stream(agent, threads, RunAgentInput(**body))])
    finished = json.loads(paused.rstrip().rsplit("data: ", 1)[1])
    (interrupt,) = finished["outcome"]["interrupts"]
    answer = {"interruptId": interrupt["id"], "status": "resolved", "payload": {"approved": True}}
    resumed_body = run_input("t", [], resume=[answer])
    resumed = "".join(
        [c async for c in ag_ui_stream(agent, threads, RunAgentInput(**resumed_body))]
    )
    assert "Rust." in resumed
    assert openai_server.requests[1]["body"]["input"][-1] == {
        "type": "mcp_approval_response",
        "approval_request_id": "apr_1",
        "approve": True,
    }
