"""A streamed run's item events for reasoning and the calls of hosted and provider tools.

openai-agents streams a `reasoning` item as `reasoning_item_created` (a `ReasoningItem`)
and each of `web_search_call`, `file_search_call`, `code_interpreter_call`,
`image_generation_call`, `computer_call`, `local_shell_call` and `shell_call` as
`tool_called` (a `ToolCallItem`), in the response's order. The expected sequences below
are what openai-agents 0.24 streamed for the same scripts on the same local server
(measured by running both SDKs on it). Runs go through the real `openai` client.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tooluse import (
    Agent,
    ComputerTool,
    LocalShellTool,
    ReasoningItem,
    Runner,
    RunResult,
    RunResultStreaming,
    ShellTool,
    ToolCallItem,
    WebSearchTool,
    handoff,
)
from tooluse.ui import ag_ui_app, vercel_ai_app

from .openai_server import Call, ScriptedServer, Turn
from .test_e2e import FakeComputer
from .test_hosted_mcp_items import chat_says_hi, note, ui_streams
from .test_ui_frames import assert_official, frames
from .ui_clients import node_script
from .ui_server import serving

REASONING: dict[str, Any] = {
    "type": "reasoning",
    "id": "rs_1",
    "summary": [{"type": "summary_text", "text": "Look it up."}],
}
HOSTED_CALLS: list[dict[str, Any]] = [
    {
        "type": "web_search_call",
        "id": "ws_1",
        "status": "completed",
        "action": {"type": "search", "query": "q"},
    },
    {"type": "file_search_call", "id": "fs_1", "status": "completed", "queries": ["q"]},
    {
        "type": "code_interpreter_call",
        "id": "ci_1",
        "status": "completed",
        "code": "1 + 1",
        "container_id": "cntr_1",
        "outputs": [],
    },
    {"type": "image_generation_call", "id": "ig_1", "status": "completed", "result": "aGk="},
]
LOCAL_SHELL: dict[str, Any] = {
    "type": "local_shell_call",
    "id": "ls_1",
    "call_id": "lsc_1",
    "status": "completed",
    "action": {"type": "exec", "command": ["echo", "hi"], "env": {}},
}
SHELL: dict[str, Any] = {
    "type": "shell_call",
    "id": "sh_1",
    "call_id": "shc_1",
    "status": "completed",
    "action": {"commands": ["echo hi"], "timeout_ms": None, "max_output_length": None},
}
COMPUTER: dict[str, Any] = {
    "type": "computer_call",
    "id": "cu_1",
    "call_id": "cuc_1",
    "status": "completed",
    "action": {"type": "screenshot"},
    "pending_safety_checks": [],
}


async def streamed_events(agent: Agent[Any]) -> list[tuple[str, str, str]]:
    """The run's item events: (name, item class's type, the API's item type)."""
    result = Runner.run_streamed(agent, "go")
    return [
        (event.name, event.item.type, event.item.raw_item["type"])
        async for event in result.stream_events()
        if event.type == "run_item_stream_event"
    ]


async def test_reasoning_and_hosted_calls_are_streamed_in_the_responses_order(
    openai_server: ScriptedServer,
) -> None:
    openai_server.script(Turn(items=[REASONING, *HOSTED_CALLS], text="Found it."))
    agent = Agent("a", model=openai_server.model("responses"))

    result = Runner.run_streamed(agent, "go")
    events = [e async for e in result.stream_events() if e.type == "run_item_stream_event"]

    assert [(e.name, e.item.type, e.item.raw_item["type"]) for e in events] == [
        ("reasoning_item_created", "reasoning_item", "reasoning"),
        ("tool_called", "tool_call_item", "web_search_call"),
        ("tool_called", "tool_call_item", "file_search_call"),
        ("tool_called", "tool_call_item", "code_interpreter_call"),
        ("tool_called", "tool_call_item", "image_generation_call"),
        ("message_output_created", "message_output_item", "message"),
    ]
    reasoning, search = events[0].item, events[1].item
    assert isinstance(reasoning, ReasoningItem)
    assert reasoning.raw_item == REASONING
    assert reasoning.agent is agent
    assert isinstance(search, ToolCallItem)
    assert search.raw_item.action.query == "q"
    # The events' items are the result's, in the same order.
    assert [e.item for e in events] == list(result.new_items)


