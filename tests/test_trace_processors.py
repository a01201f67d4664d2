"""openai-agents' trace processors, fed from tooluse's OpenTelemetry spans.

A processor sees each trace (a `trace(...)` block, or a run outside any) and each span
under it, with openai-agents' ids and payloads derived from the OTel ones; batching,
shutdown, a processor that raises, replacing and adding, and the refusal without the SDK.
"""

from __future__ import annotations

import copy
import importlib
import json
import logging
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import tooluse.tracing._api as trace_api
from tooluse import (
    Agent,
    GuardrailFunctionOutput,
    RunConfig,
    RunContextWrapper,
    Runner,
    UserError,
    add_trace_processor,
    custom_span,
    function_tool,
    input_guardrail,
    set_trace_processors,
    trace,
)
from tooluse.testing import FunctionModel, ModelReply, ToolCall
from tooluse.tracing import Span, Trace, TracingProcessor
from tooluse.tracing.processor_interface import TracingExporter
from tooluse.tracing.processors import BatchTraceProcessor, ConsoleSpanExporter

from .agents_examples import mask, ported_tree, sdist
from .openai_server import Call, ScriptedServer, Turn
from .test_tracing import run_python


class Recorder(TracingProcessor):
    """Every call it gets, in order."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Trace | Span[Any]]] = []

    def on_trace_start(self, trace: Trace) -> None:
        self.events.append(("trace_start", trace))

    def on_trace_end(self, trace: Trace) -> None:
        self.events.append(("trace_end", trace))

    def on_span_start(self, span: Span[Any]) -> None:
        self.events.append(("span_start", span))

    def on_span_end(self, span: Span[Any]) -> None:
        self.events.append(("span_end", span))

    def ended(self) -> list[Span[Any]]:
        return [item for kind, item in self.events if kind == "span_end" and isinstance(item, Span)]

    def outline(self) -> list[str]:
        """Each ended span as `type name < parent's name` (`-`: right under the trace)."""
        names = {span.span_id: _label(span) for span in self.ended()}
        return [f"{_label(s)} < {names.get(s.parent_id or '', '-')}" for s in self.ended()]


def _label(span: Span[Any]) -> str:
    data = span.span_data.export()
    return f"{data['type']} {data.get('name', data.get('model'))}"


class Exploding(TracingProcessor):
    """Raises in every call."""

    def on_trace_start(self, trace: Trace) -> None:
        raise RuntimeError("boom")

    def on_trace_end(self, trace: Trace) -> None:
        raise RuntimeError("boom")

    def on_span_start(self, span: Span[Any]) -> None:
        raise RuntimeError("boom")

    def on_span_end(self, span: Span[Any]) -> None:
        raise RuntimeError("boom")


class ListExporter(TracingExporter):
    """Keeps each batch's payloads; raises for the batches it is told to."""

    def __init__(self, fail_first: int = 0) -> None:
        self.batches: list[list[dict[str, Any]]] = []
        self.fail = fail_first
        self.exported = threading.Event()

    def export(self, items: list[Trace | Span[Any]]) -> None:
        if self.fail:
            self.fail -= 1
            raise ConnectionError("the destination is down")
        self.batches.append([payload for item in items if (payload := item.export())])
        self.exported.set()


@function_tool
def add(a: int) -> int:
    """Add one.

    Args:
        a: The number.
    """
    return a + 1


@pytest.fixture(autouse=True)
def no_processor_left() -> Iterator[None]:
    yield
    set_trace_processors([])


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    scripted = ScriptedServer()
    scripted.start()
    yield scripted
    scripted.stop()


def tool_agent(server: ScriptedServer) -> Agent[Any]:
    server.script(Turn(calls=[Call("add", '{"a": 1}')]), Turn(text="2"))
    return Agent("adder", tools=[add], model=server.model("responses"))


