"""tooluse.temporal on a real Temporal dev server, with a worker in this process."""

from __future__ import annotations

import uuid

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.worker import Replayer, Worker

from tooluse.temporal import MODEL_ACTIVITY, TooluseTemporalPlugin

from .openai_server import Call, ScriptedServer, Turn, sent_tool_outputs
from .temporal_server import TemporalDevServer, temporal_server
from .temporal_workflows import TOOL_CALLS, AgentWorkflow, add

__all__ = ["temporal_server"]  # the fixture, imported to be found by pytest


def test_dev_server_starts(temporal_server: TemporalDevServer) -> None:
    assert temporal_server.start_seconds is not None
    assert temporal_server.start_seconds < 60


async def test_model_and_tool_calls_run_as_activities(
    temporal_server: TemporalDevServer, openai_server: ScriptedServer
) -> None:
    openai_server.script(Turn(calls=[Call("add", '{"a": 2, "b": 3}', "call_1")]), Turn(text="5"))
    client = await Client.connect(temporal_server.target)
    plugin = TooluseTemporalPlugin([add], model_provider=lambda name: openai_server.model("chat"))
    queue = f"q-{uuid.uuid4()}"
    TOOL_CALLS.clear()
    async with Worker(client, task_queue=queue, workflows=[AgentWorkflow], plugins=[plugin]):
        handle = await client.start_workflow(
            AgentWorkflow.run, "what is 2 + 3?", id=f"wf-{uuid.uuid4()}", task_queue=queue
        )
        assert await handle.result() == "5"
    assert TOOL_CALLS == [(2, 3)]
    assert sent_tool_outputs(openai_server.requests[1]["body"]) == {"call_1": "5"}
    activities = [
        event.activity_task_scheduled_event_attributes.activity_type.name
        async for event in handle.fetch_history_events()
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    ]
    assert activities == [MODEL_ACTIVITY, "tooluse.tool.add", MODEL_ACTIVITY]
    # Replayed from its history, the run issues the same commands (no nondeterminism error).
    replayer = Replayer(workflows=[AgentWorkflow], plugins=[plugin])
    await replayer.replay_workflow(await handle.fetch_history())
