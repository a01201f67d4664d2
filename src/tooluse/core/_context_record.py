"""`ContextRecord`: what a run's context policy changed in the history the model sees.

The run's items are never rewritten: `RunState.new_items` keeps every original, as
the result and a session need them. The record says how the request differs from
them, by position in `RunState.history()`: which tool outputs are trimmed and to
how many characters, and which leading items one summary replaces. A state
written to JSON carries it, so a run resumed anywhere sends the model the same
history (`tooluse.run._context_view` applies it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

from pydantic import ConfigDict, with_config

from ._factories import new_dict, new_list
from ._items import Item, UserMessage

__all__ = [
    "CONTEXT_MARK",
    "SUMMARY_HEADER",
    "ContextRecord",
    "is_mark",
    "read_marked",
    "summary_message",
    "trim_note",
    "trimmed_output",
]


@with_config(ConfigDict(extra="forbid"))
@dataclass
class ContextRecord:
    """How the history a run sends differs from its items (a context policy's doing)."""

    summary: str | None = None
    """The summary that replaces the first `summarised` items, or None."""
    compacted: list[Item] | None = None
    """The items a provider's own compaction returned, standing for the first
    `summarised` items instead of a summary (OpenAI's `responses.compact`); or None."""
    summarised: int = 0
    """How many leading items of the history the summary (or `compacted`) replaces."""
    kept: list[int] = field(default_factory=new_list)
    """Positions below `summarised` sent as they are after the summary: handoff calls
    and their outputs, so the agent answering still sees how it got the conversation."""
    trimmed: dict[str, int] = field(default_factory=new_dict)
    """Tool outputs cut short: the characters kept, by position (as text, for JSON)."""
    trim_checked: int = 0
    """Positions below this were looked at for trimming already (trimmed, or too short)."""
    measured_tokens: int | None = None
    """The input tokens the provider reported for the last request sent with this view;
    None once the view has changed since."""
    measured_items: int = 0
    """How many items of the history that request held."""
    compactions: int = 0
    """How many summaries the run has written."""
    marks: list[Item] = field(default_factory=new_list)
    """What a run on a session still has to store of these changes, with its next write:
    each mark says where it goes (`at`: how many of the run's `new_items` came before)."""


SUMMARY_HEADER = (
    "[Summary of the earlier conversation, written to fit the context window; the "
    "turns it replaces are not shown]"
)
"""The first line of the summary item the model is sent."""


def summary_message(summary: str) -> UserMessage:
    """The item that stands for the summarised turns.

    Args:
        summary: The compaction model's summary.

    Returns:
        A user message: every provider accepts one anywhere in a conversation.
    """
    return {"role": "user", "content": f"{SUMMARY_HEADER}\n\n{summary}"}


def trim_note(cut: int, total: int) -> str:
    """The note after a trimmed output: what was cut, and how to get it again.

    Args:
        cut: The characters cut.
        total: The output's length.

    Returns:
        The note.
    """
    return (
        f"\n\n[tooluse: the last {cut} of this output's {total} characters were cut to fit "
        "the context window. Call the tool again if you need them (ask for the part you "
        "need if it can give part of its output).]"
    )


def trimmed_output(item: Item, keep: int) -> Item:
    """A tool output item cut to its first `keep` characters, with the note.

    Args:
        item: A `*_output` item whose `output` is text.
        keep: The characters kept.

    Returns:
        A new item (the original is left alone).
    """
    output: str = item["output"]
    note = trim_note(len(output) - keep, len(output))
    return {**item, "output": output[:keep] + note}


# The marks a session stores where a run's context policy changed the history. The
# session keeps every original item; a run that trimmed outputs or summarised turns
# stores a mark (`{"type": "tooluse_context", ...}`) with its next turn, where it did
# so: `{"trimmed": {call_id: characters kept}}` trims those outputs before it;
# `{"summary": text, "kept": [items]}` reads everything before it as the summary and
# `kept` (the items the run still sent as they were); `{"compacted": [items], "kept":
# [items]}` likewise, with the items a provider's compaction returned. A run on the
# session reads the history through them (`read_marked`), so it sends what the last
# run sent.

CONTEXT_MARK = "tooluse_context"
"""The `type` of a mark."""


def is_mark(item: Item) -> bool:
    """Whether a stored item is a context mark, not a conversation item.

    Args:
        item: A stored item.

    Returns:
        True if it is.
    """
    return item.get("type") == CONTEXT_MARK


def read_marked(items: list[Item]) -> list[Item]:
    """The history a run sends, from the stored items and the marks among them.

    Args:
        items: The stored items, oldest first.

    Returns:
        `items` itself when it holds no mark, else the items as marked.
    """
    if not any(item.get("type") == CONTEXT_MARK for item in items):
        return items
    read: list[Item] = []
    for item in items:
        if item.get("type") != CONTEXT_MARK:
            read.append(item)
            continue
        summary, compacted = item.get("summary"), item.get("compacted")
        if isinstance(summary, str):
            read = [summary_message(summary), *cast(list[Item], item.get("kept") or [])]
        elif isinstance(compacted, list):
            read = [*cast(list[Item], compacted), *cast(list[Item], item.get("kept") or [])]
        trimmed = cast(dict[str, int], item.get("trimmed") or {})
        for call_id, keep in trimmed.items():
            _trim_last(read, call_id, keep)
    return read


def _trim_last(items: list[Item], call_id: str, keep: int) -> None:
    """Trim the newest output of `call_id` in place in the list (it holds the text)."""
    for index in range(len(items) - 1, -1, -1):
        item = items[index]
        if item.get("call_id") == call_id and isinstance(item.get("output"), str):
            if str(item.get("type", "")).endswith("_output") and len(item["output"]) > keep:
                items[index] = trimmed_output(item, keep)
            return
