"""Sandbox sessions: a workspace directory, the commands run in it, its files read and written.

`BaseSandboxSession` holds what every backend shares: the manifest, the path rules
(a relative path is under the workspace root; an absolute one must be under the root
or an `extra_path_grants` entry, and a read-only grant refuses writes) and the
command line `exec` builds. `UnixLocalSandboxSession` is the local backend: a host
directory, and commands run by `sh` as subprocesses in it. Like openai-agents' Unix
backend on Linux, it adds no OS confinement: a command may reach any path the user
running it can; the path rules bind `read` and `write`, not the commands.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import shlex
import signal
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path, PurePath
from types import TracebackType

from typing_extensions import Self

from ._errors import (
    ExecTimeoutError,
    ExecTransportError,
    InvalidManifestPathError,
    WorkspaceArchiveReadError,
    WorkspaceArchiveWriteError,
    WorkspaceReadNotFoundError,
)
from ._manifest import Manifest

__all__ = ["BaseSandboxSession", "ExecResult", "UnixLocalSandboxSession"]


@dataclass(frozen=True)
class ExecResult:
    """What a command printed, and its exit code."""

    stdout: bytes
    """Its standard output."""
    stderr: bytes
    """Its standard error."""
    exit_code: int
    """Its exit code (0: it succeeded)."""

    def ok(self) -> bool:
        """Whether the command succeeded.

        Returns:
            True when its exit code is 0.
        """
        return self.exit_code == 0


class BaseSandboxSession(ABC):
    """A live sandbox workspace: start it (`async with session:`), then run and read in it."""

    def __init__(self, manifest: Manifest) -> None:
        """A session over `manifest`'s workspace; nothing exists until it starts.

        Args:
            manifest: The workspace's files, root and extra path grants.
        """
        self.manifest = manifest
        """The manifest the workspace was made from (its `root` is where it lives)."""

    @property
    def root(self) -> Path:
        """The workspace's root directory."""
        return Path(self.manifest.root)

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.stop()

    @abstractmethod
    async def start(self) -> None:
        """Make the workspace: its root, and the manifest's files in it."""

    async def stop(self) -> None:  # noqa: B027 - most backends have nothing to stop
        """Stop using the workspace (its files stay until the client deletes the session)."""

    def normalize_path(self, path: str | PurePath, *, for_write: bool = False) -> Path:
        """The absolute host path `path` names, if the session may use it.

        Args:
            path: Relative to the workspace root, or absolute.
            for_write: Whether it is to be written (read-only grants refuse it).

        Returns:
            The path, with symlinks resolved.

        Raises:
            InvalidManifestPathError: It is outside the workspace and every grant (a
                relative path must stay under the root: grants take absolute paths).
            WorkspaceArchiveWriteError: It is to be written under a read-only grant.
        """
        root = self.root.resolve()
        given = Path(path)
        resolved = (given if given.is_absolute() else root / given).resolve()
        if resolved.is_relative_to(root):
            return resolved
        if given.is_absolute():
            # The most specific grant decides (a writable folder inside a read-only one).
            grants = sorted(
                self.manifest.extra_path_grants, key=lambda g: len(g.path), reverse=True
            )
            for grant in grants:
                if resolved.is_relative_to(Path(grant.path).resolve()):
                    if for_write and grant.read_only:
                        raise WorkspaceArchiveWriteError(
                            resolved,
                            f"it is under the read-only grant {grant.path!r}; write under the "
                            "workspace, or grant it with SandboxPathGrant(read_only=False)",
                        )
                    return resolved
        operation = "write" if for_write else "read"
        raise InvalidManifestPathError(path, f"{type(self).__name__}.{operation}")

    async def exec(
        self, *command: str | PurePath, timeout: float | None = None, shell: bool | list[str] = True
    ) -> ExecResult:
        """Run a command in the workspace (its working directory, and `HOME`).

        Args:
            *command: The command: one shell line, or a program and its arguments.
            timeout: Seconds it may run; then it is killed with its process group.
            shell: True runs it with `sh -c` (several parts are joined, quoted); a list
                is the shell to use (`["bash", "-c"]`); False runs the program directly.

        Returns:
            What it printed, and its exit code (a failing command is not an error).

        Raises:
            ExecTimeoutError: It ran past `timeout`.
            ExecTransportError: It could not be started.
        """
        if not command:
            raise ExecTransportError("", "no command given: exec('ls', '-la') or exec('ls -la')")
        parts = [str(part) for part in command]
        line = parts[0] if len(parts) == 1 and shell is not False else shlex.join(parts)
        if shell is not False:
            parts = [*(["sh", "-c"] if shell is True else shell), line]
        return await self._run(parts, timeout, line)

    async def read(self, path: str | PurePath) -> io.BytesIO:
        """A file's bytes, as a binary file object.

        Args:
            path: Relative to the workspace root, or absolute (under the root or a grant).

        Returns:
            The file's content, from its start.

        Raises:
            InvalidManifestPathError: The path is outside the workspace and its grants.
            WorkspaceReadNotFoundError: There is no such file.
            WorkspaceArchiveReadError: It cannot be read (a directory, say).
        """
        return io.BytesIO(await self._read_bytes(self.normalize_path(path), path))

    async def write(self, path: str | PurePath, data: io.IOBase | bytes) -> None:
        """Write a file (its folders made), from a binary stream or bytes.

        Args:
            path: Relative to the workspace root, or absolute (under the root or a
                writable grant).
            data: A binary file object (`io.BytesIO(b"...")`), or bytes.

        Raises:
            InvalidManifestPathError: The path is outside the workspace and its grants.
            WorkspaceArchiveWriteError: The path is under a read-only grant, `data` is
                not binary, or the write failed.
        """
        target = self.normalize_path(path, for_write=True)
        content = data if isinstance(data, bytes) else data.read()
        if not isinstance(content, bytes):
            raise WorkspaceArchiveWriteError(
                path, f"data gave {type(content).__name__}, not bytes; pass io.BytesIO(b'...')"
            )
        await self._write_bytes(target, content)

    @abstractmethod
    async def _run(self, argv: list[str], timeout: float | None, shown: str) -> ExecResult:
        """Run `argv` in the workspace; `shown` is the command as given, for errors."""

    @abstractmethod
    async def _read_bytes(self, target: Path, given: str | PurePath) -> bytes:
        """Read `target` (checked); `given` is the path as given, for errors."""

    @abstractmethod
    async def _write_bytes(self, target: Path, content: bytes) -> None:
        """Write `target` (checked), making its folders."""


