"""A run's stream events as the Vercel AI SDK's UI message stream parts.

The parts `useChat` reads (AI SDK 5 and later): `start`, steps, text start, delta and
end, tool input start, delta and availability, tool output (or denial), tool approval
requests for the calls waiting at the end, errors, and `finish`.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from ..core._items import Item, message_text
from ..run._result import RunResultStreaming
from ..run._stream_events import RunStreamEvent
from ._history import output_text

__all__ = ["HEADERS", "Part", "VercelParts"]

Part = dict[str, Any]

HEADERS = {
    "x-vercel-ai-ui-message-stream": "v1",
    "cache-control": "no-cache",
    "x-accel-buffering": "no",
}
"""The headers that say a response is a UI message stream (the protocol header first)."""


class VercelParts:
    """Turns one run's stream events into UI message stream parts, in order."""

    def __init__(self, rejected: set[str] | None = None, message_id: str | None = None) -> None:
        """Start a stream.

        Args:
            rejected: The calls the client rejected: their outputs are denials.
            message_id: The assistant message this stream continues (a resumed run's
                answers go on in the message that asked for approval); None for a new one.
        """
        self.message_id = message_id or uuid.uuid4().hex
        self.text_id: str | None = None
        self.started_calls: set[str] = set()
        self.rejected = rejected or set()
        self.in_step = False
        self.model_done = False  # the step's model response ended: new output opens a step
        self.streamed = False  # the message being written came as deltas

    def started(self) -> list[Part]:
        """The stream's first parts."""
        return [{"type": "start", "messageId": self.message_id}]

    def translate(self, event: RunStreamEvent) -> list[Part]:
        """The parts for one stream event (often none).

        Args:
            event: What the run yielded.

        Returns:
            The parts to send.
        """
        if event.type == "text_delta_event":
            return self._text(event.delta)
        if event.type == "tool_call_arguments_delta_event":
            parts = self._call_started(event.call_id, event.tool_name)
            parts.append(
                {
                    "type": "tool-input-delta",
                    "toolCallId": event.call_id,
                    "inputTextDelta": event.delta,
                }
            )
            return parts
        if event.type == "run_item_stream_event":
            return self._item(event.name, event.item)
        if event.type == "usage_event":
            self.model_done = True
        return []

    def finished(self, result: RunResultStreaming) -> list[Part]:
        """The parts that end a run: approval requests for the waiting calls, `finish`.

        Args:
            result: The run's result, its events all read.

        Returns:
            The parts to send.
        """
        parts = self._end_step()
        for call in result.interruptions:
            parts.append(
                {
                    "type": "tool-approval-request",
                    "approvalId": call.approval_id,
                    "toolCallId": call.call_id,
                }
            )
        reason = "tool-calls" if result.interruptions else "stop"
        parts.append({"type": "finish", "finishReason": reason})
        return parts

    def failed(self, message: str) -> list[Part]:
        """The parts that end a failed run.

        Args:
            message: What went wrong and what to do.

        Returns:
            The parts to send.
        """
        return [
            *self._end_step(),
            {"type": "error", "errorText": message},
            {"type": "finish", "finishReason": "error"},
        ]

    # -- pieces -------------------------------------------------------------------------

    def _step(self) -> list[Part]:
        """Open a step for new model output; the tool outputs of a step stay in it."""
        parts: list[Part] = []
        if self.in_step and self.model_done:
            parts = self._end_step()
        if not self.in_step:
            self.in_step = True
            self.model_done = False
            parts.append({"type": "start-step"})
        return parts

    def _end_step(self) -> list[Part]:
        parts = self._close_text()
        if self.in_step:
            parts.append({"type": "finish-step"})
            self.in_step = False
        return parts

    def _text(self, delta: str) -> list[Part]:
        if not delta:
            return []
        parts = self._step()
        self.streamed = True
        if self.text_id is None:
            self.text_id = uuid.uuid4().hex
            parts.append({"type": "text-start", "id": self.text_id})
        parts.append({"type": "text-delta", "id": self.text_id, "delta": delta})
        return parts

    def _close_text(self) -> list[Part]:
        if self.text_id is None:
            return []
        part = {"type": "text-end", "id": self.text_id}
        self.text_id = None
        return [part]

    def _call_started(self, call_id: str, name: str) -> list[Part]:
        if call_id in self.started_calls:
            return []
        self.started_calls.add(call_id)
        parts = [*self._step(), *self._close_text()]
        parts.append({"type": "tool-input-start", "toolCallId": call_id, "toolName": name})
        return parts

    def _item(self, name: str, item: Item) -> list[Part]:
        if name == "message_output_created":
            text = message_text(item) or ""
            streamed, self.streamed = self.streamed, False
            if not streamed and text:  # a model that does not stream
                return [*self._text(text), *self._close_text()]
            return self._close_text()
        if name in {"tool_called", "handoff_requested"}:
            parts = self._call_started(item["call_id"], item["name"])
            parts.append(
                {
                    "type": "tool-input-available",
                    "toolCallId": item["call_id"],
                    "toolName": item["name"],
                    "input": _arguments(item["arguments"]),
                }
            )
            return parts
        if name in {"tool_output", "handoff_occured"}:
            parts = self._close_text()
            if not self.in_step:
                self.in_step = True
                parts.append({"type": "start-step"})
            if item["call_id"] in self.rejected:
                parts.append({"type": "tool-output-denied", "toolCallId": item["call_id"]})
            else:
                parts.append(
                    {
                        "type": "tool-output-available",
                        "toolCallId": item["call_id"],
                        "output": output_text(item),
                    }
                )
            return parts
        return []


def _arguments(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text
