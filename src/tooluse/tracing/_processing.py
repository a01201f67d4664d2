"""openai-agents' `set_trace_processors` and `add_trace_processor`, on tooluse's OTel spans.

While processors are registered, every tracer provider tooluse records on gets one
more span processor, the bridge (`_bridge.py`), which tells them of each trace and
span: the global provider (or `RunConfig.tracer_provider`), or, when the application
set none, a provider of tooluse's own that feeds only the processors. Nothing is sent
to OpenAI.

Registering needs `opentelemetry-api` and `opentelemetry-sdk`; with no processor
registered nothing here imports them.
"""

from __future__ import annotations

import atexit
import importlib
import logging
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..exceptions import UserError
from ._registry import Processor, processors, replace, set_router

if TYPE_CHECKING:
    from .processor_interface import TracingProcessor

__all__ = ["add_trace_processor", "set_trace_processors"]

logger = logging.getLogger("tooluse.tracing")

INSTALL = "pip install 'tooluse[otel]' opentelemetry-sdk"
"""What registering a processor needs installed."""
_METHODS = ("on_trace_start", "on_trace_end", "on_span_start", "on_span_end")
_lock = threading.Lock()
_exit_hook: list[bool] = []


def set_trace_processors(processors: Iterable[TracingProcessor]) -> None:
    """Replace the trace processors: these, and only these, see traces and spans from now.

    tooluse has no default processor (openai-agents' sends traces to OpenAI's
    dashboard; tooluse sends nothing anywhere), so this and `add_trace_processor`
    differ only in whether the processors registered before stay. An empty list
    stops them all.

    Args:
        processors: The processors (`TracingProcessor`s).

    Raises:
        UserError: One is not a processor; OpenTelemetry's SDK is not installed; or
            the global tracer provider cannot take a span processor.
    """
    given = list(processors)
    for index, processor in enumerate(given):
        _check(f"set_trace_processors(): processors[{index}]", processor)
    _register(tuple(given), "set_trace_processors()")


def add_trace_processor(processor: TracingProcessor) -> None:
    """Add a trace processor after those registered: it sees traces and spans from now.

    Args:
        processor: The processor (a `TracingProcessor`).

    Raises:
        UserError: It is not a processor; OpenTelemetry's SDK is not installed; or the
            global tracer provider cannot take a span processor.
    """
    _check("add_trace_processor(): processor", processor)
    _register((*processors(), processor), "add_trace_processor()")


def _check(where: str, processor: object) -> None:
    missing = [name for name in _METHODS if not callable(getattr(processor, name, None))]
    if missing:
        raise UserError(
            f"{where} is {type(processor).__name__}, with no {', '.join(missing)}: give a "
            "TracingProcessor (tooluse.tracing), e.g. BatchTraceProcessor(exporter) "
            "from tooluse.tracing.processors"
        )


def _register(chosen: tuple[Processor, ...], where: str) -> None:
    if not chosen:
        replace(chosen)
        return
    try:
        importlib.import_module("opentelemetry.sdk.trace")  # only when registering
    except ImportError as error:
        raise UserError(
            f"{where}: trace processors are fed from OpenTelemetry spans, which needs "
            f"opentelemetry-api and opentelemetry-sdk: {INSTALL}"
        ) from error
    from ._bridge import attach_global, recording_provider  # noqa: PLC0415 - imports the SDK

    attach_global(where)
    with _lock:
        set_router(recording_provider)
        replace(chosen)
        if not _exit_hook:
            # As openai-agents does: processors that batch export what they hold at exit.
            atexit.register(_shutdown)
            _exit_hook.append(True)


def _shutdown() -> None:
    for processor in processors():
        _shut(processor)


def _shut(processor: Processor) -> None:
    try:
        processor.shutdown()
    except Exception:
        logger.exception("trace processor %s failed to shut down", type(processor).__name__)
