"""End to end: the real `openai` client, over HTTP, against a scripted server on 127.0.0.1."""

from __future__ import annotations

import json
from typing import Any, Literal

import pytest
from openai.types.responses import ToolParam
from pydantic import BaseModel, TypeAdapter

from tooluse import (
    Agent,
    CodeInterpreterTool,
    ComputerTool,
    FileSearchTool,
    HostedMCPTool,
    ImageGenerationTool,
    LocalShellTool,
    MaxTurnsExceeded,
    ModelSettings,
    RunContextWrapper,
    Runner,
    TextDeltaStreamEvent,
    UserError,
    WebSearchTool,
    function_tool,
)

from .openai_server import Call, ScriptedServer, Turn

APIS = ["responses", "chat"]


@function_tool
def get_weather(ctx: RunContextWrapper[dict[str, str]], city: str) -> str:
    """Get the weather in a city.

    Args:
        city: The city.
    """
    return f"{ctx.context['unit']} 21 in {city}"


@function_tool
async def get_time(city: str) -> str:
    """Get the local time in a city.

    Args:
        city: The city.
    """
    return f"12:00 in {city}"


async def run(agent: Agent[Any], streamed: bool, **kwargs: Any) -> tuple[Any, list[Any]]:
    if not streamed:
        return await Runner.run(agent, "Weather and time in Paris?", **kwargs), []
    result = Runner.run_streamed(agent, "Weather and time in Paris?", **kwargs)
    events = [event async for event in result.stream_events()]
    return result, events


def tool_outputs(api: str, body: dict[str, Any]) -> list[tuple[str, str]]:
    if api == "responses":
        return [
            (i["call_id"], i["output"])
            for i in body["input"]
            if i.get("type") == "function_call_output"
        ]
    return [(m["tool_call_id"], m["content"]) for m in body["messages"] if m["role"] == "tool"]


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("api", APIS)
async def test_tool_calling_conversation(
    openai_server: ScriptedServer, api: str, streamed: bool
) -> None:
    openai_server.script(
        Turn(
            calls=[Call("get_weather", '{"city": "Paris"}'), Call("get_time", '{"city": "Paris"}')]
        ),
        Turn(text="Sunny, 21 degrees, and it is noon."),
    )
    agent = Agent(
        "assistant",
        instructions="Be brief.",
        tools=[get_weather, get_time],
        model=openai_server.model(api),
    )
    result, events = await run(agent, streamed, context={"unit": "C"})

    assert result.final_output == "Sunny, 21 degrees, and it is noon."
    assert result.usage.requests == 2
    assert result.usage.total_tokens == 30
    first, second = (request["body"] for request in openai_server.requests)
    tools = first["tools"]
    if api == "responses":
        assert first["instructions"] == "Be brief."
        assert [t["name"] for t in tools] == ["get_weather", "get_time"]
        weather = tools[0]
    else:
        assert first["messages"][0] == {"role": "system", "content": "Be brief."}
        assert [t["function"]["name"] for t in tools] == ["get_weather", "get_time"]
        weather = tools[0]["function"]
    assert weather["strict"] is True
    assert list(weather["parameters"]["properties"]) == ["city"]  # the context is not there
    assert tool_outputs(api, second) == [("call_1", "C 21 in Paris"), ("call_2", "12:00 in Paris")]
    assert [i.get("type") for i in result.new_items] == [
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
        "message",
    ]
    if streamed:
        names = [getattr(e, "name", e.type) for e in events]
        assert names[0] == "agent_updated_stream_event"
        assert "raw_response_event" in names
        texts = [e.delta for e in events if isinstance(e, TextDeltaStreamEvent)]
        assert "".join(texts) == result.final_output  # the answer, in pieces, any API
        streamed_pieces = (
            "raw_response_event",
            "text_delta_event",
            "tool_call_arguments_delta_event",
        )
        assert [n for n in names if n not in streamed_pieces][1:] == [
            "usage_event",
            "tool_called",
            "tool_called",
            "tool_output",
            "tool_output",
            "usage_event",
            "message_output_created",
        ]
        assert result.is_complete


@pytest.mark.parametrize("api", APIS)
async def test_continuing_a_conversation(openai_server: ScriptedServer, api: str) -> None:
    openai_server.script(Turn(text="Hello!"), Turn(text="You said hi."))
    agent = Agent("assistant", model=openai_server.model(api))
    first = await Runner.run(agent, "hi")
    again = await Runner.run(
        agent, [*first.to_input_list(), {"role": "user", "content": "What did I say?"}]
    )
    assert again.final_output == "You said hi."
    body = openai_server.requests[1]["body"]
    history = body["input"] if api == "responses" else body["messages"]
    assert [m.get("role") for m in history] == ["user", "assistant", "user"]


