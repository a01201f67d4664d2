"""`HandoffInputData`: what a handoff's `input_filter` is given, and the stock filters.

A filter receives the conversation in openai-agents' three parts (the run's input,
the items before the handing-off turn, that turn's items) and returns the same kind
of value, or a list of items. `HandoffInputData` also reads as the whole conversation
(a sequence of items), so a filter written over a list of items works unchanged.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias, overload

from ..core._context import RunContextWrapper
from ..core._items import Item

__all__ = ["HandoffInputData", "InputFilter", "filtered_history", "remove_all_tools"]


def _items(items: Iterable[Item]) -> list[Item]:
    # Item objects (`result.new_items`' kind) become the dicts they read as.
    return [item if isinstance(item, dict) else dict(item) for item in items]


@dataclass(frozen=True)
class HandoffInputData(Sequence[Item]):
    """The conversation a handoff passes on, in parts; it reads as the whole, in order."""

    input_history: str | tuple[Item, ...]
    """The run's input: the user's text, or items."""
    pre_handoff_items: tuple[Item, ...]
    """What the run added before the turn that handed off (item objects)."""
    new_items: tuple[Item, ...]
    """The turn that handed off: its messages, calls, and the handoff's answer."""
    run_context: RunContextWrapper[Any] | None = None
    """The run's context."""

    def conversation(self) -> list[Item]:
        """The whole conversation, as the next agent gets it: dicts, in order.

        Returns:
            A new list.
        """
        history = self.input_history
        given = [{"role": "user", "content": history}] if isinstance(history, str) else history
        return [*_items(given), *_items(self.pre_handoff_items), *_items(self.new_items)]

    def clone(self, **changes: Any) -> HandoffInputData:
        """A copy with `changes` made (`input_history=...`, `new_items=...`).

        Args:
            **changes: The fields to change.

        Returns:
            The copy.
        """
        return dataclasses.replace(self, **changes)

    def __len__(self) -> int:
        return len(self.conversation())

    @overload
    def __getitem__(self, index: int) -> Item: ...
    @overload
    def __getitem__(self, index: slice) -> list[Item]: ...
    def __getitem__(self, index: int | slice) -> Item | list[Item]:
        return self.conversation()[index]

    def __iter__(self) -> Iterator[Item]:
        return iter(self.conversation())

    def __add__(self, other: Iterable[Item]) -> list[Item]:
        return [*self.conversation(), *other]


InputFilter: TypeAlias = (
    Callable[[HandoffInputData], HandoffInputData] | Callable[[list[Item]], Sequence[Item]]
)
"""A handoff's `input_filter`: openai-agents' (`HandoffInputData` in and out) or a list's."""


def filtered_history(data: HandoffInputData, input_filter: Callable[..., Any]) -> list[Item]:
    """The conversation the next agent sees: `data` through `input_filter`.

    Args:
        data: The conversation at the handoff.
        input_filter: The handoff's filter.

    Returns:
        The items, as dicts.

    Raises:
        TypeError: The filter returned neither `HandoffInputData` nor a sequence of items.
    """
    filtered = input_filter(data)
    if isinstance(filtered, HandoffInputData):
        return filtered.conversation()
    if isinstance(filtered, Sequence) and not isinstance(filtered, str):
        return _items(filtered)  # pyright: ignore[reportUnknownArgumentType]
    raise TypeError(
        f"handoff input_filter {getattr(input_filter, '__name__', input_filter)!r} returned "
        f"a {type(filtered).__name__}: return a HandoffInputData, or a list of items"
    )


def _is_tool_item(item: Item) -> bool:
    kind = str(item.get("type", "message"))
    return kind.endswith(("_call", "_call_output")) or kind == "mcp_list_tools"


def remove_all_tools(data: HandoffInputData) -> HandoffInputData:
    """The conversation without tool calls and their outputs (handoffs' included).

    Args:
        data: The conversation at the handoff.

    Returns:
        The same, with every call and call output left out.
    """
    history = data.input_history
    if not isinstance(history, str):
        history = tuple(item for item in history if not _is_tool_item(item))
    return data.clone(
        input_history=history,
        pre_handoff_items=tuple(i for i in data.pre_handoff_items if not _is_tool_item(i)),
        new_items=tuple(i for i in data.new_items if not _is_tool_item(i)),
    )
