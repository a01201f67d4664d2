"""What crosses between a workflow and its activities: plain JSON-able dicts.

A `ModelRequest` holds live `FunctionTool`s (with their callables); only what the
model sees of them travels (`ToolSpec`), and the activity rebuilds a tool that
cannot be invoked. A hosted tool travels as its API param (`HostedSpec`) and is
rebuilt as a `HostedToolParam`, which the Responses model sends as it is.
Responses, settings and usage go through pydantic's `TypeAdapter`, so the
dataclasses keep their shape both ways.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, TypedDict

from pydantic import TypeAdapter

from ..core._items import InputPart, Item
from ..core._settings import ModelSettings
from ..exceptions import UserError
from ..models import ModelRequest, ModelResponse
from ..tools._function_tool import FunctionTool
from ..tools._hosted import FileSearchTool, HostedTool
from ..tools._toolsets import Tool

__all__ = [
    "HostedSpec",
    "HostedToolParam",
    "ModelCall",
    "ModelReply",
    "RequestPayload",
    "ToolCall",
    "ToolResult",
    "ToolSpec",
    "reply_payload",
    "request_from_payload",
    "request_payload",
    "response_from_payload",
]


class ToolSpec(TypedDict):
    """What the model sees of a function tool."""

    name: str
    description: str | None
    params_json_schema: dict[str, Any]
    strict_json_schema: bool
    namespace: str | None
    namespace_description: str | None


class HostedSpec(TypedDict):
    """A hosted tool, as the API param the model's client sends."""

    hosted: dict[str, Any]
    """`to_tool_param()`'s value."""
    name: str
    """The tool's name in the run's items."""
    kind: str
    """The tool's class name, for messages."""


class RequestPayload(TypedDict):
    """A `ModelRequest` as JSON-able data: function tools as specs, hosted tools as API params.

    Temporal's converter reads these types when the activity's input arrives: each
    field's type is one it can convert JSON to (`Any` where the JSON is taken as it is).
    """

    instructions: str | None
    input: list[Item]
    tools: list[ToolSpec | HostedSpec]
    settings: dict[str, Any]
    """The `ModelSettings`, dumped by pydantic."""
    output_schema: dict[str, Any] | None
    # Not `NotRequired[bool]`: Temporal's converter cannot read that on Python 3.10.
    output_strict: bool
    """Whether `output_schema` is strict (absent in payloads of earlier releases: True)."""
    max_retries: int | None
    prompt: dict[str, Any] | None
    """The prompt template (absent in payloads of earlier releases: None)."""
    previous_response_id: str | None
    """The response the request continues (absent in earlier releases' payloads: None)."""


class _ModelCallKeys(TypedDict):
    model: str | None
    """The model's name, for the worker's model provider; None for its default."""
    request: RequestPayload
    """The `ModelRequest`."""


class ModelCall(_ModelCallKeys, total=False):
    """The model activity's input."""

    # Optional (`total=False`, not `NotRequired`, which Temporal's converter cannot read
    # on Python 3.10): payloads of earlier releases have no such key.
    retry_rule: dict[str, Any] | None
    """The agent's `ModelSettings.retry` policy, a `retry_policies` rule as `rule_spec`
    names it: the worker decides by it at each failed attempt. Absent or None: tooluse's
    statuses decide."""
    retry_jitter: float | None
    """The fraction by which the worker shortens each backoff wait at random (the agent's
    `jitter=True`). Absent or None: Temporal's waits as they are."""


class ModelReply(TypedDict):
    """The model activity's output."""

    response: dict[str, Any]
    """The `ModelResponse`."""
    duration: float
    """Seconds the call took, measured on the worker."""


class ToolCall(TypedDict):
    """A function tool activity's input."""

    arguments: str
    call_id: str
    timeout: float | None
    """The run's limit for the call, in seconds (the tool's `timeout_seconds` first)."""


