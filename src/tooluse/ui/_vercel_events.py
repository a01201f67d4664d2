"""A run's stream events as the Vercel AI SDK's UI message stream parts, as SSE text.

The parts `useChat` reads (AI SDK 5 and later): `start`, steps, text start, delta and
end, tool input start, delta and availability, tool output (or denial), tool approval
requests for the calls waiting at the end, errors, and `finish`. Each is a line
`data: <JSON>` and a blank line, the JSON compact with non-ASCII characters escaped
(as `json.dumps` writes it); the frequent parts, text and input deltas, are a prefix
kept per text or call and the delta as a JSON string. The tool parts are function
calls' (a handoff's too): a hosted or provider tool's call (a computer's, a shell's)
has none, nor its output, except a shell's or an MCP server's call waiting for
approval (`_answers.py`): the stream starts its part before the approval request
(an MCP server's tool as a dynamic tool titled `<server label>.<tool>`), and the
resumed run's stream gives its output, or its denial.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..core._items import Item, is_function_call, is_function_call_output, message_text
from ..core._state import ToolApproval
from ..run._result import RunResultStreaming
from ..run._stream_events import RunStreamEvent
from ._answers import answer, newly_shown
from ._history import output_text
from ._sse import ascii_json, ascii_string, new_id

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


_START_STEP = _frame({"type": "start-step"})
_FINISH_STEP = _frame({"type": "finish-step"})
_FINISH = {
    reason: _frame({"type": "finish", "finishReason": reason})
    for reason in ("stop", "tool-calls", "error")
}


class VercelParts:
    """Turns one run's stream events into UI message stream parts' SSE text, in order."""

    def __init__(self, rejected: set[str] | None = None, message_id: str | None = None) -> None:
        """Start a stream.

        Args:
            rejected: The calls the client rejected: their outputs are denials.
            message_id: The assistant message this stream continues (a resumed run's
                answers go on in the message that asked for approval); None for a new one.
        """
        self.message_id = message_id or new_id()
        self.text_id: str | None = None
        self.delta: str = ""  # the open text's text-delta frame before the delta
        self.inputs: dict[str, str] = {}  # call id -> its tool-input-delta frame before the delta
        self.rejected = rejected or set()
        self.in_step = False
        self.model_done = False  # the step's model response ended: new output opens a step
        self.streamed = False  # the message being written came as deltas
        self.shown: set[str] = set()
        """The calls other than function calls the client was shown, waiting for approval
        (by this stream or, for a resumed run, the last): the stream answers them."""

    def started(self) -> str:
        """The stream's first part."""
        return f'data: {{"type":"start","messageId":{ascii_string(self.message_id)}}}\n\n'

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
            return self._text(delta)
        if event.type == "tool_call_arguments_delta_event":
            call_id = event.call_id
            if call_id in self.inputs:  # most of a call's deltas: it has started
                return f"{self.inputs[call_id]}{ascii_string(event.delta)}}}\n\n"
            opened = self._call_started(call_id, event.tool_name)
            return f"{opened}{self.inputs[call_id]}{ascii_string(event.delta)}}}\n\n"
        if event.type == "run_item_stream_event":
            return self._item(event.name, event.item)
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
        parts = self._show_waiting(result.interruptions) + self._end_step()
        for call in result.interruptions:
            parts += _frame(
                {
                    "type": "tool-approval-request",
                    "approvalId": call.approval_id,
                    "toolCallId": call.call_id,
                }
            )
        return parts + _FINISH["tool-calls" if result.interruptions else "stop"]

    def failed(self, message: str) -> str:
        """The parts that end a failed run.

        Args:
            message: What went wrong and what to do.

        Returns:
            The parts' text.
        """
        error = _frame({"type": "error", "errorText": message})
        return self._end_step() + error + _FINISH["error"]

    # -- pieces: each returns its parts' text ------------------------------------------

    def _step(self) -> str:
        """Open a step for new model output; the tool outputs of a step stay in it."""
        parts = ""
        if self.in_step and self.model_done:
            parts = self._end_step()
        if not self.in_step:
            self.in_step = True
            self.model_done = False
            parts += _START_STEP
        return parts

    def _end_step(self) -> str:
        parts = self._close_text()
        if self.in_step:
            parts += _FINISH_STEP
            self.in_step = False
        return parts

    def _text(self, delta: str) -> str:
        if not delta:
            return ""
        parts = self._step()
        self.streamed = True
        if self.text_id is None:
            self.text_id = text_id = new_id()
            parts += f'data: {{"type":"text-start","id":"{text_id}"}}\n\n'
            self.delta = f'data: {{"type":"text-delta","id":"{text_id}","delta":'
        return f"{parts}{self.delta}{ascii_string(delta)}}}\n\n"

    def _close_text(self) -> str:
        if self.text_id is None:
            return ""
        part = f'data: {{"type":"text-end","id":"{self.text_id}"}}\n\n'
        self.text_id = None
        return part

    def _call_started(self, call_id: str, name: str) -> str:
        if call_id in self.inputs:
            return ""
        quoted = ascii_string(call_id)
        self.inputs[call_id] = (
            f'data: {{"type":"tool-input-delta","toolCallId":{quoted},"inputTextDelta":'
        )
        start = f'"type":"tool-input-start","toolCallId":{quoted},"toolName":{ascii_string(name)}'
        return f"{self._step()}{self._close_text()}data: {{{start}}}\n\n"

    def _item(self, name: str, item: Item) -> str:
        if name == "message_output_created":
            text = message_text(item) or ""
            streamed, self.streamed = self.streamed, False
            if not streamed and text:  # a model that does not stream
                return self._text(text) + self._close_text()
            return self._close_text()
        if name in {"tool_called", "handoff_requested"} and is_function_call(item):
            available = {
                "type": "tool-input-available",
                "toolCallId": item["call_id"],
                "toolName": item["name"],
                "input": _arguments(item["arguments"]),
            }
            return self._call_started(item["call_id"], item["name"]) + _frame(available)
        if name in {"tool_output", "handoff_occured"} and is_function_call_output(item):
            return self._output(item["call_id"], output_text(item))
        # The stream starts function calls only, so it answers only them, and the calls it
        # showed for approval (`self.shown`, most often empty): a computer's or a shell's
        # output answers a call the client never saw (its result would be an orphan). A
        # hosted MCP server's items (its tool list, its call, made and answered by the
        # provider, its approval request and the answer) are no call the client runs.
        if self.shown and (answered := answer(item)) and answered[0] in self.shown:
            self.shown.discard(answered[0])
            return self._output(*answered)
        return ""

    def _show_waiting(self, waiting: Sequence[ToolApproval]) -> str:
        """Start the parts of the calls other than function calls that wait for approval."""
        parts = ""
        for call in newly_shown(waiting, self.shown):
            fields: Part = {"toolCallId": call.call_id, "toolName": call.name}
            if call.title is not None:  # an MCP server's tool: no tool the client defines
                fields |= {"dynamic": True, "title": call.title}
            parts += self._close_text()
            if not self.in_step:
                self.in_step = True
                parts += _START_STEP
            parts += _frame({"type": "tool-input-start", **fields})
            available = {"type": "tool-input-available", **fields}
            parts += _frame({**available, "input": _arguments(call.arguments)})
        return parts

    def _output(self, call_id: str, text: str) -> str:
        parts = self._close_text()
        if not self.in_step:
            self.in_step = True
            parts += _START_STEP
        if call_id in self.rejected:
            return parts + _frame({"type": "tool-output-denied", "toolCallId": call_id})
        fields = f'"toolCallId":{ascii_string(call_id)},"output":{ascii_string(text)}'
        return f'{parts}data: {{"type":"tool-output-available",{fields}}}\n\n'


def _arguments(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text
