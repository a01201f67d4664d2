"""OpenTelemetry spans for a run, after the semantic conventions for generative AI.

A run's trace, when a tracer provider is configured:

    invoke_workflow {workflow_name}      the run (INTERNAL), under the span current at its start
    └── invoke_agent {agent}             each agent that takes over (INTERNAL)
        ├── chat {model}                 each attempt at a model call (CLIENT)
        ├── execute_tool {tool}          each local tool call (INTERNAL), current inside the call,
        │   └── invoke_workflow ...      so a nested run (an agent used as a tool) nests here
        └── apply_guardrail {name}       each guardrail (a tool's guardrails: under its call)

Names and attributes are the conventions' (`opentelemetry-semantic-conventions`, checked
by `tests/test_tracing_conventions.py`), except the guardrail's operation: the
conventions name none, so `apply_guardrail` is tooluse's own, and its verdict is
recorded as the conventions record an evaluation (`gen_ai.evaluation.name`,
`gen_ai.evaluation.score.label` `pass` or `fail`, and the `gen_ai.evaluation.result`
event). A tool's result in a message is a `tool_call_response` part's `response`.

A handoff is a `handoff` event on the agent span that hands off. A span that ended in
an error has status ERROR and `error.type` (the exception's class, or the API's code).

Nothing here imports `opentelemetry` until a run is traced: `run_tracer` gives None,
and the loop skips every call, when tracing is disabled, when `opentelemetry` was never
imported and no provider was given, or when the global provider is the API's default,
which records nothing. Content (instructions, messages, tool arguments and results,
exception messages) is recorded only on request (`RunConfig.trace_include_sensitive_data`,
or the conventions' environment variable): tool data may hold secrets.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from types import ModuleType, TracebackType
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypedDict, TypeGuard, cast

from .._version import __version__
from ..exceptions import UserError
from ..models import ModelTransportError, get_default_model
from ..models._base import name_of
from ..tools._local import LOCAL_ITEM_TYPES
from ..tools._outputs import parts_text
from ._api import tracing_off
from ._registry import processors, route

if TYPE_CHECKING:
    from contextvars import Token

    from opentelemetry.context import Context
    from opentelemetry.trace import Span, Tracer
    from opentelemetry.util.types import AttributeValue

    from ..core._agent_base import AgentBase
    from ..core._context import RunContextWrapper
    from ..core._items import Item
    from ..core._settings import ModelSettings
    from ..models import Model, ModelRequest, ModelResponse

__all__ = ["CONTENT_VARIABLE", "RunTracer", "SpanScope", "TracingConfig", "run_tracer"]

CONTENT_VARIABLE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The conventions' switch for recording content, read when the run's config leaves it None."""
_CONTENT_ON = frozenset({"true", "span_only", "span_and_event"})  # the older and newer spellings

OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
AGENT_NAME = "gen_ai.agent.name"
REQUEST_MODEL = "gen_ai.request.model"
GUARDRAIL_OPERATION = "apply_guardrail"
"""A guardrail span's `gen_ai.operation.name`: tooluse's own, as the conventions name none."""
ERROR_TYPE = "error.type"
OTHER = "_OTHER"
"""The conventions' value for an unknown provider, or an error of no known type."""


class TracingConfig(Protocol):
    """What tracing reads of a run's settings (`RunConfig` has these fields)."""

    @property
    def tracing_disabled(self) -> bool:
        """Record no spans."""
        ...

    @property
    def tracer_provider(self) -> object:
        """The `TracerProvider` to use; None for the global one."""
        ...

    @property
    def trace_include_sensitive_data(self) -> bool | None:
        """Record content; None reads the environment."""
        ...

    @property
    def workflow_name(self) -> str:
        """What the run's span is named after."""
        ...

    @property
    def model(self) -> str | Model | None:
        """The model every agent of the run uses, if one is set."""
        ...


