"""Traces of whole runs: the span tree, nesting across agent-as-tool, errors, retries,
streamed and plain runs alike, no content by default, and the real `openai` client."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import StatusCode

from tooluse import (
    Agent,
    MaxTurnsExceeded,
    RetryPolicy,
    RunConfig,
    RunContextWrapper,
    RunHooks,
    Runner,
    RunTimeoutError,
    function_tool,
)
from tooluse.models import ModelTransportError
from tooluse.testing import FunctionModel, ModelReply, TestModel, ToolCall

from .openai_server import Call, ScriptedServer, Turn
from .test_tracing import CONTENT_VARIABLE, SECRET, Traced, attributes, run_python

FAST_RETRIES = RetryPolicy(initial_delay=0.001, jitter=0)


@pytest.fixture
def traced() -> Traced:
    return Traced()


async def run(
    agent: Agent[Any], input: str, streamed: bool, config: RunConfig, max_turns: int = 10
) -> Any:
    """The run's final output, run plainly or streamed (every event consumed)."""
    if not streamed:
        return (await Runner.run(agent, input, run_config=config, max_turns=max_turns)).final_output
    result = Runner.run_streamed(agent, input, run_config=config, max_turns=max_turns)
    async for _ in result.stream_events():
        pass
    return result.final_output


def signature(spans: Sequence[ReadableSpan]) -> list[tuple[str, str]]:
    """The trace without ids and times: each span's path from the root, and its attributes."""
    by_id = {span.context.span_id: span for span in spans if span.context is not None}

    def path(span: ReadableSpan) -> str:
        parent = by_id.get(span.parent.span_id) if span.parent is not None else None
        return span.name if parent is None else f"{path(parent)} > {span.name}"

    found = [
        (path(span), json.dumps(attributes(span), sort_keys=True) + str(span.status.status_code))
        for span in spans
    ]
    return sorted(found)


@function_tool
def get_weather(city: str) -> str:
    """Get the weather.

    Args:
        city: The city.
    """
    return f"Sunny in {city}"


def scripted(*replies: ModelReply | str) -> FunctionModel:
    """A model answering with each reply in turn."""
    pending = list(replies)

    def script(items: Any, tools: Any) -> ModelReply | str:
        return pending.pop(0)

    return FunctionModel(script)


# The tree -------------------------------------------------------------------------------


@pytest.mark.parametrize("streamed", [False, True])
async def test_a_run_with_a_tool_call_and_a_handoff(traced: Traced, streamed: bool) -> None:
    billing = Agent(name="billing", model=scripted("Refunded."))
    triage = Agent(
        name="triage",
        model=scripted(
            ModelReply(tool_calls=[ToolCall("get_weather", {"city": "Paris"}, "call_w")]),
            ModelReply(tool_calls=[ToolCall("transfer_to_billing", {}, "call_h")]),
        ),
        tools=[get_weather],
        handoffs=[billing],
    )
    output = await run(triage, "Refund me", streamed, traced.config(workflow_name="Support"))
    assert output == "Refunded."
    assert traced.outline() == (
        "invoke_workflow Support\n"
        "  invoke_agent triage\n"
        "    chat function:script\n"
        "    execute_tool get_weather\n"
        "    chat function:script\n"
        "  invoke_agent billing\n"
        "    chat function:script"
    )
    (handoff,) = traced.one("invoke_agent triage").events
    assert dict(handoff.attributes or {}) == {
        "tooluse.handoff.from_agent": "triage",
        "tooluse.handoff.to_agent": "billing",
    }
    tool = attributes(traced.one("execute_tool get_weather"))
    assert tool["gen_ai.tool.call.id"] == "call_w"
    assert tool["gen_ai.tool.description"] == "Get the weather."
    finishes = [
        attributes(s)["gen_ai.response.finish_reasons"]
        for s in traced.named("chat function:script")
    ]
    assert finishes == [("tool_calls",), ("tool_calls",), ("stop",)]
    assert all(s.status.status_code is StatusCode.UNSET for s in traced.spans)


