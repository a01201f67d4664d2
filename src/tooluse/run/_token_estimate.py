"""Estimating a request's input tokens without a tokenizer.

The estimate is characters over `CHARS_PER_TOKEN`, counted on each item's JSON
text as `json.dumps` writes it (ASCII only: a character outside ASCII is six
characters as an escape, so text in scripts that tokenize densely, such as Chinese,
is counted at 1.5 tokens a character rather than a quarter), plus one token an
item for its framing. English prose and JSON run at about four characters a
token with OpenAI's and Anthropic's tokenizers; the JSON form's keys and quotes
make the estimate err high, which is the safe side for a budget.

The run measures where it can: the input tokens a provider reported for the
previous request, plus this estimate for the items added since
(`tooluse.run._fit`); the estimate alone is used only for a request whose
history the policy has just changed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from ..core._items import Item
from ..tools._function_tool import FunctionTool
from ..tools._toolsets import Tool

__all__ = ["CHARS_PER_TOKEN", "item_tokens", "items_tokens", "overhead_tokens", "text_tokens"]

CHARS_PER_TOKEN = 4
"""Characters of an item's JSON text counted as one token."""

_TOOL_FRAMING = 20
"""Tokens counted for a tool's framing in the request (its type, strictness, keys)."""


def text_tokens(text: str) -> int:
    """The estimated tokens of a text.

    Args:
        text: The text.

    Returns:
        Its characters over `CHARS_PER_TOKEN`, rounded up.
    """
    return -(-len(text) // CHARS_PER_TOKEN)


def item_tokens(item: Item) -> int:
    """The estimated tokens of one item: its JSON text's, plus one for its framing.

    Args:
        item: A conversation item.

    Returns:
        The estimate.
    """
    return text_tokens(json.dumps(item)) + 1


def items_tokens(items: Iterable[Item]) -> int:
    """The estimated tokens of several items.

    Args:
        items: The items.

    Returns:
        The sum of their estimates.
    """
    return sum(map(item_tokens, items))


def overhead_tokens(instructions: str | None, tools: Sequence[Tool]) -> int:
    """The estimated tokens of what a request sends besides its items.

    Args:
        instructions: The system prompt.
        tools: The tools offered (a function tool's name, description and schema count).

    Returns:
        The estimate.
    """
    total = text_tokens(instructions or "")
    for tool in tools:
        total += _TOOL_FRAMING
        if isinstance(tool, FunctionTool):
            described = f"{tool.name}{tool.description or ''}"
            total += text_tokens(described) + text_tokens(json.dumps(tool.params_json_schema))
    return total
