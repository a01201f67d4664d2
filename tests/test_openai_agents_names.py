"""openai-agents' names in tooluse: what each does, checked by its effect.

Items as objects, the trace API on OpenTelemetry, handoff input data, hook contexts,
the attributes openai-agents' results have, and the behaviours its examples rely on.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import tooluse
from tooluse import (
    Agent,
    AgentHookContext,
    HandoffCallItem,
    HandoffInputData,
    HandoffOutputItem,
    ItemHelpers,
    MessageOutputItem,
    RunContextWrapper,
    RunHooks,
    Runner,
    ToolApprovalItem,
    ToolCallItem,
    ToolCallOutputItem,
    UserError,
    function_tool,
    handoff,
    handoff_filters,
)
from tooluse.testing import FunctionModel, ModelReply, ToolCall

from .openai_server import Call, ScriptedServer, Turn
from .test_tracing import run_python


@function_tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def calls_add_then_answers(messages: list[Any], tools: Any) -> ModelReply | str:
    if any(item.get("type") == "function_call_output" for item in messages):
        return "The sum is 3."
    return ModelReply(tool_calls=[ToolCall("add", {"a": 1, "b": 2})])


def test_tool_is_function_tool() -> None:
    assert tooluse.tool is tooluse.function_tool

    @tooluse.tool
    def double(x: int) -> int:
        """Double it."""
        return 2 * x

    assert isinstance(double, tooluse.FunctionTool)
    assert double.name == "double"


async def test_new_items_are_item_objects_that_read_as_their_dicts() -> None:
    agent = Agent("calc", tools=[add], model=FunctionModel(calls_add_then_answers))
    result = await Runner.run(agent, "1 + 2?")

    call, output, message = result.new_items
    assert [type(i) for i in result.new_items] == [
        ToolCallItem,
        ToolCallOutputItem,
        MessageOutputItem,
    ]
    assert [i.type for i in result.new_items] == [
        "tool_call_item",
        "tool_call_output_item",
        "message_output_item",
    ]
    assert all(i.agent is agent for i in result.new_items)
    # openai-agents' attribute reading, and tooluse's dict reading, of the same item
    assert call.raw_item.name == "add"
    assert call["name"] == "add"
    assert call.get("name") == "add"
    assert isinstance(call.raw_item, dict)
    assert "arguments" in call
    assert isinstance(output, ToolCallOutputItem)
    assert output.output == "3"
    assert output["output"] == "3"
    assert ItemHelpers.text_message_output(message) == "The sum is 3."
    assert ItemHelpers.text_message_outputs(result.new_items) == "The sum is 3."
    # the conversation to continue with stays dicts, JSON-ready
    assert all(type(item) is dict for item in result.to_input_list())
    json.dumps(result.to_input_list())
    assert result.new_items == [dict(i.raw_item) for i in result.new_items]


async def test_a_streamed_run_hands_out_item_objects_and_a_live_view() -> None:
    agent = Agent("calc", tools=[add], model=FunctionModel(calls_add_then_answers))
    result = Runner.run_streamed(agent, "1 + 2?")
    seen: list[tuple[str, str, int]] = []
    async for event in result.stream_events():
        if event.type == "run_item_stream_event":
            seen.append((event.name, event.item.type, len(result.new_items)))
            assert result.new_items[len(seen) - 1].raw_item == event.item.raw_item
            assert event.item.agent is agent
            assert result.current_agent is agent
    assert [(name, kind) for name, kind, _ in seen] == [
        ("tool_called", "tool_call_item"),
        ("tool_output", "tool_call_output_item"),
        ("message_output_created", "message_output_item"),
    ]
    # the view is the run's own list: each item is there by the time its event is read
    assert all(length >= index for index, (_, _, length) in enumerate(seen, 1))
    assert len(result.new_items) == 3
    assert result.last_agent is agent


async def test_handoff_items_name_both_agents_and_the_filter_gets_handoff_input_data() -> None:
    received: list[HandoffInputData] = []

    def keep_messages(data: HandoffInputData) -> HandoffInputData:
        received.append(data)
        return handoff_filters.remove_all_tools(data)

    def spanish_model(messages: list[Any], tools: Any) -> str:
        kinds = [m.get("type", "message") for m in messages]
        return f"Hola ({', '.join(kinds)})"

    spanish = Agent("spanish", model=FunctionModel(spanish_model))

    def triage_model(messages: list[Any], tools: Any) -> ModelReply:
        return ModelReply(tool_calls=[ToolCall("transfer_to_spanish", {})])

    triage = Agent(
        "triage",
        handoffs=[handoff(spanish, input_filter=keep_messages)],
        model=FunctionModel(triage_model),
    )
    result = await Runner.run(triage, "hola")

    call, answer, message = result.new_items
    assert isinstance(call, HandoffCallItem)
    assert call.agent is triage
    assert isinstance(answer, HandoffOutputItem)
    assert (answer.source_agent, answer.target_agent) == (triage, spanish)
    assert message.agent is spanish
    (data,) = received
    assert data.input_history == ({"content": "hola", "role": "user"},)
    assert [type(i) for i in data.new_items] == [HandoffCallItem, HandoffOutputItem]
    assert data.pre_handoff_items == ()
    assert isinstance(data.run_context, RunContextWrapper)
    # the filter took the call and its answer out of what the next agent saw
    assert result.final_output == "Hola (message)"


async def test_a_filter_written_over_a_list_still_works() -> None:
    spanish = Agent("spanish", model=FunctionModel(lambda messages, tools: str(len(messages))))
    triage = Agent(
        "triage",
        handoffs=[handoff(spanish, input_filter=lambda items: list(items)[:1])],
        model=FunctionModel(lambda m, t: ModelReply(tool_calls=[ToolCall("transfer_to_spanish")])),
    )
    assert (await Runner.run(triage, "hola")).final_output == "1"


async def test_start_hooks_get_the_turn_input_and_the_result_has_the_context() -> None:
    inputs: list[list[Any]] = []

    class Hooks(RunHooks):
        async def on_agent_start(self, context: AgentHookContext[Any], agent: Agent[Any]) -> None:
            assert context.context == {"user": "ada"}
            inputs.append(list(context.turn_input))

    agent = Agent("a", model=FunctionModel(lambda m, t: "hi"))
    result = await Runner.run(agent, "hello", context={"user": "ada"}, hooks=Hooks())
    assert inputs == [[{"content": "hello", "role": "user"}]]
    assert result.context_wrapper is not None
    assert result.context_wrapper.context == {"user": "ada"}


async def test_approval_items_name_their_agent_and_a_resumed_run_keeps_the_context() -> None:
    seen: list[Any] = []

    @function_tool(needs_approval=True)
    def publish(ctx: RunContextWrapper[dict[str, str]], title: str) -> str:
        """Publish a post."""
        seen.append(ctx.context)
        return f"published {title}"

    def model(messages: list[Any], tools: Any) -> ModelReply | str:
        if any(m.get("type") == "function_call_output" for m in messages):
            return "done"
        return ModelReply(tool_calls=[ToolCall("publish", {"title": "t"})])

    agent = Agent("ops", tools=[publish], model=FunctionModel(model))
    result = await Runner.run(agent, "publish", context={"team": "x"})
    (approval,) = result.interruptions
    assert isinstance(approval, ToolApprovalItem)
    assert approval.agent is agent
    assert approval.raw_item.name == "publish"
    state = result.to_state()
    state.approve(approval)
    resumed = await Runner.run(agent, state)  # no context= : the paused run's is kept
    assert resumed.final_output == "done"
    assert seen == [{"team": "x"}]


async def test_output_type_str_answers_in_plain_text() -> None:
    server = ScriptedServer()
    server.start()
    try:
        server.script(Turn(text="a plain story"))
        agent = Agent("writer", output_type=str, model=server.model("responses"))
        result = await Runner.run(agent, "a story")
    finally:
        server.stop()
    assert result.final_output == "a plain story"
    assert "format" not in (server.requests[0]["body"].get("text") or {})


async def test_as_tool_is_enabled_gets_the_runs_context() -> None:
    asked: list[Any] = []

    def enabled(ctx: RunContextWrapper[Any], agent: Agent[Any]) -> bool:
        asked.append(ctx.context)
        return True

    helper = Agent("helper", model=FunctionModel(lambda m, t: "helped"))
    tool = helper.as_tool(tool_name="ask_helper", tool_description="Ask.", is_enabled=enabled)
    agent = Agent("main", tools=[tool], model=FunctionModel(lambda m, t: "ok"))
    await Runner.run(agent, "hi", context={"lang": "fr"})
    assert asked == [{"lang": "fr"}]


def test_the_trace_api_makes_otel_ids_and_refuses_what_it_cannot_do() -> None:
    trace_id = tooluse.gen_trace_id()
    assert trace_id.startswith("trace_")
    assert len(trace_id) == 38
    assert int(trace_id[6:], 16)
    span_id = tooluse.gen_span_id()
    assert span_id.startswith("span_")
    assert len(span_id) == 29  # openai-agents' 24 digits: a 64-bit OTel span id, zero-padded
    assert int(span_id[5:], 16) < 2**64
    with pytest.raises(UserError, match=r"trace_id='nope'.*gen_trace_id"):
        tooluse.trace("w", trace_id="nope")
    with pytest.raises(UserError, match=r"never sends traces to OpenAI.*set_trace_processors"):
        tooluse.set_tracing_export_api_key("k")
    with pytest.raises(UserError, match=r"add_trace_processor\(\): processor is object"):
        tooluse.add_trace_processor(object())  # pyright: ignore[reportArgumentType]


TRACED_WORKFLOW = """
from opentelemetry import trace as otel
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tooluse import Agent, Runner, custom_span, gen_trace_id, set_tracing_disabled, trace
from tooluse.testing import FunctionModel

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
otel.set_tracer_provider(provider)

