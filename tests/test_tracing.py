"""The tracer, driven directly: when a run is traced, and what each span records.

Whole runs (the loop calling the tracer) are in test_tracing_runs.py; both use the
OpenTelemetry SDK's in-memory exporter, and never the global tracer provider (a process
sets that once), except in a subprocess.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from tooluse import (
    Agent,
    MaxTurnsExceeded,
    ModelSettings,
    OpenAIResponsesModel,
    RunConfig,
    RunContextWrapper,
    ToolContext,
    TResponseInputItem,
    Usage,
    UserError,
    function_tool,
)
from tooluse.core._context import InputTokensDetails, OutputTokensDetails
from tooluse.models import ModelRequest, ModelResponse, ModelTransportError
from tooluse.testing import TestModel
from tooluse.tracing._tracer import CONTENT_VARIABLE, RunTracer, error_type, run_tracer

SECRET = "s3cr3t-sentinel"


class Traced:
    """A tracer provider of its own, and the spans it finished."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider()
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))

    def config(self, **fields: Any) -> RunConfig:
        return RunConfig(tracer_provider=self.provider, **fields)

    def tracer(self, **fields: Any) -> RunTracer:
        tracer = run_tracer(self.config(**fields))
        assert tracer is not None
        return tracer

    @property
    def spans(self) -> list[ReadableSpan]:
        return sorted(self.exporter.get_finished_spans(), key=lambda s: (s.start_time or 0, s.name))

    def named(self, name: str) -> list[ReadableSpan]:
        return [span for span in self.spans if span.name == name]

    def one(self, name: str) -> ReadableSpan:
        (span,) = self.named(name)
        return span

    def outline(self) -> str:
        """The span tree, one span a line, indented under its parent."""
        spans = self.spans
        ids = {span.context.span_id for span in spans if span.context is not None}
        children: dict[int | None, list[ReadableSpan]] = defaultdict(list)
        for span in spans:
            parent = span.parent.span_id if span.parent is not None else None
            children[parent if parent in ids else None].append(span)

        def lines(span: ReadableSpan, depth: int) -> Iterator[str]:
            yield "  " * depth + span.name
            assert span.context is not None
            for child in children[span.context.span_id]:
                yield from lines(child, depth + 1)

        return "\n".join(line for root in children[None] for line in lines(root, 0))

    def recorded_text(self) -> str:
        """Everything the spans hold besides timing and ids: names, attributes, events, status."""
        parts: list[str] = []
        for span in self.spans:
            parts += [span.name, json.dumps(dict(span.attributes or {}), default=str)]
            parts.append(str(span.status.description))
            for event in span.events:
                parts += [event.name, json.dumps(dict(event.attributes or {}), default=str)]
        return "\n".join(parts)


def span_id(span: ReadableSpan) -> int:
    assert span.context is not None
    return span.context.span_id


def attributes(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


@pytest.fixture
def traced() -> Traced:
    return Traced()


def agent(name: str = "helper", **fields: Any) -> Agent[Any]:
    return Agent(name=name, model=TestModel(), **fields)


def response(output: list[TResponseInputItem], **fields: Any) -> ModelResponse:
    return ModelResponse(output, Usage(requests=1, input_tokens=12, output_tokens=3), **fields)


TEXT = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "hi"}]}
CALL = {"type": "function_call", "call_id": "c1", "name": "add", "arguments": '{"a": 1}'}


@function_tool
def add(a: int) -> int:
    """Add one.

    Args:
        a: The number.
    """
    return a + 1


# When a run is traced ------------------------------------------------------------------


def test_no_tracer_when_tracing_is_disabled(traced: Traced) -> None:
    assert run_tracer(traced.config(tracing_disabled=True)) is None


def test_no_tracer_with_the_apis_default_provider() -> None:
    # No SDK set up in this process: the global provider is the API's proxy, which records
    # nothing; and the no-op provider records nothing either.
    assert isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)
    assert run_tracer(RunConfig()) is None
    assert run_tracer(RunConfig(tracer_provider=trace.NoOpTracerProvider())) is None
    assert run_tracer(RunConfig(tracer_provider=trace.get_tracer_provider())) is None


