"""The events a streamed run yields: raw model deltas, items, agent changes, and more.

The order is documented in docs/running.md (streaming).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ._context import RequestUsage, Usage
from ._guardrails import GuardrailKind
from ._items import Item

if TYPE_CHECKING:
    from ._agent import Agent

__all__ = [
    "AgentUpdatedStreamEvent",
    "GuardrailKind",
    "GuardrailResultStreamEvent",
    "ItemEventName",
    "RawResponsesStreamEvent",
    "RunItemStreamEvent",
    "RunStreamEvent",
    "ToolCallArgumentsDeltaStreamEvent",
    "UsageStreamEvent",
]

ItemEventName = Literal[
    "message_output_created", "tool_called", "tool_output", "handoff_requested", "handoff_occured"
]
"""What an item event reports. `handoff_requested` is a call of a handoff tool and
`handoff_occured` (openai-agents' spelling) the answer to the one taken; their items
are the call and its output, as for `tool_called` and `tool_output`."""


@dataclass(frozen=True)
class RawResponsesStreamEvent:
    """A raw event from the model while it streams (a text or arguments delta, ...)."""

    data: Any
    """The provider's event, as the `openai` package parsed it."""
    type: Literal["raw_response_event"] = "raw_response_event"


@dataclass(frozen=True)
class RunItemStreamEvent:
    """An item the run produced: a message, a tool call, or a tool's output."""

    name: ItemEventName
    """What happened."""
    item: Item
    """The item."""
    type: Literal["run_item_stream_event"] = "run_item_stream_event"


@dataclass(frozen=True)
class AgentUpdatedStreamEvent:
    """The agent answering changed (at the start of the run, and at each handoff)."""

    new_agent: Agent[Any]
    """The agent now answering."""
    type: Literal["agent_updated_stream_event"] = "agent_updated_stream_event"


@dataclass(frozen=True)
class ToolCallArgumentsDeltaStreamEvent:
    """A piece of a function call's arguments, as the model streams them (either API)."""

    call_id: str
    """The call the piece belongs to (its `tool_called` item event comes after the pieces)."""
    tool_name: str
    """The tool called."""
    delta: str
    """The piece of the arguments' JSON text; a call's pieces joined are its arguments."""
    type: Literal["tool_call_arguments_delta_event"] = "tool_call_arguments_delta_event"


@dataclass(frozen=True)
class GuardrailResultStreamEvent:
    """A guardrail finished (one that trips ends the events with its error)."""

    kind: GuardrailKind
    """Which guardrail: of the run's input, its output, or a tool call's input or output."""
    result: Any
    """Its result: `InputGuardrailResult`, `OutputGuardrailResult`,
    `ToolInputGuardrailResult` or `ToolOutputGuardrailResult`."""
    type: Literal["guardrail_result_event"] = "guardrail_result_event"


@dataclass(frozen=True)
class UsageStreamEvent:
    """A model response arrived: what it used, and the run's usage so far."""

    request: RequestUsage
    """This call's usage."""
    usage: Usage
    """The run's usage so far (the same object as `result.usage`: it keeps growing)."""
    type: Literal["usage_event"] = "usage_event"


RunStreamEvent = (
    RawResponsesStreamEvent
    | RunItemStreamEvent
    | AgentUpdatedStreamEvent
    | ToolCallArgumentsDeltaStreamEvent
    | GuardrailResultStreamEvent
    | UsageStreamEvent
)
"""Any event `RunResultStreaming.stream_events()` yields."""
