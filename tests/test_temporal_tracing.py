"""One trace across Temporal and tooluse: the client's span, the workflow, the run, the activities.

Temporal's `OpenTelemetryPlugin` on the client, with `create_tracer_provider()` as
the global tracer provider, makes the standard OpenTelemetry API safe in a workflow:
ids come from the workflow's seeded random, spans started while history replays take
the workflow's time, and spans are not ended (so not exported) while it replays.
tooluse's spans use that API, so they join the trace as they are. The older
`TracingInterceptor` does not pass OpenTelemetry into the sandbox: tooluse's spans are
absent there (pinned below, as docs/temporal.md says).

The plugin needs the global tracer provider, which a process sets once: each test sets
its own and puts the old one back (as tests/test_docs.py does for docs/tracing.md).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from temporalio.client import Client, WorkflowHandle
from temporalio.contrib.opentelemetry import (
    OpenTelemetryPlugin,
    TracingInterceptor,
    create_tracer_provider,
)
from temporalio.worker import Replayer, Worker

from tooluse.temporal import ApproveCall, TooluseTemporalPlugin
from tooluse.testing import TestModel

from .temporal_approval_workflows import CleanupWorkflow, delete_file
from .temporal_server import TemporalDevServer
from .temporal_workflows import AgentWorkflow, add
from .test_tracing import Traced

# One worker runs every test of the Temporal dev server, which starts once per worker.
pytestmark = pytest.mark.xdist_group("temporal")

ONE_TRACE = """\
client
  StartWorkflow:AgentWorkflow
    RunWorkflow:AgentWorkflow
      invoke_workflow Agent workflow
        invoke_agent calculator
          chat
          execute_tool add
            StartActivity:tooluse.tool.add
              RunActivity:tooluse.tool.add
          chat
        StartActivity:tooluse.invoke_model
          RunActivity:tooluse.invoke_model
        StartActivity:tooluse.invoke_model
          RunActivity:tooluse.invoke_model"""
"""The trace of one run: the model activities nest in the run's span (a chat span is not
current while the model is called), each tool activity in its call's span."""

PAUSED_AND_RESUMED = """\
client
  StartWorkflow:CleanupWorkflow
    RunWorkflow:CleanupWorkflow
      invoke_workflow Agent workflow
        invoke_agent admin
          chat
        StartActivity:tooluse.invoke_model
          RunActivity:tooluse.invoke_model
      invoke_workflow Agent workflow
        invoke_agent admin
          execute_tool delete_file
            StartActivity:tooluse.tool.delete_file
              RunActivity:tooluse.tool.delete_file
          chat
        StartActivity:tooluse.invoke_model
          RunActivity:tooluse.invoke_model"""
"""A run paused for approval (`AgentWorkflow.run_agent`): the run until the pause, then the
run resumed with the decision, both in the workflow's span."""


