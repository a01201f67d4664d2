"""Trace processors and exporters that ship with tooluse, as in openai-agents' module.

`BatchTraceProcessor` batches for any `TracingExporter`; `ConsoleSpanExporter` prints.
openai-agents' default processor, which sends traces to OpenAI's dashboard
(`BackendSpanExporter`, `default_exporter()`, `default_processor()`), has no
counterpart: importing those names raises an `ImportError` that says what to use, as
tooluse sends nothing anywhere unless you give it an exporter.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
from typing import TYPE_CHECKING, Any

from ..exceptions import UserError
from .processor_interface import TracingExporter, TracingProcessor

if TYPE_CHECKING:
    from ._api import Trace
    from ._records import Span

__all__ = ["BatchTraceProcessor", "ConsoleSpanExporter"]

logger = logging.getLogger("tooluse.tracing")


class BatchTraceProcessor(TracingProcessor):
    """Queues traces (as they start) and spans (as they end); exports them in batches.

    A worker thread, started with the first item, exports every `schedule_delay`
    seconds, or as soon as the queue holds `export_trigger_ratio` of its size. A full
    queue drops what comes (logged); an exporter that raises loses its batch (logged),
    not the next ones. `shutdown()` (called at exit) exports what is queued.

    ```python
    processor = BatchTraceProcessor(MyExporter())
    set_trace_processors([processor])
    ```
    """

    def __init__(
        self,
        exporter: TracingExporter,
        max_queue_size: int = 8192,
        max_batch_size: int = 128,
        schedule_delay: float = 5.0,
        export_trigger_ratio: float = 0.7,
    ) -> None:
        """Batch for `exporter`.

        Args:
            exporter: Where batches go (its `export(items)`).
            max_queue_size: Items kept waiting at most; more are dropped.
            max_batch_size: Items in one `export` call at most.
            schedule_delay: Seconds between exports.
            export_trigger_ratio: How full the queue gets (0 to 1) before it is exported
                without waiting for the delay.

        Raises:
            UserError: An argument is out of its range, or `exporter` has no `export`.
        """
        _check_arguments(
            exporter, max_queue_size, max_batch_size, schedule_delay, export_trigger_ratio
        )
        self._exporter = exporter
        self._queue: queue.Queue[Trace | Span[Any]] = queue.Queue(maxsize=max_queue_size)
        self._max_queue_size = max_queue_size
        self._max_batch_size = max_batch_size
        self._schedule_delay = schedule_delay
        self._trigger = max(1, int(max_queue_size * export_trigger_ratio))
        self._wake = threading.Event()
        self._stopped = threading.Event()
        self._worker: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._export_lock = threading.Lock()

    def on_trace_start(self, trace: Trace) -> None:
        """Queue the trace."""
        self._put(trace)

    def on_trace_end(self, trace: Trace) -> None:
        """Nothing: the trace was queued as it started."""

    def on_span_start(self, span: Span[Any]) -> None:
        """Nothing: a span is queued as it ends, whole."""

    def on_span_end(self, span: Span[Any]) -> None:
        """Queue the span."""
        self._put(span)

    def shutdown(self, timeout: float | None = None) -> None:
        """Stop the worker, once it exported what is queued.

        Args:
            timeout: Seconds to wait for it at most (None: as long as it takes).
        """
        self._stopped.set()
        self._wake.set()
        worker = self._worker
        if worker is None:
            self._export_queued()
            return
        worker.join(timeout)
        if worker.is_alive():
            logger.warning(
                "BatchTraceProcessor: shutdown timed out after %s s; still exporting", timeout
            )

    def force_flush(self) -> None:
        """Export everything queued now, in batches, before returning."""
        self._export_queued()

    def _put(self, item: Trace | Span[Any]) -> None:
        if self._stopped.is_set():
            logger.warning("BatchTraceProcessor: shut down; dropping %r", item)
            return
        try:
            self._queue.put_nowait(item)
        except queue.Full:
            logger.warning(
                "BatchTraceProcessor: queue full (max_queue_size=%d); dropping %r",
                self._max_queue_size,
                item,
            )
            return
        self._ensure_worker()
        if self._queue.qsize() >= self._trigger:
            self._wake.set()

    def _ensure_worker(self) -> None:
        if self._worker is not None:
            return
        with self._start_lock:
            if self._worker is None:
                # A daemon: an application that never shuts down still exits (atexit exports).
                self._worker = threading.Thread(
                    target=self._work, name="tooluse-trace-batch", daemon=True
                )
                self._worker.start()

    def _work(self) -> None:
        while not self._stopped.is_set():
            self._wake.wait(self._schedule_delay)
            self._wake.clear()
            self._export_queued()
        self._export_queued()

    def _export_queued(self) -> None:
        with self._export_lock:
            while batch := self._next_batch():
                self._export(batch)

    def _export(self, batch: list[Trace | Span[Any]]) -> None:
        try:
            self._exporter.export(batch)
        except Exception:
            logger.exception(
                "BatchTraceProcessor: %s failed; dropping a batch of %d",
                type(self._exporter).__name__,
                len(batch),
            )

    def _next_batch(self) -> list[Trace | Span[Any]]:
        # Only this thread takes from the queue (under the export lock): qsize is exact.
        count = min(self._queue.qsize(), self._max_batch_size)
        return [self._queue.get_nowait() for _ in range(count)]


class ConsoleSpanExporter(TracingExporter):
    """Prints each trace and span of a batch as a line of JSON (its `export()` payload)."""

    def export(self, items: list[Trace | Span[Any]]) -> None:
        """Print the batch, one item a line.

        Args:
            items: The traces and spans.
        """
        for item in items:
            print(json.dumps(item.export(), default=str))


_TO_OPENAI = frozenset({"BackendSpanExporter", "default_exporter", "default_processor"})


def __getattr__(name: str) -> object:
    if name in _TO_OPENAI:
        raise ImportError(
            f"tooluse.tracing.processors.{name}: tooluse never sends traces to OpenAI's "
            "dashboard, so openai-agents' default exporter has no counterpart; give "
            "BatchTraceProcessor a TracingExporter of your own (or ConsoleSpanExporter), "
            "or put an OpenTelemetry exporter on your tracer provider (docs/tracing.md)",
            name=name,
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _check_arguments(
    exporter: object, max_queue_size: int, max_batch_size: int, delay: float, ratio: float
) -> None:
    problems: list[str] = []
    if not callable(getattr(exporter, "export", None)):
        problems.append(
            f"exporter is {type(exporter).__name__}, with no export(items): give a TracingExporter"
        )
    if max_queue_size < 1:
        problems.append(f"max_queue_size={max_queue_size!r} must be 1 or more")
    if max_batch_size < 1:
        problems.append(f"max_batch_size={max_batch_size!r} must be 1 or more")
    if not delay > 0:
        problems.append(f"schedule_delay={delay!r} must be more than 0 seconds")
    if not 0 < ratio <= 1:
        problems.append(f"export_trigger_ratio={ratio!r} must be more than 0 and at most 1")
    if problems:
        raise UserError("BatchTraceProcessor(): " + "; ".join(problems))
