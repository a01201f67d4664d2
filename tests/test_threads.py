"""Sync functions in worker threads: results, timeouts, cancellation and stuck calls.

Every test gets a fresh pool. Calls that block wait on the `gate` Event, which
is set at the end of each test, and the pool waits for its stuck calls to
return, so no thread outlives the test that started it.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import gc
import logging
import operator
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tooluse.tools import _threads
from tooluse.tools._threads import CallTimedOut, run_in_thread, stuck_calls

CAP = _threads._MAX_WORKERS  # pyright: ignore[reportPrivateUsage]
Pool = _threads._WorkerPool  # pyright: ignore[reportPrivateUsage]
Job = _threads._Job  # pyright: ignore[reportPrivateUsage]

request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id")


@pytest.fixture(autouse=True)
def pool(monkeypatch: pytest.MonkeyPatch) -> Iterator[Pool]:
    """A fresh pool for the test; afterwards, wait for its stuck calls to return."""
    fresh = Pool(CAP)
    monkeypatch.setattr(_threads, "_pool", fresh)
    yield fresh
    deadline = time.monotonic() + 5
    while fresh.stuck and time.monotonic() < deadline:
        time.sleep(0.001)


@pytest.fixture
def gate(pool: Pool) -> Iterator[threading.Event]:
    """An Event blocked calls wait on; set when the test ends."""
    event = threading.Event()
    yield event
    event.set()


async def eventually(condition: Callable[[], bool], seconds: float = 2.0) -> None:
    """Wait, yielding to the loop, until `condition()` holds; fail after `seconds`."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.001)


async def occupy_every_worker(gate: threading.Event) -> list[asyncio.Task[Any]]:
    """Start CAP calls that hold a worker each until `gate` is set."""
    started: list[int] = []

    def hold() -> None:
        started.append(1)
        gate.wait(5)

    holders = [asyncio.create_task(run_in_thread(hold, [], {})) for _ in range(CAP)]
    await eventually(lambda: len(started) == CAP)
    return holders


async def every_worker_takes_a_call() -> None:
    """Run CAP calls that can only finish together, so each needs its own worker.

    Each worker runs one call at a time, so when this returns every worker has
    finished whatever it took from the queue before.
    """
    barrier = threading.Barrier(CAP, timeout=2)
    await asyncio.gather(*(run_in_thread(barrier.wait, [], {}) for _ in range(CAP)))


def waits_for(
    gate: threading.Event, threads: list[threading.Thread] | None = None
) -> Callable[..., str]:
    """A function that blocks until `gate` is set, noting the thread it runs in."""

    def hang(*_args: Any) -> str:
        if threads is not None:
            threads.append(threading.current_thread())
        gate.wait(5)
        return "late result"

    return hang


# Results, errors and context


class ToolBroke(ValueError):
    pass


async def test_returns_what_the_function_returned() -> None:
    assert await run_in_thread(operator.add, [1, 2], {}) == 3
    assert await run_in_thread(dict, [], {"a": 1}) == {"a": 1}


async def test_raises_what_the_function_raised_with_its_type() -> None:
    error = ToolBroke("no")

    def broken() -> None:
        raise error

    with pytest.raises(ToolBroke) as raised:
        await run_in_thread(broken, [], {})
    assert raised.value is error


async def test_context_variables_are_visible_in_the_thread() -> None:
    request_id.set("req-7")
    assert await run_in_thread(request_id.get, [], {}) == "req-7"


async def test_a_timed_call_that_finishes_in_time_returns_its_result() -> None:
    assert await run_in_thread(operator.add, [1, 2], {}, timeout=5) == 3
    assert stuck_calls() == 0


@pytest.mark.parametrize("timeout", [0, -1.0, float("nan")])
async def test_timeout_must_be_a_positive_number(timeout: float) -> None:
    with pytest.raises(ValueError, match="timeout must be a positive number"):
        await run_in_thread(operator.add, [1, 2], {}, timeout=timeout)


# Timeouts


