"""`OpenAIResponsesModel`: the Responses API, whose items are the run's own format."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, cast

from .._context import Usage
from .._function_tool import FunctionTool
from .._hosted_tools import FileSearchTool
from .._items import Item
from .._tool_params import responses_tool_param
from ._base import ModelRequest, ModelResponse, ResponseDone, StreamDelta, StreamEvent
from ._defaults import OpenAIModel

__all__ = ["OpenAIResponsesModel"]


class OpenAIResponsesModel(OpenAIModel):
    """A model called through `client.responses.create`."""

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        """Call the model and return its whole response.

        Args:
            request: The conversation, tools and settings.

        Returns:
            The model's response.
        """
        client = self.client_for(request)
        # Parameters are built as a dict, so the client's overloads cannot type the result.
        response = cast(Any, await client.responses.create(**self._params(request)))
        return _to_model_response(response)

    async def stream_response(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Call the model and yield its events, ending with `ResponseDone`.

        Args:
            request: The conversation, tools and settings.

        Yields:
            The provider's events, then the whole response.
        """
        client = self.client_for(request)
        stream = cast(Any, await client.responses.create(**self._params(request), stream=True))
        async for event in stream:
            yield StreamDelta(event)
            if event.type == "response.completed":
                yield ResponseDone(_to_model_response(event.response))

    def _params(self, request: ModelRequest) -> dict[str, Any]:
        params = self.shared_params(request, max_tokens_key="max_output_tokens")
        params["input"] = request.input
        if request.instructions:
            params["instructions"] = request.instructions
        if "tools" in params:
            params["tools"] = [_tool_param(tool) for tool in params["tools"]]
        if "tool_choice" in params:
            params["tool_choice"] = _tool_choice(params["tool_choice"])
        if any(isinstance(t, FileSearchTool) and t.include_search_results for t in request.tools):
            params["include"] = ["file_search_call.results"]
        if request.output_schema is not None:
            params["text"] = {"format": _json_schema_format(request.output_schema)}
        return {**params, **request.settings.extra_args}


def _tool_param(tool: Any) -> Any:
    return responses_tool_param(tool) if isinstance(tool, FunctionTool) else tool.to_tool_param()


def _tool_choice(choice: str) -> Any:
    if choice in ("auto", "required", "none"):
        return choice
    return {"type": "function", "name": choice}


def _json_schema_format(schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "json_schema", "name": "final_output", "schema": schema, "strict": True}


def _to_model_response(response: Any) -> ModelResponse:
    output = [
        cast(Item, item.model_dump(mode="json", exclude_none=True)) for item in response.output
    ]
    usage = Usage(requests=1)
    if response.usage is not None:
        usage.input_tokens = response.usage.input_tokens
        usage.output_tokens = response.usage.output_tokens
        usage.total_tokens = response.usage.total_tokens
    return ModelResponse(output, usage, response.id)
