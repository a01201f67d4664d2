"""Guardrails: checks of a run's input and of its final output, and how the loop runs them.

An input guardrail looks at what the run starts with, on the starting agent's first turn
(not again after a handoff, nor on resuming). One with `run_in_parallel=False` runs before
the first model call; the others run beside it, and no tool runs until they all pass. An
output guardrail looks at the final output. A guardrail that trips stops the run with
`InputGuardrailTripwireTriggered` or `OutputGuardrailTripwireTriggered`, which keep the
conversation. Tool guardrails, on a tool's calls, are in `_tool_guardrails.py`; what both
share when they run (calling the function, a span per guardrail) is here, and what they
share as they are defined (checking the function, a list, a verdict) in
`_guardrail_checks.py`.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import Awaitable, Callable, Coroutine, Generator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, TypeAlias, TypeVar, overload

from ._callables import default_name
from ._context import RunContextWrapper, TContext
from ._guardrail_checks import (
    called_bare,
    check_guardrail_function,
    default_guardrail_name,
    guardrail_verdict,
)
from ._items import Item
from .exceptions import InputGuardrailTripwireTriggered, OutputGuardrailTripwireTriggered, UserError

if TYPE_CHECKING:
    from ._agent import Agent
    from ._tracing import RunTracer

__all__ = [
    "GuardrailFunctionOutput",
    "GuardrailKind",
    "InputGuardrail",
    "InputGuardrailResult",
    "OutputGuardrail",
    "OutputGuardrailResult",
    "beside_input_guardrails",
    "call_guardrail_function",
    "guardrail_span",
    "input_guardrail",
    "output_guardrail",
    "run_input_guardrails",
    "run_output_guardrails",
    "split_input_guardrails",
]

GuardrailKind: TypeAlias = Literal["input", "output", "tool_input", "tool_output"]
"""Which guardrail: of the run's input, its final output, or a tool call's input or output."""

InputGuardrailFunction: TypeAlias = Callable[
    [RunContextWrapper[TContext], "Agent[Any]", "str | list[Item]"],
    "GuardrailFunctionOutput | Awaitable[GuardrailFunctionOutput]",
]
"""An input guardrail's function: `(context, agent, input)`, sync or async."""
OutputGuardrailFunction: TypeAlias = Callable[
    [RunContextWrapper[TContext], "Agent[Any]", Any],
    "GuardrailFunctionOutput | Awaitable[GuardrailFunctionOutput]",
]
"""An output guardrail's function: `(context, agent, output)`, sync or async."""

_R = TypeVar("_R")
_G = TypeVar("_G", bound="InputGuardrail[Any] | OutputGuardrail[Any]")
_Result = TypeVar("_Result", bound="InputGuardrailResult | OutputGuardrailResult")
_T = TypeVar("_T")


@dataclass
class GuardrailFunctionOutput:
    """What an input or output guardrail function returns: its verdict.

    Example:
        `GuardrailFunctionOutput(output_info={"topic": "math"}, tripwire_triggered=True)`
    """

    output_info: Any
    """Anything the guardrail wants to keep about its check (the error and the results
    carry it)."""
    tripwire_triggered: bool
    """Whether the check failed: True stops the run with a tripwire error."""

    def __post_init__(self) -> None:
        # A string such as "false" is truthy: taking it as a verdict would trip silently.
        if not isinstance(self.tripwire_triggered, bool):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(
                f"GuardrailFunctionOutput: tripwire_triggered must be True or False, not "
                f"{self.tripwire_triggered!r} (a {type(self.tripwire_triggered).__name__}); "
                "write tripwire_triggered=bool(...)"
            )


@dataclass
class InputGuardrailResult:
    """An input guardrail that ran, and its verdict."""

    guardrail: InputGuardrail[Any]
    """The guardrail."""
    output: GuardrailFunctionOutput
    """What its function returned."""


