"""Where two requests first differ, as a path a reader can follow.

`first_difference(recorded, new)` walks both JSON values in step (dict keys in the
recorded order, then keys only the new one has; list items by index) and returns the
first path where they differ, e.g. `tools[2].parameters.properties.city`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ..schema._strict_rules import JsonValue

__all__ = ["ABSENT", "Difference", "first_difference", "shown"]

ABSENT = "<absent>"
"""How a value one side does not have is shown."""

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SHOWN = 300


@dataclass(frozen=True)
class Difference:
    """The first place two JSON values differ."""

    path: str
    """Where, e.g. `input[3].output`; empty for the values themselves."""
    recorded: JsonValue | str
    """The recorded value there, or `ABSENT`."""
    new: JsonValue | str
    """The new value there, or `ABSENT`."""


def first_difference(recorded: JsonValue, new: JsonValue, path: str = "") -> Difference | None:
    """The first path at which `new` differs from `recorded`, or None if they are equal.

    Args:
        recorded: The value in the cassette.
        new: The value now.
        path: The path of both values, for the result.

    Returns:
        The first difference, or None.
    """
    if isinstance(recorded, dict) and isinstance(new, dict):
        return _in_objects(recorded, new, path)
    if isinstance(recorded, list) and isinstance(new, list):
        return _in_lists(recorded, new, path)
    if recorded == new and type(recorded) is type(new):
        return None
    return Difference(path, recorded, new)


def _in_objects(
    recorded: dict[str, JsonValue], new: dict[str, JsonValue], path: str
) -> Difference | None:
    for key in [*recorded, *(k for k in new if k not in recorded)]:
        inner = _key_path(path, key)
        if key not in new or key not in recorded:
            return Difference(inner, recorded.get(key, ABSENT), new.get(key, ABSENT))
        found = first_difference(recorded[key], new[key], inner)
        if found is not None:
            return found
    return None


def _in_lists(recorded: list[JsonValue], new: list[JsonValue], path: str) -> Difference | None:
    for index in range(max(len(recorded), len(new))):
        inner = f"{path}[{index}]"
        if index >= len(new) or index >= len(recorded):
            old = recorded[index] if index < len(recorded) else ABSENT
            return Difference(inner, old, new[index] if index < len(new) else ABSENT)
        found = first_difference(recorded[index], new[index], inner)
        if found is not None:
            return found
    return None


def _key_path(path: str, key: str) -> str:
    if _NAME.match(key):
        return f"{path}.{key}" if path else key
    return f"{path}[{json.dumps(key)}]"


def shown(value: JsonValue | str) -> str:
    """A value as a mismatch shows it: JSON, cut to a few hundred characters."""
    text = value if value == ABSENT else json.dumps(value, ensure_ascii=False)
    assert isinstance(text, str)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."
