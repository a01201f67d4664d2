"""The run's items as openai-agents' item objects: `MessageOutputItem`, `ToolCallItem`, ...

A run keeps its conversation as plain dict items (`RunState.new_items`: sessions,
Temporal and the state's JSON read them). What a result and a stream event hand out
are objects around those dicts, with openai-agents' classes and fields (`type`,
`raw_item`, `agent`), made only when read. Each also reads as its dict does
(`item["type"]`, `item.get(...)`, `in`, iteration: they are `Mapping`s), so code
written for either SDK works. `raw_item` is the dict, whose keys also read as
attributes (`raw_item.name`), as openai-agents' pydantic items do.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal, SupportsIndex, cast, overload

from ..agents._handoffs import as_handoffs
from ..core._items import Item, message_text
from ..core._state import ToolApproval
from ._tool_facts import ToolOrigin, ToolOriginType, call_facts, call_of

if TYPE_CHECKING:
    from ..agents._agent import Agent

__all__ = [
    "HandoffCallItem",
    "HandoffOutputItem",
    "ItemHelpers",
    "MCPApprovalRequestItem",
    "MCPApprovalResponseItem",
    "MCPListToolsItem",
    "MessageOutputItem",
    "RawItem",
    "ReasoningItem",
    "RunItem",
    "RunItemBase",
    "RunItems",
    "ToolApprovalItem",
    "ToolCallItem",
    "ToolCallOutputItem",
    "ToolOrigin",
    "ToolOriginType",
    "item_object",
    "run_item",
]


class RawItem(dict[str, Any]):
    """An item as the API writes it: a dict whose keys also read as attributes."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        try:
            return _raw(self[name])
        except KeyError:
            raise AttributeError(f"the {self.get('type', 'item')!r} item has no {name!r}") from None


def _raw(value: Any) -> Any:
    if isinstance(value, dict) and not isinstance(value, RawItem):
        return RawItem(value)  # pyright: ignore[reportUnknownArgumentType]
    if isinstance(value, list):
        return [_raw(part) for part in value]  # pyright: ignore[reportUnknownVariableType]
    return value


@dataclass(eq=False)
class RunItemBase(Mapping[str, Any]):
    """An item the run produced, with the agent that produced it.

    Reads as its dict (`item["type"]` is the API's type, `item.type` openai-agents').
    """

    agent: Agent[Any]
    """The agent whose turn produced the item."""
    raw_item: RawItem
    """The item as the API writes it (a dict; its keys also read as attributes)."""
    type: ClassVar[str] = "run_item"
    """openai-agents' name for the kind of item."""

    def __getitem__(self, key: str) -> Any:
        return self.raw_item[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.raw_item)

    def __len__(self) -> int:
        return len(self.raw_item)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RunItemBase):
            return self.raw_item == other.raw_item
        return isinstance(other, Mapping) and self.raw_item == dict(other)  # pyright: ignore[reportUnknownArgumentType]

    __hash__ = None  # pyright: ignore[reportAssignmentType] - equal to its dict, as a dict

    def to_input_item(self) -> dict[str, Any]:
        """The item as an input item, to send again.

        Returns:
            The dict.
        """
        return dict(self.raw_item)


@dataclass(eq=False)
class MessageOutputItem(RunItemBase):
    """A message from the model."""

    type: ClassVar[Literal["message_output_item"]] = "message_output_item"  # pyright: ignore[reportIncompatibleVariableOverride]


