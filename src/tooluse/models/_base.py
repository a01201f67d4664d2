"""The model interface: one call that returns a response, one that streams it.

The seam is provider-neutral: whatever the provider, a model takes a
`ModelRequest`, returns a `ModelResponse` or streams `StreamEvent`s (the
provider's raw events, and the neutral `TextDelta` and `ToolCallArgumentsDelta`
beside them), and reports usage. How a call ends: a `ModelResponse` whose
`status` says whether the model finished (`completed`), stopped short
(`incomplete`: a token limit, a content filter) or failed on the provider's side
(`failed`); or a `ModelTransportError`, which each model raises at its own edge
for whatever its SDK raised (a status, a lost connection, an unreadable body),
with what a retry needs to know: the loop and `RetryPolicy` never see a
provider's exception classes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from ..core._context import Usage
from ..core._items import Item
from ..core._settings import MCPToolChoice, ModelSettings
from ..exceptions import UserError
from ..tools._function_tool import FunctionTool
from ..tools._hosted import HostedTool

__all__ = [
    "Model",
    "ModelRequest",
    "ModelResponse",
    "ModelTransportError",
    "ResponseDone",
    "StreamDelta",
    "StreamEvent",
    "TextDelta",
    "ToolCallArgumentsDelta",
    "name_of",
    "responses_only",
]

ERROR_STATUS = "the model's API answered with an error status"
"""The `description` of a `ModelTransportError` that says no more than its status: a
run's error then says what the status means for the run (refused, or failed after
its retries)."""

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
    output_strict: bool = True
    """Whether `output_schema` is sent in strict mode (False for
    `AgentOutputSchema(T, strict_json_schema=False)`)."""
    max_retries: int | None = None
    """Retries the model's client makes by itself for this call; None keeps the client's own.
    A run sends 0: it retries by its `RetryPolicy`, so that hooks and spans see each attempt."""
    prompt: dict[str, Any] | None = None
    """A prompt template stored with OpenAI (`id`, `version`, `variables`), sent as the
    Responses API's `prompt`; the other APIs have none, and refuse it (`responses_only`)."""
    previous_response_id: str | None = None
    """The response this request continues (the Responses API's `previous_response_id`):
    `input` then holds only what the server does not hold yet. The other APIs keep no
    conversation, and refuse it (`responses_only`)."""
    memo: dict[object, object] | None = field(default=None, repr=False, compare=False)
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
    """The provider's event object, as its SDK parsed it."""


@dataclass
class TextDelta:
    """A piece of the answer's text, as the model streams it, whatever the provider.

    A model yields these beside its `StreamDelta`s; the pieces, joined, are the text of
    the response's messages. A streamed run passes each on as a `TextDeltaStreamEvent`.
    """

    delta: str
    """The piece of text."""


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


StreamEvent = StreamDelta | TextDelta | ToolCallArgumentsDelta | ResponseDone


class ModelTransportError(Exception):
    """A model call failed between tooluse and the provider: the neutral error of the seam.

    Each model raises it at its own edge, for whatever its SDK raised, with the SDK's
    error as the `__cause__`: the API answered with an error status (429, 500, an
    overloaded 529), could not be reached or did not answer in time, or sent
    something that cannot be read as a response (a body or a streamed event that is
    not JSON, an error event mid-stream, a stream cut before its response was
    complete). `RetryPolicy` decides on a retry from `status_code`, `retryable` and
    `retry_after` alone.

    Example:
        `ModelTransportError("the model's API answered with an error", 429, retry_after=2.0)`
    """

    def __init__(
        self,
        description: str,
        status_code: int | None = None,
        *,
        retry_after: float | None = None,
        retryable: bool | None = None,
    ) -> None:
        """An error of a model call.

        Args:
            description: What happened, in one sentence; never the request's content.
            status_code: The HTTP status the API answered with, if it answered.
            retry_after: Seconds the provider asked to wait before trying again (its
                `Retry-After`), if it named a wait.
            retryable: Whether trying again may help: True for a connection lost or a
                call that timed out, False where the provider said not to; None leaves
                it to the status (`RetryPolicy.retry_statuses`).
        """
        self.description = description
        """What happened, in one sentence; never any of the request's content."""
        self.status_code = status_code
        """The HTTP status the API answered with, if it answered."""
        self.retry_after = retry_after
        """Seconds the provider asked to wait before a retry, if it named a wait."""
        self.retryable = retryable
        """Whether a retry may help; None leaves it to the status."""
        status = f" (HTTP {status_code})" if status_code is not None else ""
        super().__init__(f"{description}{status}")


