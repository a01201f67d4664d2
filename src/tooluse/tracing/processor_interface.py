"""openai-agents' trace processor interface: what watches traces and spans as they happen.

A `TracingProcessor` registered with `set_trace_processors` or `add_trace_processor`
is told when each trace and span tooluse records starts and ends; a `TracingExporter`
is what a `BatchTraceProcessor` hands finished traces and spans to, in batches.

Both are plain classes: defining one needs no OpenTelemetry; registering a processor
does (tooluse feeds processors from its OpenTelemetry spans).
"""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._api import Trace
    from ._records import Span

__all__ = ["TracingExporter", "TracingProcessor"]


class TracingProcessor(abc.ABC):
    """Told when each trace and span starts and ends.

    tooluse calls the methods synchronously, from the thread that starts or ends the
    span (a sync tool's worker thread included): keep them quick and thread-safe. One
    that raises is logged (`tooluse.tracing` logger) and the run goes on.
    """

    @abc.abstractmethod
    def on_trace_start(self, trace: Trace) -> None:
        """A trace started: a `trace(...)` block, or a run outside any.

        Args:
            trace: The trace (`trace_id`, `name`, `group_id`, `metadata`, `export()`).
        """

    @abc.abstractmethod
    def on_trace_end(self, trace: Trace) -> None:
        """A trace ended (the same object `on_trace_start` got).

        Args:
            trace: The trace.
        """

    @abc.abstractmethod
    def on_span_start(self, span: Span[Any]) -> None:
        """A span started under a trace (an agent, a model call, a tool call, ...).

        Args:
            span: The span (`span_id`, `parent_id`, `span_data`, `export()`).
        """

    @abc.abstractmethod
    def on_span_end(self, span: Span[Any]) -> None:
        """A span ended (the same object `on_span_start` got, now with its end and data).

        Args:
            span: The span.
        """

    def shutdown(self) -> None:  # noqa: B027 - optional: most processors hold nothing
        """Release what the processor holds, exporting what is still queued.

        Called for every registered processor when the process exits.
        """

    def force_flush(self) -> None:  # noqa: B027 - optional: most processors queue nothing
        """Export what is queued now (the tracer provider's `force_flush` calls it)."""


class TracingExporter(abc.ABC):
    """Sends finished traces and spans somewhere: a file, a log, your own backend."""

    @abc.abstractmethod
    def export(self, items: list[Trace | Span[Any]]) -> None:
        """Send a batch.

        Args:
            items: Traces (as they started) and spans (as they ended), oldest first;
                each one's `export()` gives its payload.
        """