def run_tracer(config: TracingConfig) -> RunTracer | None:
    """The tracer for a run, or None when nothing would record its spans.

    Args:
        config: The run's settings.

    Returns:
        The tracer, or None: tracing is disabled, or no tracer provider is configured
        (`opentelemetry` is not even imported then).

    Raises:
        UserError: `config.tracer_provider` is not an OpenTelemetry `TracerProvider`.
    """
    if config.tracing_disabled or tracing_off():
        return None
    provider = config.tracer_provider
    trace = sys.modules.get("opentelemetry.trace")
    otel = _otel
    if otel is None or trace is not otel.trace:  # or not the one kept: a sandbox imports its own
        if trace is None and provider is None:
            return None  # nobody set a provider up: not worth importing opentelemetry to learn it
        otel = _import_otel()
    if processors():  # trace processors see every run: on a provider that feeds them
        provider = route(otel.trace, provider)
    tracer = _tracer(otel.trace, provider)
    if tracer is None:
        return None
    return RunTracer(tracer, config, include_content=_records_content(config), otel=otel)


class _Otel:
    """What a traced run calls of `opentelemetry`, looked up once (not imported per span)."""

    __slots__ = (
        "attach",
        "client",
        "current_span",
        "detach",
        "internal",
        "set_span_in_context",
        "trace",
    )

    def __init__(self) -> None:
        from opentelemetry import context, trace  # noqa: PLC0415 - only when a run is traced

        self.trace: ModuleType = trace
        self.attach = context.attach
        self.detach = context.detach
        self.set_span_in_context = trace.set_span_in_context
        self.current_span = trace.get_current_span
        self.internal = trace.SpanKind.INTERNAL
        self.client = trace.SpanKind.CLIENT


_otel: _Otel | None = None
"""`opentelemetry` as the last run imported it: a run finding the same `opentelemetry.trace`
in `sys.modules` skips the import statement."""


def _import_otel() -> _Otel:
    """Import `opentelemetry` (imported already, or a provider was given) and keep it.

    An import statement waits for a module another thread is still importing; using the
    module found in `sys.modules` before it is kept could find it half made.
    """
    global _otel  # noqa: PLW0603 - every run reads it
    _otel = otel = _Otel()
    return otel


_last: list[tuple[object, Tracer]] = []
"""The provider the last run asked, and its tracer: a run reuses it rather than make one."""


def _tracer(trace: ModuleType, provider: object) -> Tracer | None:
    """The provider's tracer for tooluse; None for the API's defaults, which record nothing."""
    if provider is None or isinstance(provider, trace.ProxyTracerProvider):
        provider = trace.get_tracer_provider()  # the global one, once set
        if type(provider) is trace.ProxyTracerProvider:  # none set: every run without one
            return None  # (an exact type: cheaper than the ABC's isinstance below)
    if _last and _last[0][0] is provider:  # before the ABC checks below: they cost more
        return _last[0][1]
    if isinstance(provider, (trace.ProxyTracerProvider, trace.NoOpTracerProvider)):
        return None
    get_tracer: Callable[[str, str], Tracer] | None = getattr(provider, "get_tracer", None)
    if not callable(get_tracer):
        raise UserError(
            f"RunConfig: tracer_provider must be an OpenTelemetry TracerProvider (with "
            f"get_tracer), not {type(provider).__name__}; or leave it None to use the global one"
        )
    tracer = get_tracer("tooluse", __version__)
    if isinstance(tracer, trace.NoOpTracer):  # e.g. the SDK with OTEL_SDK_DISABLED=true
        return None
    _last[:] = [(provider, tracer)]
    return tracer


def _records_content(config: TracingConfig) -> bool:
    """Whether spans may hold content: the config's choice, or else the environment's."""
    if config.trace_include_sensitive_data is not None:
        return bool(config.trace_include_sensitive_data)
    return os.environ.get(CONTENT_VARIABLE, "").strip().lower() in _CONTENT_ON