@dataclass
class OutputGuardrailResult:
    """An output guardrail that ran on an agent's final output, and its verdict."""

    guardrail: OutputGuardrail[Any]
    """The guardrail."""
    agent_output: Any
    """The final output it checked."""
    agent: Agent[Any]
    """The agent that gave that output."""
    output: GuardrailFunctionOutput
    """What its function returned."""


@dataclass
class InputGuardrail(Generic[TContext]):
    """A check of the run's input, made with `@input_guardrail` or by hand.

    Its function is called as `function(context, agent, input)`, sync or async, and
    returns a `GuardrailFunctionOutput`. It runs on the starting agent's first turn:
    beside the first model call (`run_in_parallel=True`, the default), or before it.
    Either way no tool runs until it passed; if it trips, the run stops with
    `InputGuardrailTripwireTriggered`.
    """

    guardrail_function: InputGuardrailFunction[TContext]
    """`(context, agent, input) -> GuardrailFunctionOutput`, sync or async. A sync function
    runs on the event loop: keep it quick, or make it async."""
    name: str | None = None
    """Its name in results, errors and traces; default the function's name."""
    run_in_parallel: bool = True
    """Run beside the first model call (True), or before it (False: the call waits, and
    is never made if the guardrail trips)."""

    _kind: ClassVar[GuardrailKind] = "input"

    def __post_init__(self) -> None:
        check_guardrail_function(self, ("context", "agent", "input"))
        if not isinstance(self.run_in_parallel, bool):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(
                f"Input guardrail '{self.get_name()}': run_in_parallel must be True or False, "
                f"not {self.run_in_parallel!r}"
            )

    def get_name(self) -> str:
        """The guardrail's name.

        Returns:
            `name`, or the function's name.
        """
        return self.name or default_name(self.guardrail_function)

    async def run(
        self, agent: Agent[Any], input: str | list[Item], context: RunContextWrapper[TContext]
    ) -> InputGuardrailResult:
        """Run the check (the runner does; call it yourself to test a guardrail).

        Args:
            agent: The starting agent.
            input: The run's input, as given to `Runner.run`.
            context: The run context.

        Returns:
            The result, tripped or not.

        Raises:
            UserError: The function returned something other than a
                `GuardrailFunctionOutput`.
        """
        made = await call_guardrail_function(self, (context, agent, input))
        return InputGuardrailResult(self, guardrail_verdict(self, made, GuardrailFunctionOutput))


@dataclass
class OutputGuardrail(Generic[TContext]):
    """A check of the run's final output, made with `@output_guardrail` or by hand.

    Its function is called as `function(context, agent, output)`, sync or async, and
    returns a `GuardrailFunctionOutput`. It runs once the final output is there, for the
    agent that gave it; if it trips, the run stops with `OutputGuardrailTripwireTriggered`.
    """

    guardrail_function: OutputGuardrailFunction[TContext]
    """`(context, agent, output) -> GuardrailFunctionOutput`, sync or async. A sync function
    runs on the event loop: keep it quick, or make it async."""
    name: str | None = None
    """Its name in results, errors and traces; default the function's name."""

    _kind: ClassVar[GuardrailKind] = "output"

    def __post_init__(self) -> None:
        check_guardrail_function(self, ("context", "agent", "output"))

    def get_name(self) -> str:
        """The guardrail's name.

        Returns:
            `name`, or the function's name.
        """
        return self.name or default_name(self.guardrail_function)

    async def run(
        self, context: RunContextWrapper[TContext], agent: Agent[Any], agent_output: Any
    ) -> OutputGuardrailResult:
        """Run the check (the runner does; call it yourself to test a guardrail).

        Args:
            context: The run context.
            agent: The agent that gave the final output.
            agent_output: The final output (text, or a value of the agent's `output_type`).

        Returns:
            The result, tripped or not.

        Raises:
            UserError: The function returned something other than a
                `GuardrailFunctionOutput`.
        """
        made = await call_guardrail_function(self, (context, agent, agent_output))
        verdict = guardrail_verdict(self, made, GuardrailFunctionOutput)
        return OutputGuardrailResult(self, agent_output, agent, verdict)


