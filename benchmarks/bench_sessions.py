"""Session load and store on SQLite, per 1,000 items of history, beside openai-agents'.

Run with:
    pip install -e '.[bench,sqlalchemy]' && python benchmarks/bench_sessions.py

A run on a session loads the history first (`get_items()`) and stores each turn at the
end (`add_turn(items, paused_state=None)` for tooluse, what its runner calls;
`add_items(items)` for openai-agents, what its runner calls). Each store keeps its
history in a file of its own (WAL on every side), prefilled, outside the timing, with
1,000 or 10,000 items (user and assistant messages, function calls and their outputs,
70 to 170 bytes of JSON each). Timed:

- load: `get_items()` of the whole history, printed per 1,000 items;
- store: one turn of 4 items (a user message, a function call, its output, the
  assistant's reply), per turn; after each timed store the turn is popped again,
  untimed, so the history keeps its size.

Sides: tooluse's `SQLiteSession` and openai-agents' `SQLiteSession`; tooluse's
`SQLAlchemySession` and openai-agents' `SQLAlchemySession`, both on
`sqlite+aiosqlite`. Every side is built and filled outside the timing and warmed; sides
alternate call by call (who goes first rotating); each side's median CPU time (this
process's, all threads) and wall time are printed; the histories loaded and the turns
stored must be equal on every side before a ratio is printed. Ratios are tooluse /
openai-agents in CPU time, steadier than wall time on a shared machine (issue #15 sets
no target; these are printed). A store's wall time is mostly the commit's fsync.
`--quick`: fewer calls; `--json PATH`: also write the ratios.
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from _common import Results, arguments, same_outputs
from agents.extensions.memory.sqlalchemy_session import SQLAlchemySession as AgentsAlchemy
from agents.memory import SQLiteSession as AgentsSQLite

from tooluse.sessions import SQLiteSession
from tooluse.sessions.sqlalchemy import SQLAlchemySession

SIZES = (1_000, 10_000)
TURN = 4
Call = Callable[[], Awaitable[Any]]


def history_item(index: int) -> dict[str, Any]:
    """The `index`th item of a conversation: a user turn, a tool call and output, a reply."""
    kind = index % 4
    if kind == 0:
        return {"role": "user", "content": f"Question {index}: what is the weather in Paris?"}
    if kind == 1:
        return {
            "type": "function_call",
            "call_id": f"call_{index}",
            "name": "get_weather",
            "arguments": '{"city": "Paris", "unit": "celsius", "days": 3}',
        }
    if kind == 2:
        output = '{"city": "Paris", "forecast": [21, 23, 19], "summary": "sunny, then rain"}'
        return {"type": "function_call_output", "call_id": f"call_{index - 1}", "output": output}
    return {
        "type": "message",
        "role": "assistant",
        "content": [
            {
                "type": "output_text",
                "text": f"Answer {index}: 21 C today, 23 C tomorrow, then rain (19 C).",
                "annotations": [],
            }
        ],
    }


def history(size: int) -> list[dict[str, Any]]:
    return [history_item(index) for index in range(size)]


class Side:
    """One store: how to load its history and store one turn, and to undo that turn."""

    def __init__(self, session: Any, store: Callable[[list[Any]], Awaitable[None]]) -> None:
        self.session = session
        self._store = store

    async def load(self) -> list[Any]:
        return await self.session.get_items()

    async def store(self, turn: list[Any]) -> None:
        await self._store(turn)

    async def undo(self) -> None:
        for _ in range(TURN):
            await self.session.pop_item()


def tooluse_side(session: Any) -> Side:
    return Side(session, lambda items: session.add_turn(items, paused_state=None))


def agents_side(session: Any) -> Side:
    return Side(session, session.add_items)


async def sides(stack: AsyncExitStack, folder: Path, size: int) -> dict[str, Side]:
    """Every store on a file of its own, filled with `size` items."""
    sid = f"conversation-{size}"
    ours = SQLiteSession(sid, folder / f"tooluse-{size}.db")
    stack.callback(ours.close)
    theirs = AgentsSQLite(sid, folder / f"agents-{size}.db")
    stack.callback(theirs.close)
    ours_alchemy = SQLAlchemySession.from_url(
        sid, url=f"sqlite+aiosqlite:///{folder}/tooluse-alchemy-{size}.db", create_tables=True
    )
    stack.push_async_callback(ours_alchemy.close)
    theirs_alchemy = AgentsAlchemy.from_url(
        sid, url=f"sqlite+aiosqlite:///{folder}/agents-alchemy-{size}.db", create_tables=True
    )
    stack.push_async_callback(theirs_alchemy.engine.dispose)
    built = {
        "tooluse SQLiteSession": tooluse_side(ours),
        "openai-agents SQLiteSession": agents_side(theirs),
        "tooluse SQLAlchemySession": tooluse_side(ours_alchemy),
        "openai-agents SQLAlchemySession": agents_side(theirs_alchemy),
    }
    items = history(size)
    for side in built.values():
        await side.session.add_items(items)
    return built


async def in_turn(
    calls: dict[str, Call], count: int, after: dict[str, Call]
) -> dict[str, tuple[float, float]]:
    """Each call `count` times, the sides in turn (who goes first rotating).

    Returns each side's median (CPU seconds, wall seconds) per call. CPU time is this
    process's, every thread's (the stores' worker threads included): on a shared machine
    it is what a side costs, while wall time also holds the wait for a core and for the
    disk. `after[name]`, if given, runs after each timed call, untimed. Each call starts
    after a `gc.collect()`, so that no side pays for a collection the other's garbage made.
    """
    cpu: dict[str, list[float]] = {name: [] for name in calls}
    wall: dict[str, list[float]] = {name: [] for name in calls}
    names = list(calls)
    for index in range(count):
        shift = index % len(names)
        for name in names[shift:] + names[:shift]:
            # Untimed: a full collection a 10,000-item load trips would otherwise be charged
            # to whichever side tripped it (4.2 against 0.76, issue #35).
            gc.collect()
            started_cpu, started = time.process_time(), time.perf_counter()
            await calls[name]()
            wall[name].append(time.perf_counter() - started)
            cpu[name].append(time.process_time() - started_cpu)
            if name in after:
                await after[name]()
    median = statistics.median
    return {name: (median(cpu[name]), median(wall[name])) for name in calls}


async def check_and_warm(built: dict[str, Side], turn: list[Any]) -> None:
    """Every side loads the same history and stores the same turn, before any timing."""
    same_outputs({name: await side.load() for name, side in built.items()})
    for side in built.values():
        for _ in range(2):
            await side.store(turn)
            await side.undo()
        await side.store(turn)
    same_outputs({name: (await side.load())[-2 * TURN :] for name, side in built.items()})
    for side in built.values():
        await side.undo()
    same_outputs({name: len(await side.load()) for name, side in built.items()})


PAIRS = {
    "SQLiteSession": ("tooluse SQLiteSession", "openai-agents SQLiteSession"),
    "SQLAlchemySession (aiosqlite)": (
        "tooluse SQLAlchemySession",
        "openai-agents SQLAlchemySession",
    ),
}


async def measure(folder: Path, size: int, quick: bool, results: Results) -> None:
    async with AsyncExitStack() as stack:
        built = await sides(stack, folder, size)
        turn = [history_item(size + index) for index in range(TURN)]
        await check_and_warm(built, turn)
        loads = max(5, (100_000 if not quick else 20_000) // size)
        load = await in_turn({n: s.load for n, s in built.items()}, loads, {})
        stores = 200 if not quick else 40
        store = await in_turn(
            {n: (lambda s=s: s.store(turn)) for n, s in built.items()},
            stores,
            {n: s.undo for n, s in built.items()},
        )
    print(f"history of {size:,} items (load: median of {loads}, store: median of {stores}):")
    print(f"  {'':<34} {'load, ms per 1,000 items':>26}   {'store, ms per turn of 4':>25}")
    for name in built:
        (load_cpu, load_wall), (store_cpu, store_wall) = load[name], store[name]
        per_thousand = 1e3 / (size / 1000)  # ms per 1,000 items
        print(
            f"  {name:<34} CPU {load_cpu * per_thousand:6.3f}  wall {load_wall * per_thousand:6.3f}"
            f"   CPU {store_cpu * 1e3:6.3f}  wall {store_wall * 1e3:6.3f}"
        )
    for label, (ours, theirs) in PAIRS.items():
        load_ratio = load[ours][0] / load[theirs][0]
        store_ratio = store[ours][0] / store[theirs][0]
        print(
            f"  {label}: tooluse/openai-agents (CPU) load {load_ratio:.3f}, store {store_ratio:.3f}"
        )
        results.ratio(f"session load, {label}, {size:,} items, tooluse/openai-agents", load_ratio)
        results.ratio(f"session store, {label}, {size:,} items, tooluse/openai-agents", store_ratio)


async def main() -> None:
    args = arguments(__doc__ or "")
    results = Results()
    with tempfile.TemporaryDirectory() as folder:
        for size in SIZES:
            await measure(Path(folder), size, args.quick, results)
    results.write(args.json)


if __name__ == "__main__":
    asyncio.run(main())