async def test_stuck_calls_do_not_take_the_places_of_other_calls(
    pool: Pool, gate: threading.Event
) -> None:
    threads: list[threading.Thread] = []
    hang = waits_for(gate, threads)
    calls = [run_in_thread(hang, [], {}, timeout=0.05) for _ in range(CAP + 2)]
    outcomes = await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), 2)
    assert all(isinstance(outcome, CallTimedOut) for outcome in outcomes)

    assert await asyncio.wait_for(run_in_thread(operator.add, [1, 2], {}), 1) == 3
    assert stuck_calls() == CAP + 2
    assert len(set(threads)) == CAP + 2

    gate.set()
    await eventually(lambda: stuck_calls() == 0)
    # Up to CAP threads rejoin the pool; the rest exit.
    await eventually(lambda: sum(thread.is_alive() for thread in threads) <= CAP)
    assert pool.workers <= CAP
    await every_worker_takes_a_call()


async def test_timeout_counts_from_the_start_not_from_the_queue(gate: threading.Event) -> None:
    holders = await occupy_every_worker(gate)

    def quick() -> str:
        time.sleep(0.05)
        return "done"

    queued = asyncio.create_task(run_in_thread(quick, [], {}, timeout=0.2))
    await asyncio.sleep(0.3)  # queued longer than its timeout
    assert not queued.done()
    gate.set()
    assert await queued == "done"
    await asyncio.gather(*holders)


async def test_a_late_start_still_gets_its_whole_timeout(gate: threading.Event) -> None:
    holders = await occupy_every_worker(gate)
    release = threading.Event()
    started_at: list[float] = []

    def slow() -> None:
        started_at.append(time.monotonic())
        release.wait(5)

    queued = asyncio.create_task(run_in_thread(slow, [], {}, timeout=0.1))
    await asyncio.sleep(0.15)  # the first timer fires while the call is queued
    gate.set()
    try:
        with pytest.raises(CallTimedOut) as raised:
            await queued
        assert time.monotonic() - started_at[0] >= 0.1
        assert raised.value.timeout == 0.1
        assert str(raised.value) == "function timed out after 0.1 s"
    finally:
        release.set()
    await asyncio.gather(*holders)


# Cancellation


async def test_a_cancelled_call_that_has_not_started_never_starts(gate: threading.Event) -> None:
    holders = await occupy_every_worker(gate)
    ran: list[str] = []
    abandoned: list[str] = []
    on_abandon = functools.partial(abandoned.append, "abandoned")
    queued = asyncio.create_task(run_in_thread(ran.append, ["ran"], {}, on_abandon=on_abandon))
    await asyncio.sleep(0)  # into the queue
    queued.cancel()
    with pytest.raises(asyncio.CancelledError):
        await queued

    gate.set()
    await asyncio.gather(*holders)
    await every_worker_takes_a_call()
    assert ran == []
    assert abandoned == []
    assert stuck_calls() == 0


async def test_a_cancelled_running_call_is_given_up(
    gate: threading.Event, caplog: pytest.LogCaptureFixture
) -> None:
    threads: list[threading.Thread] = []
    abandoned: list[str] = []
    on_abandon = functools.partial(abandoned.append, "abandoned")
    running = asyncio.create_task(
        run_in_thread(waits_for(gate, threads), [], {}, label="fetch", on_abandon=on_abandon)
    )
    await eventually(lambda: bool(threads))
    with caplog.at_level(logging.WARNING, logger="tooluse"):
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running
    assert abandoned == ["abandoned"]
    assert stuck_calls() == 1
    assert [record.getMessage() for record in caplog.records] == [
        "Gave up on fetch (cancelled); its thread cannot be stopped and keeps running "
        "until the function returns. Stuck calls now: 1"
    ]
    gate.set()
    await eventually(lambda: stuck_calls() == 0)


# Logging and on_abandon


