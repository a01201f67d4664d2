"""What the UI adapters add to a streamed run: AG-UI and the Vercel AI SDK's stream, per event.

Run with:
    pip install -e '.[dev,bench]' && python benchmarks/bench_ui.py [--quick] [--json PATH]

One streamed run (an in-process `FunctionModel`: a tool call, then a 373-character answer
streamed 4 characters a piece, about 110 stream events) is consumed three ways, in
alternating rounds (CPU time of the process, GC collected first):

- `run`: `Runner.run_streamed(...)` and `stream_events()` read to the end, the run's
  own stream;
- `ag-ui`: the same run as `ag_ui_app` serves it, without the HTTP server: the request
  parsed (`RunAgentInput`), the thread held, the run's events translated to AG-UI events
  and each encoded as the SSE text the response sends;
- `vercel`: the same as `vercel_ai_app` serves it: the request read, each event turned
  into UI message stream parts and written as SSE lines.

Each request is a new thread (so that no history grows across rounds). Figures: each
adapter's time over the run's, the cost per run stream event of the whole UI stream over
the run's own (issue #35's budget: at most 1.5).
"""

from __future__ import annotations

import asyncio
import gc
import time
import uuid
from typing import Any

from _common import Results, arguments, paired_ratio, rounds_of, verdict
from ag_ui.core import RunAgentInput
from ag_ui.encoder import EventEncoder

from tooluse import Agent, Runner, function_tool
from tooluse.testing import FunctionModel, ModelReply, ToolCall
from tooluse.ui._ag_ui import ag_ui_stream
from tooluse.ui._threads import Threads
from tooluse.ui._vercel import _sse, _stream, vercel_request  # pyright: ignore[reportPrivateUsage]

ANSWER = "The weather in Paris is sunny and 21 degrees. " * 8 + "Done."
BUDGET = 1.5


@function_tool
async def get_weather(city: str) -> str:
    """Get the weather in a city.

    Args:
        city: The city.
    """
    return "Sunny, 21"


def reply(items: list[Any], tools: Any) -> ModelReply | str:
    if not any(item.get("type") == "function_call_output" for item in items):
        return ModelReply(tool_calls=[ToolCall("get_weather", {"city": "Paris"}, "call_1")])
    return ANSWER


def make_agent() -> Agent[Any]:
    model = FunctionModel(reply, piece_size=4)
    return Agent("weather", instructions="Be brief.", tools=[get_weather], model=model)


async def main() -> None:
    args = arguments(__doc__ or "")
    n, rounds = (5, 5) if args.quick else (20, 21)
    agent = make_agent()
    ag_threads, vercel_threads = Threads(None), Threads(None)
    encoder = EventEncoder()
    counted: dict[str, int] = {}

    async def run() -> Any:
        result = Runner.run_streamed(agent, "Weather in Paris?")
        events = 0
        async for _ in result.stream_events():
            events += 1
        counted["run"] = events
        return result.final_output

    async def ag_ui() -> Any:
        body = {
            "threadId": uuid.uuid4().hex,
            "runId": uuid.uuid4().hex,
            "messages": [{"id": "u1", "role": "user", "content": "Weather in Paris?"}],
            "state": {},
            "tools": [],
            "context": [],
            "forwardedProps": {},
        }
        run_input = RunAgentInput.model_validate(body)
        text = ""
        async for event in ag_ui_stream(agent, ag_threads, run_input):
            chunk = encoder.encode(event)
            if '"TEXT_MESSAGE_CONTENT"' in chunk or '"TEXT_MESSAGE_CHUNK"' in chunk:
                text += event.delta  # type: ignore[attr-defined]
        return text

    async def vercel() -> Any:
        user = {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Weather?"}]}
        body = {"id": uuid.uuid4().hex, "messages": [user], "trigger": "submit-message"}
        chat_id, request, continued = vercel_request(body)
        text = ""
        parts = _stream(agent, vercel_threads, chat_id, request, None, continued)
        async for line in _sse(parts):
            if line.startswith('data: {"type":"text-delta"'):
                text += line.split('"delta":', 1)[1][1:].rsplit('"', 1)[0]
        return text

    gc.collect()
    runners = {"run": run, "ag-ui": ag_ui, "vercel": vercel}
    first = {name: await runner() for name, runner in runners.items()}
    if not (first["run"] == first["ag-ui"] == first["vercel"] == ANSWER):
        raise SystemExit(f"the three streams differ, no ratio printed: {first!r}")
    samples = await rounds_of(runners, n, rounds, time.process_time)
    events = counted["run"]
    results = Results()
    run_us = sorted(samples["run"])[rounds // 2] * 1e6
    print(f"one streamed run, {events} stream events (CPU time per run):")
    print(f"  run's own stream              {run_us:8.1f}us  {run_us / events:6.2f}us an event")
    for name in ("ag-ui", "vercel"):
        ratio = paired_ratio(samples[name], samples["run"])
        ui_us = sorted(samples[name])[rounds // 2] * 1e6
        print(
            f"  {name:<6} (run + translate + encode) {ui_us:8.1f}us  "
            f"{ui_us / events:6.2f}us a run event  {name}/run = {ratio:.3f}  "
            f"{verdict(ratio, BUDGET)}"
        )
        results.ratio(f"{name} stream / the run's own stream, per event", ratio, BUDGET)
    results.write(args.json)


if __name__ == "__main__":
    asyncio.run(main())
