"""Toolsets: tools chosen turn by turn, and wrappers that filter, prefix or rename them.

`Agent.tools` holds tools and toolsets. A toolset is any object with an async
`list_tools(context, agent)` returning the tools for the coming turn; the run
asks it before each model call. A toolset that is also an async context
manager is entered when its agent first takes over in a run, and left when
the run ends (an MCP server connects and disconnects this way). A function
tool's `is_enabled` is one more filter, applied to every tool the agent ends
up with, wherever it comes from.

```python
tools = [
    lookup,                                            # a FunctionTool
    FilteredToolset([delete, archive], only_admins),   # tools for some runs only
    PrefixedToolset(search_server, "docs"),            # docs_search, docs_fetch, ...
]
```
"""

from __future__ import annotations

import asyncio
import copy
import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from types import TracebackType
from typing import Any, Protocol, TypeAlias, TypeGuard, cast, runtime_checkable

from typing_extensions import Self

from ..core._agent_base import AgentBase
from ..core._context import RunContextWrapper
from ..exceptions import UserError
from ._function_tool import FunctionTool
from ._hosted import HOSTED_TOOL_TYPES, HostedTool

__all__ = [
    "FilteredToolset",
    "PrefixedToolset",
    "RenamedToolset",
    "Tool",
    "ToolEntry",
    "ToolFilter",
    "Toolset",
    "check_tool_entries",
    "is_context_manager",
    "is_static",
    "list_tools",
    "toolsets_to_enter",
]

Tool = FunctionTool | HostedTool
"""A tool the model can be offered."""
_TOOL_TYPES: tuple[type[Tool], ...] = (FunctionTool, *HOSTED_TOOL_TYPES)
# The agent is typed Any in the filter's type: a function written for `Agent`
# (`def keep(ctx, agent: Agent, tool)`) must fit, and `Agent` is defined above this layer.
ToolFilter = Callable[[RunContextWrapper[Any], Any, Tool], "bool | Awaitable[bool]"]
"""Decides, per run context, agent and tool, whether a tool is offered."""


@runtime_checkable
class Toolset(Protocol):
    """Anything that lists tools for a turn; optionally an async context manager too."""

    async def list_tools(self, context: RunContextWrapper[Any], agent: AgentBase) -> Sequence[Tool]:
        """The tools to offer in the coming turn.

        Args:
            context: The run context.
            agent: The agent about to be called.

        Returns:
            Function tools and hosted tools.
        """
        ...


ToolEntry: TypeAlias = "Tool | Toolset"
"""What `Agent.tools` holds: tools, and toolsets that list tools turn by turn."""


async def list_tools(
    entries: Sequence[ToolEntry], context: RunContextWrapper[Any], agent: AgentBase
) -> list[Tool]:
    """The tools an agent offers this turn: its tools, enabled ones only, and its toolsets'.

    Args:
        entries: What `Agent.tools` holds (checked by `check_tool_entries`).
        context: The run context.
        agent: The agent.

    Returns:
        The tools, in the order the entries give them.

    Raises:
        UserError: If a toolset lists something that is not a tool.
    """
    tools = await _expanded(entries, context, agent)
    asked = [t for t in tools if isinstance(t, FunctionTool) and t.is_enabled is not True]
    if not asked:
        return tools
    enabled = await _all_enabled(asked, context, agent)
    refused = {id(tool) for tool, keep in zip(asked, enabled, strict=True) if not keep}
    return [tool for tool in tools if id(tool) not in refused]


async def _all_enabled(
    tools: list[FunctionTool], context: RunContextWrapper[Any], agent: AgentBase
) -> list[bool]:
    """Each tool's `is_enabled`, asked at once; if one raises, the others are cancelled."""
    checks = [asyncio.ensure_future(_enabled(tool, context, agent)) for tool in tools]
    try:
        return list(await asyncio.gather(*checks))
    except BaseException:
        for check in checks:
            check.cancel()
        await asyncio.gather(*checks, return_exceptions=True)
        raise


async def _expanded(
    entries: Sequence[ToolEntry], context: RunContextWrapper[Any], agent: AgentBase
) -> list[Tool]:
    """Tools as they are, and what each toolset lists for this turn, in order."""
    tools: list[Tool] = []
    for entry in entries:
        if isinstance(entry, _TOOL_TYPES):
            tools.append(entry)
        else:  # a toolset: `check_tool_entries` let nothing else in
            tools.extend(await _listed(cast(Toolset, entry), context, agent))
    return tools


