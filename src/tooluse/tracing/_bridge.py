"""The OpenTelemetry span processor that feeds openai-agents' trace processors.

A span with no parent in this process (a `trace(...)` block, a run outside any, a
span of the application's own) is a *trace*: processors get `on_trace_start` and
`on_trace_end` with a `Trace`, the block's own object when it is a `trace(...)` block.
Every span under one is a `Span` whose `span_data` is read off the conventions'
attributes:

    invoke_agent     agent        name, handoffs (from its `handoff` events)
    chat             generation   model, model_config, usage; input and output with content
    execute_tool     function     name; input and output with content
    apply_guardrail  guardrail    name, triggered
    invoke_workflow  custom       `task` (a run inside a trace), as openai-agents 0.24
    anything else    custom       name, data (a `custom_span`'s own data)

Content stays out as it does in the OTel spans (`trace_include_sensitive_data`).
A processor that raises is logged and the others still run. Imported only when a
processor is registered: it imports OpenTelemetry's SDK.
"""

from __future__ import annotations

import json
import logging
import threading
import weakref
from datetime import datetime, timezone
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.trace import StatusCode

from ..exceptions import UserError
from ._api import CustomSpan, Trace
from ._records import Span, SpanData, span_key, trace_key
from ._registry import block_of, claim, processors

if TYPE_CHECKING:
    from opentelemetry.context import Context
    from opentelemetry.sdk.trace import Span as SdkSpan
    from opentelemetry.util.types import Attributes

__all__ = ["ProcessorBridge", "attach_global", "recording_provider"]

logger = logging.getLogger("tooluse.tracing")


class ProcessorBridge(SpanProcessor):
    """Tells the registered trace processors of each span a provider records."""

    def __init__(self) -> None:
        """A bridge with no span open."""
        self._traces: dict[int, Trace] = {}
        self._spans: dict[int, Span[SpanData]] = {}

    def on_start(self, span: SdkSpan, parent_context: Context | None = None) -> None:
        """Tell the processors a trace or a span started."""
        if not processors():  # all unregistered: the bridge stays on the provider, idle
            return
        context = span.get_span_context()
        block = claim(context.span_id)
        parent = span.parent
        if parent is None or parent.is_remote:
            started = block if isinstance(block, Trace) else _trace_of(span)
            self._traces[context.span_id] = started
            _tell("on_trace_start", started)
            return
        parent_id = None if parent.span_id in self._traces else span_key(parent.span_id)
        view: Span[SpanData] = Span(
            trace_key(context.trace_id),
            span_key(context.span_id),
            parent_id,
            span.name,
            _span_data(span, context.span_id),
            _iso(span.start_time),
        )
        self._spans[context.span_id] = view
        _tell("on_span_start", view)

    def on_end(self, span: ReadableSpan) -> None:
        """Tell the processors a trace or a span ended."""
        context = span.get_span_context()
        if context is None:
            return
        ended = self._traces.pop(context.span_id, None)
        if ended is not None:
            _tell("on_trace_end", ended)
            return
        view = self._spans.pop(context.span_id, None)
        if view is None:  # started before the bridge was on the provider
            return
        view.finish_with(_span_data(span, context.span_id), _iso(span.end_time), _error(span))
        _tell("on_span_end", view)

    def shutdown(self) -> None:
        """Nothing to release: processors shut down at exit (`atexit`), once each."""

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        """Flush every processor (the provider's `force_flush` calls this).

        Returns:
            True.
        """
        del timeout_millis
        _tell_all("force_flush")
        return True


_bridge = ProcessorBridge()
_lock = threading.Lock()
_attached: weakref.WeakSet[object] = weakref.WeakSet()
"""The providers the bridge is on."""
_own: list[TracerProvider] = []
"""tooluse's own provider, made when processors need one and the application set none."""


def recording_provider(trace: ModuleType, provider: object) -> object:
    """The provider a run or a block records on while processors are registered.

    The one given, else the global one, with the bridge on it; when the application
    set none, tooluse's own, which feeds only the processors.

    Args:
        trace: The `opentelemetry.trace` module.
        provider: The run's `tracer_provider`, or None.

    Returns:
        The provider.
    """
    if provider is None or isinstance(provider, trace.ProxyTracerProvider):
        provider = trace.get_tracer_provider()
    if type(provider) is trace.ProxyTracerProvider:  # the application set none
        return _own_provider()
    if not isinstance(provider, trace.NoOpTracerProvider):  # one that records nothing on purpose
        _attach(provider)
    return provider


def attach_global(where: str) -> None:
    """Put the bridge on the global provider now, if the application set one.

    Args:
        where: The function registering processors, for the error.

    Raises:
        UserError: The global provider takes no span processor.
    """
    from opentelemetry import trace  # noqa: PLC0415 - the SDK imported it already

    provider = trace.get_tracer_provider()
    if isinstance(provider, (trace.ProxyTracerProvider, trace.NoOpTracerProvider)):
        return
    if not callable(getattr(provider, "add_span_processor", None)):
        raise UserError(
            f"{where}: the global tracer provider ({type(provider).__name__}) has no "
            "add_span_processor, so tooluse cannot feed trace processors from its spans; "
            "set OpenTelemetry's SDK TracerProvider (opentelemetry.sdk.trace) instead"
        )
    _attach(provider)