def test_no_tracer_when_the_sdk_is_disabled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
    assert run_tracer(RunConfig(tracer_provider=TracerProvider())) is None


def test_a_tracer_provider_that_is_none_is_refused() -> None:
    with pytest.raises(UserError, match="tracer_provider must be an OpenTelemetry TracerProvider"):
        run_tracer(RunConfig(tracer_provider="console"))


def test_runs_share_the_providers_tracer(traced: Traced) -> None:
    first, second = traced.tracer(), traced.tracer()
    assert first is not second  # one tracer per run, over one OpenTelemetry tracer
    first.run_start(agent())
    first.run_end(None)
    second.run_start(agent())
    second.run_end(None)
    scopes = {span.instrumentation_scope for span in traced.spans}
    assert [(s.name if s else None) for s in scopes] == ["tooluse"]


def run_python(code: str, **env: str) -> str:
    """Run `code` in a fresh interpreter (a process sets its global provider once)."""
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **env},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


UNTRACED_RUN = """
import sys
from tooluse import Agent, Runner, function_tool
from tooluse.testing import TestModel

@function_tool
def add(a: int) -> int:
    '''Add one.'''
    return a + 1

result = Runner.run_sync(Agent(name="a", model=TestModel(), tools=[add]), "hi")
print(result.final_output)
print(sorted(m for m in sys.modules if m.split(".")[0] == "opentelemetry"))
"""


def test_importing_and_running_tooluse_imports_no_opentelemetry() -> None:
    printed = run_python(UNTRACED_RUN).splitlines()
    assert printed == ['{"add": "1"}', "[]"]


