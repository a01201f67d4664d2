"""The worker's side: the model activity, and one activity per function tool.

Errors leave an activity as Temporal `ApplicationError`s whose `type` is the
error's class name; the workflow's side turns them back into tooluse's errors.
The model activity adds the HTTP status (its `details`) and is not retried for
an error tooluse's `RetryPolicy` would not retry (a 400, a missing key); with the
agent's retry rule (`ModelSettings.retry`'s `retry_policies` policy), the rule
decides, and names the next attempt's delay. A
tool's developer mistake (`UserError`) and a tool that raises at its timeout
are not retried either; any other exception a tool lets through is, by the
activity's retry policy.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from datetime import timedelta
from typing import Any

from pydantic_core import PydanticSerializationError, to_jsonable_python
from temporalio import activity
from temporalio.common import RetryPolicy as TemporalRetryPolicy
from temporalio.exceptions import ApplicationError

from ..core._context import ToolContext
from ..exceptions import ToolTimeoutError, UserError
from ..models import Model, ModelProvider, ModelTransportError
from ..models._multi import DEFAULT_PROVIDER
from ..run._model_wrapper import wrapped
from ..run._retries import RetryPolicy
from ..run._retry_rules import decide, retry_context, rule_from_spec
from ..tools._calls import invoke_within, timed_out
from ..tools._function_tool import FunctionTool
from ..tools._invocation import InvokeSettings, ToolOutcome
from ..tools._threads import CallTimedOut
from ._payloads import (
    ModelCall,
    ModelReply,
    ToolCall,
    ToolResult,
    reply_payload,
    request_from_payload,
)

__all__ = [
    "MODEL_ACTIVITY",
    "ModelSource",
    "model_activity",
    "tool_activity",
    "tool_activity_name",
]

MODEL_ACTIVITY = "tooluse.invoke_model"
"""The model activity's name."""

ModelSource = ModelProvider | Callable[[str | None], Model]
"""Gives the worker's `Model` for the name a workflow's agent asks for: a `ModelProvider`
(the same object a `RunConfig` takes), or a function of the name."""

_ONE_TRY = RetryPolicy()
"""Asked only whether an error is one tooluse retries at all."""


def tool_activity_name(tool_name: str) -> str:
    """The activity a function tool runs as: `tooluse.tool.<name>`.

    Args:
        tool_name: The tool's name.

    Returns:
        The activity's name.
    """
    return f"tooluse.tool.{tool_name}"


def model_activity(
    provider: ModelSource | None = None,
) -> Callable[[ModelCall], Awaitable[ModelReply]]:
    """The model activity: calls the provider's model with the workflow's request.

    Args:
        provider: Gives the model for a name; None uses `MultiProvider()`.

    Returns:
        The activity, to register on a worker.
    """
    get_model = _model_getter(provider)

    @activity.defn(name=MODEL_ACTIVITY)
    async def invoke_model(call: ModelCall) -> ModelReply:
        request = request_from_payload(call["request"])
        started = time.perf_counter()
        model = get_model(call["model"])
        try:
            # A test's cassette, if one is set, wraps the model (and leaves closing it here).
            response = await wrapped(model).get_response(request)
        except Exception as error:
            raise await _model_failure(error, call) from error
        finally:
            await model.close()  # the activity opened it, as a run closes what it opened
        return reply_payload(response, time.perf_counter() - started)

    return invoke_model


def _model_getter(provider: ModelSource | None) -> Callable[[str | None], Model]:
    """`get_model` of a provider, or the function given."""
    if provider is None:
        return DEFAULT_PROVIDER.get_model
    return provider.get_model if isinstance(provider, ModelProvider) else provider


async def _model_failure(error: Exception, call: ModelCall) -> ApplicationError:
    """The activity's error for a failed call, with the HTTP status if there was one."""
    status = getattr(error, "status_code", None)
    status = status if isinstance(status, int) else None
    described = error.description if isinstance(error, ModelTransportError) else str(error)
    retried, delay = await _retry(error, call)
    return ApplicationError(
        described,
        {"status": status},
        type=type(error).__name__,
        non_retryable=not retried,
        next_retry_delay=delay,
    )


