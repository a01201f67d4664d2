"""Sync tool calls when a run stops: none starts after, each runs at most once in all.

A sync call runs in a worker thread, which cannot be stopped. When the run times
out, a call still queued never starts, a call already running is told
(`ctx.cancelled`), and resuming from the error's state starts only the calls that
never started.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter

import pytest

from tooluse import Agent, RunConfig, Runner, RunTimeoutError, ToolContext, function_tool
from tooluse.tools._threads import stuck_calls

from .scripted import ScriptModel, call, outputs, text

CALLS = 40  # more than the worker pool's cap (at most 32), so that some calls queue


class Desk:
    """What the tool did: which calls started, when, and whether they were told to stop."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.release = threading.Event()
        self.run_stopped = False
        self.started: list[int] = []
        self.started_after_stop: list[int] = []
        self.told_to_stop: list[int] = []

    def work(self, ctx: ToolContext[None], n: int) -> str:
        with self.lock:
            self.started.append(n)
            if self.run_stopped:
                self.started_after_stop.append(n)
        self.release.wait(10)  # held until the test has seen the run stop
        if ctx.cancelled.is_set():
            with self.lock:
                self.told_to_stop.append(n)
        return f"done {n}"


async def _until_no_call_is_stuck() -> None:
    for _ in range(500):
        if stuck_calls() == 0:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{stuck_calls()} given-up calls never returned")


async def test_a_queued_sync_call_never_starts_after_the_run_timed_out() -> None:
    desk = Desk()
    work = function_tool(desk.work, name_override="work")
    turn = [call(f"c{n}", "work", {"n": n}) for n in range(CALLS)]
    model = ScriptModel(turn, [text("all done")])
    agent = Agent("a", tools=[work], model=model)

    with pytest.raises(RunTimeoutError) as raised:
        await Runner.run(agent, "go", run_config=RunConfig(run_timeout=0.2))
    with desk.lock:
        desk.run_stopped = True
        started_before = list(desk.started)
    desk.release.set()
    await _until_no_call_is_stuck()
    await asyncio.sleep(0.05)  # a worker freed now would start a queued call, if any were left

    assert 0 < len(started_before) < CALLS  # some ran, the rest were queued
    assert desk.started_after_stop == []  # no queued call started after the run stopped
    assert sorted(desk.told_to_stop) == sorted(started_before)  # each running one was told

    state = raised.value.state
    assert state is not None
    result = await Runner.run(agent, state)
    assert result.final_output == "all done"
    runs = Counter(desk.started)
    assert sorted(runs) == list(range(CALLS))  # every call ran ...
    assert set(runs.values()) == {1}  # ... once in all, across the run and its resumption
    answered = outputs(model.requests[-1])
    for n in range(CALLS):
        given_up = "still running when the run stopped" in answered[f"c{n}"]
        assert given_up == (n in started_before)  # the model hears which were given up


async def test_a_lone_sync_call_given_up_at_the_timeout_is_not_run_again_on_resume() -> None:
    desk = Desk()
    work = function_tool(desk.work, name_override="work")
    model = ScriptModel([call("c1", "work", {"n": 1})], [text("all done")])
    agent = Agent("a", tools=[work], model=model)

    with pytest.raises(RunTimeoutError) as raised:
        await Runner.run(agent, "go", run_config=RunConfig(run_timeout=0.2))
    desk.release.set()
    await _until_no_call_is_stuck()
    assert desk.told_to_stop == [1]

    state = raised.value.state
    assert state is not None
    result = await Runner.run(agent, state)
    assert result.final_output == "all done"
    assert desk.started == [1]  # not started again by the resumed run
    assert "still running when the run stopped" in outputs(model.requests[-1])["c1"]
