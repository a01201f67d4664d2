"""`RunEvents`: the run's one seam for watchers.

Each step of a run tells `RunEvents` what happened; it calls the run's hooks and
the agent's hooks (`RunHooks`, `AgentHooks`), puts stream events in a streamed
run's buffer, and opens spans through the run's tracer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..agents._agent import Agent
from ..agents._hooks import AgentHooksBase, RunHooksBase, check_hooks
from ..core._context import AgentHookContext, RequestUsage, RunContextWrapper, Usage
from ..core._items import Item
from ..guardrails._checks import GuardrailKind
from ..models import ModelResponse, TextDelta, ToolCallArgumentsDelta
from ..tools._toolsets import Tool
from ..tracing._tracer import RunTracer
from ._prepare import public_agent
from ._run_items import item_object
from ._stream_buffer import EventBuffer
from ._stream_events import (
    AgentUpdatedStreamEvent,
    GuardrailResultStreamEvent,
    ItemEventName,
    RawResponsesStreamEvent,
    RunItemStreamEvent,
    TextDeltaStreamEvent,
    ToolCallArgumentsDeltaStreamEvent,
    UsageStreamEvent,
)

__all__ = ["RunEvents"]


class RunEvents:
    """The run's one seam for watchers: its hooks, each agent's hooks, and the event stream."""

    __slots__ = ("_hooks", "stream", "tracer")

    def __init__(
        self,
        hooks: RunHooksBase[Any, Any] | None,
        stream: EventBuffer | None,
        tracer: RunTracer | None = None,
    ) -> None:
        """Call `hooks` (if any), put stream events in `stream` (if streamed), and trace.

        Args:
            hooks: The run's hooks.
            stream: Where a streamed run's events go; the model's stream waits for room in it.
            tracer: Records the run's spans; the steps that need more than these
                methods carry (a model call's request, a tool call's span) use it directly.
        """
        if hooks is not None:
            check_hooks(hooks, RunHooksBase, "Runner hooks")
        self._hooks = hooks
        self.stream = stream
        self.tracer = tracer

    async def agent_start(
        self,
        context: RunContextWrapper[object],
        agent: Agent[object],
        turn_input: Callable[[], list[Item]],
    ) -> None:
        """An agent starts answering; `turn_input` makes its conversation, if a hook reads it."""
        agent = public_agent(agent)  # watchers see the agent given, not a run's stand-in
        if agent.hooks is not None:  # checked by Agent() too; this catches `agent.hooks = ...`
            check_hooks(agent.hooks, AgentHooksBase, f"Agent '{agent.name}' hooks")
        if self.tracer is not None:
            self.tracer.agent_start(agent)
        if self.stream is not None:
            self.stream.put(AgentUpdatedStreamEvent(agent))
        if self._hooks is None and agent.hooks is None:
            return
        hook_context = AgentHookContext(
            context=context.context, usage=context.usage, turn_input=turn_input()
        )
        if self._hooks is not None:
            await self._hooks.on_agent_start(hook_context, agent)
        if agent.hooks is not None:
            await agent.hooks.on_start(hook_context, agent)

    async def agent_end(
        self, context: RunContextWrapper[object], agent: Agent[object], output: Any
    ) -> None:
        """The run ends with `output`."""
        agent = public_agent(agent)
        if self._hooks is not None:
            await self._hooks.on_agent_end(context, agent, output)
        if agent.hooks is not None:
            await agent.hooks.on_end(context, agent, output)

    async def handoff(
        self, context: RunContextWrapper[object], from_agent: Agent[object], to_agent: Agent[object]
    ) -> None:
        """The conversation passes to `to_agent`."""
        from_agent = public_agent(from_agent)
        if self.tracer is not None:
            self.tracer.handoff(from_agent, to_agent)
        if self._hooks is not None:
            await self._hooks.on_handoff(context, from_agent, to_agent)
        if to_agent.hooks is not None:
            await to_agent.hooks.on_handoff(context, to_agent, from_agent)

    async def llm_start(
        self, context: RunContextWrapper[object], agent: Agent[object], instructions: str | None,
        items: list[Item],
    ) -> None:  # fmt: skip
        """The model is about to be called."""
        agent = public_agent(agent)
        if self._hooks is not None:
            await self._hooks.on_llm_start(context, agent, instructions, items)
        if agent.hooks is not None:
            await agent.hooks.on_llm_start(context, agent, instructions, items)

    async def llm_end(
        self, context: RunContextWrapper[object], agent: Agent[object], response: ModelResponse
    ) -> None:
        """The model's response arrived."""
        agent = public_agent(agent)
        if self._hooks is not None:
            await self._hooks.on_llm_end(context, agent, response)
        if agent.hooks is not None:
            await agent.hooks.on_llm_end(context, agent, response)

    async def llm_retry(
        self, context: RunContextWrapper[object], agent: Agent[object], error: Exception,
        attempt: int, delay: float,
    ) -> None:  # fmt: skip
        """A model call failed and will be tried again."""
        agent = public_agent(agent)
        if self._hooks is not None:
            await self._hooks.on_llm_retry(context, agent, error, attempt, delay)
        if agent.hooks is not None:
            await agent.hooks.on_llm_retry(context, agent, error, attempt, delay)

    async def tool_start(
        self, context: RunContextWrapper[object], agent: Agent[object], tool: Tool
    ) -> None:
        """A local tool call starts."""
        agent = public_agent(agent)
        if self._hooks is not None:
            await self._hooks.on_tool_start(context, agent, tool)
        if agent.hooks is not None:
            await agent.hooks.on_tool_start(context, agent, tool)

    async def tool_end(
        self, context: RunContextWrapper[object], agent: Agent[object], tool: Tool, result: str
    ) -> None:
        """A local tool call ended."""
        agent = public_agent(agent)
        if self._hooks is not None:
            await self._hooks.on_tool_end(context, agent, tool, result)
        if agent.hooks is not None:
            await agent.hooks.on_tool_end(context, agent, tool, result)

    @classmethod
    def of(
        cls,
        hooks: RunHooksBase[Any, Any] | None,
        stream: EventBuffer | None,
        tracer: RunTracer | None,
    ) -> RunEvents:
        """The run's events: one shared instance for every run with no hooks, stream or tracer.

        An instance holds nothing else and none is changed, so runs without watchers share
        one (`tooluse.run._lean`: one object less for each waiting run).
        """
        if hooks is None and stream is None and tracer is None:
            return _UNWATCHED
        return cls(hooks, stream, tracer)

    def watched(self, agent: Agent[object]) -> bool:
        """Whether any hook listens to `agent`'s steps: when none does, the run skips the awaits."""
        return self._hooks is not None or agent.hooks is not None

    def item(
        self,
        name: ItemEventName,
        item: Item,
        agent: Agent[object],
        target: Agent[object] | None = None,
        items: Sequence[Item] = (),
    ) -> None:
        """The run added an item, in `agent`'s turn (`target`: the agent handed off to).

        `items` are the run's items, which a call's item object reads its tool's facts from.
        """
        if self.stream is not None:
            made = item_object(name, item, public_agent(agent), target, items)
            self.stream.put(RunItemStreamEvent(name, made))

    def raw(self, data: object) -> bool:
        """The model streamed a delta; True if the consumer is behind: await `stream.room()`."""
        return self.stream is not None and self.stream.put(RawResponsesStreamEvent(data))

    def text_delta(self, delta: TextDelta) -> bool:
        """The model streamed a piece of text; True if the consumer is behind."""
        return self.stream is not None and self.stream.put(TextDeltaStreamEvent(delta.delta))

    def arguments_delta(self, delta: ToolCallArgumentsDelta) -> bool:
        """The model streamed a piece of a call's arguments; True if the consumer is behind."""
        if self.stream is None:  # only a streamed run streams the model
            return False  # pragma: no cover
        event = ToolCallArgumentsDeltaStreamEvent(delta.call_id, delta.tool_name, delta.delta)
        return self.stream.put(event)

    def usage(self, request: RequestUsage, usage: Usage) -> None:
        """A model response arrived, using `request`; the run has used `usage`."""
        if self.stream is not None:
            self.stream.put(UsageStreamEvent(request, usage))

    def guardrail_result(self, kind: GuardrailKind, result: Any) -> None:
        """A guardrail finished."""
        if self.stream is not None:
            self.stream.put(GuardrailResultStreamEvent(kind, result))


_UNWATCHED = RunEvents(None, None)
