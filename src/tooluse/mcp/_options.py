"""Which of an MCP server's tools are offered, and which wait for a human.

`tool_filter` and `require_approval`, in the forms openai-agents takes them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

import mcp_types as types
from typing_extensions import NotRequired, TypedDict

from ..core._context import RunContextWrapper
from ..exceptions import UserError

__all__ = [
    "RequireApproval",
    "RequireApprovalToolList",
    "ToolFilter",
    "ToolFilterCallable",
    "ToolFilterContext",
    "ToolFilterStatic",
    "approval_for",
    "check_require_approval",
    "create_static_tool_filter",
]


@dataclass(frozen=True)
class ToolFilterContext:
    """What a tool filter function is told besides the tool."""

    run_context: RunContextWrapper[Any]
    """The run context."""
    agent: Any
    """The agent whose tools are being listed."""
    server_name: str
    """The MCP server's name."""


class ToolFilterStatic(TypedDict):
    """Tools allowed or blocked by name (the server's names, before any prefix)."""

    allowed_tool_names: NotRequired[list[str]]
    """When given, only these tools are offered."""
    blocked_tool_names: NotRequired[list[str]]
    """These tools are never offered."""


ToolFilterCallable = Callable[[ToolFilterContext, types.Tool], "bool | Awaitable[bool]"]
"""Decides, from the context and the server's tool, whether the tool is offered."""
ToolFilter = ToolFilterCallable | ToolFilterStatic | None
"""Names allowed and blocked, a function, or None for every tool."""


def create_static_tool_filter(
    allowed_tool_names: list[str] | None = None, blocked_tool_names: list[str] | None = None
) -> ToolFilterStatic | None:
    """A filter by names, as openai-agents builds one.

    Args:
        allowed_tool_names: Only these tools are offered, when given.
        blocked_tool_names: These tools are never offered.

    Returns:
        The filter, or None when neither list is given.
    """
    if allowed_tool_names is None and blocked_tool_names is None:
        return None
    found: ToolFilterStatic = {}
    if allowed_tool_names is not None:
        found["allowed_tool_names"] = list(allowed_tool_names)
    if blocked_tool_names is not None:
        found["blocked_tool_names"] = list(blocked_tool_names)
    return found


class RequireApprovalToolList(TypedDict):
    """Tools named in a `require_approval` object."""

    tool_names: list[str]
    """The server's names for them (before any prefix)."""


RequireApproval = (
    bool
    | Literal["always", "never"]
    | Mapping[str, Literal["always", "never"]]
    | Mapping[Literal["always", "never"], RequireApprovalToolList]
    | None
)
"""Which calls wait for a human: all (`"always"`, True), none (`"never"`, False, None), or
per tool, as `{"search": "never", "delete": "always"}` or
`{"always": {"tool_names": ["delete"]}}`. Tools not named need no approval."""

_WORDS = {"always": True, "never": False}


def check_require_approval(owner: str, setting: RequireApproval) -> None:
    """Refuse a `require_approval` that is none of its forms.

    Args:
        owner: Who holds it, for the message.
        setting: The setting.

    Raises:
        UserError: Saying which forms are accepted.
    """
    given: Any = setting
    if given is None or isinstance(given, bool) or (isinstance(given, str) and given in _WORDS):
        return
    if isinstance(given, Mapping) and all(
        _entry_ok(key, value) for key, value in cast(Mapping[Any, Any], given).items()
    ):
        return
    raise UserError(
        f"{owner}: require_approval={given!r} must be 'always', 'never', a bool, "
        "{tool_name: 'always' | 'never'}, or {'always' | 'never': {'tool_names': [...]}}"
    )


def _entry_ok(key: Any, value: Any) -> bool:
    if not isinstance(key, str):
        return False
    if isinstance(value, str):
        return value in _WORDS
    names: Any = cast(dict[str, Any], value).get("tool_names") if isinstance(value, dict) else None
    return key in _WORDS and isinstance(names, list)


def approval_for(setting: RequireApproval, tool_name: str) -> bool:
    """Whether calls of one tool wait for a human.

    Args:
        setting: The server's `require_approval` (checked by `check_require_approval`).
        tool_name: The server's name for the tool.

    Returns:
        True when the setting asks for approval of this tool.
    """
    given: Any = setting
    if given is None or isinstance(given, bool):
        return bool(given)
    if isinstance(given, str):
        return _WORDS[given]
    per_tool = cast(Mapping[str, Any], given)
    for word, approve in _WORDS.items():
        listed = per_tool.get(word)
        if isinstance(listed, dict) and tool_name in cast(dict[str, Any], listed)["tool_names"]:
            return approve
    word = per_tool.get(tool_name)
    return _WORDS.get(word, False) if isinstance(word, str) else False