SHELL_TOOL = ShellTool(executor=lambda request: "hi")
COMPUTER_TOOL = ComputerTool(FakeComputer())
PROVIDER_CALLS = pytest.mark.parametrize(
    ("call", "tool"),
    [
        (LOCAL_SHELL, LocalShellTool(lambda action: "hi")),
        (SHELL, SHELL_TOOL),
        (COMPUTER, COMPUTER_TOOL),
    ],
    ids=["local_shell_call", "shell_call", "computer_call"],
)


@PROVIDER_CALLS
async def test_a_provider_tools_call_is_a_tool_called_before_its_output(
    openai_server: ScriptedServer, call: dict[str, Any], tool: Any
) -> None:
    openai_server.script(Turn(items=[call]), Turn(text="Done."))
    agent = Agent("a", tools=[tool], model=openai_server.model("responses"))

    assert await streamed_events(agent) == [
        ("tool_called", "tool_call_item", call["type"]),
        ("tool_output", "tool_call_output_item", f"{call['type']}_output"),
        ("message_output_created", "message_output_item", "message"),
    ]


TURNS = (Turn(items=[REASONING, LOCAL_SHELL]), Turn(text="hi there"))


async def test_the_ui_protocols_take_a_shell_call_in_their_stride(
    openai_server: ScriptedServer,
) -> None:
    # A shell call has a call id but no name nor arguments: no call the client shows.
    agent = Agent(
        "a", tools=[LocalShellTool(lambda action: "hi")], model=openai_server.model("responses")
    )
    for written in await ui_streams(openai_server, agent, TURNS):
        assert "hi there" in written
        assert "error" not in written.lower()


def ag_ui_results(written: str) -> dict[str, str]:
    """Each `TOOL_CALL_RESULT`'s content by call id, checking that its call started first.

    Every frame is checked too: what `ag_ui.core`'s encoder writes for the event it holds.
    """
    started: set[str] = set()
    results: dict[str, str] = {}
    for frame in frames([written]):
        assert_official(frame)
        event = json.loads(frame[len("data: ") :])
        if event["type"] == "TOOL_CALL_START":
            started.add(event["toolCallId"])
        elif event["type"] == "TOOL_CALL_RESULT":
            assert event["toolCallId"] in started, f"a result for a call never started: {frame}"
            results[event["toolCallId"]] = event["content"]
        elif event.get("name") == "tooluse.call":
            assert event["value"]["call_id"] in started, f"a call never started: {frame}"
    return results


def vercel_outputs(written: str) -> dict[str, str]:
    """Each `tool-output-available`'s output by call id, checking that its call started first."""
    started: set[str] = set()
    outputs: dict[str, str] = {}
    for frame in frames([written])[:-1]:  # the last is [DONE]
        part = json.loads(frame[len("data: ") :])
        if part["type"] == "tool-input-start":
            started.add(part["toolCallId"])
        elif part["type"].startswith(("tool-output", "tool-approval")):
            assert part["toolCallId"] in started, f"an output for a call never started: {frame}"
            outputs[part["toolCallId"]] = part.get("output", "")
    return outputs


@PROVIDER_CALLS
async def test_the_ui_protocols_answer_only_the_calls_they_started(
    openai_server: ScriptedServer, call: dict[str, Any], tool: Any
) -> None:
    # A computer's or a shell's call is no tool call of the stream (it has no name nor
    # arguments), so its output is not written either: the protocols' clients refuse, or
    # keep as a stray, a result whose call never started. The function call beside it is
    # streamed, call and result. (Before, a computer's output broke the run, and a
    # shell's was a result for a call never started.)
    agent = Agent("a", tools=[tool, note], model=openai_server.model("responses"))
    turns = (Turn(items=[call], calls=[Call("note", '{"text": "x"}', "c1")]), Turn(text="Done."))

    ag_ui, vercel = await ui_streams(openai_server, agent, turns)

    assert ag_ui_results(ag_ui) == {"c1": "noted"}
    assert vercel_outputs(vercel) == {"c1": "noted"}
    for written in (ag_ui, vercel):
        assert "Done." in written
        assert "error" not in written.lower()
        assert call["call_id"] not in written


async def test_the_ui_protocols_answer_a_handoff_they_started(
    openai_server: ScriptedServer,
) -> None:
    # A handoff's call is a function call: it is streamed, call and answer.
    agent = Agent(
        "a",
        handoffs=[handoff(Agent("b", model=openai_server.model("responses")))],
        model=openai_server.model("responses"),
    )
    turns = (Turn(calls=[Call("transfer_to_b", "{}", "h1")]), Turn(text="Done."))

    ag_ui, vercel = await ui_streams(openai_server, agent, turns)

    assert list(ag_ui_results(ag_ui)) == ["h1"]
    assert list(vercel_outputs(vercel)) == ["h1"]
    for written in (ag_ui, vercel):
        assert "Done." in written


