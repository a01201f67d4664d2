"""Hooks: your code called at each step of a run, and the one seam every watcher uses.

`RunHooks` (for a whole run: `Runner.run(..., hooks=...)`) and `AgentHooks`
(for one agent: `Agent(hooks=...)`) have openai-agents' names and signatures.
`RunEvents` calls them at each step, in this order:

1. `on_agent_start` / `on_start` when a run (or a resumed run) begins, and
   after each handoff for the agent taking over;
2. `on_llm_start` before each model call, `on_llm_end` after its response
   (a call that fails and is tried again gets `on_llm_retry`, then
   `on_llm_start` again for the next attempt);
3. `on_tool_start` / `on_tool_end` around each local tool call (function
   tools, computer actions, shell commands, MCP approvals); calls of one turn
   run concurrently, so their pairs may interleave;
4. `on_handoff` when the conversation passes to another agent (run hooks get
   `(context, from_agent, to_agent)`, the new agent's hooks
   `(context, agent, source)`), then step 1 for that agent;
5. `on_agent_end` / `on_end` with the final output.

At each step the run's hooks are awaited, then the agent's. A streamed run's
events come from the same seam: `AgentUpdatedStreamEvent` just before
`on_agent_start`, and item events as items join the conversation (tool
outputs when a turn's calls are all answered). A hook that raises stops the
run with its exception. A run that pauses for approval, or returns tool calls
unexecuted, ends without `on_agent_end`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic

from ._context import RunContextWrapper, TContext
from ._items import Item
from ._stream_events import (
    AgentUpdatedStreamEvent,
    GuardrailKind,
    GuardrailResultStreamEvent,
    ItemEventName,
    RawResponsesStreamEvent,
    RunItemStreamEvent,
    RunStreamEvent,
    ToolCallArgumentsDeltaStreamEvent,
    UsageStreamEvent,
)
from .models import ModelResponse, ToolCallArgumentsDelta

if TYPE_CHECKING:
    from ._agent import Agent
    from ._context import RequestUsage, Usage
    from ._toolsets import Tool
    from ._tracing import RunTracer

__all__ = ["AgentHooks", "Emit", "RunEvents", "RunHooks"]

Emit = Callable[[RunStreamEvent], None]


class RunHooks(Generic[TContext]):
    """Callbacks at each step of a run; subclass and override the ones you need.

    Every method is async and does nothing by default. See the module docs
    (or docs/running.md) for the order they are called in.
    """

    async def on_agent_start(self, context: RunContextWrapper[TContext], agent: Agent[Any]) -> None:
        """An agent starts answering: at the start of a run, and after each handoff.

        Args:
            context: The run context.
            agent: The agent.
        """

    async def on_agent_end(
        self, context: RunContextWrapper[TContext], agent: Agent[Any], output: Any
    ) -> None:
        """The run ends with a final output.

        Args:
            context: The run context.
            agent: The agent that answered.
            output: The final output.
        """

    async def on_handoff(
        self, context: RunContextWrapper[TContext], from_agent: Agent[Any], to_agent: Agent[Any]
    ) -> None:
        """The conversation passes from one agent to another.

        Args:
            context: The run context.
            from_agent: The agent handing off.
            to_agent: The agent taking over.
        """

    async def on_tool_start(
        self, context: RunContextWrapper[TContext], agent: Agent[Any], tool: Tool
    ) -> None:
        """A local tool call starts.

        Args:
            context: A `ToolContext` for function tools (the call's name, id and
                arguments); the run context for computer, shell and MCP approval items.
            agent: The agent whose tool it is.
            tool: The tool.
        """

    async def on_tool_end(
        self, context: RunContextWrapper[TContext], agent: Agent[Any], tool: Tool, result: str
    ) -> None:
        """A local tool call ended.

        Args:
            context: As for `on_tool_start`.
            agent: The agent whose tool it is.
            tool: The tool.
            result: The text the model receives (for computer, shell and MCP items, the
                answering item as JSON text).
        """

    async def on_llm_start(
        self,
        context: RunContextWrapper[TContext],
        agent: Agent[Any],
        system_prompt: str | None,
        input_items: list[Item],
    ) -> None:
        """The model is about to be called.

        Args:
            context: The run context.
            agent: The agent calling it.
            system_prompt: The instructions sent.
            input_items: The conversation sent.
        """

    async def on_llm_retry(
        self,
        context: RunContextWrapper[TContext],
        agent: Agent[Any],
        error: Exception,
        attempt: int,
        delay: float,
    ) -> None:
        """A model call failed, and will be tried again (`RetryPolicy`).

        Args:
            context: The run context.
            agent: The agent calling the model.
            error: What the failed attempt raised (e.g. `openai.RateLimitError`).
            attempt: The attempt that failed: 1 for the first.
            delay: Seconds until the next attempt (`on_llm_start` comes again then).
        """

    async def on_llm_end(
        self, context: RunContextWrapper[TContext], agent: Agent[Any], response: ModelResponse
    ) -> None:
        """The model's response arrived.

        Args:
            context: The run context.
            agent: The agent that called it.
            response: The response.
        """


class AgentHooks(Generic[TContext]):
    """Callbacks for the steps of one agent; set as `Agent(hooks=...)`.

    Every method is async and does nothing by default.
    """

    async def on_start(self, context: RunContextWrapper[TContext], agent: Agent[Any]) -> None:
        """This agent starts answering.

        Args:
            context: The run context.
            agent: This agent.
        """

    async def on_end(
        self, context: RunContextWrapper[TContext], agent: Agent[Any], output: Any
    ) -> None:
        """This agent produced the run's final output.

        Args:
            context: The run context.
            agent: This agent.
            output: The final output.
        """

    async def on_handoff(
        self, context: RunContextWrapper[TContext], agent: Agent[Any], source: Agent[Any]
    ) -> None:
        """The conversation is handed to this agent.

        Args:
            context: The run context.
            agent: This agent.
            source: The agent handing off.
        """

    async def on_tool_start(
        self, context: RunContextWrapper[TContext], agent: Agent[Any], tool: Tool
    ) -> None:
        """One of this agent's local tool calls starts.

        Args:
            context: As for `RunHooks.on_tool_start`.
            agent: This agent.
            tool: The tool.
        """

    async def on_tool_end(
        self, context: RunContextWrapper[TContext], agent: Agent[Any], tool: Tool, result: str
    ) -> None:
        """One of this agent's local tool calls ended.

        Args:
            context: As for `RunHooks.on_tool_start`.
            agent: This agent.
            tool: The tool.
            result: The text the model receives.
        """

    async def on_llm_start(
        self,
        context: RunContextWrapper[TContext],
        agent: Agent[Any],
        system_prompt: str | None,
        input_items: list[Item],
    ) -> None:
        """This agent is about to call the model.

        Args:
            context: The run context.
            agent: This agent.
            system_prompt: The instructions sent.
            input_items: The conversation sent.
        """

    async def on_llm_retry(
        self,
        context: RunContextWrapper[TContext],
        agent: Agent[Any],
        error: Exception,
        attempt: int,
        delay: float,
    ) -> None:
        """This agent's model call failed, and will be tried again (`RetryPolicy`).

        Args:
            context: The run context.
            agent: This agent.
            error: What the failed attempt raised (e.g. `openai.RateLimitError`).
            attempt: The attempt that failed: 1 for the first.
            delay: Seconds until the next attempt (`on_llm_start` comes again then).
        """

    async def on_llm_end(
        self, context: RunContextWrapper[TContext], agent: Agent[Any], response: ModelResponse
    ) -> None:
        """This agent's model call returned.

        Args:
            context: The run context.
            agent: This agent.
            response: The response.
        """


class RunEvents:
    """The run's one seam for watchers: its hooks, each agent's hooks, and the event stream."""

    __slots__ = ("_emit", "_hooks", "tracer")

    def __init__(
        self, hooks: RunHooks[Any] | None, emit: Emit | None, tracer: RunTracer | None = None
    ) -> None:
        """Call `hooks` (if any), `emit` stream events (if streamed), and trace (if traced).

        Args:
            hooks: The run's hooks.
            emit: Queues a stream event.
            tracer: Records the run's spans; the steps that need more than these
                methods carry (a model call's request, a tool call's span) use it directly.
        """
        self._hooks = hooks
        self._emit = emit
        self.tracer = tracer

    async def agent_start(self, context: RunContextWrapper[Any], agent: Agent[Any]) -> None:
        """An agent starts answering."""
        if self.tracer is not None:
            self.tracer.agent_start(agent)
        if self._emit is not None:
            self._emit(AgentUpdatedStreamEvent(agent))
        if self._hooks is not None:
            await self._hooks.on_agent_start(context, agent)
        if agent.hooks is not None:
            await agent.hooks.on_start(context, agent)

    async def agent_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], output: Any
    ) -> None:
        """The run ends with `output`."""
        if self._hooks is not None:
            await self._hooks.on_agent_end(context, agent, output)
        if agent.hooks is not None:
            await agent.hooks.on_end(context, agent, output)

    async def handoff(
        self, context: RunContextWrapper[Any], from_agent: Agent[Any], to_agent: Agent[Any]
    ) -> None:
        """The conversation passes to `to_agent`."""
        if self.tracer is not None:
            self.tracer.handoff(from_agent, to_agent)
        if self._hooks is not None:
            await self._hooks.on_handoff(context, from_agent, to_agent)
        if to_agent.hooks is not None:
            await to_agent.hooks.on_handoff(context, to_agent, from_agent)

    async def llm_start(
        self, context: RunContextWrapper[Any], agent: Agent[Any], instructions: str | None,
        items: list[Item],
    ) -> None:  # fmt: skip
        """The model is about to be called."""
        if self._hooks is not None:
            await self._hooks.on_llm_start(context, agent, instructions, items)
        if agent.hooks is not None:
            await agent.hooks.on_llm_start(context, agent, instructions, items)

    async def llm_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], response: ModelResponse
    ) -> None:
        """The model's response arrived."""
        if self._hooks is not None:
            await self._hooks.on_llm_end(context, agent, response)
        if agent.hooks is not None:
            await agent.hooks.on_llm_end(context, agent, response)

    async def llm_retry(
        self, context: RunContextWrapper[Any], agent: Agent[Any], error: Exception, attempt: int,
        delay: float,
    ) -> None:  # fmt: skip
        """A model call failed and will be tried again."""
        if self._hooks is not None:
            await self._hooks.on_llm_retry(context, agent, error, attempt, delay)
        if agent.hooks is not None:
            await agent.hooks.on_llm_retry(context, agent, error, attempt, delay)

    async def tool_start(
        self, context: RunContextWrapper[Any], agent: Agent[Any], tool: Tool
    ) -> None:
        """A local tool call starts."""
        if self._hooks is not None:
            await self._hooks.on_tool_start(context, agent, tool)
        if agent.hooks is not None:
            await agent.hooks.on_tool_start(context, agent, tool)

    async def tool_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], tool: Tool, result: str
    ) -> None:
        """A local tool call ended."""
        if self._hooks is not None:
            await self._hooks.on_tool_end(context, agent, tool, result)
        if agent.hooks is not None:
            await agent.hooks.on_tool_end(context, agent, tool, result)

    def watched(self, agent: Agent[Any]) -> bool:
        """Whether any hook listens to `agent`'s steps: when none does, the run skips the awaits."""
        return self._hooks is not None or agent.hooks is not None

    def item(self, name: ItemEventName, item: Item) -> None:
        """The run added an item."""
        if self._emit is not None:
            self._emit(RunItemStreamEvent(name, item))

    def raw(self, data: Any) -> None:
        """The model streamed a delta."""
        if self._emit is not None:
            self._emit(RawResponsesStreamEvent(data))

    def arguments_delta(self, delta: ToolCallArgumentsDelta) -> None:
        """The model streamed a piece of a call's arguments."""
        if self._emit is not None:
            self._emit(
                ToolCallArgumentsDeltaStreamEvent(delta.call_id, delta.tool_name, delta.delta)
            )

    def usage(self, request: RequestUsage, usage: Usage) -> None:
        """A model response arrived, using `request`; the run has used `usage`."""
        if self._emit is not None:
            self._emit(UsageStreamEvent(request, usage))

    def guardrail_result(self, kind: GuardrailKind, result: Any) -> None:
        """A guardrail finished."""
        if self._emit is not None:
            self._emit(GuardrailResultStreamEvent(kind, result))
