"""Pausing a run for a human, and resuming it: `ToolApproval` and the JSON-safe `RunState`."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from ._context import Usage
from ._items import Item

__all__ = ["RunState", "ToolApproval"]


@dataclass(frozen=True)
class ToolApproval:
    """A tool call waiting for a human's approval."""

    call_id: str
    """The call's id."""
    tool_name: str
    """The tool the model called."""
    arguments: str
    """The raw JSON arguments, for the human to read."""


@dataclass
class RunState:
    """Everything needed to resume a paused run, in another process if need be.

    Pass it as the input of `Runner.run(agent, state)`; `to_json()` and
    `RunState.from_json()` carry it through text.
    """

    agent_name: str
    """The agent that was answering."""
    input: list[Item]
    """The run's original input."""
    new_items: list[Item]
    """The items the run added before pausing."""
    pending_output: list[Item]
    """The model's response whose tool calls wait."""
    decisions: dict[str, dict[str, Any]] = field(default_factory=dict[str, dict[str, Any]])
    """Per call id: `{"approved": bool, "message": str | None}`."""
    usage: Usage = field(default_factory=Usage)
    """What the run used so far."""

    def approve(self, call: ToolApproval | str) -> None:
        """Let a waiting call run when the run resumes.

        Args:
            call: The approval item, or its call id.
        """
        self.decisions[_call_id(call)] = {"approved": True, "message": None}

    def reject(
        self, call: ToolApproval | str, message: str = "The user rejected this call."
    ) -> None:
        """Refuse a waiting call: the model gets `message` as its output.

        Args:
            call: The approval item, or its call id.
            message: What the model is told.
        """
        self.decisions[_call_id(call)] = {"approved": False, "message": message}

    def to_json(self) -> str:
        """The state as JSON text."""
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> RunState:
        """A state back from `to_json()`'s text.

        Args:
            text: The JSON.

        Returns:
            The state.
        """
        data: dict[str, Any] = json.loads(text)
        data["usage"] = Usage(**data.get("usage", {}))
        return cls(**data)


def _call_id(call: ToolApproval | str) -> str:
    return call if isinstance(call, str) else call.call_id