agent = Agent("a", model=FunctionModel(lambda m, t: "hi"))
trace_id = gen_trace_id()
with trace("Joke workflow", trace_id=trace_id, group_id="chat-1") as t:
    Runner.run_sync(agent, "one")
    with custom_span("my step", data={"n": 1}):
        Runner.run_sync(agent, "two")
assert t.trace_id == trace_id, (t.trace_id, trace_id)
set_tracing_disabled(True)
with trace("Not recorded"):
    Runner.run_sync(agent, "three")
spans = exporter.get_finished_spans()
names = {s.context.span_id: s.name for s in spans}
for s in sorted(spans, key=lambda s: s.start_time):
    parent = names.get(s.parent.span_id, "-") if s.parent else "-"
    same = f"{s.context.trace_id:032x}" == trace_id[6:]
    print(s.name, "<", parent, same, dict(s.attributes).get("tooluse.data.n", ""))
print(dict(next(s for s in spans if s.name == "Joke workflow").attributes))
"""


def test_a_trace_block_is_a_span_the_runs_nest_under() -> None:
    lines = run_python(TRACED_WORKFLOW).splitlines()
    assert lines == [
        "Joke workflow < - True ",
        "invoke_workflow Agent workflow < Joke workflow True ",
        "invoke_agent a < invoke_workflow Agent workflow True ",
        "chat function:<lambda> < invoke_agent a True ",
        "my step < Joke workflow True 1",
        "invoke_workflow Agent workflow < my step True ",
        "invoke_agent a < invoke_workflow Agent workflow True ",
        "chat function:<lambda> < invoke_agent a True ",
        "{'gen_ai.workflow.name': 'Joke workflow', 'gen_ai.conversation.id': 'chat-1'}",
    ]


def test_set_default_openai_key_is_the_default_clients_key(monkeypatch: pytest.MonkeyPatch) -> None:
    from tooluse.models import default_openai_client

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_ADMIN_KEY", raising=False)
    # the process-wide defaults, put back after the test
    monkeypatch.setattr("tooluse.models._defaults._client", None)
    monkeypatch.setattr("tooluse.models._defaults._client_given", False)
    monkeypatch.setattr("tooluse.models._defaults._key", None)
    tooluse.set_default_openai_key("sk-set-in-code")
    assert default_openai_client().api_key == "sk-set-in-code"


def test_is_gpt_5_default_reads_the_default_model(monkeypatch: pytest.MonkeyPatch) -> None:
    from tooluse.models import is_gpt_5_default

    monkeypatch.delenv("OPENAI_DEFAULT_MODEL", raising=False)
    assert is_gpt_5_default()  # gpt-5.6-luna, as in openai-agents 0.24
    monkeypatch.setenv("OPENAI_DEFAULT_MODEL", "gpt-4.1")
    assert not is_gpt_5_default()


async def test_server_answers_the_item_objects_streamed_over_http() -> None:
    server = ScriptedServer()
    server.start()
    try:
        server.script(Turn(calls=[Call("add", '{"a": 1, "b": 2}')]), Turn(text="3"))
        agent = Agent("calc", tools=[add], model=server.model("responses"))
        result = Runner.run_streamed(agent, "1 + 2?")
        names = [
            getattr(event.item.raw_item, "name", "-")
            async for event in result.stream_events()
            if event.type == "run_item_stream_event"
        ]
    finally:
        server.stop()
    assert names == ["add", "-", "-"]
