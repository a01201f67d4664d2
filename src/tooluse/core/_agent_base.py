"""`AgentBase`: what the layers below `Agent` know of an agent.

Its name and handoff description, and that it is one: tool invocation recognises an
agent a tool returns (a Swarm-style handoff) by `isinstance`. `Agent`, defined in
`tooluse.agents` above the tools and guardrails, subclasses it; what those layers hold
or pass on is typed `AgentBase`, or `TAgent` where the caller's own type should come
back out (a `Handoff` to an `Agent` holds an `Agent`).
"""

from __future__ import annotations

from typing_extensions import TypeVar

__all__ = ["AgentBase", "TAgent"]


class AgentBase:
    """The base class of `Agent`, for `isinstance` checks below it."""

    __slots__ = ()

    name: str
    """The agent's name."""
    handoff_description: str | None
    """What the agent does, for agents that hand off to it."""


TAgent = TypeVar("TAgent", bound=AgentBase, default=AgentBase)
"""An agent type, for what lower layers hold or pass on (`Agent` above them)."""
