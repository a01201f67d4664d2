"""Running sync tools off the event loop, with the cheapest safe thread hop.

`asyncio.to_thread` goes through `concurrent.futures`: a `Future`, a work
item, a lock in `submit`, then a second future chained back onto the loop.
Here a call is one `_Job` on a queue (`_EventfdQueue` on Linux), picked up by
a small pool of daemon threads. Context variables are copied into the call, as `to_thread` does.

A worker hands the result back through the loop's `_Inbox`: a deque, and a pipe
the loop watches. `call_soon_threadsafe` would send a byte on asyncio's own
self-pipe socket, which the loop then receives until the socket is empty (a second
receive that raises); one `write` and one `read` cost about 13 us less CPU per
call. Loops that cannot watch a pipe (Windows, loops without `add_reader`) get
`call_soon_threadsafe`.

A job's state changes only under the pool's lock:

    queued ──> running ──> done       the worker delivers the result
       │          └──────> stuck      given up while running (timeout or cancellation)
       ├─────> cancelled              the caller was cancelled first: it never starts
       └─────> stopped                its `stop` event was set first: it never starts

The worker takes a job from queued to running as it picks it up, so a
cancelled job is skipped, never started. So is a job whose `stop` event is set:
the caller sets it before cancelling a batch of calls (a run that stopped), so
that a worker freed by one call's cancellation cannot start another queued call
of the batch before that call's own cancellation reaches the pool.

A timeout counts from the moment a job starts running: the worker stamps the
start time, and a timer on the loop (armed only for calls with a timeout) fires
after `timeout` seconds and re-arms for the time left if the call was still
queued or started late.

A thread cannot be stopped, so a stuck call keeps its thread until the
function returns. The pool stops counting that thread toward its cap and
starts a replacement at once: stuck calls never hold capacity that other calls
need. When the function returns, its result is dropped and
the thread rejoins the pool, or exits if the pool is full again. Daemon
threads, so stuck calls do not keep the interpreter from exiting.
"""

from __future__ import annotations

import asyncio
import collections
import contextvars
import logging
import os
import queue
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any, Literal

__all__ = ["CallTimedOut", "run_in_thread", "stuck_calls"]

_MAX_WORKERS = min(32, (os.cpu_count() or 1) + 4)

_logger = logging.getLogger("tooluse")

_State = Literal["queued", "running", "done", "cancelled", "stopped", "stuck"]


class CallTimedOut(Exception):
    """The function ran longer than its timeout (measured from when it started in a worker).

    The call was given up; its thread keeps running until the function returns.
    """

    timeout: float
    """The limit, in seconds."""
    label: str
    """What ran, as the caller named it."""

    def __init__(self, timeout: float, label: str = "function") -> None:
        super().__init__(timeout, label)
        self.timeout = timeout
        self.label = label

    def __str__(self) -> str:
        return f"{self.label} timed out after {self.timeout:g} s"


class _Job:
    """One call: what to run, where its result goes, and how far it got."""

    __slots__ = (
        "args",
        "context",
        "func",
        "future",
        "inbox",
        "kwargs",
        "label",
        "loop",
        "started",
        "state",
        "stop",
    )

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        func: Callable[..., Any],
        args: list[object],
        kwargs: dict[str, object],
        label: str,
        stop: threading.Event | None = None,
    ) -> None:
        self.loop = loop
        self.inbox = _inbox_for(loop)
        self.future: asyncio.Future[object] = loop.create_future()
        self.context = contextvars.copy_context()
        self.func = func
        self.args = args
        self.kwargs = kwargs
        self.label = label
        self.state: _State = "queued"
        self.started = 0.0  # time.monotonic() when a worker started the call
        self.stop = stop  # once set, the job never starts