def _attach(provider: object) -> None:
    if provider in _attached:
        return
    with _lock:
        if provider in _attached:
            return
        add = getattr(provider, "add_span_processor", None)
        if callable(add):
            add(_bridge)
        else:
            logger.warning(
                "trace processors see none of the spans of %s: it has no add_span_processor",
                type(provider).__name__,
            )
        _attached.add(provider)


def _own_provider() -> TracerProvider:
    if not _own:
        with _lock:
            if not _own:
                provider = TracerProvider()
                provider.add_span_processor(_bridge)
                _attached.add(provider)
                _own.append(provider)
    return _own[0]


def _tell(method: str, item: Trace | Span[SpanData]) -> None:
    for processor in processors():
        _call(processor, method, item)


def _tell_all(method: str) -> None:
    for processor in processors():
        _call(processor, method)


def _call(processor: object, method: str, *arguments: object) -> None:
    """Call one processor; one that raises is logged, and the others and the run go on."""
    try:
        getattr(processor, method)(*arguments)
    except Exception:
        logger.exception("trace processor %s raised in %s", type(processor).__name__, method)


def _trace_of(span: SdkSpan) -> Trace:
    """A `Trace` for a root span not a `trace(...)` block's: a run's, or the application's."""
    attributes = span.attributes or {}
    name = str(attributes.get("gen_ai.workflow.name") or span.name)
    group = attributes.get("gen_ai.conversation.id")
    made = Trace(name, trace_key(span.get_span_context().trace_id), None, None, disabled=False)
    made.group_id = str(group) if group is not None else None
    return made


def _iso(nanoseconds: int | None) -> str | None:
    if nanoseconds is None:
        return None
    return datetime.fromtimestamp(nanoseconds / 1e9, tz=timezone.utc).isoformat()


def _span_data(span: ReadableSpan, span_id: int) -> SpanData:
    attributes = dict(span.attributes or {})
    operation = attributes.get("gen_ai.operation.name")
    if operation == "invoke_agent":
        return _agent(span, attributes)
    if operation == "chat":
        return _generation(attributes)
    if operation == "execute_tool":
        return SpanData(
            "function",
            {
                "name": attributes.get("gen_ai.tool.name"),
                "input": attributes.get("gen_ai.tool.call.arguments"),
                "output": attributes.get("gen_ai.tool.call.result"),
                "mcp_data": None,
            },
        )
    if operation == "apply_guardrail":
        triggered = bool(attributes.get("tooluse.guardrail.triggered", False))
        return SpanData(
            "guardrail", {"name": attributes.get("tooluse.guardrail.name"), "triggered": triggered}
        )
    if operation == "invoke_workflow":
        workflow = attributes.get("gen_ai.workflow.name")
        return SpanData(
            "custom", {"name": "task", "data": {"sdk_span_type": "task", "name": workflow}}
        )
    block = block_of(span_id)
    data = dict(block.data) if isinstance(block, CustomSpan) else _plain(attributes)
    return SpanData("custom", {"name": span.name, "data": data})


def _agent(span: ReadableSpan, attributes: dict[str, Any]) -> SpanData:
    handoffs = [
        str((event.attributes or {}).get("tooluse.handoff.to_agent"))
        for event in span.events
        if event.name == "handoff"
    ]
    name = attributes.get("gen_ai.agent.name", span.name)
    return SpanData(
        "agent", {"name": name, "handoffs": handoffs or None, "tools": None, "output_type": None}
    )


_REQUEST = "gen_ai.request."


def _generation(attributes: dict[str, Any]) -> SpanData:
    settings = {
        key.removeprefix(_REQUEST): _value(value)
        for key, value in attributes.items()
        if key.startswith(_REQUEST) and key != "gen_ai.request.model"
    }
    usage = None
    if "gen_ai.usage.input_tokens" in attributes:
        usage = {
            "input_tokens": attributes["gen_ai.usage.input_tokens"],
            "output_tokens": attributes.get("gen_ai.usage.output_tokens", 0),
        }
    return SpanData(
        "generation",
        {
            "input": _loaded(attributes.get("gen_ai.input.messages")),
            "output": _loaded(attributes.get("gen_ai.output.messages")),
            "model": attributes.get("gen_ai.request.model"),
            "model_config": settings,
            "usage": usage,
        },
    )


def _loaded(text: object) -> object:
    """Messages recorded as JSON (content on), as values again; None when not recorded."""
    return json.loads(text) if isinstance(text, str) else None


def _value(value: object) -> object:
    if isinstance(value, tuple):  # an attribute's sequence: a list, as JSON has
        return list(cast("tuple[object, ...]", value))
    return value


def _plain(attributes: Attributes) -> dict[str, object]:
    return {key: _value(value) for key, value in (attributes or {}).items()}


def _error(span: ReadableSpan) -> dict[str, Any] | None:
    if span.status.status_code is not StatusCode.ERROR:
        return None
    kind = (span.attributes or {}).get("error.type")
    message = span.status.description or (str(kind) if kind is not None else "error")
    return {"message": message, "data": {"error.type": kind} if kind is not None else None}
