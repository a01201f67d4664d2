"""A 50-turn run replayed from a cassette, side by side with the live run it replaces.

Run with:
    pip install -e '.[bench]' && python benchmarks/bench_cassette.py [--quick] [--json PATH]

One 50-turn run (49 calls of a trivial tool, then an answer) is recorded once from an
`OpenAIChatCompletionsModel` talking to the scripted OpenAI server of
tests/openai_server.py on 127.0.0.1 (in this process, HTTP/1.1 keep-alive). Then three
sides run it, alternating rounds, and must end with the same answer:

- `replay`: `ReplayModel` over the cassette (fingerprint each request, find it, load
  the recorded response; no network, no sleeps);
- `live HTTP`: the same model and server the cassette was recorded from;
- `scripted`: a `FunctionModel` answering the same, the loop's own cost with a model
  that does nothing.

Figures (CPU time of the process, every thread): milliseconds per replayed 50-turn run,
replay/live HTTP (below 1.0: replay is faster than the local server, which costs far less
than a real API), and replay/scripted (what the cassette adds over a model that does
nothing; at most 2.0, issue #35).
"""

from __future__ import annotations

import asyncio
import gc
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from openai import AsyncOpenAI

from tooluse import Agent, OpenAIChatCompletionsModel, Runner, function_tool
from tooluse.testing import FunctionModel, ModelReply, RecordingModel, ReplayModel, ToolCall

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Results, arguments, paired_ratio, rounds_of, verdict
from tests.openai_server import Call, ScriptedServer, Turn, sent_tool_outputs

TURNS = 50
ANSWER = f"done after {TURNS - 1} calls"


@function_tool
def echo(x: int) -> str:
    """Echo a number.

    Args:
        x: The number.
    """
    return str(x)


def served(body: dict[str, Any]) -> Turn:
    done = len(sent_tool_outputs(body))
    if done < TURNS - 1:
        return Turn(calls=[Call("echo", f'{{"x": {done}}}', f"call_{done}")])
    return Turn(text=ANSWER)


def scripted(items: list[Any], tools: Any) -> ModelReply | str:
    done = sum(1 for item in items if item.get("type") == "function_call_output")
    if done < TURNS - 1:
        return ModelReply(tool_calls=[ToolCall("echo", {"x": done})])
    return ANSWER


def agent(model: Any) -> Agent[Any]:
    return Agent("echo", instructions="Echo until done.", tools=[echo], model=model)


async def main() -> None:
    args = arguments(__doc__ or "")
    n, rounds = (2, 5) if args.quick else (5, 15)
    server = ScriptedServer(served, keep_alive=True)
    server.start()
    client = AsyncOpenAI(base_url=server.base_url, api_key="bench", max_retries=0)
    live = agent(OpenAIChatCompletionsModel("bench-model", client))
    cassette = Path(tempfile.mkdtemp()) / "echo.jsonl"
    recording = agent(RecordingModel(OpenAIChatCompletionsModel("bench-model", client), cassette))
    assert (await Runner.run(recording, "go", max_turns=TURNS)).final_output == ANSWER

    async def replay() -> Any:  # a fresh ReplayModel: every recorded call is left to replay
        return (await Runner.run(agent(ReplayModel(cassette)), "go", max_turns=TURNS)).final_output

    async def over_http() -> Any:
        return (await Runner.run(live, "go", max_turns=TURNS)).final_output

    script = agent(FunctionModel(scripted))

    async def with_script() -> Any:
        return (await Runner.run(script, "go", max_turns=TURNS)).final_output

    try:
        # CPU time of the process (every thread): waiting for a core on a shared machine,
        # a worker thread's wake-up above all, is left out.
        gc.collect()
        samples = await rounds_of(
            {"replay": replay, "live HTTP": over_http, "scripted": with_script},
            n,
            rounds,
            time.process_time,
        )
    finally:
        await client.close()
        server.stop()
    results = Results()
    replay_ms = sorted(samples["replay"])[len(samples["replay"]) // 2] * 1000
    print(f"{TURNS}-turn run replayed from a cassette: {replay_ms:.1f} ms (median)")
    for peer in ("live HTTP", "scripted"):
        ratio = paired_ratio(samples["replay"], samples[peer])
        target = 2.0 if peer == "scripted" else None  # issue #35
        results.ratio(f"replay / {peer}, {TURNS} turns", ratio, target)
        print(f"replay / {peer}: {ratio:.3f} {verdict(ratio, target)}")
    results.write(args.json)


if __name__ == "__main__":
    asyncio.run(main())
