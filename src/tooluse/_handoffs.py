"""Handoffs: letting the model pass the conversation to another agent, and only to one that exists.

Each handoff is offered as a tool (`transfer_to_<agent>` by default). In the
one-tool mode a single `transfer` tool takes the target's name from an `enum`
of exactly the allowed names plus `"none"`, so strict decoding cannot invent a
target; a name outside the list (from a server that ignores strict mode) is
refused before anything happens.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter, ValidationError

from ._context import RunContextWrapper
from ._function_tool import FunctionTool
from ._items import Item
from ._strict import strict_or_error
from .exceptions import UserError

if TYPE_CHECKING:
    from ._agent import Agent

__all__ = [
    "NO_AGENT",
    "TRANSFER_TOOL",
    "Handoff",
    "HandoffCall",
    "enabled_handoffs",
    "handoff",
    "handoff_tools",
]

TRANSFER_TOOL = "transfer"
"""The one tool of the one-tool mode."""
NO_AGENT = "none"
"""What the model picks in the one-tool mode when no agent fits."""

InputFilter = Callable[[list[Item]], list[Item]]
OnHandoff = Callable[..., "Awaitable[None] | None"]
EnabledPredicate = Callable[[RunContextWrapper[Any], Any], "bool | Awaitable[bool]"]


@dataclass
class Handoff:
    """A way for an agent to pass the conversation to `agent`."""

    agent: Agent[Any]
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
        _check_callbacks(self)
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

    def parse_input(self, arguments: str) -> Any:
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
    agent: Agent[Any],
    tool_name_override: str | None = None,
    tool_description_override: str | None = None,
    on_handoff: OnHandoff | None = None,
    input_type: Any = None,
    input_filter: InputFilter | None = None,
    is_enabled: bool | EnabledPredicate = True,
) -> Handoff:
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


def _check_callbacks(handoff: Handoff) -> None:
    """Refuse, when the handoff is built, what would fail only when the model hands off."""
    name = handoff.agent.name
    if handoff.on_handoff is None:
        if handoff.input_type is not None:
            raise UserError(
                f"handoff to '{name}': input_type={handoff.input_type!r} needs an on_handoff "
                "that receives the input: pass on_handoff=f with f(run_context, input)"
            )
        return
    if not callable(handoff.on_handoff):
        raise UserError(
            f"handoff to '{name}': on_handoff={handoff.on_handoff!r} must be a function of "
            "the run context (and the input, with an input_type)"
        )
    _check_on_handoff(name, handoff.on_handoff, handoff.input_type)


def _parameters_schema(agent: str, input_type: Any) -> dict[str, Any]:
    if input_type is None:
        return {"type": "object", "properties": {}, "additionalProperties": False, "required": []}
    schema = TypeAdapter(input_type).json_schema()
    return strict_or_error(schema, f"handoff to '{agent}'", "use another input_type")


def _check_on_handoff(agent: str, on_handoff: OnHandoff, input_type: Any) -> None:
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


def _name(func: Callable[..., Any]) -> str:
    return getattr(func, "__qualname__", None) or repr(func)


async def enabled_handoffs(
    handoffs: list[Handoff], context: RunContextWrapper[Any], agent: Any
) -> list[Handoff]:
    """The handoffs offered this turn: those enabled for this context and agent.

    Args:
        handoffs: The agent's handoffs.
        context: The run context.
        agent: The agent that would hand off.

    Returns:
        The enabled ones, in order.
    """
    kept: list[Handoff] = []
    for h in handoffs:
        enabled = h.is_enabled if isinstance(h.is_enabled, bool) else h.is_enabled(context, agent)
        if await enabled if inspect.isawaitable(enabled) else enabled:
            kept.append(h)
    return kept


@dataclass(frozen=True)
class HandoffCall:
    """A handoff the model asked for."""

    call_id: str
    """The call's id."""
    target: Handoff | None
    """The handoff chosen, or None when the call names none that exists."""
    arguments: str
    """The raw arguments."""
    refusal: str | None = None
    """The message instead of a handoff (an unknown target, or `none`)."""


