"""What a context policy's budget checks and trimming cost a 200-turn run, side by side.

Run with:
    pip install -e '.[bench]' && python benchmarks/bench_context.py [--quick] [--json PATH]

The same agent runs 200 turns (a tool call a turn, each output 5,000 characters, then
an answer), with and without a policy, in alternating rounds:

- **checks**: `ContextPolicy(max_input_tokens=10_000_000)`, a budget the run never
  reaches: each request is estimated (the last count plus the items added since), and
  nothing else happens;
- **trimming**: `ContextPolicy(max_input_tokens=40_000, keep_recent_turns=4,
  trim_tool_outputs_to=200)`: the history passes the budget after about 30 turns, and
  from then on the oldest outputs are trimmed in batches (no compaction: a summary is a
  model call, whose cost is the provider's).

On three models: tooluse's `OpenAIResponsesModel` over loopback HTTP, the scripted
server of tests/openai_server.py in a process of its own (the run as users run it: the
client writes each request's JSON; the server's work is not in the timing); the same
model over the in-process client of `_scripted_client.py` (no JSON, no HTTP); and an
O(1) scripted model (the loop's own cost only). The issue's bound, 1.05 (at most 5 %
of the run's CPU), is held to over HTTP; the in-process figures are printed, as the
worst case. Times are CPU time of the whole process; each ratio is the median over the
rounds of each round's ratio (with/without); both sides must give the same answer.

And one figure of its own: **a trim pass**, the policy's trimming step alone
(`tooluse.run._fit._trim`) over a 200-turn history of 5,000-character outputs that
is far over the budget, so that it trims every output but the last turns'; the
median CPU time of many passes, each on a fresh copy. The issue's bound (#35) is
1 ms.

Trimming makes the requests smaller, so over HTTP the run with it costs less than the
run without. In process, a trim changes an older item of the history sent, and the
model's memo (`models/_converted.py`) converts the conversation again from that item
on (the items before it stay as converted); trimming works in batches, down to a
quarter under the budget, so that such changes are few (a provider likewise reads the
request again past its prompt cache from the first change).
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from _common import Results, arguments, paired_ratio, rounds_of, verdict
from _scripted_client import ScriptedClient, responses_script
from openai import AsyncOpenAI

import tooluse
from tooluse.core._context_record import ContextRecord
from tooluse.core._state import RunState
from tooluse.models import Model, ModelRequest, ModelResponse, StreamEvent
from tooluse.run._context_view import recent_start
from tooluse.run._fit import _trim  # pyright: ignore[reportPrivateUsage] - the step measured
from tooluse.run._record import RunRecord
from tooluse.run._token_estimate import items_tokens

TURNS = 200
OUTPUT = "x" * 5_000
TARGET = 1.05
ROUNDS = 7
TRIM_TARGET_MS = 1.0
TRIM_SAMPLES = 201
Runner = Callable[[], Awaitable[Any]]


class Pages(Model):
    """Calls the tool until the history holds `TURNS` outputs, then answers: O(1) a call."""

    def __init__(self) -> None:
        self.sizes: list[int] = []
        call = {"type": "function_call", "call_id": "", "name": "page", "arguments": "{}"}
        self.calls = [
            ModelResponse([{**call, "call_id": f"call_{n}"}], tooluse.Usage(requests=1))
            for n in range(TURNS + 1)
        ]
        answer = {"type": "message", "role": "assistant", "content": "done"}
        self.answer = ModelResponse([answer], tooluse.Usage(requests=1))

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        turn = (len(request.input) - 1) // 2
        return self.answer if turn >= TURNS else self.calls[turn]

    def stream_response(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        raise NotImplementedError


async def page() -> str:
    """A page of the log."""
    return OUTPUT


POLICY = tooluse.ContextPolicy(
    max_input_tokens=40_000, keep_recent_turns=4, trim_tool_outputs_to=200
)


CHECKS_ONLY = tooluse.ContextPolicy(max_input_tokens=10_000_000)
"""A budget the run never reaches: each request is estimated, nothing is trimmed."""


def runners(
    model: Model, client: ScriptedClient | None = None, policy: tooluse.ContextPolicy = POLICY
) -> dict[str, Runner]:
    """The run without and with `policy`, on `model` (replaying the script on `client`)."""
    agent = tooluse.Agent("reader", tools=[tooluse.function_tool(page)], model=model)
    plain, fitted = tooluse.RunConfig(), tooluse.RunConfig(context=policy)
    script = responses_script(TURNS + 1, tool="page", arguments="{}")

    def run(config: tooluse.RunConfig) -> Runner:
        async def once() -> Any:
            if client is not None:
                client.play(script)
            result = await tooluse.Runner.run(agent, "go", max_turns=TURNS + 1, run_config=config)
            return result.final_output, len(result.new_items)

        return once

    return {"without a policy": run(plain), "with the policy": run(fitted)}


async def measure(title: str, runs: dict[str, Runner], rounds: int) -> float:
    samples = await rounds_of(runs, 1, rounds, time.process_time)
    print(title)
    for name, values in samples.items():
        print(f"  {name:>16}: {statistics.median(values) * 1e3:7.1f} ms CPU a 200-turn run")
    return paired_ratio(samples["with the policy"], samples["without a policy"])


def trim_pass_ms(samples: int) -> float:
    """The median CPU time of one trim pass over a 200-turn history, in milliseconds."""
    history: list[Any] = [{"role": "user", "content": "go"}]
    for turn in range(TURNS):
        call_id = f"call_{turn}"
        history.append(
            {"type": "function_call", "call_id": call_id, "name": "page", "arguments": "{}"}
        )
        history.append({"type": "function_call_output", "call_id": call_id, "output": OUTPUT})
    protected = recent_start(history, POLICY.keep_recent_turns)
    tokens = items_tokens(history)
    record = RunRecord(RunState(agent_name="reader", input=history[:1]))
    times: list[float] = []
    for _ in range(samples):
        context, view = ContextRecord(), list(history)  # what a pass changes: made anew
        start = time.process_time()
        left = _trim(POLICY, record, context, history, view, protected, tokens)
        times.append(time.process_time() - start)
        assert left <= POLICY.max_input_tokens  # all but the last turns' outputs trimmed
        assert len(context.trimmed) == TURNS - POLICY.keep_recent_turns
    return statistics.median(times) * 1e3


def serve() -> None:
    """The server of tests/openai_server.py playing the 200 turns (`--serve`, a process)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.openai_server import Call, ScriptedServer, Turn

    def reply(body: dict[str, Any]) -> Turn:
        calls = sum(1 for item in body["input"] if item.get("type") == "function_call")
        return Turn(text="done") if calls >= TURNS else Turn(calls=[Call("page", "{}", "c")])

    server = ScriptedServer(reply, keep_alive=True)
    server.start()
    print(server.base_url, flush=True)
    sys.stdin.read()  # until the benchmark closes our stdin
    server.stop()


