"""`OpenAIResponsesModel`: the Responses API, whose items are the run's own format.

A response ends `completed`, `incomplete` (with `incomplete_details.reason`) or
`failed` (with `error`); streamed, the same response arrives in the terminal
event `response.completed`, `response.incomplete` or `response.failed`. Both
modes read it alike, so the two give the same `ModelResponse`.

A function call's id and name stream once, in `response.output_item.added`;
its arguments follow in `response.function_call_arguments.delta` events that
name only the item (`item_id`, `output_index`). The stream remembers each call
by both, so that every piece goes out as a `ToolCallArgumentsDelta` naming its
call; whatever of the arguments no delta carried goes out when the item is done.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncGenerator, AsyncIterable, Awaitable, Mapping
from typing import Any, Literal, TypedDict, cast

from ..core._items import Item
from ..core._settings import MCPToolChoice, ModelSettings
from ._base import (
    ModelRequest,
    ModelResponse,
    ModelTransportError,
    ResponseDone,
    StreamDelta,
    StreamEvent,
    TextDelta,
    ToolCallArgumentsDelta,
)
from ._defaults import OpenAIModel, send_as_is
from ._openai_errors import openai_failure
from ._raw_events import open_stream, responses_event
from ._reading import (
    NOT_A_RESPONSE,
    STREAM_ENDED,
    EventReader,
    error_event,
    model_name,
    read_usage,
    read_whole,
)
from ._responses_input import responses_input
from ._tool_params import (
    includes_search_results,
    only_function_tools,
    responses_tools_params,
)

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
        send_as_is(params, client.responses.create, *_sent_as_is(request))
        try:
            # Parameters are built as a dict, so the client's overloads cannot type the result.
            response = await read_whole(cast(Awaitable[Any], client.responses.create(**params)))
        except Exception as error:
            failure = openai_failure(error)
            if failure is None:
                raise
            raise failure from error
        if not isinstance(getattr(response, "output", None), list):
            raise ModelTransportError(NOT_A_RESPONSE)
        return _to_model_response(response)

    async def compact(self, request: ModelRequest) -> ModelResponse:
        """Compact the conversation with `client.responses.compact` (`POST /responses/compact`).

        Args:
            request: The turns to compact (`input`), or the response that holds them
                (`previous_response_id`, with `input` then holding only what follows it),
                and the instructions.

        Returns:
            The compacted items (the user's messages, then one `compaction` item) and usage.

        Raises:
            ModelTransportError: If the API failed, or its answer cannot be read.
        """
        client = self.client_for(request)
        params: dict[str, Any] = {"model": self.model}
        if request.previous_response_id is not None:
            params["previous_response_id"] = request.previous_response_id
        if request.input or request.previous_response_id is None:
            params["input"] = responses_input(request.input)
        if request.instructions:
            params["instructions"] = request.instructions
        try:
            compacted = await read_whole(cast(Awaitable[Any], client.responses.compact(**params)))
        except Exception as error:
            failure = openai_failure(error)
            if failure is None:
                raise
            raise failure from error
        if not isinstance(getattr(compacted, "output", None), list):
            raise ModelTransportError(NOT_A_RESPONSE)
        usage = read_usage(compacted.usage, "input_tokens", "output_tokens")
        # The user's messages come back typed as output messages, which the client's
        # types give an assistant's parts: dumped as they came, without its warnings.
        output = [
            item.model_dump(mode="json", exclude_none=True, warnings=False)
            for item in compacted.output
        ]
        return ModelResponse(output, usage, compacted.id)

    async def stream_response(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        """Call the model and yield its events, ending with `ResponseDone`.

        The connection is released at the end of the stream (the API ends it after
        the terminal event), on an error, and when the consumer closes this generator early.

        Args:
            request: The conversation, tools and settings.

        Yields:
            The provider's events, each followed by a `ToolCallArgumentsDelta` if it
            carries a piece of a function call's arguments; then the whole response
            (from the terminal event).

        Raises:
            ModelTransportError: If an event cannot be read, the API sends an error
                event, or the stream ends before a terminal event.
            UserError: If an input item has no Responses form.
        """
        params = self._params(request)
        client = self.client_for(request)
        send_as_is(params, client.responses.create, *_sent_as_is(request))
        params["stream"] = True
        reply = _StreamedResponse()
        try:
            stream, as_dicts = await open_stream(
                client.responses.create, lambda: client.responses.with_raw_response, params
            )
            events = EventReader(stream, responses_event if as_dicts else None)
            reply.status_code = events.status_code
            async with stream:  # closes the connection however reading stops, aclose() too
                async for event in events:
                    piece = reply.add(event)
                    yield StreamDelta(event)
                    if piece is not None:
                        yield piece
                    if reply.done is not None:
                        await _read_to_the_end(stream)
                        break
        except Exception as error:
            failure = openai_failure(error)
            if failure is None:
                raise
            raise failure from error
        # Yielded after the stream is closed: a consumer that stops here holds no connection.
        if reply.done is None:
            raise events.failure(STREAM_ENDED)
        yield ResponseDone(reply.done)

    def _params(self, request: ModelRequest) -> dict[str, Any]:
        params = self.shared_params(request, max_tokens_key="max_output_tokens")
        params["input"] = responses_input(request.input, request.memo)
        if request.instructions:
            params["instructions"] = request.instructions
        if request.prompt is not None:
            params["prompt"] = request.prompt
        if request.previous_response_id is not None:
            params["previous_response_id"] = request.previous_response_id
        if "tools" in params:
            params["tools"] = responses_tools_params(params["tools"])
        if "tool_choice" in params:
            params["tool_choice"] = _tool_choice(params["tool_choice"])
        if includes_search_results(request.tools):
            params["include"] = ["file_search_call.results"]
        if request.output_schema is not None:
            output_format = _json_schema_format(request.output_schema, request.output_strict)
            params["text"] = {"format": output_format}
        _responses_settings(params, request.settings)
        return {**params, **request.settings.extra_args}


def _sent_as_is(request: ModelRequest) -> tuple[str, ...]:
    """The parameters sent as they are (`send_as_is`): the input, and function tools.

    Hosted tools may hold the user's own objects (filters, configs), which the client
    dumps its own way: a tools list with any of them is left to it.
    """
    if only_function_tools(request.tools):
        return ("input", "tools")
    return ("input",)


def _responses_settings(params: dict[str, Any], settings: ModelSettings) -> None:
    """The settings only the Responses API spells its own way."""
    if settings.reasoning is not None:
        params["reasoning"] = settings.reasoning
    if settings.truncation is not None:
        params["truncation"] = settings.truncation
    if settings.verbosity is not None:
        params["text"] = {**params.get("text", {}), "verbosity": settings.verbosity}


class _FunctionChoice(TypedDict):
    """A `tool_choice` that names the function to call."""

    type: Literal["function"]
    name: str


class _MCPChoice(TypedDict):
    """A `tool_choice` that names a hosted MCP server's tool."""

    type: Literal["mcp"]
    server_label: str
    name: str


def _tool_choice(choice: str | MCPToolChoice) -> str | _FunctionChoice | _MCPChoice:
    if isinstance(choice, MCPToolChoice):
        return {"type": "mcp", "server_label": choice.server_label, "name": choice.name}
    if choice in ("auto", "required", "none"):
        return choice
    return {"type": "function", "name": choice}


class _JsonSchemaFormat(TypedDict):
    """The text format of a final answer that follows a JSON schema."""

    type: Literal["json_schema"]
    name: str
    schema: Mapping[str, object]
    strict: bool


def _json_schema_format(schema: Mapping[str, object], strict: bool) -> _JsonSchemaFormat:
    return {"type": "json_schema", "name": "final_output", "schema": schema, "strict": strict}


_Status = Literal["completed", "incomplete", "failed"]
# The terminal events, each with the status it implies should its response leave its own out.
_TERMINAL_EVENTS: dict[str, _Status] = {
    "response.completed": "completed",
    "response.incomplete": "incomplete",
    "response.failed": "failed",
}


class _StreamedResponse:
    """Follows a stream to its terminal event, keeping the output items finished on the way."""

    def __init__(self) -> None:
        self.status_code: int | None = None  # the stream's, once it has started
        self.items: dict[int, Item] = {}
        self.done: ModelResponse | None = None
        # The function calls streaming, by item id and by output index (deltas name both).
        self.calls: dict[str | int, _StreamingCall] = {}

    def add(self, event: Any) -> TextDelta | ToolCallArgumentsDelta | None:
        """Take one event; the piece of text or of a call's arguments it carries, if any.

        Once the terminal event arrives, `done` holds the whole response.
        """
        kind = getattr(event, "type", None)
        if kind == "response.output_text.delta":  # first: the commonest events
            delta = getattr(event, "delta", None)
            return TextDelta(delta) if isinstance(delta, str) and delta else None
        if kind == "response.function_call_arguments.delta":
            call = self._call(event.item_id, event.output_index)
            return call.piece(event.delta) if call is not None else None  # unknown: skipped
        if kind == "response.output_item.added":
            self._start(event.item, event.output_index)
        elif kind == "response.output_item.done":
            item = self.items[event.output_index] = _item(event.item)
            return self._finish(item, event.output_index)
        elif kind == "error":
            raise error_event(event.code, event.message, self.status_code)
        elif kind in _TERMINAL_EVENTS:
            self.done = _to_model_response(event.response, _TERMINAL_EVENTS[kind])
            # A terminal response that leaves its output out still has what streamed.
            if not self.done.output:
                self.done.output = [self.items[index] for index in sorted(self.items)]
        return None

    def _call(self, item_id: object, output_index: object) -> _StreamingCall | None:
        """The call an event names: by item id, else by output index; None if unknown."""
        call = self.calls.get(item_id) if isinstance(item_id, str) else None
        if call is None and isinstance(output_index, int):
            call = self.calls.get(output_index)
        return call

    def _start(self, item: object, output_index: object) -> None:
        """Remember a function call that starts streaming (other items are not followed)."""
        if getattr(item, "type", None) != "function_call":
            return
        call = _new_call(getattr(item, "call_id", None), getattr(item, "name", None))
        if call is None:
            return
        for key in (getattr(item, "id", None), output_index):
            if isinstance(key, (str, int)):
                self.calls[key] = call

    def _finish(self, item: Item, output_index: object) -> ToolCallArgumentsDelta | None:
        """What of a finished call's arguments no delta carried, if anything.

        Servers that send the arguments whole, with the item, stream none of them.
        """
        if item.get("type") != "function_call":
            return None
        call = self._call(item.get("id"), output_index) or _new_call(
            item.get("call_id"), item.get("name")
        )
        arguments = item.get("arguments")
        if call is None or not isinstance(arguments, str):
            return None
        return call.piece(arguments[call.sent :])


_END_SECONDS = 0.05
"""How long the stream's end may take to follow its terminal event (it follows at once).

Short: the response is held back meanwhile, and a server or proxy that keeps the stream
open (keep-alive comments) would add it to every model call."""


async def _read_to_the_end(stream: AsyncIterable[object]) -> None:
    """Read what follows the terminal event, so that the connection serves the next call.

    An HTTP/1.1 connection goes back to the client's pool only once its response has
    been read to the end: closed before, it is dropped, and the run's next call opens a
    new one (a TCP, and for HTTPS a TLS, handshake). A server ends the stream right
    after the terminal event, so this is quick; from one that does not, nothing more is
    awaited after a moment, and the connection is closed as before. Whatever comes
    after the terminal event is not read as part of the response. Read to its end, the
    client's generators under the stream finish too; left at the terminal event, they
    stayed suspended until a garbage collection, which then closed them on their loop.
    """

    async def rest() -> None:
        async for _ in stream:
            pass

    # The response is whole: an error in what follows it (a bad event, a dropped
    # connection, the time running out) only means the connection is not reused.
    with contextlib.suppress(Exception):
        if sys.version_info >= (3, 11):
            # In this task: `wait_for` (before 3.12) reads in a task of its own, which
            # costs more than the read itself (~0.3 ms).
            async with asyncio.timeout(_END_SECONDS):
                await rest()
        else:
            await asyncio.wait_for(rest(), _END_SECONDS)


class _StreamingCall:
    """A function call whose arguments are streaming: who it is, and how much has gone out."""

    __slots__ = ("call_id", "sent", "tool_name")

    def __init__(self, call_id: str, tool_name: str) -> None:
        self.call_id = call_id
        self.tool_name = tool_name
        self.sent = 0
        """Characters of the arguments yielded so far."""

    def piece(self, delta: object) -> ToolCallArgumentsDelta | None:
        """The event for the next piece of the arguments; None for an empty one."""
        if not isinstance(delta, str) or not delta:
            return None
        self.sent += len(delta)
        return ToolCallArgumentsDelta(self.call_id, self.tool_name, delta)


def _new_call(call_id: object, name: object) -> _StreamingCall | None:
    """A call to follow, if it has an id and a name (a compatible server may send None)."""
    if isinstance(call_id, str) and call_id and isinstance(name, str) and name:
        return _StreamingCall(call_id, name)
    return None


def _to_model_response(response: Any, status: _Status = "completed") -> ModelResponse:
    """The model response for an API response; `status` stands in if the API's is missing."""
    output = [_item(item) for item in response.output or ()]  # a compatible server may leave it out
    ending, reason = _ending(response, status)
    return ModelResponse(
        output,
        read_usage(response.usage, "input_tokens", "output_tokens"),
        response.id,
        ending,
        reason,
        model_name(response.model),
    )


def _item(item: Any) -> Item:
    return item.model_dump(mode="json", exclude_none=True)


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