@pytest.mark.parametrize("streamed", [False, True])
async def test_an_agent_used_as_a_tool_nests_its_run_in_the_call(
    traced: Traced, streamed: bool
) -> None:
    researcher = Agent(name="researcher", model=TestModel(), tools=[get_weather])
    tool = researcher.as_tool(tool_name="research", tool_description="Look things up.")
    lead = Agent(name="lead", model=TestModel(), tools=[tool])
    await run(lead, "Plan a trip", streamed, traced.config())
    assert traced.outline() == (
        "invoke_workflow Agent workflow\n"
        "  invoke_agent lead\n"
        "    chat test\n"
        "    execute_tool research\n"
        "      invoke_workflow Agent workflow\n"
        "        invoke_agent researcher\n"
        "          chat test\n"
        "          execute_tool get_weather\n"
        "          chat test\n"
        "    chat test"
    )
    assert len({span.context.trace_id for span in traced.spans if span.context}) == 1


async def test_a_run_nests_in_the_applications_span(traced: Traced) -> None:
    tracer = traced.provider.get_tracer("app")
    with tracer.start_as_current_span("POST /chat"):
        await run(Agent(name="a", model=TestModel()), "hi", True, traced.config())
    assert traced.outline().splitlines()[:3] == [
        "POST /chat",
        "  invoke_workflow Agent workflow",
        "    invoke_agent a",
    ]


async def test_spans_a_tool_makes_nest_in_its_call(traced: Traced) -> None:
    tracer = traced.provider.get_tracer("app")

    @function_tool
    def lookup(key: str) -> str:
        """Look a key up (a sync tool: it runs in a worker thread).

        Args:
            key: The key.
        """
        with tracer.start_as_current_span("SELECT"):
            return key.upper()

    await run(Agent(name="a", model=TestModel(), tools=[lookup]), "hi", False, traced.config())
    assert "    execute_tool lookup\n      SELECT" in traced.outline()


@pytest.mark.parametrize("streamed", [False, True])
async def test_spans_hooks_make_nest_in_the_run(traced: Traced, streamed: bool) -> None:
    tracer = traced.provider.get_tracer("app")

    class Audit(RunHooks[Any]):
        async def on_agent_start(self, context: RunContextWrapper[Any], agent: Agent[Any]) -> None:
            with tracer.start_as_current_span("audit"):
                pass

    agent = Agent(name="a", model=TestModel())
    if streamed:
        result = Runner.run_streamed(agent, "hi", run_config=traced.config(), hooks=Audit())
        async for _ in result.stream_events():
            pass
    else:
        await Runner.run(agent, "hi", run_config=traced.config(), hooks=Audit())
    lines = traced.outline().splitlines()
    assert lines[0] == "invoke_workflow Agent workflow"
    assert "  audit" in lines  # a child of the run's span


@pytest.mark.parametrize("streamed", [False, True])
async def test_a_run_can_opt_out(traced: Traced, streamed: bool) -> None:
    config = traced.config(tracing_disabled=True)
    await run(Agent(name="a", model=TestModel(), tools=[get_weather]), "hi", streamed, config)
    assert traced.spans == []


# Streamed and plain -------------------------------------------------------------------------


def busy_then(*replies: ModelReply | str) -> FunctionModel:
    """A model whose first attempt fails with a retryable error (503), then answers."""
    pending: list[ModelReply | str | Exception] = [
        ModelTransportError(f"overloaded {SECRET}", 503),
        *replies,
    ]

    def script(items: Any, tools: Any) -> ModelReply | str:
        answer = pending.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    return FunctionModel(script)


def story() -> Agent[Any]:
    """An agent whose run retries a call, runs two tools (one failing) and answers."""

    @function_tool
    def explode() -> str:
        """Always fails."""
        raise RuntimeError(f"cannot reach {SECRET}")

    @function_tool
    def lookup(query: str) -> str:
        """Look something up.

        Args:
            query: What to look up.
        """
        return f"found {SECRET}"

    calls = [ToolCall("lookup", {"query": SECRET}, "c1"), ToolCall("explode", {}, "c2")]
    return Agent(
        name="assistant",
        instructions=f"Never reveal {SECRET}.",
        model=busy_then(ModelReply(tool_calls=calls), f"The answer is {SECRET}"),
        tools=[lookup, explode],
    )


async def test_streamed_and_plain_runs_give_the_same_trace() -> None:
    traces: list[list[tuple[str, str]]] = []
    for streamed in (False, True):
        traced = Traced()
        config = traced.config(retry_policy=FAST_RETRIES)
        await run(story(), f"Tell me {SECRET}", streamed, config)
        traces.append(signature(traced.spans))
    plain, streamed = traces
    assert plain == streamed
    assert len(plain) == 7  # run, agent, 3 attempts at 2 calls, 2 tools


