"""Normalising what the model asked for, before anything runs.

Models misbehave: they prefix names (`functions.get_weather`), call tools that
do not exist, wrap several calls in one `multi_tool_use.parallel` pseudo-call,
repeat a call id, or leave it empty. `normalise_calls` gives every call one
id of its own as the response is recorded; `plan_calls` (pure) turns the
calls into `CallGroup`s: each group answers exactly one call id with exactly
one output, and each planned call either names a real tool or carries the
message the model gets instead. Every planned call has its own approval id,
the entries of a parallel wrapper too.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple, cast

from ..core._items import Item
from ..tools._errors import echoed_name
from ..tools._function_tool import FunctionTool

__all__ = ["CallGroup", "PlannedCall", "normalise_calls", "plan_calls", "unknown_tool_message"]

PARALLEL_WRAPPERS = frozenset({"multi_tool_use.parallel", "parallel"})
EXPECTED_PARALLEL = (
    'expected {"tool_uses": [{"recipient_name": "functions.NAME", "parameters": {...}}, ...]}'
)


class PlannedCall(NamedTuple):
    """One tool call to run, or the message to give instead (a tuple: cheap to make)."""

    name: str
    """The tool's name as resolved (or as the model wrote it, cut short, if unknown)."""
    arguments: str
    """The raw JSON arguments."""
    approval_id: str
    """The id a human approves or rejects this call by: the call id, or `<call id>:<n>`
    for the n-th entry of a parallel wrapper."""
    tool: FunctionTool | None = None
    """The tool to run; None when `error` says why not."""
    error: str | None = None
    """The message the model gets instead of running anything."""
    rejected: bool = False
    """Whether `error` is a human's rejection (not a failure of the model)."""
    unknown: bool = False
    """Whether `error` says the tool does not exist."""


class CallGroup(NamedTuple):
    """The calls answering one call id: one call, or the entries of a parallel wrapper."""

    call_id: str
    """The id the one output goes to."""
    calls: tuple[PlannedCall, ...] = ()
    """What to run."""
    wrapper: bool = False
    """Whether the output is the JSON array of a `multi_tool_use.parallel` call."""
    error: str | None = None
    """A message for the whole call (an unusable wrapper payload)."""


def normalise_calls(output: Sequence[Item], turn: int) -> list[Item]:
    """A response's items with every function call answerable exactly once.

    Args:
        output: The response's output items (not changed).
        turn: The turn's number, for ids made up for calls that have none.

    Returns:
        The items, with a missing call id filled in (`call_<turn>_<index>`, on a copy
        of the item) and a call repeating an earlier call's id left out: the APIs
        refuse two outputs for one id.
    """
    items: list[Item] = []
    seen: set[str] = set()
    for index, item in enumerate(output):
        if item.get("type") != "function_call":
            items.append(item)
            continue
        call_id = item.get("call_id") or f"call_{turn}_{index}"
        if call_id not in seen:
            seen.add(call_id)
            items.append(item if call_id == item.get("call_id") else {**item, "call_id": call_id})
    return items


def plan_calls(calls: list[Item], by_name: Mapping[str, FunctionTool]) -> list[CallGroup]:
    """Plan function calls: resolve names and unwrap parallel wrappers.

    Args:
        calls: `function_call` items with distinct ids (see `normalise_calls`).
        by_name: The enabled function tools, by name.

    Returns:
        One group per call, in the order the model made them.
    """
    return [_group(item, by_name) for item in calls]


def _group(item: Item, by_name: Mapping[str, FunctionTool]) -> CallGroup:
    call_id: str = item["call_id"]
    name: str = item.get("name") or ""
    arguments: str = item.get("arguments") or ""
    if name in PARALLEL_WRAPPERS and name not in by_name:
        return _unwrap(call_id, arguments, by_name)
    return CallGroup(call_id, (_resolve(name, arguments, call_id, by_name),))


def _resolve(
    name: str, arguments: str, approval_id: str, by_name: Mapping[str, FunctionTool]
) -> PlannedCall:
    tool = by_name.get(name) or by_name.get(name.rsplit(".", 1)[-1])
    if tool is not None:
        return PlannedCall(tool.name, arguments, approval_id, tool)
    echoed = echoed_name(name)
    message = unknown_tool_message(echoed, by_name)
    return PlannedCall(echoed, arguments, approval_id, error=message, unknown=True)


def unknown_tool_message(name: str, available: Iterable[str]) -> str:
    """What the model is told when it calls a tool that does not exist.

    Args:
        name: The name it used.
        available: The tools it can call.

    Returns:
        The message, with the available tools and the closest name, if one is close.
    """
    names = sorted(available)
    listed = ", ".join(names) or "none"
    message = f"Tool '{name}' does not exist. Available tools: {listed}."
    close = difflib.get_close_matches(name.rsplit(".", 1)[-1], names, n=1, cutoff=0.6)
    return f"{message} Did you mean '{close[0]}'?" if close else message


def _unwrap(call_id: str, arguments: str, by_name: Mapping[str, FunctionTool]) -> CallGroup:
    try:
        payload: object = json.loads(arguments or "{}")
    except json.JSONDecodeError:
        payload = None
    uses: Any = (
        cast(dict[str, Any], payload).get("tool_uses") if isinstance(payload, dict) else None
    )
    if not isinstance(uses, list) or not uses:
        error = (
            f"The parallel call could not be read: {EXPECTED_PARALLEL}. Call the tools directly."
        )
        return CallGroup(call_id, wrapper=True, error=error)
    entries = cast(list[Any], uses)
    calls = tuple(_entry(use, f"{call_id}:{n}", by_name) for n, use in enumerate(entries))
    return CallGroup(call_id, calls, wrapper=True)


def _entry(use: Any, approval_id: str, by_name: Mapping[str, FunctionTool]) -> PlannedCall:
    entry = cast(dict[str, Any], use) if isinstance(use, dict) else {}
    if not isinstance(entry.get("recipient_name"), str):
        error = f"This entry could not be read: {EXPECTED_PARALLEL}."
        return PlannedCall("?", "", approval_id, error=error)
    parameters = entry.get("parameters", {})
    arguments = parameters if isinstance(parameters, str) else json.dumps(parameters)
    return _resolve(entry["recipient_name"], arguments, approval_id, by_name)