class UnixLocalSandboxSession(BaseSandboxSession):
    """A workspace in a host directory; commands run there as local subprocesses."""

    def __init__(self, manifest: Manifest, *, owns_root: bool) -> None:
        """A session over a host directory.

        Args:
            manifest: The workspace's files, root (a host directory) and grants.
            owns_root: Whether deleting the session removes the root (a temporary one).
        """
        super().__init__(manifest)
        self.owns_root = owns_root
        """Whether the client removes the root when the session is deleted."""

    async def start(self) -> None:
        """Make the root, and write the manifest's files in it.

        Raises:
            WorkspaceArchiveWriteError: A file could not be written.
        """
        root = self.root
        await asyncio.to_thread(root.mkdir, parents=True, exist_ok=True)
        for name, entry in self.manifest.entries.items():
            await self._write_bytes(root / name, entry.content)

    async def _run(self, argv: list[str], timeout: float | None, shown: str) -> ExecResult:
        line = shown
        if not self.root.is_dir():
            raise ExecTransportError(
                line, f"the workspace {str(self.root)!r} does not exist: start the session first"
            )
        env = {**os.environ, "HOME": str(self.root)}
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                cwd=self.root,
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,  # its own process group: a timeout kills all of it
            )
        except OSError as error:
            raise ExecTransportError(line, error.strerror or type(error).__name__) from error
        try:
            stdout, stderr = await asyncio.wait_for(process.communicate(), timeout)
        except BaseException as error:  # a timeout, or the run cancelled: nothing left behind
            _kill_group(process.pid)
            await process.wait()
            if isinstance(error, asyncio.TimeoutError):  # not the builtin one on 3.10
                assert timeout is not None  # wait_for times out only with one
                raise ExecTimeoutError(line, timeout) from None
            raise
        return ExecResult(stdout, stderr, process.returncode or 0)

    async def _read_bytes(self, target: Path, given: str | PurePath) -> bytes:
        try:
            return await asyncio.to_thread(target.read_bytes)
        except FileNotFoundError:
            raise WorkspaceReadNotFoundError(given) from None
        except OSError as error:
            raise WorkspaceArchiveReadError(given, error.strerror or str(error)) from None

    async def _write_bytes(self, target: Path, content: bytes) -> None:
        def write() -> None:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)

        try:
            await asyncio.to_thread(write)
        except OSError as error:
            raise WorkspaceArchiveWriteError(target, error.strerror or str(error)) from None


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):  # it had ended
        os.killpg(pid, signal.SIGKILL)
