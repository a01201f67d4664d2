"""Swarm-style tool returns: a tool may hand off to an agent, or update the run's context."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeGuard, cast

from ..core._agent_base import AgentBase
from ..core._factories import new_dict

__all__ = ["Result", "apply_context_variables", "is_agent"]


@dataclass
class Result:
    """What a tool returns to do more than answer: hand off, or update the context.

    Example:
        `return Result(value="Refund started.", agent=refunds_agent,
        context_variables={"refund_id": "r-1"})`
    """

    value: Any = ""
    """What the model sees, rendered like any tool output."""
    agent: AgentBase | None = None
    """An `Agent` to hand the conversation to, or None."""
    context_variables: dict[str, Any] = field(default_factory=new_dict)
    """Merged into the run context: a dict context is updated, an object gets attributes set."""


def is_agent(value: object) -> TypeGuard[AgentBase]:
    """Whether `value` is an `Agent`.

    Args:
        value: Anything a tool returned.

    Returns:
        True for an `Agent`.
    """
    return isinstance(value, AgentBase)


def apply_context_variables(context: object, variables: dict[str, object]) -> None:
    """Merge a tool's `context_variables` into the run context.

    Args:
        context: The object passed as `context=` to the run.
        variables: The values to merge.
    """
    if isinstance(context, dict):
        cast(dict[str, object], context).update(variables)
    else:
        for name, value in variables.items():
            setattr(context, name, value)