@pytest.mark.parametrize(
    ("call", "tool"),
    [(SHELL, SHELL_TOOL), (COMPUTER, COMPUTER_TOOL)],
    ids=["shell_call", "computer_call"],
)
@pytest.mark.parametrize("protocol", ["ag_ui", "vercel"])
def test_the_official_clients_read_a_provider_tools_turn_and_the_next(
    openai_server: ScriptedServer, call: dict[str, Any], tool: Any, protocol: str
) -> None:
    # Read by @ag-ui/client's HttpAgent and the `ai` package's readUIMessageStream, then
    # sent back as the client keeps it. Before: for a shell's call, the AG-UI client kept
    # a tool message answering no call, which the next turn sent back, refused as a
    # forged tool output; the `ai` parser threw ("No tool invocation found for tool call
    # ID"); a computer's call broke the run in both.
    openai_server.script(
        Turn(items=[call], calls=[Call("note", '{"text": "x"}', "c1")]),
        Turn(text="Done."),
        Turn(text="Again."),
    )
    agent = Agent("a", tools=[tool, note], model=openai_server.model("responses"))
    app = ag_ui_app(agent) if protocol == "ag_ui" else vercel_ai_app(agent)
    steps = json.dumps([{"user": "hi"}, {"user": "again"}])

    with serving(app) as base:
        first, second = node_script(f"{protocol}_client.mjs", base + "/", "t", steps)

    if protocol == "ag_ui":
        for step in (first, second):
            assert (step["outcome"], step["error"], step.get("thrown")) == ("success", None, None)
        messages = second["messages"]
        called = {c["id"] for m in messages for c in m["toolCalls"]}
        answered = [m["toolCallId"] for m in messages if m["role"] == "tool"]
        assert called == set(answered) == {"c1"}
        assert [m["content"] for m in messages if m["role"] == "assistant"][-1] == "Again."
    else:
        assert first["errors"] == second["errors"] == []
        tools = [p for p in first["message"]["parts"] if p["type"].startswith("tool-")]
        assert [(p["type"], p["toolCallId"], p["output"]) for p in tools] == [
            ("tool-note", "c1", "noted")
        ]
        assert [p["text"] for p in first["message"]["parts"] if p["type"] == "text"] == ["Done."]
        assert second["message"]["parts"][-1]["text"] == "Again."


@pytest.mark.parametrize(
    ("call", "tool_class", "tool", "line"),
    [
        (LOCAL_SHELL, "LocalShellTool", "LocalShellTool(lambda action: 'hi')", "local_shell"),
        # (a shell's output entries read "[None]" before)
        (SHELL, "ShellTool", "ShellTool(executor=lambda request: 'hi')", "shell"),
    ],
    ids=["local_shell_call", "shell_call"],
)
def test_the_chat_takes_a_shell_call_in_its_stride(
    openai_server: ScriptedServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    call: dict[str, Any],
    tool_class: str,
    tool: str,
    line: str,
) -> None:
    openai_server.script(Turn(items=[REASONING, call]), Turn(text="hi there"))

    shown = chat_says_hi(openai_server, tmp_path, monkeypatch, tool_class, tool)

    assert f"[tool] {line} -> hi\n" in shown
    assert "a> hi there\n" in shown
    assert "[error]" not in shown


@pytest.mark.parametrize("streamed", [False, True])
async def test_hosted_calls_with_no_message_ask_the_model_again(
    openai_server: ScriptedServer, streamed: bool
) -> None:
    # Ending the run there would answer "": the model has not answered yet (openai-agents
    # asks again too). With a message beside them, the turn is the last.
    openai_server.script(
        Turn(items=HOSTED_CALLS[:1]), Turn(items=HOSTED_CALLS[:1], text="Found it."), Turn("x")
    )
    agent = Agent("a", tools=[WebSearchTool()], model=openai_server.model("responses"))

    if streamed:
        result: RunResult | RunResultStreaming = Runner.run_streamed(agent, "hi")
        async for _ in result.stream_events():
            pass
    else:
        result = await Runner.run(agent, "hi")

    assert result.final_output == "Found it."
    assert len(openai_server.requests) == 2
    sent = openai_server.requests[1]["body"]["input"]
    assert [i.get("type", i.get("role")) for i in sent] == ["user", "web_search_call"]
