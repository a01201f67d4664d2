"""Tool guardrails: checks of one function tool call, before it runs and after.

A tool input guardrail sees the call (its `ToolContext` holds the tool's name and the
model's arguments) and allows it, rejects it (the model gets a message instead, and the
tool does not run), or trips (the run stops). A tool output guardrail sees what the tool
returned and keeps it, replaces it with a message, or trips. A tool's guardrails run in
their order; the first that does not allow decides.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import (
    Any,
    ClassVar,
    Generic,
    Literal,
    TypeAlias,
    cast,
    overload,
)

from typing_extensions import TypedDict

from ..core._agent_base import AgentBase
from ..core._context import TContext, ToolContext
from ..exceptions import (
    UserError,
)
from ..schema._callables import default_name
from ._agent_guardrails import call_guardrail_function
from ._checks import (
    GuardrailKind,
    called_bare,
    check_guardrail_function,
    check_guardrail_list,
    default_guardrail_name,
    guardrail_verdict,
)

__all__ = [
    "AllowBehavior",
    "RaiseExceptionBehavior",
    "RejectContentBehavior",
    "ToolGuardrailFunctionOutput",
    "ToolInputGuardrail",
    "ToolInputGuardrailData",
    "ToolInputGuardrailResult",
    "ToolOutputGuardrail",
    "ToolOutputGuardrailData",
    "ToolOutputGuardrailResult",
    "check_tool_guardrails",
    "tool_input_guardrail",
    "tool_output_guardrail",
]


class RejectContentBehavior(TypedDict):
    """Do not run the tool (or drop its output); the model gets `message` instead."""

    type: Literal["reject_content"]
    message: str


class RaiseExceptionBehavior(TypedDict):
    """Stop the run with a tool guardrail tripwire error."""

    type: Literal["raise_exception"]


class AllowBehavior(TypedDict):
    """Go on as if the guardrail were not there."""

    type: Literal["allow"]


Behavior: TypeAlias = RejectContentBehavior | RaiseExceptionBehavior | AllowBehavior


@dataclass
class ToolGuardrailFunctionOutput:
    """What a tool guardrail function returns: allow, reject with a message, or trip.

    Make one with `allow()`, `reject_content(message)` or `raise_exception()`.
    """

    output_info: Any
    """Anything the guardrail wants to keep about its check (results and errors carry it)."""
    behavior: Behavior = field(default_factory=lambda: AllowBehavior(type="allow"))
    """`{"type": "allow"}`, `{"type": "reject_content", "message": ...}` or
    `{"type": "raise_exception"}`."""

    def __post_init__(self) -> None:
        problem = _behavior_problem(self.behavior)
        if problem is not None:
            raise UserError(
                f"ToolGuardrailFunctionOutput: {problem}; make one with "
                "ToolGuardrailFunctionOutput.allow(), .reject_content(message) or "
                ".raise_exception()"
            )

    @classmethod
    def allow(cls, output_info: object = None) -> ToolGuardrailFunctionOutput:
        """Let the call run (input), or keep its output (output).

        Args:
            output_info: Anything to keep about the check.

        Returns:
            The verdict.
        """
        return cls(output_info, AllowBehavior(type="allow"))

    @classmethod
    def reject_content(
        cls, message: str, output_info: object = None
    ) -> ToolGuardrailFunctionOutput:
        """Do not run the call (input), or drop its output (output); the run goes on.

        Args:
            message: What the model gets instead of the tool's output.
            output_info: Anything to keep about the check.

        Returns:
            The verdict.
        """
        return cls(output_info, RejectContentBehavior(type="reject_content", message=message))

    @classmethod
    def raise_exception(cls, output_info: object = None) -> ToolGuardrailFunctionOutput:
        """Stop the run with `ToolInputGuardrailTripwireTriggered` or its output twin.

        Args:
            output_info: Anything to keep about the check.

        Returns:
            The verdict.
        """
        return cls(output_info, RaiseExceptionBehavior(type="raise_exception"))


@dataclass
class ToolInputGuardrailData:
    """What a tool input guardrail function receives."""

    context: ToolContext[Any]
    """The call's context: `tool_name`, `tool_call_id`, the model's `tool_arguments` (JSON
    text), and your `context`."""
    agent: AgentBase
    """The agent whose tool it is."""


@dataclass
class ToolOutputGuardrailData(ToolInputGuardrailData):
    """What a tool output guardrail function receives: the call, and what it returned."""

    output: Any
    """What the tool returned, as a Python value (a dict stays a dict); for a call that
    failed, the text the model would get."""


ToolInputGuardrailFunction: TypeAlias = Callable[
    [ToolInputGuardrailData],
    "ToolGuardrailFunctionOutput | Awaitable[ToolGuardrailFunctionOutput]",
]
"""A tool input guardrail's function: `(data) -> ToolGuardrailFunctionOutput`, sync or async."""
ToolOutputGuardrailFunction: TypeAlias = Callable[
    [ToolOutputGuardrailData],
    "ToolGuardrailFunctionOutput | Awaitable[ToolGuardrailFunctionOutput]",
]
"""A tool output guardrail's function: `(data) -> ToolGuardrailFunctionOutput`, sync or async."""


