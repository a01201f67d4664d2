"""The workflow's side: a run backend whose model and function tools are activities.

Inside a workflow, `tooluse.temporal`'s interceptor sets `TemporalBackend` as
the run backend, so `Runner.run` calls the model through `ActivityModel` and
each function tool through an activity named after it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.worker import (
    ExecuteWorkflowInput,
    Interceptor,
    WorkflowInboundInterceptor,
    WorkflowInterceptorClassInput,
)

from .._context import ToolContext
from .._durable import run_backend
from .._function_tool import FunctionTool
from ..exceptions import UserError
from ..models import Model, ModelRequest, ModelResponse, StreamEvent
from ._activities import MODEL_ACTIVITY, tool_activity_name
from ._payloads import ToolCall, ToolResult, request_payload, response_from_payload

__all__ = ["ActivityModel", "ActivityOptions", "TemporalBackend", "TooluseInterceptor"]


@dataclass(frozen=True)
class ActivityOptions:
    """How the model and tool activities are scheduled (Temporal's own options)."""

    start_to_close_timeout: timedelta = timedelta(seconds=60)
    """How long one attempt may take."""
    retry_policy: RetryPolicy | None = field(
        default_factory=lambda: RetryPolicy(maximum_attempts=3)
    )
    """Temporal retries the activity by this; None for Temporal's default (unlimited)."""


class ToolFailed(Exception):  # what a tool's failure is to ctx.error
    """The tool activity reported a failed call (its text went to the model)."""


class ActivityModel(Model):
    """A model whose calls run as the model activity, on a worker."""

    def __init__(self, name: str | None, options: ActivityOptions) -> None:
        self.model = name
        self._options = options

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        call = {"model": self.model, "request": request_payload(request)}
        data = await workflow.execute_activity(
            MODEL_ACTIVITY,
            call,
            start_to_close_timeout=self._options.start_to_close_timeout,
            retry_policy=self._options.retry_policy,
            result_type=dict,
        )
        return response_from_payload(data)

    def stream_response(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        raise UserError("tooluse.temporal: streamed runs are not supported inside a workflow")


class TemporalBackend:
    """The run backend inside a workflow: the model and function tools as activities."""

    def __init__(self, options: ActivityOptions) -> None:
        self.options = options
        self._tools: dict[int, FunctionTool] = {}

    def model(self, model: str | Model | None) -> Model:
        if isinstance(model, Model):  # only its name travels: the worker's provider makes it
            model = getattr(model, "model", None)
        return ActivityModel(model if isinstance(model, str) else None, self.options)

    def function_tool(self, tool: FunctionTool) -> FunctionTool:
        remote = self._tools.get(id(tool))
        if remote is None:
            remote = dataclasses.replace(tool, on_invoke_tool=self._invoker(tool.name))
            self._tools[id(tool)] = remote
        return remote

    def _invoker(self, name: str) -> Any:
        options = self.options

        async def invoke(ctx: ToolContext[Any], arguments: str) -> str:
            result: ToolResult = await workflow.execute_activity(
                tool_activity_name(name),
                ToolCall(arguments=arguments, call_id=ctx.tool_call_id),
                start_to_close_timeout=options.start_to_close_timeout,
                retry_policy=options.retry_policy,
                result_type=dict,
            )
            if result["failed"]:
                ctx.error = ToolFailed(result["output"])
            return result["output"]

        return invoke


class TooluseInterceptor(Interceptor):
    """Sets `TemporalBackend` as the run backend for each workflow the worker runs."""

    def __init__(self, options: ActivityOptions | None = None) -> None:
        self.options = options or ActivityOptions()

    def workflow_interceptor_class(
        self, input: WorkflowInterceptorClassInput
    ) -> type[WorkflowInboundInterceptor]:
        options = self.options

        class Inbound(WorkflowInboundInterceptor):
            async def execute_workflow(self, input: ExecuteWorkflowInput) -> Any:
                token = run_backend.set(TemporalBackend(options))
                try:
                    return await super().execute_workflow(input)
                finally:
                    run_backend.reset(token)

        return Inbound
