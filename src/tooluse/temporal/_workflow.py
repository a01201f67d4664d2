"""The workflow's side: a run backend whose model and function tools are activities.

Inside a workflow, `tooluse.temporal`'s interceptor sets `TemporalBackend` as
the run backend, so `Runner.run` calls the model through `ActivityModel` and
each function tool through an activity named after it. An agent used as a tool
stays in the workflow: its nested run's calls are activities of the same one.

Determinism: the loop in a workflow never reads a clock or draws a random
number. The model activity measures each call (`duration`); the run makes one
attempt per model call and leaves retries to the activity's `RetryPolicy`
(Temporal's), so no backoff jitter or `Retry-After` date is computed in the
workflow (the model activity names a server's `Retry-After` as Temporal's next
wait). An agent's `ModelSettings.retry` changes its calls' `RetryPolicy`, or is
refused before the call (`_retries`). `run_timeout` and tool timeouts are workflow
time (durable timers).

The errors a run in a workflow raises besides tooluse's own:

```
RunError
└── ToolActivityError   a tool's activity failed after its retries (not a tool error
                        the model is told about: one the tool let through)
```

A failed model activity stops the run with `ModelAPIError` (the `ActivityError`
is its `__cause__`); a tool that raised at its timeout, or whose activity ran
past `start_to_close_timeout`, with `ToolTimeoutError`; a developer mistake met
on the worker with `UserError`.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, cast

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError, FailureError
from temporalio.exceptions import CancelledError as TemporalCancelledError
from temporalio.exceptions import TimeoutError as ActivityTimeoutError
from temporalio.worker import (
    ExecuteWorkflowInput,
    Interceptor,
    WorkflowInboundInterceptor,
    WorkflowInterceptorClassInput,
)

from ..agents._agent_tool import tool_agent
from ..core._context import ToolContext
from ..core._retry_settings import ModelRetrySettings
from ..exceptions import RunError, ToolTimeoutError, UserError
from ..models import Model, ModelRequest, ModelResponse, ModelTransportError, StreamEvent
from ..run._backend import run_backend
from ..tools._calls import RemoteInvoker
from ..tools._function_tool import FunctionTool
from ..tools._invocation import InvokeSettings, ToolOutcome
from ._activities import MODEL_ACTIVITY, tool_activity_name
from ._payloads import (
    ModelCall,
    ModelReply,
    ToolCall,
    ToolResult,
    request_payload,
    response_from_payload,
)
from ._retries import ActivityRetries, activity_retries

__all__ = [
    "ActivityModel",
    "ActivityOptions",
    "TemporalBackend",
    "ToolActivityError",
    "ToolFailed",
    "TooluseInterceptor",
]


@dataclass(frozen=True)
class ActivityOptions:
    """How the model and tool activities are scheduled (Temporal's own options).

    Example:
        `ActivityOptions(start_to_close_timeout=timedelta(minutes=5),
        retry_policy=RetryPolicy(maximum_attempts=10))`
    """

    start_to_close_timeout: timedelta = timedelta(seconds=60)
    """How long one attempt may take; for a tool with a timeout, see `tool_timeout_margin`."""
    retry_policy: RetryPolicy | None = field(
        default_factory=lambda: RetryPolicy(maximum_attempts=3)
    )
    """Temporal retries the activity by this (the run's own `RetryPolicy` is off in a
    workflow); None for Temporal's default (unlimited attempts)."""
    tool_timeout_margin: timedelta = timedelta(seconds=5)
    """A tool call with a timeout (`timeout_seconds`, or the run's) gets that timeout plus
    this as its `start_to_close_timeout`: the tool's own limit answers the model first, and
    Temporal's ends an attempt stuck past it (a sync tool's thread cannot be stopped)."""


class ToolFailed(Exception):
    """What a failed call reported by a tool activity is to `ctx.error` (and error functions)."""

    def __init__(self, message: str, error_type: str | None) -> None:
        self.error_type = error_type
        """The class name of the error the tool met on the worker, if any."""
        super().__init__(message)


class ToolActivityError(RunError):
    """A tool's activity failed after its retries.

    The tool raised (with no `failure_error_function` to tell the model), or the
    worker could not run it. The `ActivityError` is the `__cause__`; its own cause
    has the worker's error.
    """

    def __init__(self, tool_name: str, error_type: str, message: str) -> None:
        self.tool_name = tool_name
        """The tool whose activity failed."""
        self.error_type = error_type
        """The class name of the error on the worker (or of Temporal's failure)."""
        super().__init__(
            f"Tool '{tool_name}' failed in its activity after the activity's retries "
            f"({error_type}: {message})"
        )


class ActivityModel(Model):
    """A model whose calls run as the model activity, on a worker."""

    def __init__(
        self, name: str | None, backend: TemporalBackend, retries: ActivityRetries | None = None
    ) -> None:
        self.model = name
        self._backend = backend
        self._retries = retries  # the agent's ModelSettings.retry; None: the plugin's policy

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        options, retries = self._backend.options, self._retries
        call = ModelCall(model=self.model, request=request_payload(request))
        if retries is not None:
            call["retry_rule"], call["retry_jitter"] = retries.rule, retries.jitter
        try:
            reply: ModelReply = await workflow.execute_activity(
                MODEL_ACTIVITY,
                call,
                start_to_close_timeout=options.start_to_close_timeout,
                retry_policy=options.retry_policy if retries is None else retries.policy,
                result_type=dict,
            )
        except ActivityError as error:
            _reraise_cancellation(error)
            raise _model_failure(error) from error
        response = response_from_payload(reply["response"])
        self._backend.measured(response, reply["duration"])
        return response

    def stream_response(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        raise UserError("tooluse.temporal: streamed runs are not supported inside a workflow")


def _reraise_cancellation(error: ActivityError) -> None:
    """An activity cancelled because its workflow (or the run's task) was: still a cancellation.

    So a cancelled workflow ends cancelled, `run_timeout` raises `RunTimeoutError`, and a
    call cancelled beside one that failed does not stand for the failure.
    """
    if isinstance(error.cause, TemporalCancelledError):
        raise asyncio.CancelledError from error


def _model_failure(error: ActivityError) -> ModelTransportError:
    """What the run makes a `ModelAPIError` of, with the worker's status and message."""
    cause = error.cause if isinstance(error.cause, FailureError) else error
    details: object = (
        cause.details[0] if isinstance(cause, ApplicationError) and cause.details else None
    )
    what = f"{_kind(cause)}: {cause.message}"
    description = f"the model activity failed after Temporal's retries ({what})"
    return ModelTransportError(description, _status(details))


def _kind(failure: FailureError) -> str:
    """The worker's error class name for an activity's error; Temporal's for its own."""
    if isinstance(failure, ApplicationError) and failure.type:
        return failure.type
    return type(failure).__name__


def _status(details: object) -> int | None:
    """The HTTP status the model activity put in its error's details, if any."""
    if not isinstance(details, dict):
        return None
    status = cast("dict[object, object]", details).get("status")
    return status if isinstance(status, int) else None


class ActivityInvoker(RemoteInvoker):
    """A function tool's stand-in invoker: the call runs as the tool's activity."""

    def __init__(self, name: str, backend: TemporalBackend) -> None:
        self.name = name
        self._backend = backend

    async def invoke(
        self, ctx: ToolContext[Any], arguments: str, settings: InvokeSettings
    ) -> ToolOutcome:
        call = ToolCall(arguments=arguments, call_id=ctx.tool_call_id, timeout=settings.timeout)
        try:
            result: ToolResult = await workflow.execute_activity(
                tool_activity_name(self.name),
                call,
                start_to_close_timeout=self._backend.tool_timeout(settings.timeout),
                retry_policy=self._backend.options.retry_policy,
                result_type=dict,
            )
        except ActivityError as error:
            _reraise_cancellation(error)
            raise self._failure(error, settings.timeout) from error
        if result["failed"]:
            ctx.error = ToolFailed(result["output"], result["error_type"])
        return ToolOutcome(
            result["output"],
            result["failed"],
            context_variables=result["context_variables"],
            parts=result["parts"],
        )

    def _failure(self, error: ActivityError, timeout: float | None) -> Exception:
        cause = error.cause if isinstance(error.cause, FailureError) else error
        kind = _kind(cause)
        if isinstance(cause, ActivityTimeoutError) or kind == "ToolTimeoutError":
            limit = self._backend.tool_timeout(None).total_seconds() if timeout is None else timeout
            return ToolTimeoutError(self.name, limit)
        if kind == "UserError":
            return UserError(cause.message)
        if kind == "NotFoundError":  # decided on the worker: the workflow's code never asks
            return UserError(
                f"Tool '{self.name}' was called in a Temporal workflow, but the worker has no "
                f"activity for it: pass it to the plugin, TooluseTemporalPlugin(tools=[...]), "
                "or pass the agent that has it, TooluseTemporalPlugin(agents=[...])"
            )
        return ToolActivityError(self.name, kind, cause.message)


class TemporalBackend:
    """The run backend inside a workflow: the model and function tools as activities."""

    retries_model_calls = True
    """The model activity's `RetryPolicy` retries; the run tries each call once."""

    def __init__(self, options: ActivityOptions) -> None:
        """Set up the backend of one workflow run.

        Args:
            options: The activities' timeouts and retries.
        """
        self.options = options
        # By the tool's id, the tool held too: a tool made anew each turn is not mistaken
        # for an old one at the same address.
        self._tools: dict[int, tuple[FunctionTool, FunctionTool]] = {}
        self._durations: dict[int, float] = {}

    def model(self, model: str | Model | None) -> ActivityModel:
        if isinstance(model, Model):  # only its name travels: the worker's provider makes it
            model = getattr(model, "model", None)
        return ActivityModel(model if isinstance(model, str) else None, self)

    def model_with_retry(self, model: Model, retry: ModelRetrySettings, agent_name: str) -> Model:
        """The model activity with the agent's `ModelSettings.retry` in its `RetryPolicy`.

        Raises:
            UserError: If Temporal cannot honour a field (see `tooluse.temporal._retries`).
        """
        retries = activity_retries(self.options.retry_policy, retry, f"Agent '{agent_name}'")
        name = model.model if isinstance(model, ActivityModel) else self.model(model).model
        return ActivityModel(name, self, retries)

    def function_tool(self, tool: FunctionTool) -> FunctionTool:
        if tool_agent(tool) is not None:  # its nested run stays here, with this backend
            return tool
        known = self._tools.get(id(tool))
        if known is not None and known[0] is tool:
            return known[1]
        remote = dataclasses.replace(tool, on_invoke_tool=ActivityInvoker(tool.name, self))
        self._tools[id(tool)] = (tool, remote)
        return remote

    def duration(self, response: ModelResponse) -> float:
        return self._durations.pop(id(response), 0.0)

    def measured(self, response: ModelResponse, seconds: float) -> None:
        """Record how long the worker took for `response`, for `duration`."""
        self._durations[id(response)] = seconds

    def tool_timeout(self, timeout: float | None) -> timedelta:
        """The tool activity's `start_to_close_timeout` for a call with this limit."""
        if timeout is None:
            return self.options.start_to_close_timeout
        return timedelta(seconds=timeout) + self.options.tool_timeout_margin


class TooluseInterceptor(Interceptor):
    """Sets `TemporalBackend` as the run backend for each workflow the worker runs."""

    def __init__(self, options: ActivityOptions | None = None) -> None:
        """Set up the interceptor.

        Args:
            options: The activities' timeouts and retries; default `ActivityOptions()`.
        """
        self.options = options or ActivityOptions()

    def workflow_interceptor_class(
        self, input: WorkflowInterceptorClassInput
    ) -> type[WorkflowInboundInterceptor]:
        options = self.options

        class Inbound(WorkflowInboundInterceptor):
            async def execute_workflow(self, input: ExecuteWorkflowInput) -> object:
                # The workflow's task runs in a context of its own (a copy), which ends with
                # it: nothing to reset. (A reset fails when an evicted workflow's coroutine
                # is closed from another context.)
                run_backend.set(TemporalBackend(options))
                return await super().execute_workflow(input)

        return Inbound
