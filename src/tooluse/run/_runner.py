"""`Runner`: runs an agent, one turn after another, until it answers, pauses or stops.

The run is a `RunState` and the steps of `_turn.py` over it; this module
loops over the next step each turn returns, takes handoffs, enters the
agents' toolsets for the length of the run, and builds the result. The three
entry points share one set of options (`RunOptions`).
"""

from __future__ import annotations

import asyncio
import difflib
import functools
import inspect
import logging
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any, TypedDict

from typing_extensions import Unpack

from ..agents._agent import Agent, RunHooks, as_agent
from ..agents._agent_tool import AgentToolCall, runs_agent_tools_with
from ..agents._handoff_input import HandoffInputData, filtered_history
from ..agents._handoffs import as_handoffs
from ..core._context import RunContextWrapper, Usage, watched_by
from ..core._context_record import ContextRecord
from ..core._items import Item, user_message
from ..core._paused_context import keep_context, kept_context
from ..core._state import RunState, ServerThread
from ..core._values import is_whole_number
from ..exceptions import RunStopped, RunTimeoutError, UsageLimitExceeded, UserError
from ..tools._invocation import tool_output_text
from ..tracing._tracer import run_tracer
from ._compaction import CompactionWatcher
from ._config import DEFAULT_MAX_TURNS, RunConfig, as_run_config
from ._events import RunEvents
from ._guardrails import (
    beside_input_guardrails,
    run_input_guardrails,
    run_output_guardrails,
    split_input_guardrails,
)
from ._handoffs import AgentHandoff
from ._lean import add_made
from ._model_call import agent_settings
from ._nested import nested_approvals, pause_nested, resumed_nested
from ._prepare import PREPARERS, AgentPreparation, AgentPreparer, preparer_of, public_agent
from ._record import InputChecks, NestedPause, RunRecord
from ._result import RunResult, RunResultStreaming, StreamedRun
from ._run_items import RawItem, RunItems, ToolApprovalItem
from ._scope import AgentSetup, RunSetup, agent_toolsets
from ._session_run import SessionLink, check_session
from ._stream_buffer import EventBuffer
from ._stream_events import AgentUpdatedStreamEvent
from ._tool_execution import ToolExecutor, all_or_none
from ._turn import FinalOutput, Interrupted, NextAgent, NextStep, Pending, RunAgain, take_turn

if TYPE_CHECKING:
    from ..guardrails._agent_guardrails import (
        InputGuardrail,
        InputGuardrailResult,
        OutputGuardrailResult,
    )
    from ..sessions import Session

__all__ = ["DEFAULT_MAX_TURNS", "Run", "RunConfig", "RunOptions", "Runner", "run_agent_tool"]

RunInput = str | Sequence[Item] | RunState


class RunOptions(TypedDict, total=False):
    """The keyword options of `Runner.run`, `Runner.run_sync` and `Runner.run_streamed`."""

    context: Any
    """Your object, given to tools, hooks and callbacks as `RunContextWrapper.context`."""
    max_turns: int
    """The most model calls the run may make, counting those before a pause (default 10)."""
    run_config: RunConfig | dict[str, Any] | None
    """Overrides for this run (model, settings, tool timeout, error budget, ...)."""
    execute_tools: bool
    """False stops at the first response that asks for function tools and returns the calls
    unexecuted in `result.pending_tool_calls` (default True)."""
    hooks: RunHooks[Any] | None
    """Callbacks at each step of the run."""
    session: Session | None
    """Where the conversation is kept: its history goes before the input, and each whole
    turn is stored as it completes (see `SQLiteSession`)."""
    previous_response_id: str | None
    """OpenAI Responses API only: the response this run continues (`result.last_response_id`
    of an earlier run). The server keeps the conversation: each request sends only what it
    does not hold yet (the input, then tool outputs) with the id of the response before.
    A paused run's state keeps the response it continues: resuming it needs no id. Not
    with a session or a context policy, which would keep the conversation a second time."""


