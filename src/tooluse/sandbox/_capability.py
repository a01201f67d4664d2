"""`Capability`: what a sandbox agent can do in its workspace (tools, and instructions on them)."""

from __future__ import annotations

import copy

from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import Self

from ..tools._toolsets import Tool
from ._manifest import Manifest
from ._session import BaseSandboxSession

__all__ = ["Capability"]


class Capability(BaseModel):
    """Tools and instructions a sandbox agent gets, bound to the run's session.

    Subclass it: `tools()` returns the tools (reading `self.session`, bound before the
    run asks), `instructions(manifest)` what the model is told of them. Each run works
    on its own copy (`clone`), so two runs of one agent never share a session.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    type: str
    """What kind of capability it is (`"shell"`), for people and logs."""
    session: BaseSandboxSession | None = Field(default=None, exclude=True)
    """The run's session, once bound."""

    def clone(self) -> Self:
        """A copy for one run (what `bind` sets on it stays its own).

        Returns:
            The copy.
        """
        return copy.copy(self)

    def bind(self, session: BaseSandboxSession) -> None:
        """Bind the run's session, before `tools()` and `instructions()` are asked.

        Args:
            session: The live session.
        """
        self.session = session

    def tools(self) -> list[Tool]:
        """The tools the agent gets, after its own.

        Returns:
            Function tools and hosted tools (a `ShellTool` whose executor runs in the
            session, say); none by default.
        """
        return []

    async def instructions(self, manifest: Manifest) -> str | None:
        """What the model is told about this capability, after the agent's instructions.

        Args:
            manifest: The session's manifest.

        Returns:
            Text, or None for nothing.
        """
        _ = manifest
        return None