def start_server() -> tuple[subprocess.Popen[str], str]:
    command = [sys.executable, __file__, "--serve"]
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    return server, server.stdout.readline().strip()


async def main() -> None:
    args = arguments(__doc__ or "")
    rounds = 3 if args.quick else ROUNDS
    results = Results()
    client = ScriptedClient()
    model = tooluse.OpenAIResponsesModel("scripted", openai_client=client)  # type: ignore[arg-type]
    server, base_url = start_server()
    http = AsyncOpenAI(base_url=base_url, api_key="test-key", max_retries=0)
    over_http = tooluse.OpenAIResponsesModel("test-model", openai_client=http)
    cases = [
        ("checks", "Responses model over HTTP", runners(over_http, None, CHECKS_ONLY), TARGET),
        ("trimming", "Responses model over HTTP", runners(over_http), TARGET),
        ("checks", "Responses model in process", runners(model, client, CHECKS_ONLY), None),
        ("trimming", "Responses model in process", runners(model, client), None),
        ("checks", "O(1) model", runners(Pages(), None, CHECKS_ONLY), None),
        ("trimming", "O(1) model", runners(Pages()), None),
    ]
    for what, on, runs, target in cases:
        ratio = await measure(f"{what}, {on}:", runs, rounds)
        print(f"  with/without: {ratio:.3f} {verdict(ratio, target)}")
        results.ratio(f"context policy ({what}), 200 turns on the {on}", ratio, target)
    assert server.stdin is not None
    server.stdin.close()
    server.wait()
    trim_ms = trim_pass_ms(TRIM_SAMPLES // 4 if args.quick else TRIM_SAMPLES)
    print("a trim pass over a 200-turn history (5,000-character outputs), alone:")
    print(f"  {trim_ms:.3f} ms CPU {verdict(trim_ms, TRIM_TARGET_MS)}")
    results.ratio("a trim pass over 200 turns, ms CPU", trim_ms, TRIM_TARGET_MS)
    results.write(args.json)


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        serve()
    else:
        asyncio.run(main())
