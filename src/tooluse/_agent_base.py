"""`AgentBase`: what the modules below `Agent` know of an agent.

Tool invocation must recognise an agent returned by a tool (a Swarm-style
handoff) without importing `Agent`, which sits above the tools, the runner and
the agent-as-tool adapter. `Agent` subclasses this marker.
"""

from __future__ import annotations

__all__ = ["AgentBase"]


class AgentBase:
    """The base class of `Agent`, for `isinstance` checks below it."""

    __slots__ = ()

    name: str
    """The agent's name."""
