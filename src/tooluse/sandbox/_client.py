"""Sandbox clients (where sessions are made), and `SandboxRunConfig`, a run's sandbox settings."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from abc import ABC, abstractmethod
from dataclasses import dataclass

from ..exceptions import UserError
from ._manifest import DEFAULT_ROOT, Manifest
from ._session import BaseSandboxSession, UnixLocalSandboxSession

__all__ = ["BaseSandboxClient", "SandboxRunConfig", "UnixLocalSandboxClient"]


class BaseSandboxClient(ABC):
    """Makes sandbox sessions, and deletes them."""

    @abstractmethod
    async def create(self, *, manifest: Manifest | None = None) -> BaseSandboxSession:
        """A new session over `manifest`'s workspace, not started yet (`async with` it).

        Args:
            manifest: The workspace's files, root and grants; None for an empty one.

        Returns:
            The session.
        """

    @abstractmethod
    async def delete(self, session: BaseSandboxSession) -> BaseSandboxSession:
        """Remove what `create` made for the session.

        Args:
            session: A session this client made.

        Returns:
            The session.
        """


class UnixLocalSandboxClient(BaseSandboxClient):
    """Sessions in local directories, commands run as local subprocesses.

    For trusted code, or inside isolation of your own: commands run as you, with your
    environment, and are not confined to the workspace.
    """

    async def create(self, *, manifest: Manifest | None = None) -> UnixLocalSandboxSession:
        """A session over a fresh temporary directory, or over the manifest's own root.

        Args:
            manifest: The workspace's files, root and grants; None for an empty one. A
                manifest keeping the default root (`/workspace`) gets a new temporary
                directory, removed by `delete`; another root is used as it is, and kept.

        Returns:
            The session, not started yet: `async with session:` writes the files.

        Raises:
            UserError: `manifest` is not a `Manifest`.
        """
        manifest = Manifest() if manifest is None else manifest
        if not isinstance(manifest, Manifest):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(
                f"UnixLocalSandboxClient.create: manifest must be a Manifest, not "
                f"{type(manifest).__name__}"
            )
        if manifest.root != DEFAULT_ROOT:
            return UnixLocalSandboxSession(manifest, owns_root=False)
        root = await asyncio.to_thread(tempfile.mkdtemp, prefix="sandbox-local-")
        owned = manifest.model_copy(update={"root": root}, deep=True)
        return UnixLocalSandboxSession(owned, owns_root=True)

    async def delete(self, session: BaseSandboxSession) -> BaseSandboxSession:
        """Remove the session's temporary directory (a root of your own is kept).

        Args:
            session: A session this client made.

        Returns:
            The session.

        Raises:
            UserError: The session was not made by a `UnixLocalSandboxClient`.
        """
        if not isinstance(session, UnixLocalSandboxSession):
            raise UserError(
                f"UnixLocalSandboxClient.delete: {type(session).__name__} was not made by "
                "this client; delete it with the client that created it"
            )
        if session.owns_root:
            await asyncio.to_thread(shutil.rmtree, session.root, ignore_errors=True)
        return session


@dataclass
class SandboxRunConfig:
    """Where a run's sandbox agents work: `RunConfig(sandbox=SandboxRunConfig(...))`."""

    client: BaseSandboxClient | None = None
    """Makes a session for each sandbox agent of the run when it first takes over, and
    deletes it when the run ends, however it ends."""
    session: BaseSandboxSession | None = None
    """A live session of yours to use instead (started, and kept: the run neither starts
    nor deletes it)."""
    manifest: Manifest | None = None
    """The workspace for new sessions, instead of each agent's `default_manifest`."""

    def __post_init__(self) -> None:
        if self.client is None and self.session is None:
            raise UserError(
                "SandboxRunConfig: give client=UnixLocalSandboxClient() (a session per "
                "run), or session= a live session of yours"
            )
        if self.client is not None and not isinstance(self.client, BaseSandboxClient):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(
                f"SandboxRunConfig: client must be a sandbox client such as "
                f"UnixLocalSandboxClient(), not {type(self.client).__name__}"
            )
