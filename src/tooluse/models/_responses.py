"""`OpenAIResponsesModel`: the Responses API, whose items are the run's own format.

A response ends `completed`, `incomplete` (with `incomplete_details.reason`) or
`failed` (with `error`); streamed, the same response arrives in the terminal
event `response.completed`, `response.incomplete` or `response.failed`. Both
modes read it alike, so the two give the same `ModelResponse`.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable
from typing import Any, Literal, cast

from .._context import Usage
from .._hosted_tools import FileSearchTool
from .._items import Item
from .._settings import ModelSettings
from .._tool_params import responses_tools_params
from ._base import (
    ModelRequest,
    ModelResponse,
    ModelTransportError,
    ResponseDone,
    StreamDelta,
    StreamEvent,
)
from ._defaults import OpenAIModel
from ._reading import NOT_A_RESPONSE, STREAM_ENDED, EventReader, error_event, read_whole
from ._responses_input import responses_input

__all__ = ["OpenAIResponsesModel"]


class OpenAIResponsesModel(OpenAIModel):
    """A model called through `client.responses.create`."""

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        """Call the model and return its whole response.

        Args:
            request: The conversation, tools and settings.

        Returns:
            The model's response, whether it completed, stopped short or failed.

        Raises:
            ModelTransportError: If the API's answer cannot be read as a response.
            UserError: If an input item has no Responses form.
        """
        params = self._params(request)
        client = self.client_for(request)
        # Parameters are built as a dict, so the client's overloads cannot type the result.
        call = cast(Awaitable[Any], client.responses.create(**params))
        response = await read_whole(call)
        if not isinstance(getattr(response, "output", None), list):
            raise ModelTransportError(NOT_A_RESPONSE)
        return _to_model_response(response)

    async def stream_response(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        """Call the model and yield its events, ending with `ResponseDone`.

        The connection is released at the terminal event, on an error, and when
        the consumer closes this generator early.

        Args:
            request: The conversation, tools and settings.

        Yields:
            The provider's events, then the whole response (from the terminal event).

        Raises:
            ModelTransportError: If an event cannot be read, the API sends an error
                event, or the stream ends before a terminal event.
            UserError: If an input item has no Responses form.
        """
        params = self._params(request)
        client = self.client_for(request)
        stream = cast(Any, await client.responses.create(**params, stream=True))
        events = EventReader(stream)
        reply = _StreamedResponse(events.status_code)
        async with stream:  # closes the connection however reading stops, aclose() included
            async for event in events:
                done = reply.add(event)
                yield StreamDelta(event)
                if done is not None:
                    break
        # Yielded after the stream is closed: a consumer that stops here holds no connection.
        if reply.done is None:
            raise events.failure(STREAM_ENDED)
        yield ResponseDone(reply.done)

    def _params(self, request: ModelRequest) -> dict[str, Any]:
        params = self.shared_params(request, max_tokens_key="max_output_tokens")
        params["input"] = responses_input(request.input)
        if request.instructions:
            params["instructions"] = request.instructions
        if "tools" in params:
            params["tools"] = responses_tools_params(params["tools"])
        if "tool_choice" in params:
            params["tool_choice"] = _tool_choice(params["tool_choice"])
        if any(isinstance(t, FileSearchTool) and t.include_search_results for t in request.tools):
            params["include"] = ["file_search_call.results"]
        if request.output_schema is not None:
            params["text"] = {"format": _json_schema_format(request.output_schema)}
        _responses_settings(params, request.settings)
        return {**params, **request.settings.extra_args}


def _responses_settings(params: dict[str, Any], settings: ModelSettings) -> None:
    """The settings only the Responses API spells its own way."""
    if settings.reasoning is not None:
        params["reasoning"] = settings.reasoning
    if settings.truncation is not None:
        params["truncation"] = settings.truncation
    if settings.verbosity is not None:
        params["text"] = {**params.get("text", {}), "verbosity": settings.verbosity}


def _tool_choice(choice: str) -> Any:
    if choice in ("auto", "required", "none"):
        return choice
    return {"type": "function", "name": choice}


def _json_schema_format(schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "json_schema", "name": "final_output", "schema": schema, "strict": True}


_Status = Literal["completed", "incomplete", "failed"]
# The terminal events, each with the status it implies should its response leave its own out.
_TERMINAL_EVENTS: dict[str, _Status] = {
    "response.completed": "completed",
    "response.incomplete": "incomplete",
    "response.failed": "failed",
}


class _StreamedResponse:
    """Follows a stream to its terminal event, keeping the output items finished on the way."""

    def __init__(self, status_code: int | None) -> None:
        self.status_code = status_code
        self.items: dict[int, Item] = {}
        self.done: ModelResponse | None = None

    def add(self, event: Any) -> ModelResponse | None:
        """Take one event; the whole response once the terminal event arrives."""
        kind = getattr(event, "type", None)
        if kind == "error":
            raise error_event(event.code, event.message, self.status_code)
        if kind == "response.output_item.done":
            self.items[event.output_index] = _item(event.item)
        elif kind in _TERMINAL_EVENTS:
            self.done = _to_model_response(event.response, _TERMINAL_EVENTS[kind])
            # A terminal response that leaves its output out still has what streamed.
            if not self.done.output:
                self.done.output = [self.items[index] for index in sorted(self.items)]
        return self.done


def _to_model_response(response: Any, status: _Status = "completed") -> ModelResponse:
    """The model response for an API response; `status` stands in if the API's is missing."""
    items: list[Any] = response.output or []  # a compatible server may leave it out
    output = [_item(item) for item in items]
    usage = Usage(requests=1)
    if response.usage is not None:
        usage.input_tokens = response.usage.input_tokens
        usage.output_tokens = response.usage.output_tokens
        usage.total_tokens = response.usage.total_tokens
    ending, reason = _ending(response, status)
    return ModelResponse(output, usage, response.id, ending, reason)


def _item(item: Any) -> Item:
    return cast(Item, item.model_dump(mode="json", exclude_none=True))


def _ending(response: Any, status: _Status) -> tuple[_Status, str | None]:
    """How a response ended, and why if it did not complete."""
    status = response.status or status  # compatible servers may leave the status out
    if status == "completed":
        return "completed", None
    if status == "incomplete":
        details = response.incomplete_details
        return "incomplete", details.reason if details is not None else None
    error = response.error
    if status == "failed":
        return "failed", f"{error.code}: {error.message}" if error is not None else None
    return "failed", status  # cancelled, or still queued / in progress (background mode)