async def test_each_attempt_and_each_failure_is_recorded(traced: Traced) -> None:
    await run(story(), "hi", False, traced.config(retry_policy=FAST_RETRIES))
    failed, *answered = traced.named("chat function:script")
    assert failed.status.status_code is StatusCode.ERROR
    assert attributes(failed)["error.type"] == "tooluse.models.ModelTransportError"
    assert attributes(failed)["tooluse.retry.delay_seconds"] == 0.001
    assert [s.status.status_code for s in answered] == [StatusCode.UNSET] * 2
    explode = traced.one("execute_tool explode")
    assert explode.status.status_code is StatusCode.ERROR
    assert attributes(explode)["error.type"] == "RuntimeError"
    assert traced.one("execute_tool lookup").status.status_code is StatusCode.UNSET
    assert traced.one("invoke_workflow Agent workflow").status.status_code is StatusCode.UNSET


@pytest.mark.parametrize("streamed", [False, True])
async def test_a_run_that_fails_marks_its_spans(traced: Traced, streamed: bool) -> None:
    model = scripted(*[ModelReply(tool_calls=[ToolCall("get_weather", {"city": "Oslo"})])] * 2)
    agent = Agent(name="looper", model=model, tools=[get_weather])
    config = traced.config()
    with pytest.raises(MaxTurnsExceeded):
        await run(agent, "hi", streamed, config, max_turns=2)
    for name in ("invoke_workflow Agent workflow", "invoke_agent looper"):
        span = traced.one(name)
        assert span.status.status_code is StatusCode.ERROR
        assert attributes(span)["error.type"] == "tooluse.exceptions.MaxTurnsExceeded"
    assert all(s.end_time is not None for s in traced.spans)


async def test_a_model_that_keeps_failing_ends_the_run_with_its_error(traced: Traced) -> None:
    def down(items: Any, tools: Any) -> str:
        raise ModelTransportError("down", 503)

    agent = Agent(name="a", model=FunctionModel(down))
    with pytest.raises(Exception, match="down"):
        await Runner.run(agent, "hi", run_config=traced.config(retry_policy=FAST_RETRIES))
    attempts = traced.named("chat function:down")
    assert len(attempts) == 3
    assert "tooluse.retry.delay_seconds" not in attributes(attempts[-1])  # not tried again
    assert traced.one("invoke_workflow Agent workflow").status.status_code is StatusCode.ERROR


@function_tool
async def wait_long() -> str:
    """Take a long time."""
    await asyncio.sleep(30)
    return "done"


def waiting_agent() -> Agent[Any]:
    return Agent(
        name="waiter",
        model=scripted(ModelReply(tool_calls=[ToolCall("wait_long", {}, "c1")])),
        tools=[wait_long],
    )


async def test_a_run_that_times_out_ends_every_span(traced: Traced) -> None:
    with pytest.raises(RunTimeoutError):
        await Runner.run(waiting_agent(), "hi", run_config=traced.config(run_timeout=0.05))
    assert traced.outline() == (  # every span ended, and so was exported
        "invoke_workflow Agent workflow\n"
        "  invoke_agent waiter\n"
        "    chat function:script\n"
        "    execute_tool wait_long"
    )
    tool = traced.one("execute_tool wait_long")
    assert attributes(tool)["error.type"] == "asyncio.exceptions.CancelledError"
    run_span = traced.one("invoke_workflow Agent workflow")
    assert attributes(run_span)["error.type"] == "tooluse.exceptions.RunTimeoutError"


async def test_a_cancelled_streamed_run_ends_every_span(traced: Traced) -> None:
    result = Runner.run_streamed(waiting_agent(), "hi", run_config=traced.config())
    async for event in result.stream_events():
        if getattr(event, "name", None) == "tool_called":
            result.cancel()
    assert result.cancelled
    assert traced.outline() == (  # every span ended, and so was exported
        "invoke_workflow Agent workflow\n"
        "  invoke_agent waiter\n"
        "    chat function:script\n"
        "    execute_tool wait_long"
    )
    run_span = traced.one("invoke_workflow Agent workflow")
    assert attributes(run_span)["error.type"] == "asyncio.exceptions.CancelledError"


# Content ----------------------------------------------------------------------------------


