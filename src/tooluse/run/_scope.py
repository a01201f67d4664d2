"""What the steps of a turn work with, in three parts, so each step's signature says what it uses.

- `RunSetup`: what the steps read and never change (the context, settings, watchers,
  the tool executor, the deadline);
- `RunRecord`: what they write (the `RunState`, and what the result returns besides it:
  raw responses, guardrail results);
- `AgentSetup`: the agent answering, set up when it takes over, with its tools for the
  turn (`TurnTools`), listed once when they cannot change.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import NamedTuple

from ..agents._agent import Agent
from ..agents._handoffs import as_handoffs
from ..core._context import RunContextWrapper
from ..exceptions import UserError
from ..schema._agent_output import CustomOutput, as_output
from ..schema._output_type import OutputSchema
from ..tools._changes import changes
from ..tools._function_tool import FunctionTool
from ..tools._toolsets import Tool, ToolEntry, is_static, list_tools, toolsets_to_enter
from ._backend import run_backend
from ._config import RunConfig
from ._events import RunEvents
from ._handoffs import AgentHandoff, enabled_handoffs, handoff_tools
from ._tool_execution import ToolExecutor

__all__ = ["AgentSetup", "RunSetup", "TurnTools", "agent_toolsets"]


@dataclass(frozen=True)
class TurnTools:
    """The tools offered in a turn, and the function tools by name."""

    tools: list[Tool]
    """Everything offered, handoff tools included."""
    functions: dict[str, FunctionTool]
    """The function tools that run here, by name (handoff tools are not among them)."""

    @classmethod
    def index(
        cls, agent: Agent[object], tools: list[Tool], handoffs: Sequence[FunctionTool]
    ) -> TurnTools:
        """Index an agent's tools, refusing two with one name.

        Args:
            agent: The agent, for the message.
            tools: Its tools for the turn.
            handoffs: Its handoff tools.

        Returns:
            The index.

        Raises:
            UserError: If two tools share a name: the model could not tell them apart.
        """
        backend = run_backend.get()
        if backend is not None:  # durable: each function tool call runs elsewhere
            tools = [backend.function_tool(t) if isinstance(t, FunctionTool) else t for t in tools]
        offered = [*(t for t in tools if isinstance(t, FunctionTool)), *handoffs]
        functions = {tool.name: tool for tool in tools if isinstance(tool, FunctionTool)}
        named = [tool.name for tool in offered]
        if len(set(named)) != len(named):
            twice = sorted({name for name in named if named.count(name) > 1})
            raise UserError(
                f"Agent '{agent.name}' offers more than one tool named "
                f"{', '.join(_clash(name, offered) for name in twice)}: rename one "
                "(function_tool(name_override=...)), give each MCP server its own "
                "tool_name_prefix, or wrap a toolset in PrefixedToolset"
            )
        return cls([*tools, *handoffs], functions)


def _clash(name: str, tools: list[FunctionTool]) -> str:
    """`'search' (tool 'search' of MCP server 'a', tool 'search' of MCP server 'b')`."""
    # An MCP server's tool says where it comes from (`origin`); a function tool need not.
    origins = [getattr(t.on_invoke_tool, "origin", None) for t in tools if t.name == name]
    known = [origin for origin in origins if isinstance(origin, str)]
    return f"'{name}' ({', '.join(known)})" if known else name


@dataclass
class AgentSetup:
    """What a turn needs of the agent answering, computed when it takes over."""

    agent: Agent[object]
    handoffs: Sequence[AgentHandoff]
    """The handoffs offered now (read only: an agent without any shares one empty tuple)."""
    handoff_tools: Sequence[FunctionTool]
    output: OutputSchema | CustomOutput | None
    static_tools: TurnTools | None = None
    """The agent's tools, once listed, when they cannot change from turn to turn."""
    switchable: list[AgentHandoff] | None = None
    """Every handoff, when some are enabled by a function asked each turn."""

    @classmethod
    def of(cls, agent: Agent[object]) -> AgentSetup:
        """Set an agent up to answer.

        Args:
            agent: The agent.

        Returns:
            Its handoffs, handoff tools and output schema.
        """
        if not agent.handoffs:  # the common case: no per-run lists to keep alive
            return cls(agent, (), (), as_output(agent.output_type))
        handoffs = [h for h in as_handoffs(agent.handoffs) if h.is_enabled is not False]
        switchable = handoffs if any(h.is_enabled is not True for h in handoffs) else None
        tools = handoff_tools(handoffs, one_tool=agent.handoff_mode == "one_tool")
        output = as_output(agent.output_type)
        return cls(agent, handoffs, tools, output, switchable=switchable)

    async def turn_tools(self, context: RunContextWrapper[object]) -> TurnTools:
        """The agent's tools for the coming turn.

        Args:
            context: The run context (toolsets and `is_enabled` functions are asked with it).

        Returns:
            The tools, listed again unless they cannot change from turn to turn.
        """
        if self.static_tools is not None:
            return self.static_tools
        agent = self.agent
        keeps = self.switchable is None and not self.handoff_tools and run_backend.get() is None
        if keeps and (kept := _KeptTools.of(agent)) is not None:
            self.static_tools = kept
            return kept
        # A copy to compare with later (a list compares at C speed), before listing.
        entries, count = list(agent.tools), changes()
        if self.switchable is not None:
            self.handoffs = await enabled_handoffs(self.switchable, context, agent)
            one_tool = agent.handoff_mode == "one_tool"
            self.handoff_tools = handoff_tools(self.handoffs, one_tool=one_tool)
        tools = TurnTools.index(
            agent, await list_tools(agent.tools, context, agent), self.handoff_tools
        )
        if is_static(entries) and self.switchable is None:
            self.static_tools = tools
            if keeps:
                _KeptTools.keep(agent, entries, count, tools)
        return tools


