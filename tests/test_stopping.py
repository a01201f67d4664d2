"""Everything stops cleanly: cancelled runs, consumers that leave, stuck sync tools."""

from __future__ import annotations

import asyncio
import gc
import logging
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tooluse import Agent, Runner, ToolContext, UserError, function_tool
from tooluse.models import (
    Model,
    ModelRequest,
    ModelResponse,
    ResponseDone,
    StreamDelta,
    StreamEvent,
)
from tooluse.tools._threads import stuck_calls

from .scripted import ScriptModel, call, outputs, text


class Gate:
    """An async tool that waits at a gate, and what happened to it."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.cancelled = asyncio.Event()

        @function_tool
        async def wait() -> str:
            """Wait at the gate."""
            self.started.set()
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
            return "through"

        self.tool = wait


def gated_agent(gate: Gate) -> tuple[Agent[Any], ScriptModel]:
    model = ScriptModel([call("c1", "wait")], [text("done")])
    return Agent("a", tools=[gate.tool], model=model), model


async def test_cancel_stops_the_run() -> None:
    gate = Gate()
    agent, model = gated_agent(gate)
    result = Runner.run_streamed(agent, "go")
    events = [event async for event in _until(result, gate.started)]
    result.cancel()
    remaining = [event async for event in result.stream_events()]  # ends, without raising
    assert gate.cancelled.is_set()
    assert (result.cancelled, result.is_complete) == (True, True)
    assert len(model.requests) == 1  # no further model call
    assert events
    assert remaining == []


async def _until(result: Any, started: asyncio.Event) -> AsyncIterator[Any]:
    async for event in result.stream_events():
        yield event
        if event.type == "run_item_stream_event" and event.name == "tool_called":
            break
    await started.wait()


async def test_a_cancelled_consumer_stops_the_run() -> None:
    gate = Gate()
    agent, model = gated_agent(gate)
    result = Runner.run_streamed(agent, "go")

    async def consume() -> None:
        async for _ in result.stream_events():
            pass

    consumer = asyncio.ensure_future(consume())
    await gate.started.wait()
    consumer.cancel()  # a web client went away
    with pytest.raises(asyncio.CancelledError):
        await consumer
    await asyncio.wait_for(gate.cancelled.wait(), 2)
    await asyncio.sleep(0.05)
    assert (result.cancelled, result.is_complete) == (True, True)
    assert len(model.requests) == 1


async def test_a_consumer_that_leaves_early_stops_the_run_and_leaves_no_unretrieved_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    gate = Gate()
    agent, model = gated_agent(gate)
    result = Runner.run_streamed(agent, "go")
    async for _ in result.stream_events():
        break  # leave after the first event
    await asyncio.wait_for(gate.cancelled.wait(), 2)
    gc.collect()
    await asyncio.sleep(0.05)
    assert result.cancelled
    assert len(model.requests) == 1
    assert "never retrieved" not in caplog.text


async def test_a_failed_run_nobody_reads_leaves_no_unretrieved_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    @function_tool(failure_error_function=None)
    def fatal() -> str:
        """Fail."""
        raise RuntimeError("fatal")

    model = ScriptModel([call("c1", "fatal")])
    result = Runner.run_streamed(Agent("a", tools=[fatal], model=model), "go")
    while not result.is_complete:
        await asyncio.sleep(0.01)
    del result
    gc.collect()
    await asyncio.sleep(0.01)
    assert "never retrieved" not in caplog.text


async def test_cancelling_a_plain_run_cancels_its_tools() -> None:
    gate = Gate()
    agent, model = gated_agent(gate)
    task = asyncio.ensure_future(Runner.run(agent, "go"))
    await gate.started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert gate.cancelled.is_set()
    assert len(model.requests) == 1


async def test_stuck_sync_tools_never_take_the_capacity_other_calls_need(
    caplog: pytest.LogCaptureFixture,
) -> None:
    release = threading.Event()

    @function_tool(timeout=0.05)
    def hang(ctx: ToolContext[Any], n: int) -> str:
        """Hang until released.

        Args:
            n: Which.
        """
        release.wait(10)
        return "late"

    @function_tool(timeout=2)
    def quick() -> str:
        """Answer at once."""
        return "quick"

    many = 40  # more than the worker pool's cap (cpu + 4, at most 32)
    model = ScriptModel(
        [call(f"h{n}", "hang", {"n": n}) for n in range(many)], [call("q", "quick")], [text("done")]
    )
    try:
        with caplog.at_level(logging.WARNING, logger="tooluse"):
            result = await Runner.run(Agent("a", tools=[hang, quick], model=model), "go")
        assert result.final_output == "done"  # the quick call ran though the pool's cap was stuck
        assert outputs(model.requests[2])["q"] == "quick"
        assert stuck_calls() >= many
        warnings = [
            r.getMessage() for r in caplog.records if "thread cannot be stopped" in r.getMessage()
        ]
        assert len(warnings) == many  # once per stuck call, saying how many are stuck
        assert warnings[-1].endswith(f"Stuck calls now: {many}")
    finally:
        release.set()
    for _ in range(200):
        if stuck_calls() == 0:
            break
        await asyncio.sleep(0.01)
    assert stuck_calls() == 0


async def test_a_sync_call_told_it_timed_out_had_started_and_none_starts_after_the_run() -> None:
    release = threading.Event()
    starts: list[float] = []

    @function_tool(timeout=0.05)
    def slow(n: int) -> str:
        """Take long.

        Args:
            n: Which.
        """
        starts.append(time.monotonic())
        release.wait(10)
        return "late"

    calls = 50
    model = ScriptModel([call(f"c{n}", "slow", {"n": n}) for n in range(calls)], [text("done")])
    try:
        await Runner.run(Agent("a", tools=[slow], model=model), "go")
        returned = time.monotonic()
        timed_out = [
            o for o in model.requests[1]["input"] if o.get("type") == "function_call_output"
        ]
        assert all("timed out" in o["output"] for o in timed_out)
        assert len(starts) == calls  # every call the model was told timed out did start
        await asyncio.sleep(0.2)
        assert all(start <= returned for start in starts)  # and none started afterwards
    finally:
        release.set()


class Streaming(Model):
    """A model whose stream says when it is closed."""

    def __init__(self) -> None:
        self.closed: list[str] = []
        self.hold = asyncio.Event()

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        raise NotImplementedError

    async def stream_response(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        try:
            response = ModelResponse([text("done")])
            yield StreamDelta("first delta")
            await self.hold.wait()
            yield ResponseDone(response)
            yield StreamDelta("after the end: never read")
        finally:
            self.closed.append("closed")


async def test_the_run_closes_the_model_stream_when_it_stops_reading() -> None:
    model = Streaming()
    model.hold.set()
    result = Runner.run_streamed(Agent("a", model=model), "go")
    async for _ in result.stream_events():
        pass
    assert (result.final_output, model.closed) == ("done", ["closed"])


async def test_a_cancelled_run_closes_the_model_stream() -> None:
    model = Streaming()
    result = Runner.run_streamed(Agent("a", model=model), "go")
    async for event in result.stream_events():
        if event.type == "raw_response_event":
            result.cancel()
    assert (result.cancelled, model.closed) == (True, ["closed"])


async def test_a_run_cancelled_before_it_starts_ends_its_events() -> None:
    result = Runner.run_streamed(Agent("a", model=ScriptModel([text("done")])), "go")
    result.cancel()
    assert [event async for event in result.stream_events()] == []
    assert (result.cancelled, result.is_complete) == (True, True)
    assert [event async for event in result.stream_events()] == []  # again: no waiting


def test_run_streamed_without_an_event_loop_is_a_clear_error() -> None:
    with pytest.raises(UserError, match=r"run_streamed\(\) needs a running event loop"):
        Runner.run_streamed(Agent("a", model=ScriptModel()), "go")


async def test_a_sync_tool_without_a_timeout_is_told_when_the_run_is_cancelled() -> None:
    started, seen = threading.Event(), threading.Event()

    @function_tool
    def poll(ctx: ToolContext[Any]) -> str:
        """Work until told to stop."""
        started.set()
        for _ in range(500):
            if ctx.cancelled.is_set():
                seen.set()
                return "stopped"
            time.sleep(0.01)
        return "never told"

    model = ScriptModel([call("c1", "poll")], [text("done")])
    task = asyncio.ensure_future(Runner.run(Agent("a", tools=[poll], model=model), "go"))
    await asyncio.to_thread(started.wait, 2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(seen.wait, 2)


async def test_a_timed_async_tool_finishes_its_cleanup_before_a_cancelled_run_returns() -> None:
    started, cleaned = asyncio.Event(), list[str]()

    @function_tool(timeout=30)
    async def slow() -> str:
        """Take long, and clean up when cancelled."""
        started.set()
        try:
            await asyncio.sleep(30)
        finally:
            await asyncio.sleep(0.01)  # cleanup that itself awaits
            cleaned.append("cleaned")
        return "late"

    task = asyncio.ensure_future(
        Runner.run(Agent("a", tools=[slow], model=ScriptModel([call("c1", "slow")])), "go")
    )
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert cleaned == ["cleaned"]


async def test_a_sync_wrapper_returning_a_coroutine_stays_within_the_timeout() -> None:
    async def sleepy() -> str:
        await asyncio.sleep(5)
        return "late"

    def wrapper() -> Any:
        return sleepy()

    wrapped = function_tool(name_override="sleepy", timeout=0.05)(wrapper)
    model = ScriptModel([call("c1", "sleepy")], [text("done")])
    await Runner.run(Agent("a", tools=[wrapped], model=model), "go")
    assert "timed out after 0.05 s" in outputs(model.requests[1])["c1"]