@dataclass(eq=False)
class ToolCallItem(RunItemBase):
    """A call of a tool (a function tool, a hosted tool, a local one).

    Besides the call (`raw_item`), it says what openai-agents' says of the tool called:
    `description`, `title`, `tool_origin`, `tool_name` and `call_id`, read when asked for.
    """

    _items: Sequence[Item] = field(default=(), repr=False, kw_only=True)
    """The run's items, where a hosted MCP server's `mcp_list_tools` item describes its tools."""
    type: ClassVar[Literal["tool_call_item"]] = "tool_call_item"  # pyright: ignore[reportIncompatibleVariableOverride]

    @property
    def description(self) -> str | None:
        """The tool's description: a function tool's, or a hosted MCP server's listed one."""
        return call_facts(self.agent, self.raw_item, self._items).description

    @property
    def title(self) -> str | None:
        """An MCP tool's display title (a local server's, or a hosted one's listed one)."""
        return call_facts(self.agent, self.raw_item, self._items).title

    @property
    def tool_origin(self) -> ToolOrigin | None:
        """Where the tool comes from, if known.

        A function tool, an MCP server (a hosted one's `mcp_call` too), an agent used as
        a tool; None for the other hosted tools.
        """
        return call_facts(self.agent, self.raw_item, self._items).origin

    @property
    def tool_name(self) -> str | None:
        """The tool's name: the call's `name`, or the tool's for a computer's or a shell's."""
        name = self.raw_item.get("name")
        if name is not None:
            return str(name)
        return call_facts(self.agent, self.raw_item, self._items).name

    @property
    def call_id(self) -> str | None:
        """The call's id (`call_id`, or `id` for a hosted tool's call)."""
        found = self.raw_item.get("call_id") or self.raw_item.get("id")
        return None if found is None else str(found)


@dataclass(eq=False)
class ToolCallOutputItem(RunItemBase):
    """A tool's output, as the model gets it."""

    _items: Sequence[Item] = field(default=(), repr=False, kw_only=True)
    """The run's items, where the call answered is."""
    type: ClassVar[Literal["tool_call_output_item"]] = "tool_call_output_item"  # pyright: ignore[reportIncompatibleVariableOverride]

    @property
    def output(self) -> Any:
        """The output: text, or the parts of a rich output."""
        return self.raw_item.get("output")

    @property
    def tool_origin(self) -> ToolOrigin | None:
        """Where the tool that answered comes from (as `ToolCallItem.tool_origin`)."""
        call = call_of(self.raw_item, self._items)
        return None if call is None else call_facts(self.agent, call, self._items).origin

    @property
    def call_id(self) -> str | None:
        """The id of the call answered (`call_id`, or `id` for a local shell's output)."""
        found = self.raw_item.get("call_id") or self.raw_item.get("id")
        return None if found is None else str(found)


@dataclass(eq=False)
class HandoffCallItem(RunItemBase):
    """A call of a handoff tool."""

    type: ClassVar[Literal["handoff_call_item"]] = "handoff_call_item"  # pyright: ignore[reportIncompatibleVariableOverride]


@dataclass(eq=False)
class HandoffOutputItem(RunItemBase):
    """The answer to a handoff call: the conversation passed from one agent to another."""

    source_agent: Agent[Any] = None  # pyright: ignore[reportAssignmentType] - always given
    """The agent that handed off."""
    target_agent: Agent[Any] = None  # pyright: ignore[reportAssignmentType] - always given
    """The agent it handed off to (the one handing off, if the run stopped before)."""
    type: ClassVar[Literal["handoff_output_item"]] = "handoff_output_item"  # pyright: ignore[reportIncompatibleVariableOverride]


@dataclass(eq=False)
class ReasoningItem(RunItemBase):
    """The model's reasoning."""

    type: ClassVar[Literal["reasoning_item"]] = "reasoning_item"  # pyright: ignore[reportIncompatibleVariableOverride]


@dataclass(eq=False)
class MCPListToolsItem(RunItemBase):
    """A hosted MCP server's list of its tools (an `mcp_list_tools` item), made by the provider."""

    type: ClassVar[Literal["mcp_list_tools_item"]] = "mcp_list_tools_item"  # pyright: ignore[reportIncompatibleVariableOverride]


@dataclass(eq=False)
class MCPApprovalRequestItem(RunItemBase):
    """A hosted MCP server asking before it runs a tool (an `mcp_approval_request` item).

    Its answer is an `MCPApprovalResponseItem`, from `on_approval_request` or, when the run
    paused for it (`result.interruptions`), from the decision made on resume.
    """

    type: ClassVar[Literal["mcp_approval_request_item"]] = "mcp_approval_request_item"  # pyright: ignore[reportIncompatibleVariableOverride]


@dataclass(eq=False)
class MCPApprovalResponseItem(RunItemBase):
    """The run's answer to a hosted MCP server's approval request (an `mcp_approval_response`)."""

    type: ClassVar[Literal["mcp_approval_response_item"]] = "mcp_approval_response_item"  # pyright: ignore[reportIncompatibleVariableOverride]