class _KeptTools(NamedTuple):
    """An agent's static tools, indexed once and used by every run while they are the same.

    Indexing walks every tool (the enabled check, the type filter, the name index): at
    hundreds of tools, most of a run's cost. An agent whose tools are all tools (no
    toolset, no `is_enabled` function) and who has no handoff tools keeps them, valid
    while `agent.tools` compares equal to the copy kept (tools added, removed or
    replaced, in place or by assigning the list, are seen) and no tool's offered field
    was set again (`_tool_changes.py`).
    """

    entries: list[ToolEntry]
    """`agent.tools` when they were indexed."""
    changed_at: int
    """`changes()` before they were indexed."""
    tools: TurnTools
    toolsets: list[AbstractAsyncContextManager[object]]
    """What of them a run enters (`toolsets_to_enter`)."""

    @staticmethod
    def find(agent: Agent[object]) -> _KeptTools | None:
        """The agent's kept tools, if they are still its tools."""
        kept: _KeptTools | None = vars(agent).get(_KEPT)
        if kept is None or kept.changed_at != changes() or kept.entries != agent.tools:
            return None
        return kept

    @staticmethod
    def of(agent: Agent[object]) -> TurnTools | None:
        """The agent's kept tools, indexed, if they are still its tools."""
        kept = _KeptTools.find(agent)
        return None if kept is None else kept.tools

    @staticmethod
    def keep(agent: Agent[object], entries: list[ToolEntry], count: int, tools: TurnTools) -> None:
        """Keep `tools`, indexed from `entries` at `count`, for the agent's next runs."""
        # On the agent itself (not a dataclass field: clones and equality ignore it), so the
        # kept tools live as long as the agent; a shallow copy shares it, and checks it too.
        vars(agent)[_KEPT] = _KeptTools(entries, count, tools, toolsets_to_enter(entries))


_KEPT = "_kept_tools"


def agent_toolsets(agent: Agent[object]) -> list[AbstractAsyncContextManager[object]]:
    """The toolsets a run enters for the agent's tools (found once, for kept tools).

    Args:
        agent: The agent taking over.

    Returns:
        The async context managers among its tools, and inside its wrapper toolsets.
    """
    kept = _KeptTools.find(agent)
    return toolsets_to_enter(agent.tools) if kept is None else kept.toolsets


@dataclass(eq=False)
class RunSetup:
    """What the steps of a run read and never change: its context, settings and watchers."""

    context: RunContextWrapper[object]
    """The run context: your object, and the run's usage."""
    config: RunConfig
    """The run's settings."""
    events: RunEvents
    """The run's hooks, stream and tracer."""
    executor: ToolExecutor
    """Runs function tool calls with the settings and watchers above."""
    max_turns: int
    """The most model calls the run may make."""
    execute_tools: bool
    """False stops at the first response that asks for function tools."""
    streamed: bool
    """Whether the model's responses are streamed to a reader."""
    deadline: float | None = None
    """When the run must end (the event loop's clock), with `run_timeout` set; set once,
    as the turns begin."""
