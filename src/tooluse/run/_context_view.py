"""The history a context policy sends, from the run's items and its `ContextRecord`; pure.

- `context_view`: the items the model is sent: the summary, the handoff items it
  keeps, then the rest of the history with trimmed outputs cut short.
- `turn_starts`: where a turn begins, the only places a summary may end: every
  call before it has its output before it, and no reasoning item is cut from the
  item it belongs to.
"""

from __future__ import annotations

import json

from ..core._context_record import ContextRecord, summary_message, trimmed_output
from ..core._items import Item

__all__ = ["context_view", "handoff_positions", "is_output", "turn_starts"]


def context_view(history: list[Item], record: ContextRecord | None) -> list[Item]:
    """The items the model is sent.

    Args:
        history: The history the agent answering sees (`RunState.history()`).
        record: What the policy changed, or None.

    Returns:
        `history` itself when nothing is changed, else a new list.
    """
    if record is None or (record.summary is None and not record.trimmed):
        return history
    start = record.summarised
    view: list[Item] = []
    if record.summary is not None:
        view.append(summary_message(record.summary))
        view.extend(history[position] for position in record.kept)
    offset = len(view) - start
    view.extend(history[start:])
    for key, keep in record.trimmed.items():
        position = int(key)
        if start <= position < len(history):
            view[position + offset] = trimmed_output(history[position], keep)
    return view


def is_output(item: Item) -> bool:
    """Whether an item answers a call (`function_call_output`, `computer_call_output`, ...).

    Args:
        item: An item.

    Returns:
        True if it does.
    """
    kind = item.get("type")
    return isinstance(kind, str) and kind.endswith("_output")


def turn_starts(history: list[Item]) -> list[int]:
    """The positions where a turn begins, in order (0 when the history is not empty).

    A turn is a user message, or a model response and its calls' outputs. A position
    counts only if every call before it has its output before it, and the item
    before it is no reasoning item (a reasoning item goes with what follows it).

    Args:
        history: The history.

    Returns:
        The positions.
    """
    open_calls: set[object] = set()
    starts: list[int] = [0] if history else []
    previous: Item | None = None
    for index, item in enumerate(history):
        if (
            previous is not None
            and not open_calls
            and not is_output(item)
            and previous.get("type") != "reasoning"
            and (is_output(previous) or item.get("role") == "user")
        ):
            starts.append(index)
        if is_output(item):
            open_calls.discard(item.get("call_id"))
        elif "call_id" in item:
            open_calls.add(item["call_id"])
        previous = item
    return starts


def handoff_positions(history: list[Item], end: int) -> list[int]:
    """The handoff calls, their outputs and their reasoning below `end`: kept by a summary.

    A handoff's output is what the run answers a handoff call with
    (`{"assistant": "<agent name>"}`).

    Args:
        history: The history.
        end: Where the summary ends.

    Returns:
        The positions, in order.
    """
    handed: set[object] = set()
    for item in history[:end]:
        if item.get("type") == "function_call_output" and _is_handoff_answer(item["output"]):
            handed.add(item.get("call_id"))
    if not handed:
        return []
    kept: list[int] = []
    for index, item in enumerate(history[:end]):
        if item.get("call_id") in handed:
            if (
                item.get("type") == "function_call"
                and index
                and (history[index - 1].get("type") == "reasoning")
            ):
                kept.append(index - 1)
            kept.append(index)
    return kept


def _is_handoff_answer(output: object) -> bool:
    if not isinstance(output, str) or not output.startswith('{"assistant": '):
        return False
    try:
        answer = json.loads(output)
    except ValueError:
        return False
    return isinstance(answer, dict) and list(answer) == ["assistant"]  # pyright: ignore[reportUnknownArgumentType]
