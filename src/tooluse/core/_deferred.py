"""Dataclass fields computed on first read: how `@function_tool` defers its schema.

Building a tool's pydantic model and JSON schema is most of what decorating
costs. A module of tools imported by a CLI, or a cold serverless start, should
pay only for the tools it uses: the decorator checks the signature at once and
leaves these fields unset; the first read builds them.

`deferred_fields(cls, complete, *names)` installs, for each name, a non-data
descriptor: while the instance's `__dict__` holds the value, the descriptor is
never consulted (a read costs what any attribute read costs); once the value is
removed with `defer`, the next read calls `complete(instance)`, which stores
the values in `__dict__`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["defer", "deferred_fields"]


class _Deferred:
    """A field whose value `complete(instance)` puts in the instance's `__dict__`."""

    __slots__ = ("_complete", "_name")

    def __init__(self, name: str, complete: Callable[[Any], None]) -> None:
        self._name = name
        self._complete = complete

    def __get__(self, instance: object, owner: type[Any] | None = None) -> Any:
        if instance is None:
            # Read on the class (as `dataclass` does for a default): the field has none.
            raise AttributeError(self._name)
        self._complete(instance)
        return vars(instance)[self._name]


def deferred_fields(cls: type[Any], complete: Callable[[Any], None], *names: str) -> None:
    """Let the fields `names` of the dataclass `cls` be computed on first read.

    Args:
        cls: The dataclass (after `@dataclass` made it).
        complete: Stores every deferred field of an instance in its `__dict__`.
        names: The fields.
    """
    for name in names:
        setattr(cls, name, _Deferred(name, complete))


def defer(instance: object, *names: str) -> None:
    """Forget the values of the deferred fields `names`, so that the next read completes them.

    Args:
        instance: An instance of a class given to `deferred_fields`.
        names: Fields of it given to `deferred_fields`.
    """
    values = vars(instance)
    for name in names:
        del values[name]