@pytest.mark.parametrize(
    ("setting", "variable", "recorded"),
    [
        (None, None, False),
        (None, "true", True),
        (None, "TRUE", True),
        (None, "SPAN_ONLY", True),
        (None, "span_and_event", True),
        (None, "false", False),
        (None, "EVENT_ONLY", False),  # events, which tooluse does not send
        (False, "true", False),  # the config wins over the environment
        (True, None, True),
    ],
)
def test_content_is_recorded_only_on_request(
    traced: Traced,
    monkeypatch: pytest.MonkeyPatch,
    setting: bool | None,
    variable: str | None,
    recorded: bool,
) -> None:
    if variable is None:
        monkeypatch.delenv(CONTENT_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(CONTENT_VARIABLE, variable)
    tracer = traced.tracer(trace_include_sensitive_data=setting)
    tracer.llm_start(
        agent(), TestModel(), ModelRequest("Be brief.", [{"role": "user", "content": "x"}])
    )
    tracer.llm_end(response([TEXT]))
    assert ("gen_ai.input.messages" in attributes(traced.one("chat test"))) is recorded


# What each span records ----------------------------------------------------------------


def test_the_run_and_its_agents(traced: Traced) -> None:
    tracer = traced.tracer(workflow_name="Support")
    first = agent("triage", handoff_description="Sorts requests.")
    second = Agent(name="billing", model="gpt-4.1-mini")
    tracer.run_start(first)
    tracer.agent_start(first)
    tracer.handoff(first, second)
    tracer.agent_start(second)
    tracer.run_end(None)
    assert traced.outline() == (
        "invoke_workflow Support\n  invoke_agent triage\n  invoke_agent billing"
    )
    run = traced.one("invoke_workflow Support")
    assert attributes(run) == {
        "gen_ai.operation.name": "invoke_workflow",
        "gen_ai.workflow.name": "Support",
    }
    assert run.kind is SpanKind.INTERNAL
    assert run.status.status_code is StatusCode.UNSET
    triage = traced.one("invoke_agent triage")
    assert attributes(triage) == {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.provider.name": "_OTHER",
        "gen_ai.agent.name": "triage",
        "gen_ai.agent.description": "Sorts requests.",
        "gen_ai.request.model": "test",
    }
    (event,) = triage.events
    assert (event.name, dict(event.attributes or {})) == (
        "handoff",
        {"tooluse.handoff.from_agent": "triage", "tooluse.handoff.to_agent": "billing"},
    )
    billing = attributes(traced.one("invoke_agent billing"))
    assert billing["gen_ai.provider.name"] == "openai"  # a name: the OpenAI models
    assert billing["gen_ai.request.model"] == "gpt-4.1-mini"


def test_the_runs_model_names_the_agents(traced: Traced) -> None:
    tracer = traced.tracer(model=OpenAIResponsesModel("gpt-5"))
    tracer.agent_start(Agent(name="a"))
    tracer.run_end(None)
    span = attributes(traced.one("invoke_agent a"))
    assert (span["gen_ai.provider.name"], span["gen_ai.request.model"]) == ("openai", "gpt-5")


def test_an_agent_without_a_model_uses_the_default(traced: Traced) -> None:
    tracer = traced.tracer()
    tracer.agent_start(Agent(name="a"))
    tracer.run_end(None)
    assert attributes(traced.one("invoke_agent a"))["gen_ai.request.model"] == "gpt-5.6-luna"


def test_the_run_span_is_current_until_the_run_ends(traced: Traced) -> None:
    tracer = traced.tracer()
    outside = trace.get_current_span()
    tracer.run_start(agent())
    inside = trace.get_current_span()
    tracer.run_end(None)
    assert inside.get_span_context().span_id == span_id(
        traced.one("invoke_workflow Agent workflow")
    )
    assert trace.get_current_span() is outside


def test_the_run_nests_in_the_current_span(traced: Traced) -> None:
    outer = traced.provider.get_tracer("app")
    with outer.start_as_current_span("request"):
        tracer = traced.tracer()
        tracer.run_start(agent())
        tracer.agent_start(agent())
        tracer.run_end(None)
    assert traced.outline() == "request\n  invoke_workflow Agent workflow\n    invoke_agent helper"


class Named(TestModel):
    provider_name = "acme"
    model = "acme-1"


def test_a_model_call(traced: Traced) -> None:
    tracer = traced.tracer()
    tracer.run_start(agent())
    tracer.agent_start(agent())
    settings = ModelSettings(
        temperature=0.2,
        top_p=0.9,
        max_tokens=100,
        frequency_penalty=0.1,
        presence_penalty=0.3,
        extra_args={"seed": 7, "stop": ["END"]},
    )
    request = ModelRequest("Be brief.", [], settings=settings, output_schema={"type": "object"})
    tracer.llm_start(agent(), Named(), request)
    usage = Usage(
        requests=1,
        input_tokens=40,
        output_tokens=9,
        input_tokens_details=InputTokensDetails(cached_tokens=32),
        output_tokens_details=OutputTokensDetails(reasoning_tokens=4),
    )
    tracer.llm_end(ModelResponse([TEXT], usage, "resp_9", model="acme-1-2025"))
    tracer.run_end(None)
    assert traced.outline() == (
        "invoke_workflow Agent workflow\n  invoke_agent helper\n    chat acme-1"
    )
    chat = traced.one("chat acme-1")
    assert chat.kind is SpanKind.CLIENT
    assert attributes(chat) == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "acme",
        "gen_ai.request.model": "acme-1",
        "gen_ai.output.type": "json",
        "gen_ai.request.temperature": 0.2,
        "gen_ai.request.top_p": 0.9,
        "gen_ai.request.max_tokens": 100,
        "gen_ai.request.frequency_penalty": 0.1,
        "gen_ai.request.presence_penalty": 0.3,
        "gen_ai.request.seed": 7,
        "gen_ai.request.stop_sequences": ("END",),
        "gen_ai.response.finish_reasons": ("stop",),
        "gen_ai.response.id": "resp_9",
        "gen_ai.response.model": "acme-1-2025",
        "gen_ai.usage.input_tokens": 40,
        "gen_ai.usage.output_tokens": 9,
        "gen_ai.usage.cache_read.input_tokens": 32,
        "gen_ai.usage.reasoning.output_tokens": 4,
    }


