"""What a call's item objects say of the tool called: its description, title and origin.

openai-agents' `ToolCallItem` carries the tool's `description`, its display `title` (an
MCP tool's) and a `tool_origin` (a plain function tool, an MCP server's tool, an agent
used as a tool). Here they are read from the agent's tools, and for a hosted MCP
server's `mcp_call` from the server's `mcp_list_tools` item in the run, only when an item
object's property is read: a run does no work for them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from ..agents._agent_tool import tool_agent
from ..core._items import Item
from ..tools._function_tool import FunctionTool
from ..tools._hosted import ComputerTool, LocalShellTool
from ..tools._shell import ShellTool

if TYPE_CHECKING:
    from ..agents._agent import Agent

__all__ = ["ToolFacts", "ToolOrigin", "ToolOriginType", "call_facts", "call_of"]


class ToolOriginType(str, Enum):
    """Where the tool behind a call comes from."""

    FUNCTION = "function"
    """A function tool of the agent's."""
    MCP = "mcp"
    """An MCP server's tool: a local server's (`mcp_servers`) or a hosted one's (`mcp_call`)."""
    AGENT_AS_TOOL = "agent_as_tool"
    """An agent used as a tool (`Agent.as_tool`)."""


@dataclass(frozen=True)
class ToolOrigin:
    """Where the tool behind a call comes from, as openai-agents' `ToolOrigin` says it."""

    type: ToolOriginType
    """The kind of source."""
    mcp_server_name: str | None = None
    """The MCP server's name (a hosted server's `server_label`), for `MCP`."""
    agent_name: str | None = None
    """The agent run as the tool, for `AGENT_AS_TOOL`."""
    agent_tool_name: str | None = None
    """The tool's name, for `AGENT_AS_TOOL`."""

    def to_json_dict(self) -> dict[str, str]:
        """The origin as JSON data: `type` and the names that are set.

        Returns:
            The dict.
        """
        data = {"type": self.type.value}
        for key in ("mcp_server_name", "agent_name", "agent_tool_name"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        return data


@dataclass(frozen=True)
class ToolFacts:
    """What is known of the tool a call called (None for what is not)."""

    description: str | None = None
    title: str | None = None
    origin: ToolOrigin | None = None
    name: str | None = None
    """The tool's name, for a call whose item names none (a computer's, a shell's)."""


_NOTHING = ToolFacts()
_FUNCTION = ToolOrigin(ToolOriginType.FUNCTION)
_NAMED_BY_TOOL: dict[str, type[ComputerTool | LocalShellTool | ShellTool]] = {
    "computer_call": ComputerTool,
    "local_shell_call": LocalShellTool,
    "shell_call": ShellTool,
}
"""The calls whose item names no tool, and the kind of tool that answers each."""


def call_facts(agent: Agent[Any], call: Mapping[str, Any], items: Sequence[Item]) -> ToolFacts:
    """What is known of the tool `call` called.

    Args:
        agent: The agent whose turn made the call.
        call: The call's item (`function_call`, `mcp_call`, ...).
        items: The run's items, where a hosted MCP server's listing of its tools is.

    Returns:
        The facts; empty ones for a call of a tool the agent does not have.
    """
    kind = call.get("type")
    if kind == "function_call":
        return _function_facts(agent, str(call.get("name")))
    if kind == "mcp_call":
        label = str(call.get("server_label"))
        origin = ToolOrigin(ToolOriginType.MCP, mcp_server_name=label)
        listed = _listed(items, label, str(call.get("name")))
        if listed is None:
            return ToolFacts(origin=origin)
        return ToolFacts(_text(listed.get("description")), _title(listed), origin)
    answering = _NAMED_BY_TOOL.get(str(kind))
    if answering is not None:
        for tool in agent.tools:
            if isinstance(tool, answering):
                return ToolFacts(name=tool.name)
    return _NOTHING


def call_of(output: Mapping[str, Any], items: Sequence[Item]) -> Mapping[str, Any] | None:
    """The call `output` answers, among the run's items.

    Args:
        output: A tool's output item.
        items: The run's items.

    Returns:
        The call's item, or None when it is not among them.
    """
    call_id = output.get("call_id")
    if call_id is None:
        return None
    for item in reversed(items):
        if item.get("call_id") == call_id and item is not output and "arguments" in item:
            return item
    return None


def _function_facts(agent: Agent[Any], name: str) -> ToolFacts:
    for tool in agent.tools:
        if isinstance(tool, FunctionTool):
            if tool.name == name:
                return _own_facts(tool)
        elif (found := _server_tool(tool, name)) is not None:
            return found
    return _NOTHING


def _own_facts(tool: FunctionTool) -> ToolFacts:
    nested = tool_agent(tool)
    if nested is None:
        return ToolFacts(tool.description, None, _FUNCTION)
    origin = ToolOrigin(
        ToolOriginType.AGENT_AS_TOOL, agent_name=nested.name, agent_tool_name=tool.name
    )
    return ToolFacts(tool.description, None, origin)


@runtime_checkable
class _ListingServer(Protocol):
    """A local MCP server (`tooluse.mcp.MCPServer`), as far as its tools' facts go."""

    @property
    def name(self) -> str: ...

    def listed_tools(self) -> Sequence[tuple[object, FunctionTool]]: ...


def _server_tool(toolset: object, name: str) -> ToolFacts | None:
    """The facts of a local MCP server's tool offered as `name`, if the server listed one."""
    if not isinstance(toolset, _ListingServer):
        return None
    for listed, offered in toolset.listed_tools():
        if offered.name == name:
            origin = ToolOrigin(ToolOriginType.MCP, mcp_server_name=toolset.name)
            return ToolFacts(offered.description, _title(listed), origin)
    return None


def _listed(items: Iterable[Item], label: str, name: str) -> Mapping[str, Any] | None:
    """A hosted MCP server's listed tool `name`, from its latest `mcp_list_tools` item."""
    for item in reversed(list(items)):
        if item.get("type") != "mcp_list_tools" or item.get("server_label") != label:
            continue
        tools: Any = item.get("tools") or []
        for tool in tools:
            if isinstance(tool, Mapping) and tool.get("name") == name:  # pyright: ignore[reportUnknownMemberType]
                return tool  # pyright: ignore[reportUnknownVariableType]
    return None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _title(tool: object) -> str | None:
    """An MCP tool's display title: its `title`, else its annotations' `title`."""
    title = _field(tool, "title")
    return title if title is not None else _field(_get(tool, "annotations"), "title")


def _field(value: object, key: str) -> str | None:
    found = _get(value, key)
    return found if isinstance(found, str) and found else None


def _get(value: object, key: str) -> object:
    """`value[key]` of a listed tool's dict, or the attribute of an `mcp` `Tool`."""
    if isinstance(value, Mapping):
        return cast("Mapping[str, object]", value).get(key)
    return getattr(value, key, None)
