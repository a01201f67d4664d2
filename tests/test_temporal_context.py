"""A run under a context policy as a Temporal workflow: trimmed, compacted, replayed.

On the Temporal dev server, with the agent's model and the compaction model (given
by name) called as activities against the local OpenAI server. The worker caches
no workflow, so each step replays the run from its history: the policy must decide
the same way each time.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.common import RetryPolicy
from temporalio.worker import Replayer, Worker

from tooluse.core._context_record import SUMMARY_HEADER
from tooluse.temporal import MODEL_ACTIVITY, ActivityOptions, TooluseTemporalPlugin

from .openai_server import Call, ScriptedServer, Turn
from .temporal_context_workflows import SUMMARISE, ContextWorkflow, reader
from .temporal_server import TemporalDevServer

# One worker runs every test of the Temporal dev server, which starts once per worker.
pytestmark = pytest.mark.xdist_group("temporal")

PAGES = 8

FAST = ActivityOptions(
    start_to_close_timeout=timedelta(seconds=10),
    retry_policy=RetryPolicy(initial_interval=timedelta(milliseconds=10), maximum_attempts=2),
)


class Reading:
    """The local server: pages asked for one a turn, summaries when asked; what was sent."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.answered = 0
        self.server = ScriptedServer(self.reply)

    def reply(self, body: dict[str, Any]) -> Turn:
        self.bodies.append(body)
        if body.get("instructions") == SUMMARISE:
            return Turn(text=f"summary: pages 1 to {self.answered - 1} were all p's")
        self.answered += 1
        if self.answered > PAGES:
            return Turn(text="done")
        return Turn(calls=[Call("read_page", json.dumps({"n": self.answered}))])


@pytest.fixture
def reading() -> Iterator[Reading]:
    running = Reading()
    running.server.start()
    yield running
    running.server.stop()


async def test_a_run_under_a_policy_trims_compacts_and_replays_in_a_workflow(
    temporal_server: TemporalDevServer, reading: Reading
) -> None:
    plugin = TooluseTemporalPlugin(
        model_provider=lambda name: reading.server.model("responses"),
        agents=[reader],
        activity_options=FAST,
    )
    client = await Client.connect(temporal_server.target)
    queue = f"q-{uuid.uuid4()}"
    async with Worker(
        client,
        task_queue=queue,
        workflows=[ContextWorkflow],
        plugins=[plugin],
        max_cached_workflows=0,  # each workflow task replays the run from its history
    ):
        handle = await client.start_workflow(
            ContextWorkflow.run, "Read the log.", id=f"wf-{uuid.uuid4()}", task_queue=queue
        )
        outcome: dict[str, Any] = await handle.result()
    assert outcome["output"] == "done"
    assert outcome["pages"] == [f"page {n}:"[:7] for n in range(1, PAGES + 1)]  # all kept
    assert outcome["compactions"] >= 1
    assert outcome["requests"] == PAGES + 1 + outcome["compactions"]
    answering = [b for b in reading.bodies if b.get("instructions") != SUMMARISE]
    # The policy trimmed older pages in what it sent...
    trimmed = [
        item
        for body in answering
        for item in body["input"]
        if item.get("type") == "function_call_output" and "[tooluse:" in item["output"]
    ]
    assert trimmed
    # ...and, past the budget with every older page trimmed, sent a summary instead.
    last = answering[-1]["input"]
    assert last[0]["content"].startswith(SUMMARY_HEADER)
    assert "summary: pages" in last[0]["content"]
    # The summary call was an activity like the agent's own calls, each one of the
    # history's model activities, and each step replayed to the same commands.
    models = [
        event.activity_task_scheduled_event_attributes.activity_type.name
        async for event in handle.fetch_history_events()
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    ]
    assert models.count(MODEL_ACTIVITY) == len(reading.bodies)
    # Replayed from its whole history, the run issues the same commands again.
    replayer = Replayer(workflows=[ContextWorkflow], plugins=[plugin])
    await replayer.replay_workflow(await handle.fetch_history())
