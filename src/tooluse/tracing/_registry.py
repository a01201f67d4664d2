"""The registered trace processors, and what the bridge needs to know of the blocks.

The bottom of openai-agents' processor API: the processors (`_processing.py` sets
them), the `trace(...)` and `custom_span(...)` blocks recording now (so that the
bridge hands processors a block's own `Trace` and a span's exact data), and the
router that picks the tracer provider a run or a block records on while processors
are registered. The router is `_bridge.recording_provider`, handed down when the first
processor is registered (a value, not an import: the bridge imports OpenTelemetry's
SDK, and the blocks below it).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

from .._version import __version__

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer

__all__ = [
    "Processor",
    "block_of",
    "block_tracer",
    "claim",
    "processors",
    "replace",
    "route",
    "set_router",
    "starting",
]


class Processor(Protocol):
    """What the bridge calls of a processor (`processor_interface.TracingProcessor`)."""

    def on_trace_start(self, trace: Any) -> None: ...
    def on_trace_end(self, trace: Any) -> None: ...
    def on_span_start(self, span: Any) -> None: ...
    def on_span_end(self, span: Any) -> None: ...
    def shutdown(self) -> None: ...
    def force_flush(self) -> None: ...


Router = Callable[[ModuleType, object], object]
"""`(opentelemetry.trace, the run's provider or None) -> the provider to record on`."""

_processors: tuple[Processor, ...] = ()
_router: Router | None = None
_blocks: weakref.WeakValueDictionary[int, object] = weakref.WeakValueDictionary()
_starting = threading.local()


def processors() -> tuple[Processor, ...]:
    """The registered trace processors, in order.

    Returns:
        The processors (empty: none registered).
    """
    return _processors


def replace(chosen: tuple[Processor, ...]) -> None:
    """Make `chosen` the registered processors.

    Args:
        chosen: The processors.
    """
    global _processors  # noqa: PLW0603 - one registry a process, as in openai-agents
    _processors = chosen


def set_router(router: Router) -> None:
    """Hand down how to pick the provider to record on (the bridge's `recording_provider`).

    Args:
        router: The router.
    """
    global _router  # noqa: PLW0603 - set once, by the first registration
    _router = router


def route(trace: ModuleType, provider: object) -> object:
    """The provider to record on: with processors registered, one that feeds them.

    Args:
        trace: The `opentelemetry.trace` module.
        provider: The run's `tracer_provider`, or None for the global one.

    Returns:
        `provider` when no processor is registered; else what the router picks.
    """
    if not _processors or _router is None:
        return provider
    return _router(trace, provider)


def block_tracer(trace: ModuleType) -> Tracer:
    """The tracer a `trace(...)` or `custom_span(...)` block starts its span with.

    Args:
        trace: The `opentelemetry.trace` module.

    Returns:
        The global provider's tracer; with processors registered, the routed provider's.
    """
    provider: Any = route(trace, None)
    if provider is None:
        return trace.get_tracer("tooluse", __version__)
    return provider.get_tracer("tooluse", __version__)


def starting(block: object | None) -> None:
    """Say that this thread is starting `block`'s span (None: done starting it).

    The SDK calls span processors inside `start_span`, before the block sees its span:
    the bridge claims the block there.

    Args:
        block: The `trace(...)` or `custom_span(...)` block, or None.
    """
    _starting.block = block


def claim(span_id: int) -> object | None:
    """The block this thread is starting, kept from now as the block of span `span_id`.

    Args:
        span_id: The OTel span id just started.

    Returns:
        The block, or None when the span is not a block's.
    """
    block = getattr(_starting, "block", None)
    if block is not None:
        _starting.block = None
        _blocks[span_id] = block
    return block


def block_of(span_id: int) -> object | None:
    """The block recording span `span_id`, if one does (kept while the block lives).

    Args:
        span_id: The OTel span id.

    Returns:
        The block, or None.
    """
    return _blocks.get(span_id)
