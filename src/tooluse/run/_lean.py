"""How a waiting run stays small: each trick the loop uses, named once, with its reason.

Thousands of runs may wait at once (on a model, on tools); every object a waiting
run keeps alive costs memory, and each one the cyclic garbage collector tracks is
scanned again at every full collection. The loop therefore keeps as few as it can.
The tricks that are functions are here; the steps call them instead of repeating
them with a comment each. Three are shapes of code, and are named here only:

- **No closure in a waiting frame.** A lambda, a nested function or a comprehension
  that reads a local turns that local into a cell, one more object alive while the
  frame waits: the steps call `later` (a partial) instead of a lambda, use plain
  loops where a comprehension would read a local, and move a comprehension that
  must read one into a small function of its own (`_unanswered` in `_turn.py`).
- **A coroutine returned, not awaited.** A method whose caller awaits it at once
  returns the coroutine of the step it stands for (`Run.body`, `Run._turns`,
  `ToolExecutor.call`) rather than being a coroutine itself: one frame less for
  the length of what it waits on.
- **Named tuples for what a turn makes.** `TurnPlan`, `ToolOutcome` and the next
  steps are `NamedTuple`s: cheaper to make than dataclasses, and made every turn.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

from typing_extensions import ParamSpec

__all__ = ["add_made", "later", "shared"]

T = TypeVar("T")
P = ParamSpec("P")


def later(function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> Callable[[], T]:
    """`function(*args, **kwargs)`, to be called later, without a closure.

    A partial holds its arguments itself; a lambda would make cells of them in the
    frame that made it, objects scanned while that frame waits.

    Args:
        function: What to call.
        *args: Its positional arguments.
        **kwargs: Its keyword arguments.

    Returns:
        A function of no arguments that makes the call.
    """
    return functools.partial(function, *args, **kwargs)


def shared(value: T, default: T) -> T:
    """`default` itself when `value` equals it: runs that set nothing share one instance.

    Args:
        value: What this run made (equal to `default` when it sets nothing).
        default: The one instance every such run holds instead.

    Returns:
        `default`, or `value` when it differs.
    """
    return default if value == default else value


def add_made(items: list[T] | None, item: T) -> list[T]:
    """Add `item` to `items`, making the list with its first item.

    A run with none of these (guardrail results, say) keeps no empty list alive while
    it waits.

    Args:
        items: The list so far; None before the first item.
        item: The item to add.

    Returns:
        The list, to keep in place of None.
    """
    if items is None:
        return [item]
    items.append(item)
    return items
