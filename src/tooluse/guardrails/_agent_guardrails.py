"""Input and output guardrails: checks of a run's input and of its final output.

An input guardrail looks at what the run starts with, on the starting agent's first turn
(not again after a handoff, nor on resuming). One with `run_in_parallel=False` runs before
the first model call; the others run beside it, and no tool runs until they all pass. An
output guardrail looks at the final output. A guardrail that trips stops the run with
`InputGuardrailTripwireTriggered` or `OutputGuardrailTripwireTriggered`, which keep the
conversation. Tool guardrails, on a tool's calls, are in `_tool_guardrails.py`; what both
share as they are defined (checking the function, a list, a verdict) in `_checks.py`. The
run loop runs them (`tooluse.run._guardrails`).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeAlias, overload

from ..core._agent_base import AgentBase
from ..core._context import RunContextWrapper, TContext
from ..core._items import Item
from ..exceptions import (
    UserError,
)
from ..schema._callables import default_name
from ._checks import (
    Guardrail,
    GuardrailKind,
    called_bare,
    check_guardrail_function,
    default_guardrail_name,
    guardrail_verdict,
)

__all__ = [
    "GuardrailFunctionOutput",
    "GuardrailKind",
    "InputGuardrail",
    "InputGuardrailResult",
    "OutputGuardrail",
    "OutputGuardrailResult",
    "call_guardrail_function",
    "input_guardrail",
    "output_guardrail",
]

# The agent is typed Any in the functions' types: a function written for `Agent`
# (`def check(ctx, agent: Agent, input)`) must fit, and `Agent` is defined above this layer.
InputGuardrailFunction: TypeAlias = Callable[
    [RunContextWrapper[TContext], Any, "str | list[Item]"],
    "GuardrailFunctionOutput | Awaitable[GuardrailFunctionOutput]",
]
"""An input guardrail's function: `(context, agent, input)`, sync or async."""
OutputGuardrailFunction: TypeAlias = Callable[
    [RunContextWrapper[TContext], Any, Any],
    "GuardrailFunctionOutput | Awaitable[GuardrailFunctionOutput]",
]
"""An output guardrail's function: `(context, agent, output)`, sync or async."""


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
    agent: AgentBase
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
        self, agent: AgentBase, input: str | list[Item], context: RunContextWrapper[TContext]
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
        self, context: RunContextWrapper[TContext], agent: AgentBase, agent_output: object
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


async def call_guardrail_function(guardrail: Guardrail, args: tuple[object, ...]) -> object:
    """Call a guardrail's function, awaiting it if it is async.

    Args:
        guardrail: The guardrail.
        args: What the run passes.

    Returns:
        What the function returned.
    """
    made = guardrail.guardrail_function(*args)
    return await made if inspect.isawaitable(made) else made
