"""Streamed runs, 100 at a time, with the cyclic collector off, in a process of their own.

Run as `python -m tests.stream_leak_main API ROUNDS` (API: `responses` or `chat`; ROUNDS
of 100 runs each) from the repository's root; prints one JSON line: the sockets left
open beyond those open before, and the requests the scripted server received.

`tests/test_run_failures.py` runs it in a fresh interpreter rather than inside the suite.
Inside it, with the collector off on top of all that earlier tests left and under the
suite's coverage tracer (set for greenlet concurrency, so every server thread gets a
greenlet state that is freed through a pending call when the thread ends), it twice ran
for over ten minutes at full CPU instead of seconds; the cause was not pinned down.
"""

from __future__ import annotations

import asyncio
import gc
import json
import sys
from typing import Any

from tooluse import Agent, Runner, function_tool

from .openai_server import Call, ScriptedServer, Turn, open_sockets

RUNS_AT_ONCE = 100


@function_tool
def get_weather(city: str) -> str:
    """Get the weather.

    Args:
        city: The city.
    """
    return f"sunny in {city}"


FIRST = Turn(calls=[Call("get_weather", '{"city": "Oslo"}')])
"""The model's first turn: one call of `get_weather` (tests/test_run_failures.py uses it too)."""


async def streamed_run(agent: Agent[Any]) -> None:
    result = Runner.run_streamed(agent, "go")
    async for _ in result.stream_events():
        pass
    assert result.final_output == "done", result.final_output


async def main(api: str, rounds: int) -> dict[str, Any]:
    server = ScriptedServer()
    server.start()
    try:
        agent = Agent("a", tools=[get_weather], model=server.model(api))
        before = open_sockets()
        gc.disable()  # an unclosed stream must show as a socket, not be freed by the collector
        try:
            for _ in range(rounds):
                server.script(*(t for _ in range(RUNS_AT_ONCE) for t in (FIRST, Turn(text="done"))))
                await asyncio.gather(*(streamed_run(agent) for _ in range(RUNS_AT_ONCE)))
            left_open = open_sockets() - before
        finally:
            gc.enable()
        return {
            "left_open": left_open,
            "requests": len(server.requests),
            "last_request_is_json": bool(json.dumps(server.requests[-1]["body"])),
        }
    finally:
        server.stop()


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1], int(sys.argv[2])))), flush=True)
