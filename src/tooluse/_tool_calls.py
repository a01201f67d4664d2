"""Normalising what the model asked for, before anything runs.

Models misbehave: they prefix names (`functions.get_weather`), call tools that
do not exist, wrap several calls in one `multi_tool_use.parallel` pseudo-call,
repeat a call id, or leave it empty. `plan_calls` turns a response's function
calls into `CallGroup`s: each group answers exactly one call id with exactly
one output, and each planned call either names a real tool or carries the
message the model gets instead.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from ._function_tool import FunctionTool
from ._items import Item

__all__ = ["CallGroup", "PlannedCall", "plan_calls"]

PARALLEL_WRAPPERS = frozenset({"multi_tool_use.parallel", "parallel"})
EXPECTED_PARALLEL = (
    'expected {"tool_uses": [{"recipient_name": "functions.NAME", "parameters": {...}}, ...]}'
)


@dataclass
class PlannedCall:
    """One tool call to run, or the message to give instead."""

    name: str
    """The tool's name as resolved (or as the model wrote it, if unknown)."""
    arguments: str
    """The raw JSON arguments."""
    tool: FunctionTool | None = None
    """The tool to run; None when `error` says why not."""
    error: str | None = None
    """The message the model gets instead of running anything."""


@dataclass
class CallGroup:
    """The calls answering one call id: one call, or the entries of a parallel wrapper."""

    call_id: str
    """The id the one output goes to."""
    calls: list[PlannedCall] = field(default_factory=list[PlannedCall])
    """What to run."""
    wrapper: bool = False
    """Whether the output is the JSON array of a `multi_tool_use.parallel` call."""
    error: str | None = None
    """A message for the whole call (an unusable wrapper payload)."""


def plan_calls(
    items: list[Item], tools: Sequence[FunctionTool], new_items: list[Item]
) -> list[CallGroup]:
    """Plan a response's function calls: resolve names, unwrap wrappers, drop duplicate ids.

    Args:
        items: The response's output items.
        tools: The enabled function tools.
        new_items: The run's items, where the calls already stand: a missing id is
            filled in there, and a call repeating an id is removed.

    Returns:
        One group per distinct call id, in the order the model made the calls.
    """
    by_name = {tool.name: tool for tool in tools}
    groups: list[CallGroup] = []
    seen: set[str] = set()
    for index, item in enumerate(items):
        if item.get("type") != "function_call":
            continue
        if not item.get("call_id"):
            item["call_id"] = f"call_{len(new_items)}_{index}"  # the same object as in new_items
        if item["call_id"] in seen:
            if item in new_items:  # one output per id: the APIs refuse two
                new_items.remove(item)
            continue
        seen.add(item["call_id"])
        groups.append(_group(item, by_name))
    return groups


def _group(item: Item, by_name: dict[str, FunctionTool]) -> CallGroup:
    name: str = item.get("name") or ""
    arguments: str = item.get("arguments") or ""
    if name in PARALLEL_WRAPPERS and name not in by_name:
        return _unwrap(item["call_id"], arguments, by_name)
    return CallGroup(item["call_id"], [_resolve(name, arguments, by_name)])


def _resolve(name: str, arguments: str, by_name: dict[str, FunctionTool]) -> PlannedCall:
    tool = by_name.get(name) or by_name.get(name.rsplit(".", 1)[-1])
    if tool is not None:
        return PlannedCall(tool.name, arguments, tool)
    return PlannedCall(name, arguments, error=unknown_tool_message(name, list(by_name)))


def unknown_tool_message(name: str, available: list[str]) -> str:
    """What the model is told when it calls a tool that does not exist.

    Args:
        name: The name it used.
        available: The tools it can call.

    Returns:
        The message, with the available tools and the closest name, if one is close.
    """
    listed = ", ".join(sorted(available)) or "none"
    message = f"Tool '{name}' does not exist. Available tools: {listed}."
    close = difflib.get_close_matches(name.rsplit(".", 1)[-1], available, n=1, cutoff=0.6)
    return f"{message} Did you mean '{close[0]}'?" if close else message


def _unwrap(call_id: str, arguments: str, by_name: dict[str, FunctionTool]) -> CallGroup:
    try:
        payload: Any = json.loads(arguments or "{}")
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
    calls = [_entry(use, by_name) for use in cast(list[Any], uses)]
    return CallGroup(call_id, calls, wrapper=True)


def _entry(use: Any, by_name: dict[str, FunctionTool]) -> PlannedCall:
    entry = cast(dict[str, Any], use) if isinstance(use, dict) else {}
    if not isinstance(entry.get("recipient_name"), str):
        return PlannedCall("?", "", error=f"This entry could not be read: {EXPECTED_PARALLEL}.")
    parameters = entry.get("parameters", {})
    arguments = parameters if isinstance(parameters, str) else json.dumps(parameters)
    return _resolve(entry["recipient_name"], arguments, by_name)
