"""What the steps of a turn work with besides the state.

The agent set up to answer, its tools for the turn, and the run's context,
settings and watchers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias

from ._context import RunContextWrapper
from ._durable import run_backend
from ._function_tool import FunctionTool
from ._guardrails import InputGuardrailResult, OutputGuardrailResult
from ._handoffs import Handoff, as_handoffs, enabled_handoffs, handoff_tools
from ._hooks import RunEvents
from ._items import Item
from ._output import OutputSchema, output_schema
from ._run_config import RunConfig
from ._state import RunState
from ._tool_changes import changes
from ._tool_execution import ToolExecutor
from ._toolsets import Tool, is_static, list_tools, toolsets_to_enter
from .exceptions import UserError
from .models import ModelResponse

if TYPE_CHECKING:
    from ._agent import Agent

__all__ = ["AgentSetup", "InputChecks", "RunScope", "TurnTools", "agent_toolsets"]

InputChecks: TypeAlias = Callable[[Callable[[], Coroutine[Any, Any, None]]], Awaitable[None]]
"""Runs the first model call (the function given) with the run's input guardrails."""


@dataclass(frozen=True)
class TurnTools:
    """The tools offered in a turn, and the function tools by name."""

    tools: list[Tool]
    """Everything offered, handoff tools included."""
    functions: dict[str, FunctionTool]
    """The function tools that run here, by name (handoff tools are not among them)."""

    @classmethod
    def index(
        cls, agent: Agent[Any], tools: list[Tool], handoffs: Sequence[FunctionTool]
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

    agent: Agent[Any]
    handoffs: Sequence[Handoff]
    """The handoffs offered now (read only: an agent without any shares one empty tuple)."""
    handoff_tools: Sequence[FunctionTool]
    output: OutputSchema | None
    static_tools: TurnTools | None = None
    """The agent's tools, once listed, when they cannot change from turn to turn."""
    switchable: list[Handoff] | None = None
    """Every handoff, when some are enabled by a function asked each turn."""

    @classmethod
    def of(cls, agent: Agent[Any]) -> AgentSetup:
        """Set an agent up to answer.

        Args:
            agent: The agent.

        Returns:
            Its handoffs, handoff tools and output schema.
        """
        if not agent.handoffs:  # the common case: no per-run lists to keep alive (#15)
            output = output_schema(agent.output_type) if agent.output_type is not None else None
            return cls(agent, (), (), output)
        handoffs = [h for h in as_handoffs(agent.handoffs) if h.is_enabled is not False]
        switchable = handoffs if any(h.is_enabled is not True for h in handoffs) else None
        tools = handoff_tools(handoffs, one_tool=agent.handoff_mode == "one_tool")
        output = output_schema(agent.output_type) if agent.output_type is not None else None
        return cls(agent, handoffs, tools, output, switchable=switchable)


class _KeptTools(NamedTuple):
    """An agent's static tools, indexed once and used by every run while they are the same.

    Indexing walks every tool (the enabled check, the type filter, the name index): at
    hundreds of tools, most of a run's cost. An agent whose tools are all tools (no
    toolset, no `is_enabled` function) and who has no handoff tools keeps them, valid
    while `agent.tools` compares equal to the copy kept (tools added, removed or
    replaced, in place or by assigning the list, are seen) and no tool's offered field
    was set again (`_tool_changes.py`).
    """

    entries: list[Any]
    """`agent.tools` when they were indexed."""
    changed_at: int
    """`changes()` before they were indexed."""
    tools: TurnTools
    toolsets: list[Any]
    """What of them a run enters (`toolsets_to_enter`)."""

    @staticmethod
    def find(agent: Agent[Any]) -> _KeptTools | None:
        """The agent's kept tools, if they are still its tools."""
        kept: _KeptTools | None = vars(agent).get(_KEPT)
        if kept is None or kept.changed_at != changes() or kept.entries != agent.tools:
            return None
        return kept

    @staticmethod
    def of(agent: Agent[Any]) -> TurnTools | None:
        """The agent's kept tools, indexed, if they are still its tools."""
        kept = _KeptTools.find(agent)
        return None if kept is None else kept.tools

    @staticmethod
    def keep(agent: Agent[Any], entries: list[Any], count: int, tools: TurnTools) -> None:
        """Keep `tools`, indexed from `entries` at `count`, for the agent's next runs."""
        # On the agent itself (not a dataclass field: clones and equality ignore it), so the
        # kept tools live as long as the agent; a shallow copy shares it, and checks it too.
        vars(agent)[_KEPT] = _KeptTools(entries, count, tools, toolsets_to_enter(entries))


_KEPT = "_kept_tools"


def agent_toolsets(agent: Agent[Any]) -> list[Any]:
    """The toolsets a run enters for the agent's tools (found once, for kept tools).

    Args:
        agent: The agent taking over.

    Returns:
        The async context managers among its tools, and inside its wrapper toolsets.
    """
    kept = _KeptTools.find(agent)
    return toolsets_to_enter(agent.tools) if kept is None else kept.toolsets


@dataclass
class RunScope:
    """What the steps work with besides the state: the agent, context, settings and watchers."""

    state: RunState
    setup: AgentSetup
    context: RunContextWrapper[Any]
    config: RunConfig
    events: RunEvents
    executor: ToolExecutor
    max_turns: int
    execute_tools: bool
    streamed: bool
    raw_responses: list[ModelResponse]
    deadline: float | None = None
    """When the run must end (the event loop's clock), with `run_timeout` set."""
    input_checks: InputChecks | None = None
    """The input guardrails, to run with the first model call; None once they have."""
    # The guardrails' results, made when the first is kept: a run without guardrails keeps
    # no empty lists alive while it waits (thousands may wait at once, issue #15).
    input_guardrail_results: list[InputGuardrailResult] | None = None
    output_guardrail_results: list[OutputGuardrailResult] | None = None
    model_memo: dict[Any, Any] = field(default_factory=dict[Any, Any])
    """What the models keep from one request of the run to the next (`ModelRequest.memo`)."""

    async def turn_tools(self) -> TurnTools:
        """The current agent's tools for the coming turn."""
        setup = self.setup
        if setup.static_tools is not None:
            return setup.static_tools
        agent = setup.agent
        keeps = setup.switchable is None and not setup.handoff_tools and run_backend.get() is None
        if keeps and (kept := _KeptTools.of(agent)) is not None:
            setup.static_tools = kept
            return kept
        # A copy to compare with later (a list compares at C speed), before listing.
        entries, count = list(agent.tools), changes()
        if setup.switchable is not None:
            setup.handoffs = await enabled_handoffs(setup.switchable, self.context, agent)
            one_tool = agent.handoff_mode == "one_tool"
            setup.handoff_tools = handoff_tools(setup.handoffs, one_tool=one_tool)
        tools = TurnTools.index(
            agent, await list_tools(agent.tools, self.context, agent), setup.handoff_tools
        )
        if is_static(entries) and setup.switchable is None:
            setup.static_tools = tools
            if keeps:
                _KeptTools.keep(agent, entries, count, tools)
        return tools

    def error_items(self) -> tuple[list[Item], list[Item]]:
        """The conversation so far and the run's new items, for a `RunStopped` error."""
        return self.state.conversation(), self.state.new_items
