"""Running a turn's planned calls: concurrently, each within its timeout, all or none.

Every planned call ends as a `ToolOutcome`: the text the model receives (or,
for images and files, input parts with their text form) and whether the call
failed. A group's one output is that, or, for a parallel wrapper, a JSON array
of each inner call's tool and output text. When a
call raises instead (a tool with `failure_error_function=None`, a hook), the
turn's other calls are cancelled before the error goes on.

When the calls stop early (one raised, the run timed out or was cancelled), a sync
call still queued for a thread never starts (the batch's `stop` event), and one
already running in its thread, which cannot be stopped, is told so
(`ctx.cancelled`) and answered as given up (`given_up`): resuming the run does not
start it a second time.
"""

from __future__ import annotations

import asyncio
import functools
import json
import threading
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ..agents._agent import Agent
from ..core._context import RunContextWrapper, ToolContext, made_by_run
from ..core._items import InputPart, Item
from ..core._state import REJECTION
from ..tools._calls import RemoteInvoker, invoke_with_timeout, invoke_within
from ..tools._function_tool import FunctionTool
from ..tools._invocation import NO_SETTINGS, Invoker, InvokeSettings, ToolOutcome
from ..tools._local import LocalTool, answer_id, answer_local_item
from ._config import RunConfig
from ._events import RunEvents
from ._guardrails import check_tool_input, check_tool_output
from ._lean import shared
from ._nested import is_paused, is_resumed
from ._record import RunRecord
from ._tool_calls import CallGroup, PlannedCall
from ._tool_error_formatter import (
    ToolErrorFormatter,
    ToolErrorFormatterArgs,
    ToolErrorKind,
    formatted_tool_error,
    formatting_failure_function,
)

__all__ = ["GroupOutcome", "ToolExecutor", "all_or_none", "given_up"]

T = TypeVar("T")


@dataclass(frozen=True)
class GroupOutcome:
    """How one call id is answered."""

    group: CallGroup
    """The calls behind the id."""
    outcomes: tuple[ToolOutcome, ...]
    """Each call's outcome, in the group's order."""

    @property
    def output(self) -> str:
        """The one output for the id."""
        group = self.group
        if group.error is not None:
            return group.error
        if not group.wrapper:
            return self.outcomes[0].output
        answers = [
            {"tool": call.name, "output": outcome.output}
            for call, outcome in zip(group.calls, self.outcomes, strict=True)
        ]
        return json.dumps(answers, ensure_ascii=False)

    @property
    def parts(self) -> list[InputPart] | None:
        """The input parts that answer the id in place of `output`, for a rich output."""
        group = self.group
        if group.error is not None or group.wrapper:
            return None  # a parallel wrapper's answer is one JSON text: its outputs as text
        return self.outcomes[0].parts

    @property
    def failed(self) -> bool:
        """Whether nothing in the group worked."""
        return all(outcome.failed for outcome in self.outcomes)


