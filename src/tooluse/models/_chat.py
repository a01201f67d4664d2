"""`OpenAIChatCompletionsModel`: the Chat Completions API (OpenAI, vLLM, Ollama, ...)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, cast

from .._context import Usage
from .._function_tool import FunctionTool
from .._tool_params import chat_completions_tool_param
from ..exceptions import UserError
from ._base import ModelRequest, ModelResponse, ResponseDone, StreamDelta, StreamEvent
from ._chat_conversion import items_to_messages, message_to_items
from ._defaults import OpenAIModel

__all__ = ["OpenAIChatCompletionsModel"]


class OpenAIChatCompletionsModel(OpenAIModel):
    """A model called through `client.chat.completions.create`."""

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        """Call the model and return its whole response.

        Args:
            request: The conversation, tools and settings.

        Returns:
            The model's response.
        """
        params = self._params(request)
        client = self.client_for(request)
        # Parameters are built as a dict, so the client's overloads cannot type the result.
        completion = cast(Any, await client.chat.completions.create(**params))
        message = completion.choices[0].message.model_dump(exclude_none=True)
        return ModelResponse(message_to_items(message), _usage(completion.usage), completion.id)

    async def stream_response(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Call the model and yield its chunks, ending with `ResponseDone`.

        Args:
            request: The conversation, tools and settings.

        Yields:
            The provider's chunks, then the whole response.
        """
        params = self._params(request)
        client = self.client_for(request)
        stream = cast(
            Any,
            await client.chat.completions.create(
                **params, stream=True, stream_options={"include_usage": True}
            ),
        )
        reply = _StreamedReply()
        async for chunk in stream:
            yield StreamDelta(chunk)
            reply.add(chunk)
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
        return {**params, **request.settings.extra_args}


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

    def add(self, chunk: Any) -> None:
        self.id = self.id or chunk.id
        if chunk.usage is not None:
            self.usage = chunk.usage
        for choice in chunk.choices:
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
        return ModelResponse(message_to_items(message), _usage(self.usage), self.id)