def test_a_trace_block_its_custom_span_and_a_run_inside(server: ScriptedServer) -> None:
    recorder = Recorder()
    set_trace_processors([recorder])
    agent = tool_agent(server)
    with trace("Adding", group_id="chat-1", metadata={"user": "u1"}) as workflow:  # noqa: SIM117
        with custom_span("prepare", data={"n": [1, 2]}) as step:
            result = Runner.run_sync(agent, "add one to 1")
    assert result.final_output == "2"

    assert recorder.events[0] == ("trace_start", workflow)  # the block's own Trace
    assert recorder.events[-1] == ("trace_end", workflow)
    assert recorder.outline() == [
        "generation test-model < agent adder",
        "function add < agent adder",
        "generation test-model < agent adder",
        "agent adder < custom task",
        "custom task < custom prepare",
        "custom prepare < -",
    ]
    spans = recorder.ended()
    assert {span.trace_id for span in spans} == {workflow.trace_id}
    assert spans[-1].span_id == step.span_id
    assert spans[-1].span_data.export() == {
        "type": "custom",
        "name": "prepare",
        "data": {"n": [1, 2]},
    }
    starts = [item for kind, item in recorder.events if kind == "span_start"]
    assert sorted(map(id, starts)) == sorted(map(id, spans))  # the same object, start to end
    assert copy.deepcopy(spans[-1]).export() == spans[-1].export()  # as an exporter may


def test_payloads_are_openai_agents_shapes(server: ScriptedServer) -> None:
    recorder = Recorder()
    set_trace_processors([recorder])
    agent = tool_agent(server)
    with trace("Adding", group_id="chat-1", metadata={"user": "u1"}) as workflow:
        Runner.run_sync(agent, "add one to 1")
    assert workflow.export() == {
        "object": "trace",
        "id": workflow.trace_id,
        "workflow_name": "Adding",
        "group_id": "chat-1",
        "metadata": {"user": "u1"},
    }
    payloads = {span.span_data.type: span.export() for span in recorder.ended()}
    function = payloads["function"]
    assert function is not None
    assert set(function) == {
        "object",
        "id",
        "trace_id",
        "parent_id",
        "started_at",
        "ended_at",
        "span_data",
        "error",
    }
    assert function["object"] == "trace.span"
    assert function["id"].startswith("span_")
    assert len(function["id"]) == 29
    assert function["trace_id"] == workflow.trace_id
    assert datetime.fromisoformat(function["started_at"]) <= datetime.fromisoformat(
        function["ended_at"]
    )
    # No content by default, as in the OTel spans: the tool's arguments and result stay out.
    assert function["span_data"] == {
        "type": "function",
        "name": "add",
        "input": None,
        "output": None,
        "mcp_data": None,
    }
    generation = payloads["generation"]
    assert generation is not None
    assert generation["span_data"]["usage"] is not None
    assert generation["span_data"]["input"] is None
    agent_data = payloads["agent"]
    assert agent_data is not None
    assert agent_data["span_data"] == {
        "type": "agent",
        "name": "adder",
        "handoffs": None,
        "tools": None,
        "output_type": None,
    }


def test_content_reaches_processors_only_on_request(server: ScriptedServer) -> None:
    recorder = Recorder()
    set_trace_processors([recorder])
    config = RunConfig(trace_include_sensitive_data=True)
    Runner.run_sync(tool_agent(server), "add one to 1", run_config=config)
    data = {span.span_data.type: span.span_data.export() for span in recorder.ended()}
    assert (data["function"]["input"], data["function"]["output"]) == ('{"a": 1}', "2")
    assert data["generation"]["output"][0]["role"] == "assistant"


def test_a_run_outside_a_trace_is_the_trace_and_ids_are_the_otel_ones(
    server: ScriptedServer,
) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    recorder = Recorder()
    add_trace_processor(recorder)
    config = RunConfig(tracer_provider=provider, workflow_name="Desk")
    Runner.run_sync(tool_agent(server), "add one to 1", run_config=config)

    (run,) = [s for s in exporter.get_finished_spans() if s.name == "invoke_workflow Desk"]
    kind, started = recorder.events[0]
    assert kind == "trace_start"
    assert isinstance(started, Trace)
    assert started.workflow_name == "Desk"
    assert started.trace_id == f"trace_{run.context.trace_id:032x}"  # pyright: ignore[reportOptionalMemberAccess]
    # The application's exporter still gets every span; each processor span is one of them.
    otel_ids = {f"span_{s.context.span_id:024x}" for s in exporter.get_finished_spans()}  # pyright: ignore[reportOptionalMemberAccess]
    assert {span.span_id for span in recorder.ended()} < otel_ids
    assert recorder.outline()[-1] == "agent adder < -"  # right under the trace: the run


@input_guardrail
def polite(
    ctx: RunContextWrapper[Any], agent: Agent[Any], input: str | list[Any]
) -> GuardrailFunctionOutput:
    return GuardrailFunctionOutput(None, "rude" in str(input))