@pytest.mark.parametrize("api", APIS)
async def test_parallel_tool_calls_only_with_tools(openai_server: ScriptedServer, api: str) -> None:
    openai_server.script(Turn(text="a"), Turn(text="b"))
    settings = ModelSettings(parallel_tool_calls=False, temperature=0.5)
    bare = Agent("bare", model=openai_server.model(api), model_settings=settings)
    tooled = bare.clone(tools=[get_time])
    await Runner.run(bare, "x")
    await Runner.run(tooled, "x")
    without, with_tools = (r["body"] for r in openai_server.requests)
    assert "parallel_tool_calls" not in without
    assert "tools" not in without
    assert with_tools["parallel_tool_calls"] is False
    assert with_tools["temperature"] == 0.5


@pytest.mark.parametrize("api", APIS)
async def test_forced_tool_choice_resets_after_a_tool_call(
    openai_server: ScriptedServer, api: str
) -> None:
    openai_server.script(Turn(calls=[Call("get_time", '{"city": "Oslo"}')]), Turn(text="done"))
    agent = Agent(
        "a",
        tools=[get_time],
        model=openai_server.model(api),
        model_settings=ModelSettings(tool_choice="get_time"),
    )
    await Runner.run(agent, "time?")
    first, second = (r["body"] for r in openai_server.requests)
    expected = (
        {"type": "function", "name": "get_time"}
        if api == "responses"
        else {"type": "function", "function": {"name": "get_time"}}
    )
    assert first["tool_choice"] == expected
    assert "tool_choice" not in second


class Forecast(BaseModel):
    city: str
    highs: dict[str, int]


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("api", APIS)
async def test_output_type(openai_server: ScriptedServer, api: str, streamed: bool) -> None:
    answer = {"city": "Oslo", "highs": [{"key": "mon", "value": 3}]}
    openai_server.script(Turn(text=json.dumps(answer)))
    agent = Agent("a", model=openai_server.model(api), output_type=Forecast)
    result, _ = await run(agent, streamed)
    assert result.final_output == Forecast(city="Oslo", highs={"mon": 3})
    body = openai_server.requests[0]["body"]
    fmt = body["text"]["format"] if api == "responses" else body["response_format"]["json_schema"]
    assert fmt["strict"] is True
    assert fmt["schema"]["properties"]["highs"]["type"] == "array"


@pytest.mark.parametrize("api", APIS)
async def test_max_turns_keeps_the_conversation(openai_server: ScriptedServer, api: str) -> None:
    openai_server.script(
        *(Turn(calls=[Call("get_time", '{"city": "Rome"}', f"c{i}")]) for i in range(3))
    )
    agent = Agent("a", tools=[get_time], model=openai_server.model(api))
    with pytest.raises(MaxTurnsExceeded) as raised:
        await Runner.run(agent, "loop", max_turns=2)
    assert raised.value.max_turns == 2
    assert len(raised.value.new_items) == 4
    assert raised.value.items[0] == {"role": "user", "content": "loop"}


HOSTED = [
    WebSearchTool(
        user_location={"type": "approximate", "city": "Paris"}, search_context_size="high"
    ),
    FileSearchTool(vector_store_ids=["vs_1"], max_num_results=3, include_search_results=True),
    CodeInterpreterTool(),
    HostedMCPTool(
        tool_config={
            "type": "mcp",
            "server_label": "docs",
            "server_url": "https://example.invalid/mcp",
            "require_approval": "never",
        }
    ),
    ImageGenerationTool(),
    LocalShellTool(executor=lambda action: "ok"),
]


async def test_hosted_tools_serialise_for_responses(openai_server: ScriptedServer) -> None:
    openai_server.script(Turn(text="ok"))
    agent = Agent("a", tools=[*HOSTED, get_time], model=openai_server.model("responses"))
    await Runner.run(agent, "x")
    body = openai_server.requests[0]["body"]
    assert body["tools"][:-1] == [tool.to_tool_param() for tool in HOSTED]
    assert body["include"] == ["file_search_call.results"]
    for param in body["tools"]:
        TypeAdapter(ToolParam).validate_python(param)


@pytest.mark.parametrize("tool", HOSTED, ids=lambda t: type(t).__name__)
async def test_hosted_tool_on_a_chat_model_fails_before_any_request(
    openai_server: ScriptedServer, tool: Any
) -> None:
    agent = Agent("a", tools=[tool], model=openai_server.model("chat"))
    with pytest.raises(
        UserError, match=r"works only with the Responses API: use OpenAIResponsesModel"
    ):
        await Runner.run(agent, "x")
    assert openai_server.requests == []


