"""`Manifest`: the files a sandbox workspace starts with, and the paths outside it it may use."""

from __future__ import annotations

import posixpath
from pathlib import PurePath, PurePosixPath
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = ["DEFAULT_ROOT", "File", "Manifest", "SandboxPathGrant"]

DEFAULT_ROOT = "/workspace"
"""The root a manifest names unless told otherwise: a local client makes a fresh temporary
directory for it."""


class File(BaseModel):
    """A file the workspace starts with, given by its bytes."""

    model_config = ConfigDict(frozen=True)

    type: Literal["file"] = "file"
    """Always `file`."""
    content: bytes
    """What the file holds."""


class SandboxPathGrant(BaseModel):
    """Access to an absolute path outside the workspace, read-only or not."""

    path: str
    """The absolute path (a directory or a file) granted."""
    read_only: bool = False
    """True refuses the session's writes under it (`WorkspaceArchiveWriteError`)."""
    description: str | None = None
    """What it is, for the people reading the manifest."""

    @field_validator("path", mode="before")
    @classmethod
    def _absolute(cls, value: object) -> str:
        if isinstance(value, PurePath):
            value = value.as_posix()
        if not isinstance(value, str):
            raise ValueError(f"SandboxPathGrant.path must be a str or Path, not {value!r}")
        path = PurePosixPath(posixpath.normpath(value))
        if not path.is_absolute() or path == PurePosixPath("/"):
            raise ValueError(
                f"SandboxPathGrant.path must be an absolute path other than '/', not {value!r}"
            )
        return path.as_posix()


class Manifest(BaseModel):
    """The files a sandbox workspace starts with, where it lives, and what else it may reach."""

    entries: dict[str, File] = Field(default_factory=dict[str, File])
    """Files by path relative to the workspace root (`notes/a.md`), written when the
    session starts."""
    root: str = DEFAULT_ROOT
    """The workspace's root. The default makes a local client create a fresh temporary
    directory (and delete it with the session); any other path is used as it is, and kept."""
    extra_path_grants: tuple[SandboxPathGrant, ...] = ()
    """Absolute paths outside the workspace the session's `read` and `write` may use."""

    @field_validator("entries")
    @classmethod
    def _relative_paths(cls, entries: dict[str, File]) -> dict[str, File]:
        for name in entries:
            path = PurePosixPath(name)
            if path.is_absolute() or ".." in path.parts or not path.parts:
                raise ValueError(
                    f"Manifest.entries: {name!r} must be a path relative to the workspace "
                    "root without '..' (write 'notes/a.md')"
                )
        return entries