@pytest.mark.parametrize(
    ("reply", "finish"),
    [
        (response([TEXT]), "stop"),
        (response([TEXT, CALL]), "tool_calls"),
        (response([{"type": "local_shell_call", "call_id": "s"}]), "tool_calls"),
        (response([TEXT], status="incomplete", reason="max_output_tokens"), "length"),
        (response([TEXT], status="incomplete", reason="content_filter"), "content_filter"),
        (response([], status="incomplete"), "length"),
        (response([], status="failed", reason="server_error: oops"), "error"),
    ],
)
def test_finish_reasons(traced: Traced, reply: ModelResponse, finish: str) -> None:
    tracer = traced.tracer()
    settings = ModelSettings(extra_args={"stop": "END"})
    tracer.llm_start(agent(), TestModel(), ModelRequest(None, [], settings=settings))
    tracer.llm_end(reply)
    chat = attributes(traced.one("chat test"))
    assert chat["gen_ai.response.finish_reasons"] == (finish,)
    assert chat["gen_ai.request.stop_sequences"] == ("END",)
    assert chat["gen_ai.output.type"] == "text"


def test_a_failed_response_is_an_error_of_its_code(traced: Traced) -> None:
    tracer = traced.tracer()
    tracer.llm_start(agent(), TestModel(), ModelRequest(None, []))
    tracer.llm_end(response([], status="failed", reason=f"server_error: {SECRET}"))
    tracer.llm_start(agent(), TestModel(), ModelRequest(None, []))
    tracer.llm_end(response([], status="failed"))
    first, second = traced.named("chat test")
    assert first.status.status_code is StatusCode.ERROR
    assert attributes(first)["error.type"] == "server_error"
    assert attributes(second)["error.type"] == "_OTHER"
    assert SECRET not in traced.recorded_text()


def test_each_attempt_is_a_span(traced: Traced) -> None:
    tracer = traced.tracer()
    tracer.run_start(agent())
    tracer.agent_start(agent())
    request = ModelRequest(None, [])
    tracer.llm_start(agent(), TestModel(), request)
    tracer.llm_error(ModelTransportError(f"busy {SECRET}", 503), 0.5)
    tracer.llm_start(agent(), TestModel(), request)
    tracer.llm_end(response([TEXT]))
    tracer.run_end(None)
    failed, answered = traced.named("chat test")
    assert failed.status.status_code is StatusCode.ERROR
    assert failed.status.description is None  # the message may hold content
    assert attributes(failed)["error.type"] == "tooluse.models.ModelTransportError"
    assert attributes(failed)["tooluse.retry.delay_seconds"] == 0.5
    assert failed.events == ()
    assert answered.status.status_code is StatusCode.UNSET
    assert SECRET not in traced.recorded_text()


def test_an_attempt_that_fails_for_good_has_no_delay(traced: Traced) -> None:
    tracer = traced.tracer()
    tracer.llm_start(agent(), TestModel(), ModelRequest(None, []))
    tracer.llm_error(TimeoutError("slow"), None)
    chat = traced.one("chat test")
    assert attributes(chat)["error.type"] == "TimeoutError"
    assert "tooluse.retry.delay_seconds" not in attributes(chat)


def test_the_end_of_a_model_call_that_never_started_is_ignored(traced: Traced) -> None:
    tracer = traced.tracer()
    tracer.llm_end(response([TEXT]))
    tracer.llm_error(TimeoutError(), None)
    tracer.handoff(agent("a"), agent("b"))  # no agent span to mark either
    tracer.run_end(None)
    assert traced.spans == []