def test_a_handoff_and_a_guardrail_as_openai_agents_span_data() -> None:
    recorder = Recorder()
    set_trace_processors([recorder])
    replies = [ModelReply(tool_calls=[ToolCall("transfer_to_billing", {}, "call_h")])]
    billing = Agent("billing", model=FunctionModel(lambda items, tools: "Refunded."))
    triage = Agent(
        "triage",
        handoffs=[billing],
        input_guardrails=[polite],
        model=FunctionModel(lambda items, tools: replies.pop(0)),
    )
    assert Runner.run_sync(triage, "Refund me").final_output == "Refunded."
    data = [span.span_data.export() for span in recorder.ended()]
    assert {"type": "guardrail", "name": "polite", "triggered": False} in data
    agents = [d for d in data if d["type"] == "agent"]
    assert [(d["name"], d["handoffs"]) for d in agents] == [
        ("triage", ["billing"]),
        ("billing", None),
    ]


def test_a_processor_that_raises_is_logged_and_the_run_goes_on(
    server: ScriptedServer, caplog: pytest.LogCaptureFixture
) -> None:
    recorder = Recorder()
    set_trace_processors([Exploding(), recorder])
    with caplog.at_level(logging.ERROR, logger="tooluse.tracing"), trace("Adding"):
        result = Runner.run_sync(tool_agent(server), "add one to 1")
    assert result.final_output == "2"
    assert len(recorder.ended()) == 5
    failed = {record.getMessage() for record in caplog.records}
    assert failed == {
        f"trace processor Exploding raised in {method}"
        for method in ("on_trace_start", "on_trace_end", "on_span_start", "on_span_end")
    }


def test_set_replaces_and_add_appends() -> None:
    first, second, third = Recorder(), Recorder(), Recorder()
    add_trace_processor(first)
    add_trace_processor(second)
    with trace("one"):
        pass
    set_trace_processors([third])
    with trace("two"):
        pass
    set_trace_processors([])
    with trace("three"):
        pass
    assert [t.name for kind, t in first.events if kind == "trace_start"] == ["one"]
    assert [t.name for kind, t in second.events if kind == "trace_start"] == ["one"]
    assert [t.name for kind, t in third.events if kind == "trace_start"] == ["two"]


def test_batches_are_exported_at_shutdown_and_on_flush() -> None:
    exporter = ListExporter()
    processor = BatchTraceProcessor(exporter, max_batch_size=2, schedule_delay=60)
    set_trace_processors([processor])
    with trace("Batched"):
        for name in ("a", "b", "c"):
            with custom_span(name):
                pass
    processor.force_flush()
    assert [[p["object"] for p in batch] for batch in exporter.batches] == [
        ["trace", "trace.span"],
        ["trace.span", "trace.span"],
    ]
    with trace("After"):
        pass
    processor.shutdown()
    assert exporter.batches[-1][0]["workflow_name"] == "After"
    processor.on_trace_start(Trace("Late", None, None, None, disabled=False))
    processor.force_flush()
    assert len(exporter.batches) == 3  # nothing is taken after shutdown


def test_a_full_queue_wakes_the_worker_and_drops_what_does_not_fit(
    caplog: pytest.LogCaptureFixture,
) -> None:
    exporter = ListExporter()
    processor = BatchTraceProcessor(
        exporter, max_queue_size=2, schedule_delay=60, export_trigger_ratio=1.0
    )
    exporting = processor._export_lock  # pyright: ignore[reportPrivateUsage]
    with caplog.at_level(logging.WARNING, logger="tooluse.tracing"), exporting:
        # The worker is held off the queue while it fills: the third does not fit.
        for name in ("a", "b", "c"):
            processor.on_trace_start(Trace(name, None, None, None, disabled=False))
    assert exporter.exported.wait(5)  # the worker woke before its 60 s
    processor.shutdown()
    assert [[p["workflow_name"] for p in batch] for batch in exporter.batches] == [["a", "b"]]
    assert any("queue full (max_queue_size=2)" in r.getMessage() for r in caplog.records)


def test_an_exporter_that_raises_loses_its_batch_only(caplog: pytest.LogCaptureFixture) -> None:
    exporter = ListExporter(fail_first=1)
    processor = BatchTraceProcessor(exporter, max_batch_size=1, schedule_delay=60)
    for name in ("lost", "kept"):
        processor.on_trace_start(Trace(name, None, None, None, disabled=False))
    with caplog.at_level(logging.ERROR, logger="tooluse.tracing"):
        processor.shutdown()
    assert [[p["workflow_name"] for p in batch] for batch in exporter.batches] == [["kept"]]
    assert "ListExporter failed; dropping a batch of 1" in caplog.text


