"""What a sandbox refuses, and what fails in it: each error names the path or command."""

from __future__ import annotations

from pathlib import PurePath

from ..core._errors import TooluseError

__all__ = [
    "ExecTimeoutError",
    "ExecTransportError",
    "InvalidManifestPathError",
    "SandboxError",
    "WorkspaceArchiveReadError",
    "WorkspaceArchiveWriteError",
    "WorkspaceReadNotFoundError",
]


class SandboxError(TooluseError):
    """Base of the errors a sandbox session raises."""


class InvalidManifestPathError(SandboxError):
    """A path outside the workspace and outside every `extra_path_grants` entry."""

    def __init__(self, path: str | PurePath, where: str) -> None:
        """Say which path was refused, where, and how to allow it.

        Args:
            path: The path as it was given.
            where: The operation and workspace, for the message.
        """
        self.path = str(path)
        """The path refused."""
        super().__init__(
            f"{where}: {self.path!r} is outside the sandbox workspace and its extra path "
            "grants; use a path relative to the workspace, or add a "
            "SandboxPathGrant(path=...) for it to Manifest(extra_path_grants=...)"
        )


class WorkspaceArchiveWriteError(SandboxError):
    """A write the sandbox refused (a read-only grant) or that failed."""

    def __init__(self, path: str | PurePath, reason: str) -> None:
        """Say which write failed, and why.

        Args:
            path: The path written.
            reason: Why, and what to do about it.
        """
        self.path = str(path)
        """The path written."""
        super().__init__(f"Cannot write {self.path!r} in the sandbox: {reason}")


class WorkspaceArchiveReadError(SandboxError):
    """A read that failed (a directory, a file without permission)."""

    def __init__(self, path: str | PurePath, reason: str) -> None:
        """Say which read failed, and why.

        Args:
            path: The path read.
            reason: Why.
        """
        self.path = str(path)
        """The path read."""
        super().__init__(f"Cannot read {self.path!r} in the sandbox: {reason}")


class WorkspaceReadNotFoundError(WorkspaceArchiveReadError):
    """A read of a file that does not exist."""

    def __init__(self, path: str | PurePath) -> None:
        """Say which file is missing.

        Args:
            path: The path read.
        """
        super().__init__(path, "no such file (list the workspace with exec('ls', '-R'))")


class ExecTimeoutError(SandboxError):
    """A command that ran past its timeout; it was killed with its process group."""

    def __init__(self, command: str, timeout: float) -> None:
        """Say which command timed out, after how long.

        Args:
            command: The command, as one line.
            timeout: The timeout, in seconds.
        """
        self.command = command
        """The command."""
        self.timeout = timeout
        """Its timeout, in seconds."""
        super().__init__(
            f"Sandbox command {command!r} ran past its {timeout:g} s timeout and was killed; "
            "give exec() a longer timeout= or None"
        )


class ExecTransportError(SandboxError):
    """A command that could not be started (no such program, a workspace removed)."""

    def __init__(self, command: str, reason: str) -> None:
        """Say which command could not start, and why.

        Args:
            command: The command, as one line.
            reason: Why.
        """
        self.command = command
        """The command."""
        super().__init__(f"Cannot run {command!r} in the sandbox: {reason}")