class _EventfdQueue:
    """Jobs in a deque, counted by an eventfd in semaphore mode that idle workers block on.

    `SimpleQueue.put` wakes a worker while the loop still holds the GIL: the worker wakes
    only to wait for it, and on a shared CPU each call costs four more thread switches.
    `os.eventfd_write` lets the GIL go before it wakes the worker, which takes the GIL at
    once (a pinned hop: 26 -> 19 us of CPU). Linux only; elsewhere a `SimpleQueue`.
    """

    __slots__ = ("__weakref__", "_count", "_items")

    def __init__(self) -> None:
        self._items: collections.deque[_Job] = collections.deque()
        self._count = os.eventfd(0, os.EFD_SEMAPHORE | os.EFD_CLOEXEC)
        # Closed when a pool is replaced (after a fork), not at exit: a worker may wait on it.
        weakref.finalize(self, os.close, self._count).atexit = False

    def put(self, job: _Job) -> None:
        """Add `job` and wake one idle worker, if one waits."""
        self._items.append(job)  # before the count: a worker woken always finds its job
        os.eventfd_write(self._count, 1)

    def get(self) -> _Job:
        """Wait for a job, without the GIL, and take it."""
        os.eventfd_read(self._count)  # one job counted off
        return self._items.popleft()


def _job_queue() -> _EventfdQueue | queue.SimpleQueue[_Job]:
    return _EventfdQueue() if hasattr(os, "eventfd") else queue.SimpleQueue()