class Runner:
    """Runs an agent: `await Runner.run(agent, "question")`."""

    @classmethod
    async def run(
        cls,
        starting_agent: Agent[Any],
        input: RunInput | None = None,
        **options: Unpack[RunOptions],
    ) -> RunResult:
        """Run the agent until it answers (or pauses for a human).

        Args:
            starting_agent: The agent.
            input: A user message, a list of input items (e.g. `result.to_input_list()`),
                or the `RunState` of a paused run to resume; with a `session`, None
                resumes the run the session holds paused.
            **options: `context`, `max_turns`, `run_config`, `execute_tools`, `hooks`,
                `session` (see `RunOptions`).

        Returns:
            The result: `final_output`, or `interruptions` when calls wait for approval.

        Raises:
            MaxTurnsExceeded: If the model is still calling tools after `max_turns` calls.
            RunStopped: Any other way the run stops early; it keeps the conversation.
        """
        # `execute()`'s steps, in this frame (`_lean`: a coroutine returned, not awaited).
        run = Run(starting_agent, input, options)
        run.started()
        try:
            result = await run.body()
        except BaseException as error:
            run.ended(error)
            raise
        run.ended(None)
        return result

    @classmethod
    def run_sync(
        cls,
        starting_agent: Agent[Any],
        input: RunInput | None = None,
        **options: Unpack[RunOptions],
    ) -> RunResult:
        """`run`, for code without an event loop.

        Args:
            starting_agent: The agent.
            input: A user message, a list of input items, or a paused run's `RunState`
                (None: the session's paused run).
            **options: As for `run`.

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
        return asyncio.run(Run(starting_agent, input, options).execute())

    @classmethod
    def run_streamed(
        cls,
        starting_agent: Agent[Any],
        input: RunInput | None = None,
        **options: Unpack[RunOptions],
    ) -> RunResultStreaming:
        """Start the run and return at once; iterate `result.stream_events()`.

        Args:
            starting_agent: The agent.
            input: A user message, a list of input items, or a paused run's `RunState`
                (None: the session's paused run).
            **options: As for `run`.

        Returns:
            The streaming result; its fields are complete once the events end.
            `result.cancel()`, or leaving `stream_events()` early, stops the run.

        Raises:
            UserError: If no event loop is running (use `run_sync`, or call it from async code).
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            raise UserError(
                "Runner.run_streamed() needs a running event loop: call it from async code"
            ) from None
        streamed = StreamedRun(EventBuffer())
        run = Run(starting_agent, input, options, stream=streamed.buffer)
        streaming = run.streaming_result(streamed)
        task = streamed.task = asyncio.ensure_future(_run_streaming(run, streaming))
        task.add_done_callback(functools.partial(_streaming_ended, run, streamed, streaming))
        return streaming


async def _run_streaming(run: Run, streaming: RunResultStreaming) -> RunResult:
    result = await run.execute()
    streaming.final_output = result.final_output
    streaming.pending_tool_calls = result.pending_tool_calls
    streaming.interruptions = result.interruptions
    streaming.last_agent = result.last_agent
    return result


def _streaming_ended(
    run: Run, streamed: StreamedRun, streaming: RunResultStreaming, task: asyncio.Task[Any]
) -> None:
    """End the events however the run ended: answered, failed, or cancelled (even unstarted)."""
    if task.cancelled():
        streaming.cancelled = True
    # Seen here, in any case: the consumer may have left before it was raised.
    elif task.exception() is None:
        streamed.result = task.result()
    streaming.last_agent = public_agent(run.setup.agent)
    streaming.is_complete = True
    streamed.buffer.put(None)


class Run:
    """One run: what its steps read and write, the agent answering, and the loop over turns."""

    def __init__(
        self,
        agent: Agent[Any],
        input: RunInput | None,
        options: RunOptions,
        stream: EventBuffer | None = None,
        *,
        usage: Usage | None = None,
    ) -> None:
        """Set a run up.

        Args:
            agent: The starting agent.
            input: The input, or a state to resume.
            options: The run's options.
            stream: Where a streamed run's events go.
            usage: The `Usage` to count in, instead of a fresh one: a nested run shares its
                caller's.
        """
        _check_options(options)
        config = as_run_config(options.get("run_config"))
        session = options.get("session")
        if session is not None and options.get("execute_tools") is False:
            raise UserError(
                "Runner: execute_tools=False cannot be used with a session, which stores whole "
                "turns only (a call without its output would make the next request invalid): "
                "keep the conversation yourself with result.to_input_list() instead"
            )
        self._link = SessionLink(session, config) if session is not None else None
        self._given = input
        if input is None:
            if session is None:
                raise UserError(
                    "Runner got no input: give the user's message, a list of items, or a "
                    "RunState to resume (None resumes a session's paused run, with session=)"
                )
            state = RunState(agent.name, [])  # the session's paused run, read when it starts
        elif isinstance(input, RunState):
            state = input.copy()
            agent = _find_agent(agent, state.agent_name)
            if usage is not None:  # a nested run resumed: it counts in its caller's usage
                state.usage = usage
        else:
            state = RunState(agent.name, _input_items(input))
            if usage is not None:
                state.usage = usage
        previous = options.get("previous_response_id")
        if previous is not None:
            _continue_response(state, previous)
        if state.server_thread is not None:
            _check_server_thread(state.server_thread, config, options.get("session"))
        given = options.get("context")
        if "context" not in options and isinstance(input, RunState):
            given = kept_context(input)  # resumed in-process: the paused run's own context
        context: RunContextWrapper[object] = RunContextWrapper(context=given, usage=state.usage)
        events = RunEvents.of(options.get("hooks"), stream, run_tracer(config))
        self.record = RunRecord(state)
        self.run = RunSetup(
            context=context,
            config=config,
            events=events,
            executor=ToolExecutor(context, config, events, self.record),
            max_turns=options.get("max_turns", DEFAULT_MAX_TURNS),
            execute_tools=options.get("execute_tools", True),
            streamed=stream is not None,
        )
        self.setup = AgentSetup.of(agent)
        self.record.agents.append((len(state.new_items), agent))
        if isinstance(input, str | list):
            self.record.input_checks = self._input_checks(input)
        elif isinstance(input, RunState):
            self._recheck_input()
        self._entered: set[int] | None = None  # ids of the toolsets entered, once one is
        self._toolsets: AsyncExitStack | None = None  # made when a toolset is entered
        # Prepared agents' stand-ins (`_prepare.py`), by the id of the agent they stand in for.
        self._stand_ins: dict[int, tuple[Agent[Any], Agent[Any]]] | None = None

    def streaming_result(self, streamed: StreamedRun) -> RunResultStreaming:
        """The result of this run, streamed: it holds the run's own lists, filled as it goes.

        Args:
            streamed: The run's buffer and task, as the result reads them.

        Returns:
            The result.
        """
        record, state = self.record, self.record.state
        # The run fills the result's own lists, which the caller may read as it streams.
        record.input_guardrail_results, record.output_guardrail_results = [], []
        record.tool_input_guardrail_results, record.tool_output_guardrail_results = [], []
        return RunResultStreaming(
            input=state.input,
            new_items=RunItems(state.new_items, record.agents),
            raw_responses=record.raw_responses,
            final_output=None,
            last_agent=self.setup.agent,
            usage=state.usage,
            context_wrapper=self.run.context,
            input_guardrail_results=record.input_guardrail_results,
            output_guardrail_results=record.output_guardrail_results,
            tool_input_guardrail_results=record.tool_input_guardrail_results,
            tool_output_guardrail_results=record.tool_output_guardrail_results,
            _run=streamed,
        )

    async def execute(self) -> RunResult:
        """Run until the run answers, pauses or stops, within its time limit if it has one."""
        self.started()
        try:
            result = await self.body()
        except BaseException as error:
            self.ended(error)
            raise
        self.ended(None)
        return result

    def started(self) -> None:
        """The run starts: its span opens (`execute`'s first step)."""
        tracer = self.run.events.tracer
        if tracer is not None:
            tracer.run_start(self.setup.agent)

    def body(self) -> Awaitable[RunResult]:
        """The run's turns, within its time limit if it has one (`execute`'s middle step)."""
        if self.run.config.run_timeout is None:  # `_lean`: a coroutine returned, not awaited
            return self._turns()
        return self._within_timeout()

    def ended(self, error: BaseException | None) -> None:
        """The run ended, however (`execute`'s last step).

        A `RunStopped` gets the state to resume from and the conversation; the span closes.
        """
        if isinstance(error, RunStopped):
            error.state = self.record.state  # to resume from, after raising a limit say
            if not error.items:  # raised where the conversation is not known (a tool)
                error.items, error.new_items = self.record.error_items()
        tracer = self.run.events.tracer
        if tracer is not None:
            tracer.run_end(error)

    async def _within_timeout(self) -> RunResult:
        """The run, stopped with `RunTimeoutError` once `run_timeout` (set) has passed.

        With a limit, the run goes on in a task of its own that the timer cancels; this
        task waits for it, so a cancellation that reaches this task is the caller's, and
        stays a cancellation.
        """
        timeout = self.run.config.run_timeout
        assert timeout is not None  # execute() runs the turns itself without one
        loop = asyncio.get_running_loop()
        self.run.deadline = loop.time() + timeout
        task = asyncio.ensure_future(self._turns())
        timer = loop.call_later(timeout, task.cancel)
        try:
            await asyncio.wait({task})
        except asyncio.CancelledError:
            await _cancel_and_wait(task)
            raise
        finally:
            timer.cancel()
        if task.cancelled():
            raise RunTimeoutError(timeout)
        return task.result()

    def _recheck_input(self) -> None:
        """Check a resumed run's input again if it has answered nothing yet.

        An input guardrail tripped, or the first call failed; otherwise the input passed
        when the run began.
        """
        state = self.record.state
        if not state.new_items and state.turn is None:
            self.record.input_checks = self._input_checks(_as_given(state.input))

    def _turns(self) -> Coroutine[object, None, RunResult]:
        """The loop over turns, as a coroutine (`_lean`: a coroutine returned, not awaited)."""
        return self._loop() if self._link is None else self._loop_on_session()

    async def _leave(self, error: BaseException | None) -> None:
        """Leave the toolsets the run entered, and close the models it resolved by name."""
        try:
            if self._toolsets is not None:
                kind = type(error) if error is not None else None
                await self._toolsets.__aexit__(kind, error, error.__traceback__ if error else None)
        finally:
            models = self.record.models
            if models:
                self.record.models = None
                await all_or_none([model.close() for model in models.values()])

    async def _loop(self) -> RunResult:
        """Take turns until the run ends; leave the toolsets, in the task that entered them.

        A session run leaves them in `_loop_on_session` instead, once it has let go of the
        session: a slow MCP server's shutdown must not keep the next message's run waiting.
        """
        leave = self._link is None
        try:
            await self._take_over()
            while True:
                step = await take_turn(self.run, self.record, self.setup)
                if self._link is not None and isinstance(step, RunAgain | NextAgent):
                    await self._save(self._link)
                if isinstance(step, NextAgent):
                    await self._hand_off(step.handoff)
                elif not isinstance(step, RunAgain):
                    break
            result = await self._finish(step)
        except BaseException as error:
            if leave:
                await self._leave(error)
            raise
        if leave:
            await self._leave(None)
        return result

    async def _loop_on_session(self) -> RunResult:
        """The loop, holding the session: its history or paused run read first."""
        link = self._link
        assert link is not None
        try:
            async with link.claim():
                given = self._given
                if isinstance(given, str | list):
                    await link.start(self.record.state)
                else:
                    state = self.record.state if given is not None else None
                    self._adopt(await link.resume(state))
                result = await self._loop()
        except BaseException as error:
            await self._leave(error)
            raise
        await self._leave(None)
        return result

    def _adopt(self, resumed: RunState) -> None:
        """Go on with `resumed`, in place: a streamed result holds the state's lists."""
        state = self.record.state
        if resumed is state:
            return
        kept_input, kept_items, kept_usage = state.input, state.new_items, state.usage
        vars(state).update(vars(resumed))
        kept_input[:], kept_items[:] = resumed.input, resumed.new_items
        vars(kept_usage).update(vars(resumed.usage))
        state.input, state.new_items, state.usage = kept_input, kept_items, kept_usage
        self.setup = AgentSetup.of(_find_agent(self.setup.agent, state.agent_name))
        self._recheck_input()

    def _input_checks(self, input: str | list[Item]) -> InputChecks | None:
        """The starting agent's and the run's input guardrails, around the first model call.

        Those with `run_in_parallel=False` run first; the others run beside the call, and
        the turn goes on (to any tool) only once they have all passed. Each result is kept
        as it comes, the one that trips too.
        """
        run, record = self.run, self.record
        agent, events = self.setup.agent, run.events
        guardrails = [*agent.input_guardrails, *(run.config.input_guardrails or ())]
        if not guardrails:
            return None
        before, beside = split_input_guardrails(guardrails)

        def keep(result: InputGuardrailResult) -> None:
            record.input_guardrail_results = add_made(record.input_guardrail_results, result)
            events.guardrail_result("input", result)

        def check(
            guardrails: list[InputGuardrail[Any]],
        ) -> Awaitable[list[InputGuardrailResult]]:
            return run_input_guardrails(guardrails, run.context, agent, input, events.tracer, keep)

        async def checks(call: Callable[[], Awaitable[None]]) -> None:
            if before:
                await check(before)
            if not beside:
                await call()
                return
            try:
                await beside_input_guardrails(check(beside), call())
            except BaseException:
                # Until the guardrails pass, a response that came first is not the
                # conversation's (its usage stays counted): resuming checks the input again.
                del record.state.new_items[:]
                record.state.turn = None
                raise

        return checks

    async def _take_over(self) -> None:
        """The current agent starts: its toolsets are entered (once a run), its hooks told.

        An agent of a kind that runs prepare (`_prepare.py`: a sandbox agent) is replaced
        by what its preparer makes of it, once a run.
        """
        agent = self.setup.agent
        if PREPARERS and (preparer := preparer_of(agent)) is not None:
            agent = await self._prepared(agent, preparer)
            self.setup = AgentSetup.of(agent)
        for entry in agent_toolsets(agent):
            if self._entered is None:
                self._entered = set()
            if id(entry) not in self._entered:
                self._entered.add(id(entry))
                if self._toolsets is None:
                    self._toolsets = AsyncExitStack()
                await self._toolsets.enter_async_context(entry)
        await self.run.events.agent_start(self.run.context, agent, self.record.state.history)

    async def _prepared(self, agent: Agent[Any], preparer: AgentPreparer) -> Agent[Any]:
        """The run's stand-in for `agent`, made by `preparer` when it first takes over."""
        if self._stand_ins is None:
            self._stand_ins = {}
        kept = self._stand_ins.get(id(agent))
        if kept is not None:
            return kept[1]
        preparation = AgentPreparation(self.run.config, self.run.context, self._exit_stack)
        prepared = await preparer(agent, preparation)
        self._stand_ins[id(agent)] = (agent, prepared)  # the agent kept: its id stays its own
        return prepared

    def _exit_stack(self) -> AsyncExitStack:
        """What the run leaves when it ends (`_leave`): its toolsets, and what preparers entered."""
        if self._toolsets is None:
            self._toolsets = AsyncExitStack()
        return self._toolsets

    async def _hand_off(self, target: AgentHandoff) -> None:
        run, state = self.run, self.record.state
        await run.events.handoff(run.context, self.setup.agent, target.agent)
        self.setup = AgentSetup.of(target.agent)
        self.record.agents.append((len(state.new_items), target.agent))
        state.agent_name = target.agent.name
        state.tool_choice_released = False
        if target.input_filter is not None:
            items = RunItems(state.new_items, self.record.agents)
            turn = self.record.turn_start
            data = HandoffInputData(
                tuple(state.input), tuple(items[:turn]), tuple(items[turn:]), run.context
            )
            state.filtered_history = filtered_history(data, target.input_filter)
            state.filtered_at = len(state.new_items)
            if state.context is not None:  # its positions were in the history replaced
                state.context = ContextRecord(marks=state.context.marks)
        await self._take_over()

    async def _save(self, link: SessionLink) -> None:
        """Store what the run completed; then a session that compacts may compact."""
        run, record = self.run, self.record
        await link.save(record.state)
        if not link.compacts:
            return
        responses = record.raw_responses
        settings = agent_settings(self.setup.agent, run.config.model)
        store = settings.resolve(run.config.model_settings).store
        with watched_by(run.context, CompactionWatcher(run.events, self.setup.agent)):
            await link.compact(responses[-1].response_id if responses else None, store, run.context)

    async def _finish(self, step: NextStep) -> RunResult:
        run, record, state = self.run, self.record, self.record.state
        agent = self.setup.agent
        result = RunResult(
            input=state.input,
            new_items=RunItems(state.new_items, record.agents),
            raw_responses=record.raw_responses,
            final_output=None,
            last_agent=public_agent(agent),
            usage=state.usage,
            context_wrapper=run.context,
            _state=state,
        )
        if isinstance(step, FinalOutput):
            await self._check_output(step.output)
            if self._link is not None:
                await self._save(self._link)
            result.final_output = step.output
            if run.events.watched(agent):
                await run.events.agent_end(run.context, agent, step.output)
        elif isinstance(step, Interrupted):
            state.interruptions = step.approvals
            keep_context(state, run.context.context)
            if self._link is not None:
                await self._link.save(state, paused=True)
            nested = step.nested_agents
            result.interruptions = [
                ToolApprovalItem.of(a, nested.get(a.approval_id, agent)) for a in step.approvals
            ]
        elif isinstance(step, Pending):
            result.pending_tool_calls = step.calls
        # Once the output guardrails have run; a run without guardrails made no lists.
        result.input_guardrail_results = record.input_guardrail_results or []
        result.tool_input_guardrail_results = record.tool_input_guardrail_results or []
        result.tool_output_guardrail_results = record.tool_output_guardrail_results or []
        result.output_guardrail_results = record.output_guardrail_results or []
        return result

    async def _check_output(self, output: Any) -> None:
        """Run the answering agent's and the run's output guardrails on the final output."""
        run, record = self.run, self.record
        agent, events = self.setup.agent, run.events
        guardrails = [*agent.output_guardrails, *(run.config.output_guardrails or ())]
        if guardrails:

            def keep(result: OutputGuardrailResult) -> None:
                record.output_guardrail_results = add_made(record.output_guardrail_results, result)
                events.guardrail_result("output", result)

            await run_output_guardrails(guardrails, run.context, agent, output, events.tracer, keep)


async def run_agent_tool(call: AgentToolCall) -> str:
    """An agent tool's call: a nested run that shares the caller's context, settings and usage.

    Args:
        call: The call.

    Returns:
        The tool's output: the nested run's final output as text, or what the tool's
        output extractor makes of its result.

    Raises:
        UsageLimitExceeded: A limit the nested run reached (it stops the caller's run too).
        UserError: The nested run paused for approval outside a run's turn.
    """
    agent = as_agent(call.agent)
    assert agent is not None  # only Agent.as_tool makes agent tools
    options: RunOptions = {"context": call.context.context, "max_turns": call.max_turns}
    # The tool's own settings (`as_tool(run_config=...)`), else the caller's.
    given_config = call.run_config
    options["run_config"] = (
        call.context.run_config if given_config is None else as_run_config(given_config)
    )
    call_id = call.context.tool_call_id
    given: RunInput = resumed_nested(call.context) or call.input
    try:
        # The caller's Usage itself: the nested run counts toward the caller's totals
        # and limits as it goes, whether it answers or stops.
        if call.on_stream is not None:
            result = await _streamed_agent_tool(agent, given, call, options)
        else:
            result = await Run(agent, given, options, usage=call.context.usage).execute()
    except UsageLimitExceeded as error:
        # The caller's run stops, at its own place in its own conversation.
        raise UsageLimitExceeded(error.limit, error.value, error.used) from None
    if result.interruptions:  # the caller's turn pauses too, this call unanswered
        state = result.to_state()
        # The state's own approvals (plain data); the result's items name their agents.
        agents = [item.agent for item in result.interruptions]
        approvals = list(zip(nested_approvals(call_id, state), agents, strict=True))
        pause_nested(call.context, NestedPause(state, approvals), agent.name)
        return ""
    if call.output_extractor is None:
        return tool_output_text(result.final_output)
    output = call.output_extractor(result)
    return await output if inspect.isawaitable(output) else output


async def _streamed_agent_tool(
    agent: Agent[Any], given: RunInput, call: AgentToolCall, options: RunOptions
) -> RunResult:
    """An agent tool's nested run, streamed, each event handed to the tool's `on_stream`."""
    handler = call.on_stream
    assert handler is not None  # only called with one
    streamed = StreamedRun(EventBuffer())
    run = Run(agent, given, options, stream=streamed.buffer, usage=call.context.usage)
    streaming = run.streaming_result(streamed)
    task = streamed.task = asyncio.ensure_future(_run_streaming(run, streaming))
    task.add_done_callback(functools.partial(_streaming_ended, run, streamed, streaming))
    ctx = call.context
    tool_call = RawItem(
        type="function_call",
        call_id=ctx.tool_call_id,
        name=ctx.tool_name,
        arguments=ctx.tool_arguments,
    )
    current: Agent[Any] = agent
    async for event in streaming.stream_events():
        if isinstance(event, AgentUpdatedStreamEvent):
            current = event.new_agent
        try:
            handled = handler({"event": event, "agent": current, "tool_call": tool_call})
            if inspect.isawaitable(handled):
                await handled
        except Exception as error:  # the handler's own failure does not stop the run
            logging.getLogger("tooluse").error(
                "on_stream of agent tool %r raised %s", ctx.tool_name, type(error).__name__
            )
    return await task


runs_agent_tools_with(run_agent_tool)


async def _cancel_and_wait(task: asyncio.Task[Any]) -> None:
    """Cancel the run's task and wait until it has stopped, however often this is cancelled."""
    task.cancel()
    while not task.done():
        try:
            await asyncio.wait({task})
        except asyncio.CancelledError:  # noqa: PERF203 - looped only if cancelled again
            task.cancel()
    if not task.cancelled():
        task.exception()  # retrieved: the caller's cancellation is what goes on


def _as_given(items: list[Item]) -> str | list[Item]:
    """A run's input as it was given: a lone user message given as text is the text."""
    if len(items) == 1 and len(items[0]) == 2 and items[0].get("role") == "user":
        content = items[0]["content"]
        if isinstance(content, str):
            return content
    return items


def _input_items(input: object) -> list[Item]:
    if isinstance(input, str):
        return [user_message(input)]
    if isinstance(input, list):
        return list(input)  # pyright: ignore[reportUnknownArgumentType]
    hint = (
        ": resume with result.to_state(), or continue with result.to_input_list()"
        if isinstance(input, RunResult)
        else ""
    )
    raise UserError(
        f"Runner input must be a str, a list of items or a RunState, not "
        f"{type(input).__name__}{hint}"
    )


_OPTIONS = sorted(RunOptions.__optional_keys__)
_KNOWN = frozenset(_OPTIONS)


def _check_options(options: RunOptions) -> None:
    if options.keys() <= _KNOWN:
        _check_values(options)
        return
    unknown: list[str] = []
    for name in sorted(set(options) - _KNOWN):
        close = difflib.get_close_matches(name, _OPTIONS, n=1)
        unknown.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    raise UserError(
        f"Runner got unknown options: {', '.join(unknown)}; the options are {', '.join(_OPTIONS)}"
    )


def _check_values(options: RunOptions) -> None:
    problems: list[str] = []
    if "max_turns" in options and not is_whole_number(options["max_turns"], 1):
        problems.append(f"max_turns={options['max_turns']!r} must be a whole number >= 1")
    hooks = options.get("hooks")
    if hooks is not None and not callable(getattr(hooks, "on_agent_start", None)):
        problems.append(f"hooks must be a RunHooks, not {type(hooks).__name__}")
    session = options.get("session")
    if session is not None and (problem := check_session(session)) is not None:
        problems.append(problem)
    previous = options.get("previous_response_id")
    if previous is not None and (not isinstance(previous, str) or not previous):  # pyright: ignore[reportUnnecessaryIsInstance]
        problems.append(
            f"previous_response_id={previous!r} must be a response's id "
            "(result.last_response_id), or None"
        )
    if problems:
        raise UserError(f"Runner: {'; '.join(problems)}")


def _find_agent(start: Agent[object], name: str) -> Agent[object]:
    """The agent named `name`: the start, or one reachable from it through handoffs."""
    seen: set[int] = set()
    pending: list[Agent[object]] = [start]
    while pending:
        agent = pending.pop()
        if agent.name == name:
            return agent
        if id(agent) not in seen:
            seen.add(id(agent))
            pending.extend(h.agent for h in as_handoffs(agent.handoffs))
    raise UserError(
        f"The run state names agent {name!r}, which is neither {start.name!r} nor reachable "
        f"through its handoffs: resume with Runner.run(<the agent named {name!r}>, state) (an "
        "agent reached by a tool returning it is found only this way), or with the agent the "
        "run started with"
    )


def _check_server_thread(thread: ServerThread, config: RunConfig, session: object) -> None:
    """Refuse what would keep the conversation a second time beside the server's.

    Raises:
        UserError: If a session or a context policy is given with a run that continues a
            response: the server already holds the history the session would send again,
            and a policy would trim only the part sent, whose calls the server keeps.
    """
    doubled = [
        name
        for name, given in (("session=", session), ("RunConfig(context=...)", config.context))
        if given is not None
    ]
    if doubled:
        raise UserError(
            f"Runner: {' and '.join(doubled)} cannot go with a run that continues response "
            f"{thread.response_id!r} (previous_response_id): the server keeps that "
            "conversation already. Keep one: leave previous_response_id out (the run sends "
            f"the history itself), or leave out {' and '.join(doubled)}"
        )


def _continue_response(state: RunState, response_id: str) -> None:
    """Make the run continue `response_id`; a state resumed that continues one keeps its own.

    A paused run's state names the last response it had when it paused, which is later
    than the one its first run was given: resuming with that same id again is harmless.
    """
    if state.server_thread is None:
        state.server_thread = ServerThread(response_id)
