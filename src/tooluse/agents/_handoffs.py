"""Handoffs as they are defined: `Handoff`, `handoff()`, and what each checks when made.

A handoff lets the model pass the conversation to another agent. How the run offers
handoffs as tools and carries them out is in `tooluse.run._handoffs`.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic

from pydantic import TypeAdapter, ValidationError

from ..core._agent_base import TAgent
from ..core._context import RunContextWrapper
from ..exceptions import UserError
from ..schema._strict import strict_or_error
from ._handoff_input import InputFilter

__all__ = [
    "EnabledPredicate",
    "Handoff",
    "InputFilter",
    "OnHandoff",
    "as_handoffs",
    "handoff",
    "tool_safe",
]

OnHandoff = Callable[..., "Awaitable[None] | None"]
EnabledPredicate = Callable[[RunContextWrapper[Any], Any], "bool | Awaitable[bool]"]


@dataclass
class Handoff(Generic[TAgent]):
    """A way for an agent to pass the conversation to `agent`."""

    agent: TAgent
    """The agent that takes over."""
    tool_name: str
    """The tool the model calls to hand off."""
    tool_description: str
    """What the model is told the handoff is for."""
    on_handoff: OnHandoff | None = None
    """Runs at the handoff: `(run_context)`, or `(run_context, data)` with an `input_type`."""
    input_type: Any = None
    """The type of what the model passes along with the handoff, if anything."""
    input_filter: InputFilter | None = None
    """Edits the conversation the next agent sees."""
    is_enabled: bool | EnabledPredicate = True
    """Whether the handoff is offered: a bool, or a function of the run context and the
    agent that would hand off, asked each turn."""

    _parameters: dict[str, Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_callbacks(self.agent.name, self.on_handoff, self.input_type)
        # Built once: an input type strict mode cannot take fails now, not at a handoff.
        self._parameters = _parameters_schema(self.agent.name, self.input_type)

    @property
    def agent_name(self) -> str:
        """The name of the agent that takes over."""
        return self.agent.name

    @property
    def input_json_schema(self) -> dict[str, Any]:
        """The strict JSON schema of the handoff tool's arguments (`parameters()`)."""
        return self.parameters()

    def parameters(self) -> dict[str, Any]:
        """The strict JSON schema of the handoff tool's arguments."""
        return self._parameters

    def parse_input(self, arguments: str) -> object:
        """The handoff's validated input, or None without an `input_type`.

        Args:
            arguments: The call's raw JSON arguments.

        Returns:
            The validated value.

        Raises:
            ValueError: If the arguments do not fit `input_type`.
        """
        if self.input_type is None:
            return None
        try:
            return TypeAdapter(self.input_type).validate_json(arguments or "{}")
        except ValidationError as error:
            raise ValueError(f"{error.error_count()} invalid field(s)") from None


def handoff(
    agent: TAgent,
    tool_name_override: str | None = None,
    tool_description_override: str | None = None,
    on_handoff: OnHandoff | None = None,
    input_type: object = None,
    input_filter: InputFilter | None = None,
    is_enabled: bool | EnabledPredicate = True,
) -> Handoff[TAgent]:
    """A handoff to `agent`, with its tool's name and description and what happens at it.

    Args:
        agent: The agent that takes over.
        tool_name_override: The tool name; default `transfer_to_<agent name>`.
        tool_description_override: The description; default from `handoff_description`.
        on_handoff: Runs at the handoff, with the run context (and the input).
        input_type: The type of what the model passes along, if anything.
        input_filter: Edits the conversation the next agent sees.
        is_enabled: Whether it is offered: a bool, or a function of the run context and
            the agent that would hand off, asked each turn.

    Returns:
        The handoff, for `Agent(handoffs=[...])`.

    Raises:
        UserError: `on_handoff` cannot take the arguments it will be given.
    """
    description = tool_description_override or (
        f"Hand off to the {agent.name} agent. {agent.handoff_description or ''}".strip()
    )
    return Handoff(
        agent=agent,
        tool_name=tool_name_override or f"transfer_to_{tool_safe(agent.name)}",
        tool_description=description,
        on_handoff=on_handoff,
        input_type=input_type,
        input_filter=input_filter,
        is_enabled=is_enabled,
    )


def _check_callbacks(name: str, on_handoff: object, input_type: object) -> None:
    """Refuse, when the handoff to `name` is built, what would fail only when it is taken."""
    if on_handoff is None:
        if input_type is not None:
            raise UserError(
                f"handoff to '{name}': input_type={input_type!r} needs an on_handoff "
                "that receives the input: pass on_handoff=f with f(run_context, input)"
            )
        return
    if not callable(on_handoff):
        raise UserError(
            f"handoff to '{name}': on_handoff={on_handoff!r} must be a function of "
            "the run context (and the input, with an input_type)"
        )
    _check_on_handoff(name, on_handoff, input_type)


def _parameters_schema(agent: str, input_type: Any) -> dict[str, Any]:
    if input_type is None:
        return {"type": "object", "properties": {}, "additionalProperties": False, "required": []}
    schema = TypeAdapter(input_type).json_schema()
    return strict_or_error(schema, f"handoff to '{agent}'", "use another input_type")


def _check_on_handoff(agent: str, on_handoff: Callable[..., object], input_type: object) -> None:
    """Refuse a callback of the wrong arity now, not when the model hands off."""
    given = ("run_context",) if input_type is None else ("run_context", "input")
    try:
        signature = inspect.signature(on_handoff)
    except ValueError:  # no signature to read (some builtins): the call will tell
        return
    try:
        signature.bind(*given)
    except TypeError:
        takes = "(run_context)" if input_type is None else "(run_context, input)"
        why = "" if input_type is None else f", input being the {input_type!r} the model sends"
        raise UserError(
            f"handoff to '{agent}': on_handoff={_name(on_handoff)} must take {takes}{why}; "
            f"it takes {signature.replace(return_annotation=inspect.Signature.empty)}"
        ) from None


def _name(func: object) -> str:
    return getattr(func, "__qualname__", None) or repr(func)


def as_handoffs(items: Sequence[TAgent | Handoff[TAgent]]) -> list[Handoff[TAgent]]:
    """Agents and handoffs, as handoffs.

    Args:
        items: What `Agent(handoffs=...)` holds.

    Returns:
        One `Handoff` each.
    """
    return [item if isinstance(item, Handoff) else handoff(item) for item in items]


def tool_safe(name: str) -> str:
    """A name made fit for a tool name: lowercase letters, digits and underscores.

    Args:
        name: Any name.

    Returns:
        The tool-safe form.
    """
    return re.sub(r"[^a-zA-Z0-9_-]+", "_", name).strip("_").lower() or "agent"
