"""openai-agents' trace API on OpenTelemetry: `trace`, `custom_span`, ids, the off switch.

A `trace(...)` block is a span, current for the block, so that the spans of every run
started inside it nest under it; `custom_span(...)` is a span under the current one.
The ids are OpenTelemetry's: a trace id is 32 hex digits (written `trace_<hex>` as
openai-agents writes them, and read with or without the prefix), a span id 16 (written
`span_<24 hex>`, zero-padded, as openai-agents' span ids are 24 digits). A
`trace(trace_id=...)` block continues the trace that id names, as a span continues a
caller's trace propagated to it. What records the spans is the application's choice,
as everywhere in OpenTelemetry: with no tracer provider set (or no `opentelemetry-api`
installed) the blocks run, keep their ids, and nothing is recorded, unless trace
processors are registered (`_processing.py`): then they see the blocks.

`opentelemetry` is imported when a block starts, never by `import tooluse`.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol

from ..exceptions import UserError
from ._records import span_key, trace_key
from ._registry import block_tracer, starting

if TYPE_CHECKING:
    from opentelemetry.context import Context
    from opentelemetry.trace import Span as OtelSpan
    from opentelemetry.util.types import AttributeValue

_disabled: bool | None = None
"""Set by `set_tracing_disabled`; until then, `OPENAI_AGENTS_DISABLE_TRACING` decides."""


def set_tracing_disabled(disabled: bool) -> None:
    """Turn tracing off (or on again) for the whole process.

    When off, runs make no spans (as `RunConfig(tracing_disabled=True)` for every run),
    and `trace(...)` and `custom_span(...)` blocks record nothing. Until it is called,
    the environment variable `OPENAI_AGENTS_DISABLE_TRACING` (`1` or `true`) turns
    tracing off, as in openai-agents.

    Args:
        disabled: True to turn tracing off.
    """
    global _disabled  # noqa: PLW0603 - one process-wide switch, as in openai-agents
    _disabled = bool(disabled)


def tracing_off() -> bool:
    """Whether `set_tracing_disabled(True)` turned tracing off.

    Returns:
        True when it did, or, before it was called, when `OPENAI_AGENTS_DISABLE_TRACING`
        is `1` or `true`.
    """
    global _disabled  # noqa: PLW0603 - the environment is read once, as openai-agents does
    if _disabled is None:
        variable = os.environ.get("OPENAI_AGENTS_DISABLE_TRACING", "")
        _disabled = variable.strip().lower() in {"1", "true"}
    return _disabled


def gen_trace_id() -> str:
    """A new trace id, an OpenTelemetry one, written as openai-agents writes them.

    Returns:
        `trace_` and 32 hex digits.
    """
    return f"trace_{_nonzero_hex(16)}"


def gen_span_id() -> str:
    """A new span id, an OpenTelemetry one, written as trace processors see span ids.

    Returns:
        `span_` and 24 hex digits: the 16 of a 64-bit OpenTelemetry span id, zero-padded.
    """
    return span_key(int(_nonzero_hex(8), 16))


def _nonzero_hex(size: int) -> str:
    while True:  # an id of all zeros is OpenTelemetry's "invalid"
        value = secrets.token_hex(size)
        if int(value, 16):
            return value


def _trace_number(trace_id: str) -> int:
    digits = trace_id.removeprefix("trace_")
    try:
        number = int(digits, 16) if len(digits) == 32 else 0
    except ValueError:
        number = 0
    if not number:
        raise UserError(
            f"trace(trace_id={trace_id!r}): a trace id is 32 hex digits, not all zero, "
            "optionally after 'trace_'; make one with gen_trace_id()"
        )
    return number


class _Started(Protocol):
    """What a `Trace` or a span gives the spans started under it."""

    def otel_context(self) -> Context | None: ...


class _Block:
    """A span that is current while its block runs: the base of `Trace` and `CustomSpan`."""

    def __init__(self, name: str, disabled: bool) -> None:
        self.name = name
        """The span's name."""
        self.disabled = disabled
        """Whether nothing is recorded for this block."""
        self._span: OtelSpan | None = None
        self._token: object = None

    def _begin(self, context: Context | None, attributes: dict[str, AttributeValue]) -> None:
        if self.disabled or tracing_off() or self._span is not None:
            return
        try:
            from opentelemetry import trace  # noqa: PLC0415 - only when a block starts
        except ImportError:  # no opentelemetry-api: nothing could record the span
            return
        tracer = block_tracer(trace)
        starting(self)  # the bridge, if on the provider, takes it in start_span
        try:
            self._span = tracer.start_span(self.name, context=context, attributes=attributes)
        finally:
            starting(None)

    def start(self, mark_as_current: bool = False) -> None:
        """Start the block's span (a `with` block does this, current for its length).

        Args:
            mark_as_current: Make the span current, so that spans started in this
                context (a run's among them) nest under it, until `finish`.
        """
        self._start()
        if mark_as_current and self._span is not None and self._token is None:
            from opentelemetry import context, trace  # noqa: PLC0415 - imported by _start

            self._token = context.attach(trace.set_span_in_context(self._span))

    def _start(self) -> None:
        raise NotImplementedError

    def finish(self, reset_current: bool = False) -> None:
        """End the block's span.

        Args:
            reset_current: Make the span that was current before `start` current again.
        """
        del reset_current  # the context is always given back: a span ended is never current
        if self._token is not None:
            from opentelemetry import context  # noqa: PLC0415 - imported by start

            context.detach(self._token)  # pyright: ignore[reportArgumentType] - attach's token
            self._token = None
        if self._span is not None:
            self._span.end()

    def otel_context(self) -> Context | None:
        """The OpenTelemetry context with this block's span current (None before it starts).

        Returns:
            The context, for spans started under this one.
        """
        if self._span is None:
            return None
        from opentelemetry import trace  # noqa: PLC0415 - imported by start

        return trace.set_span_in_context(self._span)

    def _record_error(self, error: BaseException) -> None:
        if self._span is None:
            return
        from opentelemetry.trace import Status, StatusCode  # noqa: PLC0415 - imported by start

        self._span.set_status(Status(StatusCode.ERROR))
        self._span.set_attribute("error.type", type(error).__qualname__)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if error is not None:
            self._record_error(error)
        self.finish(reset_current=True)


