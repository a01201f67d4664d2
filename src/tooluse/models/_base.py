"""The model interface: one call that returns a response, one that streams it.

How a call ends: a `ModelResponse` whose `status` says whether the model
finished (`completed`), stopped short (`incomplete`: a token limit, a content
filter) or failed on the provider's side (`failed`); or `ModelTransportError`,
raised when the API sent something that cannot be read as a response at all.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .._context import Usage
from .._function_tool import FunctionTool
from .._hosted_tools import HostedTool
from .._items import Item
from .._settings import ModelSettings

__all__ = [
    "Model",
    "ModelRequest",
    "ModelResponse",
    "ModelTransportError",
    "ResponseDone",
    "StreamDelta",
    "StreamEvent",
    "ToolCallArgumentsDelta",
]

Tool = FunctionTool | HostedTool


@dataclass
class ModelRequest:
    """Everything a model call needs, whatever the API."""

    instructions: str | None
    """The system prompt."""
    input: list[Item]
    """The conversation so far, as items."""
    tools: Sequence[Tool] = ()
    """The tools offered."""
    settings: ModelSettings = field(default_factory=ModelSettings)
    """Sampling and tool-use settings."""
    output_schema: dict[str, Any] | None = None
    """A strict JSON schema the final answer must follow, or None for text."""
    max_retries: int | None = None
    """Retries the model's client makes by itself for this call; None keeps the client's own.
    A run sends 0: it retries by its `RetryPolicy`, so that hooks and spans see each attempt."""
    memo: dict[Any, Any] | None = field(default=None, repr=False, compare=False)
    """Where a model may keep what it derived from the run's earlier requests, for its next
    one (the OpenAI models keep the conversation converted so far, and convert only the new
    items): one dict per run, None outside a run."""


@dataclass
class ModelResponse:
    """What one model call produced."""

    output: list[Item]
    """The output items: messages, tool calls, hosted tool calls."""
    usage: Usage = field(default_factory=Usage)
    """Tokens used by this call."""
    response_id: str | None = None
    """The provider's id for the response, if any."""
    status: Literal["completed", "incomplete", "failed"] = "completed"
    """Whether the model finished; the output holds what it produced either way."""
    reason: str | None = None
    """Why it did not complete: the API's reason when incomplete (`"max_output_tokens"`,
    `"length"`, `"content_filter"`), `"code: message"` when failed; None when completed."""
    model: str | None = None
    """The model that answered, as the API named it (e.g. a dated snapshot), if it said."""


@dataclass
class StreamDelta:
    """A raw event from the provider while a response streams."""

    data: Any
    """The provider's event object, as the `openai` package parsed it."""


@dataclass
class ToolCallArgumentsDelta:
    """A piece of a function call's arguments, as the model streams them.

    A model yields these beside its `StreamDelta`s so that a streamed run can show
    a call taking shape, whatever the API; the pieces of one call, joined, are its
    arguments.
    """

    call_id: str
    """The id of the call the piece belongs to."""
    tool_name: str
    """The tool called."""
    delta: str
    """The piece of the arguments' JSON text."""


@dataclass
class ResponseDone:
    """The last event of a stream: the whole response."""

    response: ModelResponse
    """The response, as `get_response` would have returned it."""


StreamEvent = StreamDelta | ToolCallArgumentsDelta | ResponseDone


class ModelTransportError(Exception):
    """The model's API sent something that cannot be read as a response.

    A body or a streamed event that is not JSON, an error event in the middle of
    a stream, or a stream that stops before its response is complete. The error
    the `openai` client raised, if any, is the `__cause__`.
    """

    def __init__(self, description: str, status_code: int | None = None) -> None:
        self.description = description
        """What happened, in one sentence; never any of the request's content."""
        self.status_code = status_code
        """The HTTP status the API answered with, if it answered."""
        status = f" (HTTP {status_code})" if status_code is not None else ""
        super().__init__(f"{description}{status}")


class Model(ABC):
    """A model the runner can call: implement both methods."""

    @abstractmethod
    async def get_response(self, request: ModelRequest) -> ModelResponse:
        """Call the model and return its whole response.

        Args:
            request: The conversation, tools and settings.

        Returns:
            The model's response.
        """

    @abstractmethod
    def stream_response(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Call the model and yield its events as they arrive, ending with `ResponseDone`.

        Write it as an async generator that releases what it opened (a connection)
        however it stops: at the end, on an error, or when the consumer calls
        `aclose()` early.

        Args:
            request: The conversation, tools and settings.

        Returns:
            The events.
        """