async def _retry(error: Exception, call: ModelCall) -> tuple[bool, timedelta | None]:
    """Whether Temporal may try the call again, and after how long (None: its backoff).

    With the agent's retry rule, the rule decides (as in a run out of a workflow): its
    delay, else the server's `Retry-After`, becomes the next attempt's. Without one, the
    server's `Retry-After` does, as the default `RetryPolicy` of any run takes it. A wait
    beyond `RetryPolicy.max_retry_after` gives up. With no wait named: with the agent's
    jitter, the backoff shortened at random; else Temporal's backoff as it is.
    """
    if isinstance(error, UserError):
        return False, None
    rule = call.get("retry_rule")
    if rule is None or not isinstance(error, ModelTransportError):
        asked = error.retry_after if isinstance(error, ModelTransportError) else None
        retried = _ONE_TRY.retry_delay(error, 0) is not None
    else:
        info = activity.info()
        context = retry_context(error, info.attempt, _scheduled(info.retry_policy), stream=False)
        decision = await decide(rule_from_spec(rule), context)
        asked = error.retry_after if decision.delay is None else decision.delay
        retried = decision.retry
    if not retried:
        return False, None
    if asked is None:
        return True, _jittered(call.get("retry_jitter"))
    wait = _ONE_TRY.wait(asked, 0)
    return (False, None) if wait is None else (True, timedelta(seconds=wait))


def _scheduled(policy: TemporalRetryPolicy | None) -> RetryPolicy:
    """The retries the activity was scheduled with, as the rule's context counts them."""
    attempts = 0 if policy is None else policy.maximum_attempts
    return RetryPolicy(max_retries=attempts - 1 if attempts > 0 else sys.maxsize)


def _jittered(jitter: float | None) -> timedelta | None:
    """The scheduled policy's backoff before the next attempt, shortened at random by `jitter`."""
    if not jitter:
        return None
    info = activity.info()
    policy = info.retry_policy
    if policy is None:  # a server too old to say: its backoff as it is
        return None
    first = policy.initial_interval.total_seconds()
    longest = (policy.maximum_interval or policy.initial_interval * 100).total_seconds()
    backoff = RetryPolicy(
        initial_delay=first, max_delay=longest, multiplier=policy.backoff_coefficient, jitter=jitter
    )
    return timedelta(seconds=backoff.backoff(info.attempt - 1))


def tool_activity(tool: FunctionTool) -> Callable[[ToolCall], Awaitable[ToolResult]]:
    """The activity that invokes `tool` (sync tools in a thread, as in any run).

    Args:
        tool: The tool.

    Returns:
        The activity, to register on a worker.
    """

    @activity.defn(name=tool_activity_name(tool.name))
    async def invoke_tool(call: ToolCall) -> ToolResult:
        ctx: ToolContext[None] = ToolContext(
            context=None,
            tool_name=tool.name,
            tool_call_id=call["call_id"],
            tool_arguments=call["arguments"],
        )
        try:
            return _result(tool, ctx, await _outcome(tool, ctx, call))
        except (UserError, ToolTimeoutError) as error:  # the run stops: no retry helps
            raise ApplicationError(
                str(error), type=type(error).__name__, non_retryable=True
            ) from error

    return invoke_tool


async def _outcome(tool: FunctionTool, ctx: ToolContext[None], call: ToolCall) -> ToolOutcome:
    try:
        return await invoke_within(tool, ctx, call["arguments"], InvokeSettings(call["timeout"]))
    except CallTimedOut as limit:
        return await timed_out(tool, ctx, limit)


def _result(tool: FunctionTool, ctx: ToolContext[None], outcome: ToolOutcome) -> ToolResult:
    if outcome.handoff is not None:
        raise UserError(
            f"Tool '{tool.name}' returned an agent to hand off to: inside a Temporal workflow a "
            "tool runs as an activity and cannot hand off; give the agent a handoff instead "
            "(Agent(handoffs=[...]))"
        )
    error = ctx.error
    return ToolResult(
        output=outcome.output,
        failed=outcome.failed,
        parts=outcome.parts,
        error_type=None if error is None else type(error).__name__,
        context_variables=_variables(tool, outcome.context_variables),
    )


def _variables(tool: FunctionTool, variables: Mapping[str, object] | None) -> dict[str, Any] | None:
    if not variables:
        return None
    try:
        return to_jsonable_python(variables)
    except PydanticSerializationError as error:
        raise UserError(
            f"Tool '{tool.name}' returned context_variables JSON cannot hold: inside a Temporal "
            "workflow they travel from the activity as JSON; use JSON-friendly values"
        ) from error
