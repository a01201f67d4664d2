"""The Codex CLI's JSONL events (`codex exec --experimental-json`), one typed class each.

Each line the CLI writes is one event: a thread started, a turn started, completed or
failed, an item (a message, reasoning, a command, a file change, an MCP call, a web
search, a to-do list, an error) started, updated or completed, or a stream error. A
field the CLI leaves out takes its empty value, and an event or item of a type this
module does not know is kept as `UnknownThreadEvent` or `UnknownThreadItem`, so that a
newer CLI does not break a run.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, cast

__all__ = [
    "AgentMessageItem",
    "CodexProtocolError",
    "CommandExecutionItem",
    "ErrorItem",
    "FileChangeItem",
    "FileUpdateChange",
    "ItemCompletedEvent",
    "ItemStartedEvent",
    "ItemUpdatedEvent",
    "McpToolCallError",
    "McpToolCallItem",
    "McpToolCallResult",
    "ReasoningItem",
    "ThreadError",
    "ThreadErrorEvent",
    "ThreadEvent",
    "ThreadItem",
    "ThreadStartedEvent",
    "TodoItem",
    "TodoListItem",
    "TurnCompletedEvent",
    "TurnFailedEvent",
    "TurnStartedEvent",
    "UnknownThreadEvent",
    "UnknownThreadItem",
    "Usage",
    "parse_event",
]

Raw: TypeAlias = Mapping[str, Any]


class CodexProtocolError(RuntimeError):
    """The Codex CLI wrote a line that is not a JSON event object."""


# --- items --------------------------------------------------------------------------------


@dataclass(frozen=True)
class AgentMessageItem:
    """A message from Codex's agent; the turn's last one is its final response."""

    id: str
    """The item's id within the thread."""
    text: str
    """The message."""
    type: Literal["agent_message"] = field(default="agent_message", init=False)


@dataclass(frozen=True)
class ReasoningItem:
    """A summary of Codex's reasoning."""

    id: str
    """The item's id within the thread."""
    text: str
    """The reasoning summary."""
    type: Literal["reasoning"] = field(default="reasoning", init=False)


@dataclass(frozen=True)
class CommandExecutionItem:
    """A command Codex runs in its sandbox."""

    id: str
    """The item's id within the thread."""
    command: str
    """The command line."""
    status: str
    """`in_progress`, `completed` or `failed`."""
    aggregated_output: str = ""
    """Its output so far (stdout and stderr)."""
    exit_code: int | None = None
    """Its exit status, once it ended."""
    type: Literal["command_execution"] = field(default="command_execution", init=False)


@dataclass(frozen=True)
class FileUpdateChange:
    """One file a patch touches."""

    path: str
    """The file's path."""
    kind: str
    """`add`, `delete` or `update`."""


@dataclass(frozen=True)
class FileChangeItem:
    """A patch Codex applies to the workspace."""

    id: str
    """The item's id within the thread."""
    changes: list[FileUpdateChange]
    """The files it touches."""
    status: str
    """`completed` or `failed`."""
    type: Literal["file_change"] = field(default="file_change", init=False)


@dataclass(frozen=True)
class McpToolCallResult:
    """What an MCP tool Codex called returned."""

    content: list[Any]
    """The MCP content blocks, as the CLI wrote them."""
    structured_content: Any
    """The structured result, if any."""


@dataclass(frozen=True)
class McpToolCallError:
    """Why an MCP tool Codex called failed."""

    message: str
    """The failure, in the CLI's words."""


@dataclass(frozen=True)
class McpToolCallItem:
    """A call Codex makes to a tool of an MCP server."""

    id: str
    """The item's id within the thread."""
    server: str
    """The MCP server's name."""
    tool: str
    """The tool's name."""
    arguments: Any
    """The call's arguments."""
    status: str
    """`in_progress`, `completed` or `failed`."""
    result: McpToolCallResult | None = None
    """What the tool returned, once it did."""
    error: McpToolCallError | None = None
    """Why it failed, if it did."""
    type: Literal["mcp_tool_call"] = field(default="mcp_tool_call", init=False)


@dataclass(frozen=True)
class WebSearchItem:
    """A web search Codex makes."""

    id: str
    """The item's id within the thread."""
    query: str
    """What it searched for."""
    type: Literal["web_search"] = field(default="web_search", init=False)