@overload
def input_guardrail(func: InputGuardrailFunction[TContext], /) -> InputGuardrail[TContext]: ...


@overload
def input_guardrail(
    *, name: str | None = None, run_in_parallel: bool = True
) -> Callable[[InputGuardrailFunction[TContext]], InputGuardrail[TContext]]: ...


def input_guardrail(
    func: InputGuardrailFunction[TContext] | None = None,
    /,
    *,
    name: str | None = None,
    run_in_parallel: bool = True,
) -> (
    InputGuardrail[TContext]
    | Callable[[InputGuardrailFunction[TContext]], InputGuardrail[TContext]]
):
    """Turn a function into an `InputGuardrail`; use it bare (`@input_guardrail`) or called.

    Args:
        func: `(context, agent, input) -> GuardrailFunctionOutput`, sync or async, when
            used bare.
        name: The guardrail's name; default the function's.
        run_in_parallel: Run beside the first model call (True), or before it (False).

    Returns:
        The guardrail, or a decorator that makes one.

    Raises:
        UserError: The function cannot be called with `(context, agent, input)`.
    """

    def decorate(f: InputGuardrailFunction[TContext]) -> InputGuardrail[TContext]:
        return InputGuardrail(f, name or default_guardrail_name(f), run_in_parallel)

    return decorate if func is None else decorate(called_bare("input_guardrail", func))


@overload
def output_guardrail(func: OutputGuardrailFunction[TContext], /) -> OutputGuardrail[TContext]: ...


@overload
def output_guardrail(
    *, name: str | None = None
) -> Callable[[OutputGuardrailFunction[TContext]], OutputGuardrail[TContext]]: ...


def output_guardrail(
    func: OutputGuardrailFunction[TContext] | None = None,
    /,
    *,
    name: str | None = None,
) -> (
    OutputGuardrail[TContext]
    | Callable[[OutputGuardrailFunction[TContext]], OutputGuardrail[TContext]]
):
    """Turn a function into an `OutputGuardrail`; use it bare (`@output_guardrail`) or called.

    Args:
        func: `(context, agent, output) -> GuardrailFunctionOutput`, sync or async, when
            used bare.
        name: The guardrail's name; default the function's.

    Returns:
        The guardrail, or a decorator that makes one.

    Raises:
        UserError: The function cannot be called with `(context, agent, output)`.
    """

    def decorate(f: OutputGuardrailFunction[TContext]) -> OutputGuardrail[TContext]:
        return OutputGuardrail(f, name or default_guardrail_name(f))

    return decorate if func is None else decorate(called_bare("output_guardrail", func))


# --- what the runner calls -------------------------------------------------------------


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
    context: RunContextWrapper[Any],
    agent: Agent[Any],
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
    context: RunContextWrapper[Any],
    agent: Agent[Any],
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
    checks: Coroutine[Any, Any, list[InputGuardrailResult]], call: Coroutine[Any, Any, _T]
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


# --- shared with the tool guardrails ---------------------------------------------------


@contextlib.contextmanager
def guardrail_span(
    tracer: RunTracer | None, kind: GuardrailKind, name: str, agent: Any
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


async def call_guardrail_function(guardrail: Any, args: tuple[Any, ...]) -> Any:
    """Call a guardrail's function, awaiting it if it is async.

    Args:
        guardrail: The guardrail.
        args: What the run passes.

    Returns:
        What the function returned.
    """
    made = guardrail.guardrail_function(*args)
    return await made if inspect.isawaitable(made) else made


# --- helpers ---------------------------------------------------------------------------


async def _run_guardrails(
    kind: GuardrailKind,
    guardrails: Sequence[_G],
    agent: Agent[Any],
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


async def _all_or_first_trip(
    checks: list[Coroutine[Any, Any, _R]], record: Callable[[_R], None]
) -> list[_R]:
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