def responses_only(request: ModelRequest, model: str) -> None:
    """Refuse a request that carries what only the Responses API has.

    Args:
        request: The request.
        model: The model's class name, for the message.

    Raises:
        UserError: If the request has a `prompt`, a `previous_response_id` or an
            `MCPToolChoice`.
    """
    if request.previous_response_id is not None:
        raise UserError(
            f"{model} cannot continue response {request.previous_response_id!r}: "
            "previous_response_id is the OpenAI Responses API's own (the server keeps the "
            "conversation). Use OpenAIResponsesModel, or leave previous_response_id out and "
            "pass result.to_input_list() plus the next message as the run's input"
        )
    choice = request.settings.tool_choice
    if isinstance(choice, MCPToolChoice):
        raise UserError(
            f"{model} cannot force {choice!r}: a hosted MCP server's tools are the OpenAI "
            "Responses API's own. Use OpenAIResponsesModel, or a tool_choice of 'auto', "
            "'required', 'none' or a function tool's name"
        )
    if request.prompt is not None:
        raise UserError(
            f"{model} cannot send the agent's prompt={request.prompt.get('id')!r}: prompt "
            "templates are the OpenAI Responses API's own. Use OpenAIResponsesModel (or "
            "set_default_openai_api('responses')), or write the prompt as the agent's "
            "instructions"
        )


class Model(ABC):
    """A model the runner can call: implement `get_response` and `stream_response`.

    Raise `ModelTransportError` for what your provider's SDK raises (keep its error
    as the cause), so that the run's `RetryPolicy` can decide on a retry.
    """

    provider_name: ClassVar[str | None] = None
    """The provider, as OpenTelemetry's `gen_ai.provider.name` names it ("openai",
    "anthropic", "gcp.gemini"); None records the conventions' `_OTHER`."""

    async def close(self) -> None:  # noqa: B027 - optional: most models hold nothing
        """Release what the model holds (a client it made for itself); by default nothing.

        A run calls it at its end for each model it resolved by name (through the run's
        `ModelProvider`); a model you made and gave to an agent is yours to close.
        """

    async def count_tokens(self, request: ModelRequest) -> int | None:
        """The input tokens `request` would use, by the provider's own count; optional.

        A run whose `ContextPolicy(count_with_model=True)` asks before each call; a
        provider with a counting endpoint may implement it. The default returns None:
        the run estimates instead.

        Args:
            request: The request about to be sent.

        Returns:
            The tokens, or None when this model cannot count them.
        """
        del request
        return None

    async def compact(self, request: ModelRequest) -> ModelResponse | None:
        """The provider's own compaction of `request.input`; optional.

        A run whose `ContextPolicy(provider_compaction=True)` asks it instead of writing a
        summary: the response's `output` holds the items that stand for the input (for
        OpenAI's `responses.compact`, the user's messages and one opaque `compaction`
        item, which only that provider can read; for Anthropic's `compact_20260112`
        edit, a user message and Claude's `compaction` block). An empty `output` says
        the provider did not compact this input (the run writes the summary instead).
        The default returns None: the provider has no compaction.

        Args:
            request: The turns to compact, and the instructions.

        Returns:
            The items that stand for them, and the call's usage; or None.
        """
        del request
        return None

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


def name_of(model: Model) -> str:
    """The name a model is called by: its `model` attribute, or its class name.

    Args:
        model: The model.

    Returns:
        The name, as usage entries and spans record it.
    """
    name = getattr(model, "model", None)
    return name if isinstance(name, str) else type(model).__name__
