"""The spans trace processors see: openai-agents' `Span` and `SpanData`, read off OTel spans.

Made by the bridge (`_bridge.py`) from the OpenTelemetry spans tooluse records; the
ids are the OpenTelemetry ones, written as openai-agents writes them (`trace_<32 hex>`,
`span_<24 hex>`, the 16 hex digits of the OTel span id zero-padded), so that a payload
links back to the OTel trace.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

__all__ = ["Span", "SpanData", "TSpanData", "span_key", "trace_key"]


def trace_key(trace_id: int) -> str:
    """An OpenTelemetry trace id as openai-agents writes trace ids.

    Args:
        trace_id: The OTel trace id.

    Returns:
        `trace_` and 32 hex digits.
    """
    return f"trace_{trace_id:032x}"


def span_key(span_id: int) -> str:
    """An OpenTelemetry span id as openai-agents writes span ids.

    Args:
        span_id: The OTel span id (64 bits).

    Returns:
        `span_` and 24 hex digits (the 16 of the OTel id, zero-padded on the left).
    """
    return f"span_{span_id:024x}"


class SpanData:
    """What a span records, by kind: openai-agents' span data, exported as its payload.

    `type` is openai-agents' kind of span (`agent`, `generation`, `function`,
    `guardrail`, `custom`); the other fields are read as attributes
    (`span.span_data.name`).
    """

    __slots__ = ("_fields", "type")

    def __init__(self, type: str, fields: dict[str, Any]) -> None:
        """Data of kind `type`.

        Args:
            type: The kind of span.
            fields: The payload's other fields.
        """
        self.type = type
        """The kind of span (`agent`, `generation`, `function`, `guardrail`, `custom`)."""
        self._fields = fields

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # a slot not set yet (copy, pickle): no field by that name
            raise AttributeError(name)
        try:
            return self._fields[name]
        except KeyError:
            raise AttributeError(f"{self.type} span data has no field {name!r}") from None

    def export(self) -> dict[str, Any]:
        """The payload: `type` and the fields.

        Returns:
            A new dict.
        """
        return {"type": self.type, **self._fields}

    def __repr__(self) -> str:
        return f"SpanData({self.type!r}, {self._fields!r})"


TSpanData = TypeVar("TSpanData", bound=SpanData)


class Span(Generic[TSpanData]):
    """A span as trace processors see it: an OpenTelemetry span under a trace.

    The same object reaches `on_span_start` and `on_span_end`; by the end it holds
    `ended_at`, its final `span_data` and `error`.
    """

    __slots__ = (
        "_data",
        "ended_at",
        "error",
        "name",
        "parent_id",
        "span_id",
        "started_at",
        "trace_id",
    )

    def __init__(
        self,
        trace_id: str,
        span_id: str,
        parent_id: str | None,
        name: str,
        span_data: TSpanData,
        started_at: str | None,
    ) -> None:
        """A span that started.

        Args:
            trace_id: Its trace's id (`trace_<32 hex>`).
            span_id: Its id (`span_<24 hex>`).
            parent_id: Its parent span's id; None when its parent is the trace itself.
            name: The OpenTelemetry span's name.
            span_data: What it records.
            started_at: When it started (ISO 8601, UTC).
        """
        self.trace_id = trace_id
        """Its trace's id, `trace_` and the 32 hex digits of the OTel trace id."""
        self.span_id = span_id
        """Its id, `span_` and the OTel span id in 24 hex digits."""
        self.parent_id = parent_id
        """Its parent span's id; None when it sits right under the trace."""
        self.name = name
        """The OpenTelemetry span's name (`invoke_agent triage`, `chat gpt-4o`, ...)."""
        self._data = span_data
        self.started_at = started_at
        """When it started (ISO 8601, UTC)."""
        self.ended_at: str | None = None
        """When it ended (ISO 8601, UTC); None while it runs."""
        self.error: dict[str, Any] | None = None
        """`{"message": ..., "data": {...}}` when it ended in an error."""

    @property
    def span_data(self) -> TSpanData:
        """What it records (`span_data.type` says of which kind)."""
        return self._data

    def finish_with(
        self, span_data: TSpanData, ended_at: str | None, error: dict[str, Any] | None
    ) -> None:
        """Record the end (the bridge calls it when the OTel span ends).

        Args:
            span_data: What the span recorded by its end.
            ended_at: When it ended.
            error: Its error, if it ended in one.
        """
        self._data = span_data
        self.ended_at = ended_at
        self.error = error

    def export(self) -> dict[str, Any] | None:
        """openai-agents' payload of a span (`object` is `trace.span`).

        Returns:
            `object`, `id`, `trace_id`, `parent_id`, `started_at`, `ended_at`,
            `span_data` (its export) and `error`.
        """
        return {
            "object": "trace.span",
            "id": self.span_id,
            "trace_id": self.trace_id,
            "parent_id": self.parent_id,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "span_data": self._data.export(),
            "error": self.error,
        }

    def __repr__(self) -> str:
        return f"<Span {self.name!r} {self.span_id} in {self.trace_id}>"