@dataclass(frozen=True)
class TodoItem:
    """One entry of Codex's to-do list."""

    text: str
    """The step."""
    completed: bool
    """Whether it is done."""


@dataclass(frozen=True)
class TodoListItem:
    """Codex's plan for the turn, as a to-do list."""

    id: str
    """The item's id within the thread."""
    items: list[TodoItem]
    """The steps."""
    type: Literal["todo_list"] = field(default="todo_list", init=False)


@dataclass(frozen=True)
class ErrorItem:
    """An error Codex reports as an item of the thread (the turn goes on)."""

    id: str
    """The item's id within the thread."""
    message: str
    """The error, in the CLI's words."""
    type: Literal["error"] = field(default="error", init=False)


@dataclass(frozen=True)
class UnknownThreadItem:
    """An item of a type this version of tooluse does not know (a newer CLI's)."""

    type: str
    """The item's type, as the CLI wrote it."""
    id: str | None
    """The item's id, if it has one."""
    payload: dict[str, Any]
    """The whole item, as the CLI wrote it."""


ThreadItem: TypeAlias = (
    AgentMessageItem
    | ReasoningItem
    | CommandExecutionItem
    | FileChangeItem
    | McpToolCallItem
    | WebSearchItem
    | TodoListItem
    | ErrorItem
    | UnknownThreadItem
)
"""Any item of a thread."""


# --- events -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Usage:
    """The tokens a Codex turn used."""

    input_tokens: int
    """Input tokens, cached ones included."""
    cached_input_tokens: int
    """Input tokens read from the cache."""
    output_tokens: int
    """Output tokens."""


@dataclass(frozen=True)
class ThreadError:
    """Why a turn failed."""

    message: str
    """The failure, in the CLI's words."""


@dataclass(frozen=True)
class ThreadStartedEvent:
    """A thread started (or was resumed): its id resumes it later."""

    thread_id: str
    """The thread's id (`codex resume <thread_id>`)."""
    type: Literal["thread.started"] = field(default="thread.started", init=False)


@dataclass(frozen=True)
class TurnStartedEvent:
    """A turn started: Codex is working on the prompt."""

    type: Literal["turn.started"] = field(default="turn.started", init=False)


@dataclass(frozen=True)
class TurnCompletedEvent:
    """The turn ended well."""

    usage: Usage | None = None
    """The tokens it used, when the CLI says."""
    type: Literal["turn.completed"] = field(default="turn.completed", init=False)


@dataclass(frozen=True)
class TurnFailedEvent:
    """The turn failed."""

    error: ThreadError
    """Why."""
    type: Literal["turn.failed"] = field(default="turn.failed", init=False)


@dataclass(frozen=True)
class ItemStartedEvent:
    """An item started (a command began to run, ...)."""

    item: ThreadItem
    """The item so far."""
    type: Literal["item.started"] = field(default="item.started", init=False)


@dataclass(frozen=True)
class ItemUpdatedEvent:
    """An item changed (more output, a to-do ticked, ...)."""

    item: ThreadItem
    """The item so far."""
    type: Literal["item.updated"] = field(default="item.updated", init=False)


@dataclass(frozen=True)
class ItemCompletedEvent:
    """An item is done."""

    item: ThreadItem
    """The item as it ended."""
    type: Literal["item.completed"] = field(default="item.completed", init=False)


@dataclass(frozen=True)
class ThreadErrorEvent:
    """The CLI's stream reported an error: the turn does not go on."""

    message: str
    """The error, in the CLI's words."""
    type: Literal["error"] = field(default="error", init=False)


@dataclass(frozen=True)
class UnknownThreadEvent:
    """An event of a type this version of tooluse does not know (a newer CLI's)."""

    type: str
    """The event's type, as the CLI wrote it."""
    payload: dict[str, Any]
    """The whole event, as the CLI wrote it."""


ThreadEvent: TypeAlias = (
    ThreadStartedEvent
    | TurnStartedEvent
    | TurnCompletedEvent
    | TurnFailedEvent
    | ItemStartedEvent
    | ItemUpdatedEvent
    | ItemCompletedEvent
    | ThreadErrorEvent
    | UnknownThreadEvent
)
"""Any event of the CLI's stream."""


# --- parsing ------------------------------------------------------------------------------