class ToolExecutor:
    """Runs planned calls with the run's context, settings and watchers.

    Every call takes one path (`call`): a slot (`max_concurrent_tool_calls`), a span,
    the input guardrails, the start hooks, the tool within its timeout, the output
    guardrails, the end hooks. Each of these is there only when the run or the tool
    asks for it (`_wrapping`); a call that none of them wraps is the tool's own
    invocation, awaited as it is, with no coroutine of this class kept alive while it
    runs (`tooluse.run._lean`: a coroutine returned, not awaited).
    """

    def __init__(
        self,
        context: RunContextWrapper[object],
        config: RunConfig,
        events: RunEvents,
        record: RunRecord,
    ) -> None:
        """Run calls for one run.

        Args:
            context: The run's context.
            config: The run's settings (timeout, failure text, logging, concurrency cap).
            events: The run's hooks, stream and tracer.
            record: Where the tools' guardrail results go.
        """
        self.context = context
        self.config = config
        self.events = events
        self.record = record
        on_failure = config.failure_error_function
        if config.tool_error_formatter is not None:
            on_failure = formatting_failure_function(config.tool_error_formatter, on_failure)
        settings = InvokeSettings(config.tool_timeout, on_failure, config.log_tool_errors)
        self.settings = shared(settings, NO_SETTINGS)
        cap = config.max_concurrent_tool_calls
        self._slots = asyncio.Semaphore(cap) if cap is not None else None
        """Taken by each function tool call while it runs, when the run caps them."""

    async def run(
        self,
        agent: Agent[object],
        groups: Sequence[CallGroup],
        finished: list[GroupOutcome],
    ) -> list[GroupOutcome]:
        """Run every call of every group at once; answer each group.

        A turn's one call is awaited through `call` directly instead, with no list or
        coroutine of this method's kept while it runs.

        Args:
            agent: The agent whose tools these are.
            groups: The planned calls.
            finished: Filled, when the calls stop early (one raises, or the run is
                cancelled or times out), with each group whose calls had all finished:
                resuming does not run those again.

        Returns:
            One outcome per group, in the same order.
        """
        stop = threading.Event()  # set before the calls are cancelled: see all_or_none
        settings = self.settings._replace(stop=stop)
        # Plain loops (`_lean`: no closure in a waiting frame).
        calls: list[Awaitable[ToolOutcome]] = []
        contexts: list[ToolContext[object] | None] = []
        for group in groups:
            for planned in group.calls:
                ctx = self.context_for(agent, group.call_id, planned)
                contexts.append(ctx)
                calls.append(self.call(agent, group.call_id, planned, ctx, settings))
        done: dict[int, ToolOutcome] = {}
        try:
            results = await all_or_none(calls, done, stop)
        except BaseException:
            for i, ctx in enumerate(contexts):
                if i not in done and ctx is not None and ctx.cancelled.is_set():
                    done[i] = given_up(ctx.tool_name)
            finished.extend(_finished_groups(groups, done))
            raise
        outcomes: list[GroupOutcome] = []
        first = 0
        for group in groups:
            last = first + len(group.calls)
            outcomes.append(GroupOutcome(group, tuple(results[first:last])))
            first = last
        return outcomes

    def context_for(
        self, agent: Agent[object], call_id: str, planned: PlannedCall
    ) -> ToolContext[object] | None:
        """The context a call runs with; None for a call that runs no tool.

        Args:
            agent: The agent whose tool it is.
            call_id: The id the model gave the call.
            planned: The call.

        Returns:
            A new context, or None for an unknown tool or a rejected call.
        """
        tool = planned.tool
        return None if tool is None else self._context(agent, call_id, planned, tool)

    def call(
        self,
        agent: Agent[object],
        call_id: str,
        planned: PlannedCall,
        ctx: ToolContext[object] | None = None,
        settings: InvokeSettings | None = None,
    ) -> Awaitable[ToolOutcome]:
        """One call, to await: through whatever wraps it, or as the tool's own invocation.

        The call was counted in the run's usage before the turn's calls started
        (`reserve_tool_calls`); one its input guardrails refuse is taken back off.

        Args:
            agent: The agent whose tool it is.
            call_id: The id the model gave the call.
            planned: The call.
            ctx: Its context, from `context_for`, when the caller keeps it; else made here.
            settings: The settings for this call; None for the run's.

        Returns:
            Its outcome, once awaited.
        """
        tool = planned.tool
        if tool is None:
            formatter = self.config.tool_error_formatter
            if formatter is not None and _formattable(planned):
                return self._formatted(formatter, call_id, planned)
            return _answered(ToolOutcome(planned.error or "", failed=not planned.rejected))
        if ctx is None:
            ctx = self._context(agent, call_id, planned, tool)
        if settings is None:
            settings = self.settings
        if self._wrapping(agent, tool):
            return self._wrapped(agent, tool, ctx, planned.arguments, settings)
        if self.events.tracer is not None:  # its span is all that runs around it
            return self._traced(agent, tool, ctx, planned.arguments, settings, guarded=False)
        return invoke_within(tool, ctx, planned.arguments, settings)

    async def _formatted(
        self, formatter: ToolErrorFormatter, call_id: str, planned: PlannedCall
    ) -> ToolOutcome:
        """A rejected or unknown call's answer, as the run's `tool_error_formatter` words it."""
        kind: ToolErrorKind = "approval_rejected" if planned.rejected else "tool_not_found"
        default = planned.error or ""
        args = ToolErrorFormatterArgs[Any](
            kind, "function", planned.name, call_id, default, self.context
        )
        text = await formatted_tool_error(formatter, args)
        return ToolOutcome(text, failed=not planned.rejected)

    def _wrapping(self, agent: Agent[object], tool: FunctionTool) -> bool:
        """Whether anything but a span runs around the tool's call: each step of `_guarded`.

        A hand-built `on_invoke_tool` is wrapped too: a timeout it runs past is turned
        into the tool's timeout outcome there.
        """
        return (
            self._slots is not None
            or bool(tool.tool_input_guardrails)
            or self.events.watched(agent)
            or self.settings.timeout is not None
            or tool.timeout_seconds is not None
            or not isinstance(tool.on_invoke_tool, Invoker | RemoteInvoker)
            or bool(tool.tool_output_guardrails)
        )

    async def _wrapped(
        self,
        agent: Agent[object],
        tool: FunctionTool,
        ctx: ToolContext[object],
        arguments: str,
        settings: InvokeSettings,
    ) -> ToolOutcome:
        """The call, once one of the run's `max_concurrent_tool_calls` slots is free."""
        if self._slots is None:
            return await self._traced(agent, tool, ctx, arguments, settings, guarded=True)
        async with self._slots:
            return await self._traced(agent, tool, ctx, arguments, settings, guarded=True)

    async def _traced(
        self,
        agent: Agent[object],
        tool: FunctionTool,
        ctx: ToolContext[object],
        arguments: str,
        settings: InvokeSettings,
        *,
        guarded: bool,
    ) -> ToolOutcome:
        """The call, in its span when the run is traced (a nested run's spans nest in it).

        `guarded`: through `_guarded` (else nothing but the span wraps the call).
        """
        tracer = self.events.tracer
        if tracer is None:
            return await self._guarded(agent, tool, ctx, arguments, settings)
        with tracer.tool_call(ctx, agent, tool) as span:
            if guarded:
                outcome = await self._guarded(agent, tool, ctx, arguments, settings)
            else:
                outcome = await invoke_within(tool, ctx, arguments, settings)
            # a paused call's result is the span's of the call that resumes it
            if not is_paused(self.record, ctx.tool_call_id):
                span.set_result(outcome.output, outcome.failed)
            return outcome

    async def _guarded(
        self,
        agent: Agent[object],
        tool: FunctionTool,
        ctx: ToolContext[object],
        arguments: str,
        settings: InvokeSettings,
    ) -> ToolOutcome:
        """The call, with its guardrails and the hooks around it.

        An agent tool's call whose nested run pauses has its start only (hooks, input
        guardrails) then; it ends (output guardrails, end hooks) in the run that resumes it.
        """
        events, record = self.events, self.record
        resumed = is_resumed(record, ctx.tool_call_id)
        if tool.tool_input_guardrails and not resumed:
            if record.tool_input_guardrail_results is None:
                record.tool_input_guardrail_results = []
            rejection = await check_tool_input(
                tool, ctx, agent, record.tool_input_guardrail_results, events.tracer,
                functools.partial(events.guardrail_result, "tool_input"),
            )  # fmt: skip
            if rejection is not None:
                self.context.usage.tool_calls -= 1  # reserved for it, but it did not run
                return ToolOutcome(rejection)
        watched = events.watched(agent)
        if watched and not resumed:
            await events.tool_start(ctx, agent, tool)
        outcome = await invoke_with_timeout(tool, ctx, arguments, settings)
        if is_paused(record, ctx.tool_call_id):
            return outcome
        if tool.tool_output_guardrails:
            if record.tool_output_guardrail_results is None:
                record.tool_output_guardrail_results = []
            replaced = await check_tool_output(
                tool, ctx, agent, outcome.returned(), record.tool_output_guardrail_results,
                events.tracer, functools.partial(events.guardrail_result, "tool_output"),
            )  # fmt: skip
            if replaced is not None:
                outcome = ToolOutcome(
                    replaced, outcome.failed, outcome.handoff, outcome.context_variables
                )
        if watched:
            await events.tool_end(ctx, agent, tool, outcome.output)
        return outcome

    def _context(
        self, agent: Agent[object], call_id: str, planned: PlannedCall, tool: FunctionTool
    ) -> ToolContext[object]:
        ctx = ToolContext(
            context=self.context.context,
            usage=self.context.usage,
            tool_name=tool.name,
            tool_call_id=call_id,
            tool_arguments=planned.arguments,
            agent=agent,
            run_config=self.config,
        )
        return made_by_run(ctx, self.record)

    async def answer_local(self, agent: Agent[object], item: Item, tool: LocalTool) -> Item:
        """Answer a computer action, shell command or MCP approval request, with hooks around.

        Args:
            agent: The agent whose tool it is.
            item: The model's item.
            tool: The tool that answers it.

        Returns:
            The answering item.
        """
        tracer = self.events.tracer
        if tracer is None:
            return await self._answer_local(agent, item, tool)
        with tracer.tool_call(self.context, agent, tool, answer_id(item)) as span:
            answer = await self._answer_local(agent, item, tool)
            span.set_result(json.dumps(answer), failed=False)
            return answer

    async def _answer_local(self, agent: Agent[object], item: Item, tool: LocalTool) -> Item:
        watched = self.events.watched(agent)
        if watched:
            await self.events.tool_start(self.context, agent, tool)
        answer = await answer_local_item(item, tool, self.context)
        if watched:
            await self.events.tool_end(self.context, agent, tool, json.dumps(answer))
        return answer


