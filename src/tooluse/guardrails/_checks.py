"""Guardrails as they are defined: checks of each kind's function, lists and verdicts.

What all four kinds share (input, output, tool input, tool output) before and after
their functions run: a function the run cannot call as it calls it, a list holding
something other than guardrails of its kind, a verdict of the wrong type, and a
decorator given a name in place of the function are each refused with a `UserError`
naming the guardrail and the fix. The run loop runs them (`tooluse.run._guardrails`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Literal, Protocol, TypeAlias, TypeVar

from ..exceptions import UserError
from ..schema._callables import default_name, describe_callable

__all__ = [
    "Guardrail",
    "GuardrailKind",
    "called_bare",
    "check_guardrail_function",
    "check_guardrail_list",
    "default_guardrail_name",
    "guardrail_verdict",
]

GuardrailKind: TypeAlias = Literal["input", "output", "tool_input", "tool_output"]
"""Which guardrail: of the run's input, its final output, or a tool call's input or output."""

_V = TypeVar("_V")


class Guardrail(Protocol):
    """What the checks read of a guardrail of any of the four kinds."""

    @property
    def guardrail_function(self) -> Callable[..., object]:
        """The function the run calls."""
        ...

    @property
    def name(self) -> object:
        """Its name as given: a string or None, unless the developer erred."""
        ...


# Where each kind of guardrail goes: for the message about one in the wrong list.
_PLACES: dict[str, str] = {
    "input": "Agent(input_guardrails=[...]) or RunConfig(input_guardrails=[...])",
    "output": "Agent(output_guardrails=[...]) or RunConfig(output_guardrails=[...])",
    "tool_input": "@function_tool(tool_input_guardrails=[...])",
    "tool_output": "@function_tool(tool_output_guardrails=[...])",
}


def check_guardrail_function(guardrail: Guardrail, params: tuple[str, ...]) -> None:
    """Refuse a guardrail whose function cannot be called as the run calls it.

    Args:
        guardrail: The guardrail (any of the four kinds).
        params: What the run passes, by name, e.g. `("context", "agent", "input")`.

    Raises:
        UserError: Naming the guardrail, what is wrong, and how the run calls it.
    """
    func: object = guardrail.guardrail_function  # as given: not yet known to be callable
    owner = _owner(guardrail)
    call = f"function({', '.join(params)})"
    if not callable(func):
        raise UserError(
            f"{owner}: guardrail_function must be a function, called as {call}; got {func!r}"
        )
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):  # some builtins have none: take them on trust
        return
    try:
        signature.bind(*params)
    except TypeError:
        raise UserError(
            f"{owner}: {describe_callable(func)} takes {_bare(signature)}, but the run calls "
            f"it with "
            f"{len(params)} positional argument{'s' if len(params) > 1 else ''}, as {call}; "
            "give it exactly those parameters"
        ) from None
    if guardrail.name is not None and not isinstance(guardrail.name, str):
        raise UserError(f"{owner}: name must be a string or None, not {guardrail.name!r}")


def check_guardrail_list(owner: str, field: str, entries: object, kind: GuardrailKind) -> None:
    """Refuse a list of guardrails holding anything but guardrails of `kind`.

    Args:
        owner: Who holds them, for the message (`Agent 'triage'`).
        field: The field, e.g. `input_guardrails`.
        entries: Its value.
        kind: The kind of guardrail it takes.

    Raises:
        UserError: Naming every entry that does not belong, and what to do instead.
    """
    if isinstance(entries, str | bytes) or not isinstance(entries, Sequence):
        raise UserError(
            f"{owner}: {field} must be a list of guardrails, not {_describe(entries)}; "
            f"write {field}=[...]"
        )
    items: Sequence[object] = entries  # pyright: ignore[reportUnknownVariableType]
    problems = [
        f"{field}[{index}] is {problem}"
        for index, entry in enumerate(items)
        if (problem := _misplaced(entry, kind)) is not None
    ]
    if problems:
        lines = "\n".join(f"  - {problem}" for problem in problems)
        raise UserError(f"{owner} has {field} that are not {_kind_text(kind)} guardrails:\n{lines}")


def guardrail_verdict(guardrail: Guardrail, made: object, expected: type[_V]) -> _V:
    """What a guardrail function returned, if it is a verdict of the type its kind returns.

    Args:
        guardrail: The guardrail.
        made: What its function returned.
        expected: `GuardrailFunctionOutput`, or `ToolGuardrailFunctionOutput`.

    Returns:
        The verdict.

    Raises:
        UserError: It is something else; naming the guardrail and how to make a verdict.
    """
    if isinstance(made, expected):
        return made
    name = expected.__name__
    if name == "GuardrailFunctionOutput":
        fix = f"return {name}(output_info=..., tripwire_triggered=True or False)"
        if isinstance(made, bool):
            fix = f"return {name}(output_info=None, tripwire_triggered={made!r})"
    else:
        fix = f"return {name}.allow(), .reject_content(message) or .raise_exception()"
    raise UserError(f"{_owner(guardrail)} returned {_describe(made)}, not a {name}; {fix}")


def called_bare(decorator: str, func: _V) -> _V:
    """The function a guardrail decorator was given bare, refusing a name given in its place.

    Args:
        decorator: The decorator's name.
        func: What it was given.

    Returns:
        `func`.

    Raises:
        UserError: `@decorator("name")` was written for `@decorator(name="name")`.
    """
    if isinstance(func, str):
        raise UserError(
            f"{decorator} takes the function itself, or only keyword arguments; got {func!r}. "
            f"For a name, write @{decorator}(name={func!r})"
        )
    return func


def default_guardrail_name(func: object) -> str | None:
    """The name a decorated guardrail gets without `name=`: its function's.

    Args:
        func: The guardrail function.

    Returns:
        The name, or None if it has none (or is not callable: the guardrail refuses it).
    """
    return (default_name(func) or None) if callable(func) else None


def _owner(guardrail: Guardrail) -> str:
    kind: str = getattr(guardrail, "_kind", "")  # each kind's class says which it is
    name = guardrail.name if isinstance(guardrail.name, str) else None
    name = name or default_guardrail_name(guardrail.guardrail_function)
    return f"{_kind_text(kind).capitalize()} guardrail '{name or '?'}'"


def _bare(signature: inspect.Signature) -> inspect.Signature:
    # The parameters alone: annotations made strings by `from __future__` read badly.
    empty = inspect.Parameter.empty
    parameters = [param.replace(annotation=empty) for param in signature.parameters.values()]
    return signature.replace(parameters=parameters, return_annotation=empty)


def _kind_text(kind: str) -> str:
    return kind.replace("_", " ")


def _misplaced(entry: object, kind: GuardrailKind) -> str | None:
    entry_kind = getattr(type(entry), "_kind", None)
    if entry_kind == kind:
        return None
    if entry_kind in _PLACES:
        where = _PLACES[entry_kind]
        return f"{_describe(entry)}, {_a(_kind_text(entry_kind))} guardrail: it goes in {where}"
    if callable(entry) and not inspect.isclass(entry):
        return f"{_describe(entry)}: decorate it with @{kind}_guardrail"
    return f"{_describe(entry)}, not a guardrail: make one with @{kind}_guardrail"


def _describe(value: object) -> str:
    if inspect.isfunction(value) or inspect.ismethod(value):
        return f"the function {value.__qualname__}"
    get_name = getattr(value, "get_name", None)
    named = f" '{get_name()}'" if callable(get_name) else ""
    kind = type(value).__name__
    if named:
        return f"{_a(kind)}{named}"
    shown = repr(value)
    return f"{_a(kind)} ({shown if len(shown) <= 40 else shown[:37] + '...'})"


def _a(text: str) -> str:
    return f"{'an' if text[:1] in 'AEIOUaeiou' else 'a'} {text}"
