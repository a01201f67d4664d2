"""Which of an MCP server's tools are offered, and which wait for a human.

`tool_filter` and `require_approval`, in the forms openai-agents takes them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

import mcp_types as types
from typing_extensions import NotRequired, TypedDict

from ..core._agent_base import AgentBase
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
    "check_tool_filter",
    "create_static_tool_filter",
]


@dataclass(frozen=True)
class ToolFilterContext:
    """What a tool filter function is told besides the tool."""

    run_context: RunContextWrapper[Any]
    """The run context."""
    agent: AgentBase | None
    """The agent whose tools are being listed; None when they are listed outside a run
    (`server.list_tools()`)."""
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


def check_tool_filter(owner: str, tool_filter: object) -> None:
    """Refuse a `tool_filter` that is none of its forms.

    Args:
        owner: Who holds it, for the message.
        tool_filter: The filter, as given.

    Raises:
        UserError: Saying which forms are accepted.
    """
    if tool_filter is not None and not callable(tool_filter) and not isinstance(tool_filter, dict):
        raise UserError(
            f"{owner}: tool_filter must be create_static_tool_filter(...), a function of "
            "(ToolFilterContext, tool), or None"
        )


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


def check_require_approval(owner: str, setting: object) -> None:
    """Refuse a `require_approval` that is none of its forms.

    Args:
        owner: Who holds it, for the message.
        setting: The setting, as given.

    Raises:
        UserError: Saying which forms are accepted.
    """
    if (
        setting is None
        or isinstance(setting, bool)
        or (isinstance(setting, str) and setting in _WORDS)
    ):
        return
    if isinstance(setting, Mapping) and all(
        _entry_ok(key, value) for key, value in cast("Mapping[object, object]", setting).items()
    ):
        return
    raise UserError(
        f"{owner}: require_approval={setting!r} must be 'always', 'never', a bool, "
        "{tool_name: 'always' | 'never'}, or {'always' | 'never': {'tool_names': [...]}}"
    )


def _entry_ok(key: object, value: object) -> bool:
    if not isinstance(key, str):
        return False
    if isinstance(value, str):
        return value in _WORDS
    listed = cast("dict[object, object]", value) if isinstance(value, dict) else {}
    return key in _WORDS and isinstance(listed.get("tool_names"), list)


def approval_for(setting: RequireApproval, tool_name: str) -> bool:
    """Whether calls of one tool wait for a human.

    Args:
        setting: The server's `require_approval` (checked by `check_require_approval`).
        tool_name: The server's name for the tool.

    Returns:
        True when the setting asks for approval of this tool.
    """
    if setting is None or isinstance(setting, bool):
        return bool(setting)
    if isinstance(setting, str):
        return _WORDS[setting]
    per_tool = cast("Mapping[str, object]", setting)  # either form: keys are names or words
    for word, approve in _WORDS.items():
        listed = per_tool.get(word)
        if (
            isinstance(listed, dict)
            and tool_name in cast(RequireApprovalToolList, listed)["tool_names"]
        ):
            return approve
    word = per_tool.get(tool_name)
    return _WORDS.get(word, False) if isinstance(word, str) else False