def given_up(tool_name: str) -> ToolOutcome:
    """The answer of a sync call the run stopped while it ran in its thread.

    The thread cannot be stopped: the call may still finish and take effect after the
    run stopped. Recorded as the call's answer, so that resuming does not run it again.

    Args:
        tool_name: The tool's name.

    Returns:
        The outcome the model receives.
    """
    return ToolOutcome(
        f"The call to '{tool_name}' was still running when the run stopped, and was not "
        "waited for: whether it finished is unknown. Check its effect before calling "
        f"'{tool_name}' again."
    )


def _formattable(planned: PlannedCall) -> bool:
    """Whether the run's `tool_error_formatter` words this call's answer.

    It does for an unknown tool, and for a rejection the human gave no message of.
    """
    return planned.unknown or (planned.rejected and planned.error == REJECTION)


async def _answered(outcome: ToolOutcome) -> ToolOutcome:
    """An outcome known without a call (an unknown tool, a rejected call), as a call."""
    return outcome


def _finished_groups(
    groups: Sequence[CallGroup], done: dict[int, ToolOutcome]
) -> list[GroupOutcome]:
    """The groups whose calls all finished, from the outcomes by call index."""
    finished: list[GroupOutcome] = []
    first = 0
    for group in groups:
        indexes = range(first, first + len(group.calls))
        first += len(group.calls)
        if all(i in done for i in indexes):
            finished.append(GroupOutcome(group, tuple(done[i] for i in indexes)))
    return finished


