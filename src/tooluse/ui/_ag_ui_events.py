"""A run's stream events as AG-UI events, built with `ag-ui-protocol`'s models.

One `AGUIEvents` per run: text deltas become a text message (start, content, end),
argument deltas a tool call (start, args, end), outputs tool call results, agent
changes steps, each model response a `tooluse.usage` custom event and each tool
output a `tooluse.call` one with the call's duration (what a timeline draws), and
the end a `RUN_FINISHED` whose outcome is success or the interrupt that lists the
calls waiting for approval.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    Interrupt,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StateSnapshotEvent,
    StepFinishedEvent,
    StepStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    TokenUsage,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from ..core._items import Item, message_text
from ..core._state import ToolApproval
from ..run._result import RunResultStreaming
from ..run._stream_events import RunStreamEvent, UsageStreamEvent
from ._history import output_text

__all__ = ["APPROVAL_SCHEMA", "AGUIEvents"]

APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}, "message": {"type": "string"}},
    "required": ["approved"],
}
"""The payload a `resume` entry answers an approval interrupt with."""


def _new_id() -> str:
    return uuid.uuid4().hex


class AGUIEvents:
    """Turns one run's stream events into AG-UI events, in order."""

    def __init__(self, thread_id: str, run_id: str, *, state_snapshots: bool = False) -> None:
        self.thread_id = thread_id
        self.run_id = run_id
        self.state_snapshots = state_snapshots
        self.message_id: str | None = None  # the text message open, if any
        self.open_calls: set[str] = set()
        self.started_calls: set[str] = set()
        self.agent: str | None = None
        self.turns = 0
        self.started_at = time.monotonic()
        self.called_at: dict[str, float] = {}  # call id -> when the model's call of it ended

    def started(self) -> list[BaseEvent]:
        """The run's first event."""
        return [RunStartedEvent(thread_id=self.thread_id, run_id=self.run_id)]

    def translate(self, event: RunStreamEvent) -> list[BaseEvent]:
        """The AG-UI events for one stream event (often none).

        Args:
            event: What the run yielded.

        Returns:
            The events to send.
        """
        if event.type == "text_delta_event":
            return self._text(event.delta)
        if event.type == "tool_call_arguments_delta_event":
            return [
                *self._call_started(event.call_id, event.tool_name),
                ToolCallArgsEvent(tool_call_id=event.call_id, delta=event.delta),
            ]
        if event.type == "run_item_stream_event":
            return self._item(event.name, event.item)
        if event.type == "agent_updated_stream_event":
            return self._agent(event.new_agent.name)
        if event.type == "usage_event":
            return self._usage(event)
        return []

    def finished(self, result: RunResultStreaming) -> list[BaseEvent]:
        """The events that end a run: open steps closed, then `RUN_FINISHED`.

        Args:
            result: The run's result, its events all read.

        Returns:
            The events to send.
        """
        events = [*self._close_all()]
        if self.agent is not None:
            events.append(StepFinishedEvent(step_name=self.agent))
        if self.state_snapshots:
            events.append(StateSnapshotEvent(snapshot=_snapshot(result)))
        usage = [
            TokenUsage(
                input_tokens=result.usage.input_tokens,
                output_tokens=result.usage.output_tokens,
                total_tokens=result.usage.total_tokens,
            )
        ]
        if result.interruptions:
            interrupts = [_interrupt(call) for call in result.interruptions]
            outcome: Any = RunFinishedInterruptOutcome(interrupts=interrupts)
            final: Any = None
        else:
            outcome = RunFinishedSuccessOutcome()
            final = _jsonable(result.final_output)
        events.append(
            RunFinishedEvent(
                thread_id=self.thread_id,
                run_id=self.run_id,
                outcome=outcome,
                result=final,
                usage=usage,
            )
        )
        return events

    def failed(self, message: str, code: str) -> list[BaseEvent]:
        """The events that end a failed run: open messages and calls closed, `RUN_ERROR`.

        Args:
            message: What went wrong and what to do.
            code: A short machine-readable reason.

        Returns:
            The events to send.
        """
        return [*self._close_all(), RunErrorEvent(message=message, code=code)]

    # -- pieces -------------------------------------------------------------------------

    def _text(self, delta: str) -> list[BaseEvent]:
        if not delta:
            return []
        events: list[BaseEvent] = []
        if self.message_id is None:
            events.extend(self._close_calls())
            self.message_id = _new_id()
            events.append(TextMessageStartEvent(message_id=self.message_id, role="assistant"))
        events.append(TextMessageContentEvent(message_id=self.message_id, delta=delta))
        return events

    def _close_text(self) -> list[BaseEvent]:
        if self.message_id is None:
            return []
        ended = TextMessageEndEvent(message_id=self.message_id)
        self.message_id = None
        return [ended]

    def _call_started(self, call_id: str, name: str) -> list[BaseEvent]:
        if call_id in self.started_calls:
            return []
        events = self._close_text()
        self.started_calls.add(call_id)
        self.open_calls.add(call_id)
        events.append(ToolCallStartEvent(tool_call_id=call_id, tool_call_name=name))
        return events

    def _close_calls(self) -> list[BaseEvent]:
        events: list[BaseEvent] = [
            ToolCallEndEvent(tool_call_id=c) for c in sorted(self.open_calls)
        ]
        self.open_calls.clear()
        return events

    def _close_all(self) -> list[BaseEvent]:
        return [*self._close_text(), *self._close_calls()]

    def _item(self, name: str, item: Item) -> list[BaseEvent]:
        if name == "message_output_created":
            text = message_text(item) or ""
            if self.message_id is None and text:  # a model that does not stream
                return [*self._text(text), *self._close_text()]
            return self._close_text()
        if name in {"tool_called", "handoff_requested"}:
            call_id = item["call_id"]
            self.called_at[call_id] = time.monotonic()
            events = self._call_started(call_id, item["name"])
            if events:  # no deltas came: the arguments whole
                events.append(ToolCallArgsEvent(tool_call_id=call_id, delta=item["arguments"]))
            if call_id in self.open_calls:
                self.open_calls.discard(call_id)
                events.append(ToolCallEndEvent(tool_call_id=call_id))
            return events
        if name in {"tool_output", "handoff_occured"}:
            call_id = item["call_id"]
            # a call approved in an earlier run started running when this one did
            seconds = time.monotonic() - self.called_at.get(call_id, self.started_at)
            return [
                *self._close_all(),
                ToolCallResultEvent(
                    message_id=_new_id(),
                    tool_call_id=call_id,
                    content=output_text(item),
                    role="tool",
                ),
                CustomEvent(
                    name="tooluse.call",
                    value={"call_id": call_id, "duration_seconds": round(seconds, 6)},
                ),
            ]
        return []

    def _agent(self, name: str) -> list[BaseEvent]:
        if name == self.agent:
            return []
        events = self._close_all()
        if self.agent is not None:
            events.append(StepFinishedEvent(step_name=self.agent))
        self.agent = name
        events.append(StepStartedEvent(step_name=name))
        return events

    def _usage(self, event: UsageStreamEvent) -> list[BaseEvent]:
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
        return [CustomEvent(name="tooluse.usage", value=value)]


def _interrupt(call: ToolApproval) -> Interrupt:
    return Interrupt(
        id=call.approval_id,
        reason="tool_approval",
        message=f"{call.tool_name} waits for approval",
        tool_call_id=call.call_id,
        response_schema=APPROVAL_SCHEMA,
        metadata={"toolName": call.tool_name, "arguments": call.arguments},
    )


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


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return str(value)
    return value
