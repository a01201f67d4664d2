"""The events a streamed run yields: raw model deltas, items, agent changes, and more.

The order is documented in docs/running.md (streaming). A run makes one event per
model delta, so they are dataclasses with `__slots__` and an `__init__` of their own (a
frozen dataclass's costs twice as much to build); as openai-agents' events, they are
not frozen, and `type` is a field with a default, kept on the class rather than in every
event. They hash by their fields, as a frozen dataclass would.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ..agents._agent import Agent
from ..core._context import RequestUsage, Usage
from ..exceptions import UserError
from ..guardrails._checks import GuardrailKind
from ._run_items import RunItem

__all__ = [
    "AgentUpdatedStreamEvent",
    "GuardrailKind",
    "GuardrailResultStreamEvent",
    "ItemEventName",
    "RawResponsesStreamEvent",
    "RunItemStreamEvent",
    "RunStreamEvent",
    "TextDeltaStreamEvent",
    "ToolCallArgumentsDeltaStreamEvent",
    "UsageStreamEvent",
]

ItemEventName = Literal[
    "message_output_created",
    "tool_called",
    "tool_output",
    "handoff_requested",
    "handoff_occured",
    "mcp_list_tools",
    "mcp_approval_requested",
    "mcp_approval_response",
    "reasoning_item_created",
]
"""What an item event reports. `handoff_requested` is a call of a handoff tool and
`handoff_occured` (openai-agents' spelling) the answer to the one taken; their items
are the call and its output, as for `tool_called` and `tool_output`. A hosted MCP
server's items have names of their own, as in openai-agents: `mcp_list_tools` (its
tools, listed), `mcp_approval_requested` (it asks before running one) and
`mcp_approval_response` (the run's answer); its `mcp_call` is a `tool_called`, as are the
calls of the other hosted tools (`web_search_call`, `file_search_call`, ...) and of the
computer and shell tools. The model's reasoning is a `reasoning_item_created`."""


def _wrong_type(event: object, given: str, expected: str) -> UserError:
    return UserError(
        f"{type(event).__name__} has type {expected!r}, not {given!r}: leave `type` out"
    )


@dataclass(init=False, unsafe_hash=True)
class RawResponsesStreamEvent:
    """A raw event from the model while it streams (a text or arguments delta, ...)."""

    # `run._model_call._Stream.read` makes the delta events without `__init__` (only
    # `data` is set): a field added here must be set there too.

    __slots__ = ("data",)
    data: Any
    """The provider's event, as its SDK parsed it (for the OpenAI models, `openai`'s)."""
    type: Literal["raw_response_event"] = "raw_response_event"

    def __init__(
        self, data: Any, type: Literal["raw_response_event"] = "raw_response_event"
    ) -> None:
        self.data = data
        if type != "raw_response_event":  # openai-agents' events take `type` too
            raise _wrong_type(self, type, "raw_response_event")


@dataclass(init=False, unsafe_hash=True)
class TextDeltaStreamEvent:
    """A piece of the answer's text as the model streams it, whatever the provider.

    Print `event.delta` as it comes to show the answer taking shape; the raw event it
    came in is a `RawResponsesStreamEvent` just before it.
    """

    __slots__ = ("delta",)
    delta: str
    """The piece of text."""
    type: Literal["text_delta_event"] = "text_delta_event"

    def __init__(self, delta: str, type: Literal["text_delta_event"] = "text_delta_event") -> None:
        self.delta = delta
        if type != "text_delta_event":
            raise _wrong_type(self, type, "text_delta_event")


@dataclass(init=False, unsafe_hash=True)
class RunItemStreamEvent:
    """An item the run produced: a message, a tool call, or a tool's output."""

    __slots__ = ("item", "name")
    name: ItemEventName
    """What happened."""
    item: RunItem
    """The item: a `MessageOutputItem`, `ToolCallItem`, ... (it reads as its dict too)."""
    type: Literal["run_item_stream_event"] = "run_item_stream_event"

    def __init__(
        self, name: ItemEventName, item: RunItem, type: str = "run_item_stream_event"
    ) -> None:
        self.name = name
        self.item = item
        if type != "run_item_stream_event":  # openai-agents' events take `type` too
            raise _wrong_type(self, type, "run_item_stream_event")


@dataclass(init=False, unsafe_hash=True)
class AgentUpdatedStreamEvent:
    """The agent answering changed (at the start of the run, and at each handoff)."""

    __slots__ = ("new_agent",)
    new_agent: Agent[Any]
    """The agent now answering."""
    type: Literal["agent_updated_stream_event"] = "agent_updated_stream_event"

    def __init__(
        self,
        new_agent: Agent[Any],
        type: Literal["agent_updated_stream_event"] = "agent_updated_stream_event",
    ) -> None:
        self.new_agent = new_agent
        if type != "agent_updated_stream_event":  # openai-agents' events take `type` too
            raise _wrong_type(self, type, "agent_updated_stream_event")


@dataclass(init=False, unsafe_hash=True)
class ToolCallArgumentsDeltaStreamEvent:
    """A piece of a function call's arguments, as the model streams them (either API)."""

    __slots__ = ("call_id", "delta", "tool_name")
    call_id: str
    """The call the piece belongs to (its `tool_called` item event comes after the pieces)."""
    tool_name: str
    """The tool called."""
    delta: str
    """The piece of the arguments' JSON text; a call's pieces joined are its arguments."""
    type: Literal["tool_call_arguments_delta_event"] = "tool_call_arguments_delta_event"

    def __init__(
        self,
        call_id: str,
        tool_name: str,
        delta: str,
        type: str = "tool_call_arguments_delta_event",
    ) -> None:
        self.call_id = call_id
        self.tool_name = tool_name
        self.delta = delta
        if type != "tool_call_arguments_delta_event":  # openai-agents' events take `type` too
            raise _wrong_type(self, type, "tool_call_arguments_delta_event")


@dataclass(init=False, unsafe_hash=True)
class GuardrailResultStreamEvent:
    """A guardrail finished (one that trips ends the events with its error)."""

    __slots__ = ("kind", "result")
    kind: GuardrailKind
    """Which guardrail: of the run's input, its output, or a tool call's input or output."""
    result: Any
    """Its result: `InputGuardrailResult`, `OutputGuardrailResult`,
    `ToolInputGuardrailResult` or `ToolOutputGuardrailResult`."""
    type: Literal["guardrail_result_event"] = "guardrail_result_event"

    def __init__(
        self, kind: GuardrailKind, result: Any, type: str = "guardrail_result_event"
    ) -> None:
        self.kind = kind
        self.result = result
        if type != "guardrail_result_event":  # openai-agents' events take `type` too
            raise _wrong_type(self, type, "guardrail_result_event")


@dataclass(init=False, unsafe_hash=True)
class UsageStreamEvent:
    """A model response arrived: what it used, and the run's usage so far."""

    __slots__ = ("request", "usage")
    request: RequestUsage
    """This call's usage."""
    usage: Usage
    """The run's usage so far (the same object as `result.usage`: it keeps growing)."""
    type: Literal["usage_event"] = "usage_event"

    def __init__(
        self, request: RequestUsage, usage: Usage, type: Literal["usage_event"] = "usage_event"
    ) -> None:
        self.request = request
        self.usage = usage
        if type != "usage_event":  # openai-agents' events take `type` too
            raise _wrong_type(self, type, "usage_event")


RunStreamEvent = (
    RawResponsesStreamEvent
    | TextDeltaStreamEvent
    | RunItemStreamEvent
    | AgentUpdatedStreamEvent
    | ToolCallArgumentsDeltaStreamEvent
    | GuardrailResultStreamEvent
    | UsageStreamEvent
)
"""Any event `RunResultStreaming.stream_events()` yields."""
