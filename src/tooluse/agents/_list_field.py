"""`ListField`: a dataclass field that takes any sequence and holds a list.

`Agent.tools` and `Agent.handoffs` are lists, as in openai-agents, so code that appends
to them type-checks; yet a `list[FunctionTool]` or `list[Agent]` of the caller's own must
be accepted, which a `list[Tool | ...]` parameter refuses (list is invariant). A
descriptor gives both: the synthesized `__init__` takes its `__set__` type (a
`Sequence`), the attribute reads as its `__get__` type (a `list`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Generic, TypeVar, cast, overload

__all__ = ["ListField"]

T = TypeVar("T")


class ListField(Generic[T]):
    """A field taking a sequence and holding it as a list (a list given is kept, not copied).

    Its default is an empty tuple, made a new list for each instance, so instances never
    share a default list. Anything that is not a sequence is stored as given, for the
    owner's checks to refuse with a message naming it.
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name
        self._key = f"_{name}_list"

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> Sequence[T]: ...
    @overload
    def __get__(self, instance: object, owner: type | None = None) -> list[T]: ...
    def __get__(self, instance: object | None, owner: type | None = None) -> Sequence[T]:
        if instance is None:  # the dataclass reads the default here
            return ()
        try:
            return instance.__dict__[self._key]
        except KeyError:
            raise AttributeError(self._name) from None

    def __set__(self, instance: object, value: Sequence[T]) -> None:
        stored = cast(object, value)  # callers may pass anything at run time
        if isinstance(stored, Sequence) and not isinstance(stored, (str, list)):
            stored = list(cast("Sequence[object]", stored))
        instance.__dict__[self._key] = stored
