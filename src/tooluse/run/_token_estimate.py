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

Far under the budget the run does not even count: `items_bound` is a bound of the
estimate read from lengths alone (`json_bound`: an ASCII character counts two,
six in a short string, others twelve: the most the estimate counts for one), so a
request whose bound is within the budget is within it by the estimate too, and is
sent as it is.

The run measures where it can: the input tokens a provider reported for the
previous request, plus this estimate for the items added since
(`tooluse.run._fit`); the estimate alone is used only for a request whose
history the policy has just changed.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Sequence
from json.encoder import encode_basestring_ascii
from typing import cast

from ..core._items import Item
from ..tools._function_tool import FunctionTool
from ..tools._toolsets import Tool

__all__ = [
    "CHARS_PER_TOKEN",
    "item_tokens",
    "items_bound",
    "items_tokens",
    "json_bound",
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


def items_bound(items: Iterable[Item]) -> int:
    """A bound of `items_tokens(items)`, from lengths alone (`json_bound`): no text is read.

    Args:
        items: The items.

    Returns:
        At least their estimate; two to three times it for long ASCII text.
    """
    # json_bound's common case (a dict of strings) inlined, in one function and no call
    # of ours: this runs for every item a run adds, each time on code the run has left.
    total = 0
    for item in items:
        if not item:
            total += 2  # `{}`
            continue
        keys = tuple(item)
        chars = _KEYS.get(keys)
        if chars is None:
            chars = _keys_length(keys)
        values = item.values()
        try:  # counted in C, reading no text; TypeError for a value that is no string
            ascii, size = sum(map(_isascii, values)), sum(map(len, values))
        except TypeError:
            total -= -json_bound(item) // CHARS_PER_TOKEN - 1
            continue
        count = len(values)
        if ascii == count:
            short = (_SHORT - 1) * count
            chars += 2 * size + 2 * count + 4 * (size if size < short else short)
        else:
            chars += 12 * size + 2 * count
        total -= -chars // CHARS_PER_TOKEN - 1
    return total


_isascii = str.isascii


def json_bound(value: object) -> int:
    r"""At least `json_length(value)`, from lengths alone: no string is searched or escaped.

    A string outside ASCII counts twelve characters a character (two escapes, as
    `\ud83d\ude00`), and an ASCII one two, plus four for each of its first 255 (a
    short string is escaped exactly, a control character as `\u0001`; a long one's
    escapes count two).

    Args:
        value: A JSON value.

    Returns:
        The bound.
    """
    kind = type(value)
    if kind is dict:
        return _pairs_bound(cast("dict[object, object]", value))
    if kind is list or kind is tuple:
        values = cast("list[object]", value)
        return sum(json_bound(v) + 2 for v in values) if values else 2
    if kind is str:
        return _strings_bound([value])
    return _FLOAT_BOUND if kind is float else json_length(value)  # numbers, constants: exact


def _pairs_bound(pairs: dict[object, object]) -> int:
    """A dict's bound: its keys counted exactly (once for each set of keys), its values."""
    if not pairs:
        return 2
    keys = tuple(pairs)
    total = _KEYS.get(keys)
    if total is None:
        total = _keys_length(keys)
    values = pairs.values()
    try:  # every value a string (the common case): counted in C, reading no text
        return total + _strings_bound(values)
    except TypeError:
        return total + sum(json_bound(item) for item in values)


def _strings_bound(strings: Collection[object]) -> int:
    """The bound of the strings given (with their quotes); TypeError if one is not a string."""
    ascii = sum(map(str.isascii, strings))  # pyright: ignore[reportArgumentType]
    size, count = sum(map(len, strings)), len(strings)  # pyright: ignore[reportArgumentType]
    if ascii == count:
        short = (_SHORT - 1) * count
        return 2 * size + 2 * count + 4 * (size if size < short else short)
    return 12 * size + 2 * count  # a character past U+FFFF is two escapes


_FLOAT_BOUND = 24
"""The longest float `json.dumps` writes (`-1.2345678901234567e-308`; `-Infinity` is 9)."""


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