async def _listed(
    toolset: Toolset, context: RunContextWrapper[Any], agent: AgentBase
) -> list[Tool]:
    # What the toolset's own code returned, checked: it may not keep to the protocol.
    listed = cast(object, toolset.list_tools(context, agent))
    if inspect.isawaitable(listed):  # a sync list_tools is fine too
        listed = await listed
    if not isinstance(listed, Sequence):
        raise UserError(
            f"{type(toolset).__name__}.list_tools() returned {_describe(listed)}: return a list "
            "of tools"
        )
    tools = list(cast(Sequence[Tool], listed))  # each checked below
    for tool in tools:
        if _problem(tool) is not None:
            raise UserError(
                f"{type(toolset).__name__}.list_tools() returned {_describe(tool)}: a "
                "toolset lists FunctionTools and hosted tools only"
            )
    return tools


def is_static(entries: Sequence[ToolEntry]) -> bool:
    """Whether an agent's tools are the same every turn (no toolset, no `is_enabled` function).

    Args:
        entries: What `Agent.tools` holds.

    Returns:
        True when listing them once per agent is enough.
    """
    return all(
        isinstance(entry, HOSTED_TOOL_TYPES)
        or (isinstance(entry, FunctionTool) and not callable(entry.is_enabled))
        for entry in entries
    )


def check_tool_entries(owner: str, entries: object) -> None:
    """Refuse anything in `Agent(tools=...)` that is neither a tool nor a toolset.

    Args:
        owner: Who holds the tools, for the message (`Agent 'triage'`).
        entries: The tools.

    Raises:
        UserError: Naming every entry that is not a tool, and what to do instead.
    """
    if isinstance(entries, (str, Toolset, *_TOOL_TYPES)) or not isinstance(entries, Sequence):
        raise UserError(
            f"{owner}: tools must be a list of tools and toolsets, not {_describe(entries)}; "
            "write tools=[...]"
        )
    problems = [
        f"tools[{index}] is {problem}"
        for index, entry in enumerate(cast(Sequence[object], entries))
        if (problem := _problem(entry, toolsets=True)) is not None
    ]
    if problems:
        lines = "\n".join(f"  - {problem}" for problem in problems)
        raise UserError(f"{owner} has tools that are not tools:\n{lines}")


def _problem(entry: object, *, toolsets: bool = False) -> str | None:
    if isinstance(entry, _TOOL_TYPES):
        return None
    if toolsets and isinstance(entry, Toolset) and not isinstance(entry, type):
        return None
    if hasattr(entry, "as_tool") and hasattr(entry, "handoffs"):
        return f"{_describe(entry)}: use agent.as_tool() to call it as a tool, or handoffs=[agent]"
    if inspect.isclass(entry):
        return f"{_describe(entry)}: pass an instance of a tool or toolset, not the class"
    if callable(entry):
        return f"{_describe(entry)}, not a tool: decorate it with @function_tool"
    return f"{_describe(entry)}, not a tool: use @function_tool, a hosted tool or a toolset"


def _describe(value: object) -> str:
    if inspect.isclass(value):
        return f"the class {value.__name__}"
    if inspect.isfunction(value) or inspect.ismethod(value):
        return f"the function {value.__qualname__}"
    name = getattr(value, "name", None)
    named = f" {name!r}" if isinstance(name, str) else ""
    kind = type(value).__name__
    return f"{'an' if kind[0] in 'AEIOUaeiou' else 'a'} {kind}{named}"


async def _enabled(tool: FunctionTool, context: RunContextWrapper[Any], agent: AgentBase) -> bool:
    flag = tool.is_enabled
    if isinstance(flag, bool):
        return flag
    made = flag(context, agent)
    return bool(await made if inspect.isawaitable(made) else made)


def is_context_manager(entry: object) -> TypeGuard[AbstractAsyncContextManager[object]]:
    """Whether a toolset is also an async context manager.

    Args:
        entry: A tool or toolset.

    Returns:
        True if its class has `__aenter__`.
    """
    return hasattr(type(entry), "__aenter__")


def toolsets_to_enter(entries: Sequence[ToolEntry]) -> list[AbstractAsyncContextManager[object]]:
    """The toolsets a run enters for these tools: those inside wrappers too, not the wrappers.

    A toolset shared by two agents, or wrapped twice, is listed once per wrapping;
    the run enters each object once.

    Args:
        entries: What `Agent.tools` holds.

    Returns:
        The async context managers among them.
    """
    found: list[AbstractAsyncContextManager[object]] = []
    for entry in entries:
        if isinstance(entry, _WrapperToolset):
            found.extend(toolsets_to_enter(entry.entries))
        elif is_context_manager(entry):
            found.append(entry)
    return found