class Trace(_Block):
    """A workflow's trace: a span current for its block, under which runs' spans nest.

    Made by `trace(...)`; use it as a context manager, or call `start(mark_as_current=True)`
    and `finish(reset_current=True)`.
    """

    def __init__(
        self,
        workflow_name: str,
        trace_id: str | None,
        group_id: str | None,
        metadata: Mapping[str, object] | None,
        disabled: bool,
    ) -> None:
        super().__init__(workflow_name, disabled)
        self._given_id = _trace_number(trace_id) if trace_id is not None else None
        self._made_id = gen_trace_id()
        self.group_id = group_id
        """The conversation this trace belongs to (`gen_ai.conversation.id`), if given."""
        self.metadata = dict(metadata or {})
        """What the trace was given to record beside its name (`tooluse.metadata.<key>`)."""

    @property
    def workflow_name(self) -> str:
        """The workflow's name, the span's name."""
        return self.name

    @property
    def trace_id(self) -> str:
        """The trace's id, `trace_` and 32 hex digits: OpenTelemetry's, once the span records."""
        if self._span is not None and self._span.get_span_context().is_valid:
            return trace_key(self._span.get_span_context().trace_id)
        if self._given_id is not None:
            return trace_key(self._given_id)
        return self._made_id

    def _start(self) -> None:
        attributes: dict[str, AttributeValue] = {"gen_ai.workflow.name": self.name}
        if self.group_id is not None:
            attributes["gen_ai.conversation.id"] = self.group_id
        for key, value in self.metadata.items():
            attributes[f"tooluse.metadata.{key}"] = _attribute(value)
        self._begin(self._continued(), attributes)

    def _continued(self) -> Context | None:
        """The context that makes the span part of the trace its given id names."""
        if self._given_id is None or self.disabled or tracing_off():
            return None
        try:
            from opentelemetry import trace  # noqa: PLC0415 - only when a block starts
        except ImportError:
            return None
        caller = trace.SpanContext(
            trace_id=self._given_id,
            span_id=int(_nonzero_hex(8), 16),
            is_remote=True,
            trace_flags=trace.TraceFlags(trace.TraceFlags.SAMPLED),
        )
        return trace.set_span_in_context(trace.NonRecordingSpan(caller))

    def __enter__(self) -> Trace:
        self.start(mark_as_current=True)
        return self

    def export(self) -> dict[str, Any] | None:
        """openai-agents' payload of a trace (`object` is `trace`), as processors export it.

        Returns:
            `object`, `id`, `workflow_name`, `group_id` and `metadata` (None when empty).
        """
        return {
            "object": "trace",
            "id": self.trace_id,
            "workflow_name": self.name,
            "group_id": self.group_id,
            "metadata": dict(self.metadata) or None,
        }


