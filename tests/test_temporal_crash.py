"""A worker process dies mid-run (SIGKILL); a second one finishes the run.

The worker (tests/temporal_worker_main.py) runs in a subprocess against the
dev server; the scripted OpenAI server runs in this process, and records every
request. What was done before the crash is not done again: a model turn whose
activity completed is not requested again, and a tool whose activity completed
does not run again (the tools log each start and finish, with their process id).

What is lost with the worker is the work it had in hand: Temporal retries an
activity attempt it was running on another worker once the attempt's
`start_to_close_timeout` has passed (2 s here), and a workflow task it had
started once the workflow's task timeout has (2 s here). A tool is therefore
run at least once, and can start twice: tools with side effects that must
happen once should be idempotent (for instance keyed by `ctx.tool_call_id`,
the same on every attempt).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle

from tooluse.temporal import MODEL_ACTIVITY

from .openai_server import Call, ScriptedServer, Turn, sent_tool_outputs
from .temporal_crash_workflows import GATE, TOOL_LOG, ToolsWorkflow
from .temporal_server import TemporalDevServer
from .temporal_worker_main import LOADED, READY, WorkerProcess

# One worker runs every test of the Temporal dev server, which starts once per worker.
# Slow: each test kills a worker process and waits out Temporal's timeouts.
pytestmark = [pytest.mark.xdist_group("temporal"), pytest.mark.slow]

WAIT = 60.0
"""Seconds any one step may take before the test fails (a worker loads in 1 to 4 s on an
idle machine; beside the suite's other workers on a busy one, 20 s was seen too short)."""
WORKFLOW_TASK_TIMEOUT = timedelta(seconds=2)
"""The runs' workflow task timeout: a task the killed worker had started is retried after it."""


class Workers:
    """Worker processes on one task queue, all killed at the end."""

    def __init__(self, temporal: TemporalDevServer, model: ScriptedServer, state: Path) -> None:
        self.queue = f"crash-{uuid.uuid4()}"
        self.state = state
        self.started: list[WorkerProcess] = []
        self._args = [temporal.target, model.base_url, self.queue, str(state)]

    async def start_two(self) -> tuple[WorkerProcess, WorkerProcess]:
        """A first worker, polling; a second one loaded (imports take seconds) but held."""
        first, second = self._spawn(), self._spawn("--hold")
        await self.until_printed(first, READY)
        await self.until_printed(second, LOADED)
        return first, second

    async def take_over(self, worker: WorkerProcess) -> None:
        """Let a held worker connect, and wait until it polls."""
        worker.release()
        await self.until_printed(worker, READY)

    def _spawn(self, *options: str) -> WorkerProcess:
        output = self.state / f"worker-{len(self.started) + 1}.out"
        worker = WorkerProcess([*self._args, *options], output)
        self.started.append(worker)
        return worker

    async def until_printed(self, worker: WorkerProcess, line: str) -> None:
        async def printed() -> bool:
            return worker.printed(line)

        await until(printed, f"worker {worker.pid} to print {line!r}", self)

    def outputs(self) -> str:
        return "\n".join(f"worker {w.pid}:\n{w.output()}" for w in self.started)

    def tool_log(self) -> list[str]:
        """The tools' events, `<event> <tool> <pid>`, in order."""
        log = self.state / TOOL_LOG
        return log.read_text().splitlines() if log.exists() else []

    def open_gate(self) -> None:
        (self.state / GATE).touch()

    def kill_all(self) -> None:
        for worker in self.started:
            worker.kill()


@pytest.fixture
def workers(
    temporal_server: TemporalDevServer, openai_server: ScriptedServer, tmp_path: Path
) -> Iterator[Workers]:
    started = Workers(temporal_server, openai_server, tmp_path)
    try:
        yield started
    finally:
        started.kill_all()


async def until(check: Callable[[], Awaitable[bool]], what: str, workers: Workers) -> None:
    """Poll `check` until it holds; fail after `WAIT` seconds, with the workers' output."""
    deadline = time.monotonic() + WAIT
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {WAIT:g} s for {what}\n{workers.outputs()}")
        await asyncio.sleep(0.02)


async def result(handle: WorkflowHandle[Any, str], workers: Workers) -> str:
    try:
        return await asyncio.wait_for(handle.result(), WAIT)
    except asyncio.TimeoutError:
        raise AssertionError(f"the run did not finish in {WAIT:g} s\n{workers.outputs()}") from None


def turns_requested(server: ScriptedServer) -> list[int]:
    """The turn each model request was for (0 = the first: no tool output sent yet)."""
    return [len(sent_tool_outputs(request["body"])) for request in server.requests]


async def completed_activities(handle: WorkflowHandle[Any, Any]) -> dict[str, list[int]]:
    """Each activity type the run completed, with the attempt each completion took."""
    scheduled: dict[int, str] = {}
    attempts: dict[str, list[int]] = {}
    async for event in handle.fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            name = event.activity_task_scheduled_event_attributes.activity_type.name
            scheduled[event.event_id] = name
        elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
            started = event.activity_task_started_event_attributes
            attempts.setdefault(scheduled[started.scheduled_event_id], []).append(started.attempt)
    return attempts


async def start_run(temporal: TemporalDevServer, workers: Workers) -> WorkflowHandle[Any, str]:
    client = await Client.connect(temporal.target)
    return await client.start_workflow(
        ToolsWorkflow.run,
        "go",
        id=f"crash-{uuid.uuid4()}",
        task_queue=workers.queue,
        # A workflow task the killed worker had started goes to another worker after
        # this (10 s by default).
        task_timeout=WORKFLOW_TASK_TIMEOUT,
    )


async def test_killed_after_a_model_call_the_turn_is_not_requested_again(
    temporal_server: TemporalDevServer, openai_server: ScriptedServer, workers: Workers
) -> None:
    openai_server.script(Turn(calls=[Call("wait_for_gate", "{}", "call_1")]), Turn(text="done"))
    first, second = await workers.start_two()
    handle = await start_run(temporal_server, workers)

    async def model_call_completed() -> bool:
        return MODEL_ACTIVITY in await completed_activities(handle)

    await until(model_call_completed, "the first model call to complete", workers)
    first.kill()
    workers.open_gate()
    await workers.take_over(second)

    assert await result(handle, workers) == "done"
    assert turns_requested(openai_server) == [0, 1], "each model turn is requested once"
    assert (await completed_activities(handle))[MODEL_ACTIVITY] == [1, 1]
    # The first worker may have started the tool before it died (that attempt never
    # finished: the gate was shut); the second worker ran it to the end, once.
    log = workers.tool_log()
    assert log[-2:] == [f"start wait_for_gate {second.pid}", f"finish wait_for_gate {second.pid}"]
    assert set(log[:-2]) <= {f"start wait_for_gate {first.pid}"}, log


async def test_killed_while_a_tool_runs_completed_work_is_not_redone(
    temporal_server: TemporalDevServer, openai_server: ScriptedServer, workers: Workers
) -> None:
    openai_server.script(
        Turn(calls=[Call("note", '{"text": "first"}', "call_1")]),
        Turn(calls=[Call("wait_for_gate", "{}", "call_2")]),
        Turn(text="done"),
    )
    first, second = await workers.start_two()
    handle = await start_run(temporal_server, workers)

    async def tool_running() -> bool:
        return f"start wait_for_gate {first.pid}" in workers.tool_log()

    await until(tool_running, "wait_for_gate to start on the first worker", workers)
    first.kill()
    workers.open_gate()
    await workers.take_over(second)

    assert await result(handle, workers) == "done"
    assert turns_requested(openai_server) == [0, 1, 2], "each model turn is requested once"
    # `note` completed before the crash and is not run again; the attempt of
    # `wait_for_gate` that died with the first worker is retried on the second.
    assert workers.tool_log() == [
        f"finish note:first {first.pid}",
        f"start wait_for_gate {first.pid}",
        f"start wait_for_gate {second.pid}",
        f"finish wait_for_gate {second.pid}",
    ]
    assert await completed_activities(handle) == {
        MODEL_ACTIVITY: [1, 1, 1],
        "tooluse.tool.note": [1],
        "tooluse.tool.wait_for_gate": [2],
    }
