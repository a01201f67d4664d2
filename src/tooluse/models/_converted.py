"""The conversation converted so far in a run, so that each request converts only new items.

A run's history only grows between its model calls: each request's input is the
last one's with the response and the tool outputs added. A `Converted` keeps
what the items sent so far became in an API's form, and the items themselves
(references, not copies); the next request converts only what follows them.

It is reused while the new input starts with the items it converted (compared
as a list, at the speed of a memory scan for the same objects; equal items
convert alike). A history that changed otherwise (a context policy's trim, a
handoff's `input_filter`, a resumed run, items taken out) is converted again from
the first item that differs, when the state can be taken back to just before it
(`Rewindable`: the state notes where each item's conversion began), else from
its start. An item is read once: one edited in place after it was sent is not
read again (replace it instead, as an `input_filter` and a trim do). A
conversion that fails forgets everything, so the next request starts over and
reports the same error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, Protocol, TypeVar, cast, runtime_checkable

from ..core._items import Item

__all__ = ["Converted", "Rewindable", "converted", "first_difference"]

S = TypeVar("S")
"""What the conversion carries from one item to the next (e.g. the messages so far)."""


@runtime_checkable
class Rewindable(Protocol):
    """A conversion's state that can be taken back to what an earlier item left."""

    def rewind(self, index: int) -> None:
        """Undo the conversion of the items from `index` on.

        Args:
            index: The first item to undo, below the number converted.
        """
        ...


class Converted(Generic[S]):
    """One run's conversation in one API's form, extended as the conversation grows."""

    __slots__ = ("items", "start", "state")

    def __init__(self, start: Callable[[], S]) -> None:
        self.start = start
        self.items: list[Item] = []
        """The items converted so far, in order."""
        self.state: S = start()
        """What they became."""

    def extend(self, items: list[Item], convert: Callable[[S, list[Item], int], None]) -> S:
        """Convert what `items` holds past the items converted so far.

        Args:
            items: The whole conversation.
            convert: Adds `items[first:]` to the state (called as `convert(state,
                items, first)`), raising for an item it cannot convert.

        Returns:
            The state, for the whole conversation.
        """
        done = len(self.items)
        if len(items) < done or items[:done] != self.items:  # not the conversation we had
            done = first_difference(self.items, items)
            if done and isinstance(self.state, Rewindable):
                self.state.rewind(done)
                del self.items[done:]
            else:
                self.items, self.state, done = [], self.start(), 0
        if len(items) > done:
            try:
                convert(self.state, items, done)
            except BaseException:
                self.items, self.state = [], self.start()
                raise
            self.items.extend(items[done:])
        return self.state


def first_difference(old: list[Item], new: list[Item]) -> int:
    """Where two conversations first differ (the same objects, or equal items, agree).

    Args:
        old: One conversation.
        new: The other.

    Returns:
        The first position where they differ; the shorter one's length if one starts
        the other.
    """
    low, high = 0, min(len(old), len(new))
    # Halving by whole slices, each compared at C speed: a trim changes one item
    # among hundreds, and each comparison of the same objects is a pointer check.
    while low < high:
        middle = (low + high + 1) // 2
        if old[low:middle] == new[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def converted(
    memo: dict[object, object] | None, key: object, start: Callable[[], S]
) -> Converted[S]:
    """The run's `Converted` kept under `key` in a request's memo; a fresh one without a memo.

    Args:
        memo: The request's `memo`: one run's, or None outside a run.
        key: What it is kept under (one per form).
        start: Makes the state for an empty conversation.

    Returns:
        The conversion.
    """
    if memo is None:
        return Converted(start)
    found = memo.get(key)
    if found is None:
        found = memo[key] = Converted(start)
    return cast("Converted[S]", found)  # a key keeps one form's conversion, made by `start`
