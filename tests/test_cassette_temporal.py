"""Cassettes on Temporal: recorded and replayed inside the model activity, on a dev server."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from temporalio.client import Client, WorkflowFailureError
from temporalio.exceptions import ApplicationError
from temporalio.worker import Worker

from tooluse.models import Model, ModelProvider
from tooluse.temporal import TooluseTemporalPlugin
from tooluse.testing import CassetteProvider, use_cassette

from .openai_server import Call, ScriptedServer, Turn
from .temporal_server import TemporalDevServer
from .temporal_workflows import TOOL_CALLS, AgentWorkflow, add


class ServerProvider(ModelProvider):
    def __init__(self, server: ScriptedServer) -> None:
        self.server = server

    def get_model(self, model_name: str | None) -> Model:
        return self.server.model("chat")


async def run_workflow(target: str, plugin: TooluseTemporalPlugin) -> str:
    client = await Client.connect(target)
    queue = f"q-{uuid.uuid4()}"
    async with Worker(client, task_queue=queue, workflows=[AgentWorkflow], plugins=[plugin]):
        handle = await client.start_workflow(
            AgentWorkflow.run, "what is 2 + 3?", id=f"wf-{uuid.uuid4()}", task_queue=queue
        )
        return await handle.result()


def calculator_server() -> ScriptedServer:
    server = ScriptedServer()
    server.script(Turn(calls=[Call("add", '{"a": 2, "b": 3}', "call_1")]), Turn(text="5"))
    server.start()
    return server


async def test_the_model_activity_records_and_replays_a_cassette(
    temporal_server: TemporalDevServer, tmp_path: Path
) -> None:
    path = tmp_path / "calculator.jsonl"
    server = calculator_server()
    try:
        plugin = TooluseTemporalPlugin(
            [add], model_provider=CassetteProvider(path, ServerProvider(server))
        )
        assert await run_workflow(temporal_server.target, plugin) == "5"
    finally:
        server.stop()
    assert len(server.requests) == 2
    requests = [json.loads(line)["request"] for line in path.read_text().splitlines()]
    assert [r["instructions"] for r in requests] == ["Add with the tool."] * 2
    assert requests[1]["input"][-1]["output"] == "5"

    TOOL_CALLS.clear()
    replaying = TooluseTemporalPlugin([add], model_provider=CassetteProvider(path))
    assert await run_workflow(temporal_server.target, replaying) == "5"
    assert TOOL_CALLS == [(2, 3)]  # the tool ran for real: only the model was replayed
    assert len(server.requests) == 2

    # A stale recording fails the workflow at once (not retried), saying where it differs.
    path.write_text(path.read_text().replace("Add with the tool.", "Add carefully."))
    stale = TooluseTemporalPlugin([add], model_provider=CassetteProvider(path))
    with pytest.raises(WorkflowFailureError) as failed:
        await run_workflow(temporal_server.target, stale)
    cause = failed.value.cause
    assert isinstance(cause, ApplicationError)
    assert cause.type == "ModelAPIError"
    assert "CassetteMismatch: cassette" in cause.message
    assert "differs from the one recorded on line 1 at instructions" in cause.message


async def test_use_cassette_reaches_the_model_activity_of_a_worker_started_inside(
    temporal_server: TemporalDevServer, tmp_path: Path
) -> None:
    path = tmp_path / "calculator.jsonl"
    server = calculator_server()
    try:
        with use_cassette(path, record=True):
            plugin = TooluseTemporalPlugin([add], model_provider=ServerProvider(server))
            assert await run_workflow(temporal_server.target, plugin) == "5"
    finally:
        server.stop()
    assert len(path.read_text().splitlines()) == 2

    with use_cassette(path, record=False):  # the server is gone: the cassette answers
        plugin = TooluseTemporalPlugin([add], model_provider=ServerProvider(server))
        assert await run_workflow(temporal_server.target, plugin) == "5"
    assert len(server.requests) == 2