class SpanScope:
    """A span that is current while its `with` block runs (a tool call, a guardrail)."""

    __slots__ = (
        "_content",
        "_context",
        "_failed",
        "_guardrail",
        "_open",
        "_otel",
        "_span",
        "_token",
    )

    _token: Token[Context]  # set on entering

    def __init__(
        self,
        span: Span,
        otel: _Otel,
        *,
        include_content: bool = False,
        context: object = None,
        open_spans: set[Span] | None = None,
        guardrail: str = "",
    ) -> None:
        """Wrap `span`.

        Args:
            span: The span, started; the scope ends it.
            otel: The `opentelemetry` functions the run's tracer calls.
            include_content: Whether results and exception messages may be recorded.
            context: A tool call's `ToolContext`, whose `error` says why a call failed.
            open_spans: The run's open tool spans: this one is in it while it is open.
            guardrail: A guardrail's name, for the span of a guardrail.
        """
        self._span = span
        self._otel = otel
        self._guardrail = guardrail
        self._content = include_content
        self._context = context
        self._open = open_spans
        self._failed = False

    def __enter__(self) -> SpanScope:
        otel = self._otel
        self._token = otel.attach(otel.set_span_in_context(self._span))
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """End the span, recording `error` if the block raised."""
        span = self._span
        self._otel.detach(self._token)
        if self._open is not None:
            self._open.discard(span)
        if error is not None:
            _record_error(span, error, self._content)
        elif self._failed:
            self._record_failure(span)
        span.end()

    def set_result(self, output: str, failed: bool) -> None:
        """Record a tool call's outcome: the text the model gets, and whether it failed."""
        if failed:
            self._failed = True
        elif self._content:
            self._span.set_attribute("gen_ai.tool.call.result", output)

    def set_triggered(self, triggered: bool) -> None:
        """Record whether a guardrail tripped, as the conventions record an evaluation."""
        span = self._span
        span.set_attribute("tooluse.guardrail.triggered", triggered)
        verdict: dict[str, AttributeValue] = {
            "gen_ai.evaluation.name": self._guardrail,
            "gen_ai.evaluation.score.label": "fail" if triggered else "pass",
            "gen_ai.evaluation.score.value": 0.0 if triggered else 1.0,
        }
        span.set_attributes(verdict)
        span.add_event("gen_ai.evaluation.result", verdict)

    def _record_failure(self, span: Span) -> None:
        """A call that failed without raising: the model got an error message instead."""
        error = getattr(self._context, "error", None)
        if isinstance(error, BaseException):
            _record_error(span, error, self._content)
        else:  # a hand-built tool that reported failure on its own
            _set_error(span, OTHER, None)


class _ChatAttributes(NamedTuple):
    """A chat span's attributes, and what they were made from (compared by identity)."""

    model: object
    settings: object
    flags: tuple[bool, bool]  # JSON output, compaction
    name: str
    attributes: dict[str, AttributeValue]


