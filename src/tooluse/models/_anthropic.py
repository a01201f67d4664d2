"""`AnthropicModel`: Claude through the official `anthropic` SDK's Messages API.

A request: the instructions and the conversation's system messages as `system`,
the conversation as `messages` (`_anthropic_conversion.py`), function tools as
`tools` (`input_schema`, and `strict` for a tool whose schema is strict), the
output type as native structured output (`output_config.format`, which Claude
combines with tools), `tool_choice` in Anthropic's spelling, and
`ModelSettings.thinking_budget` as extended thinking. The SDK requires a
`max_tokens`: `ModelSettings.max_tokens`, else `DEFAULT_MAX_TOKENS` (above the
thinking budget).

How a reply ends is its `stop_reason`: `max_tokens`, `refusal` and
`model_context_window_exceeded` stopped it short (`incomplete`), anything else
(`end_turn`, `tool_use`, `stop_sequence`, `pause_turn`) completed it. Streamed,
the reply is assembled from its events; a stream that ends before `message_stop`
was cut short (a retryable `ModelTransportError`).

With `prompt_caching=True` the request marks the system prompt, the last tool and
the conversation so far (its last block) with `cache_control`, so that the next
request of the run reads them from Anthropic's cache; usage reports the tokens read
(`input_tokens_details.cached_tokens`) and written (`cache_write_tokens`).
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Awaitable, Sequence
from typing import TYPE_CHECKING, Any, Literal, cast

from ..core._context import Usage, input_details
from ..core._settings import ModelSettings
from ..exceptions import UserError
from ..tools._function_tool import FunctionTool
from ._anthropic_compaction import (
    COMPACT_BETA,
    compacted_items,
    compaction_edit,
    usage_counts,
    with_compact_beta,
)
from ._anthropic_conversion import AnthropicMessage, Block, ReplyBlock, reply_items, to_messages
from ._anthropic_errors import anthropic_failure
from ._base import (
    Model,
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
from ._reading import NOT_A_RESPONSE, STREAM_ENDED

if TYPE_CHECKING:  # imported on first use: `import tooluse` never imports anthropic
    from anthropic import AsyncAnthropic

__all__ = ["DEFAULT_MAX_TOKENS", "AnthropicModel"]

DEFAULT_MAX_TOKENS = 8192
"""The `max_tokens` a request sends when `ModelSettings.max_tokens` is None (the API needs one)."""
_EPHEMERAL = {"type": "ephemeral"}
_INCOMPLETE = frozenset({"max_tokens", "refusal", "model_context_window_exceeded"})


class AnthropicModel(Model):
    """A Claude model, called through `client.messages.create` of the `anthropic` SDK.

    Example:
        `Agent("a", model=AnthropicModel("claude-sonnet-4-5", anthropic_client=AsyncAnthropic()))`
    """

    provider_name = "anthropic"

    def __init__(
        self,
        model: str,
        anthropic_client: AsyncAnthropic | None = None,
        *,
        prompt_caching: bool = False,
    ) -> None:
        """Name the model, and the client to call it with.

        Args:
            model: The model's name, e.g. `"claude-sonnet-4-5"`.
            anthropic_client: The client; None makes `AsyncAnthropic()` at the first call,
                which reads `ANTHROPIC_API_KEY` and `ANTHROPIC_BASE_URL` (the model then
                closes it in `close()`).
            prompt_caching: Mark the system prompt, the tools and the conversation so far
                with `cache_control`, for Anthropic's prompt cache.
        """
        self.model = model
        self.prompt_caching = prompt_caching
        """Whether requests mark what they send for the prompt cache."""
        self._client = anthropic_client
        self._owns_client = anthropic_client is None

    @property
    def client(self) -> AsyncAnthropic:
        """The client the model calls (made on first use when none was given)."""
        if self._client is None:
            try:
                from anthropic import AsyncAnthropic  # noqa: PLC0415 - an optional extra
            except ImportError as error:
                raise UserError(
                    "AnthropicModel needs the anthropic package: pip install 'tooluse[anthropic]'"
                ) from error
            self._client = AsyncAnthropic()
        return self._client

    async def close(self) -> None:
        """Close the client, if the model made it."""
        if self._owns_client and self._client is not None:
            await self._client.close()
            self._client = None

    def _client_for(self, request: ModelRequest) -> AsyncAnthropic:
        client = self.client
        if request.max_retries is None or request.max_retries == client.max_retries:
            return client
        return client.with_options(max_retries=request.max_retries)

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        """Call the model and return its whole response.

        Args:
            request: The conversation, tools and settings.

        Returns:
            The model's response, whether it completed or stopped short.

        Raises:
            ModelTransportError: If the call fails, or its answer cannot be read.
            UserError: If an input item or tool has no Anthropic form.
        """
        params = self.params(request)
        client = self._client_for(request)
        # Parameters are built as a dict, so the client's overloads cannot type the result.
        message, content = await _created(cast(Awaitable[Any], client.messages.create(**params)))
        blocks = [_reply_block(block) for block in content]
        status, reason = _ending(message.stop_reason)
        return ModelResponse(
            reply_items(blocks),
            _usage(_counts(message.usage)),
            message.id,
            status,
            reason,
            message.model,
        )

    async def compact(self, request: ModelRequest) -> ModelResponse:
        """Have the API compact the conversation itself (its `compact_20260112` edit).

        One `client.beta.messages.create` call with the beta `context_management` edit at
        its lowest trigger (50,000 input tokens) and `pause_after_compaction`: the
        response is the compaction block alone (`tooluse.models._anthropic_compaction`).
        A conversation under the trigger is answered instead, and nothing is compacted.

        Args:
            request: The turns to compact (`input`) and what the summary must keep
                (`instructions`, sent as the edit's instructions).

        Returns:
            The items that stand for the turns (their first user message, then one
            `compaction` item only Claude reads), or no items if the API did not compact;
            and the call's usage, its compaction included.

        Raises:
            ModelTransportError: If the call fails, or its answer cannot be read.
            UserError: If an input item has no Anthropic form.
        """
        conversation = to_messages(request.input, None)
        params: dict[str, Any] = {
            "model": self.model,
            "max_tokens": _max_tokens(request.settings),
            "messages": conversation.messages,
            "betas": [COMPACT_BETA],
            # In the body: an SDK older than the edit sends it all the same.
            "extra_body": {"context_management": compaction_edit(request.instructions)},
        }
        if conversation.system:
            params["system"] = "\n\n".join(conversation.system)
        client = self._client_for(request)
        create = cast(Awaitable[Any], client.beta.messages.create(**params))
        message, content = await _created(create)
        output = compacted_items(content)
        return ModelResponse(output, _usage(usage_counts(message.usage)), message.id)

    async def stream_response(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        """Call the model and yield its events, ending with `ResponseDone`.

        Args:
            request: The conversation, tools and settings.

        Yields:
            The SDK's events, each followed by the `TextDelta` or `ToolCallArgumentsDelta`
            it carries; then the whole response.

        Raises:
            ModelTransportError: If the call fails, the API sends an error event, or the
                stream ends before `message_stop`.
            UserError: If an input item or tool has no Anthropic form.
        """
        params = self.params(request)
        client = self._client_for(request)
        reply = _StreamedReply()
        try:
            stream = cast(Any, await client.messages.create(**params, stream=True))
            async with stream:  # closes the connection however reading stops, aclose() too
                async for event in stream:
                    yield StreamDelta(event)
                    piece = reply.add(event)
                    if piece is not None:
                        yield piece
        except Exception as error:
            failure = anthropic_failure(error)
            if failure is None:
                raise
            raise failure from error
        if not reply.stopped:
            raise ModelTransportError(STREAM_ENDED, retryable=True)
        yield ResponseDone(reply.response())

    def params(self, request: ModelRequest) -> dict[str, Any]:
        """The parameters of `messages.create` for a request.

        Args:
            request: The request.

        Returns:
            The keyword arguments.

        Raises:
            UserError: If an input item or tool has no Anthropic form.
        """
        responses_only(request, type(self).__name__)
        settings = request.settings
        conversation = to_messages(request.input, request.memo)
        system = [text for text in (request.instructions, *conversation.system) if text]
        messages: list[AnthropicMessage] = conversation.messages
        params: dict[str, Any] = {"model": self.model}
        tools = [_tool_param(tool) for tool in _function_tools(request.tools)]
        if self.prompt_caching:
            messages = _cached_conversation(messages)
            tools = _cached_last(tools)
        params["max_tokens"] = _max_tokens(settings)
        params["messages"] = messages
        if system:
            text = "\n\n".join(system)
            if self.prompt_caching:
                params["system"] = [{"type": "text", "text": text, "cache_control": _EPHEMERAL}]
            else:
                params["system"] = text
        if tools:
            params["tools"] = tools
            choice = _tool_choice(settings)
            if choice is not None:
                params["tool_choice"] = choice
        if request.output_schema is not None:
            params["output_config"] = {
                "format": {"type": "json_schema", "schema": request.output_schema}
            }
        if settings.thinking_budget is not None:
            params["thinking"] = {"type": "enabled", "budget_tokens": settings.thinking_budget}
        _pass_through(params, settings)
        with_compact_beta(params, messages)  # a compaction block sent back needs its beta
        return {**params, **settings.extra_args}


def _max_tokens(settings: ModelSettings) -> int:
    if settings.max_tokens is not None:
        return settings.max_tokens
    budget = settings.thinking_budget or 0
    return DEFAULT_MAX_TOKENS if budget < DEFAULT_MAX_TOKENS else budget + DEFAULT_MAX_TOKENS


def _pass_through(params: dict[str, Any], settings: ModelSettings) -> None:
    """Sampling settings (sent in the body: the SDK's signature may not name them) and extras."""
    body: dict[str, object] = {}
    if settings.temperature is not None:
        body["temperature"] = settings.temperature
    if settings.top_p is not None:
        body["top_p"] = settings.top_p
    if settings.extra_body:
        body.update(settings.extra_body)
    if body:
        params["extra_body"] = body
    if settings.extra_headers:
        params["extra_headers"] = settings.extra_headers
    if settings.extra_query:
        params["extra_query"] = settings.extra_query


def _function_tools(tools: Sequence[object]) -> list[FunctionTool]:
    found: list[FunctionTool] = []
    for tool in tools:
        if not isinstance(tool, FunctionTool):
            raise UserError(
                f"AnthropicModel cannot offer {type(tool).__name__}: it is a tool OpenAI's "
                "Responses API runs. Give this agent function tools only, or an OpenAI model"
            )
        found.append(tool)
    return found


def _tool_param(tool: FunctionTool) -> Block:
    param: Block = {"name": tool.name}
    if tool.description:
        param["description"] = tool.description
    param["input_schema"] = tool.params_json_schema
    if tool.strict_json_schema:
        param["strict"] = True
    return param


def _tool_choice(settings: ModelSettings) -> Block | None:
    choice = settings.tool_choice
    parallel = settings.parallel_tool_calls
    if choice is None and parallel is None:
        return None
    param: Block
    if choice in (None, "auto"):
        param = {"type": "auto"}
    elif choice == "required":
        param = {"type": "any"}
    elif choice == "none":
        return {"type": "none"}
    else:
        param = {"type": "tool", "name": choice}
    if parallel is False:
        param["disable_parallel_tool_use"] = True
    return param


def _cached_last(tools: list[Block]) -> list[Block]:
    if not tools:
        return tools
    return [*tools[:-1], {**tools[-1], "cache_control": _EPHEMERAL}]


def _cached_conversation(messages: list[AnthropicMessage]) -> list[AnthropicMessage]:
    """The messages with the last block marked for the cache (copies: the memo's stay as sent)."""
    if not messages or not messages[-1]["content"]:
        return messages
    last = messages[-1]
    content = [*last["content"][:-1], {**last["content"][-1], "cache_control": _EPHEMERAL}]
    return [*messages[:-1], {"role": last["role"], "content": content}]


async def _created(call: Awaitable[Any]) -> tuple[Any, list[Any]]:
    """The message a `messages.create` call answers, and its content blocks.

    Raises:
        ModelTransportError: The SDK's error, mapped; or an answer that is not a message.
    """
    try:
        message = await call
    except Exception as error:
        failure = anthropic_failure(error)
        if failure is None:
            raise
        raise failure from error
    content: list[Any] | None = getattr(message, "content", None)
    if content is None:
        raise ModelTransportError(NOT_A_RESPONSE)
    return message, content


def _reply_block(block: Any) -> ReplyBlock:
    kind: str = block.type
    if kind == "text":
        return ReplyBlock(kind, text=block.text)
    if kind == "tool_use":
        return ReplyBlock(kind, id=block.id, name=block.name, arguments=json.dumps(block.input))
    if kind == "thinking":
        return ReplyBlock(kind, text=block.thinking, signature=block.signature)
    if kind == "redacted_thinking":
        return ReplyBlock(kind, data=block.data)
    return ReplyBlock(kind)


def _ending(stop_reason: str | None) -> tuple[Literal["completed", "incomplete"], str | None]:
    if stop_reason in _INCOMPLETE:
        return "incomplete", stop_reason
    return "completed", None


_COUNTS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)
"""The counts of Anthropic's usage that tooluse reads."""


def _counts(usage: object) -> dict[str, int]:
    """The counts an SDK `Usage` (or a streamed event's usage) holds."""
    found: dict[str, int] = {}
    for name in _COUNTS:
        value = getattr(usage, name, None)
        if isinstance(value, int):
            found[name] = value
    return found


def _usage(counts: dict[str, int]) -> Usage:
    """One request's usage: Anthropic counts cache reads and writes apart from `input_tokens`."""
    read = counts.get("cache_read_input_tokens", 0)
    written = counts.get("cache_creation_input_tokens", 0)
    input_tokens = counts.get("input_tokens", 0) + read + written
    output_tokens = counts.get("output_tokens", 0)
    return Usage(
        requests=1,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=input_tokens + output_tokens,
        input_tokens_details=input_details(read, written),
    )


class _StreamedReply:
    """Assembles a streamed reply from the Messages API's events."""

    def __init__(self) -> None:
        self.blocks: dict[int, ReplyBlock] = {}
        self.id: str | None = None
        self.model: str | None = None
        self.usage: dict[str, int] = {}
        self.stop_reason: str | None = None
        self.stopped = False

    def add(self, event: Any) -> TextDelta | ToolCallArgumentsDelta | None:
        """Take one event; the piece of text or of a call's arguments it carries, if any."""
        kind: str = event.type
        if kind == "content_block_delta":
            return self._delta(event.index, event.delta)
        if kind == "content_block_start":
            self.blocks[event.index] = _reply_block(event.content_block)
            if self.blocks[event.index].type == "tool_use":
                self.blocks[event.index].arguments = ""  # its input comes in pieces
        elif kind == "message_start":
            message = event.message
            self.id, self.model = message.id, message.model
            self._take_usage(message.usage)
        elif kind == "message_delta":
            self.stop_reason = event.delta.stop_reason or self.stop_reason
            self._take_usage(event.usage)
        elif kind == "message_stop":
            self.stopped = True
        return None

    def _delta(self, index: int, delta: Any) -> TextDelta | ToolCallArgumentsDelta | None:
        block = self.blocks.get(index)
        if block is None:
            return None
        kind: str = delta.type
        if kind == "text_delta":
            block.text += delta.text
            return TextDelta(delta.text)
        if kind == "input_json_delta":
            piece: str = delta.partial_json
            block.arguments += piece
            return ToolCallArgumentsDelta(block.id, block.name, piece) if piece else None
        if kind == "thinking_delta":
            block.text += delta.thinking
        elif kind == "signature_delta":
            block.signature = (block.signature or "") + delta.signature
        return None

    def _take_usage(self, usage: object) -> None:
        self.usage.update(_counts(usage))  # message_delta's counts are the totals so far

    def response(self) -> ModelResponse:
        blocks = [self.blocks[index] for index in sorted(self.blocks)]
        status, reason = _ending(self.stop_reason)
        return ModelResponse(
            reply_items(blocks), _usage(self.usage), self.id, status, reason, self.model
        )
