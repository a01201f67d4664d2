"""A streamed run's item events for reasoning and the calls of hosted and provider tools.

openai-agents streams a `reasoning` item as `reasoning_item_created` (a `ReasoningItem`)
and each of `web_search_call`, `file_search_call`, `code_interpreter_call`,
`image_generation_call`, `computer_call`, `local_shell_call` and `shell_call` as
`tool_called` (a `ToolCallItem`), in the response's order. The expected sequences below
are what openai-agents 0.24 streamed for the same scripts on the same local server
(measured by running both SDKs on it). Runs go through the real `openai` client.
"""

from __future__ import annotations

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
)

from .openai_server import ScriptedServer, Turn
from .test_e2e import FakeComputer
from .test_hosted_mcp_items import chat_says_hi, ui_streams

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


@pytest.mark.parametrize(
    ("call", "tool"),
    [
        (LOCAL_SHELL, LocalShellTool(lambda action: "hi")),
        (SHELL, ShellTool(executor=lambda request: "hi")),
        (COMPUTER, ComputerTool(FakeComputer())),
    ],
    ids=["local_shell_call", "shell_call", "computer_call"],
)
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


def test_the_chat_takes_a_shell_call_in_its_stride(
    openai_server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    openai_server.script(*TURNS)
    tool = "LocalShellTool(lambda action: 'hi')"

    shown = chat_says_hi(openai_server, tmp_path, monkeypatch, "LocalShellTool", tool)

    assert "[tool] local_shell -> hi\n" in shown
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