def test_a_run_that_raises_closes_its_open_spans_with_the_error(traced: Traced) -> None:
    tracer = traced.tracer()
    tracer.run_start(agent())
    tracer.agent_start(agent())
    tracer.llm_start(agent(), TestModel(), ModelRequest(None, []))
    error = MaxTurnsExceeded(3, [], [])
    tracer.run_end(error)
    for name in ("invoke_workflow Agent workflow", "invoke_agent helper", "chat test"):
        span = traced.one(name)
        assert span.status.status_code is StatusCode.ERROR, name
        assert attributes(span)["error.type"] == "tooluse.exceptions.MaxTurnsExceeded", name
        assert span.end_time is not None


def test_an_attempt_left_open_ends_when_the_next_starts(traced: Traced) -> None:
    tracer = traced.tracer()
    tracer.llm_start(agent(), TestModel(), ModelRequest(None, []))
    tracer.llm_start(agent(), TestModel(), ModelRequest(None, []))
    tracer.run_end(None)
    assert len(traced.named("chat test")) == 2


def test_a_tool_call(traced: Traced) -> None:
    tracer = traced.tracer()
    tracer.run_start(agent())
    tracer.agent_start(agent())
    ctx = ToolContext.for_testing(tool_name="add", tool_call_id="call_7", tool_arguments='{"a": 1}')
    with tracer.tool_call(ctx, agent(), add) as scope:
        current = trace.get_current_span()
        scope.set_result("2", failed=False)
    tracer.run_end(None)
    span = traced.one("execute_tool add")
    assert current.get_span_context().span_id == span_id(span)
    assert traced.outline() == (
        "invoke_workflow Agent workflow\n  invoke_agent helper\n    execute_tool add"
    )
    assert span.kind is SpanKind.INTERNAL
    assert attributes(span) == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "add",
        "gen_ai.tool.type": "function",
        "gen_ai.tool.call.id": "call_7",
        "gen_ai.tool.description": "Add one.",
    }
    assert span.status.status_code is StatusCode.UNSET


def test_a_tool_call_is_named_as_the_model_called_it(traced: Traced) -> None:
    tracer = traced.tracer()
    with tracer.tool_call(ToolContext.for_testing(tool_name="ns.add"), agent(), add):
        pass
    assert attributes(traced.one("execute_tool ns.add"))["gen_ai.tool.call.id"] == "call_test"


def test_a_local_tool_named_by_the_tool(traced: Traced) -> None:
    tracer = traced.tracer()

    class Shell:
        name = "local_shell"

    with tracer.tool_call(RunContextWrapper(None), agent(), Shell(), call_id="s1"):
        pass
    with tracer.tool_call(RunContextWrapper(None), agent(), object()):
        pass
    first, second = traced.spans
    assert (first.name, attributes(first)["gen_ai.tool.call.id"]) == (
        "execute_tool local_shell",
        "s1",
    )
    assert second.name == "execute_tool object"
    assert "gen_ai.tool.call.id" not in attributes(second)


def test_a_tool_call_that_failed(traced: Traced) -> None:
    tracer = traced.tracer()
    ctx = ToolContext.for_testing(tool_name="add", tool_arguments=f'{{"a": "{SECRET}"}}')
    ctx.error = KeyError(SECRET)
    with tracer.tool_call(ctx, agent(), add) as scope:
        scope.set_result(f"add failed {SECRET}", failed=True)
    plain = ToolContext.for_testing(tool_name="add")
    with tracer.tool_call(plain, agent(), add) as scope:
        scope.set_result("failed", failed=True)  # no error kept: a hand-built tool
    first, second = traced.named("execute_tool add")
    assert first.status.status_code is StatusCode.ERROR
    assert attributes(first)["error.type"] == "KeyError"
    assert attributes(second)["error.type"] == "_OTHER"
    assert SECRET not in traced.recorded_text()


def test_a_tool_call_that_raised(traced: Traced) -> None:
    tracer = traced.tracer()
    with (
        pytest.raises(RuntimeError),
        tracer.tool_call(ToolContext.for_testing(tool_name="add"), agent(), add),
    ):
        raise RuntimeError(SECRET)
    span = traced.one("execute_tool add")
    assert attributes(span)["error.type"] == "RuntimeError"
    assert span.status.status_code is StatusCode.ERROR
    assert SECRET not in traced.recorded_text()
    assert trace.get_current_span() is trace.INVALID_SPAN  # detached


