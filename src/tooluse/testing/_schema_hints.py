"""Constraints a strict schema keeps only in words, read back from its descriptions.

The strict transform moves keywords strict mode refuses (`minLength`,
`uniqueItems`, an unknown `format`, ...) into the description in plain words,
and rewrites some types (a dict as key/value pairs, a value of any type as JSON
text); pydantic still enforces the original constraints on the arguments.
`with_hints(node)` restores them as keywords, so that a value made for the node
satisfies what the tool will check.

Only the sentences the transform writes are read, and only in the run of them that
ends the description, where the transform appends them one after another: a
sentence of the user's own ("Format: YYYY-MM-DD." followed by more text) is not a
constraint. A later sentence wins over an earlier one.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable

# The transform's own table of words, so that what is read cannot drift from what is written.
from ..schema._strict import JSON_NOTE, PAIRS_NOTE, PLAIN_WORDS
from ..schema._strict_rules import JsonSchema

__all__ = ["UNIQUE_KEYS", "with_hints"]

UNIQUE_KEYS = "x-tooluse-unique-keys"
"""A keyword for arrays of key/value pairs: no two items may share a `key`."""

_Reader = Callable[[re.Match[str]], JsonSchema]


def _placeholder(key: str) -> str:
    """What fills `{}` in `PLAIN_WORDS[key]`: a format name, else a count."""
    return r"(\S+?)" if key == "format" else r"(\d+)"


def _plain_reader(key: str) -> _Reader:
    return lambda found: {key: found[1] if key == "format" else int(found[1])}


def _nothing(found: re.Match[str]) -> JsonSchema:
    del found
    return {}


# Sentences without a JSON value, as `_strict` writes them (`PLAIN_WORDS`, `_plain_words`,
# `_json_text_schema`, `_pairs_schema`, `_tuple_schema`, `_nullable`); each ends at a space or
# at the end of the description.
_FIXED: list[tuple[re.Pattern[str], _Reader]] = [
    *(
        (re.compile(re.escape(words).replace(r"\{\}", _placeholder(key))), _plain_reader(key))
        for key, words in PLAIN_WORDS.items()
    ),
    (re.compile(re.escape("Items must be unique.")), lambda _: {"uniqueItems": True}),
    (re.compile(re.escape(PAIRS_NOTE)), lambda _: {UNIQUE_KEYS: "key"}),
    (
        re.compile(re.escape(JSON_NOTE)),
        lambda _: {"contentMediaType": "application/json", "contentSchema": {}},
    ),
    (re.compile(r"Deprecated\."), _nothing),
    (re.compile(r"Null leaves it out\."), _nothing),
    (re.compile(r"The tuple's \d+ items in order, as item_0(?:, item_\d+)*\."), _nothing),
]
# Sentences that hold a JSON value and end with a full stop after it: the key it restores,
# if any (`Must satisfy <key>: <JSON>.` restores <key>).
_WITH_JSON = re.compile(r"Defaults to |Examples: |Must satisfy ([^\s:]+): ")
_DECODER = json.JSONDecoder()


def with_hints(node: JsonSchema) -> JsonSchema:
    """`node` with the constraints its description states put back as keywords.

    Args:
        node: A schema node.

    Returns:
        `node` itself when its description states nothing, else a copy with the
        keywords added (keywords already present win).
    """
    description = node.get("description")
    if not isinstance(description, str) or not description:
        return node
    hints = _hints(description)
    if not hints:
        return node
    return {**hints, **node}


@functools.lru_cache(maxsize=1024)
def _hints(description: str) -> JsonSchema:
    """The keywords stated by the run of transform sentences that ends `description`.

    Every sentence of that run parses, or the run starts later: the first start (after a
    space) from which the rest of the description parses to its end is the longest run.
    """
    dead: set[int] = set()  # starts from which the rest does not parse
    for start in [0, *(i + 1 for i, char in enumerate(description) if char == " ")]:
        found = _run_from(description, start, dead)
        if found is not None:
            return found
    return {}


def _run_from(text: str, start: int, dead: set[int]) -> JsonSchema | None:
    """The hints of the sentences from `start` to the end, or None if one does not parse."""
    hints: JsonSchema = {}
    visited: list[int] = []
    at = start
    while at not in dead:
        visited.append(at)
        read = _sentence_at(text, at)
        if read is None:
            break
        end, found = read
        hints.update(found)
        if end == len(text):
            return hints
        if text[end] != " ":
            break
        at = end + 1
    dead.update(visited)
    return None


def _sentence_at(text: str, at: int) -> tuple[int, JsonSchema] | None:
    """The transform sentence starting at `at`: where it ends, and what it restores."""
    for pattern, read in _FIXED:
        found = pattern.match(text, at)
        if found and (found.end() == len(text) or text[found.end()] == " "):
            return found.end(), read(found)
    opening = _WITH_JSON.match(text, at)
    if opening is None:
        return None
    try:
        value, end = _DECODER.raw_decode(text, opening.end())
    except ValueError:
        return None
    if not text.startswith(".", end):
        return None
    return end + 1, ({opening[1]: value} if opening[1] else {})
