"""`ModelSettings(retry=...)` inside a Temporal workflow: honoured by the model activity's
`RetryPolicy`, or refused before any call.

One worker on the session's dev server runs the workflows; the local OpenAI server
counts the attempts.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from datetime import timedelta
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle
from temporalio.common import RetryPolicy
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment
from temporalio.worker import Replayer, Worker

from tooluse import (
    Agent,
    ModelRetrySettings,
    ModelSettings,
    RetryPolicyContext,
    UserError,
    retry_policies,
)
from tooluse.models import ModelRequest, ModelTransportError
from tooluse.run._retry_rules import rule_from_spec, rule_spec
from tooluse.temporal import ActivityOptions, TooluseTemporalPlugin, model_activity
from tooluse.temporal._payloads import ModelCall, request_payload
from tooluse.temporal._retries import ActivityRetries, activity_retries
from tooluse.testing import FunctionModel

from .openai_server import ScriptedServer, Turn
from .temporal_retry_workflows import AGENTS, RetryWorkflow
from .temporal_server import TemporalDevServer

ONCE = ActivityOptions(
    start_to_close_timeout=timedelta(seconds=10),
    retry_policy=RetryPolicy(maximum_attempts=1, non_retryable_error_types=["Custom"]),
)
"""The plugin's policy: one attempt, waits of Temporal's defaults (from 1 s)."""


async def _retry_policies(handle: WorkflowHandle[Any, Any]) -> list[RetryPolicy]:
    """The `RetryPolicy` each activity of the run was scheduled with."""
    return [
        RetryPolicy.from_proto(event.activity_task_scheduled_event_attributes.retry_policy)
        async for event in handle.fetch_history_events()
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    ]


@pytest.mark.xdist_group("temporal")
async def test_max_retries_and_backoff_count_and_the_rest_is_refused_before_the_call(
    temporal_server: TemporalDevServer, openai_server: ScriptedServer
) -> None:
    # A model failing twice, then answering; then twice more, then answering; then a 500.
    openai_server.script(*[Turn(status=500)] * 4, Turn(text="at last"), Turn(status=500))
    plugin = TooluseTemporalPlugin(
        agents=list(AGENTS.values()),
        model_provider=lambda name: openai_server.model("chat"),
        activity_options=ONCE,
    )
    client = await Client.connect(temporal_server.target)
    queue = f"q-{uuid.uuid4()}"

    async def run(*args: Any) -> tuple[dict[str, Any], WorkflowHandle[Any, Any]]:
        handle = await client.start_workflow(
            RetryWorkflow.run, args=list(args), id=f"wf-{uuid.uuid4()}", task_queue=queue
        )
        return await handle.result(), handle

    async with Worker(client, task_queue=queue, workflows=[RetryWorkflow], plugins=[plugin]):
        hasty, _ = await run("hasty")  # max_retries=1: 2 attempts, where the plugin makes 1
        assert hasty["error"].startswith(
            "ModelAPIError: The run stopped: the model activity failed after Temporal's retries"
        )
        assert len(openai_server.requests) == 2
        patient, handle = await run("patient")  # max_retries=2: 3 attempts, the last answers
        assert patient == {"output": "at last"}
        assert len(openai_server.requests) == 5
        # retry_policies.http_status([503]) decides on the worker: a 500 is not retried.
        choosy, _ = await run("choosy")
        assert (choosy["status"], len(openai_server.requests)) == (500, 6)
        # RunConfig.model_settings is merged in at the call: refused there, with no request.
        refused, refused_handle = await run("plain", {"backoff": {"initial_delay": 0}})
        # The run's own retry settings would be ignored there: refused too, with the fix.
        ignored, _ = await run("plain", None, 5)
    assert len(openai_server.requests) == 6
    assert ignored["error"] == (
        "UserError: RunConfig(max_retries=...) cannot be honoured inside a Temporal workflow, "
        "where Temporal retries the model activity and the run makes one attempt per call: "
        "give the retries as ModelSettings(retry=ModelRetrySettings(max_retries=..., "
        "backoff=...)) in RunConfig(model_settings=...) or on the agent, which become the "
        "activity's RetryPolicy, or set the worker's TooluseTemporalPlugin(activity_options="
        "ActivityOptions(retry_policy=...))"
    )
    assert refused["error"] == (
        "UserError: Agent 'plain': model_settings.retry cannot be honoured inside a Temporal "
        "workflow: backoff initial_delay=0: Temporal reads a zero interval as its default (1 s, "
        "or 100 times the first); set a small delay such as initial_delay=0.001. Temporal's "
        "activity RetryPolicy retries the model call there: max_retries and backoff's "
        "initial_delay, max_delay and multiplier become its maximum_attempts, "
        "initial_interval, maximum_interval and backoff_coefficient, and the worker applies "
        "jitter and a retry_policies rule; set anything else on the worker's plugin, "
        "TooluseTemporalPlugin(activity_options=ActivityOptions(retry_policy=RetryPolicy(...)))"
    )
    assert await _retry_policies(refused_handle) == []
    # The backoff's waits are the activity's, and the plugin's other fields are kept.
    assert await _retry_policies(handle) == [
        RetryPolicy(
            initial_interval=timedelta(seconds=0.01),
            backoff_coefficient=1.5,
            maximum_interval=timedelta(seconds=0.05),
            maximum_attempts=3,
            non_retryable_error_types=["Custom"],
        )
    ]
    # Replayed from its history, the run schedules the same commands.
    await Replayer(workflows=[RetryWorkflow], plugins=[plugin]).replay_workflow(
        await handle.fetch_history()
    )


def test_a_policy_function_of_ones_own_is_refused_when_the_worker_is_set_up() -> None:
    def overloaded(context: RetryPolicyContext) -> bool:
        return context.normalized.status_code == 503

    built = retry_policies.any(retry_policies.retry_after(), retry_policies.http_status([503]))
    for policy in (overloaded, retry_policies.any(built, overloaded)):
        picky = Agent(
            "picky", model_settings=ModelSettings(retry=ModelRetrySettings(policy=policy))
        )
        front = Agent("front", handoffs=[picky])  # reached through a handoff
        with pytest.raises(UserError) as refused:
            TooluseTemporalPlugin(agents=[front])
        message = str(refused.value)
        assert message.startswith(
            "Agent 'picky': model_settings.retry cannot be honoured inside a Temporal workflow: "
            "policy="
        )
        assert "is a function of your own, which would have to decide where the call" in message
        assert "build the policy with retry_policies" in message
    # Built by retry_policies, it travels to the worker as JSON.
    TooluseTemporalPlugin(agents=[Agent("a", model_settings=_settings(built))])


def _settings(policy: Any) -> ModelSettings:
    return ModelSettings(retry=ModelRetrySettings(max_retries=2, policy=policy))


async def test_the_worker_decides_by_the_rule_and_names_the_next_wait() -> None:
    failures = [
        ModelTransportError("overloaded", 503, retry_after=2.5),  # retried after its wait
        ModelTransportError("broken", 500),  # not one of the rule's statuses
        ModelTransportError("overloaded", 503, retry_after=3600),  # past max_retry_after
        ModelTransportError("overloaded", 503, retry_after=2.5),  # no rule: still its wait
        ModelTransportError("overloaded", 429, retry_after=3600),  # no rule, past the most
        ModelTransportError("overloaded", 503),  # no rule, no wait named: Temporal's backoff
        ModelTransportError("broken", 500),  # no rule, jitter: the backoff (2 s), shortened
    ]

    def reply(items: object, tools: object) -> str:
        raise failures.pop(0)

    invoke = model_activity(lambda name: FunctionModel(reply))
    rule = retry_policies.any(retry_policies.retry_after(), retry_policies.http_status([503]))
    call = ModelCall(
        model=None, request=request_payload(ModelRequest(None, [])), retry_rule=rule_spec(rule)
    )
    environment = ActivityEnvironment()
    environment.info = dataclasses.replace(
        environment.info, attempt=2, retry_policy=RetryPolicy(maximum_attempts=3)
    )
    outcomes: list[tuple[bool, timedelta | None]] = []
    without_rule = ModelCall(model=None, request=call["request"])
    jittered = ModelCall(model=None, request=call["request"], retry_jitter=0.25)
    for sent in (call, call, call, without_rule, without_rule, without_rule, jittered):
        with pytest.raises(ApplicationError) as failed:
            await environment.run(invoke, sent)
        outcomes.append((failed.value.non_retryable, failed.value.next_retry_delay))
    *decided, (non_retryable, wait) = outcomes
    waited = (False, timedelta(seconds=2.5))
    assert decided == [waited, (True, None), (True, None), waited, (True, None), (False, None)]
    assert not non_retryable
    assert wait is not None
    assert timedelta(seconds=1.5) <= wait <= timedelta(seconds=2)


def test_what_temporal_cannot_express_is_named_field_by_field() -> None:
    zeros = ModelRetrySettings(backoff={"initial_delay": 0, "max_delay": 0})
    with pytest.raises(UserError) as refused:
        activity_retries(None, zeros, "Agent 'a'")
    message = str(refused.value)
    assert "backoff initial_delay=0: Temporal reads a zero interval as its default" in message
    assert "set a small delay such as max_delay=0.001" in message
    # A wait set alone that crosses the plugin's other one: Temporal would refuse the pair.
    slow_start = RetryPolicy(initial_interval=timedelta(seconds=1))
    with pytest.raises(UserError, match=r"max_delay=0.5 is below the plugin's RetryPolicy\.init"):
        activity_retries(slow_start, ModelRetrySettings(backoff={"max_delay": 0.5}), "A")
    capped = RetryPolicy(maximum_interval=timedelta(seconds=2))
    with pytest.raises(UserError, match=r"initial_delay=5 is above the plugin's RetryPolicy\.max"):
        activity_retries(capped, ModelRetrySettings(backoff={"initial_delay": 5}), "A")
    # What is left unset keeps the plugin's value (None: Temporal's default policy).
    kept = RetryPolicy(maximum_attempts=7, non_retryable_error_types=["X"])
    no_retries = activity_retries(kept, ModelRetrySettings(max_retries=0), "A")
    assert no_retries.policy == RetryPolicy(maximum_attempts=1, non_retryable_error_types=["X"])
    assert activity_retries(None, ModelRetrySettings(), "A") == ActivityRetries(RetryPolicy())
    # Jitter is the worker's: the run's default fraction, as `jitter=True` sets it elsewhere.
    jittered = activity_retries(None, ModelRetrySettings(backoff={"jitter": True}), "A")
    assert (jittered.policy, jittered.jitter) == (RetryPolicy(), 0.25)


def test_every_rule_retry_policies_builds_travels_as_json() -> None:
    policies = retry_policies
    rule = policies.all(
        policies.any(policies.never(), policies.provider_suggested(), policies.network_error()),
        policies.any(policies.retry_after(), policies.http_status([503, 429])),
    )
    spec = rule_spec(rule)
    assert spec is not None
    assert rule_spec(rule_from_spec(json.loads(json.dumps(spec)))) == spec
    assert spec["rules"][1]["rules"][1] == {"rule": "http_status", "statuses": [429, 503]}
    with pytest.raises(UserError, match="no retry rule is named 'jittered' in this tooluse"):
        rule_from_spec({"rule": "jittered"})