def parse_event(line: str) -> ThreadEvent:
    """Read one line of the CLI's output as an event.

    Args:
        line: One JSON object.

    Returns:
        The event, typed by its `type`.

    Raises:
        CodexProtocolError: The line is not a JSON object.
    """
    try:
        raw: object = json.loads(line)
    except json.JSONDecodeError:
        raise CodexProtocolError("the Codex CLI wrote a line that is not JSON") from None
    if not isinstance(raw, dict):
        raise CodexProtocolError("the Codex CLI wrote a JSON value that is not an event object")
    return _event(cast(dict[str, Any], raw))


def _event(raw: dict[str, Any]) -> ThreadEvent:  # noqa: PLR0911 - a return per event type
    kind = _text(raw, "type")
    if kind == "thread.started":
        return ThreadStartedEvent(_text(raw, "thread_id"))
    if kind == "turn.started":
        return TurnStartedEvent()
    if kind == "turn.completed":
        usage = _mapping(raw, "usage")
        return TurnCompletedEvent(_usage(usage) if usage is not None else None)
    if kind == "turn.failed":
        return TurnFailedEvent(ThreadError(_text(_mapping(raw, "error") or {}, "message")))
    if kind in _ITEM_EVENTS:
        return _ITEM_EVENTS[kind](_item(_mapping(raw, "item") or {}))
    if kind == "error":
        return ThreadErrorEvent(_text(raw, "message"))
    return UnknownThreadEvent(kind or "unknown", raw)


_ITEM_EVENTS: dict[str, type[ItemStartedEvent | ItemUpdatedEvent | ItemCompletedEvent]] = {
    "item.started": ItemStartedEvent,
    "item.updated": ItemUpdatedEvent,
    "item.completed": ItemCompletedEvent,
}


def _item(raw: Raw) -> ThreadItem:  # noqa: PLR0911 - a return per item type
    kind, id_ = _text(raw, "type"), _text(raw, "id")
    if kind in ("agent_message", "reasoning"):
        text = _text(raw, "text")
        return AgentMessageItem(id_, text) if kind == "agent_message" else ReasoningItem(id_, text)
    if kind == "command_execution":
        exit_code = raw.get("exit_code")
        return CommandExecutionItem(
            id_,
            _text(raw, "command"),
            _text(raw, "status"),
            _text(raw, "aggregated_output"),
            exit_code if isinstance(exit_code, int) else None,
        )
    if kind == "file_change":
        changes = [
            FileUpdateChange(_text(c, "path"), _text(c, "kind")) for c in _list(raw, "changes")
        ]
        return FileChangeItem(id_, changes, _text(raw, "status"))
    if kind == "mcp_tool_call":
        return _mcp_call(id_, raw)
    if kind == "web_search":
        return WebSearchItem(id_, _text(raw, "query"))
    if kind == "todo_list":
        todos = [TodoItem(_text(t, "text"), bool(t.get("completed"))) for t in _list(raw, "items")]
        return TodoListItem(id_, todos)
    if kind == "error":
        return ErrorItem(id_, _text(raw, "message"))
    return UnknownThreadItem(kind or "unknown", id_ or None, dict(raw))


def _mcp_call(id_: str, raw: Raw) -> McpToolCallItem:
    result, error = _mapping(raw, "result"), _mapping(raw, "error")
    return McpToolCallItem(
        id_,
        _text(raw, "server"),
        _text(raw, "tool"),
        raw.get("arguments"),
        _text(raw, "status"),
        None
        if result is None
        else McpToolCallResult(list(_list(result, "content")), result.get("structured_content")),
        None if error is None else McpToolCallError(_text(error, "message")),
    )


def _usage(raw: Raw) -> Usage:
    counts = [raw.get(key) for key in ("input_tokens", "cached_input_tokens", "output_tokens")]
    tokens = [count if isinstance(count, int) else 0 for count in counts]
    return Usage(*tokens)


def _text(raw: Raw, key: str) -> str:
    value = raw.get(key)
    return value if isinstance(value, str) else ""


def _mapping(raw: Raw, key: str) -> Raw | None:
    value = raw.get(key)
    return cast(Raw, value) if isinstance(value, Mapping) else None


def _list(raw: Raw, key: str) -> list[Raw]:
    value = raw.get(key)
    if not isinstance(value, list):
        return []
    return [cast(Raw, entry) for entry in cast(list[object], value) if isinstance(entry, Mapping)]
