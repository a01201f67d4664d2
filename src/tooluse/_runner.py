"""`Runner`: the model ⇄ tool loop, written as a few named steps.

One turn: prepare the request (instructions, enabled tools, settings), call the
model (whole or streamed), record what it produced, run the tool calls it asked
for (all at once, outputs kept in call order), and decide whether the run is
over. Streaming differs only in how the model is called and in the events the
steps emit.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, cast

from ._agent import Agent, FunctionToolResult, StopAtTools, ToolsToFinalOutputResult
from ._context import RunContextWrapper, Usage
from ._function_tool import FunctionTool, ToolErrorFunction
from ._handoffs import (
    Handoff,
    HandoffCall,
    as_handoffs,
    handoff,
    handoff_tools,
    read_handoff,
    run_on_handoff,
)
from ._items import Item, function_call_output, message_text, user_message
from ._local_tools import LOCAL_ITEM_TYPES, answer_local_item
from ._output import output_schema
from ._result import (
    AgentUpdatedStreamEvent,
    RawResponsesStreamEvent,
    RunItemStreamEvent,
    RunResult,
    RunResultStreaming,
    RunStreamEvent,
)
from ._returns import apply_context_variables
from ._settings import ModelSettings
from ._state import RunState, ToolApproval
from ._tool_calls import CallGroup, PlannedCall, plan_calls
from ._tool_execution import GroupOutcome, ToolExecutor
from .exceptions import MaxTurnsExceeded, ModelAPIError, ToolErrorBudgetExceeded, UserError
from .models import Model, ModelRequest, ModelResponse, ResponseDone, resolve_model

__all__ = ["DEFAULT_MAX_TURNS", "RunConfig", "Runner"]

ONE_HANDOFF_ONLY = (
    "Only the first handoff in a response is taken; this one was ignored. "
    "The conversation is with the agent chosen first."
)
DEFAULT_MAX_TURNS = 10
"""Model calls a run may make before `MaxTurnsExceeded`."""

Emit = Callable[[RunStreamEvent], None]
CallModel = Callable[[Model, ModelRequest, Emit], Awaitable[ModelResponse]]


@dataclass
class RunConfig:
    """Settings for one run that override the agents'."""

    model: str | Model | None = None
    """The model every agent of the run uses, instead of its own."""
    model_settings: ModelSettings | None = None
    """Settings that win over each agent's where they are set."""
    max_tool_errors: int = 3
    """Consecutive turns in which every tool call fails before `ToolErrorBudgetExceeded`."""
    tool_timeout: float | None = None
    """Seconds a tool call may take, for tools that set no `timeout`."""
    failure_error_function: ToolErrorFunction | None = None
    """The text the model gets for a failed call, for tools that kept the default."""
    log_tool_errors: bool = False
    """Log tool exceptions with their messages (off: tool data may hold secrets)."""
    max_retries: int | None = None
    """The `openai` client's retries for each model call; None keeps the client's."""


