"""The model interface: one call that returns a response, one that streams it."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._context import Usage
from .._function_tool import FunctionTool
from .._hosted_tools import HostedTool
from .._items import Item
from .._settings import ModelSettings

__all__ = ["Model", "ModelRequest", "ModelResponse", "ResponseDone", "StreamDelta", "StreamEvent"]

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
    """Retries for the call, for clients that retry; None keeps the client's own."""


@dataclass
class ModelResponse:
    """What one model call produced."""

    output: list[Item]
    """The output items: messages, tool calls, hosted tool calls."""
    usage: Usage = field(default_factory=Usage)
    """Tokens used by this call."""
    response_id: str | None = None
    """The provider's id for the response, if any."""


@dataclass
class StreamDelta:
    """A raw event from the provider while a response streams."""

    data: Any
    """The provider's event object, as the `openai` package parsed it."""


@dataclass
class ResponseDone:
    """The last event of a stream: the whole response."""

    response: ModelResponse
    """The response, as `get_response` would have returned it."""


StreamEvent = StreamDelta | ResponseDone


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

        Args:
            request: The conversation, tools and settings.

        Returns:
            The events.
        """