class RunTracer:
    """Records one run's spans: the loop calls it at each step."""

    __slots__ = (
        "_agent",
        "_chat",
        "_chat_attributes",
        "_content",
        "_inner",
        "_model",
        "_names",
        "_otel",
        "_run",
        "_run_context",
        "_token",
        "_tools",
        "_tracer",
        "_workflow",
    )

    _token: Token[Context]  # set at run_start, with the run's span

    def __init__(
        self,
        tracer: Tracer,
        config: TracingConfig,
        *,
        include_content: bool,
        otel: _Otel | None = None,
    ) -> None:
        """Trace a run with `tracer`.

        Args:
            tracer: The OpenTelemetry tracer.
            config: The run's settings (`workflow_name`, the run-wide `model`).
            include_content: Whether content may be recorded.
            otel: The `opentelemetry` functions to call (None: those imported now).
        """
        self._tracer = tracer
        self._otel = otel or _otel or _import_otel()
        self._content = include_content
        self._workflow = config.workflow_name
        self._model = config.model
        self._run: Span | None = None
        self._agent: Span | None = None
        # The contexts a child of the run's span and of the agent's span start in, made
        # once a span rather than once a child.
        self._run_context: Context | None = None
        self._inner: Context | None = None
        self._chat: Span | None = None
        self._tools: set[Span] = set()
        # Resolved once a run: each model's name and provider, keyed by the model's id
        # (the model kept beside them, so that the id stays its own), and the last chat
        # span's attributes with what they were made from (the SDK copies them).
        self._names: dict[int, tuple[object, str, str]] = {}
        self._chat_attributes: _ChatAttributes | None = None

    def run_start(self, agent: AgentBase) -> None:
        """The run starts with `agent` (the run's span opens, under the current span).

        `agent` is not recorded here: its own span follows, at `agent_start`.
        """
        otel = self._otel
        attributes = {OPERATION: "invoke_workflow", "gen_ai.workflow.name": self._workflow}
        self._run = span = self._tracer.start_span(
            f"invoke_workflow {self._workflow}", kind=otel.internal, attributes=attributes
        )
        # Current for the run's length (run_end comes in the same context): what the user's
        # hooks and toolsets record, and the client's HTTP spans, nest in the run.
        self._run_context = self._inner = otel.set_span_in_context(span)
        self._token = otel.attach(self._run_context)

    def run_end(self, error: BaseException | None) -> None:
        """The run ended, with `error` if it raised (every open span closes)."""
        self._end_chat(error)
        self._end_agent(error)
        if self._run is not None:
            self._otel.detach(self._token)
            _end(self._run, error, self._content)
            self._run = self._run_context = self._inner = None

    def agent_start(self, agent: AgentBase) -> None:
        """`agent` takes over (its `invoke_agent` span opens; the previous one closes)."""
        self._end_agent(None)
        model = self._model or getattr(agent, "model", None)
        name, provider = self._naming(model)
        attributes: dict[str, AttributeValue] = {
            OPERATION: "invoke_agent",
            PROVIDER: provider,
            AGENT_NAME: str(agent.name),
            REQUEST_MODEL: name,
        }
        description = getattr(agent, "handoff_description", None)
        if isinstance(description, str) and description:
            attributes["gen_ai.agent.description"] = description
        self._agent = self._tracer.start_span(
            f"invoke_agent {agent.name}",
            context=self._run_context,
            kind=self._otel.internal,
            attributes=attributes,
        )
        self._inner = self._otel.set_span_in_context(self._agent)

    def handoff(self, from_agent: AgentBase, to_agent: AgentBase) -> None:
        """The conversation passes from one agent to another (an event on the first's span)."""
        if self._agent is not None:
            self._agent.add_event(
                "handoff",
                {
                    "tooluse.handoff.from_agent": from_agent.name,
                    "tooluse.handoff.to_agent": to_agent.name,
                },
            )

    def llm_start(
        self, agent: AgentBase, model: Model, request: ModelRequest, *, compaction: bool = False
    ) -> None:
        """A model call (one attempt) starts.

        `agent` is not recorded: the span nests in the agent's span, which names it.
        `compaction`: the call summarises the conversation for the run's context policy
        (`tooluse.compaction` is set on its span).
        """
        self._end_chat(None)  # an attempt left open by a loop that never said how it ended
        name, attributes = self._chat_span_attributes(model, request, compaction)
        span = self._tracer.start_span(
            f"chat {name}",
            context=self._inner,
            kind=self._otel.client,
            attributes=attributes,
        )
        if self._content and span.is_recording():
            if request.instructions:
                instructions = [{"type": "text", "content": request.instructions}]
                span.set_attribute("gen_ai.system_instructions", _json(instructions))
            messages = [_message(item) for item in request.input]
            span.set_attribute("gen_ai.input.messages", _json(messages))
        self._chat = span

    def llm_end(self, response: ModelResponse) -> None:
        """The model call's response arrived."""
        span, self._chat = self._chat, None
        if span is None:
            return
        if span.is_recording():
            finish = _finish_reason(response)
            span.set_attributes(_response_attributes(response, finish))
            if self._content:
                parts = [part for item in response.output for part in _message(item)["parts"]]
                output = [{"role": "assistant", "parts": parts, "finish_reason": finish}]
                span.set_attribute("gen_ai.output.messages", _json(output))
        if response.status == "failed":
            code = (response.reason or "").split(":", 1)[0].strip()
            _set_error(span, code or OTHER, response.reason if self._content else None)
        span.end()

    def llm_error(self, error: BaseException, retry_in: float | None) -> None:
        """The model call failed; `retry_in` seconds until it is tried again, or None."""
        span, self._chat = self._chat, None
        if span is None:
            return
        if retry_in is not None:
            span.set_attribute("tooluse.retry.delay_seconds", retry_in)
        _end(span, error, self._content)

    def tool_call(
        self,
        context: RunContextWrapper[Any],
        agent: AgentBase,
        tool: object,
        call_id: str | None = None,
    ) -> SpanScope:
        """A local tool call's span, current inside its block (a nested run nests in it).

        Args:
            context: The call's `ToolContext` (its name, id and arguments), or the run's
                context for a tool the run answers itself (computer, shell).
            agent: The agent whose tool it is (not recorded: the span nests in the agent's
                span, which names it).
            tool: The tool.
            call_id: The call's id, when `context` does not carry it.

        Returns:
            The scope: enter it around the call, and give it the call's result.
        """
        name = str(
            getattr(context, "tool_name", None) or getattr(tool, "name", type(tool).__name__)
        )
        attributes: dict[str, AttributeValue] = {
            OPERATION: "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.type": "function",  # every tool the run calls runs on this side
        }
        call_id = getattr(context, "tool_call_id", None) or call_id
        if call_id:
            attributes["gen_ai.tool.call.id"] = str(call_id)
        description = getattr(tool, "description", None)
        if isinstance(description, str) and description:
            attributes["gen_ai.tool.description"] = description
        arguments = getattr(context, "tool_arguments", None)
        if self._content and isinstance(arguments, str):
            attributes["gen_ai.tool.call.arguments"] = arguments
        span = self._tracer.start_span(
            f"execute_tool {name}",
            context=self._inner,
            kind=self._otel.internal,
            attributes=attributes,
        )
        self._tools.add(span)
        return SpanScope(
            span, self._otel, include_content=self._content, context=context, open_spans=self._tools
        )

    def guardrail(self, kind: str, name: str, agent: AgentBase) -> SpanScope:
        """A guardrail's span (`kind`: input, output, tool_input, tool_output).

        A tool's guardrail nests in the span of the call it guards, when that is current.
        """
        otel = self._otel
        under = self._inner
        current = otel.current_span()
        if kind.startswith("tool_") and current in self._tools:
            under = otel.set_span_in_context(current)
        attributes = {
            OPERATION: GUARDRAIL_OPERATION,
            AGENT_NAME: str(agent.name),
            "tooluse.guardrail.kind": kind,
            "tooluse.guardrail.name": name,
        }
        span = self._tracer.start_span(
            f"{GUARDRAIL_OPERATION} {name}",
            context=under,
            kind=otel.internal,
            attributes=attributes,
        )
        return SpanScope(span, otel, include_content=self._content, guardrail=name)

    def _naming(self, model: str | Model | None) -> tuple[str, str]:
        """A model's name and `gen_ai.provider.name`, resolved once a run."""
        named = self._names.get(id(model))
        if named is None or named[0] is not model:
            named = self._names[id(model)] = (model, _model_name(model), _provider(model))
        return named[1], named[2]

    def _chat_span_attributes(
        self, model: Model, request: ModelRequest, compaction: bool
    ) -> tuple[str, dict[str, AttributeValue]]:
        """A chat span's name and attributes: made again only when what they say changed."""
        settings, json_output = request.settings, request.output_schema is not None
        made = self._chat_attributes
        if (
            made is not None
            and made.model is model
            and made.settings is settings
            and made.flags == (json_output, compaction)
        ):
            return made.name, made.attributes
        name, provider = self._naming(model)
        attributes: dict[str, AttributeValue] = {
            OPERATION: "chat",
            PROVIDER: provider,
            REQUEST_MODEL: name,
            "gen_ai.output.type": "json" if json_output else "text",
            **_settings_attributes(settings),
        }
        if compaction:
            attributes["tooluse.compaction"] = True
        self._chat_attributes = _ChatAttributes(
            model, settings, (json_output, compaction), name, attributes
        )
        return name, attributes

    def _end_chat(self, error: BaseException | None) -> None:
        span, self._chat = self._chat, None
        if span is not None:
            _end(span, error, self._content)

    def _end_agent(self, error: BaseException | None) -> None:
        span, self._agent = self._agent, None
        self._inner = self._run_context
        if span is not None:
            _end(span, error, self._content)


