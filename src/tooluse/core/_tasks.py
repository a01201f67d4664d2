"""Awaiting a write to its end, even when the task awaiting it is cancelled.

A database write runs in a thread that a cancellation cannot stop: the write may
commit after the awaiting task has given up on it. What the run records about
the write (what a session holds, whether a claim is taken) must follow what
the database did, so the awaiting task waits for the write's end, then lets the
cancellation go on.
"""

from __future__ import annotations

import asyncio
from typing import Any, TypeVar

__all__ = ["succeeded", "to_the_end"]

T = TypeVar("T")


async def to_the_end(task: asyncio.Future[T]) -> T:
    """Wait for `task` however often the caller is cancelled meanwhile.

    Args:
        task: The write, already started.

    Returns:
        Its result.

    Raises:
        asyncio.CancelledError: If the caller was cancelled while waiting: raised once the
            task has ended (its outcome is in the task).
    """
    cancelled = False
    while not task.done():
        try:
            await asyncio.wait({task})
        except asyncio.CancelledError:  # noqa: PERF203 - looped only if cancelled
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError
    return task.result()


def succeeded(task: asyncio.Future[Any]) -> bool:
    """Whether a finished task returned (rather than raised or was cancelled)."""
    return task.done() and not task.cancelled() and task.exception() is None