class ToolResult(TypedDict):
    """A function tool activity's output: a `ToolOutcome`'s JSON-able part."""

    output: str
    """The text the model receives (the parts' text form when there are parts)."""
    failed: bool
    parts: list[InputPart] | None
    """Responses input parts of a rich output (images, files), or None."""
    error_type: str | None
    """The class name of the error a failed call met, or None."""
    context_variables: dict[str, Any] | None
    """Values a Swarm-style return merges into the run context, or None."""


def request_payload(request: ModelRequest) -> RequestPayload:
    """The request as JSON-able data: function tools as specs, hosted tools as API params."""
    return RequestPayload(
        instructions=request.instructions,
        input=request.input,
        tools=[_tool_spec(tool) for tool in request.tools],
        settings=_settings().dump_python(request.settings, mode="json"),
        output_schema=request.output_schema,
        output_strict=request.output_strict,
        max_retries=request.max_retries,
        prompt=request.prompt,
        previous_response_id=request.previous_response_id,
    )


def _tool_spec(tool: Tool) -> ToolSpec | HostedSpec:
    if not isinstance(tool, FunctionTool):
        return HostedSpec(hosted=dict(tool.to_tool_param()), name=tool.name, kind=_kind(tool))
    return ToolSpec(
        name=tool.name,
        description=tool.description,
        params_json_schema=tool.params_json_schema,
        strict_json_schema=tool.strict_json_schema,
        namespace=tool.namespace,
        namespace_description=tool.namespace_description,
    )


def _kind(tool: HostedTool) -> str:
    """A file search that includes its results says so: the model asks for them too."""
    if isinstance(tool, FileSearchTool) and tool.include_search_results:
        return _FILE_SEARCH_WITH_RESULTS
    return type(tool).__name__


_FILE_SEARCH_WITH_RESULTS = "FileSearchTool+results"


@dataclass(frozen=True)
class HostedToolParam:
    """A hosted tool rebuilt on the worker: what its API param says, nothing more.

    The Responses model sends `to_tool_param()` as it is. Tools the run answers
    itself (computer, local shell) stay in the workflow, which answers their calls.
    """

    param: dict[str, object]
    """The API param."""
    name: str
    """The tool's name."""
    kind: str
    """The original tool's class name."""

    def to_tool_param(self) -> dict[str, object]:
        """The Responses API tool param, as the workflow's tool gave it."""
        return self.param


def request_from_payload(data: RequestPayload) -> ModelRequest:
    """The request back, its tools rebuilt to be offered (never invoked)."""
    # A HostedToolParam is none of the hosted tool classes: the model reads only its param.
    tools: list[Any] = [_tool_from_spec(spec) for spec in data["tools"]]
    settings = _settings().validate_python(data["settings"])
    if any(getattr(tool, "kind", None) == _FILE_SEARCH_WITH_RESULTS for tool in tools):
        include = ["file_search_call.results"]
        settings = replace(settings, extra_args={"include": include, **settings.extra_args})
    return ModelRequest(
        instructions=data["instructions"],
        input=data["input"],
        tools=tools,
        settings=settings,
        output_schema=data["output_schema"],
        output_strict=data.get("output_strict", True),
        max_retries=data["max_retries"],
        prompt=data.get("prompt"),
        previous_response_id=data.get("previous_response_id"),
    )


def _tool_from_spec(spec: ToolSpec | HostedSpec) -> FunctionTool | HostedToolParam:
    if "hosted" in spec:
        return HostedToolParam(spec["hosted"], spec["name"], spec["kind"])
    return FunctionTool(on_invoke_tool=_not_here, **spec)


def reply_payload(response: ModelResponse, duration: float) -> ModelReply:
    """The model activity's output."""
    return ModelReply(response=_response().dump_python(response, mode="json"), duration=duration)


def response_from_payload(data: Mapping[str, object]) -> ModelResponse:
    """The response back."""
    return _response().validate_python(data)


async def _not_here(ctx: object, arguments: str) -> str:
    raise UserError("tooluse.temporal: a tool offered to the model activity is never invoked there")


@functools.cache
def _settings() -> TypeAdapter[ModelSettings]:
    return TypeAdapter(ModelSettings)


@functools.cache
def _response() -> TypeAdapter[ModelResponse]:
    return TypeAdapter(ModelResponse)