def _end(span: Span, error: BaseException | None, include_content: bool) -> None:
    if error is not None:
        _record_error(span, error, include_content)
    span.end()


def _record_error(span: Span, error: BaseException, include_content: bool) -> None:
    """Status ERROR and `error.type`; the message and traceback only with content on."""
    if include_content:  # an exception's message may quote the data it failed on
        span.record_exception(error)
    _set_error(span, error_type(error), str(error) if include_content else None)


def _set_error(span: Span, kind: str, description: str | None) -> None:
    from opentelemetry.trace import Status, StatusCode  # noqa: PLC0415 - imported by run_tracer

    span.set_attribute(ERROR_TYPE, kind)
    span.set_status(Status(StatusCode.ERROR, description))


def error_type(error: BaseException) -> str:
    """An exception's class as `error.type`: its public module path, then its name.

    Args:
        error: The exception.

    Returns:
        E.g. `TimeoutError`, `openai.RateLimitError` (from `openai._exceptions`),
        `tooluse.exceptions.MaxTurnsExceeded`.
    """
    if isinstance(error, ModelTransportError) and error.__cause__ is not None:
        error = error.__cause__  # the SDK's own error a model mapped: the more telling
    cls = type(error)
    if cls.__module__ == "builtins":
        return cls.__qualname__
    public: list[str] = []
    for part in cls.__module__.split("."):
        if part.startswith("_"):  # where a private module starts, the package exports it
            break
        public.append(part)
    return ".".join([*public, cls.__qualname__])


