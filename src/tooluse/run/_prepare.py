"""Agents that a run prepares when they take over (a sandbox agent gets its workspace).

A kind of agent registers a preparer (`prepares_agents`); when an agent of that kind
takes over in a run, the run asks the preparer for the agent to use in its place for
the rest of the run (a copy with more tools, say), once per agent and run. What the
preparer enters (`AgentPreparation.enter`) is left when the run ends, however it ends,
with the run's toolsets. With no preparer registered, a run pays one test of an empty
dict per agent taking over.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..agents._agent import Agent
from ..core._context import RunContextWrapper
from ._config import RunConfig

__all__ = ["AgentPreparation", "AgentPreparer", "prepared_agent", "prepares_agents", "public_agent"]

T = TypeVar("T")

_PUBLIC = "_tooluse_public_agent"
"""Where a prepared agent keeps the agent it was made from (not a field: clones drop it)."""


@dataclass(eq=False)
class AgentPreparation:
    """What a preparer gets: the run's settings and context, and a way to set up for the run."""

    config: RunConfig
    """The run's settings."""
    context: RunContextWrapper[Any]
    """The run's context."""
    _stack: Callable[[], AsyncExitStack] = field(repr=False)

    async def enter(self, manager: AbstractAsyncContextManager[T]) -> T:
        """Enter `manager` for the rest of the run; the run leaves it when it ends.

        Args:
            manager: An async context manager (a sandbox session, say).

        Returns:
            What entering it gives.
        """
        return await self._stack().enter_async_context(manager)


AgentPreparer = Callable[[Any, AgentPreparation], Awaitable[Agent[Any]]]
"""Gets an agent taking over, and the run; returns the agent to use in its place."""

PREPARERS: dict[type[Any], AgentPreparer] = {}
"""The preparer of each kind of agent that has one (empty unless, say, tooluse.sandbox
is imported)."""


def prepares_agents(kind: type[Any], preparer: AgentPreparer) -> None:
    """Have runs prepare agents of `kind` (and its subclasses) with `preparer`.

    Args:
        kind: An `Agent` subclass.
        preparer: Returns the agent a run uses in the place of one of `kind`; it marks
            what it returns with `prepared_agent`.
    """
    PREPARERS[kind] = preparer


def prepared_agent(prepared: Agent[Any], public: Agent[Any]) -> Agent[Any]:
    """Mark `prepared` as the run's stand-in for `public`, which results name instead.

    Args:
        prepared: The agent a run answers with.
        public: The agent it was made from, the caller's.

    Returns:
        `prepared`.
    """
    vars(prepared)[_PUBLIC] = public
    return prepared


def public_agent(agent: Agent[Any]) -> Agent[Any]:
    """The caller's agent that `agent` stands in for, or `agent` itself.

    Args:
        agent: The agent answering in a run.

    Returns:
        The agent results and `last_agent` name.
    """
    return vars(agent).get(_PUBLIC, agent)


def preparer_of(agent: Agent[Any]) -> AgentPreparer | None:
    """The preparer for `agent`, unless it is already a prepared stand-in.

    Args:
        agent: The agent taking over.

    Returns:
        The preparer, or None when the agent is used as it is.
    """
    if _PUBLIC in vars(agent):
        return None
    for kind in type(agent).__mro__:
        found = PREPARERS.get(kind)
        if found is not None:
            return found
    return None
