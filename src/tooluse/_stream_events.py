"""The events a streamed run yields: raw model deltas, items, and agent changes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ._items import Item

if TYPE_CHECKING:
    from ._agent import Agent

__all__ = [
    "AgentUpdatedStreamEvent",
    "ItemEventName",
    "RawResponsesStreamEvent",
    "RunItemStreamEvent",
    "RunStreamEvent",
]

ItemEventName = Literal["message_output_created", "tool_called", "tool_output"]


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


RunStreamEvent = RawResponsesStreamEvent | RunItemStreamEvent | AgentUpdatedStreamEvent
"""Any event `RunResultStreaming.stream_events()` yields."""
