"""`OpenAIChatCompletionsModel`: the Chat Completions API (OpenAI, vLLM, Ollama, ...).

How a reply ends is its first choice's `finish_reason`: `length` and
`content_filter` mean it stopped short (`incomplete`), anything else that it
completed. Streamed, the last finish_reason sent counts; a stream that ends
without one was cut short. Chat Completions has no `failed` reply: failures
come as HTTP errors, or as an `error` event mid-stream.

Streamed, a tool call's `index` names it in every chunk; its `id` and name come
once, in its first chunk, and pieces of its arguments after (some servers send
them whole, in that first chunk). Each piece goes out as a
`ToolCallArgumentsDelta` naming the call; the call's arguments are the pieces
joined, so the two agree. (A piece sent before its call has a name, which no
server should do, is kept in the call but not announced: it names no tool.)
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Sequence
from typing import Any, Literal, TypedDict, cast

from ..core._settings import ModelSettings
from ._base import (
    ModelRequest,
    ModelResponse,
    ModelTransportError,
    ResponseDone,
    StreamDelta,
    StreamEvent,
    TextDelta,
    ToolCallArgumentsDelta,
    responses_only,
)
from ._chat_conversion import (
    ChatAssistantMessage,
    ChatFunctionToolCall,
    items_to_messages,
    message_to_items,
)
from ._defaults import OpenAIModel, send_as_is
from ._input import is_object
from ._openai_errors import openai_failure
from ._raw_events import chat_chunk, open_stream
from ._reading import (
    NOT_A_RESPONSE,
    STREAM_ENDED,
    EventReader,
    model_name,
    read_usage,
    read_whole,
)
from ._tool_params import chat_completions_tools_params

__all__ = ["OpenAIChatCompletionsModel"]


class OpenAIChatCompletionsModel(OpenAIModel):
    """A model called through `client.chat.completions.create`."""

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        """Call the model and return its whole response.

        Args:
            request: The conversation, tools and settings.

        Returns:
            The model's response, whether it completed or stopped short.

        Raises:
            ModelTransportError: If the API's answer cannot be read as a reply.
            UserError: If an input item has no Chat Completions form.
        """
        params = self._params(request)
        client = self.client_for(request)
        _send_as_is(params, client.chat.completions.create)
        try:
            # Parameters are built as a dict, so the client's overloads cannot type the result.
            completion = await read_whole(
                cast(Awaitable[Any], client.chat.completions.create(**params))
            )
        except Exception as error:
            failure = openai_failure(error)
            if failure is None:
                raise
            raise failure from error
        choices: list[Any] | None = getattr(completion, "choices", None)
        if not choices:
            raise ModelTransportError(NOT_A_RESPONSE)
        message = choices[0].message.model_dump(exclude_none=True)
        status, reason = _ending(choices[0].finish_reason)
        usage = read_usage(completion.usage, "prompt_tokens", "completion_tokens")
        return ModelResponse(
            message_to_items(message),
            usage,
            completion.id,
            status,
            reason,
            model_name(completion.model),
        )

    async def stream_response(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        """Call the model and yield its chunks, ending with `ResponseDone`.

        The connection is released at the end of the stream, on an error, and
        when the consumer closes this generator early.

        Args:
            request: The conversation, tools and settings.

        Yields:
            The provider's chunks, each followed by a `ToolCallArgumentsDelta` for each
            piece of a tool call's arguments it carries; then the whole response.

        Raises:
            ModelTransportError: If a chunk cannot be read, the API sends an error
                event, or the stream ends without a finish_reason.
            UserError: If an input item has no Chat Completions form.
        """
        params = self._params(request)
        client = self.client_for(request)
        _send_as_is(params, client.chat.completions.create)
        reply = _StreamedReply()
        try:
            stream, as_dicts = await open_stream(
                client.chat.completions.create,
                lambda: client.chat.completions.with_raw_response,
                {**params, "stream": True, "stream_options": {"include_usage": True}},
            )
            chunks = EventReader(stream, chat_chunk if as_dicts else None)
            async with stream:  # closes the connection however reading stops, aclose() too
                async for chunk in chunks:
                    yield StreamDelta(chunk)
                    for piece in reply.add(chunk):
                        yield piece
        except Exception as error:
            failure = openai_failure(error)
            if failure is None:
                raise
            raise failure from error
        if reply.finish_reason is None:
            raise chunks.failure(STREAM_ENDED)
        yield ResponseDone(reply.response())

    def _params(self, request: ModelRequest) -> dict[str, Any]:
        responses_only(request, type(self).__name__)
        params = self.shared_params(request, max_tokens_key="max_completion_tokens")
        params["messages"] = items_to_messages(request.instructions, request.input, request.memo)
        if "tools" in params:
            params["tools"] = chat_completions_tools_params(params["tools"])
        if "tool_choice" in params:
            params["tool_choice"] = _tool_choice(params["tool_choice"])
        if request.output_schema is not None:
            params["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": "final_output",
                    "schema": request.output_schema,
                    "strict": request.output_strict,
                },
            }
        _chat_settings(params, request.settings)
        return {**params, **request.settings.extra_args}


def _send_as_is(params: dict[str, Any], create: object) -> None:
    """The messages and tools go as they are (`send_as_is`)."""
    if send_as_is(params, create, "messages", "tools"):
        # The client's signature requires `messages`: the list in `extra_body` replaces
        # this empty one in the JSON it sends.
        params["messages"] = []


def _chat_settings(params: dict[str, Any], settings: ModelSettings) -> None:
    """The settings only Chat Completions has, or spells its own way."""
    reasoning: object = settings.reasoning  # `Reasoning`, or its dict
    effort: object = (
        reasoning.get("effort") if is_object(reasoning) else getattr(reasoning, "effort", None)
    )
    given = {
        "frequency_penalty": settings.frequency_penalty,
        "presence_penalty": settings.presence_penalty,
        "verbosity": settings.verbosity,
        "reasoning_effort": effort,
        "logprobs": True if settings.top_logprobs is not None else None,
    }
    params.update({key: value for key, value in given.items() if value is not None})


class _Named(TypedDict):
    """The function a `tool_choice` names."""

    name: str


class _FunctionChoice(TypedDict):
    """A `tool_choice` that names the function to call."""

    type: Literal["function"]
    function: _Named


def _tool_choice(choice: str) -> str | _FunctionChoice:
    if choice in ("auto", "required", "none"):
        return choice
    return {"type": "function", "function": {"name": choice}}


def _ending(
    finish_reason: str | None,
) -> tuple[Literal["completed", "incomplete"], str | None]:
    """How a reply ended, and why if it stopped short."""
    if finish_reason in ("length", "content_filter"):
        return "incomplete", finish_reason
    return "completed", None  # stop, tool_calls, or a server's own word for done


_NO_PIECES: tuple[TextDelta | ToolCallArgumentsDelta, ...] = ()


class _StreamedReply:
    """Assembles a streamed reply's text and tool calls from its deltas."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.calls: dict[int, _StreamedCall] = {}
        """The tool calls, by the `index` their chunks give."""
        self.usage: object = None
        self.id: str | None = None
        self.model: str | None = None
        self.finish_reason: str | None = None

    def add(self, chunk: Any) -> Sequence[TextDelta | ToolCallArgumentsDelta]:
        """Take one chunk; the pieces of text and of tool calls' arguments it carries."""
        self.id = self.id or chunk.id
        if self.model is None:
            self.model = model_name(chunk.model)
        if chunk.usage is not None:
            self.usage = chunk.usage
        pieces = _NO_PIECES  # most chunks carry none: no list made for them
        for choice in chunk.choices or ():  # a server may leave them out of a usage chunk
            if choice.index == 0 and choice.finish_reason is not None:
                self.finish_reason = choice.finish_reason
            delta = choice.delta
            if delta is None:
                continue
            if delta.content:
                self.text.append(delta.content)
                if choice.index == 0:  # the answer is the first choice's
                    text = TextDelta(delta.content)
                    pieces = [*pieces, text] if pieces else (text,)
            if delta.tool_calls:
                found = self._add_calls(delta.tool_calls)
                pieces = [*pieces, *found] if pieces else found
        return pieces

    def _add_calls(self, calls: list[Any]) -> list[ToolCallArgumentsDelta]:
        pieces: list[ToolCallArgumentsDelta] = []
        for call in calls:
            entry = self.calls.get(call.index)
            if entry is None:
                entry = self.calls[call.index] = _StreamedCall()
            piece = entry.add(call)
            if piece is not None:
                pieces.append(piece)
        return pieces

    def response(self) -> ModelResponse:
        message: ChatAssistantMessage = {
            "role": "assistant",
            "content": "".join(self.text),
            "tool_calls": [self.calls[i].as_dict() for i in sorted(self.calls)],
        }
        status, reason = _ending(self.finish_reason)
        usage = read_usage(self.usage, "prompt_tokens", "completion_tokens")
        return ModelResponse(message_to_items(message), usage, self.id, status, reason, self.model)


class _StreamedCall:
    """One tool call of a streamed reply, as its chunks arrive."""

    __slots__ = ("arguments", "id", "name")

    def __init__(self) -> None:
        self.id = ""
        self.name = ""
        self.arguments: list[str] = []

    def add(self, call: Any) -> ToolCallArgumentsDelta | None:
        """Take one chunk's delta of this call; its piece of the arguments, if any.

        A piece that comes before the call's name (a server that never named it)
        is kept for the call but not announced: there is no tool to name.
        """
        self.id = call.id or self.id
        function = call.function
        if function is None:
            return None
        self.name += function.name or ""
        piece = function.arguments
        if not isinstance(piece, str) or not piece:
            return None
        self.arguments.append(piece)
        return ToolCallArgumentsDelta(self.id, self.name, piece) if self.name else None

    def as_dict(self) -> ChatFunctionToolCall:
        """The call as a Chat message's tool call."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": "".join(self.arguments)},
        }
