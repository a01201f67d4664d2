"""Checks of the values users pass as settings (numbers, settings objects), shared by owners."""

from __future__ import annotations

import math
from dataclasses import fields
from typing import Any, TypeVar, cast

from ._errors import UserError

__all__ = ["fields_set", "from_fields", "is_number", "is_positive_number", "is_whole_number"]

T = TypeVar("T")


def is_positive_number(value: object) -> bool:
    """Whether `value` is an int or float above zero (not a bool, not NaN).

    Args:
        value: The setting.

    Returns:
        True if it is.
    """
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def is_number(value: object, least: float, most: float = math.inf, *, finite: bool = True) -> bool:
    """Whether `value` is an int or float (not a bool) from `least` to `most`; NaN never is.

    Args:
        value: The setting.
        least: The smallest allowed.
        most: The largest allowed.
        finite: Whether infinity is refused even where `most` allows it.

    Returns:
        True if it is.
    """
    if not isinstance(value, int | float) or isinstance(value, bool):
        return False
    return least <= value <= most and (math.isfinite(value) or not finite)


def is_whole_number(value: object, least: int) -> bool:
    """Whether `value` is an int (not a bool) of at least `least`.

    Args:
        value: The setting.
        least: The smallest allowed.

    Returns:
        True if it is.
    """
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def from_fields(where: str, cls: type[T], value: object, more: str = "") -> T:
    """A settings dataclass as given, or built from a dict of its fields, as openai-agents allows.

    Args:
        where: The argument, for the message (e.g. "Agent 'triage': model_settings").
        cls: The dataclass.
        value: An instance, or a dict of its field names.
        more: A sentence to add when the dict names fields that do not exist.

    Returns:
        The instance.

    Raises:
        UserError: The value is neither, or the dict names fields that do not exist.
    """
    if isinstance(value, cls):
        return value
    known = ", ".join(f.name for f in fields(cast(Any, cls)))
    if not isinstance(value, dict):
        raise UserError(
            f"{where}={value!r} must be a {cls.__name__}, or a dict of its fields ({known})"
        )
    given = cast("dict[str, Any]", value)
    unknown = [repr(name) for name in given if name not in known.split(", ")]
    if unknown:
        raise UserError(
            f"{where} has unknown field(s) {', '.join(unknown)}; {cls.__name__} has {known}.{more}"
        )
    return cls(**given)


def fields_set(settings: object, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """The fields of a settings dataclass that are not None: what it overrides when merged.

    Args:
        settings: The dataclass instance whose fields win where they are set.
        skip: Fields the caller merges its own way.

    Returns:
        Each such field's name and value.
    """
    return {
        f.name: value
        for f in fields(cast(Any, settings))
        if f.name not in skip and (value := getattr(settings, f.name)) is not None
    }
