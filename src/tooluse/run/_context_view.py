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

__all__ = ["ViewCache", "context_view", "handoff_positions", "is_output", "recent_start"]


def context_view(history: list[Item], record: ContextRecord | None) -> list[Item]:
    """The items the model is sent.

    Args:
        history: The history the agent answering sees (`RunState.history()`).
        record: What the policy changed, or None.

    Returns:
        `history` itself when nothing is changed, else a new list.
    """
    if record is None or (not record.summarised and not record.trimmed):
        return history
    start = record.summarised
    view: list[Item] = []
    if record.compacted is not None:
        view.extend(record.compacted)
    elif record.summary is not None:
        view.append(summary_message(record.summary))
    if start:
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
    return type(kind) is str and kind.endswith("_output")


def recent_start(history: list[Item], keep: int) -> int:
    """Where the last `keep` turns begin: the policy changes nothing from there on.

    A turn is a user message, or a model response and its calls' outputs. A position
    begins one only if every call before it has its output before it, and the item
    before it is no reasoning item (a reasoning item goes with what follows it). The
    walk starts from the end and reads only the turns it keeps.

    Args:
        history: The history.
        keep: How many turns to keep (`ContextPolicy.keep_recent_turns`).

    Returns:
        The position; 0 when the history holds no more turns than that, the history's
        length when `keep` is 0.
    """
    if keep == 0:
        return len(history)
    unmatched: set[object] = set()  # outputs from here on whose calls come before here
    found = 0
    for index in range(len(history) - 1, 0, -1):
        item, previous = history[index], history[index - 1]
        if is_output(item):
            unmatched.add(item.get("call_id"))
            continue
        unmatched.discard(item.get("call_id"))
        if (
            not unmatched
            and previous.get("type") != "reasoning"
            and (is_output(previous) or item.get("role") == "user")
        ):
            found += 1
            if found == keep:
                return index
    return 0


class ViewCache:
    """The last view a run sent, to extend with the items added since rather than rebuild."""

    __slots__ = ("context", "length", "version", "view")

    def __init__(self) -> None:
        self.context: ContextRecord | None = None
        self.version = (0, 0)
        self.length = 0
        self.view: list[Item] = []

    def get(self, history: list[Item], context: ContextRecord | None) -> list[Item]:
        """The view of `history`: the last one extended, when nothing else has changed.

        Args:
            history: The history the agent sees now.
            context: The state's record.

        Returns:
            The view (a list of its own, never `history` when the record changed it).
        """
        if context is None or (not context.summarised and not context.trimmed):
            return history
        if (
            context is self.context
            and self.version == _version(context)
            and self.length <= len(history)
        ):
            return [*self.view, *history[self.length :]]
        return context_view(history, context)

    def keep(self, history: list[Item], context: ContextRecord | None, view: list[Item]) -> None:
        """Remember the view sent for `history`.

        Args:
            history: The history.
            context: The record the view was made by.
            view: The view.
        """
        self.context, self.version = context, _version(context) if context else (0, 0)
        self.length, self.view = len(history), view


def _version(context: ContextRecord) -> tuple[int, int]:
    """Changes only when the record does: it only adds trims, and summaries are counted."""
    return context.compactions, len(context.trimmed)


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
