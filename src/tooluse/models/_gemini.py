"""`GeminiModel`: Gemini through the official `google-genai` SDK (`generateContent`).

A request: the instructions and the conversation's system messages as
`system_instruction`, the conversation as `contents` (`_gemini_conversion.py`),
function tools as `function_declarations` whose `parameters` are the tool's
schema in Gemini's OpenAPI subset (`schema/_dialects.py`), `tool_choice` as the
function-calling mode, and `ModelSettings.thinking_budget` as the thinking
budget (thoughts included, so their signatures come back).

The output type is structured output where Gemini can give it: `response_schema`
with a JSON response when the request offers no tools. Gemini 2.5 cannot combine
function calling with a JSON response, so a request with tools offers the output
type as one more function, `final_output`, and a call to it is the answer: it comes
back as the assistant's message holding the call's arguments (tool mode). Chosen
per request.

How a reply ends is its candidate's `finish_reason`: `MAX_TOKENS` stopped it short
(`incomplete`, "max_tokens"), the safety reasons (`SAFETY`, `RECITATION`,
`BLOCKLIST`, `PROHIBITED_CONTENT`, `SPII`) too ("content_filter"), a malformed
function call failed it; anything else completed it. Streamed, a reply whose last
chunk names no finish reason was cut short.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from ..core._context import Usage, input_details, output_details
from ..core._items import Item, assistant_message, is_function_call
from ..core._settings import MCPToolChoice, ModelSettings
from ..exceptions import UserError
from ..schema._dialects import gemini_schema
from ..tools._function_tool import FunctionTool
from ._base import (
    ERROR_STATUS,
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
from ._gemini_conversion import GENERATED_ID, ReplyPart, reply_items, to_contents
from ._http import retry_after
from ._openai_errors import CONNECTION_LOST, TIMED_OUT, raised_by_http_library
from ._reading import NOT_A_RESPONSE, STREAM_ENDED
from ._tool_params import Tool, ToolParam, kept_params

if TYPE_CHECKING:  # imported on first use: `import tooluse` never imports google-genai
    from google.genai import Client

__all__ = ["FINAL_OUTPUT_TOOL", "GeminiModel"]

FINAL_OUTPUT_TOOL = "final_output"
"""The function a request with tools and an output type offers for the answer (tool mode)."""
_FILTERED = frozenset({"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII"})
_FAILED = frozenset({"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL"})
_MODES = {"auto": "AUTO", "required": "ANY", "none": "NONE"}


class GeminiModel(Model):
    """A Gemini model, called through `client.aio.models.generate_content` of `google-genai`.

    Example:
        `Agent("g", model=GeminiModel("gemini-2.5-flash", genai_client=genai.Client()))`
    """

    provider_name = "gcp.gemini"

    def __init__(self, model: str, genai_client: Client | None = None) -> None:
        """Name the model, and the client to call it with.

        Args:
            model: The model's name, e.g. `"gemini-2.5-flash"`.
            genai_client: A `google.genai.Client`; None makes `genai.Client()` at the first
                call, which reads `GEMINI_API_KEY` (or `GOOGLE_API_KEY`), and the Vertex AI
                variables when `GOOGLE_GENAI_USE_VERTEXAI` is set.
        """
        self.model = model
        self._client = genai_client
        self._owns_client = genai_client is None

    @property
    def client(self) -> Client:
        """The client the model calls (made on first use when none was given)."""
        if self._client is None:
            try:
                from google.genai import Client  # noqa: PLC0415 - an optional extra
            except ImportError as error:
                raise UserError(
                    "GeminiModel needs the google-genai package, which is not installed: "
                    "pip install 'tooluse[gemini]'"
                ) from error
            self._client = Client()
        return self._client

    async def close(self) -> None:
        """Close the client's async connections, if the model made the client."""
        if self._owns_client and self._client is not None:
            await self._client.aio.aclose()
            self._client = None

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        """Call the model and return its whole response.

        Args:
            request: The conversation, tools and settings.

        Returns:
            The model's response, whether it completed or stopped short.

        Raises:
            ModelTransportError: If the call fails, or its answer cannot be read.
            UserError: If an input item or tool has no Gemini form.
        """
        params = self.params(request)
        try:
            # Unknown in some google-genai releases: a PIL image type, when pillow is absent.
            response = await self.client.aio.models.generate_content(**params)  # pyright: ignore[reportUnknownMemberType]
        except Exception as error:
            raise _mapped(error) from error
        reply = _Reply(request)
        reply.add(response)
        if reply.finish_reason is None and not reply.parts:
            raise ModelTransportError(NOT_A_RESPONSE)
        return reply.response()

    async def stream_response(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        """Call the model and yield its chunks, ending with `ResponseDone`.

        Args:
            request: The conversation, tools and settings.

        Yields:
            Each chunk, followed by the `TextDelta`s and `ToolCallArgumentsDelta`s it
            carries (Gemini sends a call's arguments whole: one piece); then the whole
            response.

        Raises:
            ModelTransportError: If the call fails, or the stream ends without a finish reason.
            UserError: If an input item or tool has no Gemini form.
        """
        params = self.params(request)
        reply = _Reply(request)
        try:
            stream = await self.client.aio.models.generate_content_stream(**params)  # pyright: ignore[reportUnknownMemberType]
            try:
                async for chunk in stream:
                    yield StreamDelta(chunk)
                    for piece in reply.add(chunk):
                        yield piece
            finally:
                close = getattr(stream, "aclose", None)
                if close is not None:
                    await close()
        except Exception as error:
            raise _mapped(error) from error
        if reply.finish_reason is None:
            raise ModelTransportError(STREAM_ENDED, retryable=True)
        yield ResponseDone(reply.response())

    def params(self, request: ModelRequest) -> dict[str, Any]:
        """The keyword arguments of `generate_content` for a request.

        Args:
            request: The request.

        Returns:
            `model`, `contents` and `config`.

        Raises:
            UserError: If an input item or tool has no Gemini form.
        """
        responses_only(request, type(self).__name__)
        conversation = to_contents(request.input, request.memo)
        config: dict[str, Any] = {}
        system = [text for text in (request.instructions, *conversation.system) if text]
        if system:
            config["system_instruction"] = "\n\n".join(system)
        # Kept per list of tools: rewriting each schema into Gemini's dialect is most of it.
        declarations = kept_params("gemini", request.tools, _declarations)
        if request.output_schema is not None:
            _output(config, declarations, request.output_schema)
        if declarations:
            config["tools"] = [{"function_declarations": declarations}]
            mode = _mode(request.settings, declarations)
            if mode is not None:
                config["tool_config"] = {"function_calling_config": mode}
        _settings(config, request)
        config.update(request.settings.extra_args)
        return {"model": self.model, "contents": conversation.contents, "config": config}


def _mapped(error: Exception) -> Exception:
    """The neutral error for what the SDK raised (its error as the cause), or the error."""
    if raised_by_http_library(error):
        timed_out = "Timeout" in type(error).__name__
        return ModelTransportError(TIMED_OUT if timed_out else CONNECTION_LOST, retryable=True)
    from google.genai import errors  # noqa: PLC0415 - imported by the time the SDK raised

    if not isinstance(error, errors.APIError):
        return error
    response: object = getattr(error, "response", None)  # its type depends on the transport
    headers: object = getattr(response, "headers", None)
    waits = retry_after(headers) if isinstance(headers, Mapping) else None  # pyright: ignore[reportUnknownArgumentType]
    status = error.code
    refused = 400 <= status < 500 and status not in (408, 409, 429)
    description = ERROR_STATUS
    if refused and error.message:
        description = f"the API says {error.status or status}: {error.message}"
    return ModelTransportError(description, status, retry_after=waits)


def _declarations(tools: Sequence[Tool]) -> list[ToolParam]:
    return [_declaration(tool) for tool in _function_tools(tools)]


def _function_tools(tools: Sequence[object]) -> list[FunctionTool]:
    found: list[FunctionTool] = []
    for tool in tools:
        if not isinstance(tool, FunctionTool):
            raise UserError(
                f"GeminiModel cannot offer {type(tool).__name__}: it is a tool OpenAI's "
                "Responses API runs. Give this agent function tools only, or an OpenAI model"
            )
        found.append(tool)
    return found


def _declaration(tool: FunctionTool) -> dict[str, object]:
    declaration: dict[str, object] = {"name": tool.name}
    if tool.description:
        declaration["description"] = tool.description
    schema = gemini_schema(tool.params_json_schema).schema
    if schema.get("properties"):  # Gemini refuses an object schema without properties
        declaration["parameters"] = schema
    return declaration


def _output(config: dict[str, Any], declarations: list[ToolParam], schema: dict[str, Any]) -> None:
    """Structured output: native without tools, the `final_output` function with them."""
    converted = gemini_schema(schema).schema
    if not declarations:
        config["response_mime_type"] = "application/json"
        config["response_schema"] = converted
        return
    declarations.append(
        {
            "name": FINAL_OUTPUT_TOOL,
            "description": "Give the final answer: call this once you have it.",
            "parameters": converted,
        }
    )


def _mode(settings: ModelSettings, declarations: list[ToolParam]) -> dict[str, object] | None:
    choice = settings.tool_choice
    if choice is None or isinstance(choice, MCPToolChoice):  # the latter: refused before
        return None
    if choice in _MODES:
        return {"mode": _MODES[choice]}
    if not any(d["name"] == choice for d in declarations):
        return None  # the run checks a named tool_choice against the tools
    return {"mode": "ANY", "allowed_function_names": [choice]}


def _settings(config: dict[str, Any], request: ModelRequest) -> None:
    settings = request.settings
    given = {
        "temperature": settings.temperature,
        "top_p": settings.top_p,
        "max_output_tokens": settings.max_tokens,
        "presence_penalty": settings.presence_penalty,
        "frequency_penalty": settings.frequency_penalty,
    }
    config.update({key: value for key, value in given.items() if value is not None})
    if settings.thinking_budget is not None:
        config["thinking_config"] = {
            "thinking_budget": settings.thinking_budget,
            "include_thoughts": settings.thinking_budget != 0,
        }
    http: dict[str, object] = {}
    if request.max_retries is not None:
        http["retry_options"] = {"attempts": request.max_retries + 1}
    if settings.extra_headers:
        http["headers"] = settings.extra_headers
    if settings.extra_body:
        http["extra_body"] = settings.extra_body
    if http:
        config["http_options"] = http


class _Reply:
    """A reply's parts, usage and ending, from one response or a stream of chunks."""

    def __init__(self, request: ModelRequest) -> None:
        self.tool_mode = request.output_schema is not None and bool(request.tools)
        self.parts: list[ReplyPart] = []
        self.usage: object = None
        self.finish_reason: str | None = None
        self.id: str | None = None
        self.model: str | None = None

    def add(self, chunk: Any) -> list[TextDelta | ToolCallArgumentsDelta]:
        """Take a response (or a streamed chunk); the pieces of text and arguments in it."""
        self.id = self.id or chunk.response_id
        self.model = self.model or chunk.model_version
        if chunk.usage_metadata is not None:
            self.usage = chunk.usage_metadata
        candidates: list[Any] = chunk.candidates or []
        if not candidates:
            return []
        candidate = candidates[0]
        if candidate.finish_reason is not None:
            self.finish_reason = str(
                getattr(candidate.finish_reason, "value", candidate.finish_reason)
            )
        content = candidate.content
        pieces: list[TextDelta | ToolCallArgumentsDelta] = []
        for part in (content.parts if content is not None else None) or ():
            read = _part(part)
            self.parts.append(read)
            if read.name is not None:
                pieces.append(ToolCallArgumentsDelta(read.call_id or "", read.name, read.arguments))
            elif read.text and not read.thought:
                pieces.append(TextDelta(read.text))
        return pieces

    def response(self) -> ModelResponse:
        items = reply_items(_joined(self.parts))
        if self.tool_mode:
            items = [_answer_of(item) for item in items]
        status, reason = _ending(self.finish_reason)
        return ModelResponse(items, _usage(self.usage), self.id, status, reason, self.model)


def _part(part: Any) -> ReplyPart:
    call = part.function_call
    signature: bytes | None = part.thought_signature
    if call is not None:
        arguments = json.dumps(call.args or {})
        # An id made here, if Gemini sent none, so that the call's piece names it too.
        call_id: str = call.id or f"{GENERATED_ID}{uuid.uuid4().hex[:16]}"
        return ReplyPart(name=call.name, arguments=arguments, call_id=call_id, signature=signature)
    return ReplyPart(text=part.text, thought=bool(part.thought), signature=signature)


def _joined(parts: list[ReplyPart]) -> list[ReplyPart]:
    """The parts with text streamed in pieces joined: one message per run of text."""
    joined: list[ReplyPart] = []
    for part in parts:
        last = joined[-1] if joined else None
        if (
            last is not None
            and part.name is None
            and last.name is None
            and last.thought == part.thought
            and last.signature is None
            and part.signature is None
        ):
            joined[-1] = ReplyPart(text=(last.text or "") + (part.text or ""), thought=part.thought)
        else:
            joined.append(part)
    return joined


def _answer_of(item: Item) -> Item:
    """A call to `final_output` as the answer it carries; any other item as it is."""
    if is_function_call(item) and item["name"] == FINAL_OUTPUT_TOOL:
        return assistant_message(item["arguments"])
    return item


def _ending(
    finish_reason: str | None,
) -> tuple[Literal["completed", "incomplete", "failed"], str | None]:
    if finish_reason == "MAX_TOKENS":
        return "incomplete", "max_tokens"
    if finish_reason in _FILTERED:
        return "incomplete", "content_filter"
    if finish_reason in _FAILED:
        return "failed", finish_reason
    return "completed", None


def _count(usage: object, name: str) -> int:
    value = getattr(usage, name, None)
    return value if isinstance(value, int) else 0


def _usage(usage: object) -> Usage:
    input_tokens = _count(usage, "prompt_token_count")
    thoughts = _count(usage, "thoughts_token_count")
    output_tokens = _count(usage, "candidates_token_count") + thoughts
    return Usage(
        requests=1,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=_count(usage, "total_token_count") or input_tokens + output_tokens,
        input_tokens_details=input_details(_count(usage, "cached_content_token_count")),
        output_tokens_details=output_details(thoughts),
    )