@dataclass
class ToolInputGuardrail(Generic[TContext]):
    """A check of a tool call before the tool runs, made with `@tool_input_guardrail`.

    Give it to a tool: `@function_tool(tool_input_guardrails=[...])`.
    """

    guardrail_function: ToolInputGuardrailFunction
    """`(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput`, sync or async."""
    name: str | None = None
    """Its name in results, errors and traces; default the function's name."""

    _kind: ClassVar[GuardrailKind] = "tool_input"

    def __post_init__(self) -> None:
        check_guardrail_function(self, ("data",))

    def get_name(self) -> str:
        """The guardrail's name.

        Returns:
            `name`, or the function's name.
        """
        return self.name or default_name(self.guardrail_function)

    async def run(self, data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        """Run the check (the runner does; call it yourself to test a guardrail).

        Args:
            data: The call.

        Returns:
            The verdict.

        Raises:
            UserError: The function returned something other than a
                `ToolGuardrailFunctionOutput`.
        """
        made = await call_guardrail_function(self, (data,))
        return guardrail_verdict(self, made, ToolGuardrailFunctionOutput)


@dataclass
class ToolOutputGuardrail(Generic[TContext]):
    """A check of a tool call's output, made with `@tool_output_guardrail`.

    Give it to a tool: `@function_tool(tool_output_guardrails=[...])`.
    """

    guardrail_function: ToolOutputGuardrailFunction
    """`(data: ToolOutputGuardrailData) -> ToolGuardrailFunctionOutput`, sync or async."""
    name: str | None = None
    """Its name in results, errors and traces; default the function's name."""

    _kind: ClassVar[GuardrailKind] = "tool_output"

    def __post_init__(self) -> None:
        check_guardrail_function(self, ("data",))

    def get_name(self) -> str:
        """The guardrail's name.

        Returns:
            `name`, or the function's name.
        """
        return self.name or default_name(self.guardrail_function)

    async def run(self, data: ToolOutputGuardrailData) -> ToolGuardrailFunctionOutput:
        """Run the check (the runner does; call it yourself to test a guardrail).

        Args:
            data: The call and the tool's output.

        Returns:
            The verdict.

        Raises:
            UserError: The function returned something other than a
                `ToolGuardrailFunctionOutput`.
        """
        made = await call_guardrail_function(self, (data,))
        return guardrail_verdict(self, made, ToolGuardrailFunctionOutput)


@dataclass
class ToolInputGuardrailResult:
    """A tool input guardrail that ran, and its verdict."""

    guardrail: ToolInputGuardrail[Any]
    """The guardrail."""
    output: ToolGuardrailFunctionOutput
    """What its function returned."""


@dataclass
class ToolOutputGuardrailResult:
    """A tool output guardrail that ran, and its verdict."""

    guardrail: ToolOutputGuardrail[Any]
    """The guardrail."""
    output: ToolGuardrailFunctionOutput
    """What its function returned."""


@overload
def tool_input_guardrail(func: ToolInputGuardrailFunction, /) -> ToolInputGuardrail[Any]: ...


@overload
def tool_input_guardrail(
    *, name: str | None = None
) -> Callable[[ToolInputGuardrailFunction], ToolInputGuardrail[Any]]: ...


def tool_input_guardrail(
    func: ToolInputGuardrailFunction | None = None, /, *, name: str | None = None
) -> ToolInputGuardrail[Any] | Callable[[ToolInputGuardrailFunction], ToolInputGuardrail[Any]]:
    """Turn a function into a `ToolInputGuardrail`; use it bare or called.

    Args:
        func: `(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput`, sync or
            async, when used bare.
        name: The guardrail's name; default the function's.

    Returns:
        The guardrail, or a decorator that makes one.

    Raises:
        UserError: The function cannot be called with one argument.
    """

    def decorate(f: ToolInputGuardrailFunction) -> ToolInputGuardrail[Any]:
        return ToolInputGuardrail(f, name or default_guardrail_name(f))

    return decorate if func is None else decorate(called_bare("tool_input_guardrail", func))


@overload
def tool_output_guardrail(func: ToolOutputGuardrailFunction, /) -> ToolOutputGuardrail[Any]: ...


@overload
def tool_output_guardrail(
    *, name: str | None = None
) -> Callable[[ToolOutputGuardrailFunction], ToolOutputGuardrail[Any]]: ...


def tool_output_guardrail(
    func: ToolOutputGuardrailFunction | None = None, /, *, name: str | None = None
) -> ToolOutputGuardrail[Any] | Callable[[ToolOutputGuardrailFunction], ToolOutputGuardrail[Any]]:
    """Turn a function into a `ToolOutputGuardrail`; use it bare or called.

    Args:
        func: `(data: ToolOutputGuardrailData) -> ToolGuardrailFunctionOutput`, sync or
            async, when used bare.
        name: The guardrail's name; default the function's.

    Returns:
        The guardrail, or a decorator that makes one.

    Raises:
        UserError: The function cannot be called with one argument.
    """

    def decorate(f: ToolOutputGuardrailFunction) -> ToolOutputGuardrail[Any]:
        return ToolOutputGuardrail(f, name or default_guardrail_name(f))

    return decorate if func is None else decorate(called_bare("tool_output_guardrail", func))


# --- what a tool checks --------------------------------------------------------------


def check_tool_guardrails(owner: str, inputs: object, outputs: object) -> None:
    """Refuse tool guardrail lists holding anything else (a `FunctionTool` checks its own).

    Args:
        owner: The tool, for the message (`FunctionTool 'search'`).
        inputs: Its `tool_input_guardrails` (None for none).
        outputs: Its `tool_output_guardrails` (None for none).

    Raises:
        UserError: Naming every entry that does not belong, and what to do instead.
    """
    if inputs is not None:
        check_guardrail_list(owner, "tool_input_guardrails", inputs, "tool_input")
    if outputs is not None:
        check_guardrail_list(owner, "tool_output_guardrails", outputs, "tool_output")


# --- helpers ---------------------------------------------------------------------------


def _behavior_problem(behavior: object) -> str | None:
    given = cast("dict[str, object]", behavior) if isinstance(behavior, dict) else {}
    kind = given.get("type")
    if kind not in ("allow", "reject_content", "raise_exception"):
        return (
            "behavior must be a dict whose type is 'allow', 'reject_content' or "
            f"'raise_exception', not {behavior!r}"
        )
    if kind == "reject_content" and not isinstance(given.get("message"), str):
        return f"reject_content's message must be text for the model, not {given.get('message')!r}"
    return None
