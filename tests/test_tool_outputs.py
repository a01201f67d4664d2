"""Rich tool outputs: images and files a tool returns, as input parts or, in Chat, a line each."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import mcp_types
import pytest

from tooluse import (
    Agent,
    FunctionTool,
    RunContextWrapper,
    RunHooks,
    Runner,
    ToolGuardrailFunctionOutput,
    ToolOutputFileContent,
    ToolOutputImage,
    ToolOutputText,
    UserError,
    function_tool,
    tool_output_guardrail,
)
from tooluse.mcp._results import result_output
from tooluse.models._chat_conversion import items_to_messages
from tooluse.testing import FunctionModel, ModelReply, TestModel, ToolCall
from tooluse.tools._outputs import part_text, parts_text, rich_parts
from tooluse.tracing._tracer import _output_text  # pyright: ignore[reportPrivateUsage]

from .conftest import model_text, tool_context
from .openai_server import Call, ScriptedServer, Turn

PNG = "data:image/png;base64,iVBORw0KGgo="
PDF = "data:application/pdf;base64,JVBERi0xLjQK"


@function_tool
def chart(city: str) -> list[ToolOutputText | ToolOutputImage | ToolOutputFileContent]:
    """The weather chart of a city, and its report."""
    return [
        ToolOutputText(text=f"Chart for {city}:"),
        ToolOutputImage(image_url=PNG, detail="low"),
        ToolOutputFileContent(file_data=PDF, filename="report.pdf"),
    ]


PARTS = [
    {"type": "input_text", "text": "Chart for Oslo:"},
    {"type": "input_image", "image_url": PNG, "detail": "low"},
    {"type": "input_file", "file_data": PDF, "filename": "report.pdf"},
]
TEXT = "Chart for Oslo:\n[image: image/png, 9 bytes]\n[file: report.pdf]"


class Ends(RunHooks[Any]):
    def __init__(self) -> None:
        self.results: list[str] = []

    async def on_tool_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], tool: Any, result: str
    ) -> None:
        self.results.append(result)


@pytest.mark.parametrize("api", ["responses", "chat"])
async def test_images_and_files_reach_the_model(openai_server: ScriptedServer, api: str) -> None:
    openai_server.script(Turn(calls=[Call("chart", '{"city": "Oslo"}', "c1")]), Turn(text="ok"))
    hooks = Ends()
    agent = Agent("a", tools=[chart], model=openai_server.model(api))
    result = await Runner.run(agent, "go", hooks=hooks)
    assert result.final_output == "ok"
    body = openai_server.requests[1]["body"]
    if api == "responses":
        (output,) = [item["output"] for item in body["input"] if "output" in item]
        assert output == PARTS
    else:  # a tool message holds text only
        (content,) = [m["content"] for m in body["messages"] if m["role"] == "tool"]
        assert content == [{"type": "text", "text": line} for line in TEXT.splitlines()]
    assert result.new_items[1]["output"] == PARTS  # the run's items keep the parts
    assert hooks.results == [TEXT]  # hooks (and traces) get the text form


async def test_a_paused_run_keeps_the_parts_in_its_state() -> None:
    @function_tool(needs_approval=True)
    def delete() -> str:
        """Delete it."""
        return "deleted"

    def reply(items: list[Any], tools: Any) -> ModelReply:
        done = any(item.get("type") == "function_call_output" for item in items)
        call = ToolCall("delete", {}) if done else ToolCall("chart", {"city": "Oslo"})
        return ModelReply(tool_calls=[call])

    agent = Agent("a", tools=[chart, delete], model=FunctionModel(reply))
    result = await Runner.run(agent, "go")
    assert result.interruptions
    state = result.to_state().to_json()
    assert PARTS in [item.get("output") for item in state["new_items"]]


async def test_the_value_returned_reaches_tool_use_behavior_and_guardrails() -> None:
    seen: list[Any] = []

    @tool_output_guardrail
    def look(data: Any) -> ToolGuardrailFunctionOutput:
        seen.append(data.output)
        return ToolGuardrailFunctionOutput.allow()

    @function_tool(tool_output_guardrails=[look])
    def picture() -> ToolOutputImage:
        """A picture."""
        return ToolOutputImage(file_id="file-1")

    model = FunctionModel(lambda items, tools: ModelReply(tool_calls=[ToolCall("picture", {})]))
    agent = Agent("a", tools=[picture], model=model, tool_use_behavior="stop_on_first_tool")
    result = await Runner.run(agent, "go")
    assert result.final_output == ToolOutputImage(file_id="file-1")
    assert seen == [ToolOutputImage(file_id="file-1")]


async def test_a_guardrail_that_replaces_a_rich_output_gives_text() -> None:
    @tool_output_guardrail
    def hide(data: Any) -> ToolGuardrailFunctionOutput:
        return ToolGuardrailFunctionOutput.reject_content("no pictures")

    @function_tool(tool_output_guardrails=[hide])
    def picture() -> ToolOutputImage:
        """A picture."""
        return ToolOutputImage(image_url=PNG)

    def reply(items: list[Any], tools: Any) -> ModelReply | str:
        outputs = [item["output"] for item in items if item.get("type") == "function_call_output"]
        return json.dumps(outputs) if outputs else ModelReply(tool_calls=[ToolCall("picture", {})])

    result = await Runner.run(Agent("a", tools=[picture], model=FunctionModel(reply)), "go")
    assert json.loads(result.final_output) == ["no pictures"]


async def test_a_hand_built_tool_and_a_result_can_return_rich_outputs() -> None:
    async def invoke(ctx: Any, arguments: str) -> Any:
        return {"type": "image", "image_url": PNG}  # the dict form

    built = FunctionTool("snap", "A snapshot.", {"type": "object", "properties": {}}, invoke)
    result = await Runner.run(Agent("a", tools=[built], model=TestModel()), "go")
    assert result.new_items[1]["output"] == [{"type": "input_image", "image_url": PNG}]
    assert json.loads(result.final_output) == {"snap": "[image: image/png, 9 bytes]"}


async def test_a_direct_call_gives_the_outputs_and_a_run_their_text_form() -> None:
    arguments = '{"city": "Oslo"}'
    outputs = await chart.on_invoke_tool(tool_context("chart", arguments), arguments)
    assert outputs == chart.__wrapped__("Oslo")  # as openai-agents' direct call gives them
    assert await model_text(chart, arguments) == TEXT


def test_which_returns_are_rich() -> None:
    assert rich_parts("text") is None
    assert rich_parts({"type": "text"}) is None  # no text: an ordinary dict
    assert rich_parts({"type": "image", "image_url": PNG, "alt": "x"}) is None  # a key too many
    assert rich_parts([ToolOutputText(text="a"), "b"]) is None  # not all rich: JSON, as before
    assert rich_parts([]) is None
    assert rich_parts({"type": "text", "text": "hi"}) == [{"type": "input_text", "text": "hi"}]
    assert rich_parts([{"type": "file", "file_id": "f-1"}, ToolOutputText(text="x")]) == [
        {"type": "input_file", "file_id": "f-1"},
        {"type": "input_text", "text": "x"},
    ]
    assert rich_parts(ToolOutputText(text="\ud800")) == [{"type": "input_text", "text": "\ufffd"}]


def test_an_output_without_a_source_is_refused() -> None:
    with pytest.raises(UserError, match="ToolOutputImage needs an image_url or a file_id"):
        ToolOutputImage()
    with pytest.raises(UserError, match="needs a file_data, a file_url or a file_id"):
        ToolOutputFileContent(filename="a.pdf")


def test_the_text_form_says_what_each_part_is_without_its_data() -> None:
    assert part_text({"type": "input_image", "file_id": "file-1"}) == "[image: file file-1]"
    assert part_text({"type": "input_image", "image_url": "https://x/a.png"}) == (
        "[image: https://x/a.png]"
    )
    assert part_text({"type": "input_file", "file_url": "https://x/a.pdf"}) == (
        "[file: https://x/a.pdf]"
    )
    assert part_text({"type": "input_file", "file_data": "data:text/plain,hello"}) == (
        "[file: text/plain, 5 bytes]"
    )
    assert part_text({"type": "input_image", "image_url": "x" * 300}).endswith("...]")
    assert part_text({"type": "input_audio"}) == "[input_audio part]"
    assert parts_text([{"type": "text", "text": "a"}]) == "a"
    assert _output_text(PARTS) == TEXT
    assert _output_text("plain") == "plain"


def test_chat_refuses_a_tool_output_part_it_cannot_say_in_words() -> None:
    items: list[dict[str, Any]] = [
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": [{"type": "input_audio"}]},
    ]
    with pytest.raises(UserError, match="a Chat Completions tool message holds text parts only"):
        items_to_messages(None, items)


async def test_a_hand_built_tool_returning_what_str_cannot_write_gets_the_internal_error() -> None:
    async def invoke(ctx: Any, arguments: str) -> Any:
        return 10**5000  # past Python's str() limit

    built = FunctionTool("odd", "Odd.", {"type": "object", "properties": {}}, invoke)
    result = await Runner.run(Agent("a", tools=[built], model=TestModel()), "go")
    assert "internal error (UnwritableOutput)" in result.new_items[1]["output"]


def test_an_mcp_block_of_an_unknown_kind_is_named() -> None:
    block = SimpleNamespace(type="video")
    result = mcp_types.CallToolResult.model_construct(content=[block], structured_content=None)
    assert result_output(result) == {"type": "text", "text": "[video content]"}
