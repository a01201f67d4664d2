"""What a run allocates: no cyclic garbage, and its own default `RunConfig`.

A run leaves no cyclic garbage: thousands of concurrent runs must not feed the cyclic GC.

What a run allocates is freed by reference counting when it ends; a reference cycle
(a closure stored on the object it closes over, an exception kept with its traceback)
would wait for a collection instead, and at 5,000 runs in flight those collections
were most of the CPU (issue #15, benchmarks/bench_scaling.py).
"""

from __future__ import annotations

import asyncio
import gc
import sys

from tooluse import Agent, RunConfig, Runner, function_tool
from tooluse.run._config import as_run_config

from .scripted import ScriptModel, call, text


@function_tool
async def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


async def test_a_run_with_a_tool_call_leaves_no_cyclic_garbage() -> None:
    agent = Agent("calc", tools=[add])

    async def once() -> None:
        agent.model = ScriptModel([call("c1", "add", {"a": 2, "b": 3})], [text("5")])
        assert (await Runner.run(agent, "2 + 3?")).final_output == "5"

    await once()  # first-use caches (schema, kept tools) are made here, not counted below
    gc.collect()
    gc.disable()
    try:
        for _ in range(5):
            await once()
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_each_run_without_a_run_config_gets_its_own_default() -> None:
    first, second = as_run_config(None), as_run_config(None)
    assert first == second == RunConfig()
    assert first is not second
    assert first.input_guardrails is None  # as in openai-agents
    assert first.output_guardrails is None
    first.max_tool_errors = 7
    first.input_guardrails = []
    assert as_run_config(None) == RunConfig()


def test_a_default_run_config_keeps_its_fields_inline() -> None:
    # Not in a `__dict__` (3.11+, where instances can do without one until it is asked
    # for): one GC-tracked object less for each run in flight.
    dicts = sum(isinstance(o, dict) for o in gc.get_referents(as_run_config(None)))
    assert dicts == (0 if sys.version_info >= (3, 11) else 1)


IN_FLIGHT_RUNS = 200

LIVE_OBJECTS_PER_RUN = 66 if sys.version_info >= (3, 11) else 92
"""GC-tracked objects one waiting run keeps alive (measured 55 with its Task and
Future, 77 on 3.10, where each suspended coroutine also keeps a frame object; +20 %):
every full collection walks them all, for every run in flight (issue #15,
bench_scaling.py)."""


async def test_a_waiting_run_keeps_few_gc_tracked_objects_alive() -> None:
    release = asyncio.Event()

    @function_tool
    async def wait(a: int) -> int:
        """Wait until released.

        Args:
            a: A number to return.
        """
        await release.wait()
        return a

    def agent() -> Agent[None]:
        model = ScriptModel([call("c1", "wait", {"a": 1})], [text("1")])
        return Agent("waiter", tools=[wait], model=model)

    release.set()
    assert (await Runner.run(agent(), "go")).final_output == "1"  # first-use caches
    release.clear()
    agents = [agent() for _ in range(IN_FLIGHT_RUNS)]
    gc.collect()
    before = len(gc.get_objects())
    runs = [asyncio.ensure_future(Runner.run(a, "go")) for a in agents]
    for _ in range(20):  # every run reaches the tool and waits there
        await asyncio.sleep(0)
    gc.collect()
    per_run = (len(gc.get_objects()) - before) / IN_FLIGHT_RUNS
    release.set()
    assert [r.final_output for r in await asyncio.gather(*runs)] == ["1"] * IN_FLIGHT_RUNS
    assert per_run <= LIVE_OBJECTS_PER_RUN