@dataclass(frozen=True, eq=False)
class ToolApprovalItem(ToolApproval):
    """A call waiting for approval, with the agent whose tool it calls (`result.interruptions`).

    It is a `ToolApproval`: approve or reject it as one.
    """

    agent: Agent[Any] = None  # pyright: ignore[reportAssignmentType] - the runner gives it
    """The agent whose tool the call calls."""
    type: ClassVar[Literal["tool_approval_item"]] = "tool_approval_item"

    @property
    def raw_item(self) -> RawItem:
        """The call waiting, as the API writes it.

        A `function_call`; a `shell_call` with its `action`; or an `mcp_approval_request`
        with its `id`, `name`, `arguments` and `server_label`.
        """
        if self.item_type == "shell_call":
            return RawItem(
                type="shell_call", call_id=self.call_id, action=_raw(json.loads(self.arguments))
            )
        if self.item_type == "mcp_approval_request":
            return RawItem(
                type="mcp_approval_request",
                id=self.call_id,
                name=self.tool_name,
                arguments=self.arguments,
                server_label=self.server_label,
            )
        return RawItem(
            type="function_call", call_id=self.call_id, name=self.name, arguments=self.arguments
        )

    @property
    def tool_origin(self) -> ToolOrigin | None:
        """Where the tool waiting comes from, if known.

        A function tool, an MCP server, an agent used as a tool; None for a hosted MCP
        server's request and a shell's call, as in openai-agents.
        """
        if self.item_type != "function_call":
            return None
        return call_facts(self.agent, self.raw_item, ()).origin

    @classmethod
    def of(cls, approval: ToolApproval, agent: Agent[Any]) -> ToolApprovalItem:
        """The approval, with its agent.

        Args:
            approval: The approval the run recorded.
            agent: The agent whose tool the call calls.

        Returns:
            The approval item.
        """
        return cls(
            approval.call_id,
            approval.tool_name,
            approval.arguments,
            approval.approval_id,
            approval.item_type,
            approval.server_label,
            agent=agent,
        )


RunItem = (
    MessageOutputItem
    | ToolCallItem
    | ToolCallOutputItem
    | HandoffCallItem
    | HandoffOutputItem
    | ReasoningItem
    | MCPListToolsItem
    | MCPApprovalRequestItem
    | MCPApprovalResponseItem
)
"""Any item object a run hands out."""


def _kind(item: Item, handoff_calls: set[str], handoff_names: set[str]) -> type[RunItem]:
    kind = str(item.get("type", "message"))
    if message_text(item) is not None:
        return MessageOutputItem
    if kind == "function_call":
        return HandoffCallItem if item.get("name") in handoff_names else ToolCallItem
    if kind == "function_call_output":
        handoff = item.get("call_id") in handoff_calls
        return HandoffOutputItem if handoff else ToolCallOutputItem
    return _OTHER_KINDS.get(kind) or _by_suffix(kind)


_OTHER_KINDS: dict[str, type[RunItem]] = {
    "reasoning": ReasoningItem,
    "mcp_list_tools": MCPListToolsItem,
    "mcp_approval_request": MCPApprovalRequestItem,
    "mcp_approval_response": MCPApprovalResponseItem,
}
"""The items with a class of their own; a hosted tool's call (`mcp_call` too) is a
`ToolCallItem`, as in openai-agents."""


def _by_suffix(kind: str) -> type[RunItem]:
    if kind.endswith("_output"):
        return ToolCallOutputItem
    return ToolCallItem  # hosted tools' calls, and any other item the model made


def handoff_names(agent: Agent[Any]) -> set[str]:
    """The names of `agent`'s handoff tools.

    Args:
        agent: The agent.

    Returns:
        The names (`transfer_to_<agent>` unless renamed; `transfer` in one-tool mode).
    """
    if not agent.handoffs:
        return set()
    names = {handoff.tool_name for handoff in as_handoffs(agent.handoffs)}
    return {*names, "transfer"} if agent.handoff_mode == "one_tool" else names


