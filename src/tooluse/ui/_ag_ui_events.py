"""A run's stream events as AG-UI events, written as the SSE text `ag-ui-protocol` writes.

One `AGUIEvents` per run: text deltas become a text message (start, content, end),
argument deltas a tool call (start, args, end), function calls' outputs tool call
results, agent changes steps, each model response a `tooluse.usage` custom event and
each function call's output a `tooluse.call` one with the call's duration (what a
timeline draws), and the end a `RUN_FINISHED` whose outcome is success or the
interrupt that lists the calls waiting for approval. Hosted and provider tools'
calls (a computer's, a shell's) are not tool calls of the stream, nor their outputs,
except a shell's or an MCP server's call waiting for approval (`_answers.py`): the
stream starts it before the interrupt, and the resumed run's stream answers it.

Each event is written as the text `ag_ui.encoder.EventEncoder` writes for the same
`ag_ui.core` model (the same camelCase fields in the same order, absent values left
out, compact, non-ASCII as is), without building the model: the models cost more per
event than the run that made it. The frequent events, text and argument deltas, are a
prefix kept per message or call and the delta as a JSON string; the open message's
deltas are written by the stream's loop itself (`open_text`), without a call. The events
made once a message, call, turn or run are f-strings of their fields; pydantic's
serializer (`utf8_json`, the models' own) writes only what has no fixed shape: floats
(it writes 1e-5 as 0.00001, where `repr` writes 1e-05), a final output that is not text,
the interrupt outcome, `STATE_SNAPSHOT` and `RUN_ERROR`. Tests compare the text with the
encoder's, event by event, and hypothesis drives the fields written by hand.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from ..core._items import Item, is_function_call, is_function_call_output, message_text
from ..core._state import ToolApproval
from ..run._result import RunResultStreaming
from ..run._stream_events import RunStreamEvent, UsageStreamEvent
from ._answers import answer, newly_shown
from ._history import output_text
from ._sse import new_id, utf8_json, utf8_string

__all__ = ["APPROVAL_SCHEMA", "AGUIEvents"]

APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}, "message": {"type": "string"}},
    "required": ["approved"],
}
"""The payload a `resume` entry answers an approval interrupt with."""


def _frame(fields: dict[str, Any]) -> str:
    return f"data: {utf8_json(fields)}\n\n"


# The events made once or twice a message, call, step or run: their fields written
# directly, in the models' order.


def _ids(thread_id: str, run_id: str) -> str:
    return f'"threadId":{utf8_string(thread_id)},"runId":{utf8_string(run_id)}'


def _run_finished(ids: str, result: RunResultStreaming) -> str:
    usage = result.usage
    tokens = (
        f'[{{"inputTokens":{usage.input_tokens},"outputTokens":{usage.output_tokens},'
        f'"totalTokens":{usage.total_tokens}}}]'
    )
    if result.interruptions:
        interrupts = [_interrupt(call) for call in result.interruptions]
        outcome = utf8_json({"type": "interrupt", "interrupts": interrupts})
        return f'data: {{"type":"RUN_FINISHED",{ids},"outcome":{outcome},"usage":{tokens}}}\n\n'
    output = result.final_output
    fields = ids
    if output is not None:  # the models leave out what has no value
        written = utf8_string(output) if isinstance(output, str) else utf8_json(output)
        fields = f'{fields},"result":{written}'
    fields = f'{fields},"outcome":{{"type":"success"}},"usage":{tokens}'
    return f'data: {{"type":"RUN_FINISHED",{fields}}}\n\n'


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


def _result(message_id: str, call_id: str, content: str) -> str:
    fields = f'"messageId":"{message_id}","toolCallId":{utf8_string(call_id)}'
    fields = f'{fields},"content":{utf8_string(content)},"role":"tool"'
    return f'data: {{"type":"TOOL_CALL_RESULT",{fields}}}\n\n'


def _call_timing(call_id: str, seconds: float) -> str:
    # The float through pydantic's serializer: it writes 1e-5 as 0.00001, repr as 1e-05.
    value = f'{{"call_id":{utf8_string(call_id)},"duration_seconds":{utf8_json(seconds)}}}'
    return f'data: {{"type":"CUSTOM","name":"tooluse.call","value":{value}}}\n\n'


class AGUIEvents:
    """Turns one run's stream events into AG-UI events' SSE text, in order."""

    def __init__(self, thread_id: str, run_id: str, *, state_snapshots: bool = False) -> None:
        self.thread_id = thread_id
        self.run_id = run_id
        self.ids = _ids(thread_id, run_id)  # RUN_STARTED's and RUN_FINISHED's fields
        self.state_snapshots = state_snapshots
        self.message_id: str | None = None  # the text message open, if any
        self.streamed = False  # a text message was opened since the last message item
        self.open_text: str | None = None
        """The open text message's `TEXT_MESSAGE_CONTENT` frame up to its delta, or None.

        A delta's frame is this, the delta as a JSON string, and `}` with a blank line:
        the stream writes most of its frames so, without a call per event.
        """
        self.open_calls: set[str] = set()
        self.args: dict[str, str] = {}  # call id -> its TOOL_CALL_ARGS text before the delta
        self.agent: str | None = None
        self.turns = 0
        self.started_at = time.monotonic()
        self.called_at: dict[str, float] = {}  # call id -> when the model's call of it ended
        self.shown: set[str] = set()
        """The calls other than function calls the client was shown, waiting for approval
        (by this stream or, for a resumed run, the last): the stream answers them."""

    def started(self) -> str:
        """The run's first event."""
        return f'data: {{"type":"RUN_STARTED",{self.ids}}}\n\n'

    def translate(self, event: RunStreamEvent) -> str:
        """The AG-UI events for one stream event (often none).

        Args:
            event: What the run yielded.

        Returns:
            The events' text, "" for none.
        """
        if event.type == "text_delta_event":  # the open message's pieces: ag_ui_stream writes them
            return self._text(event.delta)
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
        events = self._close_all() + self._show_waiting(result.interruptions)
        if self.agent is not None:
            events += _step("STEP_FINISHED", self.agent)
        if self.state_snapshots:
            events += _frame({"type": "STATE_SNAPSHOT", "snapshot": _snapshot(result)})
        return events + _run_finished(self.ids, result)

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
            self.streamed = True
            self.message_id = message_id = new_id()
            events += _text_start(message_id)
            self.open_text = (
                f'data: {{"type":"TEXT_MESSAGE_CONTENT","messageId":"{message_id}","delta":'
            )
        return f"{events}{self.open_text}{utf8_string(delta)}}}\n\n"

    def _arguments(self, call_id: str, name: str, delta: str) -> str:
        start = self._call_started(call_id, name)  # "" for most: the call has started
        return f"{start}{self.args[call_id]}{utf8_string(delta)}}}\n\n"

    def _close_text(self) -> str:
        if self.message_id is None:
            return ""
        ended = _text_end(self.message_id)
        self.message_id = self.open_text = None
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
        if not self.open_calls:  # most of the time: none is open
            return ""
        events = "".join(_call_end(call_id) for call_id in sorted(self.open_calls))
        self.open_calls.clear()
        return events

    def _close_all(self) -> str:
        return self._close_text() + self._close_calls()

    def _item(self, name: str, item: Item) -> str:
        if name == "message_output_created":
            # the text is read only when no deltas came: a model that does not stream (a
            # streamed message may be closed already, by a shown call's result before it)
            streamed, self.streamed = self.streamed, False
            if not streamed and (text := message_text(item)):
                events = self._text(text) + self._close_text()
                self.streamed = False
                return events
            return self._close_text()
        if name in {"tool_called", "handoff_requested"} and is_function_call(item):
            return self._called(item)
        if name in {"tool_output", "handoff_occured"} and is_function_call_output(item):
            return self._output(item)
        # The stream starts function calls only, so it answers only them, and the calls it
        # showed for approval (`self.shown`, most often empty): a computer's or a shell's
        # output answers a call the client never saw (its result would be an orphan). A
        # hosted MCP server's items (its tool list, its call, made and answered by the
        # provider, its approval request and the answer) are no call the client runs.
        if self.shown and (answered := answer(item)) and answered[0] in self.shown:
            return self._answered(*answered)
        return ""

    def _show_waiting(self, waiting: Sequence[ToolApproval]) -> str:
        """Start the calls other than function calls that wait, for the interrupts to name."""
        events = ""
        for call in newly_shown(waiting, self.shown):
            quoted = utf8_string(call.call_id)
            args = f'"toolCallId":{quoted},"delta":{utf8_string(call.arguments)}'
            events += (
                f"{_call_start(call.call_id, call.name)}"
                f'data: {{"type":"TOOL_CALL_ARGS",{args}}}\n\n{_call_end(call.call_id)}'
            )
        return events

    def _answered(self, call_id: str, text: str) -> str:
        """The result of a call shown for approval: what ran, or the rejection."""
        self.shown.discard(call_id)
        seconds = time.monotonic() - self.started_at  # it was decided when this run began
        result = _result(new_id(), call_id, text)
        return f"{self._close_all()}{result}{_call_timing(call_id, round(seconds, 6))}"

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
        result = _result(new_id(), call_id, output_text(item))
        return f"{self._close_all()}{result}{_call_timing(call_id, round(seconds, 6))}"

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
        agent = request.agent_name or self.agent
        value = (
            f'{{"turn":{self.turns},"agent":{_text_or_null(agent)},'
            f'"model":{_text_or_null(request.model)},"input_tokens":{request.input_tokens},'
            f'"output_tokens":{request.output_tokens},"total_tokens":{request.total_tokens},'
            f'"duration_seconds":{utf8_json(request.duration_seconds)}}}'
        )
        return f'data: {{"type":"CUSTOM","name":"tooluse.usage","value":{value}}}\n\n'


def _text_or_null(text: str | None) -> str:
    return "null" if text is None else utf8_string(text)


def _interrupt(call: ToolApproval) -> dict[str, Any]:
    metadata = {"toolName": call.tool_name, "arguments": call.arguments}
    asking = call.tool_name
    if call.item_type == "mcp_approval_request":  # the server that asks, beside its tool
        metadata["serverLabel"] = call.server_label
        asking = f"{call.server_label}.{call.tool_name}"
    return {
        "id": call.approval_id,
        "reason": "tool_approval",
        "message": f"{asking} waits for approval",
        "toolCallId": call.call_id,
        "responseSchema": APPROVAL_SCHEMA,
        "metadata": metadata,
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
