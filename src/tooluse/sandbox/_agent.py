"""`SandboxAgent`, and how a run gives one its workspace when it takes over.

The run (`tooluse.run._prepare`) asks `_prepare` once per run for each sandbox agent
that takes over: a session is made from the run's `SandboxRunConfig` (and entered, so
the run deletes it when it ends, however it ends), the agent's capabilities are copied
and bound to it, and the agent is replaced for the run by a copy whose tools are its
MCP servers' tools, its own, then the capabilities' (openai-agents' order), and whose
instructions are its own, then the capabilities', then the workspace's layout.
Results still name the agent given (`last_agent`).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, cast

from ..agents._agent import Agent
from ..core._context import RunContextWrapper, TContext
from ..core._factories import new_list
from ..exceptions import UserError
from ..run._prepare import AgentPreparation, prepared_agent, prepares_agents
from ._capability import Capability
from ._client import BaseSandboxClient, SandboxRunConfig
from ._manifest import Manifest
from ._session import BaseSandboxSession

__all__ = ["SandboxAgent"]


@dataclass
class SandboxAgent(Agent[TContext]):
    """An `Agent` that works in a sandbox workspace, with tools its capabilities give.

    The run provides the sandbox: `RunConfig(sandbox=SandboxRunConfig(client=...))`.
    """

    default_manifest: Manifest | None = None
    """The workspace a run makes for it (files, root, extra path grants), unless the run's
    `SandboxRunConfig` gives one; None for an empty workspace."""
    capabilities: Sequence[Capability] = field(default_factory=new_list)
    """What it can do in the workspace: each capability's tools are added after the
    agent's own, and its instructions after the agent's. None by default (openai-agents
    adds a shell, file tools and compaction: list the capabilities you want)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        owner = f"SandboxAgent '{self.name}'"
        manifest = cast(object, self.default_manifest)  # as given: not always a Manifest
        if isinstance(manifest, dict):
            self.default_manifest = Manifest.model_validate(manifest)
        elif manifest is not None and not isinstance(manifest, Manifest):
            raise UserError(
                f"{owner}: default_manifest must be a Manifest, not {type(manifest).__name__}"
            )
        given = cast(object, self.capabilities)
        if isinstance(given, Capability) or not isinstance(given, Sequence):
            raise UserError(f"{owner}: capabilities must be a list of Capability, not {given!r}")
        wrong = [
            f"capabilities[{index}] is a {type(entry).__name__}"
            for index, entry in enumerate(self.capabilities)
            if not isinstance(entry, Capability)  # pyright: ignore[reportUnnecessaryIsInstance]
        ]
        if wrong:
            raise UserError(f"{owner}: {'; '.join(wrong)}, not a Capability subclass instance")


async def _prepare(agent: SandboxAgent[Any], run: AgentPreparation) -> Agent[Any]:
    """The agent as the run uses it: a session made, capabilities bound, tools added."""
    sandbox = _sandbox_of(agent, run.config.sandbox)
    session = sandbox.session
    if session is None:
        assert sandbox.client is not None  # SandboxRunConfig requires one or the other
        manifest = sandbox.manifest or agent.default_manifest or Manifest()
        session = await run.enter(_session(sandbox.client, manifest))
    capabilities = [capability.clone() for capability in agent.capabilities]
    for capability in capabilities:
        capability.bind(session)
    added = [tool for capability in capabilities for tool in capability.tools()]
    servers = list(agent.mcp_servers)
    own = [entry for entry in agent.tools if not any(entry is s for s in servers)]
    prepared = agent.clone(
        tools=[*servers, *own, *added],
        mcp_servers=[],
        capabilities=capabilities,
        instructions=_Instructions(agent, capabilities, session),
    )
    return prepared_agent(prepared, agent)


def _sandbox_of(agent: SandboxAgent[Any], sandbox: object) -> SandboxRunConfig:
    if sandbox is None:
        raise UserError(
            f"SandboxAgent '{agent.name}' took over in a run without a sandbox: pass "
            "run_config=RunConfig(sandbox=SandboxRunConfig(client=UnixLocalSandboxClient())) "
            "to the run (for an agent tool, to as_tool(run_config=...))"
        )
    if not isinstance(sandbox, SandboxRunConfig):
        raise UserError(
            f"RunConfig.sandbox must be a SandboxRunConfig, not {type(sandbox).__name__} "
            f"(SandboxAgent '{agent.name}' took over)"
        )
    return sandbox


@asynccontextmanager
async def _session(
    client: BaseSandboxClient, manifest: Manifest
) -> AsyncGenerator[BaseSandboxSession]:
    """A session from `client`, started, and deleted when the run leaves it."""
    session = await client.create(manifest=manifest)
    try:
        async with session:
            yield session
    finally:
        await client.delete(session)


class _Instructions:
    """A sandbox agent's instructions in a run: its own, its capabilities', the workspace's."""

    def __init__(
        self,
        agent: SandboxAgent[Any],
        capabilities: list[Capability],
        session: BaseSandboxSession,
    ) -> None:
        self.agent = agent
        self.capabilities = capabilities
        self.session = session

    async def __call__(self, context: RunContextWrapper[Any], current: Agent[Any]) -> str:
        parts: list[str] = []
        own = await self.agent.get_system_prompt(context)  # asked with the agent given
        if own:
            parts.append(own)
        manifest = self.session.manifest
        for capability in self.capabilities:
            text = await capability.instructions(manifest)
            if text:
                parts.append(text)
        parts.append(workspace_description(manifest))
        return "\n\n".join(parts)


def workspace_description(manifest: Manifest) -> str:
    """What the model is told of the workspace: its root, its files, the paths granted.

    Args:
        manifest: The session's manifest.

    Returns:
        A short section of the instructions.
    """
    lines = [
        "# Workspace",
        f"Your workspace is the directory `{manifest.root}`; commands start in it.",
    ]
    if manifest.entries:
        lines.append("It started with these files:")
        lines.extend(f"- {name}" for name in sorted(manifest.entries))
    for grant in manifest.extra_path_grants:
        access = "read-only" if grant.read_only else "read and write"
        about = f": {grant.description}" if grant.description else ""
        lines.append(f"- `{grant.path}` outside it ({access}){about}")
    return "\n".join(lines)


prepares_agents(SandboxAgent, _prepare)
