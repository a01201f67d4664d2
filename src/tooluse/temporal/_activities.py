"""The worker's side: the model activity, and one activity per function tool."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from temporalio import activity

from .._context import ToolContext
from .._function_tool import FunctionTool
from .._invocation import InvokeSettings
from .._threads import CallTimedOut
from .._tool_execution import _invoke_within  # pyright: ignore[reportPrivateUsage]
from ..models import Model, resolve_model
from ._payloads import (
    ModelCall,
    ToolCall,
    ToolResult,
    request_from_payload,
    response_payload,
)

__all__ = [
    "MODEL_ACTIVITY",
    "ModelProvider",
    "model_activity",
    "tool_activity",
    "tool_activity_name",
]

MODEL_ACTIVITY = "tooluse.invoke_model"
"""The model activity's name."""

ModelProvider = Callable[[str | None], Model]
"""Gives the worker's `Model` for the name a workflow's agent asks for."""


def tool_activity_name(tool_name: str) -> str:
    """The activity a function tool runs as: `tooluse.tool.<name>`."""
    return f"tooluse.tool.{tool_name}"


def model_activity(provider: ModelProvider = resolve_model) -> Callable[..., Any]:
    """The model activity: calls the provider's model with the workflow's request."""

    @activity.defn(name=MODEL_ACTIVITY)
    async def invoke_model(call: ModelCall) -> dict[str, Any]:
        model = provider(call["model"])
        response = await model.get_response(request_from_payload(call["request"]))
        return response_payload(response)

    return invoke_model


def tool_activity(tool: FunctionTool) -> Callable[..., Any]:
    """The activity that invokes `tool` (sync tools in a thread, as in any run)."""

    @activity.defn(name=tool_activity_name(tool.name))
    async def invoke_tool(call: ToolCall) -> ToolResult:
        ctx: ToolContext[Any] = ToolContext(
            context=None,
            tool_name=tool.name,
            tool_call_id=call["call_id"],
            tool_arguments=call["arguments"],
        )
        settings = InvokeSettings(timeout=tool.timeout_seconds)
        try:
            outcome = await _invoke_within(tool, ctx, call["arguments"], settings)
        except CallTimedOut:
            return ToolResult(output=f"Tool '{tool.name}' timed out", failed=True)
        return ToolResult(output=outcome.output, failed=outcome.failed)

    return invoke_tool
