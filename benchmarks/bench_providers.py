"""A request's overhead through `AnthropicModel` and `GeminiModel`, against their SDKs.

Run with:
    pip install -e '.[dev,bench]' && python benchmarks/bench_providers.py

One request: a user message and one function tool (`add`), answered with text, as
the official client makes it (`client.messages.create`, `client.aio.models.
generate_content`) and as tooluse's model makes it on the same client (the conversation
converted, the tool's schema in the provider's dialect, the reply read back into items
and usage). Plain and streamed. The servers are tests/anthropic_server.py and
tests/gemini_server.py in a process of their own (`_provider_server.py`), so that their
work is not in this process's timings.

Timed per request, rounds alternating between the sides: this process's CPU time
(`time.process_time`), the figure reported against the target (at most 1.2x the
client's own), and the wall time (printed). Clients, models and requests are built
once, outside the timing; every side is warmed and must give the same text before a
ratio is printed. `--quick`: a tenth of the requests; `--json PATH`: also write the
ratios (benchmarks/_common.py).
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from _common import Results, arguments, paired_ratio, rounds_of, verdict
from anthropic import AsyncAnthropic
from google.genai import Client

from tooluse import function_tool
from tooluse.models import AnthropicModel, GeminiModel, ModelRequest, ResponseDone, TextDelta

SERVER = Path(__file__).resolve().parent / "_provider_server.py"
ROUNDS = 9
TARGET = 1.2
QUESTION = "What is 2 + 3?"

Run = Callable[[], Awaitable[Any]]


@function_tool
def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: The first.
        b: The second.
    """
    return a + b


def anthropic_runners(url: str) -> dict[str, dict[str, Run]]:
    client = AsyncAnthropic(base_url=url, api_key="bench", max_retries=0)
    model = AnthropicModel("claude-bench", client)
    request = ModelRequest(
        None, [{"role": "user", "content": QUESTION}], tools=[add], max_retries=0
    )
    tool = {"name": "add", "description": add.description, "input_schema": add.params_json_schema}
    params: dict[str, Any] = {
        "model": "claude-bench",
        "max_tokens": 8192,
        "messages": [{"role": "user", "content": QUESTION}],
        "tools": [tool],
    }

    async def sdk() -> str:
        message = await client.messages.create(**params)
        return "".join(block.text for block in message.content if block.type == "text")

    async def sdk_streamed() -> str:
        stream = await client.messages.create(**params, stream=True)
        async with stream:
            text = [
                event.delta.text
                async for event in stream
                if event.type == "content_block_delta" and event.delta.type == "text_delta"
            ]
        return "".join(text)

    async def ours() -> str:
        response = await model.get_response(request)
        return "".join(part["text"] for item in response.output for part in item["content"])

    async def ours_streamed() -> str:
        text = [e.delta async for e in model.stream_response(request) if isinstance(e, TextDelta)]
        return "".join(text)

    return {
        "plain": {"anthropic": sdk, "tooluse": ours},
        "streamed": {"anthropic": sdk_streamed, "tooluse": ours_streamed},
    }


def gemini_runners(url: str) -> dict[str, dict[str, Run]]:
    client = Client(api_key="bench", http_options={"base_url": url})
    model = GeminiModel("gemini-bench", client)
    request = ModelRequest(None, [{"role": "user", "content": QUESTION}], tools=[add])
    declaration = model.params(request)["config"]["tools"][0]["function_declarations"][0]
    config: dict[str, Any] = {"tools": [{"function_declarations": [declaration]}]}
    contents = [{"role": "user", "parts": [{"text": QUESTION}]}]

    async def sdk() -> str:
        response = await client.aio.models.generate_content(
            model="gemini-bench", contents=contents, config=config
        )
        return response.text or ""

    async def sdk_streamed() -> str:
        stream = await client.aio.models.generate_content_stream(
            model="gemini-bench", contents=contents, config=config
        )
        return "".join([chunk.text or "" async for chunk in stream])

    async def ours() -> str:
        response = await model.get_response(request)
        return "".join(part["text"] for item in response.output for part in item["content"])

    async def ours_streamed() -> str:
        events = [e async for e in model.stream_response(request)]
        assert isinstance(events[-1], ResponseDone)
        return "".join(e.delta for e in events if isinstance(e, TextDelta))

    return {
        "plain": {"gemini": sdk, "tooluse": ours},
        "streamed": {"gemini": sdk_streamed, "tooluse": ours_streamed},
    }


async def measure(
    results: Results, provider: str, runners: dict[str, dict[str, Run]], n: int
) -> None:
    for mode, sides in runners.items():
        cpu = await rounds_of(sides, n, ROUNDS, time.process_time)
        wall = await rounds_of(sides, n, ROUNDS, time.perf_counter)
        ratio = paired_ratio(cpu["tooluse"], cpu[provider])
        wall_ratio = paired_ratio(wall["tooluse"], wall[provider])
        figure = f"{provider} {mode}: tooluse/{provider} CPU per request"
        results.ratio(figure, ratio, TARGET)
        per = {name: f"{statistics_ms(values)} ms" for name, values in cpu.items()}
        print(f"{figure}: {ratio:.3f} {verdict(ratio, TARGET)}")
        print(f"    CPU per request {per}; wall ratio {wall_ratio:.3f}")


def statistics_ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.3f}"


async def main() -> None:
    args = arguments(__doc__ or "")
    n = 20 if args.quick else 200
    server = subprocess.Popen(
        [sys.executable, str(SERVER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        claude_url, gemini_url = server.stdout.readline().split()
        results = Results()
        await measure(results, "anthropic", anthropic_runners(claude_url), n)
        await measure(results, "gemini", gemini_runners(gemini_url), n)
        results.write(args.json)
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=10)


if __name__ == "__main__":
    asyncio.run(main())
