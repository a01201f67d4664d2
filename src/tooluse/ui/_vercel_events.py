"""A run's stream events as the Vercel AI SDK's UI message stream parts, as SSE text.

The parts `useChat` reads (AI SDK 5 and later): `start`, steps, text start, delta and
end, tool input start, delta and availability, tool output (or denial), tool approval
requests for the calls waiting at the end, errors, and `finish`. Each is a line
`data: <JSON>` and a blank line, the JSON compact with non-ASCII characters escaped
(as `json.dumps` writes it); the frequent parts, text and input deltas, are a prefix
kept per text or call and the delta as a JSON string.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from ..core._items import Item, message_text
from ..run._result import RunResultStreaming
from ..run._stream_events import RunStreamEvent
from ._history import output_text
from ._sse import ascii_json, ascii_string

__all__ = ["DONE", "HEADERS", "Part", "VercelParts"]

Part = dict[str, Any]

HEADERS = {
    "x-vercel-ai-ui-message-stream": "v1",
    "cache-control": "no-cache",
    "x-accel-buffering": "no",
}
"""The headers that say a response is a UI message stream (the protocol header first)."""

DONE = "data: [DONE]\n\n"
"""The stream's last line, after `finish`."""


def _frame(part: Part) -> str:
    return f"data: {ascii_json(part)}\n\n"


def _frames(parts: list[Part]) -> str:
    return "".join(f"data: {ascii_json(part)}\n\n" for part in parts)


class VercelParts:
    """Turns one run's stream events into UI message stream parts' SSE text, in order.

    `translate`, `started`, `finished` and `failed` return the text; the pieces inside
    build the parts as dicts.
    """

    def __init__(self, rejected: set[str] | None = None, message_id: str | None = None) -> None:
        """Start a stream.

        Args:
            rejected: The calls the client rejected: their outputs are denials.
            message_id: The assistant message this stream continues (a resumed run's
                answers go on in the message that asked for approval); None for a new one.
        """
        self.message_id = message_id or uuid.uuid4().hex
        self.text_id: str | None = None
        self.delta: str = ""  # the open text's text-delta frame before the delta
        self.inputs: dict[str, str] = {}  # call id -> its tool-input-delta frame before the delta
        self.rejected = rejected or set()
        self.in_step = False
        self.model_done = False  # the step's model response ended: new output opens a step
        self.streamed = False  # the message being written came as deltas

    def started(self) -> str:
        """The stream's first part."""
        return _frame({"type": "start", "messageId": self.message_id})

    def translate(self, event: RunStreamEvent) -> str:
        """The parts for one stream event (often none).

        Args:
            event: What the run yielded.

        Returns:
            The parts' text, "" for none.
        """
        if event.type == "text_delta_event":
            delta = event.delta
            if self.text_id is not None and delta and not self.model_done:  # most events
                return f"{self.delta}{ascii_string(delta)}}}\n\n"
            return _frames(self._text(delta))
        if event.type == "tool_call_arguments_delta_event":
            call_id = event.call_id
            if call_id in self.inputs:  # most of a call's deltas: it has started
                return f"{self.inputs[call_id]}{ascii_string(event.delta)}}}\n\n"
            opened = _frames(self._call_started(call_id, event.tool_name))
            return f"{opened}{self.inputs[call_id]}{ascii_string(event.delta)}}}\n\n"
        if event.type == "run_item_stream_event":
            return _frames(self._item(event.name, event.item))
        if event.type == "usage_event":
            self.model_done = True
        return ""

    def finished(self, result: RunResultStreaming) -> str:
        """The parts that end a run: approval requests for the waiting calls, `finish`.

        Args:
            result: The run's result, its events all read.

        Returns:
            The parts' text.
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
        return _frames(parts)

    def failed(self, message: str) -> str:
        """The parts that end a failed run.

        Args:
            message: What went wrong and what to do.

        Returns:
            The parts' text.
        """
        return _frames(
            [
                *self._end_step(),
                {"type": "error", "errorText": message},
                {"type": "finish", "finishReason": "error"},
            ]
        )

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
            self.text_id = text_id = uuid.uuid4().hex
            parts.append({"type": "text-start", "id": text_id})
            self.delta = f'data: {{"type":"text-delta","id":"{text_id}","delta":'
        parts.append({"type": "text-delta", "id": self.text_id, "delta": delta})
        return parts

    def _close_text(self) -> list[Part]:
        if self.text_id is None:
            return []
        part = {"type": "text-end", "id": self.text_id}
        self.text_id = None
        return [part]

    def _call_started(self, call_id: str, name: str) -> list[Part]:
        if call_id in self.inputs:
            return []
        self.inputs[call_id] = (
            f'data: {{"type":"tool-input-delta","toolCallId":{ascii_string(call_id)},'
            '"inputTextDelta":'
        )
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
