"""`RunRecord`: what the steps of a run write.

The `RunState` (what a paused or stopped run resumes from), and what the run's
result returns besides it: each raw response and each guardrail's result. A streamed
run's result holds the same lists, so a reader sees them fill as the run goes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

from ..core._factories import new_dict, new_list
from ..core._items import Item
from ..core._state import RunState, ToolApproval
from ..guardrails._agent_guardrails import InputGuardrailResult, OutputGuardrailResult
from ..guardrails._tool_guardrails import ToolInputGuardrailResult, ToolOutputGuardrailResult
from ..models import Model, ModelResponse
from ._context_view import ViewCache

if TYPE_CHECKING:
    from ..agents._agent import Agent

__all__ = ["InputChecks", "NestedPause", "RunRecord"]

InputChecks: TypeAlias = Callable[[Callable[[], Awaitable[None]]], Awaitable[None]]
"""Runs the first model call (the function given) with the run's input guardrails."""


@dataclass
class NestedPause:
    """A nested run that paused: its state, and its waiting calls with their agents."""

    state: RunState
    """The nested run's state, to resume."""
    approvals: list[tuple[ToolApproval, Agent[Any]]]
    """Each call it waits for, and the (nested) agent whose tool it calls."""


@dataclass(eq=False)
class RunRecord:
    """What the steps of a run write: its state, and what it returns besides the state."""

    state: RunState
    """The run as data: what a paused or stopped run resumes from."""
    raw_responses: list[ModelResponse] = field(default_factory=new_list)
    """Each model response, in order."""
    input_checks: InputChecks | None = None
    """The input guardrails, to run with the first model call; None once they have."""
    # The guardrails' results, made when the first is kept (`_lean.add_made`).
    input_guardrail_results: list[InputGuardrailResult] | None = None
    output_guardrail_results: list[OutputGuardrailResult] | None = None
    tool_input_guardrail_results: list[ToolInputGuardrailResult] | None = None
    tool_output_guardrail_results: list[ToolOutputGuardrailResult] | None = None
    model_memo: dict[Any, Any] = field(default_factory=new_dict)
    """What the models keep from one request of the run to the next (`ModelRequest.memo`)."""
    turn_start: int = 0
    """The index in `state.new_items` of the latest model response's first item."""
    agents: list[tuple[int, Any]] = field(default_factory=new_list)
    """Where each agent took over: (index in `state.new_items` of its first item, the
    `Agent`), in order; the result's item objects read their agent from it."""
    context_views: ViewCache | None = None
    """The last history a context policy sent, extended at the next request (made at a
    run's first request with a policy)."""
    nested_paused: dict[str, NestedPause] | None = None
    """The nested runs of agents used as tools that paused in the turn's calls, by call
    id (made at the first; `_nested.settle_nested` takes them after the calls)."""
    models: dict[str | None, Model] | None = None
    """The models the run resolved by name (through the run's provider), by name: each
    is resolved once a run, and closed when the run ends (None until the first)."""

    def error_items(self) -> tuple[list[Item], list[Item]]:
        """The conversation so far and the run's new items, for a `RunStopped` error."""
        return self.state.conversation(), self.state.new_items
