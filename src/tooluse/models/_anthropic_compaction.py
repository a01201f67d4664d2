"""Anthropic's server-side compaction, as `AnthropicModel.compact` uses it.

The Messages API compacts a conversation itself when a request carries the beta
`context_management` edit `compact_20260112` (beta header `compact-2026-01-12`):
past the edit's trigger (input tokens, at least 50,000), the model summarises the
conversation into a `compaction` block. With `pause_after_compaction` the
response stops there (`stop_reason: "compaction"`) and its content is that block
alone. A later request sends the block back unchanged, in an assistant message,
and the API drops every block before it: the block stands for the turns it
summarised. Requests that hold one need the beta header too.

tooluse keeps the block as an item of its own, `{"type": "compaction", "content":
..., "provider_data": {"provider": "anthropic"}}` (with the block's other fields,
sent back verbatim), after one short user message: the Messages API takes a
conversation that starts with the user's, and drops it with the rest. Other
providers leave the item out, as they do Claude's thinking.
"""

from __future__ import annotations

from typing import Any, cast

from ..core._items import Item, user_message
from ._input import fields_of

__all__ = [
    "COMPACTION",
    "COMPACT_BETA",
    "FIRST_USER_MESSAGE",
    "MIN_TRIGGER",
    "compacted_items",
    "compaction_block",
    "compaction_edit",
    "usage_counts",
    "with_compact_beta",
]

COMPACT_BETA = "compact-2026-01-12"
"""The beta header the compaction edit, and a request that sends its block back, need."""

COMPACTION = "compact_20260112"
"""The `context_management` edit that compacts."""

MIN_TRIGGER = 50_000
"""The fewest input tokens the API takes as the edit's trigger: it compacts only past it."""

FIRST_USER_MESSAGE = "(The earlier conversation was compacted.)"
"""The user message before the block (the API reads from the block on)."""

_BLOCK_FIELDS = ("content", "encrypted_content", "signature", "tool_changes")
"""What a compaction block carries, sent back as it came."""


def compaction_edit(instructions: str | None) -> dict[str, Any]:
    """The `context_management` parameter that has the API compact now, and pause.

    Args:
        instructions: What the summary must keep (`ContextPolicy.compaction_instructions`).

    Returns:
        The parameter: one `compact_20260112` edit at the lowest trigger the API takes.
    """
    edit: dict[str, Any] = {
        "type": COMPACTION,
        "trigger": {"type": "input_tokens", "value": MIN_TRIGGER},
        "pause_after_compaction": True,
    }
    if instructions:
        edit["instructions"] = instructions
    return {"edits": [edit]}


def compacted_items(content: list[Any]) -> list[Item]:
    """The items that stand for the turns compacted: one user message, then the block.

    Args:
        content: The response's content blocks (the SDK's objects).

    Returns:
        The items; none if the response holds no compaction block with a summary (the
        conversation was under the trigger, or the summary failed).
    """
    block = next((b for b in content if getattr(b, "type", None) == "compaction"), None)
    if block is None or not getattr(block, "content", None):
        return []
    item: dict[str, object] = {"type": "compaction"}
    for name in _BLOCK_FIELDS:
        value = getattr(block, name, None)
        if value is not None:
            item[name] = _plain(value)
    item["provider_data"] = {"provider": "anthropic"}
    return [user_message(FIRST_USER_MESSAGE), item]


def _plain(value: object) -> object:
    """A block's field as JSON (a list of the SDK's objects dumped)."""
    if isinstance(value, list):
        return [_plain(v) for v in cast("list[object]", value)]
    dump = getattr(value, "model_dump", None)
    return dump(mode="json", exclude_none=True) if callable(dump) else value


def compaction_block(item: Item) -> dict[str, object]:
    """The block a compaction item sends back: its fields as the API gave them.

    Args:
        item: A `compaction` item of Anthropic's (`compacted_items`).

    Returns:
        The content block.
    """
    fields = fields_of(item)
    block: dict[str, object] = {"type": "compaction"}
    block.update((name, fields[name]) for name in _BLOCK_FIELDS if name in fields)
    return block


def with_compact_beta(params: dict[str, Any], messages: list[Any]) -> None:
    """Add the compaction beta header to a request that sends a compaction block back.

    A block is only ever near the start (it stands for the turns before the rest), so
    only the first two messages are looked at.

    Args:
        params: The request's parameters, changed in place.
        messages: Its messages.
    """
    for message in messages[:2]:
        if any(block.get("type") == "compaction" for block in message["content"]):
            headers = dict(params.get("extra_headers") or {})
            given = headers.get("anthropic-beta")
            headers["anthropic-beta"] = f"{given},{COMPACT_BETA}" if given else COMPACT_BETA
            params["extra_headers"] = headers
            return


def usage_counts(usage: object) -> dict[str, int]:
    """The counts of a compaction call's usage: its iterations' sums, where it has them.

    The API counts a compaction's own sampling in `usage.iterations`, apart from the
    top-level counts.

    Args:
        usage: The response's usage (the SDK's object).

    Returns:
        `input_tokens`, `output_tokens` and the cache counts.
    """
    names = (
        "input_tokens",
        "output_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
    )
    iterations = getattr(usage, "iterations", None)
    sources = cast("list[object]", iterations) if isinstance(iterations, list) else [usage]
    counts: dict[str, int] = dict.fromkeys(names, 0)
    for source in sources:
        for name in names:
            value = _field(source, name)
            if isinstance(value, int):
                counts[name] += value
    return counts


def _field(source: object, name: str) -> object:
    """A field of an SDK object, or of a dict (an SDK older than the field keeps it so)."""
    if isinstance(source, dict):
        return cast("dict[str, object]", source).get(name)
    return getattr(source, name, None)