async def test_local_shell_calls_run_locally(openai_server: ScriptedServer) -> None:
    seen: list[Any] = []

    def executor(action: dict[str, Any]) -> str:
        seen.append(action)
        return "file.txt"

    action: dict[str, Any] = {"type": "exec", "command": ["ls"], "env": {}}
    shell_call: dict[str, Any] = {
        "type": "local_shell_call",
        "id": "ls_1",
        "call_id": "call_ls",
        "status": "completed",
        "action": action,
    }
    openai_server.script(Turn(items=[shell_call]), Turn(text="There is file.txt."))
    agent = Agent("a", tools=[LocalShellTool(executor)], model=openai_server.model("responses"))
    result = await Runner.run(agent, "ls")
    assert result.final_output == "There is file.txt."
    assert seen == [action]
    sent = openai_server.requests[1]["body"]["input"]
    assert sent[-1] == {"type": "local_shell_call_output", "id": "call_ls", "output": "file.txt"}


async def test_hosted_tool_items_are_kept_and_sent_back(openai_server: ScriptedServer) -> None:
    search = {
        "type": "web_search_call",
        "id": "ws_1",
        "status": "completed",
        "action": {"type": "search", "query": "paris"},
    }
    openai_server.script(
        Turn(items=[search], calls=[Call("get_time", '{"city": "Paris"}')]),
        Turn(text="Found it."),
    )
    agent = Agent("a", tools=[WebSearchTool(), get_time], model=openai_server.model("responses"))
    result = await Runner.run(agent, "search")
    assert result.new_items[0]["type"] == "web_search_call"
    sent = openai_server.requests[1]["body"]["input"]
    assert [i.get("type") for i in sent] == [
        None,
        "web_search_call",
        "function_call",
        "function_call_output",
    ]


class FakeComputer:
    def __init__(self) -> None:
        self.actions: list[tuple[str, Any]] = []

    @property
    def environment(self) -> Literal["browser"]:
        return "browser"

    @property
    def dimensions(self) -> tuple[int, int]:
        return (800, 600)

    def screenshot(self) -> str:
        return "UE5H"

    async def click(self, x: int, y: int, button: str) -> None:
        self.actions.append(("click", (x, y, button)))

    def double_click(self, x: int, y: int) -> None: ...
    def scroll(self, x: int, y: int, scroll_x: int, scroll_y: int) -> None: ...
    def type(self, text: str) -> None:
        self.actions.append(("type", text))

    def wait(self) -> None: ...
    def move(self, x: int, y: int) -> None: ...
    def keypress(self, keys: list[str]) -> None: ...
    def drag(self, path: list[dict[str, int]]) -> None: ...


async def test_computer_actions_run_locally(openai_server: ScriptedServer) -> None:
    computer = FakeComputer()
    click: dict[str, Any] = {
        "type": "computer_call",
        "id": "cu_1",
        "call_id": "call_cu",
        "status": "completed",
        "action": {"type": "click", "x": 10, "y": 20, "button": "left"},
        "pending_safety_checks": [{"id": "sc_1", "code": "x", "message": "careful"}],
    }
    openai_server.script(Turn(items=[click]), Turn(text="Clicked."))
    agent = Agent("a", tools=[ComputerTool(computer)], model=openai_server.model("responses"))
    result = await Runner.run(agent, "click it")
    assert result.final_output == "Clicked."
    assert computer.actions == [("click", (10, 20, "left"))]
    first, second = (r["body"] for r in openai_server.requests)
    assert first["tools"] == [
        {
            "type": "computer_use_preview",
            "environment": "browser",
            "display_width": 800,
            "display_height": 600,
        }
    ]
    assert second["input"][-1] == {
        "type": "computer_call_output",
        "call_id": "call_cu",
        "output": {"type": "computer_screenshot", "image_url": "data:image/png;base64,UE5H"},
        "acknowledged_safety_checks": [{"id": "sc_1", "code": "x", "message": "careful"}],
    }


async def test_hosted_mcp_approval_requests_are_answered(openai_server: ScriptedServer) -> None:
    asked: list[dict[str, Any]] = []

    async def approve(request: dict[str, Any]) -> dict[str, Any]:
        asked.append(request)
        return {"approve": False, "reason": "not today"}

    config: Any = {
        "type": "mcp",
        "server_label": "docs",
        "server_url": "https://example.invalid/mcp",
    }
    request: dict[str, Any] = {
        "type": "mcp_approval_request",
        "id": "apr_1",
        "name": "delete",
        "arguments": "{}",
        "server_label": "docs",
    }
    openai_server.script(Turn(items=[request]), Turn(text="Not deleted."))
    agent = Agent(
        "a",
        tools=[HostedMCPTool(config, on_approval_request=approve)],
        model=openai_server.model("responses"),
    )
    result = await Runner.run(agent, "delete it")
    assert result.final_output == "Not deleted."
    assert asked[0]["id"] == "apr_1"
    assert openai_server.requests[1]["body"]["input"][-1] == {
        "type": "mcp_approval_response",
        "approval_request_id": "apr_1",
        "approve": False,
        "reason": "not today",
    }
