"""Tracing: OpenTelemetry spans for runs, and openai-agents' trace API on top of them.

Spans are made only when a tracer provider is configured (`_tracer.py`), or when trace
processors are registered (`_processing.py`, `_bridge.py`). openai-agents' names live
here as in `agents.tracing`: `trace`, `custom_span`, `Trace`, `Span`, `SpanData`,
`TracingProcessor`, `set_trace_processors`, `add_trace_processor`; its modules
`tooluse.tracing.processor_interface` (`TracingExporter`) and
`tooluse.tracing.processors` (`BatchTraceProcessor`) too. Importing this package
imports no OpenTelemetry.

Imports: `core`, `exceptions`, `tools`, `models`, `agents`.
"""

from ._api import (
    CustomSpan,
    Trace,
    custom_span,
    gen_span_id,
    gen_trace_id,
    set_tracing_disabled,
    set_tracing_export_api_key,
    trace,
)
from ._processing import add_trace_processor, set_trace_processors
from ._records import Span, SpanData
from .processor_interface import TracingExporter, TracingProcessor

__all__ = [
    "CustomSpan",
    "Span",
    "SpanData",
    "Trace",
    "TracingExporter",
    "TracingProcessor",
    "add_trace_processor",
    "custom_span",
    "gen_span_id",
    "gen_trace_id",
    "set_trace_processors",
    "set_tracing_disabled",
    "set_tracing_export_api_key",
    "trace",
]