def test_guardrails(traced: Traced) -> None:
    tracer = traced.tracer()
    tracer.run_start(agent())
    tracer.agent_start(agent())
    with tracer.guardrail("input", "no_homework", agent()) as scope:
        scope.set_triggered(True)
    with tracer.tool_call(ToolContext.for_testing(tool_name="add"), agent(), add):
        with tracer.guardrail("tool_input", "no_negatives", agent()) as scope:
            scope.set_triggered(False)
        with tracer.guardrail("output", "inside a tool, not a tool's", agent()):
            pass
    with pytest.raises(ValueError, match="broken"), tracer.guardrail("output", "checker", agent()):
        raise ValueError("broken")
    tracer.run_end(None)
    assert traced.outline() == (
        "invoke_workflow Agent workflow\n"
        "  invoke_agent helper\n"
        "    apply_guardrail no_homework\n"
        "    execute_tool add\n"
        "      apply_guardrail no_negatives\n"
        "    apply_guardrail inside a tool, not a tool's\n"
        "    apply_guardrail checker"
    )
    assert attributes(traced.one("apply_guardrail no_homework")) == {
        "gen_ai.operation.name": "apply_guardrail",
        "gen_ai.agent.name": "helper",
        "gen_ai.evaluation.name": "no_homework",
        "gen_ai.evaluation.score.label": "fail",
        "gen_ai.evaluation.score.value": 0.0,
        "tooluse.guardrail.kind": "input",
        "tooluse.guardrail.name": "no_homework",
        "tooluse.guardrail.triggered": True,
    }
    [verdict] = traced.one("apply_guardrail no_homework").events
    assert verdict.name == "gen_ai.evaluation.result"
    assert (
        attributes(traced.one("apply_guardrail no_negatives"))["tooluse.guardrail.triggered"]
        is False
    )
    checker = traced.one("apply_guardrail checker")
    assert (checker.status.status_code, attributes(checker)["error.type"]) == (
        StatusCode.ERROR,
        "ValueError",
    )


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (TimeoutError(), "TimeoutError"),
        (MaxTurnsExceeded(1, [], []), "tooluse.exceptions.MaxTurnsExceeded"),
        (ModelTransportError("x"), "tooluse.models.ModelTransportError"),
        (json.JSONDecodeError("x", "", 0), "json.decoder.JSONDecodeError"),  # a public module
    ],
)
def test_error_types_name_the_public_class(error: BaseException, kind: str) -> None:
    assert error_type(error) == kind


class Hidden(Exception):
    __module__ = "vendor._impl.errors"  # defined in a private module, exported by `vendor`


def test_error_type_of_a_class_in_a_private_module() -> None:
    assert error_type(Hidden()) == "vendor.Hidden"


# Content, on request ----------------------------------------------------------------------


def test_content_on_a_model_call(traced: Traced) -> None:
    tracer = traced.tracer(trace_include_sensitive_data=True)
    conversation: list[TResponseInputItem] = [
        {"role": "user", "content": "Add 1"},
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "please"}, {"type": "input_image"}],
        },
        CALL,
        {"type": "function_call_output", "call_id": "c1", "output": "2"},
        {"type": "reasoning", "summary": []},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "t1", "type": "function", "function": {"name": "add", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "t1", "content": "3"},
    ]
    tracer.llm_start(agent(), TestModel(), ModelRequest("Be brief.", conversation))
    tracer.llm_end(response([TEXT, CALL]))
    chat = attributes(traced.one("chat test"))
    assert json.loads(chat["gen_ai.system_instructions"]) == [
        {"type": "text", "content": "Be brief."}
    ]
    assert json.loads(chat["gen_ai.input.messages"]) == [
        {"role": "user", "parts": [{"type": "text", "content": "Add 1"}]},
        {
            "role": "user",
            "parts": [
                {"type": "text", "content": "please"},
                {"type": "part", "content": {"type": "input_image"}},
            ],
        },
        {
            "role": "assistant",
            "parts": [{"type": "tool_call", "id": "c1", "name": "add", "arguments": '{"a": 1}'}],
        },
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "2"}]},
        {
            "role": "assistant",
            "parts": [{"type": "reasoning", "content": {"type": "reasoning", "summary": []}}],
        },
        {
            "role": "assistant",
            "parts": [{"type": "tool_call", "id": "t1", "name": "add", "arguments": "{}"}],
        },
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "t1", "response": "3"}]},
    ]
    assert json.loads(chat["gen_ai.output.messages"]) == [
        {
            "role": "assistant",
            "parts": [
                {"type": "text", "content": "hi"},
                {"type": "tool_call", "id": "c1", "name": "add", "arguments": '{"a": 1}'},
            ],
            "finish_reason": "tool_calls",
        }
    ]


