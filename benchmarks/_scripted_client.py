"""An in-process stand-in for `AsyncOpenAI`, shared by the scaling benchmarks.

Both SDKs' own OpenAI models (Chat Completions and Responses) call it, so the
whole request path runs (converting the conversation, serialising the tools)
while the "server" costs the same for both: `create(...)` hands back the next
reply of a script, parsed once into the openai client's own types before the
timing starts.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from _common import Results, verdict
from openai.types.chat import ChatCompletion
from openai.types.responses import Response

APIS = ("chat", "responses")
SDKS = ("tooluse", "openai-agents")
TARGET_GROWTH = 1.5
"""The issue's bound on tooluse's growth along either curve."""

__all__ = [
    "APIS",
    "SDKS",
    "TARGET_GROWTH",
    "ScriptedClient",
    "chat_script",
    "median_seconds",
    "report_growth",
    "responses_script",
    "timed_runs",
]


class _Endpoint:
    def __init__(self, client: ScriptedClient) -> None:
        self._client = client

    async def create(self, **params: Any) -> Any:
        client = self._client
        if client.stamps is not None:
            client.stamps.append(time.process_time())
        client.requests += 1
        reply = client.script[client.position]
        client.position += 1
        return reply


class _Chat:
    def __init__(self, client: ScriptedClient) -> None:
        self.completions = _Endpoint(client)


class ScriptedClient:
    """Answers `chat.completions.create` and `responses.create` from a script."""

    base_url = "http://127.0.0.1:1/v1"  # not OpenAI's: no provider-specific params
    websocket_base_url = None
    max_retries = 0

    def __init__(self, *, stamped: bool = False) -> None:
        """A client with no script yet.

        Args:
            stamped: Note the process's CPU time as each call comes in (`stamps`).
        """
        self.script: list[Any] = []
        self.position = 0
        self.requests = 0
        self.stamps: list[float] | None = [] if stamped else None
        """CPU time at each call since the script began playing, when stamped."""
        self.chat = _Chat(self)
        self.responses = _Endpoint(self)

    def play(self, script: list[Any]) -> None:
        """Answer the next calls with `script`, from its start."""
        self.script, self.position = script, 0
        if self.stamps is not None:
            self.stamps = []

    def with_options(self, **options: Any) -> ScriptedClient:
        return self


def _usage_chat() -> dict[str, Any]:
    return {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


def chat_script(turns: int, tool: str = "echo", arguments: str = '{"x": 1}') -> list[Any]:
    """`turns` Chat completions: a call of `tool` in each but the last, then "done"."""
    replies: list[Any] = []
    for turn in range(turns - 1):
        call = {"id": f"call_{turn}", "type": "function"}
        call["function"] = {"name": tool, "arguments": arguments}
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        replies.append(_completion(turn, message, "tool_calls"))
    replies.append(_completion(turns, {"role": "assistant", "content": "done"}, "stop"))
    return replies


def _completion(turn: int, message: dict[str, Any], finish: str) -> ChatCompletion:
    choice = {"index": 0, "message": message, "finish_reason": finish}
    return ChatCompletion.model_validate(
        {
            "id": f"chatcmpl-{turn}",
            "object": "chat.completion",
            "created": 0,
            "model": "scripted",
            "choices": [choice],
            "usage": _usage_chat(),
        }
    )


def responses_script(turns: int, tool: str = "echo", arguments: str = '{"x": 1}') -> list[Any]:
    """`turns` Responses: a call of `tool` in each but the last, then "done"."""
    replies: list[Any] = []
    for turn in range(turns - 1):
        call = {
            "type": "function_call",
            "id": f"fc_{turn}",
            "call_id": f"call_{turn}",
            "name": tool,
            "arguments": arguments,
            "status": "completed",
        }
        replies.append(_response(turn, call))
    text = {"type": "output_text", "text": "done", "annotations": []}
    message = {
        "type": "message",
        "id": "msg_final",
        "role": "assistant",
        "status": "completed",
        "content": [text],
    }
    replies.append(_response(turns, message))
    return replies


def _response(turn: int, item: dict[str, Any]) -> Response:
    return Response.model_validate(
        {
            "id": f"resp_{turn}",
            "object": "response",
            "created_at": 0,
            "model": "scripted",
            "status": "completed",
            "output": [item],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": {
                "input_tokens": 10,
                "output_tokens": 5,
                "total_tokens": 15,
                "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": 0},
            },
        }
    )


async def median_seconds(run: Callable[[], Awaitable[Any]], repeat: int, rounds: int) -> float:
    """The median over `rounds` of the mean CPU time of `repeat` awaited calls of `run`.

    CPU time of the process, not wall time: on a shared machine other processes
    then slow neither side.
    """
    times: list[float] = []
    for _ in range(rounds):
        started = time.process_time()
        for _ in range(repeat):
            await run()
        times.append((time.process_time() - started) / repeat)
    return statistics.median(times)


async def timed_runs(
    sdk: str, client: ScriptedClient, run: Callable[[], Awaitable[Any]], script: Any, repeat: int
) -> float:
    """CPU seconds per run (`median_seconds`, one round) of `run` playing `script` on `client`.

    Each run must answer "done"; anything else stops the benchmark.
    """

    async def one() -> Any:
        client.play(script)
        output = await run()
        if output != "done":
            raise AssertionError(f"{sdk}: the run answered {output!r}, not 'done'")

    return await median_seconds(one, repeat, 1)


def report_growth(
    cost: dict[tuple[str, str, int], float],
    sizes: tuple[int, ...],
    what: str,
    json_path: str | None,
) -> None:
    """Print tooluse's and openai-agents' cost along `sizes` on each API; write the figures.

    Args:
        cost: Seconds, by (SDK, API, size).
        sizes: The sizes measured, cheapest expected first.
        what: What a size counts ("turns of history", "tools").
        json_path: Where `--json` asked the figures to go (`_common.Results`), if anywhere.
    """
    results = Results()
    first, last = sizes[0], sizes[-1]
    for api in APIS:
        print(f"\n{api}: cost (us) with n {what}")
        print(f"{'n':>5} {'tooluse':>10} {'openai-agents':>14} {'ratio':>7}")
        for n in sizes:
            ours, theirs = cost["tooluse", api, n], cost["openai-agents", api, n]
            print(f"{n:>5} {ours * 1e6:>10.1f} {theirs * 1e6:>14.1f} {ours / theirs:>7.3f}")
        for sdk in SDKS:
            growth = cost[sdk, api, last] / cost[sdk, api, first]
            print(f"  growth {first} -> {last} {what}, {sdk}: {growth:.2f}x")
        growth = cost["tooluse", api, last] / cost["tooluse", api, first]
        print(f"  tooluse growth: {verdict(growth, TARGET_GROWTH)}")
        results.ratio(f"{api}: tooluse growth {first} -> {last} {what}", growth, TARGET_GROWTH)
        ratio = cost["tooluse", api, last] / cost["openai-agents", api, last]
        results.ratio(f"{api}: tooluse/openai-agents at {last} {what}", ratio)
    results.write(Path(json_path) if json_path else None)
