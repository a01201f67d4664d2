"""What crosses between a workflow and its activities: plain JSON-able dicts.

A `ModelRequest` holds live `FunctionTool`s (with their callables); only what the
model sees of them travels (`ToolSpec`), and the activity rebuilds a tool that
cannot be invoked. Responses, settings and usage go through pydantic's
`TypeAdapter`, so the dataclasses keep their shape both ways.
"""

from __future__ import annotations

import functools
from typing import Any, TypedDict

from pydantic import TypeAdapter

from .._function_tool import FunctionTool
from .._settings import ModelSettings
from ..exceptions import UserError
from ..models import ModelRequest, ModelResponse

__all__ = [
    "ModelCall",
    "ToolCall",
    "ToolResult",
    "request_from_payload",
    "request_payload",
    "response_from_payload",
    "response_payload",
]


class ToolSpec(TypedDict):
    """What the model sees of a function tool."""

    name: str
    description: str | None
    params_json_schema: dict[str, Any]
    strict_json_schema: bool
    namespace: str | None
    namespace_description: str | None


class ModelCall(TypedDict):
    """The model activity's input."""

    model: str | None
    """The model's name, for the worker's model provider; None for its default."""
    request: dict[str, Any]
    """The `ModelRequest`, tools as `ToolSpec`s."""


class ToolCall(TypedDict):
    """A function tool activity's input."""

    arguments: str
    call_id: str


class ToolResult(TypedDict):
    """A function tool activity's output."""

    output: str
    failed: bool


def request_payload(request: ModelRequest) -> dict[str, Any]:
    """The request as JSON-able data.

    Raises:
        UserError: If it offers a hosted tool (not carried to the activity yet).
    """
    specs: list[ToolSpec] = []
    for tool in request.tools:
        if not isinstance(tool, FunctionTool):
            raise UserError(
                f"tooluse.temporal: hosted tool {type(tool).__name__} is not supported in a "
                "workflow yet"
            )
        specs.append(
            ToolSpec(
                name=tool.name,
                description=tool.description,
                params_json_schema=tool.params_json_schema,
                strict_json_schema=tool.strict_json_schema,
                namespace=tool.namespace,
                namespace_description=tool.namespace_description,
            )
        )
    return {
        "instructions": request.instructions,
        "input": request.input,
        "tools": specs,
        "settings": _settings().dump_python(request.settings, mode="json"),
        "output_schema": request.output_schema,
        "max_retries": request.max_retries,
    }


def request_from_payload(data: dict[str, Any]) -> ModelRequest:
    """The request back, its tools rebuilt to be offered (never invoked)."""
    tools = [FunctionTool(on_invoke_tool=_not_here, **spec) for spec in data["tools"]]
    return ModelRequest(
        instructions=data["instructions"],
        input=data["input"],
        tools=tools,
        settings=_settings().validate_python(data["settings"]),
        output_schema=data["output_schema"],
        max_retries=data["max_retries"],
    )


def response_payload(response: ModelResponse) -> dict[str, Any]:
    """The response as JSON-able data."""
    return _response().dump_python(response, mode="json")


def response_from_payload(data: dict[str, Any]) -> ModelResponse:
    """The response back."""
    return _response().validate_python(data)


async def _not_here(ctx: Any, arguments: str) -> str:
    raise UserError("tooluse.temporal: a tool offered to the model activity is never invoked there")


@functools.cache
def _settings() -> TypeAdapter[ModelSettings]:
    return TypeAdapter(ModelSettings)


@functools.cache
def _response() -> TypeAdapter[ModelResponse]:
    return TypeAdapter(ModelResponse)
