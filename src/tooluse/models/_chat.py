"""`OpenAIChatCompletionsModel`: the Chat Completions API (OpenAI, vLLM, Ollama, ...).

How a reply ends is its first choice's `finish_reason`: `length` and
`content_filter` mean it stopped short (`incomplete`), anything else that it
completed. Streamed, the last finish_reason sent counts; a stream that ends
without one was cut short. Chat Completions has no `failed` reply: failures
come as HTTP errors, or as an `error` event mid-stream.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable
from typing import Any, Literal, cast

from .._context import Usage
from .._function_tool import FunctionTool
from .._settings import ModelSettings
from .._tool_params import chat_completions_tool_param
from ..exceptions import UserError
from ._base import (
    ModelRequest,
    ModelResponse,
    ModelTransportError,
    ResponseDone,
    StreamDelta,
    StreamEvent,
)
from ._chat_conversion import items_to_messages, message_to_items
from ._defaults import OpenAIModel
from ._reading import NOT_A_RESPONSE, STREAM_ENDED, EventReader, read_whole

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
        # Parameters are built as a dict, so the client's overloads cannot type the result.
        completion = await read_whole(
            cast(Awaitable[Any], client.chat.completions.create(**params))
        )
        choices: list[Any] | None = getattr(completion, "choices", None)
        if not choices:
            raise ModelTransportError(NOT_A_RESPONSE)
        message = choices[0].message.model_dump(exclude_none=True)
        status, reason = _ending(choices[0].finish_reason)
        usage = _usage(completion.usage)
        return ModelResponse(message_to_items(message), usage, completion.id, status, reason)

    async def stream_response(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        """Call the model and yield its chunks, ending with `ResponseDone`.

        The connection is released at the end of the stream, on an error, and
        when the consumer closes this generator early.

        Args:
            request: The conversation, tools and settings.

        Yields:
            The provider's chunks, then the whole response.

        Raises:
            ModelTransportError: If a chunk cannot be read, the API sends an error
                event, or the stream ends without a finish_reason.
            UserError: If an input item has no Chat Completions form.
        """
        params = self._params(request)
        client = self.client_for(request)
        stream = cast(
            Any,
            await client.chat.completions.create(
                **params, stream=True, stream_options={"include_usage": True}
            ),
        )
        chunks = EventReader(stream)
        reply = _StreamedReply()
        async with stream:  # closes the connection however reading stops, aclose() included
            async for chunk in chunks:
                yield StreamDelta(chunk)
                reply.add(chunk)
        if reply.finish_reason is None:
            raise chunks.failure(STREAM_ENDED)
        yield ResponseDone(reply.response())

    def _params(self, request: ModelRequest) -> dict[str, Any]:
        params = self.shared_params(request, max_tokens_key="max_completion_tokens")
        params["messages"] = items_to_messages(request.instructions, request.input)
        if "tools" in params:
            params["tools"] = [_tool_param(tool) for tool in params["tools"]]
        if "tool_choice" in params:
            params["tool_choice"] = _tool_choice(params["tool_choice"])
        if request.output_schema is not None:
            params["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": "final_output",
                    "schema": request.output_schema,
                    "strict": True,
                },
            }
        _chat_settings(params, request.settings)
        return {**params, **request.settings.extra_args}


def _chat_settings(params: dict[str, Any], settings: ModelSettings) -> None:
    """The settings only Chat Completions has, or spells its own way."""
    reasoning: Any = settings.reasoning
    if isinstance(reasoning, dict):
        effort: Any = cast(dict[str, Any], reasoning).get("effort")
    else:
        effort = getattr(reasoning, "effort", None)
    given = {
        "frequency_penalty": settings.frequency_penalty,
        "presence_penalty": settings.presence_penalty,
        "verbosity": settings.verbosity,
        "reasoning_effort": effort,
        "logprobs": True if settings.top_logprobs is not None else None,
    }
    params.update({key: value for key, value in given.items() if value is not None})


def _tool_param(tool: Any) -> Any:
    if isinstance(tool, FunctionTool):
        return chat_completions_tool_param(tool)
    raise UserError(
        f"The hosted tool {type(tool).__name__} ('{tool.name}') works only with the Responses "
        "API: use OpenAIResponsesModel (the default for a model name), or remove the tool"
    )


def _tool_choice(choice: str) -> Any:
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


def _usage(usage: Any) -> Usage:
    result = Usage(requests=1)
    if usage is not None:
        result.input_tokens = usage.prompt_tokens
        result.output_tokens = usage.completion_tokens
        result.total_tokens = usage.total_tokens
    return result


class _StreamedReply:
    """Assembles a streamed reply's text and tool calls from its deltas."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.usage: Any = None
        self.id: str | None = None
        self.finish_reason: str | None = None

    def add(self, chunk: Any) -> None:
        self.id = self.id or chunk.id
        if chunk.usage is not None:
            self.usage = chunk.usage
        choices: list[Any] = chunk.choices or []  # a server may leave them out of a usage chunk
        for choice in choices:
            if choice.index == 0 and choice.finish_reason is not None:
                self.finish_reason = choice.finish_reason
            delta = choice.delta
            if delta.content:
                self.text.append(delta.content)
            calls: list[Any] = delta.tool_calls or []
            for call in calls:
                self._add_call(call)

    def _add_call(self, call: Any) -> None:
        entry = self.calls.setdefault(
            call.index, {"id": "", "function": {"name": "", "arguments": ""}}
        )
        entry["id"] = call.id or entry["id"]
        if call.function is not None:
            entry["function"]["name"] += call.function.name or ""
            entry["function"]["arguments"] += call.function.arguments or ""

    def response(self) -> ModelResponse:
        message: dict[str, Any] = {
            "content": "".join(self.text),
            "tool_calls": [self.calls[i] for i in sorted(self.calls)],
        }
        status, reason = _ending(self.finish_reason)
        return ModelResponse(message_to_items(message), _usage(self.usage), self.id, status, reason)