def run_item(
    item: Item,
    agent: Agent[Any],
    *,
    handoff_calls: Iterable[str] = (),
    target: Agent[Any] | None = None,
    items: Sequence[Item] = (),
) -> RunItem:
    """One item as an item object.

    Args:
        item: The item, as the run keeps it.
        agent: The agent whose turn produced it.
        handoff_calls: The ids of handoff calls (their outputs are handoff outputs).
        target: For a handoff's output, the agent that took over.
        items: The run's items, which a call's and an output's tool facts are read from.

    Returns:
        The item object.
    """
    kind = _kind(item, set(handoff_calls), handoff_names(agent))
    return _made(kind, RawItem(item), agent, target, items)


def _made(
    kind: type[RunItem],
    raw: RawItem,
    agent: Agent[Any],
    target: Agent[Any] | None,
    items: Sequence[Item],
) -> RunItem:
    if kind is ToolCallItem or kind is ToolCallOutputItem:
        return kind(agent, raw, _items=items)
    if kind is HandoffOutputItem:
        return HandoffOutputItem(agent, raw, source_agent=agent, target_agent=target or agent)
    return kind(agent, raw)


_BY_EVENT: dict[str, type[RunItem]] = {
    "message_output_created": MessageOutputItem,
    "tool_called": ToolCallItem,
    "tool_output": ToolCallOutputItem,
    "handoff_requested": HandoffCallItem,
    "mcp_list_tools": MCPListToolsItem,
    "mcp_approval_requested": MCPApprovalRequestItem,
    "mcp_approval_response": MCPApprovalResponseItem,
    "reasoning_item_created": ReasoningItem,
}


def item_object(
    event: str,
    item: Item,
    agent: Agent[Any],
    target: Agent[Any] | None = None,
    items: Sequence[Item] = (),
) -> RunItem:
    """The item object a stream's item event carries.

    Args:
        event: The event's name (`tool_called`, ...), which says what the item is.
        item: The item, as the run keeps it.
        agent: The agent whose turn produced it.
        target: For `handoff_occured`, the agent handed off to.
        items: The run's items, which a call's and an output's tool facts are read from.

    Returns:
        The item object.
    """
    kind = HandoffOutputItem if event == "handoff_occured" else _BY_EVENT.get(event, ToolCallItem)
    return _made(kind, RawItem(item), agent, target, items)


class RunItems(list[RunItem]):
    """A run's new items as item objects: a list kept in step with the run's own list.

    A `list`, as openai-agents' `new_items` is (`isinstance(items, list)` holds). Its
    objects are made when it is first read, and the ones for items the run added
    since at each later read, so a streamed run's view shows the items as the run
    adds them. The run's dicts are one call away (`raw()`).
    """

    __slots__ = ("_agents", "_handoff_calls", "_items", "_made", "_scanned")

    def __init__(self, items: list[Item], agents: list[tuple[int, Agent[Any]]]) -> None:
        """A view over `items`.

        Args:
            items: The run's items (its `RunState.new_items`), read as they grow.
            agents: Where each agent took over: (index of its first item, agent), in order.
        """
        super().__init__()
        self._items = items
        self._agents = agents
        self._made = 0
        """How many of the run's items have their object in this list."""
        self._handoff_calls: set[str] = set()
        self._scanned = 0

    @property
    def current_agent(self) -> Agent[Any]:
        """The agent that took over last."""
        return self._agents[-1][1]

    def raw(self) -> list[Item]:
        """The items as the run keeps them: dicts.

        Returns:
            A new list of them.
        """
        return list(self._items)

    def _sync(self) -> None:
        """Add the objects of the items the run added since the last read."""
        items = self._items
        while self._made < len(items):
            super().append(self._object(self._made))
            self._made += 1

    def __len__(self) -> int:
        self._sync()
        return super().__len__()

    @overload
    def __getitem__(self, index: SupportsIndex) -> RunItem: ...
    @overload
    def __getitem__(self, index: slice) -> list[RunItem]: ...
    def __getitem__(self, index: SupportsIndex | slice) -> RunItem | list[RunItem]:
        self._sync()
        return super().__getitem__(index)

    def __iter__(self) -> Iterator[RunItem]:
        self._sync()
        return super().__iter__()

    def __reversed__(self) -> Iterator[RunItem]:
        self._sync()
        return super().__reversed__()

    def __contains__(self, value: object) -> bool:
        self._sync()
        return super().__contains__(value)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            theirs = cast("Sequence[object]", other)
            same = zip(self, theirs, strict=True)
            return len(self) == len(theirs) and all(a == b for a, b in same)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # pyright: ignore[reportAssignmentType] - a list, unhashable as one

    def __add__(self, other: Iterable[Any]) -> list[Any]:  # pyright: ignore[reportIncompatibleMethodOverride]
        return [*self, *other]

    def __radd__(self, other: Iterable[Any]) -> list[Any]:
        return [*other, *self]

    def index(self, value: Any, start: SupportsIndex = 0, stop: SupportsIndex = sys.maxsize) -> int:
        self._sync()
        return super().index(value, start, stop)

    def count(self, value: Any) -> int:
        self._sync()
        return super().count(value)

    def copy(self) -> list[RunItem]:
        self._sync()
        return list(super().__iter__())

    def __repr__(self) -> str:
        self._sync()
        return f"RunItems({super().__repr__()})"

    def _object(self, index: int) -> RunItem:
        item = self._items[index]
        self._scan(index)
        agent = self._agent_at(index)
        target = self._agent_at(index + 1) if item.get("call_id") in self._handoff_calls else None
        return run_item(
            item, agent, handoff_calls=self._handoff_calls, target=target, items=self._items
        )

    def _scan(self, index: int) -> None:
        """Note the handoff calls among the items up to `index`."""
        for position in range(self._scanned, index + 1):
            item = self._items[position]
            if item.get("type") == "function_call" and item.get("name") in handoff_names(
                self._agent_at(position)
            ):
                self._handoff_calls.add(str(item.get("call_id")))
        self._scanned = max(self._scanned, index + 1)

    def _agent_at(self, index: int) -> Agent[Any]:
        found = self._agents[0][1]
        for start, agent in self._agents:
            if start > index:
                break
            found = agent
        return found