async def all_or_none(
    calls: Sequence[Awaitable[T]],
    finished: dict[int, T] | None = None,
    stop: threading.Event | None = None,
) -> list[T]:
    """Run coroutines concurrently; if one raises, cancel the others, then raise its error.

    Args:
        calls: The coroutines.
        finished: Filled, when they do not all succeed (one raises, or this task is
            cancelled), with the results of those that did, by index.
        stop: Set before the others are cancelled, so that none of their sync calls
            still queued for a thread starts meanwhile (`run_in_thread`).

    Returns:
        Their results, in order.
    """
    if len(calls) <= 1:  # no async comprehension: it would be a coroutine of its own
        return [await calls[0]] if calls else []
    tasks = [asyncio.ensure_future(call) for call in calls]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    except BaseException:  # this task was cancelled: nothing is left running
        if stop is not None:
            stop.set()
        await _cancelled(tasks)
        _keep(tasks, finished)
        raise
    if stop is not None and not all(task.done() for task in tasks):
        stop.set()
    await _cancelled(tasks)  # those still running after one raised
    # No walrus in the comprehension (`_lean`: no closure in a waiting frame).
    raised = (task.exception() for task in tasks if not task.cancelled())
    errors = [error for error in raised if error is not None]
    if errors:
        _keep(tasks, finished)
        raise errors[0]  # the others were retrieved above: no "never retrieved" warnings
    return [task.result() for task in tasks]


async def _cancelled(tasks: Sequence[asyncio.Future[T]]) -> None:
    running = [task for task in tasks if not task.done()]
    for task in running:
        task.cancel()
    if running:
        await asyncio.wait(running)


def _keep(tasks: Sequence[asyncio.Future[T]], finished: dict[int, T] | None) -> None:
    if finished is not None:
        finished.update(
            (i, t.result())
            for i, t in enumerate(tasks)
            if not t.cancelled() and t.exception() is None
        )
