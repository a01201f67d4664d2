"""Running sync tools off the event loop, with the cheapest safe thread hop.

`asyncio.to_thread` goes through `concurrent.futures`: a `Future`, a work
item, a lock in `submit`, then a second future chained back onto the loop.
Here a call is one tuple on a `SimpleQueue`, picked up by a small pool of
daemon threads, and its result is set on the asyncio future directly through
`call_soon_threadsafe`. Context variables are copied into the call, as
`to_thread` does. Daemon threads, because a sync tool abandoned after a
timeout must not keep the interpreter from exiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import queue
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["run_in_thread"]

_MAX_WORKERS = min(32, (os.cpu_count() or 1) + 4)

_Job = tuple[
    asyncio.AbstractEventLoop,
    "asyncio.Future[Any]",
    contextvars.Context,
    Callable[..., Any],
    list[Any],
    dict[str, Any],
]


class _WorkerPool:
    """Daemon threads taking jobs from one queue; grows while no worker is idle."""

    def __init__(self, max_workers: int) -> None:
        self._max_workers = max_workers
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        # One token per idle worker; SimpleQueue is implemented in C and cheaper than a
        # threading.Semaphore, which is Python code around a Condition.
        self._idle: queue.SimpleQueue[None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._workers = 0

    def submit(self, job: _Job) -> None:
        self._jobs.put(job)
        try:
            self._idle.get_nowait()
        except queue.Empty:
            self._add_worker()

    def _add_worker(self) -> None:
        with self._lock:
            if self._workers >= self._max_workers:
                return
            self._workers += 1
        threading.Thread(target=self._work, name="tooluse-worker", daemon=True).start()

    def _work(self) -> None:
        while True:
            loop, future, context, func, args, kwargs = self._jobs.get()
            try:
                result = context.run(func, *args, **kwargs)
            except BaseException as error:
                setter, value = _set_exception, error
            else:
                setter, value = _set_result, result
            # Idle before the caller hears back, or its next call would find no idle
            # worker and start another thread.
            self._idle.put(None)
            _deliver(loop, future, setter, value)
            del loop, future, context, func, args, kwargs, setter, value


def _deliver(
    loop: asyncio.AbstractEventLoop,
    future: asyncio.Future[Any],
    setter: Callable[[asyncio.Future[Any], Any], None],
    value: Any,
) -> None:
    with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits for the result
        loop.call_soon_threadsafe(setter, future, value)


def _set_result(future: asyncio.Future[Any], value: Any) -> None:
    if not future.done():
        future.set_result(value)


def _set_exception(future: asyncio.Future[Any], error: BaseException) -> None:
    if not future.done():
        future.set_exception(error)


_pool = _WorkerPool(_MAX_WORKERS)


def _reset_after_fork() -> None:
    global _pool  # noqa: PLW0603 - a forked child has none of the parent's threads
    _pool = _WorkerPool(_MAX_WORKERS)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


async def run_in_thread(func: Callable[..., Any], args: list[Any], kwargs: dict[str, Any]) -> Any:
    """Call `func(*args, **kwargs)` in a worker thread and await its result.

    Args:
        func: A sync callable.
        args: Positional arguments.
        kwargs: Keyword arguments.

    Returns:
        What `func` returned; what it raised is raised here.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    _pool.submit((loop, future, contextvars.copy_context(), func, args, kwargs))
    return await future
