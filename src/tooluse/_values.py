"""Checks of the numbers users pass as settings (timeouts, limits), shared by their owners."""

from __future__ import annotations

__all__ = ["is_positive_number", "is_whole_number"]


def is_positive_number(value: object) -> bool:
    """Whether `value` is an int or float above zero (not a bool, not NaN).

    Args:
        value: The setting.

    Returns:
        True if it is.
    """
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def is_whole_number(value: object, least: int) -> bool:
    """Whether `value` is an int (not a bool) of at least `least`.

    Args:
        value: The setting.
        least: The smallest allowed.

    Returns:
        True if it is.
    """
    return isinstance(value, int) and not isinstance(value, bool) and value >= least
