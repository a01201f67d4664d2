"""The loop's rules, with scripted models: tool use behaviours, enabling, instructions, settings."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import pytest

from tooluse import (
    Agent,
    FunctionToolResult,
    ModelSettings,
    RunConfig,
    RunContextWrapper,
    Runner,
    RunResult,
    RunState,
    StopAtTools,
    ToolsToFinalOutputResult,
    TResponseInputItem,
    UserError,
    function_tool,
)
from tooluse.models import ModelRequest, ModelResponse, resolve_model, set_default_openai_api
from tooluse.models._base import Tool
from tooluse.run._run_items import RunItems
from tooluse.testing import FunctionModel, ModelReply, TestModel, ToolCall


@function_tool
def double(n: int) -> int:
    """Double a number.

    Args:
        n: The number.
    """
    return n * 2


@function_tool
def shout(text: str) -> str:
    """Shout.

    Args:
        text: What to shout.
    """
    return text.upper()


def outputs(items: list[TResponseInputItem]) -> list[str]:
    return [i["output"] for i in items if i.get("type") == "function_call_output"]


def two_calls_then_text(items: list[TResponseInputItem], tools: Sequence[Tool]) -> ModelReply | str:
    if not outputs(items):
        return ModelReply(
            tool_calls=[ToolCall("double", {"n": 4}), ToolCall("shout", {"text": "hi"})]
        )
    return "done: " + ", ".join(outputs(items))


class TestToolUseBehavior:
    async def test_run_llm_again(self) -> None:
        agent = Agent("a", tools=[double, shout], model=FunctionModel(two_calls_then_text))
        result = await Runner.run(agent, "go")
        assert result.final_output == "done: 8, HI"

    async def test_stop_on_first_tool(self) -> None:
        agent = Agent(
            "a",
            tools=[double, shout],
            model=FunctionModel(two_calls_then_text),
            tool_use_behavior="stop_on_first_tool",
        )
        result = await Runner.run(agent, "go")
        assert result.final_output == 8  # the value the tool returned, as in openai-agents
        assert len(result.raw_responses) == 1

    async def test_stop_at_tools(self) -> None:
        agent = Agent(
            "a",
            tools=[double, shout],
            model=FunctionModel(two_calls_then_text),
            tool_use_behavior=StopAtTools(stop_at_tool_names=["shout"]),
        )
        assert (await Runner.run(agent, "go")).final_output == "HI"
        agent = agent.clone(tool_use_behavior={"stop_at_tool_names": ["other"]})
        assert (await Runner.run(agent, "go")).final_output == "done: 8, HI"

    @pytest.mark.parametrize("is_async", [False, True])
    async def test_custom_function(self, is_async: bool) -> None:
        def decide(
            ctx: RunContextWrapper[Any], results: list[FunctionToolResult]
        ) -> ToolsToFinalOutputResult:
            return ToolsToFinalOutputResult(
                True, sum(int(r.output) for r in results if r.tool.name == "double")
            )

        async def decide_async(
            ctx: RunContextWrapper[Any], results: list[FunctionToolResult]
        ) -> ToolsToFinalOutputResult:
            return decide(ctx, results)

        agent = Agent(
            "a",
            tools=[double, shout],
            model=FunctionModel(two_calls_then_text),
            tool_use_behavior=decide_async if is_async else decide,
        )
        assert (await Runner.run(agent, "go")).final_output == 8


async def test_tool_calls_run_concurrently_and_outputs_keep_call_order() -> None:
    barrier = threading.Barrier(2, timeout=5)

    @function_tool
    def slow(tag: str) -> str:
        barrier.wait()  # both calls must be running at once to get past this
        return tag

    def reply(items: list[TResponseInputItem], tools: Sequence[Tool]) -> ModelReply | str:
        if not outputs(items):
            return ModelReply(
                tool_calls=[ToolCall("slow", {"tag": "first"}), ToolCall("slow", {"tag": "second"})]
            )
        return ",".join(outputs(items))

    result = await Runner.run(Agent("a", tools=[slow], model=FunctionModel(reply)), "go")
    assert result.final_output == "first,second"


async def test_unknown_tool_gets_a_message_and_the_run_goes_on() -> None:
    def reply(items: list[TResponseInputItem], tools: Sequence[Tool]) -> ModelReply | str:
        if not outputs(items):
            return ModelReply(tool_calls=[ToolCall("tripple", {"n": 1})])
        return outputs(items)[0]

    result = await Runner.run(Agent("a", tools=[double], model=FunctionModel(reply)), "go")
    assert result.final_output == "Tool 'tripple' does not exist. Available tools: double."


async def test_disabled_tools_are_not_offered() -> None:
    offered: list[list[str]] = []

    def reply(items: list[TResponseInputItem], tools: Sequence[Tool]) -> str:
        offered.append([t.name for t in tools])
        return "ok"

    def only_for_admins(ctx: RunContextWrapper[dict[str, bool]], agent: Agent[Any]) -> bool:
        return ctx.context["admin"]

    async def never(ctx: RunContextWrapper[Any], agent: Agent[Any]) -> bool:
        return False

    admin_tool = function_tool(name_override="admin", is_enabled=only_for_admins)(lambda: "x")  # pyright: ignore[reportUnknownLambdaType]
    hidden = function_tool(name_override="hidden", is_enabled=never)(lambda: "x")  # pyright: ignore[reportUnknownLambdaType]
    off = function_tool(name_override="off", is_enabled=False)(lambda: "x")  # pyright: ignore[reportUnknownLambdaType]
    agent = Agent("a", tools=[double, admin_tool, hidden, off], model=FunctionModel(reply))
    await Runner.run(agent, "go", context={"admin": False})
    await Runner.run(agent, "go", context={"admin": True})
    assert offered == [["double"], ["double", "admin"]]


async def test_instructions_from_a_function() -> None:
    seen: list[str | None] = []

    class Spy(FunctionModel):
        async def get_response(self, request: ModelRequest) -> ModelResponse:
            seen.append(request.instructions)
            return await super().get_response(request)

    async def instructions(ctx: RunContextWrapper[str], agent: Agent[Any]) -> str:
        return f"You help {ctx.context} as {agent.name}."

    agent = Agent("bot", instructions=instructions, model=Spy(lambda items, tools: "ok"))
    await Runner.run(agent, "hi", context="Ann")
    agent = agent.clone(instructions=lambda ctx, a: "sync")  # pyright: ignore[reportUnknownLambdaType, reportUnknownArgumentType]
    await Runner.run(agent, "hi")
    assert seen == ["You help Ann as bot.", "sync"]


async def test_run_config_overrides_model_and_settings() -> None:
    requests: list[ModelRequest] = []

    class Spy(FunctionModel):
        async def get_response(self, request: ModelRequest) -> ModelResponse:
            requests.append(request)
            return await super().get_response(request)

    agent = Agent(
        "a", model="never-called", model_settings=ModelSettings(temperature=0.1, top_p=0.5)
    )
    config = RunConfig(
        model=Spy(lambda items, tools: "ok"), model_settings=ModelSettings(temperature=0.9)
    )
    await Runner.run(agent, "hi", run_config=config)
    assert (requests[0].settings.temperature, requests[0].settings.top_p) == (0.9, 0.5)


def test_run_sync() -> None:
    agent = Agent("a", tools=[double], model=TestModel())
    result = Runner.run_sync(agent, "go")
    assert result.final_output == '{"double": "0"}'


async def test_run_sync_inside_a_loop_is_a_user_error() -> None:
    with pytest.raises(UserError, match=r"cannot run inside an event loop: await Runner.run\(\)"):
        Runner.run_sync(Agent("a", model=TestModel()), "go")


async def test_streamed_run_reraises_what_ended_it() -> None:
    def boom(items: list[TResponseInputItem], tools: Sequence[Tool]) -> str:
        raise RuntimeError("model down")

    result = Runner.run_streamed(Agent("a", model=FunctionModel(boom)), "go")
    with pytest.raises(RuntimeError, match="model down"):
        async for _ in result.stream_events():
            pass
    assert result.is_complete


def test_model_names_resolve_with_the_default_api() -> None:
    from tooluse import OpenAIChatCompletionsModel, OpenAIResponsesModel

    assert isinstance(resolve_model("gpt-x"), OpenAIResponsesModel)
    set_default_openai_api("chat_completions")
    try:
        assert isinstance(resolve_model(None), OpenAIChatCompletionsModel)
    finally:
        set_default_openai_api("responses")
    with pytest.raises(UserError, match="use 'responses' or 'chat_completions'"):
        set_default_openai_api("grpc")  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]


async def test_test_model_fills_an_output_type() -> None:
    from pydantic import BaseModel

    class Answer(BaseModel):
        label: str
        score: int

    result = await Runner.run(Agent("a", model=TestModel(), output_type=Answer), "go")
    assert result.final_output == Answer(label="a", score=0)
    wrapped = await Runner.run(Agent("a", model=TestModel(), output_type=list[int]), "go")
    assert wrapped.final_output == []


async def test_usage_adds_up_across_turns() -> None:
    result = await Runner.run(Agent("a", tools=[double], model=TestModel()), "go")
    assert result.usage.requests == 2


async def test_streamed_runs_pause_for_approval_and_stop_before_tools() -> None:
    @function_tool(needs_approval=True)
    def guarded(n: int) -> int:
        """Guarded.

        Args:
            n: A number.
        """
        return n

    def reply(items: list[TResponseInputItem], tools: Sequence[Tool]) -> ModelReply | str:
        return (
            outputs(items)[0]
            if outputs(items)
            else ModelReply(tool_calls=[ToolCall("guarded", {"n": 7})])
        )

    agent = Agent("a", tools=[guarded], model=FunctionModel(reply))
    stopped = Runner.run_streamed(agent, "go", execute_tools=False)
    async for _ in stopped.stream_events():
        pass
    assert [c["name"] for c in stopped.pending_tool_calls] == ["guarded"]
    paused = Runner.run_streamed(agent, "go")
    async for _ in paused.stream_events():
        pass
    [waiting] = paused.interruptions
    paused.approve(waiting)
    resumed = Runner.run_streamed(agent, paused.to_state())
    async for _ in resumed.stream_events():
        pass
    assert resumed.final_output == "7"


async def test_a_finished_run_has_a_state_that_goes_on_with_the_conversation() -> None:
    # As in openai-agents: a program saves result.to_state() after every run, paused or not.
    def said(items: list[Any], tools: Any) -> str:
        users = [i["content"] for i in items if i.get("role") == "user"]
        return f"{len(items)} items, the user said {users}"

    agent = Agent("a", model=FunctionModel(said))
    done = await Runner.run(agent, "go", context={"user": 1})
    assert done.final_output == "1 items, the user said ['go']"
    state = done.to_state()
    assert not state.interruptions
    assert state.turn is None
    again = await Runner.run(agent, RunState.from_json(state.to_json()))
    assert again.final_output == "2 items, the user said ['go']"
    assert again.usage.requests == 2  # the saved run's request, and this one
    seen: list[object] = []

    @function_tool
    def whose(ctx: RunContextWrapper[Any]) -> str:
        """Whose context this is."""
        seen.append(ctx.context)
        return "ok"

    def ask(items: list[Any], tools: Any) -> ModelReply | str:
        if items[-1].get("type") == "function_call_output":
            return "done"
        return ModelReply(tool_calls=[ToolCall("whose", {})])

    tooled = Agent("t", tools=[whose], model=FunctionModel(ask))
    first = await Runner.run(tooled, "go", context={"user": 1})
    await Runner.run(tooled, first.to_state())  # in-process: the finished run's context
    assert seen == [{"user": 1}, {"user": 1}]


def test_a_result_made_by_hand_has_no_state() -> None:
    result = RunResult([], RunItems([], []), [], "x", Agent("a"))
    with pytest.raises(UserError, match=r"it was not made by Runner\.run"):
        result.to_state()


async def test_a_streamed_run_has_its_state_once_it_has_ended() -> None:
    streamed = Runner.run_streamed(Agent("a", model=TestModel()), "go")
    with pytest.raises(UserError, match="has not ended, so it has no state yet"):
        streamed.to_state()
    async for _ in streamed.stream_events():
        pass
    assert streamed.to_state().turn is None
