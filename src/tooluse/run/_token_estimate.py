"""Estimating a request's input tokens without a tokenizer.

The estimate is characters over `CHARS_PER_TOKEN`, counted on each item's JSON
text as `json.dumps` writes it (ASCII only: a character outside ASCII is six
characters as an escape, so text in scripts that tokenize densely, such as Chinese,
is counted at 1.5 tokens a character rather than a quarter), plus one token an
item for its framing. The length is counted without writing the text
(`json_length`): an ASCII string's escapes are counted by searches that run at
the speed of a memory scan, since the run counts every tool output it adds.
English prose and JSON run at about four characters a token with OpenAI's and
Anthropic's tokenizers; the JSON form's keys and quotes make the estimate err
high, which is the safe side for a budget.

The run measures where it can: the input tokens a provider reported for the
previous request, plus this estimate for the items added since
(`tooluse.run._fit`); the estimate alone is used only for a request whose
history the policy has just changed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from json.encoder import encode_basestring_ascii
from typing import cast

from ..core._items import Item
from ..tools._function_tool import FunctionTool
from ..tools._toolsets import Tool

__all__ = [
    "CHARS_PER_TOKEN",
    "item_tokens",
    "items_tokens",
    "json_length",
    "overhead_tokens",
    "text_tokens",
]

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
    return -(-json_length(item) // CHARS_PER_TOKEN) + 1


def items_tokens(items: Iterable[Item]) -> int:
    """The estimated tokens of several items.

    Args:
        items: The items.

    Returns:
        The sum of their estimates.
    """
    total = 0
    for item in items:  # item_tokens, inlined: this runs for every item a run adds
        total -= -json_length(item) // CHARS_PER_TOKEN - 1
    return total


_TWO_CHAR_ESCAPES = ('"', "\\", "\n", "\r", "\t")
"""The common characters `json.dumps` writes as two (a backslash and a letter or
themselves); backspace and form feed, which it also writes as two, are counted as one."""

_CONSTANTS: dict[object, int] = {True: 4, False: 5, None: 4}
"""The lengths of `true`, `false` and `null`."""


def json_length(value: object) -> int:
    """The length of `json.dumps(value)`, counted without writing it.

    A string outside ASCII, or a short one, is escaped as `json.dumps` does (exact);
    in a long ASCII string the quote, the backslash, the newline, the tab and the
    carriage return count two characters, and the other control characters (which tool
    outputs hardly hold) one, where `json.dumps` writes two or six.

    Args:
        value: A JSON value: dicts, lists, strings, numbers, booleans, None.

    Returns:
        Its length.
    """
    kind = type(value)
    if kind is str:
        return _string_length(cast(str, value))
    if kind is dict:
        pairs = cast("dict[object, object]", value)
        if not pairs:
            return 2
        # `{"key": value, ...}`: each pair's key, `: ` and `, ` (the braces stand for the
        # last pair's separator), counted once for each set of keys. Plain loops: this
        # runs for every item a run adds.
        keys = tuple(pairs)
        total = _KEYS.get(keys)
        if total is None:
            total = _keys_length(keys)
        shorts: list[str] = []  # escaped as one string: one call, the same length
        for item in pairs.values():
            if type(item) is not str:
                total += json_length(item)
            elif len(item) < _SHORT:
                shorts.append(item)
            else:
                total += _string_length(item)
        if shorts:  # the joined string's two quotes stand for one of its parts'
            total += len(_escaped("".join(shorts))) + 2 * len(shorts) - 2
        return total
    if kind is list or kind is tuple:
        values = cast("list[object]", value)
        return sum(json_length(v) + 2 for v in values) if values else 2
    if value is None or kind is bool:
        return _CONSTANTS[value]
    return len(json.dumps(value))


_escaped = encode_basestring_ascii

_SHORT = 256
"""Strings shorter than this are escaped to be counted (faster than searching them)."""


_KEYS: dict[tuple[object, ...], int] = {}
"""The length of each set of keys met, with their quotes, colons and commas (items come
in a few shapes)."""


def _keys_length(keys: tuple[object, ...]) -> int:
    length = _KEYS.get(keys)
    if length is None:
        length = sum(len(_escaped(str(key))) + 4 for key in keys)
        if len(_KEYS) < 4_096:  # a bound, for dicts of a tool's own keys
            _KEYS[keys] = length
    return length


def _string_length(text: str) -> int:
    if len(text) < _SHORT or not text.isascii():  # isascii is a flag of the string: no scan
        return len(_escaped(text))
    return _long_ascii_length(text)


def _long_ascii_length(text: str) -> int:
    length = len(text) + 2
    for escaped in _TWO_CHAR_ESCAPES:
        if escaped in text:  # a memory scan; counting runs slower, so only when found
            length += text.count(escaped)
    return length


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
