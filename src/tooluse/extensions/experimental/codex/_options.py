"""The Codex CLI's settings: for the process (`CodexOptions`), a thread, and a turn.

Each is a frozen dataclass, also accepted as a plain dict of the same fields, as in
openai-agents; a key that is no field is refused with the fields there are.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypeVar

from ....exceptions import UserError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = [
    "ApprovalMode",
    "CodexOptions",
    "ModelReasoningEffort",
    "SandboxMode",
    "ThreadOptions",
    "TurnOptions",
    "WebSearchMode",
    "options_of",
]

ApprovalMode: TypeAlias = Literal["never", "on-request", "on-failure", "untrusted"]
"""When Codex asks before it runs a command (`approval_policy`)."""
SandboxMode: TypeAlias = Literal["read-only", "workspace-write", "danger-full-access"]
"""What Codex's commands may touch (`--sandbox`)."""
ModelReasoningEffort: TypeAlias = Literal["minimal", "low", "medium", "high", "xhigh"]
"""How hard Codex's model reasons."""
WebSearchMode: TypeAlias = Literal["disabled", "cached", "live"]
"""Whether Codex searches the web."""


@dataclass(frozen=True)
class CodexOptions:
    """How the Codex CLI is started: which executable, with which environment."""

    codex_path_override: str | None = None
    """The `codex` executable; by default the `CODEX_PATH` variable, then `codex` on PATH."""
    base_url: str | None = None
    """The API's base URL for the CLI (`OPENAI_BASE_URL` in its environment)."""
    api_key: str | None = None
    """The API key for the CLI (`CODEX_API_KEY`); by default `CODEX_API_KEY`, else
    `OPENAI_API_KEY`, from the environment."""
    env: Mapping[str, str] | None = None
    """The CLI's whole environment, in place of this process's."""
    codex_subprocess_stream_limit_bytes: int | None = None
    """The longest event line read from the CLI (8 MiB by default; 64 KiB to 64 MiB)."""


@dataclass(frozen=True)
class ThreadOptions:
    """How Codex works on a thread; each setting left None keeps the CLI's own."""

    model: str | None = None
    """The model Codex uses (`--model`)."""
    sandbox_mode: SandboxMode | None = None
    """What its commands may touch (`--sandbox`)."""
    working_directory: str | None = None
    """The workspace (`--cd`)."""
    skip_git_repo_check: bool | None = None
    """Let Codex work outside a Git repository."""
    model_reasoning_effort: ModelReasoningEffort | None = None
    """How hard its model reasons."""
    network_access_enabled: bool | None = None
    """Whether commands in a `workspace-write` sandbox may reach the network."""
    web_search_mode: WebSearchMode | None = None
    """Whether Codex searches the web (over `web_search_enabled`)."""
    web_search_enabled: bool | None = None
    """Web search on (`live`) or off (`disabled`)."""
    approval_policy: ApprovalMode | None = None
    """When Codex asks before running a command; a tool call cannot answer, so use `never`."""
    additional_directories: Sequence[str] | None = None
    """More directories Codex may write to (`--add-dir`)."""


@dataclass(frozen=True)
class TurnOptions:
    """Settings for one turn of a thread."""

    output_schema: dict[str, Any] | None = None
    """Not built in tooluse: setting it is refused (ask for JSON in the prompt instead)."""
    signal: asyncio.Event | None = None
    """Set it to stop the turn: the CLI is terminated."""
    idle_timeout_seconds: float | None = None
    """Stop the CLI when it writes no event for this long."""

    def __post_init__(self) -> None:
        if self.output_schema is not None:
            raise UserError(
                "TurnOptions(output_schema=...): structured output from Codex is not built "
                "in tooluse; ask for JSON in the task's text and parse the tool's response"
            )
        timeout = self.idle_timeout_seconds
        if timeout is not None and not timeout > 0:
            raise UserError(
                f"TurnOptions(idle_timeout_seconds={timeout!r}): give a number of seconds "
                "above 0, or None for no limit"
            )


TOptions = TypeVar("TOptions", bound="DataclassInstance")


def options_of(
    kind: type[TOptions], value: TOptions | Mapping[str, Any] | None, where: str
) -> TOptions | None:
    """`value` as `kind`: itself, built from a dict of its fields, or None.

    Args:
        kind: The options class.
        value: An instance, a dict of its fields, or None.
        where: The argument that took it, for the error (`codex_tool(codex_options=...)`).

    Returns:
        The options, or None when none were given.

    Raises:
        UserError: `value` is neither, or a dict with a key that is no field.
    """
    if value is None or isinstance(value, kind):
        return value
    if not isinstance(value, Mapping):  # pyright: ignore[reportUnnecessaryIsInstance] - at run time
        raise UserError(f"{where}: give a {kind.__name__} or a dict of its fields")
    known = [f.name for f in fields(kind)]
    unknown = sorted(str(key) for key in value if key not in known)
    if unknown:
        raise UserError(
            f"{where}: {kind.__name__} has no field {', '.join(unknown)}; "
            f"its fields are {', '.join(known)}"
        )
    return kind(**value)
