"""tooluse.temporal on a real Temporal dev server, with a worker in this process."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowFailureError, WorkflowHandle
from temporalio.common import RetryPolicy
from temporalio.exceptions import ApplicationError, CancelledError
from temporalio.worker import Replayer, UnsandboxedWorkflowRunner, Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner

from tooluse import FunctionTool, ToolContext, UserError, function_tool
from tooluse.models import Model, ModelRequest, ModelResponse, StreamEvent
from tooluse.run._backend import run_backend
from tooluse.temporal import (
    MODEL_ACTIVITY,
    ActivityModel,
    ActivityOptions,
    TemporalBackend,
    TooluseTemporalPlugin,
)
from tooluse.temporal._activities import _variables  # pyright: ignore[reportPrivateUsage]
from tooluse.temporal._payloads import request_from_payload, request_payload
from tooluse.temporal._plugin import (
    _with_passthrough,  # pyright: ignore[reportPrivateUsage]
    collect_tools,
)

from .openai_server import Call, ScriptedServer, Turn, sent_tool_outputs
from .temporal_server import TemporalDevServer
from .temporal_workflows import (
    AGENTS,
    TOOL_CALLS,
    AgentWorkflow,
    OneTurnWorkflow,
    ScenarioWorkflow,
    add,
)

# One worker runs every test of the Temporal dev server, which starts once per worker.
pytestmark = pytest.mark.xdist_group("temporal")


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
    assert run_backend.get() is None  # the backend was the workflow's alone
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


async def test_a_run_that_stops_fails_its_workflow_instead_of_retrying_it(
    temporal_server: TemporalDevServer, openai_server: ScriptedServer
) -> None:
    openai_server.script(Turn(calls=[Call("add", '{"a": 2, "b": 3}', "call_1")]), Turn(text="5"))
    client = await Client.connect(temporal_server.target)
    plugin = TooluseTemporalPlugin([add], model_provider=lambda name: openai_server.model("chat"))
    queue = f"q-{uuid.uuid4()}"
    async with Worker(client, task_queue=queue, workflows=[OneTurnWorkflow], plugins=[plugin]):
        handle = await client.start_workflow(
            OneTurnWorkflow.run, "what is 2 + 3?", id=f"wf-{uuid.uuid4()}", task_queue=queue
        )
        with pytest.raises(WorkflowFailureError) as failed:
            await handle.result()
    cause = failed.value.cause
    assert isinstance(cause, ApplicationError)
    assert cause.type == "MaxTurnsExceeded"


# The hardened slice: one worker per test, the session's server, scripted models.

FAST = ActivityOptions(
    start_to_close_timeout=timedelta(seconds=10),
    retry_policy=RetryPolicy(initial_interval=timedelta(milliseconds=10), maximum_attempts=2),
)


def _plugin(server: ScriptedServer, api: str = "chat", **given: Any) -> TooluseTemporalPlugin:
    given.setdefault("agents", list(AGENTS.values()))
    given.setdefault("activity_options", FAST)
    return TooluseTemporalPlugin(model_provider=lambda name: server.model(api), **given)


async def _scenario(
    target: str, plugin: TooluseTemporalPlugin, name: str, question: str = "go"
) -> tuple[dict[str, Any], WorkflowHandle[Any, Any]]:
    client = await Client.connect(target)
    queue = f"q-{uuid.uuid4()}"
    async with Worker(client, task_queue=queue, workflows=[ScenarioWorkflow], plugins=[plugin]):
        handle = await client.start_workflow(
            ScenarioWorkflow.run, args=[name, question], id=f"wf-{uuid.uuid4()}", task_queue=queue
        )
        outcome: dict[str, Any] = await handle.result()
    return outcome, handle


async def _activities(handle: WorkflowHandle[Any, Any]) -> list[str]:
    return [
        event.activity_task_scheduled_event_attributes.activity_type.name
        async for event in handle.fetch_history_events()
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    ]


async def _replays(handle: WorkflowHandle[Any, Any], plugin: TooluseTemporalPlugin) -> None:
    replayer = Replayer(workflows=[ScenarioWorkflow], plugins=[plugin])
    await replayer.replay_workflow(await handle.fetch_history())


async def test_two_tools_at_once_replay(
    temporal_server: TemporalDevServer, openai_server: ScriptedServer
) -> None:
    calls = [Call("add", '{"a": 2, "b": 3}', "c1"), Call("multiply", '{"a": 4, "b": 5}', "c2")]
    openai_server.script(Turn(calls=calls), Turn(text="5 and 20"))
    plugin = _plugin(openai_server)
    outcome, handle = await _scenario(temporal_server.target, plugin, "pair")
    assert outcome["output"] == "5 and 20"
    assert sent_tool_outputs(openai_server.requests[1]["body"]) == {"c1": "5", "c2": "20"}
    assert await _activities(handle) == [
        MODEL_ACTIVITY,
        "tooluse.tool.add",
        "tooluse.tool.multiply",
        MODEL_ACTIVITY,
    ]
    # Each model call's duration was measured on the worker, not by the workflow's clock.
    assert len(outcome["durations"]) == 2
    assert all(d > 0 for d in outcome["durations"])
    await _replays(handle, plugin)


async def test_handoff_replays(
    temporal_server: TemporalDevServer, openai_server: ScriptedServer
) -> None:
    openai_server.script(
        Turn(calls=[Call("transfer_to_calculator", "{}", "h1")]),
        Turn(calls=[Call("add", '{"a": 1, "b": 1}', "c1")]),
        Turn(text="2"),
    )
    plugin = _plugin(openai_server)  # add reached through triage's handoff
    outcome, handle = await _scenario(temporal_server.target, plugin, "triage")
    assert (outcome["output"], outcome["agent"]) == ("2", "calculator")
    assert await _activities(handle) == [
        MODEL_ACTIVITY,
        MODEL_ACTIVITY,
        "tooluse.tool.add",
        MODEL_ACTIVITY,
    ]
    await _replays(handle, plugin)


async def test_agent_as_tool_stays_in_the_workflow(
    temporal_server: TemporalDevServer, openai_server: ScriptedServer
) -> None:
    openai_server.script(
        Turn(calls=[Call("ask_calculator", '{"input": "2 + 2?"}', "o1")]),
        Turn(calls=[Call("add", '{"a": 2, "b": 2}', "n1")]),  # the nested run
        Turn(text="4"),
        Turn(text="It is 4."),
    )
    plugin = TooluseTemporalPlugin(
        agents=[AGENTS["boss"]], model_provider=lambda name: openai_server.model("chat")
    )
    outcome, handle = await _scenario(temporal_server.target, plugin, "boss")
    assert outcome["output"] == "It is 4."
    assert sent_tool_outputs(openai_server.requests[3]["body"]) == {"o1": "4"}
    # The nested run's calls are this workflow's activities; the agent tool is none.
    assert await _activities(handle) == [
        MODEL_ACTIVITY,
        MODEL_ACTIVITY,
        "tooluse.tool.add",
        MODEL_ACTIVITY,
        MODEL_ACTIVITY,
    ]
    await _replays(handle, plugin)


async def test_rich_output_parts_travel(
    temporal_server: TemporalDevServer, openai_server: ScriptedServer
) -> None:
    openai_server.script(Turn(calls=[Call("chart", "{}", "c1")]), Turn(text="a chart"))
    outcome, _ = await _scenario(
        temporal_server.target, _plugin(openai_server, "responses"), "painter"
    )
    assert outcome["output"] == "a chart"
    sent = [i for i in openai_server.requests[1]["body"]["input"] if i.get("call_id") == "c1"]
    assert sent[-1]["output"] == [
        {"type": "input_image", "image_url": "https://example.com/chart.png"}
    ]


async def test_a_failed_call_reports_its_error_type(
    temporal_server: TemporalDevServer, openai_server: ScriptedServer
) -> None:
    openai_server.script(Turn(calls=[Call("broken", "{}", "c1")]), Turn(text="sorry"))
    outcome, _ = await _scenario(temporal_server.target, _plugin(openai_server), "fragile")
    assert outcome["tool_errors"] == ["ToolFailed:ValueError"]
    assert "error" in sent_tool_outputs(openai_server.requests[1]["body"])["c1"].lower()


async def test_context_variables_travel_and_a_handoff_return_is_refused(
    temporal_server: TemporalDevServer, openai_server: ScriptedServer
) -> None:
    openai_server.script(
        Turn(calls=[Call("remember", '{"city": "Paris"}', "c1")]),
        Turn(text="ok"),
        Turn(calls=[Call("defect", "{}", "c2")]),
    )
    plugin = _plugin(openai_server)
    outcome, _ = await _scenario(temporal_server.target, plugin, "setter")
    assert outcome["context"] == {"city": "Paris"}
    outcome, _ = await _scenario(temporal_server.target, plugin, "defector")
    assert outcome["error"].startswith("UserError: Tool 'defect' returned an agent to hand off")
    assert "handoffs=[...]" in outcome["error"]


async def test_tool_timeouts(
    temporal_server: TemporalDevServer, openai_server: ScriptedServer
) -> None:
    openai_server.script(Turn(calls=[Call("slow", "{}", "c1")]), Turn(text="too slow"))
    plugin = _plugin(openai_server)
    outcome, handle = await _scenario(temporal_server.target, plugin, "sleepy")
    assert outcome["output"] == "too slow"
    assert "timed out" in sent_tool_outputs(openai_server.requests[1]["body"])["c1"]
    timeouts = [
        event.activity_task_scheduled_event_attributes.start_to_close_timeout.ToTimedelta()
        async for event in handle.fetch_history_events()
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    ]
    assert timeouts[1] == timedelta(seconds=0.2) + FAST.tool_timeout_margin
    openai_server.script(Turn(calls=[Call("slow_strict", "{}", "c2")]))
    outcome, _ = await _scenario(temporal_server.target, plugin, "strict")
    assert outcome["error"].startswith("ToolTimeoutError: Tool 'slow_strict' timed out after 0.2 s")
    # No limit of its own: Temporal's start_to_close_timeout ends the attempt.
    openai_server.script(Turn(calls=[Call("nap", "{}", "c3")]))
    short = ActivityOptions(
        start_to_close_timeout=timedelta(seconds=0.3), retry_policy=RetryPolicy(maximum_attempts=1)
    )
    outcome, _ = await _scenario(
        temporal_server.target, _plugin(openai_server, activity_options=short), "stuck"
    )
    assert outcome["error"].startswith("ToolTimeoutError: Tool 'nap' timed out after 0.3 s")


async def test_a_tool_that_raises_stops_the_run_after_retries(
    temporal_server: TemporalDevServer, openai_server: ScriptedServer
) -> None:
    openai_server.script(Turn(calls=[Call("explode", "{}", "c1")]))
    outcome, _ = await _scenario(temporal_server.target, _plugin(openai_server), "raw")
    assert outcome["error"] == (
        "ToolActivityError: Tool 'explode' failed in its activity after the activity's "
        "retries (RuntimeError: boom)"
    )
    assert outcome["causes"][:2] == ["ActivityError", "ApplicationError"]


async def test_model_activity_failures_are_model_api_errors(
    temporal_server: TemporalDevServer, openai_server: ScriptedServer
) -> None:
    openai_server.script(Turn(status=400))  # not retried: once
    outcome, _ = await _scenario(temporal_server.target, _plugin(openai_server), "calculator")
    assert outcome["error"].startswith("ModelAPIError: The run stopped: the model activity failed")
    assert outcome["status"] == 400
    assert outcome["causes"][:2] == ["ActivityError", "ApplicationError"]  # the SDK's errors
    assert len(openai_server.requests) == 1
    openai_server.script(Turn(status=500), Turn(status=500))  # retried by Temporal, not the run
    outcome, _ = await _scenario(temporal_server.target, _plugin(openai_server), "calculator")
    assert outcome["status"] == 500
    assert len(openai_server.requests) == 3


async def test_model_activity_timeout(
    temporal_server: TemporalDevServer, openai_server: ScriptedServer
) -> None:
    short = ActivityOptions(
        start_to_close_timeout=timedelta(seconds=0.3), retry_policy=RetryPolicy(maximum_attempts=1)
    )
    plugin = TooluseTemporalPlugin(model_provider=lambda name: SlowModel(), activity_options=short)
    outcome, _ = await _scenario(temporal_server.target, plugin, "calculator")
    assert outcome["error"].startswith("ModelAPIError: The run stopped: the model activity failed")
    assert outcome["status"] is None


async def test_an_unregistered_tool_is_named(
    temporal_server: TemporalDevServer, openai_server: ScriptedServer
) -> None:
    openai_server.script(Turn(calls=[Call("add", '{"a": 1, "b": 2}', "c1")]))
    plugin = _plugin(openai_server, agents=[])
    outcome, _ = await _scenario(temporal_server.target, plugin, "calculator")
    assert outcome["error"] == (
        "UserError: Tool 'add' was called in a Temporal workflow, but the worker has no activity "
        "for it: pass it to the plugin, TooluseTemporalPlugin(tools=[...]), or pass the agent "
        "that has it, TooluseTemporalPlugin(agents=[...])"
    )


async def test_a_cancelled_workflow_ends_cancelled_while_a_tool_runs(
    temporal_server: TemporalDevServer, openai_server: ScriptedServer
) -> None:
    openai_server.script(Turn(calls=[Call("long_nap", "{}", "c1")]))
    plugin = _plugin(openai_server)
    client = await Client.connect(temporal_server.target)
    queue = f"q-{uuid.uuid4()}"
    async with Worker(client, task_queue=queue, workflows=[ScenarioWorkflow], plugins=[plugin]):
        handle = await client.start_workflow(
            ScenarioWorkflow.run, args=["napper", "go"], id=f"wf-{uuid.uuid4()}", task_queue=queue
        )
        while "tooluse.tool.long_nap" not in await _activities(handle):
            await asyncio.sleep(0.05)
        await handle.cancel()
        with pytest.raises(WorkflowFailureError) as failed:
            await handle.result()
    assert isinstance(failed.value.cause, CancelledError)
    assert (await handle.describe()).status == WorkflowExecutionStatus.CANCELED


async def test_run_timeout_in_a_workflow_is_a_run_timeout(
    temporal_server: TemporalDevServer, openai_server: ScriptedServer
) -> None:
    openai_server.script(Turn(calls=[Call("long_nap", "{}", "c1")]))
    plugin = _plugin(openai_server)
    client = await Client.connect(temporal_server.target)
    queue = f"q-{uuid.uuid4()}"
    async with Worker(client, task_queue=queue, workflows=[ScenarioWorkflow], plugins=[plugin]):
        outcome = await client.execute_workflow(
            ScenarioWorkflow.run,
            args=["napper", "go", 0.5],
            id=f"wf-{uuid.uuid4()}",
            task_queue=queue,
        )
    assert outcome["error"].startswith("RunTimeoutError")


async def test_a_failed_call_is_reported_not_the_call_cancelled_beside_it(
    temporal_server: TemporalDevServer, openai_server: ScriptedServer
) -> None:
    openai_server.script(Turn(calls=[Call("long_nap", "{}", "c1"), Call("explode", "{}", "c2")]))
    outcome, _ = await _scenario(temporal_server.target, _plugin(openai_server), "mixed")
    assert outcome["error"].startswith("ToolActivityError: Tool 'explode'")


async def test_hosted_tools_pass_as_their_params(
    temporal_server: TemporalDevServer, openai_server: ScriptedServer
) -> None:
    openai_server.script(Turn(text="found"))
    plugin = _plugin(openai_server, "responses")
    outcome, _ = await _scenario(temporal_server.target, plugin, "searcher")
    assert outcome["output"] == "found"
    body = openai_server.requests[0]["body"]
    assert [tool["type"] for tool in body["tools"]] == ["web_search", "file_search"]
    assert body["tools"][1]["vector_store_ids"] == ["vs_1"]
    assert body["include"] == ["file_search_call.results"]


def test_plugin_collects_each_tool_once_and_refuses_a_clash() -> None:
    names = [tool.name for tool in collect_tools([add], list(AGENTS.values()))]
    assert names.count("add") == 1
    assert "ask_calculator" not in names  # an agent tool runs in the workflow
    assert {"multiply", "chart", "explode"} <= set(names)

    def subtract(a: int, b: int) -> int:
        return a - b

    other = function_tool(name_override="add")(subtract)
    with pytest.raises(UserError, match="more than one tool is named add: a worker runs"):
        collect_tools([other], [AGENTS["calculator"]])


async def test_what_a_workflow_cannot_do() -> None:
    backend = TemporalBackend(ActivityOptions())
    with pytest.raises(UserError, match="streamed runs are not supported"):
        backend.model("gpt").stream_response(ModelRequest(instructions=None, input=[]))
    stand_in_model = backend.model(SlowModel())  # only a name travels: it has none
    assert isinstance(stand_in_model, ActivityModel)
    assert stand_in_model.model is None
    assert backend.duration(ModelResponse(output=[])) == 0.0
    stand_in = backend.function_tool(add)
    assert backend.function_tool(add) is stand_in  # made once per tool
    renamed = dataclasses.replace(add, name="plus")  # a new tool (a toolset's copy, say)
    assert backend.function_tool(renamed).name == "plus"
    ctx: ToolContext[None] = ToolContext(None, tool_name="add", tool_call_id="c", tool_arguments="")
    tool = request_from_payload(request_payload(ModelRequest("", [], tools=[add]))).tools[0]
    assert isinstance(tool, FunctionTool)
    with pytest.raises(UserError, match="never invoked there"):
        await tool.on_invoke_tool(ctx, "{}")


def test_context_variables_must_be_json() -> None:
    with pytest.raises(UserError, match="Tool 'add' returned context_variables JSON cannot hold"):
        _variables(add, {"lock": object()})


def test_the_plugin_passes_tooluse_through_a_given_sandbox() -> None:
    runner = _with_passthrough(SandboxedWorkflowRunner())
    assert isinstance(runner, SandboxedWorkflowRunner)
    assert "tooluse" in runner.restrictions.passthrough_modules
    assert isinstance(_with_passthrough(None), SandboxedWorkflowRunner)
    unsandboxed = UnsandboxedWorkflowRunner()
    assert _with_passthrough(unsandboxed) is unsandboxed


class SlowModel(Model):
    """Answers after the model activity's timeout."""

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        await asyncio.sleep(3)
        return ModelResponse(output=[])  # pragma: no cover - Temporal ends the attempt first

    def stream_response(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        raise NotImplementedError  # pragma: no cover - never streamed