def test_content_on_tool_calls_and_errors(traced: Traced) -> None:
    tracer = traced.tracer(trace_include_sensitive_data=True)
    ctx = ToolContext.for_testing(tool_name="add", tool_arguments='{"a": 1}')
    with tracer.tool_call(ctx, agent(), add) as scope:
        scope.set_result("2", failed=False)
    failing = ToolContext.for_testing(tool_name="add")
    failing.error = KeyError(SECRET)
    with tracer.tool_call(failing, agent(), add) as scope:
        scope.set_result("failed", failed=True)
    tracer.llm_start(agent(), TestModel(), ModelRequest(None, []))
    tracer.llm_error(TimeoutError(SECRET), None)
    ok, failed = traced.named("execute_tool add")
    assert attributes(ok)["gen_ai.tool.call.arguments"] == '{"a": 1}'
    assert attributes(ok)["gen_ai.tool.call.result"] == "2"
    assert "gen_ai.tool.call.result" not in attributes(failed)
    assert failed.status.description == f"'{SECRET}'"
    assert [event.name for event in failed.events] == ["exception"]
    chat = traced.one("chat test")
    assert chat.status.description == SECRET
    assert (chat.events[0].attributes or {})["exception.message"] == SECRET


def test_no_tracer_when_opentelemetry_was_never_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m.split(".")[0] == "opentelemetry"]:
        monkeypatch.delitem(sys.modules, name)
    assert run_tracer(RunConfig()) is None
    assert "opentelemetry.trace" not in sys.modules  # not imported to find out


def test_a_run_asks_the_opentelemetry_imported_now(monkeypatch: pytest.MonkeyPatch) -> None:
    # A Temporal workflow sandbox, or a test, imports modules afresh: a run must ask the
    # global provider of the module `sys.modules` holds, not of one it saw before.
    run_tracer(RunConfig())  # this process's `opentelemetry.trace`, seen
    for name in [m for m in sys.modules if m.split(".")[0] == "opentelemetry"]:
        monkeypatch.delitem(sys.modules, name)
    fresh = importlib.import_module("opentelemetry.trace")
    assert fresh is not trace
    provider = TracerProvider()
    fresh.set_tracer_provider(provider)  # its own global, unset until now
    assert run_tracer(RunConfig()) is not None


def test_a_sampled_out_run_records_nothing() -> None:
    from opentelemetry.sdk.trace.sampling import ALWAYS_OFF

    traced = Traced()
    traced.provider = TracerProvider(sampler=ALWAYS_OFF)
    traced.provider.add_span_processor(SimpleSpanProcessor(traced.exporter))
    tracer = traced.tracer(trace_include_sensitive_data=True)
    tracer.run_start(agent())
    tracer.agent_start(agent())
    tracer.llm_start(agent(), TestModel(), ModelRequest("Be brief.", []))
    tracer.llm_end(response([TEXT]))
    with tracer.tool_call(ToolContext.for_testing(), agent(), add) as scope:
        scope.set_result("2", failed=False)
    tracer.run_end(None)
    assert traced.spans == []
