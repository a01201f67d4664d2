"""The buffer between a streamed run and the code reading its events.

The run puts events without waiting (a put is an append), so that every step
that reports something stays synchronous. The model's stream is where the run
waits: when a raw event it passes on fills the buffer, it reads no further
from the model until the consumer has taken half of what waits. A slow
consumer therefore slows the model's stream instead of growing memory. The
other events (items, usage, guardrail results) are a few per turn and never
wait, so the buffer holds at most its bound plus those.

The end of the events is put when the run ends however it ends, and never waits.
"""

from __future__ import annotations

import asyncio
from collections import deque

from ._stream_events import RunStreamEvent

__all__ = ["STREAM_BUFFER_SIZE", "EventBuffer"]

STREAM_BUFFER_SIZE = 1024
"""How many events a streamed run lets wait for its consumer before the model's stream waits."""


class EventBuffer:
    """Events waiting for the consumer of a streamed run; None ends them."""

    __slots__ = ("_bound", "_events", "_reader", "_writer")

    def __init__(self, bound: int = STREAM_BUFFER_SIZE) -> None:
        """An empty buffer.

        Args:
            bound: How many events may wait before `full()` is true.
        """
        self._bound = bound
        self._events: deque[RunStreamEvent | None] = deque()
        self._reader: asyncio.Future[None] | None = None  # the consumer, waiting for an event
        self._writer: asyncio.Future[None] | None = None  # the run, waiting for room

    def __len__(self) -> int:
        return len(self._events)

    def put(self, event: RunStreamEvent | None) -> bool:
        """Add an event (None: the end), waking the consumer if it waits; never waits itself.

        Returns:
            Whether the buffer is full: the model's stream should then await `room()`.
        """
        events = self._events
        events.append(event)
        if self._reader is not None:
            self._reader, reader = None, self._reader
            if not reader.done():
                reader.set_result(None)
        return len(events) >= self._bound

    async def room(self) -> None:
        """Wait until the consumer has taken half of the waiting events (one waiter: the run)."""
        while len(self._events) >= self._bound:
            self._writer = asyncio.get_running_loop().create_future()
            await self._writer

    def take(self) -> RunStreamEvent | None:
        """The oldest waiting event; wakes the run if it waits for room and now has it.

        Raises:
            IndexError: If no event waits (then await `arrival()`).
        """
        event = self._events.popleft()
        if self._writer is not None and len(self._events) <= self._bound // 2:
            self._writer, writer = None, self._writer
            if not writer.done():
                writer.set_result(None)
        return event

    async def arrival(self) -> None:
        """Wait until an event waits (one waiter: the consumer)."""
        while not self._events:
            self._reader = asyncio.get_running_loop().create_future()
            await self._reader
