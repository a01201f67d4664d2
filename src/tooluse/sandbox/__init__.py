"""Sandboxes: a workspace directory an agent works in through the tools its capabilities give.

A `SandboxAgent` names the files its workspace starts with (`Manifest`) and what it
can do there (`Capability` subclasses: a shell tool, say); the run provides the
sandbox, `RunConfig(sandbox=SandboxRunConfig(client=UnixLocalSandboxClient()))`,
makes a session when the agent first takes over and deletes it when the run ends.
openai-agents' `agents.sandbox` names, for the local Unix backend; code importing them
from its submodules (`agents.sandbox.entries`, `.errors`, `.sandboxes.unix_local`,
`.session.base_sandbox_session`) imports them from here.

Imports: the run loop and the layers below it. `import tooluse` does not import it.
"""

from __future__ import annotations

from ._agent import SandboxAgent
from ._capability import Capability
from ._client import BaseSandboxClient, SandboxRunConfig, UnixLocalSandboxClient
from ._errors import (
    ExecTimeoutError,
    ExecTransportError,
    InvalidManifestPathError,
    SandboxError,
    WorkspaceArchiveReadError,
    WorkspaceArchiveWriteError,
    WorkspaceReadNotFoundError,
)
from ._manifest import File, Manifest, SandboxPathGrant
from ._session import BaseSandboxSession, ExecResult, UnixLocalSandboxSession

__all__ = [
    "BaseSandboxClient",
    "BaseSandboxSession",
    "Capability",
    "ExecResult",
    "ExecTimeoutError",
    "ExecTransportError",
    "File",
    "InvalidManifestPathError",
    "Manifest",
    "SandboxAgent",
    "SandboxError",
    "SandboxPathGrant",
    "SandboxRunConfig",
    "UnixLocalSandboxClient",
    "UnixLocalSandboxSession",
    "WorkspaceArchiveReadError",
    "WorkspaceArchiveWriteError",
    "WorkspaceReadNotFoundError",
]