class _WorkerPool:
    """Daemon threads taking jobs from one queue; grows while no worker is idle."""

    def __init__(self, max_workers: int) -> None:
        self._max_workers = max_workers
        self._jobs = _job_queue()
        # One token per idle worker; SimpleQueue is implemented in C and cheaper than a
        # threading.Semaphore, which is Python code around a Condition.
        self._idle: queue.SimpleQueue[None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self.workers = 0
        """Threads counted toward the cap: idle, or running a call someone waits for."""
        self.stuck = 0
        """Threads running a call that was given up."""

    def submit(self, job: _Job) -> None:
        """Queue `job`, starting a worker if none is idle and the pool has room."""
        self._jobs.put(job)
        try:
            self._idle.get_nowait()
        except queue.Empty:
            self._add_worker()

    def time_left(self, job: _Job, timeout: float) -> float | None:
        """Seconds until `job` will have run for `timeout` seconds.

        Returns:
            The whole `timeout` while the job is queued, the rest of it (zero or
            less once overdue) while it runs, and None once nobody needs to watch it.
        """
        with self._lock:
            if job.state == "queued":
                return timeout
            if job.state != "running":
                return None
            return job.started + timeout - time.monotonic()

    def abandon(self, job: _Job) -> int | None:
        """Give up `job`: if queued it never starts; if running it becomes stuck.

        Returns:
            How many calls are stuck now if `job` became stuck, else None.
        """
        with self._lock:
            if job.state == "queued":
                job.state = "cancelled"
                return None
            if job.state != "running":
                return None
            job.state = "stuck"
            self.workers -= 1
            self.stuck += 1
            stuck = self.stuck
        # Replace the thread now, even with no call waiting: idle tokens are a hint, and
        # one put back by this thread before it took the job is stale. A later call that
        # took it would wait for a worker that never comes.
        self._add_worker()
        return stuck

    def _add_worker(self) -> None:
        with self._lock:
            if self.workers >= self._max_workers:
                return
            self.workers += 1
        threading.Thread(target=self._work, name="tooluse-worker", daemon=True).start()

    def _work(self) -> None:
        while self._serve(self._jobs.get()):
            pass

    def _serve(self, job: _Job) -> bool:
        """Run one job; False when this thread should exit."""
        if not self._start(job):
            self._idle.put(None)  # a cancelled job, skipped: idle again
            if job.state == "stopped":
                _deliver(job, _set_cancelled, None)
            return True
        try:
            setter, value = _set_result, job.context.run(job.func, *job.args, **job.kwargs)
        except BaseException as error:
            setter, value = _set_exception, error
        if not self._finish(job):
            return self._rejoin(job.label)
        # Idle before the caller hears back, or its next call would find no idle
        # worker and start another thread.
        self._idle.put(None)
        _deliver(job, setter, value)
        return True

    def _start(self, job: _Job) -> bool:
        """Take `job` from queued to running; False if it was cancelled."""
        self._lock.acquire()  # not `with`: twice per call, and `with` doubles the cost
        try:
            if job.state != "queued":
                return False
            if job.stop is not None and job.stop.is_set():
                job.state = "stopped"
                return False
            job.started = time.monotonic()
            job.state = "running"
            return True
        finally:
            self._lock.release()

    def _finish(self, job: _Job) -> bool:
        """Take `job` from running to done; False if it was given up meanwhile."""
        self._lock.acquire()
        try:
            if job.state == "stuck":
                return False
            job.state = "done"
            return True
        finally:
            self._lock.release()

    def _rejoin(self, label: str) -> bool:
        """After a stuck call returned: rejoin the pool if it has room, else exit."""
        with self._lock:
            self.stuck -= 1
            stuck = self.stuck
            rejoin = self.workers < self._max_workers
            if rejoin:
                self.workers += 1
        outcome = "rejoins the pool" if rejoin else "exits"
        _logger.debug(
            "Stuck call to %s returned; its thread %s. Stuck calls now: %d", label, outcome, stuck
        )
        if rejoin:
            self._idle.put(None)
        return rejoin


class _Deadline:
    """Gives up a job `timeout` seconds after it started in a worker.

    A timer on the loop: when it fires early (the job was queued, or started
    after the timer was armed) it re-arms for the time left.
    """

    __slots__ = ("_handle", "_job", "_on_abandon", "_pool", "_timeout")

    def __init__(
        self,
        pool: _WorkerPool,
        job: _Job,
        timeout: float,
        on_abandon: Callable[[], None] | None,
    ) -> None:
        if not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
        self._pool = pool
        self._job = job
        self._timeout = timeout
        self._on_abandon = on_abandon
        self._handle = job.loop.call_later(timeout, self._fire)

    def cancel(self) -> None:
        """Stop watching: the caller has its answer."""
        self._handle.cancel()

    def _fire(self) -> None:
        job = self._job
        left = self._pool.time_left(job, self._timeout)
        if left is None:  # done, cancelled, or already given up
            return
        if left > 0:
            self._handle = job.loop.call_later(left, self._fire)
            return
        stuck = self._pool.abandon(job)
        if stuck is None:  # it returned just now
            return
        if not job.future.done():
            job.future.set_exception(CallTimedOut(self._timeout, job.label))
        _gave_up(job.label, f"timed out after {self._timeout:g} s", stuck, self._on_abandon)


def _gave_up(label: str, why: str, stuck: int, on_abandon: Callable[[], None] | None) -> None:
    """Warn that a running call was given up, and tell its owner through `on_abandon`."""
    _logger.warning(
        "Gave up on %s (%s); its thread cannot be stopped and keeps running until the "
        "function returns. Stuck calls now: %d",
        label,
        why,
        stuck,
    )
    if on_abandon is not None:
        try:
            on_abandon()
        except Exception:  # the caller must still see its timeout or cancellation
            _logger.exception("on_abandon for %s failed", label)


_Setter = Callable[[asyncio.Future[object], Any], None]  # a result, or an exception


class _Inbox:
    """Results workers leave for one event loop, and the pipe that wakes the loop."""

    __slots__ = ("_reader", "_results", "_writer")

    def __init__(self, reader: int, writer: int) -> None:
        self._reader = reader
        self._writer = writer
        self._results: collections.deque[tuple[_Setter, asyncio.Future[object], object]] = (
            collections.deque()
        )

    def put(self, setter: _Setter, future: asyncio.Future[object], value: object) -> None:
        """From a worker: leave a result and wake the loop."""
        self._results.append((setter, future, value))
        try:  # noqa: SIM105 - on every call's path, where `with` costs more
            os.write(self._writer, b"\0")
        except BlockingIOError:  # the pipe is full: the loop has a wake-up pending already
            pass

    def drain(self) -> None:
        """On the loop, when the pipe is readable: set every result left so far."""
        # Read before taking results: a result left after this read comes with a byte
        # written after it, so the loop wakes again for it.
        try:  # noqa: SIM105
            os.read(self._reader, 4096)
        except BlockingIOError:  # woken with nothing to read: harmless
            pass
        results = self._results
        while results:
            setter, future, value = results.popleft()
            setter(future, value)


_inboxes: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Inbox | None] = (
    weakref.WeakKeyDictionary()
)