def _model_name(model: str | Model | None) -> str:
    """What a model is called: a name as given, or the name the run's usage entries use."""
    if model is None:
        return get_default_model()
    if isinstance(model, str):
        return model
    return name_of(model)


_NAMED_PROVIDERS = {"openai": "openai", "anthropic": "anthropic", "gemini": "gcp.gemini"}
"""`gen_ai.provider.name` of each prefix `MultiProvider` knows."""


def _provider(model: object) -> str:
    """`gen_ai.provider.name` of a model or a model's name.

    A model's `provider_name` ("openai" for OpenAI models); for a name, its prefix's
    (`"anthropic/..."`, `"gemini/..."`; a bare name is OpenAI's); else the conventions'
    `_OTHER`.
    """
    if model is None:
        return "openai"
    if isinstance(model, str):
        prefix = model.partition("/")[0] if "/" in model else "openai"
        return _NAMED_PROVIDERS.get(prefix, OTHER)
    named = getattr(model, "provider_name", None)
    return named if isinstance(named, str) and named else OTHER


def _settings_attributes(settings: ModelSettings) -> dict[str, AttributeValue]:
    """The request settings the conventions name, those that are set."""
    extra = settings.extra_args
    stop = extra.get("stop")
    given: dict[str, AttributeValue | None] = {
        "gen_ai.request.temperature": settings.temperature,
        "gen_ai.request.top_p": settings.top_p,
        "gen_ai.request.max_tokens": settings.max_tokens,
        "gen_ai.request.frequency_penalty": settings.frequency_penalty,
        "gen_ai.request.presence_penalty": settings.presence_penalty,
        "gen_ai.request.seed": extra.get("seed") if isinstance(extra.get("seed"), int) else None,
        "gen_ai.request.stop_sequences": [stop] if isinstance(stop, str) else None,
    }
    if isinstance(stop, list) and all(isinstance(s, str) for s in stop):  # pyright: ignore[reportUnknownVariableType]
        given["gen_ai.request.stop_sequences"] = list(stop)  # pyright: ignore[reportUnknownArgumentType]
    return {key: value for key, value in given.items() if value is not None}


_INCOMPLETE = {"max_output_tokens": "length", "max_tokens": "length"}


