"""The buffer between a streamed run and the code reading its events.

The run puts events without waiting (a put is an append), so that every step
that reports something stays synchronous. The reader takes them in batches:
all that wait move to `ready` at once, and it pops them from there (a deque
pop per event, no call into the buffer). The model's stream is where the run
waits: when half the bound waits to be taken, it reads no further from the
model until the reader has gone through its batch and taken them. So at most
the bound waits, made but not yet read, and the model reads on once the reader
has read half of it: a slow reader slows the model's stream instead of growing
memory. The other events (items, usage, guardrail results) are a few per turn
and never wait, so the buffer holds at most its bound plus those.

The bound holds only while a reader is attached and reading: from the start of
a `stream_events()` loop until that loop ends, is left, or the task running it
ends, and only while the loop keeps taking events: a run that has waited
`READER_PATIENCE` seconds while the reader took nothing reads on unbounded
until the reader takes its next batch. So the run never waits for good on a
reader that is not there (nobody may ever come: a caller that only polls
`is_complete`; a loop left unclosed and kept, in a task that goes on with other
work), and the events it makes meanwhile wait, all of them, for a later read. A
reader that is there but blocked (one writing each event to a client that stopped
reading) attaches with no patience: the run then waits for it as long as it stays
attached, and is cancelled when its loop is left.

The end of the events is put when the run ends however it ends, and never waits.
"""

from __future__ import annotations

import asyncio
import math
import sys
from collections import deque

from ._stream_events import RunStreamEvent

__all__ = ["STREAM_BUFFER_SIZE", "EventBuffer"]

STREAM_BUFFER_SIZE = 1024
"""How many events a streamed run lets wait for its reader before the model's stream waits."""

READER_PATIENCE = 1.0
"""Seconds a full buffer waits on a reader that takes nothing before the run reads on."""

_UNBOUNDED = sys.maxsize


class EventBuffer:
    """Events waiting for the reader of a streamed run; None ends them."""

    __slots__ = (
        "_arrived",
        "_bound",
        "_events",
        "_limit",
        "_patience",
        "_reader",
        "_reading",
        "_room",
        "_token",
        "ready",
    )

    def __init__(self, bound: int = STREAM_BUFFER_SIZE) -> None:
        """An empty buffer, with no reader attached.

        Args:
            bound: How many events may wait, while a reader is attached: a put says the
                buffer is full when half of them wait to be taken (the other half may be
                in the reader's batch).
        """
        self._bound = bound
        self._limit = _UNBOUNDED  # half the bound while a reader is attached and reading
        self._patience: float | None = None  # the attached reader's; None: READER_PATIENCE
        self._reading = False  # a loop is attached (its task may have ended: see refill)
        self._events: deque[RunStreamEvent | None] = deque()  # put, not yet taken
        self.ready: deque[RunStreamEvent | None] = deque()
        """The reader's batch: taken by `refill()`, popped from the left by the reader."""
        self._reader: asyncio.Task[object] | None = None  # the task reading, if attached
        self._token: object | None = None  # the attached loop (an older one must not detach it)
        self._arrived: asyncio.Future[None] | None = None  # the reader waits for an event
        self._room: asyncio.Future[None] | None = None  # the run waits for room

    def __len__(self) -> int:
        return len(self._events) + len(self.ready)

    @property
    def reader(self) -> asyncio.Task[object] | None:
        """The task of the attached reader, if one is attached."""
        return self._reader

    def attach(self, task: asyncio.Task[object], patience: float | None = None) -> object:
        """Bound the buffer while `task` reads it (replacing any reader attached before).

        Args:
            task: The task that reads; should it end while still attached (its loop
                left without being closed), the reader is detached then.
            patience: Seconds a full buffer waits while the reader takes nothing,
                before the run reads on unbounded; None (for `READER_PATIENCE`, the
                default) or `math.inf` to wait as long as the reader is attached.

        Returns:
            The reader's token, for `detach`.
        """
        if self._reader is not None:
            self._reader.remove_done_callback(self._reader_ended)
        self._reader, self._token = task, object()
        self._patience = patience
        self._reading = True
        self._limit = max(self._bound // 2, 1)
        task.add_done_callback(self._reader_ended)
        return self._token

    def detach(self, token: object) -> None:
        """Lift the bound if `token`'s reader is still attached, letting a waiting run read on.

        Args:
            token: What `attach` returned to the reader whose reading stopped.
        """
        if token is not self._token or self._reader is None:
            return  # a reader attached since: the bound is now the later reader's
        self._reader.remove_done_callback(self._reader_ended)
        self._reader = self._token = None
        self._reading = False
        self._lift()

    def _reader_ended(self, task: asyncio.Task[object]) -> None:
        # The loop's task ended, the loop perhaps not: `wait_for(anext(events))` reads each
        # event in a task of its own before 3.12. Unbounded until the loop takes again.
        if task is self._reader:
            self._reader = None
            self._lift()

    def _lift(self) -> None:
        """Stop bounding, and let a run waiting for room read on."""
        self._limit = _UNBOUNDED
        self._room, room = None, self._room
        _wake(room)

    def put(self, event: RunStreamEvent | None) -> bool:
        """Add an event (None: the end), waking the reader if it waits; never waits itself.

        Returns:
            Whether the buffer is full: the model's stream should then await `room()`.
        """
        events = self._events
        events.append(event)
        if self._arrived is not None:
            self._arrived, arrived = None, self._arrived
            _wake(arrived)
        return len(events) >= self._limit

    async def room(self) -> None:
        """Wait until the reader takes what waits, leaves, or stops taking (one waiter: the run).

        A reader that takes nothing from its batch for its patience (`READER_PATIENCE`
        seconds unless it attached with another) is not reading (a loop left and kept
        unclosed looks like one): the bound is lifted until it takes its next batch.
        """
        loop = asyncio.get_running_loop()
        while len(self._events) >= self._limit:
            room = self._room = loop.create_future()
            in_batch = len(self.ready)
            patience = READER_PATIENCE if self._patience is None else self._patience
            timer = None if patience == math.inf else loop.call_later(patience, _wake, room)
            try:
                await room
            finally:
                if timer is not None:
                    timer.cancel()
            if self._room is room and len(self.ready) >= in_batch:
                self._lift()  # the patience ran out with nothing taken

    def refill(self) -> bool:
        """Move every waiting event to `ready`, waking the run if it waits for room.

        Returns:
            Whether any event waited (if none did, await `arrival()`).
        """
        events = self._events
        if not events:
            return False
        self.ready.extend(events)
        events.clear()
        if self._reading:  # bound again, should the patience or the reader's task have ended
            self._limit = max(self._bound // 2, 1)
        if self._room is not None:
            self._room, room = None, self._room
            _wake(room)
        return True

    async def arrival(self) -> None:
        """Wait until an event waits to be taken (one waiter: the attached reader)."""
        while not self._events:
            self._arrived = asyncio.get_running_loop().create_future()
            await self._arrived


def _wake(waiter: asyncio.Future[None] | None) -> None:
    if waiter is not None and not waiter.done():
        waiter.set_result(None)