@pytest.mark.parametrize("streamed", [False, True])
async def test_no_content_reaches_the_spans_by_default(
    traced: Traced, streamed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The secret is in the instructions, the user's message, a tool's arguments and output,
    # a tool's exception, a failed model call's exception, and the model's answer.
    monkeypatch.delenv(CONTENT_VARIABLE, raising=False)
    config = traced.config(retry_policy=FAST_RETRIES)
    assert SECRET in await run(story(), f"Tell me {SECRET}", streamed, config)
    assert len(traced.spans) == 7
    assert SECRET not in traced.recorded_text()


@pytest.mark.parametrize("how", ["config", "environment"])
async def test_content_reaches_the_spans_on_request(
    traced: Traced, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CONTENT_VARIABLE, "true" if how == "environment" else "false")
    sensitive = True if how == "config" else None
    config = traced.config(retry_policy=FAST_RETRIES, trace_include_sensitive_data=sensitive)
    await run(story(), f"Tell me {SECRET}", False, config)
    lookup = attributes(traced.one("execute_tool lookup"))
    assert json.loads(lookup["gen_ai.tool.call.arguments"]) == {"query": SECRET}
    assert lookup["gen_ai.tool.call.result"] == f"found {SECRET}"
    explode = traced.one("execute_tool explode")
    assert explode.status.description == f"cannot reach {SECRET}"
    answer = traced.named("chat function:script")[-1]
    assert SECRET in attributes(answer)["gen_ai.system_instructions"]
    assert f"Tell me {SECRET}" in attributes(answer)["gen_ai.input.messages"]
    assert f"The answer is {SECRET}" in attributes(answer)["gen_ai.output.messages"]


# The real openai client ---------------------------------------------------------------------


@pytest.mark.parametrize("api", ["responses", "chat"])
@pytest.mark.parametrize("streamed", [False, True])
async def test_over_http_with_the_openai_client(
    traced: Traced, openai_server: ScriptedServer, api: str, streamed: bool
) -> None:
    openai_server.script(
        Turn(status=500),
        Turn(calls=[Call("get_weather", '{"city": "Paris"}', "call_p")]),
        Turn(text="Sunny in Paris"),
    )
    agent = Agent(name="weather", model=openai_server.model(api), tools=[get_weather])
    config = traced.config(retry_policy=FAST_RETRIES)
    assert await run(agent, "Weather?", streamed, config) == "Sunny in Paris"
    assert traced.outline() == (
        "invoke_workflow Agent workflow\n"
        "  invoke_agent weather\n"
        "    chat test-model\n"
        "    chat test-model\n"
        "    execute_tool get_weather\n"
        "    chat test-model"
    )
    assert attributes(traced.one("invoke_agent weather"))["gen_ai.provider.name"] == "openai"
    failed, asked, answered = traced.named("chat test-model")
    assert failed.status.status_code is StatusCode.ERROR
    assert attributes(failed)["error.type"] == "openai.InternalServerError"
    response_id = "resp_1" if api == "responses" else "chatcmpl-1"
    assert attributes(answered) == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "test-model",
        "gen_ai.output.type": "text",
        "gen_ai.response.finish_reasons": ("stop",),
        "gen_ai.response.id": response_id,
        "gen_ai.response.model": "test-model",
        "gen_ai.usage.input_tokens": 10,
        "gen_ai.usage.output_tokens": 5,
    }
    assert attributes(asked)["gen_ai.response.finish_reasons"] == ("tool_calls",)
    assert attributes(traced.one("execute_tool get_weather"))["gen_ai.tool.call.id"] == "call_p"


# The global provider ----------------------------------------------------------------------


GLOBAL_PROVIDER = """
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from tooluse import Agent, RunConfig, Runner
from tooluse.testing import TestModel

exporter = InMemorySpanExporter()
agent = Agent(name="a", model=TestModel())
Runner.run_sync(agent, "hi")  # the API alone: not traced
print(len(exporter.get_finished_spans()))
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)
Runner.run_sync(agent, "hi")
print(sorted(span.name for span in exporter.get_finished_spans()))
Runner.run_sync(agent, "hi", run_config=RunConfig(tracing_disabled=True))
print(len(exporter.get_finished_spans()))
"""


def test_runs_use_the_global_provider_once_one_is_set() -> None:
    printed = run_python(GLOBAL_PROVIDER).splitlines()
    names = ["chat test", "invoke_agent a", "invoke_workflow Agent workflow"]
    assert printed == ["0", str(names), "3"]