class ItemHelpers:
    """openai-agents' helpers for reading items."""

    @classmethod
    def extract_last_content(cls, message: Item) -> str:
        """The last text (or refusal) of an assistant message; empty for anything else.

        Args:
            message: An assistant message item.

        Returns:
            The text.
        """
        if message.get("type", "message") != "message" or message.get("role") != "assistant":
            return ""
        content: Any = message.get("content")
        if isinstance(content, str):
            return content
        parts: list[Mapping[str, Any]] = list(content or [])
        if not parts:
            return ""
        last = parts[-1]
        return str(last.get("text", last.get("refusal", "")))

    @classmethod
    def extract_last_text(cls, message: Item) -> str | None:
        """The last text part of an assistant message, or None.

        Args:
            message: An assistant message item.

        Returns:
            The text, or None when the message ends with no text part.
        """
        if message.get("type", "message") != "message" or message.get("role") != "assistant":
            return None
        content: Any = message.get("content")
        if isinstance(content, str):
            return content
        parts: list[Mapping[str, Any]] = list(content or [])
        if parts and parts[-1].get("type") in ("output_text", "text"):
            return str(parts[-1].get("text", ""))
        return None

    @classmethod
    def input_to_new_input_list(cls, input: str | Iterable[Item]) -> list[Item]:
        """The input as a new list of items: a string becomes a user message.

        Args:
            input: A user's text, or items.

        Returns:
            A new list.
        """
        if isinstance(input, str):
            return [{"role": "user", "content": input}]
        return [dict(item) for item in input]

    @classmethod
    def text_message_output(cls, message: Item) -> str:
        """The whole text of a message item (its text parts joined).

        Args:
            message: A `MessageOutputItem` (or its dict).

        Returns:
            The text; empty for an item that is not an assistant message.
        """
        return message_text(message) or ""

    @classmethod
    def text_message_outputs(cls, items: Iterable[Item]) -> str:
        """The text of every message among `items`, joined.

        Args:
            items: Run items (e.g. `result.new_items`).

        Returns:
            The text.
        """
        return "".join(message_text(item) or "" for item in items)

    @classmethod
    def tool_call_output_item(cls, tool_call: Item, output: str) -> dict[str, Any]:
        """The input item answering `tool_call` with `output`.

        Args:
            tool_call: A function call item.
            output: The output text.

        Returns:
            The `function_call_output` item.
        """
        return {"type": "function_call_output", "call_id": tool_call["call_id"], "output": output}
