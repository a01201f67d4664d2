"""What a run returns: `RunResult`, and `RunResultStreaming` with its typed events."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal

from ._agent import Agent
from ._context import Usage
from ._items import Item
from ._state import RunState, ToolApproval
from .exceptions import UserError
from .models import ModelResponse

__all__ = [
    "AgentUpdatedStreamEvent",
    "RawResponsesStreamEvent",
    "RunItemStreamEvent",
    "RunResult",
    "RunResultStreaming",
    "RunStreamEvent",
]


@dataclass(frozen=True)
class RawResponsesStreamEvent:
    """A raw event from the model while it streams (a text or arguments delta, ...)."""

    data: Any
    """The provider's event, as the `openai` package parsed it."""
    type: Literal["raw_response_event"] = "raw_response_event"


@dataclass(frozen=True)
class RunItemStreamEvent:
    """An item the run produced: a message, a tool call, or a tool's output."""

    name: Literal["message_output_created", "tool_called", "tool_output"]
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


@dataclass
class RunResult:
    """The outcome of a run."""

    input: list[Item]
    """The input the run started from, as items."""
    new_items: list[Item]
    """Every item the run added: messages, tool calls, tool outputs."""
    raw_responses: list[ModelResponse]
    """Each model response, in order."""
    final_output: Any
    """The answer: text, or a value of the agent's `output_type`."""
    last_agent: Agent[Any]
    """The agent that answered."""
    usage: Usage = field(default_factory=Usage)
    """What the run used."""
    pending_tool_calls: list[Item] = field(default_factory=list[Item])
    """With `execute_tools=False`: the calls the model asked for, not executed."""
    interruptions: list[ToolApproval] = field(default_factory=list[ToolApproval])
    """Calls waiting for approval; `approve` or `reject` them, then resume with `to_state()`."""
    _state: RunState | None = field(default=None, repr=False)

    def approve(self, call: ToolApproval | str) -> None:
        """Let a waiting call run when the run resumes.

        Args:
            call: One of `interruptions`, or its call id.
        """
        self.to_state().approve(call)

    def reject(
        self, call: ToolApproval | str, message: str = "The user rejected this call."
    ) -> None:
        """Refuse a waiting call: the model gets `message` as the call's output.

        Args:
            call: One of `interruptions`, or its call id.
            message: What the model is told.
        """
        self.to_state().reject(call, message)

    def to_state(self) -> RunState:
        """The paused run's state, to resume with `Runner.run(agent, state)`.

        Returns:
            The state, with the approvals and rejections made so far.

        Raises:
            UserError: If the run is not paused.
        """
        if self._state is None:
            raise UserError("This run is not paused: only a result with interruptions has a state")
        return self._state

    def to_input_list(self) -> list[Item]:
        """The whole conversation, to continue it: add a user message and run again.

        Returns:
            The input items followed by the new items.
        """
        return [*self.input, *self.new_items]


@dataclass
class RunResultStreaming(RunResult):
    """A run in progress: iterate `stream_events()`; the other fields fill in as it goes."""

    is_complete: bool = False
    """Whether the run has finished."""
    _queue: asyncio.Queue[RunStreamEvent | None] = field(
        default_factory=asyncio.Queue[RunStreamEvent | None], repr=False
    )
    _task: asyncio.Task[RunResult] | None = field(default=None, repr=False)

    async def stream_events(self) -> AsyncIterator[RunStreamEvent]:
        """Yield the run's events as they happen, until it ends.

        Yields:
            Raw model deltas, produced items, and agent changes.

        Raises:
            Exception: Whatever ended the run, once the events before it are yielded.
        """
        while (event := await self._queue.get()) is not None:
            yield event
        if self._task is not None:
            self._task.result()  # raises what ended the run, if anything did