def test_what_is_refused_says_why_and_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UserError, match=r"processors\[1\] is str, with no on_trace_start"):
        set_trace_processors([Recorder(), "a processor"])  # pyright: ignore[reportArgumentType]
    with pytest.raises(UserError) as refused:
        BatchTraceProcessor(object(), max_batch_size=0, export_trigger_ratio=2)  # pyright: ignore[reportArgumentType]
    assert str(refused.value) == (
        "BatchTraceProcessor(): exporter is object, with no export(items): give a "
        "TracingExporter; max_batch_size=0 must be 1 or more; export_trigger_ratio=2 must "
        "be more than 0 and at most 1"
    )
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk.trace", None)  # the SDK missing
    with pytest.raises(UserError, match=r"pip install 'tooluse\[otel\]' opentelemetry-sdk"):
        add_trace_processor(Recorder())


def test_the_console_exporter_prints_each_payload(capsys: pytest.CaptureFixture[str]) -> None:
    processor = BatchTraceProcessor(ConsoleSpanExporter())
    set_trace_processors([processor])
    with trace("Printed") as printed, custom_span("step", data={"n": 1}):
        pass
    processor.shutdown()
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[0] == printed.export()
    assert lines[1]["span_data"] == {"type": "custom", "name": "step", "data": {"n": 1}}


def test_openai_dashboard_export_is_refused_with_what_to_use() -> None:
    module = importlib.import_module("tooluse.tracing.processors")
    for name in ("BackendSpanExporter", "default_exporter", "default_processor"):
        with pytest.raises(ImportError, match=r"never sends traces to OpenAI.*TracingExporter"):
            getattr(module, name)
    assert not hasattr(module, "OtherName")


def test_the_openai_agents_switch_turns_processors_off_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorder = Recorder()
    set_trace_processors([recorder])
    monkeypatch.setattr(trace_api, "_disabled", None)  # not set yet: the environment decides
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")
    with trace("Not recorded"):
        pass
    assert recorder.events == []


GLOBAL_PROVIDER = """
import json, sys
import tooluse.tracing.processors
print(sorted(m for m in sys.modules if m.startswith("opentelemetry")))

from opentelemetry import trace as otel
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from tooluse import custom_span, set_trace_processors, trace
from tooluse.tracing.processor_interface import TracingExporter
from tooluse.testing import FunctionModel, ModelReply, ToolCall
from tooluse.tracing.processors import BatchTraceProcessor

class Printing(TracingExporter):
    def export(self, items):
        print(json.dumps([item.export()["object"] for item in items]))

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
otel.set_tracer_provider(provider)
set_trace_processors([BatchTraceProcessor(Printing())])
with trace("Global"):
    with custom_span("step"):
        pass
print(sorted(span.name for span in exporter.get_finished_spans()))
"""


def test_the_global_provider_feeds_processors_and_at_exit_they_export() -> None:
    printed = run_python(GLOBAL_PROVIDER).splitlines()
    assert printed == [
        "[]",  # importing the processors imports no OpenTelemetry
        "['Global', 'step']",  # the application's exporter keeps getting the spans
        json.dumps(["trace", "trace.span"]),  # the batch, exported at exit
    ]


def _redaction_example(tree: str) -> str:
    """What openai-agents' `basic/trace_redaction.py` under `tree` prints, tracing on."""
    with tempfile.TemporaryDirectory() as home:
        done = subprocess.run(
            [sys.executable, "-m", "examples.basic.trace_redaction"],
            cwd=home,
            env={"PATH": os.environ.get("PATH", ""), "HOME": home, "PYTHONPATH": tree},
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
    assert done.returncode == 0, done.stderr
    return mask(done.stdout)


@pytest.mark.slow  # openai-agents' sdist, and two interpreters
def test_the_redaction_example_ported_prints_what_the_original_does_with_tracing_on() -> None:
    # tests/agents_examples.py runs the examples with OPENAI_AGENTS_DISABLE_TRACING=1,
    # where both print nothing: here tracing is on, and both print the redacted batch.
    root = sdist()
    original, ported = (_redaction_example(str(tree)) for tree in (root, ported_tree(root)))
    assert json.loads(ported) == [
        {"object": "trace", "id": "trace_*"},
        {"object": "trace.span", "id": "span_*", "trace_id": "trace_*", "parent_id": None},
    ]
    assert ported == original
