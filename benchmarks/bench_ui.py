"""What the UI adapters add to a streamed run: AG-UI and the Vercel AI SDK's stream, per event.

Run with:
    pip install -e '.[dev,bench]' && python benchmarks/bench_ui.py [--quick] [--json PATH]

One streamed run (an in-process `FunctionModel`: a tool call, then a 373-character answer
streamed 4 characters a piece, about 110 stream events) is consumed three ways, in
alternating rounds (CPU time of the process, GC collected first):

- `run`: `Runner.run_streamed(...)` and `stream_events()` read to the end, the run's
  own stream;
- `ag-ui`: the same run as `ag_ui_app` serves it, without the HTTP server: the request's
  body parsed (`RunAgentInput`), the thread held, the run's events turned into the SSE
  text of their AG-UI events, the pieces kept as the response would send them;
- `vercel`: the same as `vercel_ai_app` serves it: the body read, each event turned
  into the SSE text of its UI message stream parts.

Each request is a new thread (so that no history grows across rounds); the bodies are
made before the clock starts (making them is the client's work). Before any
ratio, the answer text read back from each stream (the SSE text parsed) must be the
run's. Figures: each adapter's time over the run's, the cost per run stream event of the
whole UI stream over the run's own (issue #35's budget: at most 1.5).
"""

from __future__ import annotations

import asyncio
import gc
import json
import time
import uuid
from typing import Any

from _common import Results, arguments, paired_ratio, per_call, same_outputs, verdict
from ag_ui.core import RunAgentInput

from tooluse import Agent, Runner, function_tool
from tooluse.testing import FunctionModel, ModelReply, ToolCall
from tooluse.ui._ag_ui import ag_ui_stream
from tooluse.ui._threads import Threads
from tooluse.ui._vercel import vercel_request, vercel_stream

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


def streamed_text(body: str, kind: str, field: str) -> str:
    """The text deltas of an SSE body, joined: what a client shows."""
    events = [json.loads(line[6:]) for line in body.splitlines() if line.startswith("data: {")]
    return "".join(event[field] for event in events if event["type"] == kind)


def ag_ui_body(thread_id: str) -> bytes:
    """An AG-UI request (`RunAgentInput`) asking about the weather, on a thread of its own."""
    message = {"id": "u1", "role": "user", "content": "Weather in Paris?"}
    body: dict[str, Any] = {
        "threadId": thread_id,
        "runId": uuid.uuid4().hex,
        "messages": [message],
        "state": {},
        "tools": [],
        "context": [],
        "forwardedProps": {},
    }
    return json.dumps(body).encode()


def vercel_body(chat_id: str) -> bytes:
    """A `useChat` request asking about the weather, in a chat of its own."""
    user = {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Weather?"}]}
    return json.dumps({"id": chat_id, "messages": [user], "trigger": "submit-message"}).encode()


async def main() -> None:
    args = arguments(__doc__ or "")
    n, rounds = (5, 5) if args.quick else (20, 21)
    agent = make_agent()
    ag_threads, vercel_threads = Threads(None), Threads(None)
    counted: dict[str, int] = {}

    async def run() -> Any:
        result = Runner.run_streamed(agent, "Weather in Paris?")
        events = 0
        async for _ in result.stream_events():
            events += 1
        counted["run"] = events
        return result.final_output

    # The requests' bodies, as the server receives them, made before the clock: what the
    # client spends making them is not the server's. Each is a new thread.
    requests = 3 + 3 + n * rounds
    ag_bodies = iter([ag_ui_body(uuid.uuid4().hex) for _ in range(requests)])
    vercel_bodies = iter([vercel_body(uuid.uuid4().hex) for _ in range(requests)])

    async def ag_ui() -> Any:
        run_input = RunAgentInput.model_validate_json(next(ag_bodies))
        sent = [chunk async for chunk in ag_ui_stream(agent, ag_threads, run_input)]
        return "".join(sent)

    async def vercel() -> Any:
        chat_id, request, continued = vercel_request(json.loads(next(vercel_bodies)))
        parts = vercel_stream(agent, vercel_threads, chat_id, request, None, continued)
        sent = [chunk async for chunk in parts]
        return "".join(sent)

    gc.collect()
    runners = {"run": run, "ag-ui": ag_ui, "vercel": vercel}
    first: dict[str, Any] = {}
    for _ in range(3):  # warm, then check what a client reads of the last streams
        first = {name: await runner() for name, runner in runners.items()}
    texts: dict[str, Any] = {
        "run": first["run"],
        "ag-ui": streamed_text(first["ag-ui"], "TEXT_MESSAGE_CONTENT", "delta"),
        "vercel": streamed_text(first["vercel"], "text-delta", "delta"),
        "answer": ANSWER,
    }
    same_outputs(texts)
    samples: dict[str, list[float]] = {name: [] for name in runners}
    for _ in range(rounds):
        for name, runner in runners.items():
            samples[name].append(await per_call(runner, n, time.process_time))
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