def as_handoffs(items: Sequence[Any]) -> list[Handoff]:
    """Agents and handoffs, as handoffs.

    Args:
        items: What `Agent(handoffs=...)` holds.

    Returns:
        One `Handoff` each.
    """
    return [item if isinstance(item, Handoff) else handoff(item) for item in items]


def handoff_tools(handoffs: list[Handoff], *, one_tool: bool) -> list[FunctionTool]:
    """The tools that offer the handoffs to the model.

    Args:
        handoffs: The agent's handoffs.
        one_tool: One `transfer` tool with an enum of targets, or a tool per handoff.

    Returns:
        The declarations; the runner intercepts their calls.
    """
    if not handoffs:
        return []
    if one_tool:
        return [_transfer_tool(handoffs)]
    return [
        FunctionTool(h.tool_name, h.tool_description, h.parameters(), _never_invoked)
        for h in handoffs
    ]


def read_handoff(call: Item, handoffs: Sequence[Handoff], *, one_tool: bool) -> HandoffCall | None:
    """The handoff a function call asks for, or None if it is not a handoff call.

    Args:
        call: A `function_call` item.
        handoffs: The agent's handoffs.
        one_tool: Whether the one-tool mode is on.

    Returns:
        The handoff call, possibly a refusal, or None.
    """
    name = call.get("name", "")
    if not one_tool:
        target = next((h for h in handoffs if h.tool_name == name), None)
        return HandoffCall(call["call_id"], target, call.get("arguments", "")) if target else None
    if name != TRANSFER_TOOL:
        return None
    return _read_transfer(call, handoffs)


def _read_transfer(call: Item, handoffs: Sequence[Handoff]) -> HandoffCall:
    names = {h.agent.name: h for h in handoffs}
    try:
        chosen: Any = json.loads(call.get("arguments") or "{}").get("agent")
    except (json.JSONDecodeError, AttributeError):
        chosen = None
    valid = ", ".join([*names, NO_AGENT])
    if chosen == NO_AGENT:
        return HandoffCall(call["call_id"], None, "", "No agent fits: answer the user yourself.")
    if chosen not in names:
        refusal = f"There is no agent {chosen!r} to transfer to; valid names: {valid}."
        return HandoffCall(call["call_id"], None, "", refusal)
    return HandoffCall(call["call_id"], names[chosen], "")


def _transfer_tool(handoffs: list[Handoff]) -> FunctionTool:
    lines = [
        f"- {h.agent.name}: {h.agent.handoff_description or h.tool_description}" for h in handoffs
    ]
    description = (
        "Transfer the conversation to the agent best suited to it, or 'none' if no agent fits:\n"
        + "\n".join(lines)
    )
    names = [h.agent.name for h in handoffs]
    schema = {
        "type": "object",
        "properties": {"agent": {"type": "string", "enum": [*names, NO_AGENT]}},
        "required": ["agent"],
        "additionalProperties": False,
    }
    return FunctionTool(TRANSFER_TOOL, description, schema, _never_invoked)


async def _never_invoked(ctx: Any, arguments: str) -> str:
    del ctx, arguments
    return "Handoffs are carried out by the runner."  # reached only outside Runner


def tool_safe(name: str) -> str:
    """A name made fit for a tool name: lowercase letters, digits and underscores.

    Args:
        name: Any name.

    Returns:
        The tool-safe form.
    """
    return re.sub(r"[^a-zA-Z0-9_-]+", "_", name).strip("_").lower() or "agent"


async def run_on_handoff(target: Handoff, context: RunContextWrapper[Any], data: Any) -> None:
    """Run the handoff's `on_handoff`, with the input when it has an `input_type`.

    Args:
        target: The handoff taken.
        context: The run context.
        data: The validated input, or None.
    """
    if target.on_handoff is None:
        return
    result = (
        target.on_handoff(context, data)
        if target.input_type is not None
        else target.on_handoff(context)
    )
    if result is not None:
        await result