async def test_each_stuck_call_warns_once_and_calls_on_abandon_once(
    gate: threading.Event, caplog: pytest.LogCaptureFixture
) -> None:
    abandoned_in: list[threading.Thread] = []

    def on_abandon() -> None:
        abandoned_in.append(threading.current_thread())

    hang = waits_for(gate)
    with caplog.at_level(logging.WARNING, logger="tooluse"):
        for _ in range(2):
            with pytest.raises(CallTimedOut):
                await run_in_thread(
                    hang, [], {}, timeout=0.05, label="slow_tool", on_abandon=on_abandon
                )

    assert abandoned_in == [threading.current_thread()] * 2  # once each, on the loop's thread
    assert [(record.name, record.levelno) for record in caplog.records] == [
        ("tooluse", logging.WARNING)
    ] * 2
    assert [record.getMessage() for record in caplog.records] == [
        "Gave up on slow_tool (timed out after 0.05 s); its thread cannot be stopped and "
        f"keeps running until the function returns. Stuck calls now: {stuck}"
        for stuck in (1, 2)
    ]


async def test_logs_never_show_arguments_or_results(
    gate: threading.Event, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG, logger="tooluse"):
        with pytest.raises(CallTimedOut):
            await run_in_thread(
                waits_for(gate), ["secret argument"], {}, timeout=0.05, label="lookup"
            )
        gate.set()
        await eventually(lambda: stuck_calls() == 0)

    messages = [record.getMessage() for record in caplog.records]
    assert len(messages) == 2  # given up, then returned
    assert all("lookup" in message for message in messages)
    assert not any("secret" in message or "late result" in message for message in messages)


async def test_a_failing_on_abandon_is_logged_and_the_timeout_still_raised(
    gate: threading.Event, caplog: pytest.LogCaptureFixture
) -> None:
    def on_abandon() -> None:
        raise RuntimeError("boom")

    with caplog.at_level(logging.WARNING, logger="tooluse"), pytest.raises(CallTimedOut):
        await run_in_thread(waits_for(gate), [], {}, timeout=0.05, on_abandon=on_abandon)
    assert [record.getMessage() for record in caplog.records][-1] == (
        "on_abandon for function failed"
    )


# Plumbing


@pytest.mark.parametrize("inbox", [True, False], ids=["inbox", "call_soon_threadsafe"])
def test_a_result_for_a_closed_loop_is_dropped(inbox: bool) -> None:
    loop = asyncio.new_event_loop()
    job = Job(loop, operator.add, [1, 2], {}, "add")
    if not inbox:
        job.inbox = None
    loop.close()
    _threads._deliver(job, _threads._set_result, 3)  # pyright: ignore[reportPrivateUsage]
    assert not job.future.done()


class LoopWithoutReaders(asyncio.SelectorEventLoop):
    """A loop that cannot watch file descriptors, like Windows' proactor loop."""

    def add_reader(self, fd: Any, callback: Callable[..., object], *args: Any) -> None:
        raise NotImplementedError


def test_a_loop_that_cannot_watch_a_pipe_gets_results_through_call_soon_threadsafe() -> None:
    loop = LoopWithoutReaders()
    try:
        assert loop.run_until_complete(run_in_thread(operator.add, [1, 2], {})) == 3
        assert _threads._inboxes[loop] is None  # pyright: ignore[reportPrivateUsage]
    finally:
        loop.close()