def use_global_provider(provider: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Set OpenTelemetry's global tracer provider for this test only."""
    # Private: the API offers no way to unset the provider (its own test utilities do this).
    once = trace._TRACER_PROVIDER_SET_ONCE  # pyright: ignore[reportPrivateUsage]
    monkeypatch.setattr(trace, "_TRACER_PROVIDER_SET_ONCE", type(once)())
    monkeypatch.setattr(trace, "_TRACER_PROVIDER", None)
    trace.set_tracer_provider(provider)


@pytest.fixture
def traced(monkeypatch: pytest.MonkeyPatch) -> Iterator[Traced]:
    """Spans in memory, from Temporal's replay-safe provider set as the global one."""
    found = Traced()
    provider = create_tracer_provider(shutdown_on_exit=False)  # shut down below
    provider.add_span_processor(SimpleSpanProcessor(found.exporter))
    use_global_provider(provider, monkeypatch)
    yield found
    provider.shutdown()


def outline(traced: Traced) -> str:
    """The span tree, each chat span as `chat` (its model's name is the worker's business)."""
    lines = traced.outline().splitlines()
    return "\n".join(line[: line.index("chat") + 4] if "chat " in line else line for line in lines)


def by_id(spans: Sequence[ReadableSpan]) -> dict[int, ReadableSpan]:
    return {span.context.span_id: span for span in spans if span.context is not None}


async def run_traced(
    client: Client, *, max_cached_workflows: int = 1000
) -> WorkflowHandle[Any, Any]:
    """Start the calculator workflow under a `client` span; a worker here runs it to the end."""
    plugin = TooluseTemporalPlugin([add], model_provider=lambda name: TestModel())
    queue = f"q-{uuid.uuid4()}"
    async with Worker(
        client,
        task_queue=queue,
        workflows=[AgentWorkflow],
        plugins=[plugin],
        max_cached_workflows=max_cached_workflows,
    ):
        with trace.get_tracer("test").start_as_current_span("client"):
            handle = await client.start_workflow(
                AgentWorkflow.run, "what is 2 + 3?", id=f"wf-{uuid.uuid4()}", task_queue=queue
            )
        assert await handle.result() == '{"add": "0"}'  # TestModel calls add once, with zeros
    return handle


async def traced_client(server: TemporalDevServer) -> Client:
    return await Client.connect(
        server.target, plugins=[OpenTelemetryPlugin(add_temporal_spans=True)]
    )


async def test_the_client_the_workflow_the_run_and_the_activities_are_one_trace(
    temporal_server: TemporalDevServer, traced: Traced
) -> None:
    await run_traced(await traced_client(temporal_server))
    assert outline(traced) == ONE_TRACE
    assert len({span.context.trace_id for span in traced.spans if span.context}) == 1


def times(span: ReadableSpan) -> tuple[int, int]:
    """When the span started and ended, in nanoseconds."""
    assert span.start_time is not None
    assert span.end_time is not None
    return span.start_time, span.end_time


def assert_nested_in_time(spans: Sequence[ReadableSpan]) -> None:
    """Each of tooluse's spans lies within its parent's time."""
    parents = by_id(spans)
    for span in spans:
        if span.name.split(" ")[0] not in {
            "invoke_workflow",
            "invoke_agent",
            "chat",
            "execute_tool",
        }:
            continue
        assert span.parent is not None
        parent = parents[span.parent.span_id]
        (start, end), (parent_start, parent_end) = times(span), times(parent)
        assert parent_start <= start <= end <= parent_end, span.name


async def test_a_run_replayed_at_each_step_is_traced_once(
    temporal_server: TemporalDevServer, traced: Traced, caplog: pytest.LogCaptureFixture
) -> None:
    # No cache: each workflow task replays the run from the start, and the last one's
    # instance is evicted between tasks. Spans opened in replay take the workflow's time.
    caplog.set_level(logging.WARNING)
    await run_traced(await traced_client(temporal_server), max_cached_workflows=0)
    assert outline(traced) == ONE_TRACE
    assert_nested_in_time(traced.spans)
    run = traced.one("invoke_workflow Agent workflow")
    assert run.start_time == traced.one("RunWorkflow:AgentWorkflow").start_time  # workflow time
    assert [record.getMessage() for record in caplog.records] == []  # no "Failed to detach"


async def test_the_cached_run_has_wall_clock_spans_within_each_other(
    temporal_server: TemporalDevServer, traced: Traced
) -> None:
    await run_traced(await traced_client(temporal_server))
    assert_nested_in_time(traced.spans)
    first, second = [span for span in traced.spans if span.name.startswith("chat ")]
    assert times(first)[1] <= times(second)[0]


async def test_replaying_a_history_exports_no_span(
    temporal_server: TemporalDevServer, traced: Traced
) -> None:
    handle = await run_traced(await traced_client(temporal_server))
    traced.exporter.clear()
    plugin = TooluseTemporalPlugin([add], model_provider=lambda name: TestModel())
    replayer = Replayer(workflows=[AgentWorkflow], plugins=[plugin, OpenTelemetryPlugin()])
    await replayer.replay_workflow(await handle.fetch_history())
    assert traced.spans == []


async def test_with_the_older_tracing_interceptor_only_temporals_spans_are_recorded(
    temporal_server: TemporalDevServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # TracingInterceptor leaves OpenTelemetry to the sandbox, which imports its own copy
    # with no provider set: tooluse finds no provider there and records nothing.
    found = Traced()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(found.exporter))
    use_global_provider(provider, monkeypatch)
    client = await Client.connect(temporal_server.target, interceptors=[TracingInterceptor()])
    await run_traced(client)
    names = {span.name for span in found.spans}
    assert "RunWorkflow:AgentWorkflow" in names
    assert "RunActivity:tooluse.tool.add" in names
    assert not {name for name in names if name.startswith(("invoke_", "chat", "execute_tool"))}


async def test_a_run_paused_for_approval_is_two_runs_in_the_trace(
    temporal_server: TemporalDevServer, traced: Traced
) -> None:
    client = await traced_client(temporal_server)
    plugin = TooluseTemporalPlugin([delete_file], model_provider=lambda name: TestModel())
    queue = f"q-{uuid.uuid4()}"
    async with Worker(client, task_queue=queue, workflows=[CleanupWorkflow], plugins=[plugin]):
        with trace.get_tracer("test").start_as_current_span("client"):
            handle = await client.start_workflow(
                CleanupWorkflow.run, "clean up", id=f"wf-{uuid.uuid4()}", task_queue=queue
            )
        while not (waiting := await handle.query(CleanupWorkflow.pending_approvals)):
            await asyncio.sleep(0.05)
        await handle.signal(CleanupWorkflow.approve_signal, ApproveCall(waiting[0]["approval_id"]))
        await handle.result()
    # The paused run and its resumption are two runs (two `Runner.run` calls), in the trace
    # of the client that started the workflow; the query and the signal have traces of their
    # own (sent under no span here).
    assert first_tree(outline(traced)) == PAUSED_AND_RESUMED
    signalled = [line for line in outline(traced).splitlines() if "approve_signal" in line]
    assert signalled == ["SignalWorkflow:approve_signal", "  HandleSignal:approve_signal"]


def first_tree(text: str) -> str:
    """The outline's first root and what nests in it."""
    root, *rest = text.splitlines()
    return "\n".join([root, *itertools.takewhile(lambda line: line.startswith(" "), rest)])


async def test_without_temporals_spans_tooluses_nest_in_the_clients(
    temporal_server: TemporalDevServer, traced: Traced
) -> None:
    client = await Client.connect(temporal_server.target, plugins=[OpenTelemetryPlugin()])
    await run_traced(client)
    assert outline(traced) == (
        "client\n"
        "  invoke_workflow Agent workflow\n"
        "    invoke_agent calculator\n"
        "      chat\n"
        "      execute_tool add\n"
        "      chat"
    )
