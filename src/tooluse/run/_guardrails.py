"""Running guardrails: the run's input and output guardrails, and each tool call's.

Input guardrails run on the starting agent's first turn, beside the first model call
or before it (`run_in_parallel=False`); output guardrails on the final output; a tool's
input and output guardrails around each of its calls, in order. Each records a span
when the run is traced, and each result goes to the run's results and stream as it
comes.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Generator, Sequence
from typing import Any, Protocol, TypeVar

from ..agents._agent import Agent
from ..core._agent_base import AgentBase
from ..core._context import RunContextWrapper, ToolContext
from ..core._items import Item
from ..exceptions import (
    InputGuardrailTripwireTriggered,
    OutputGuardrailTripwireTriggered,
    ToolInputGuardrailTripwireTriggered,
    ToolOutputGuardrailTripwireTriggered,
)
from ..guardrails._agent_guardrails import (
    InputGuardrail,
    InputGuardrailResult,
    OutputGuardrail,
    OutputGuardrailResult,
)
from ..guardrails._checks import GuardrailKind
from ..guardrails._tool_guardrails import (
    ToolGuardrailFunctionOutput,
    ToolInputGuardrailData,
    ToolInputGuardrailResult,
    ToolOutputGuardrailData,
    ToolOutputGuardrailResult,
)
from ..tools._function_tool import FunctionTool
from ..tracing._tracer import RunTracer

__all__ = [
    "beside_input_guardrails",
    "check_tool_input",
    "check_tool_output",
    "run_input_guardrails",
    "run_output_guardrails",
    "split_input_guardrails",
]

_R = TypeVar("_R")
_G = TypeVar("_G", bound="InputGuardrail[Any] | OutputGuardrail[Any]")
_Result = TypeVar("_Result", bound="InputGuardrailResult | OutputGuardrailResult")
_T = TypeVar("_T")


def split_input_guardrails(
    guardrails: Sequence[InputGuardrail[Any]],
) -> tuple[list[InputGuardrail[Any]], list[InputGuardrail[Any]]]:
    """Input guardrails split by when they run.

    Args:
        guardrails: The run's input guardrails.

    Returns:
        Those that run before the first model call (`run_in_parallel=False`), and those that
        run beside it, each in their order.
    """
    before = [g for g in guardrails if not g.run_in_parallel]
    beside = [g for g in guardrails if g.run_in_parallel]
    return before, beside


async def run_input_guardrails(
    guardrails: Sequence[InputGuardrail[Any]],
    context: RunContextWrapper[object],
    agent: Agent[object],
    input: str | list[Item],
    tracer: RunTracer | None = None,
    on_result: Callable[[InputGuardrailResult], None] | None = None,
) -> list[InputGuardrailResult]:
    """Run input guardrails at once; the first to trip stops the others and the run.

    Args:
        guardrails: The guardrails.
        context: The run context.
        agent: The starting agent.
        input: The run's input.
        tracer: Records a span per guardrail, when given.
        on_result: Called with each result as it comes (the one that trips too).

    Returns:
        The results, in the guardrails' order.

    Raises:
        InputGuardrailTripwireTriggered: A guardrail tripped (the rest were cancelled).
        UserError: A guardrail's function returned something other than a
            `GuardrailFunctionOutput`.
    """
    return await _run_guardrails(
        "input",
        guardrails,
        agent,
        lambda guardrail: guardrail.run(agent, input, context),
        InputGuardrailTripwireTriggered,
        tracer,
        on_result,
    )


async def run_output_guardrails(
    guardrails: Sequence[OutputGuardrail[Any]],
    context: RunContextWrapper[object],
    agent: Agent[object],
    output: Any,
    tracer: RunTracer | None = None,
    on_result: Callable[[OutputGuardrailResult], None] | None = None,
) -> list[OutputGuardrailResult]:
    """Run output guardrails at once; the first to trip stops the others and the run.

    Args:
        guardrails: The guardrails: the answering agent's, then the run's.
        context: The run context.
        agent: The agent that gave the final output.
        output: The final output.
        tracer: Records a span per guardrail, when given.
        on_result: Called with each result as it comes (the one that trips too).

    Returns:
        The results, in the guardrails' order.

    Raises:
        OutputGuardrailTripwireTriggered: A guardrail tripped (the rest were cancelled).
        UserError: A guardrail's function returned something other than a
            `GuardrailFunctionOutput`.
    """
    return await _run_guardrails(
        "output",
        guardrails,
        agent,
        lambda guardrail: guardrail.run(context, agent, output),
        OutputGuardrailTripwireTriggered,
        tracer,
        on_result,
    )


async def beside_input_guardrails(
    checks: Awaitable[list[InputGuardrailResult]], call: Awaitable[_T]
) -> tuple[list[InputGuardrailResult], _T]:
    """Run the input guardrails beside the first model call; return once both are done.

    A guardrail that trips (or raises) cancels the call, so its response is never used; a
    call that finishes first waits for the guardrails, so no tool runs before they pass.
    A call that fails still waits for them: a trip is the reason the run stops.

    Args:
        checks: `run_input_guardrails(...)` for the guardrails that run beside the call.
        call: The model call.

    Returns:
        The guardrails' results and the call's.

    Raises:
        InputGuardrailTripwireTriggered: A guardrail tripped.
    """
    checking = asyncio.ensure_future(checks)
    calling = asyncio.ensure_future(call)
    try:
        await asyncio.wait((checking, calling), return_when=asyncio.FIRST_EXCEPTION)
        if checking.done() and checking.exception() is not None:
            await _cancelled(calling)
        results = await checking
        return results, await calling
    except BaseException:
        await _cancelled(checking, calling)
        raise


async def check_tool_input(
    tool: FunctionTool,
    context: ToolContext[object],
    agent: Agent[object],
    results: list[ToolInputGuardrailResult],
    tracer: RunTracer | None = None,
    on_result: Callable[[ToolInputGuardrailResult], None] | None = None,
) -> str | None:
    """Run a tool's input guardrails, in order, before the call.

    Args:
        tool: The tool about to be called.
        context: The call's context.
        agent: The agent whose tool it is.
        results: Each guardrail's result is appended here.
        tracer: Records a span per guardrail, when given.
        on_result: Called with each result.

    Returns:
        None to run the tool, or the message the model gets instead (the first rejection).

    Raises:
        ToolInputGuardrailTripwireTriggered: A guardrail said `raise_exception`.
    """
    return await _first_objection(
        "tool_input",
        tool.tool_input_guardrails or (),
        ToolInputGuardrailData(context, agent),
        ToolInputGuardrailResult,
        ToolInputGuardrailTripwireTriggered,
        results,
        tracer,
        on_result,
    )


async def check_tool_output(
    tool: FunctionTool,
    context: ToolContext[object],
    agent: Agent[object],
    output: Any,
    results: list[ToolOutputGuardrailResult],
    tracer: RunTracer | None = None,
    on_result: Callable[[ToolOutputGuardrailResult], None] | None = None,
) -> str | None:
    """Run a tool's output guardrails, in order, on what the call returned.

    Args:
        tool: The tool that was called.
        context: The call's context.
        agent: The agent whose tool it is.
        output: What the tool returned, as a Python value (for a failed call, the text for
            the model).
        results: Each guardrail's result is appended here.
        tracer: Records a span per guardrail, when given.
        on_result: Called with each result.

    Returns:
        None to keep the output, or the message the model gets instead (the first
        rejection).

    Raises:
        ToolOutputGuardrailTripwireTriggered: A guardrail said `raise_exception`.
    """
    return await _first_objection(
        "tool_output",
        tool.tool_output_guardrails or (),
        ToolOutputGuardrailData(context, agent, output),
        ToolOutputGuardrailResult,
        ToolOutputGuardrailTripwireTriggered,
        results,
        tracer,
        on_result,
    )


@contextlib.contextmanager
def guardrail_span(
    tracer: RunTracer | None, kind: GuardrailKind, name: str, agent: AgentBase
) -> Generator[Callable[[bool], None]]:
    """A guardrail's span, when there is a tracer; yields what records whether it tripped.

    Args:
        tracer: The run's tracer, or None.
        kind: Which guardrail.
        name: Its name.
        agent: The agent it ran for.

    Yields:
        `set_triggered(tripped)`, a no-op without a tracer.
    """
    if tracer is None:
        yield _ignore
        return
    with tracer.guardrail(kind, name, agent) as span:
        yield span.set_triggered


async def _run_guardrails(
    kind: GuardrailKind,
    guardrails: Sequence[_G],
    agent: Agent[object],
    call: Callable[[_G], Awaitable[_Result]],
    error: Callable[[_Result], Exception],
    tracer: RunTracer | None,
    on_result: Callable[[_Result], None] | None,
) -> list[_Result]:
    # Input or output guardrails, all at once: `call` runs one, and a result that trips
    # raises `error(result)`, which stops the others.
    async def check(guardrail: _G) -> _Result:
        with guardrail_span(tracer, kind, guardrail.get_name(), agent) as span:
            result = await call(guardrail)
            span(result.output.tripwire_triggered)
        return result

    def record(result: _Result) -> None:
        if on_result is not None:
            on_result(result)
        if result.output.tripwire_triggered:
            raise error(result)

    return await _all_or_first_trip([check(g) for g in guardrails], record)


async def _all_or_first_trip(checks: list[Awaitable[_R]], record: Callable[[_R], None]) -> list[_R]:
    # `record` raises the tripwire error; anything raised cancels the checks still running.
    if len(checks) <= 1:  # the common case: no tasks to make
        results = [await check for check in checks]
        for result in results:
            record(result)
        return results
    tasks = [asyncio.ensure_future(check) for check in checks]
    try:
        for done in asyncio.as_completed(tasks):
            record(await done)
    except BaseException:
        await _cancelled(*tasks)
        raise
    return [task.result() for task in tasks]


async def _cancelled(*tasks: asyncio.Future[Any]) -> None:
    # Cancel and wait, so nothing runs on after its caller has gone.
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def _ignore(triggered: bool) -> None:
    del triggered


class _ToolGuardrail(Protocol):
    # What `_first_objection` needs of a tool input or output guardrail.
    def get_name(self) -> str: ...
    def run(self, data: Any, /) -> Awaitable[ToolGuardrailFunctionOutput]: ...


_TG = TypeVar("_TG", bound=_ToolGuardrail)
_TResult = TypeVar("_TResult")


async def _first_objection(
    kind: GuardrailKind,
    guardrails: Sequence[_TG],
    data: ToolInputGuardrailData,
    make_result: Callable[[_TG, ToolGuardrailFunctionOutput], _TResult],
    error: type[ToolInputGuardrailTripwireTriggered | ToolOutputGuardrailTripwireTriggered],
    results: list[_TResult],
    tracer: RunTracer | None,
    on_result: Callable[[_TResult], None] | None,
) -> str | None:
    # A tool's input or output guardrails, in order, each run on `data`: the first that
    # does not allow decides (a rejection's message, or `error` raised).
    for guardrail in guardrails:
        with guardrail_span(tracer, kind, guardrail.get_name(), data.agent) as span:
            verdict = await guardrail.run(data)
            span(verdict.behavior["type"] != "allow")
        result = make_result(guardrail, verdict)
        results.append(result)
        if on_result is not None:
            on_result(result)
        if verdict.behavior["type"] == "raise_exception":
            context = data.context
            raise error(
                guardrail, verdict, tool_name=context.tool_name, tool_call_id=context.tool_call_id
            )
        if verdict.behavior["type"] == "reject_content":
            return verdict.behavior["message"]
    return None
