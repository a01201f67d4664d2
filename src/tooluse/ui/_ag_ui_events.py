"""A run's stream events as AG-UI events, written as the SSE text `ag-ui-protocol` writes.

One `AGUIEvents` per run: text deltas become a text message (start, content, end),
argument deltas a tool call (start, args, end), outputs tool call results, agent
changes steps, each model response a `tooluse.usage` custom event and each tool
output a `tooluse.call` one with the call's duration (what a timeline draws), and
the end a `RUN_FINISHED` whose outcome is success or the interrupt that lists the
calls waiting for approval.

Each event is written as the text `ag_ui.encoder.EventEncoder` writes for the same
`ag_ui.core` model (the same camelCase fields in the same order, absent values left
out, compact, non-ASCII as is), without building the model: the models cost more per
event than the run that made it. The frequent events, text and argument deltas, are a
prefix kept per message or call and the delta as a JSON string. Tests compare the text
with the encoder's, event by event.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

from ..core._items import Item, message_text
from ..core._state import ToolApproval
from ..run._result import RunResultStreaming
from ..run._stream_events import RunStreamEvent, UsageStreamEvent
from ._history import output_text
from ._sse import utf8_json, utf8_string

__all__ = ["APPROVAL_SCHEMA", "AGUIEvents"]

APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}, "message": {"type": "string"}},
    "required": ["approved"],
}
"""The payload a `resume` entry answers an approval interrupt with."""


def _frame(fields: dict[str, Any]) -> str:
    return f"data: {utf8_json(fields)}\n\n"


# The events made once or twice a message, call or step: their few fields written
# directly, in the models' order.


def _started(thread_id: str, run_id: str) -> str:
    ids = f'"threadId":{utf8_string(thread_id)},"runId":{utf8_string(run_id)}'
    return f'data: {{"type":"RUN_STARTED",{ids}}}\n\n'


def _step(kind: str, name: str) -> str:
    return f'data: {{"type":"{kind}","stepName":{utf8_string(name)}}}\n\n'


def _text_start(message_id: str) -> str:
    fields = f'"messageId":{utf8_string(message_id)},"role":"assistant"'
    return f'data: {{"type":"TEXT_MESSAGE_START",{fields}}}\n\n'


def _text_end(message_id: str) -> str:
    return f'data: {{"type":"TEXT_MESSAGE_END","messageId":{utf8_string(message_id)}}}\n\n'


def _call_start(call_id: str, name: str) -> str:
    fields = f'"toolCallId":{utf8_string(call_id)},"toolCallName":{utf8_string(name)}'
    return f'data: {{"type":"TOOL_CALL_START",{fields}}}\n\n'


def _call_end(call_id: str) -> str:
    return f'data: {{"type":"TOOL_CALL_END","toolCallId":{utf8_string(call_id)}}}\n\n'


def _new_id() -> str:
    return secrets.token_hex(16)  # as unique as a uuid4's hex, at a third of its cost


class AGUIEvents:
    """Turns one run's stream events into AG-UI events' SSE text, in order."""

    def __init__(self, thread_id: str, run_id: str, *, state_snapshots: bool = False) -> None:
        self.thread_id = thread_id
        self.run_id = run_id
        self.state_snapshots = state_snapshots
        self.message_id: str | None = None  # the text message open, if any
        self.content: str = ""  # the open message's TEXT_MESSAGE_CONTENT text before the delta
        self.open_calls: set[str] = set()
        self.args: dict[str, str] = {}  # call id -> its TOOL_CALL_ARGS text before the delta
        self.agent: str | None = None
        self.turns = 0
        self.started_at = time.monotonic()
        self.called_at: dict[str, float] = {}  # call id -> when the model's call of it ended

    def started(self) -> str:
        """The run's first event."""
        return _started(self.thread_id, self.run_id)

    def translate(self, event: RunStreamEvent) -> str:
        """The AG-UI events for one stream event (often none).

        Args:
            event: What the run yielded.

        Returns:
            The events' text, "" for none.
        """
        if event.type == "text_delta_event":  # most events: a piece of the open message
            delta = event.delta
            if self.message_id is not None and delta:
                return f"{self.content}{utf8_string(delta)}}}\n\n"
            return self._text(delta)
        if event.type == "tool_call_arguments_delta_event":
            return self._arguments(event.call_id, event.tool_name, event.delta)
        if event.type == "run_item_stream_event":
            return self._item(event.name, event.item)
        if event.type == "usage_event":
            return self._usage(event)
        return (
            self._agent(event.new_agent.name) if event.type == "agent_updated_stream_event" else ""
        )

    def finished(self, result: RunResultStreaming) -> str:
        """The events that end a run: open steps closed, then `RUN_FINISHED`.

        Args:
            result: The run's result, its events all read.

        Returns:
            The events' text.
        """
        events = self._close_all()
        if self.agent is not None:
            events += _step("STEP_FINISHED", self.agent)
        if self.state_snapshots:
            events += _frame({"type": "STATE_SNAPSHOT", "snapshot": _snapshot(result)})
        usage = result.usage
        fields: dict[str, Any] = {"type": "RUN_FINISHED", "threadId": self.thread_id}
        fields["runId"] = self.run_id
        if result.interruptions:
            interrupts = [_interrupt(call) for call in result.interruptions]
            fields["outcome"] = {"type": "interrupt", "interrupts": interrupts}
        else:
            if result.final_output is not None:  # the models leave out what has no value
                fields["result"] = result.final_output
            fields["outcome"] = {"type": "success"}
        fields["usage"] = [
            {
                "inputTokens": usage.input_tokens,
                "outputTokens": usage.output_tokens,
                "totalTokens": usage.total_tokens,
            }
        ]
        return events + _frame(fields)

    def failed(self, message: str, code: str) -> str:
        """The events that end a failed run: open messages and calls closed, `RUN_ERROR`.

        Args:
            message: What went wrong and what to do.
            code: A short machine-readable reason.

        Returns:
            The events' text.
        """
        return self._close_all() + _frame({"type": "RUN_ERROR", "message": message, "code": code})

    # -- pieces -------------------------------------------------------------------------

    def _text(self, delta: str) -> str:
        if not delta:
            return ""
        events = ""
        if self.message_id is None:
            events = self._close_calls()
            self.message_id = message_id = _new_id()
            events += _text_start(message_id)
            self.content = (
                f'data: {{"type":"TEXT_MESSAGE_CONTENT","messageId":"{message_id}","delta":'
            )
        return f"{events}{self.content}{utf8_string(delta)}}}\n\n"

    def _arguments(self, call_id: str, name: str, delta: str) -> str:
        start = self._call_started(call_id, name)  # "" for most: the call has started
        return f"{start}{self.args[call_id]}{utf8_string(delta)}}}\n\n"

    def _close_text(self) -> str:
        if self.message_id is None:
            return ""
        ended = _text_end(self.message_id)
        self.message_id = None
        return ended

    def _call_started(self, call_id: str, name: str) -> str:
        if call_id in self.args:
            return ""
        events = self._close_text()
        self.open_calls.add(call_id)
        self.args[call_id] = (
            f'data: {{"type":"TOOL_CALL_ARGS","toolCallId":{utf8_string(call_id)},"delta":'
        )
        return events + _call_start(call_id, name)

    def _close_calls(self) -> str:
        events = "".join(_call_end(call_id) for call_id in sorted(self.open_calls))
        self.open_calls.clear()
        return events

    def _close_all(self) -> str:
        return self._close_text() + self._close_calls()

    def _item(self, name: str, item: Item) -> str:
        if name == "message_output_created":
            text = message_text(item) or ""
            if self.message_id is None and text:  # a model that does not stream
                return self._text(text) + self._close_text()
            return self._close_text()
        if name in {"tool_called", "handoff_requested"}:
            return self._called(item)
        if name in {"tool_output", "handoff_occured"}:
            return self._output(item)
        return ""

    def _called(self, item: Item) -> str:
        call_id = item["call_id"]
        self.called_at[call_id] = time.monotonic()
        events = self._call_started(call_id, item["name"])
        if events:  # no deltas came: the arguments whole
            events += f"{self.args[call_id]}{utf8_string(item['arguments'])}}}\n\n"
        if call_id in self.open_calls:
            self.open_calls.discard(call_id)
            events += _call_end(call_id)
        return events

    def _output(self, item: Item) -> str:
        call_id = item["call_id"]
        # a call approved in an earlier run started running when this one did
        seconds = time.monotonic() - self.called_at.get(call_id, self.started_at)
        result = {
            "type": "TOOL_CALL_RESULT",
            "messageId": _new_id(),
            "toolCallId": call_id,
            "content": output_text(item),
            "role": "tool",
        }
        value = {"call_id": call_id, "duration_seconds": round(seconds, 6)}
        called = {"type": "CUSTOM", "name": "tooluse.call", "value": value}
        return self._close_all() + _frame(result) + _frame(called)

    def _agent(self, name: str) -> str:
        if name == self.agent:
            return ""
        events = self._close_all()
        if self.agent is not None:
            events += _step("STEP_FINISHED", self.agent)
        self.agent = name
        return events + _step("STEP_STARTED", name)

    def _usage(self, event: UsageStreamEvent) -> str:
        self.turns += 1
        request = event.request
        value = {
            "turn": self.turns,
            "agent": request.agent_name or self.agent,
            "model": request.model,
            "input_tokens": request.input_tokens,
            "output_tokens": request.output_tokens,
            "total_tokens": request.total_tokens,
            "duration_seconds": request.duration_seconds,
        }
        return _frame({"type": "CUSTOM", "name": "tooluse.usage", "value": value})


def _interrupt(call: ToolApproval) -> dict[str, Any]:
    return {
        "id": call.approval_id,
        "reason": "tool_approval",
        "message": f"{call.tool_name} waits for approval",
        "toolCallId": call.call_id,
        "responseSchema": APPROVAL_SCHEMA,
        "metadata": {"toolName": call.tool_name, "arguments": call.arguments},
    }


def _snapshot(result: RunResultStreaming) -> dict[str, Any]:
    return {
        "agent": result.last_agent.name,
        "usage": {
            "requests": result.usage.requests,
            "input_tokens": result.usage.input_tokens,
            "output_tokens": result.usage.output_tokens,
            "total_tokens": result.usage.total_tokens,
        },
        "pending_approvals": [call.approval_id for call in result.interruptions],
    }
