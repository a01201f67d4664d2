"""The events a streamed run yields: raw model deltas, items, agent changes, and more.

The order is documented in docs/running.md (streaming). A run makes one event per
model delta, so they are plain classes with `__slots__` (a frozen dataclass costs twice
as much to build); they compare, hash and print as dataclasses would, and `type` is a
class attribute.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Literal

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


class _Event:
    """What the events share: equality, hashing and a repr over their fields, then `type`."""

    __slots__ = ()
    __match_args__: ClassVar[tuple[str, ...]]  # the fields, then `type`

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Event) or other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__match_args__)
        return f"{type(self).__name__}({fields})"


class RawResponsesStreamEvent(_Event):
    """A raw event from the model while it streams (a text or arguments delta, ...)."""

    __slots__ = ("data",)
    __match_args__ = ("data", "type")

    data: Any
    """The provider's event, as the `openai` package parsed it."""
    type: ClassVar[Literal["raw_response_event"]] = "raw_response_event"

    def __init__(self, data: Any) -> None:
        self.data = data


class RunItemStreamEvent(_Event):
    """An item the run produced: a message, a tool call, or a tool's output."""

    __slots__ = ("item", "name")
    __match_args__ = ("name", "item", "type")

    name: ItemEventName
    """What happened."""
    item: Item
    """The item."""
    type: ClassVar[Literal["run_item_stream_event"]] = "run_item_stream_event"

    def __init__(self, name: ItemEventName, item: Item) -> None:
        self.name = name
        self.item = item


class AgentUpdatedStreamEvent(_Event):
    """The agent answering changed (at the start of the run, and at each handoff)."""

    __slots__ = ("new_agent",)
    __match_args__ = ("new_agent", "type")

    new_agent: Agent[Any]
    """The agent now answering."""
    type: ClassVar[Literal["agent_updated_stream_event"]] = "agent_updated_stream_event"

    def __init__(self, new_agent: Agent[Any]) -> None:
        self.new_agent = new_agent


class ToolCallArgumentsDeltaStreamEvent(_Event):
    """A piece of a function call's arguments, as the model streams them (either API)."""

    __slots__ = ("call_id", "delta", "tool_name")
    __match_args__ = ("call_id", "tool_name", "delta", "type")

    call_id: str
    """The call the piece belongs to (its `tool_called` item event comes after the pieces)."""
    tool_name: str
    """The tool called."""
    delta: str
    """The piece of the arguments' JSON text; a call's pieces joined are its arguments."""
    type: ClassVar[Literal["tool_call_arguments_delta_event"]] = "tool_call_arguments_delta_event"

    def __init__(self, call_id: str, tool_name: str, delta: str) -> None:
        self.call_id = call_id
        self.tool_name = tool_name
        self.delta = delta


class GuardrailResultStreamEvent(_Event):
    """A guardrail finished (one that trips ends the events with its error)."""

    __slots__ = ("kind", "result")
    __match_args__ = ("kind", "result", "type")

    kind: GuardrailKind
    """Which guardrail: of the run's input, its output, or a tool call's input or output."""
    result: Any
    """Its result: `InputGuardrailResult`, `OutputGuardrailResult`,
    `ToolInputGuardrailResult` or `ToolOutputGuardrailResult`."""
    type: ClassVar[Literal["guardrail_result_event"]] = "guardrail_result_event"

    def __init__(self, kind: GuardrailKind, result: Any) -> None:
        self.kind = kind
        self.result = result


class UsageStreamEvent(_Event):
    """A model response arrived: what it used, and the run's usage so far."""

    __slots__ = ("request", "usage")
    __match_args__ = ("request", "usage", "type")

    request: RequestUsage
    """This call's usage."""
    usage: Usage
    """The run's usage so far (the same object as `result.usage`: it keeps growing)."""
    type: ClassVar[Literal["usage_event"]] = "usage_event"

    def __init__(self, request: RequestUsage, usage: Usage) -> None:
        self.request = request
        self.usage = usage


RunStreamEvent = (
    RawResponsesStreamEvent
    | RunItemStreamEvent
    | AgentUpdatedStreamEvent
    | ToolCallArgumentsDeltaStreamEvent
    | GuardrailResultStreamEvent
    | UsageStreamEvent
)
"""Any event `RunResultStreaming.stream_events()` yields."""