class Runner:
    """Runs an agent: `await Runner.run(agent, "question")`."""

    @classmethod
    async def run(
        cls,
        starting_agent: Agent[Any],
        input: str | list[Item] | RunState,
        *,
        context: Any = None,
        max_turns: int = DEFAULT_MAX_TURNS,
        run_config: RunConfig | None = None,
        execute_tools: bool = True,
    ) -> RunResult:
        """Run the agent until it answers (or pauses for a human).

        Args:
            starting_agent: The agent.
            input: A user message, a list of input items (e.g. `result.to_input_list()`),
                or the `RunState` of a paused run to resume.
            context: Your object, given to tools as `RunContextWrapper.context`.
            max_turns: The most model calls the run may make.
            run_config: Overrides for this run.
            execute_tools: False stops at the first response asking for tools and returns
                them unexecuted in `result.pending_tool_calls`.

        Returns:
            The result: `final_output`, or `interruptions` when calls wait for approval.

        Raises:
            MaxTurnsExceeded: If the model is still calling tools after `max_turns` calls.
        """
        config = run_config or RunConfig()
        run = _Run(starting_agent, input, context, max_turns, config, execute_tools=execute_tools)
        return await run.execute(_call_whole, _ignore)

    @classmethod
    def run_sync(
        cls,
        starting_agent: Agent[Any],
        input: str | list[Item] | RunState,
        *,
        context: Any = None,
        max_turns: int = DEFAULT_MAX_TURNS,
        run_config: RunConfig | None = None,
        execute_tools: bool = True,
    ) -> RunResult:
        """`run`, for code without an event loop.

        Args:
            starting_agent: The agent.
            input: A user message, a list of input items, or a paused run's `RunState`.
            context: Your object, given to tools.
            max_turns: The most model calls the run may make.
            run_config: Overrides for this run.
            execute_tools: False returns the first tool calls unexecuted.

        Returns:
            The result.

        Raises:
            UserError: If called while an event loop is running (use `await Runner.run`).
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            raise UserError("Runner.run_sync() cannot run inside an event loop: await Runner.run()")
        coroutine = cls.run(
            starting_agent,
            input,
            context=context,
            max_turns=max_turns,
            run_config=run_config,
            execute_tools=execute_tools,
        )
        return asyncio.run(coroutine)

    @classmethod
    def run_streamed(
        cls,
        starting_agent: Agent[Any],
        input: str | list[Item] | RunState,
        *,
        context: Any = None,
        max_turns: int = DEFAULT_MAX_TURNS,
        run_config: RunConfig | None = None,
        execute_tools: bool = True,
    ) -> RunResultStreaming:
        """Start the run and return at once; iterate `result.stream_events()`.

        Args:
            starting_agent: The agent.
            input: A user message, a list of input items, or a paused run's `RunState`.
            context: Your object, given to tools.
            max_turns: The most model calls the run may make.
            run_config: Overrides for this run.
            execute_tools: False returns the first tool calls unexecuted.

        Returns:
            The streaming result; its fields are complete once the events end.
        """
        config = run_config or RunConfig()
        run = _Run(starting_agent, input, context, max_turns, config, execute_tools=execute_tools)
        streaming = RunResultStreaming(
            input=run.input,
            new_items=run.new_items,
            raw_responses=run.raw_responses,
            final_output=None,
            last_agent=starting_agent,
            usage=run.context.usage,
        )
        streaming._task = asyncio.ensure_future(_stream(run, streaming))  # pyright: ignore[reportPrivateUsage]
        return streaming


async def _stream(run: _Run, streaming: RunResultStreaming) -> RunResult:
    queue = streaming._queue  # pyright: ignore[reportPrivateUsage]
    try:
        result = await run.execute(_call_streamed, queue.put_nowait)
        streaming.final_output = result.final_output
        streaming.last_agent = result.last_agent
        streaming.pending_tool_calls = result.pending_tool_calls
        streaming.interruptions = result.interruptions
        streaming._state = result._state  # pyright: ignore[reportPrivateUsage]
        return result
    finally:
        streaming.is_complete = True
        queue.put_nowait(None)


async def _call_whole(model: Model, request: ModelRequest, emit: Emit) -> ModelResponse:
    del emit
    return await model.get_response(request)


async def _call_streamed(model: Model, request: ModelRequest, emit: Emit) -> ModelResponse:
    async for event in model.stream_response(request):
        if isinstance(event, ResponseDone):
            return event.response
        emit(RawResponsesStreamEvent(event.data))
    raise UserError(f"{type(model).__name__}.stream_response ended without a ResponseDone event")


def _ignore(event: RunStreamEvent) -> None:
    del event


class _Run:
    """The state of one run, and its steps."""

    def __init__(
        self,
        agent: Agent[Any],
        input: str | list[Item] | RunState,
        context: Any,
        max_turns: int,
        config: RunConfig,
        *,
        execute_tools: bool,
    ) -> None:
        self.set_agent(agent)
        self.context = RunContextWrapper(context=context, usage=Usage())
        self.new_items: list[Item] = []
        self.resume_output: list[Item] | None = None
        self.decisions: dict[str, dict[str, Any]] = {}
        self.run_tools = execute_tools  # False: return the first tool calls unexecuted
        if isinstance(input, RunState):
            self.resume(input)
        else:
            self.input = [user_message(input)] if isinstance(input, str) else list(input)
        self.max_turns = max_turns
        self.config = config
        self.raw_responses: list[ModelResponse] = []
        self.release_tool_choice = False
        self.visible: list[Item] | None = None  # the history after a handoff's input_filter
        self.failed_turns = 0
        self.executor = ToolExecutor(
            self.context,
            timeout=config.tool_timeout,
            failure_error_function=config.failure_error_function,
            log_tool_errors=config.log_tool_errors,
        )

    def set_agent(self, agent: Agent[Any]) -> None:
        """Make `agent` the one answering, with what it needs each turn computed once."""
        self.agent = agent
        self.handoffs = as_handoffs(agent.handoffs)
        one_tool = agent.handoff_mode == "one_tool"
        self.handoff_tools = handoff_tools(self.handoffs, one_tool=one_tool)
        self.output = output_schema(agent.output_type) if agent.output_type is not None else None

    async def execute(self, call_model: CallModel, emit: Emit) -> RunResult:
        emit(AgentUpdatedStreamEvent(self.agent))
        for _ in range(self.max_turns):
            tools = await self.enabled_tools()
            response = await self.next_response(call_model, tools, emit)
            calls = [item for item in response.output if item.get("type") == "function_call"]
            if calls and not self.run_tools:
                return self.finish(None, pending_tool_calls=calls)
            answered = await self.answer_local_items(response, tools, emit)
            if not calls and not answered:
                return self.finish(self.final_output(response))
            try:
                results, target = await self.execute_tools(response, tools, emit)
            except _Interrupted as paused:
                return self.pause(response, paused.approvals)
            if target is not None:
                self.switch_agent(target, emit)
                continue
            decision = await self.decide(results)
            if decision.is_final_output:
                return self.finish(decision.final_output)
        raise MaxTurnsExceeded(self.max_turns, [*self.input, *self.new_items], self.new_items)

    async def next_response(
        self, call_model: CallModel, tools: list[Any], emit: Emit
    ) -> ModelResponse:
        """The model's next response, or, when resuming, the one whose calls waited."""
        if self.resume_output is not None:
            response, self.resume_output = ModelResponse(self.resume_output), None
            return response
        model = resolve_model(self.config.model or self.agent.model)
        request = await self.prepare_request(tools)
        response = await self.call_model(call_model, model, request, emit)
        self.record(response, emit)
        return response

    def resume(self, state: RunState) -> None:
        """Pick up a paused run: its items, usage and the calls that waited."""
        self.set_agent(_find_agent(self.agent, state.agent_name))
        self.input = list(state.input)
        self.new_items = list(state.new_items)
        self.resume_output = list(state.pending_output)
        self.decisions = dict(state.decisions)
        self.context.usage.add(state.usage)

    def pause(self, response: ModelResponse, approvals: list[ToolApproval]) -> RunResult:
        """Stop for a human: the calls waiting for approval, and the state to resume from."""
        state = RunState(
            agent_name=self.agent.name,
            input=self.input,
            new_items=self.new_items,
            pending_output=response.output,
            decisions=self.decisions,
            usage=self.context.usage,
        )
        return self.finish(None, interruptions=approvals, _state=state)

    async def call_model(
        self, call_model: CallModel, model: Model, request: ModelRequest, emit: Emit
    ) -> ModelResponse:
        try:
            return await call_model(model, request, emit)
        except Exception as error:
            # openai is not imported until a model uses it: if it is not, no API error exists.
            openai = sys.modules.get("openai")
            if openai is None or not isinstance(error, openai.APIError):
                raise
            status = getattr(error, "status_code", None)
            items = [*self.input, *self.new_items]
            raise ModelAPIError(status, items, self.new_items) from error

    async def enabled_tools(self) -> list[Any]:
        enabled: list[Any] = []
        for tool in [*self.agent.tools, *self.handoff_tools]:
            flag: Any = getattr(tool, "is_enabled", True)
            if callable(flag):
                flag = flag(self.context, self.agent)
                flag = await flag if inspect.isawaitable(flag) else flag
            if flag:
                enabled.append(tool)
        return enabled

    async def prepare_request(self, tools: list[Any]) -> ModelRequest:
        settings = self.agent.model_settings.resolve(self.config.model_settings)
        if self.release_tool_choice:
            settings = replace(settings, tool_choice=None)
        return ModelRequest(
            instructions=await self.instructions(),
            input=self.visible if self.visible is not None else [*self.input, *self.new_items],
            tools=tools,
            settings=settings,
            output_schema=self.output.json_schema if self.output else None,
            max_retries=self.config.max_retries,
        )

    async def instructions(self) -> str | None:
        instructions = self.agent.instructions
        if instructions is None or isinstance(instructions, str):
            return instructions
        text = instructions(self.context, self.agent)
        return await text if inspect.isawaitable(text) else text

    def record(self, response: ModelResponse, emit: Emit) -> None:
        self.raw_responses.append(response)
        self.context.usage.add(response.usage)
        for item in response.output:
            self.add_item(item)
            if message_text(item) is not None:
                emit(RunItemStreamEvent("message_output_created", item))
            elif item.get("type") == "function_call":
                emit(RunItemStreamEvent("tool_called", item))

    async def execute_tools(
        self, response: ModelResponse, tools: list[Any], emit: Emit
    ) -> tuple[list[FunctionToolResult], Handoff | None]:
        """Plan the calls, run them, answer each call id, and keep the error budget.

        Returns:
            The function tools' results, and the handoff taken, if any.
        """
        one_tool = self.agent.handoff_mode == "one_tool"
        handoff_calls: list[HandoffCall] = []
        other_items: list[Item] = []
        for item in response.output:
            asked = read_handoff(item, self.handoffs, one_tool=one_tool) if self.handoffs else None
            if asked is not None:
                handoff_calls.append(asked)
            else:
                other_items.append(item)
        function_tools = [tool for tool in tools if isinstance(tool, FunctionTool)]
        groups = plan_calls(other_items, function_tools, self.new_items)
        await self.check_approvals(groups)
        outcomes = await self.executor.run(groups)
        for outcome in outcomes:
            self.answer(outcome.group.call_id, outcome.output, emit)
            for call in outcome.calls:
                if call.context_variables:
                    apply_context_variables(self.context.context, call.context_variables)
        if (outcomes or handoff_calls) and self.agent.reset_tool_choice:
            self.release_tool_choice = True
        target = await self.take_handoff(handoff_calls, outcomes, emit)
        self.spend_error_budget(outcomes)
        results = [
            FunctionToolResult(call.tool, outcome.group.call_id, call.output)
            for outcome in outcomes
            if not outcome.group.wrapper
            for call in outcome.calls
            if call.tool is not None
        ]
        return results, target

    async def check_approvals(self, groups: list[CallGroup]) -> None:
        """Apply the human's decisions; pause (before anything runs) if some are missing."""
        waiting: list[ToolApproval] = []
        for group in groups:
            for call in group.calls:
                if call.tool is None or not await self.needs_approval(call):
                    continue
                decision = self.decisions.get(group.call_id)
                if decision is None:
                    waiting.append(ToolApproval(group.call_id, call.name, call.arguments))
                elif not decision["approved"]:
                    call.tool, call.error = None, decision["message"]
        if waiting:
            raise _Interrupted(waiting)

    async def needs_approval(self, call: PlannedCall) -> bool:
        flag: Any = cast(FunctionTool, call.tool).needs_approval
        if not callable(flag):
            return bool(flag)
        try:
            arguments: Any = json.loads(call.arguments or "{}")
        except json.JSONDecodeError:
            return True  # unreadable arguments: let a human look
        answer = flag(self.context, arguments)
        return bool(await answer if inspect.isawaitable(answer) else answer)

    def answer(self, call_id: str, output: str, emit: Emit) -> None:
        item = function_call_output(call_id, output)
        self.add_item(item)
        emit(RunItemStreamEvent("tool_output", item))

    async def take_handoff(
        self, calls: list[HandoffCall], outcomes: list[GroupOutcome], emit: Emit
    ) -> Handoff | None:
        """Take the first valid handoff the model asked for; answer every handoff call."""
        taken: Handoff | None = None
        for call in calls:
            if call.target is None:
                self.answer(call.call_id, call.refusal or "", emit)
            elif taken is not None:
                self.answer(call.call_id, ONE_HANDOFF_ONLY, emit)
            else:
                try:
                    data = call.target.parse_input(call.arguments)
                except ValueError as error:
                    self.answer(
                        call.call_id,
                        f"The handoff's input is not valid ({error}); "
                        "call it again with corrected input.",
                        emit,
                    )
                    continue
                await run_on_handoff(call.target, self.context, data)
                taken = call.target
                self.answer(call.call_id, json.dumps({"assistant": taken.agent.name}), emit)
        if taken is None:  # a Swarm-style return: a tool gave back an agent
            returned = [c.handoff for o in outcomes for c in o.calls if c.handoff is not None]
            taken = handoff(returned[0]) if returned else None
        return taken

    def switch_agent(self, target: Handoff, emit: Emit) -> None:
        self.set_agent(target.agent)
        self.release_tool_choice = False
        if target.input_filter is not None:
            self.visible = target.input_filter([*self.input, *self.new_items])
        emit(AgentUpdatedStreamEvent(self.agent))

    def add_item(self, item: Item) -> None:
        self.new_items.append(item)
        if self.visible is not None:
            self.visible.append(item)

    def spend_error_budget(self, outcomes: list[GroupOutcome]) -> None:
        """Count turns in which every call failed; stop the run when the budget is gone."""
        if not outcomes:
            return
        if not all(outcome.failed for outcome in outcomes):
            self.failed_turns = 0
            return
        self.failed_turns += 1
        if self.failed_turns >= self.config.max_tool_errors:
            errors = [outcome.output for outcome in outcomes]
            items = [*self.input, *self.new_items]
            raise ToolErrorBudgetExceeded(
                self.config.max_tool_errors, errors, items, self.new_items
            )

    async def answer_local_items(
        self, response: ModelResponse, tools: list[Any], emit: Emit
    ) -> int:
        """Answer computer actions, shell commands and MCP approval requests; count them."""
        answered = 0
        for item in response.output:
            if item.get("type") in LOCAL_ITEM_TYPES:
                answer = await answer_local_item(item, tools)
                if answer is not None:
                    self.add_item(answer)
                    emit(RunItemStreamEvent("tool_output", answer))
                    answered += 1
        return answered

    async def decide(self, results: list[FunctionToolResult]) -> ToolsToFinalOutputResult:
        behavior = self.agent.tool_use_behavior
        if behavior == "run_llm_again" or not results:
            return ToolsToFinalOutputResult(is_final_output=False)
        if behavior == "stop_on_first_tool":
            return ToolsToFinalOutputResult(True, results[0].output)
        if isinstance(behavior, StopAtTools):
            hit = next((r for r in results if r.tool.name in behavior.tool_names), None)
            return ToolsToFinalOutputResult(hit is not None, hit.output if hit else None)
        decision = cast(Any, behavior)(self.context, results)
        return await decision if inspect.isawaitable(decision) else decision

    def final_output(self, response: ModelResponse) -> Any:
        texts = [text for item in response.output if (text := message_text(item)) is not None]
        text = texts[-1] if texts else ""
        return self.output.parse(text) if self.output else text

    def finish(self, final_output: Any, **extra: Any) -> RunResult:
        return RunResult(
            input=self.input,
            new_items=self.new_items,
            raw_responses=self.raw_responses,
            final_output=final_output,
            last_agent=self.agent,
            usage=self.context.usage,
            **extra,
        )


class _Interrupted(Exception):
    def __init__(self, approvals: list[ToolApproval]) -> None:
        self.approvals = approvals
        super().__init__(f"{len(approvals)} call(s) wait for approval")


def _find_agent(start: Agent[Any], name: str) -> Agent[Any]:
    """The agent named `name`: the start, or one reachable from it through handoffs."""
    seen: set[int] = set()
    pending: list[Agent[Any]] = [start]
    while pending:
        agent = pending.pop()
        if agent.name == name:
            return agent
        if id(agent) not in seen:
            seen.add(id(agent))
            pending.extend(h.agent for h in as_handoffs(agent.handoffs))
    raise UserError(
        f"The run state names agent {name!r}, which is neither {start.name!r} nor reachable "
        "through its handoffs: resume with the agent the run started with"
    )