def _finish_reason(response: ModelResponse) -> str:
    """Why the model stopped: `tool_calls`, `stop`, `length`, `content_filter`, or `error`."""
    if response.status == "failed":
        return "error"
    if response.status == "incomplete":
        reason = response.reason or "length"
        return _INCOMPLETE.get(reason, reason)

    asks = any(
        item.get("type") == "function_call" or item.get("type") in LOCAL_ITEM_TYPES
        for item in response.output
    )
    return "tool_calls" if asks else "stop"


def _response_attributes(response: ModelResponse, finish: str) -> dict[str, AttributeValue]:
    usage = response.usage
    attributes: dict[str, AttributeValue] = {
        "gen_ai.response.finish_reasons": [finish],
        "gen_ai.usage.input_tokens": usage.input_tokens,
        "gen_ai.usage.output_tokens": usage.output_tokens,
    }
    if response.response_id:
        attributes["gen_ai.response.id"] = response.response_id
    if response.model:
        attributes["gen_ai.response.model"] = response.model
    if usage.input_tokens_details.cached_tokens:
        attributes["gen_ai.usage.cache_read.input_tokens"] = (
            usage.input_tokens_details.cached_tokens
        )
    if usage.output_tokens_details.reasoning_tokens:
        reasoning = usage.output_tokens_details.reasoning_tokens
        attributes["gen_ai.usage.reasoning.output_tokens"] = reasoning
    return attributes


def _is_part(value: object) -> TypeGuard[Item]:
    return isinstance(value, dict)


def _output_text(output: object) -> object:
    """A tool's output for a span: images and files as a line each, not their data."""
    if isinstance(output, list):
        parts = cast("list[object]", output)
        return parts_text([part for part in parts if _is_part(part)])
    return output


class _Message(TypedDict):
    """A message as the conventions record it (`gen_ai.input.messages`, ...)."""

    role: str
    parts: list[dict[str, object]]


def _message(item: Item) -> _Message:
    """An item as the conventions' message: `{"role": ..., "parts": [...]}` (content mode)."""
    kind = item.get("type", "message")
    if kind == "function_call":
        asked: dict[str, object] = {
            "type": "tool_call",
            "id": item.get("call_id"),
            "name": item.get("name"),
            "arguments": item.get("arguments"),
        }
        return {"role": "assistant", "parts": [asked]}
    if kind == "function_call_output":
        answer: dict[str, object] = {
            "type": "tool_call_response",
            "id": item.get("call_id"),
            "response": _output_text(item.get("output")),
        }
        return {"role": "tool", "parts": [answer]}
    if kind != "message":  # reasoning, hosted tool calls, ...: named, as they are
        return {"role": "assistant", "parts": [{"type": kind, "content": item}]}
    parts: list[dict[str, object]] = _text_parts(item.get("content"))
    calls: list[dict[str, Any]] = item.get("tool_calls") or []  # a Chat assistant message
    for call in calls:
        function: dict[str, Any] = call.get("function") or {}
        name, arguments = function.get("name"), function.get("arguments")
        parts.append(
            {"type": "tool_call", "id": call.get("id"), "name": name, "arguments": arguments}
        )
    if item.get("role") == "tool":  # a Chat Completions tool message
        result = item.get("content")
        parts = [{"type": "tool_call_response", "id": item.get("tool_call_id"), "response": result}]
    return {"role": item.get("role", "user"), "parts": parts}


def _text_parts(content: object) -> list[dict[str, object]]:
    if isinstance(content, str):
        return [{"type": "text", "content": content}]
    pieces = cast("list[object]", content) if isinstance(content, list) else []
    parts: list[dict[str, object]] = []
    for piece in pieces:
        text = cast("dict[str, object]", piece).get("text") if isinstance(piece, dict) else None
        if isinstance(text, str):
            parts.append({"type": "text", "content": text})
        else:
            parts.append({"type": "part", "content": piece})
    return parts


def _json(value: object) -> str:
    # Span attributes hold no nested values: the conventions allow JSON text instead.
    return json.dumps(value, ensure_ascii=False, default=str)
