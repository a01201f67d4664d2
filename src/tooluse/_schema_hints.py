"""Constraints a strict schema keeps only in words, read back from its descriptions.

The strict transform moves keywords strict mode refuses (`minLength`,
`uniqueItems`, an unknown `format`, ...) into the description in plain words,
and rewrites some types (a dict as key/value pairs, a value of any type as JSON
text); pydantic still enforces the original constraints on the arguments.
`with_hints(node)` restores them as keywords, so that a value made for the node
satisfies what the tool will check.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ._strict import JSON_NOTE, PAIRS_NOTE

__all__ = ["UNIQUE_KEYS", "with_hints"]

UNIQUE_KEYS = "x-tooluse-unique-keys"
"""A keyword for arrays of key/value pairs: no two items may share a `key`."""

_NUMBERED = (
    (re.compile(r"At least (\d+) characters long\."), "minLength"),
    (re.compile(r"At most (\d+) characters long\."), "maxLength"),
    (re.compile(r"At least (\d+) entries\."), "minProperties"),
    (re.compile(r"At most (\d+) entries\."), "maxProperties"),
)
_FORMAT = re.compile(r"Format: (\S+?)\.(?:\s|$)")
_SATISFY = re.compile(r"Must satisfy ([\w$-]+): ")
_DECODER = json.JSONDecoder()


def with_hints(node: dict[str, Any]) -> dict[str, Any]:
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


def _hints(description: str) -> dict[str, Any]:
    hints: dict[str, Any] = {}
    for pattern, keyword in _NUMBERED:
        found = pattern.search(description)
        if found:
            hints[keyword] = int(found[1])
    found = _FORMAT.search(description)
    if found:
        hints["format"] = found[1]
    if "Items must be unique." in description:
        hints["uniqueItems"] = True
    if PAIRS_NOTE in description:
        hints[UNIQUE_KEYS] = "key"
    if JSON_NOTE in description:
        hints.update(contentMediaType="application/json", contentSchema={})
    hints.update(_satisfied(description))
    return hints


def _satisfied(description: str) -> dict[str, Any]:
    """`Must satisfy key: <JSON>.` sentences, as keywords."""
    found: dict[str, Any] = {}
    for match in _SATISFY.finditer(description):
        try:
            value, _ = _DECODER.raw_decode(description, match.end())
        except ValueError:
            continue
        found[match[1]] = value
    return found