class CustomSpan(_Block):
    """A span of your own, made by `custom_span(...)`, under the current span."""

    def __init__(
        self,
        name: str,
        data: Mapping[str, object] | None,
        parent: _Started | None,
        disabled: bool,
    ) -> None:
        super().__init__(name, disabled)
        self.data = dict(data or {})
        """What the span records (`tooluse.data.<key>`)."""
        self._parent = parent

    @property
    def span_id(self) -> str:
        """The span's id, `span_` and 24 hex digits (all zeros while it records nothing).

        The OpenTelemetry span id, zero-padded, as trace processors see it.
        """
        number = self._span.get_span_context().span_id if self._span is not None else 0
        return span_key(number)

    def _start(self) -> None:
        attributes = {f"tooluse.data.{key}": _attribute(value) for key, value in self.data.items()}
        parent = self._parent.otel_context() if self._parent is not None else None
        self._begin(parent, attributes)

    def __enter__(self) -> CustomSpan:
        self.start(mark_as_current=True)
        return self


def _attribute(value: object) -> AttributeValue:
    if isinstance(value, (str, bool, int, float)):
        return value
    return json.dumps(value, default=str)


def trace(
    workflow_name: str,
    trace_id: str | None = None,
    group_id: str | None = None,
    metadata: Mapping[str, object] | None = None,
    disabled: bool = False,
) -> Trace:
    """A trace for a workflow: an OpenTelemetry span the runs inside its block nest under.

    ```python
    with trace("Joke workflow"):
        first = await Runner.run(agent, "Tell me a joke")
        second = await Runner.run(agent, f"Rate this joke: {first.final_output}")
    ```

    Args:
        workflow_name: The span's name (and its `gen_ai.workflow.name`).
        trace_id: Continue the trace with this id (from `gen_trace_id()`, or 32 hex
            digits); by default the span starts under the current span, or a new trace.
        group_id: The conversation the trace belongs to, recorded as
            `gen_ai.conversation.id`.
        metadata: Recorded on the span, each key as `tooluse.metadata.<key>`.
        disabled: Record nothing for this block.

    Returns:
        The trace, not yet started: use it in a `with` block.

    Raises:
        UserError: `trace_id` is not a trace id.
    """
    return Trace(workflow_name, trace_id, group_id, metadata, disabled)


def custom_span(
    name: str,
    data: Mapping[str, object] | None = None,
    parent: Trace | CustomSpan | None = None,
    disabled: bool = False,
) -> CustomSpan:
    """A span of your own, under the current span (a run's tool call, a `trace` block).

    Args:
        name: The span's name.
        data: Recorded on the span, each key as `tooluse.data.<key>` (values that are
            not text, numbers or booleans as JSON).
        parent: The trace or span to start under, in place of the current span.
        disabled: Record nothing for this block.

    Returns:
        The span, not yet started: use it in a `with` block.
    """
    return CustomSpan(name, data, parent, disabled)


def set_tracing_export_api_key(api_key: str) -> None:
    """Refused: tooluse never sends traces to OpenAI; register a processor or an exporter.

    Args:
        api_key: The key openai-agents would export traces to OpenAI's dashboard with.

    Raises:
        UserError: Always, saying what to use.
    """
    del api_key
    raise UserError(
        "set_tracing_export_api_key(): tooluse never sends traces to OpenAI's dashboard, so "
        "it takes no key for it; send them where you want with a trace processor "
        "(set_trace_processors) or an OpenTelemetry exporter on your tracer provider, as "
        "docs/tracing.md shows"
    )