class _WrapperToolset:
    """A toolset over tools and toolsets; entering it enters the toolsets inside."""

    def __init__(self, tools: Toolset | Sequence[Tool | Toolset]) -> None:
        entries: list[ToolEntry] = [tools] if isinstance(tools, Toolset) else list(tools)
        check_tool_entries(type(self).__name__, entries)
        self.entries = entries
        """The tools and toolsets wrapped."""
        self._entered: list[AsyncExitStack] = []

    async def __aenter__(self) -> Self:
        async with AsyncExitStack() as stack:  # entered by you; a run enters the inner ones
            for entry in toolsets_to_enter(self.entries):
                await stack.enter_async_context(entry)
            self._entered.append(stack.pop_all())
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self._entered.pop().__aexit__(kind, error, traceback)


class FilteredToolset(_WrapperToolset):
    """The tools of another toolset (or a list) that a filter lets through, turn by turn."""

    def __init__(self, tools: Toolset | Sequence[Tool | Toolset], filter: ToolFilter) -> None:
        """Offer only the tools `filter(context, agent, tool)` is true for.

        Args:
            tools: A toolset, or a list of tools and toolsets.
            filter: A sync or async function of the run context, the agent and a tool.
        """
        super().__init__(tools)
        self.filter = filter

    async def list_tools(self, context: RunContextWrapper[Any], agent: AgentBase) -> list[Tool]:
        """The inner tools the filter keeps.

        Args:
            context: The run context.
            agent: The agent about to be called.

        Returns:
            The kept tools.
        """
        kept: list[Tool] = []
        for tool in await _expanded(self.entries, context, agent):
            keep = self.filter(context, agent, tool)
            if await keep if inspect.isawaitable(keep) else keep:
                kept.append(tool)
        return kept


class RenamedToolset(_WrapperToolset):
    """The tools of another toolset (or a list), some of them under new names."""

    def __init__(self, tools: Toolset | Sequence[Tool | Toolset], names: Mapping[str, str]) -> None:
        """Offer function tools named in `names` under their new names.

        Args:
            tools: A toolset, or a list of tools and toolsets.
            names: Old name to new name, e.g. `{"search": "search_docs"}`.
        """
        super().__init__(tools)
        self.names = dict(names)
        self._renamed: dict[int, tuple[FunctionTool, FunctionTool]] = {}

    def new_name(self, name: str) -> str:
        """The name a tool is offered under.

        Args:
            name: The tool's own name.

        Returns:
            The new name, or `name` when it is not renamed.
        """
        return self.names.get(name, name)

    async def list_tools(self, context: RunContextWrapper[Any], agent: AgentBase) -> list[Tool]:
        """The inner tools, renamed.

        Args:
            context: The run context.
            agent: The agent about to be called.

        Returns:
            The tools; hosted tools keep their names, which the API fixes.
        """
        return [self._rename(tool) for tool in await _expanded(self.entries, context, agent)]

    def _rename(self, tool: Tool) -> Tool:
        if not isinstance(tool, FunctionTool) or self.new_name(tool.name) == tool.name:
            return tool
        cached = self._renamed.get(id(tool))
        if cached is None or cached[0] is not tool:
            # A shallow copy: the same invoker, whose errors name the tool as it is called.
            renamed = copy.copy(tool)
            object.__setattr__(renamed, "name", self.new_name(tool.name))  # a new copy: no change
            cached = self._renamed[id(tool)] = (tool, renamed)
        return cached[1]


class PrefixedToolset(RenamedToolset):
    """The tools of another toolset (or a list), each named `<prefix>_<name>`."""

    def __init__(self, tools: Toolset | Sequence[Tool | Toolset], prefix: str) -> None:
        """Offer every function tool as `<prefix>_<name>`, so two sources cannot clash.

        Args:
            tools: A toolset, or a list of tools and toolsets.
            prefix: The prefix, e.g. `"github"` for `github_search`.
        """
        super().__init__(tools, {})
        self.prefix = prefix

    def new_name(self, name: str) -> str:
        """The prefixed name.

        Args:
            name: The tool's own name.

        Returns:
            `<prefix>_<name>`.
        """
        return f"{self.prefix}_{name}"