def _inbox_for(loop: asyncio.AbstractEventLoop) -> _Inbox | None:
    """The loop's inbox, opened on its first call; None: use `call_soon_threadsafe`."""
    try:
        return _inboxes[loop]
    except KeyError:
        inbox = _inboxes[loop] = _open_inbox(loop)
        return inbox
    except TypeError:  # a loop that takes no weak references: nothing would close the pipe
        return None


def _open_inbox(loop: asyncio.AbstractEventLoop) -> _Inbox | None:
    if os.name == "nt":  # select() there watches sockets only
        return None
    reader, writer = os.pipe()
    os.set_blocking(reader, False)
    os.set_blocking(writer, False)
    inbox = _Inbox(reader, writer)
    try:
        loop.add_reader(reader, inbox.drain)
    except NotImplementedError:
        _close_pipe(reader, writer)
        return None
    # The pipe lives as long as the loop: a closed loop no longer reads it, and a
    # worker still finishing a call for it holds the loop, so writes never fail.
    weakref.finalize(loop, _close_pipe, reader, writer)
    return inbox


def _close_pipe(reader: int, writer: int) -> None:
    os.close(reader)
    os.close(writer)


def _deliver(job: _Job, setter: _Setter, value: object) -> None:
    """From a worker: set `job`'s future on its loop, or drop the result if the loop closed."""
    if job.inbox is not None:
        job.inbox.put(setter, job.future, value)
        return
    # Not contextlib.suppress: on every call's path for these loops, where `with` costs more.
    try:  # noqa: SIM105
        job.loop.call_soon_threadsafe(setter, job.future, value)
    except RuntimeError:  # the loop closed: nobody waits for the result
        pass


def _set_result(future: asyncio.Future[object], value: object) -> None:
    if not future.done():
        future.set_result(value)


def _set_exception(future: asyncio.Future[object], error: BaseException) -> None:
    if not future.done():
        future.set_exception(error)


def _set_cancelled(future: asyncio.Future[object], _: object) -> None:
    if not future.done():
        future.cancel()


_pool = _WorkerPool(_MAX_WORKERS)


def _reset_after_fork() -> None:
    global _pool  # noqa: PLW0603 - a forked child has none of the parent's threads
    _pool = _WorkerPool(_MAX_WORKERS)
    _inboxes.clear()  # pipes shared with the parent: reading one would take its wake-ups


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


async def run_in_thread(
    func: Callable[..., Any],
    args: list[object],
    kwargs: dict[str, object],
    *,
    timeout: float | None = None,
    label: str = "function",
    on_abandon: Callable[[], None] | None = None,
    stop: threading.Event | None = None,
) -> Any:
    """Call `func(*args, **kwargs)` in a worker thread and await its result.

    If the awaiting task is cancelled before the call starts, it never starts.
    A call given up while running (cancelled, or past its timeout) cannot be
    stopped: it is logged as stuck and its result is dropped when it returns.

    Args:
        func: A sync callable.
        args: Positional arguments.
        kwargs: Keyword arguments.
        timeout: Seconds the call may run, counted from when it starts in a
            worker (time spent queued does not count). None: no limit.
        label: What to call `func` in the log and in `CallTimedOut`.
        on_abandon: Called on the event loop's thread when a running call is
            given up, so the function can be told to stop (e.g. by an Event).
        stop: Once set, the call never starts if it has not yet (it is cancelled).
            Set it before cancelling several calls at once, so that none of them
            starts in a thread another one's cancellation freed.

    Returns:
        What `func` returned; what it raised is raised here.

    Raises:
        CallTimedOut: If the call ran longer than `timeout`.
        ValueError: If `timeout` is not a positive number.
    """
    loop = asyncio.get_running_loop()
    job = _Job(loop, func, args, kwargs, label, stop)
    pool = _pool  # the same pool all along, even if a test or a fork replaces it
    deadline = None if timeout is None else _Deadline(pool, job, timeout, on_abandon)
    pool.submit(job)
    try:
        return await job.future
    except asyncio.CancelledError:
        stuck = pool.abandon(job)
        if stuck is not None:
            _gave_up(label, "cancelled", stuck, on_abandon)
        raise
    finally:
        if deadline is not None:
            deadline.cancel()


def stuck_calls() -> int:
    """How many calls were given up while running and have not returned yet.

    Returns:
        The number of worker threads still running a given-up call.
    """
    return _pool.stuck