def test_windows_and_loops_without_weak_references_use_call_soon_threadsafe(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class NoWeakReferences:
        __slots__ = ()

    assert _threads._inbox_for(NoWeakReferences()) is None  # pyright: ignore[reportPrivateUsage, reportArgumentType]
    loop = asyncio.new_event_loop()
    try:
        monkeypatch.setattr(os, "name", "nt")
        assert _threads._open_inbox(loop) is None  # pyright: ignore[reportPrivateUsage]
    finally:
        monkeypatch.undo()
        loop.close()


async def test_without_eventfd_jobs_wait_in_a_simple_queue(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "eventfd")  # as on macOS and Windows
    fresh = Pool(CAP)
    assert type(fresh._jobs) is queue.SimpleQueue  # pyright: ignore[reportPrivateUsage]
    monkeypatch.setattr(_threads, "_pool", fresh)
    results = await asyncio.gather(*(run_in_thread(operator.add, [i, 1], {}) for i in range(200)))
    assert results == [i + 1 for i in range(200)]
    with pytest.raises(ZeroDivisionError):
        await run_in_thread(divmod, [1, 0], {})


async def test_many_results_arriving_together_are_all_delivered() -> None:
    results = await asyncio.gather(*(run_in_thread(operator.add, [i, 1], {}) for i in range(500)))
    assert results == [i + 1 for i in range(500)]


def test_results_beyond_a_full_pipe_still_arrive() -> None:
    # 70,000 results left before the loop runs: more bytes than one read takes (4,096)
    # and than a pipe holds (64 KiB), so some writes find it full.
    loop = asyncio.new_event_loop()
    try:
        inbox = _threads._inbox_for(loop)  # pyright: ignore[reportPrivateUsage]
        assert inbox is not None
        futures = [loop.create_future() for _ in range(70_000)]
        for index, future in enumerate(futures):
            inbox.put(_threads._set_result, future, index)  # pyright: ignore[reportPrivateUsage]
        assert loop.run_until_complete(asyncio.gather(*futures)) == list(range(70_000))
    finally:
        loop.close()


def test_a_wake_up_with_nothing_to_read_is_harmless() -> None:
    loop = asyncio.new_event_loop()
    try:
        inbox = _threads._inbox_for(loop)  # pyright: ignore[reportPrivateUsage]
        assert inbox is not None
        inbox.drain()
    finally:
        loop.close()


def test_a_loops_pipe_is_closed_when_the_loop_is_collected() -> None:
    loop = asyncio.new_event_loop()
    assert loop.run_until_complete(run_in_thread(operator.add, [1, 2], {})) == 3
    inbox = _threads._inboxes[loop]  # pyright: ignore[reportPrivateUsage]
    assert inbox is not None
    pipe = {fd: os.fstat(fd).st_ino for fd in (inbox._reader, inbox._writer)}  # pyright: ignore[reportPrivateUsage]
    loop.close()
    del loop, inbox

    def inode(fd: int) -> int | None:
        try:
            return os.fstat(fd).st_ino  # another file may have the number now
        except OSError:
            return None

    def still_open() -> list[int]:
        gc.collect()
        return [fd for fd, number in pipe.items() if inode(fd) == number]

    # The worker that ran the call may hold the inbox a moment longer, on a busy machine.
    deadline = time.monotonic() + 5
    while still_open() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert still_open() == []


def test_a_forked_child_starts_with_an_empty_pool(pool: Pool) -> None:
    _threads._reset_after_fork()  # pyright: ignore[reportPrivateUsage]
    fresh: Pool = _threads._pool  # pyright: ignore[reportPrivateUsage]
    assert fresh is not pool
    assert (fresh.workers, fresh.stuck) == (0, 0)
    assert not _threads._inboxes  # pyright: ignore[reportPrivateUsage]


async def test_a_stuck_worker_is_replaced_even_when_no_call_is_waiting(
    monkeypatch: pytest.MonkeyPatch, gate: threading.Event
) -> None:
    # One worker: it finishes `first`, puts its idle token back, then takes the call
    # queued behind it, which gets stuck. Its token is stale now; the next call must
    # still find a worker.
    monkeypatch.setattr(_threads, "_pool", Pool(1))
    release_first = threading.Event()
    threads: list[threading.Thread] = []
    first = asyncio.create_task(run_in_thread(release_first.wait, [5], {}))
    stuck = asyncio.create_task(run_in_thread(waits_for(gate, threads), [], {}, timeout=0.05))
    await asyncio.sleep(0)  # both queued
    release_first.set()
    assert await first is True
    with pytest.raises(CallTimedOut):
        await stuck
    assert await asyncio.wait_for(run_in_thread(operator.add, [1, 2], {}), 1) == 3
    gate.set()
    await eventually(lambda: stuck_calls() == 0)
