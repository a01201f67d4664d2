"""The context policy: requests kept within a token budget by trimming and compaction.

Against the real `openai` client and the local server (which counts each request's
tokens itself), scripted models, SQLite sessions, a subprocess that resumes a state,
and OpenTelemetry's in-memory exporter.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tooluse import (
    Agent,
    ContextPolicy,
    RunConfig,
    RunContextWrapper,
    RunHooks,
    Runner,
    RunState,
    UsageLimitExceeded,
    UsageLimits,
    UserError,
    function_tool,
)
from tooluse.cli._chat import history_line
from tooluse.core._context_record import SUMMARY_HEADER
from tooluse.core._items import Item
from tooluse.exceptions import ContextWindowExceeded
from tooluse.models import ModelRequest
from tooluse.sessions import SQLiteSession
from tooluse.testing import FunctionModel, ModelReply, ToolCall

from .openai_server import Call, ScriptedServer, Turn
from .test_tracing import Traced

SUMMARISE = "Summarise for the test."
BIG = 50_000


def server_tokens(body: dict[str, Any]) -> int:
    """The server's own count of a request's input tokens: a quarter of the characters of
    the JSON of its input, instructions and tools, rounded up (the client's estimate is
    of the same kind, item by item)."""
    sent = json.dumps(body.get("input")) + (body.get("instructions") or "")
    return math.ceil((len(sent) + len(json.dumps(body.get("tools") or []))) / 4)


@function_tool
def fetch(page: int) -> str:
    """Fetch a page of the log.

    Args:
        page: The page.
    """
    return f"page {page}: " + "x" * BIG


class CountingServer:
    """The local server, answering a 200-turn script and counting each request's tokens."""

    def __init__(self, turns: int) -> None:
        self.turns = turns
        self.answered = 0
        self.counts: list[int] = []
        self.compactions: list[str] = []
        self.server = ScriptedServer(self.reply)

    def reply(self, body: dict[str, Any]) -> Turn:
        tokens = server_tokens(body)
        self.counts.append(tokens)
        usage = {
            "input_tokens": tokens,
            "output_tokens": 5,
            "total_tokens": tokens + 5,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        }
        if body.get("instructions") == SUMMARISE:
            text = body["input"][0]["content"]
            self.compactions.append(text)
            return Turn(text=f"summary {len(self.compactions)}: pages read so far", usage=usage)
        self.answered += 1
        if self.answered > self.turns:
            return Turn(text="done", usage=usage)
        return Turn(calls=[Call("fetch", json.dumps({"page": self.answered}))], usage=usage)


async def test_a_200_turn_run_with_50kb_outputs_stays_within_20000_tokens() -> None:
    counting = CountingServer(200)
    counting.server.start()
    try:
        model = counting.server.model("responses")
        policy = ContextPolicy(
            max_input_tokens=20_000,
            keep_recent_turns=1,
            compaction_model=counting.server.model("responses"),
            compaction_instructions=SUMMARISE,
        )
        agent = Agent(name="reader", instructions="Read every page.", tools=[fetch], model=model)
        result = await Runner.run(
            agent, "Read the log.", max_turns=201, run_config=RunConfig(context=policy)
        )
    finally:
        counting.server.stop()
    assert result.final_output == "done"
    assert len(counting.counts) == 201 + len(counting.compactions)
    assert max(counting.counts) <= 20_000, max(counting.counts)
    assert len(counting.compactions) >= 10  # 200 x 12,500 tokens needs many summaries
    # Each compaction's transcript holds the summary before it: nothing is dropped unread.
    assert all("summary" in text for text in counting.compactions[1:])
    # Every original stays in the result; what was sent is recorded in the state.
    outputs = [i for i in result.new_items if i.get("type") == "function_call_output"]
    assert len(outputs) == 200
    assert all(len(i["output"]) > BIG for i in outputs)
    entries = result.usage
    compaction_entries = [e for e in entries.request_usage_entries if e.compaction]
    assert len(compaction_entries) == len(counting.compactions)
    assert entries.requests == 201 + len(counting.compactions)


def scripted_reader(pages: int, size: int = 4_000) -> tuple[FunctionModel, list[list[Item]]]:
    """A model that reads `pages` pages, one a turn, then answers; and what it was sent."""
    sent: list[list[Item]] = []

    def reply(items: list[Item], tools: Any) -> ModelReply | str:
        del tools
        sent.append(list(items))
        done = len(sent) - 1  # the pages asked for so far (a summary may stand for some)
        if done >= pages:
            return "done"
        return ModelReply(tool_calls=[ToolCall("page", {"n": done + 1, "size": size})])

    return FunctionModel(reply), sent


@function_tool
def page(n: int, size: int) -> str:
    """A page of a given size.

    Args:
        n: The page.
        size: Its length.
    """
    return f"page {n} " + "y" * size


def summariser(calls: list[str]) -> FunctionModel:
    def summarise(items: list[Item], tools: Any) -> str:
        del tools
        calls.append(items[0]["content"])
        return f"summary {len(calls)}"

    return FunctionModel(summarise)


def compacting(calls: list[str], **more: Any) -> ContextPolicy:
    """A budget of 3,500 tokens kept by compaction alone, written by `summariser(calls)`."""
    return ContextPolicy(
        max_input_tokens=3_500,
        keep_recent_turns=2,
        trim_tool_outputs_to=None,
        compaction_model=summariser(calls),
        **more,
    )


async def test_older_outputs_are_trimmed_first_with_a_note_and_the_originals_kept() -> None:
    model, sent = scripted_reader(6)
    policy = ContextPolicy(max_input_tokens=3_000, keep_recent_turns=1, trim_tool_outputs_to=100)
    agent = Agent(name="a", tools=[page], model=model)
    result = await Runner.run(agent, "go", run_config=RunConfig(context=policy))
    assert result.final_output == "done"
    last = sent[-1]
    outputs = [i["output"] for i in last if i.get("type") == "function_call_output"]
    assert outputs[-1] == "page 6 " + "y" * 4_000  # the last turn is kept whole
    trimmed = [o for o in outputs if "cut to fit the context window" in o]
    assert trimmed
    assert all(o.startswith("page ") and len(o) < 400 for o in trimmed)
    assert "Call the tool again" in trimmed[0]
    assert all(len(i["output"]) > 4_000 for i in result.new_items if "output" in i)


async def test_a_request_that_cannot_fit_stops_with_a_typed_error_naming_the_item() -> None:
    model, sent = scripted_reader(3, size=40_000)
    policy = ContextPolicy(max_input_tokens=5_000, keep_recent_turns=1)
    agent = Agent(name="a", tools=[page], model=model)
    with pytest.raises(ContextWindowExceeded) as caught:
        await Runner.run(agent, "go", run_config=RunConfig(context=policy))
    error = caught.value
    assert len(sent) == 1  # the second request was never sent
    assert error.budget == 5_000
    assert error.tokens > 5_000
    assert "function_call_output" in error.largest
    assert "keep_recent_turns=1" in error.largest
    assert "max_input_tokens" in str(error)
    assert "resume from this error's state" in str(error)
    assert error.state is not None
    assert len(error.state.new_items) == 2
    # Resumed with a larger budget, it goes on from where it stopped.
    bigger = RunConfig(context=ContextPolicy(max_input_tokens=100_000))
    result = await Runner.run(agent, error.state, run_config=bigger)
    assert result.final_output == "done"
    assert len(sent) == 4


async def test_compaction_replaces_the_oldest_turns_with_one_summary() -> None:
    model, sent = scripted_reader(8)
    calls: list[str] = []
    policy = compacting(calls, compaction_instructions=SUMMARISE)
    agent = Agent(name="a", tools=[page], model=model)
    result = await Runner.run(agent, "go", run_config=RunConfig(context=policy))
    assert result.final_output == "done"
    assert calls
    first = sent[-1][0]
    assert first["role"] == "user"
    assert first["content"].startswith(SUMMARY_HEADER)
    assert first["content"].endswith(f"summary {len(calls)}")
    # The summary stands for whole turns: what follows begins with a call, never an output.
    assert sent[-1][1].get("type") == "function_call"
    assert "User: go" in calls[0]
    assert "Output of page: page 1" in calls[0]
    state = result.usage.request_usage_entries
    assert [e.compaction for e in state].count(True) == len(calls)


async def test_compaction_is_counted_bounded_watched_and_traced() -> None:
    traced = Traced()
    model, _ = scripted_reader(8)
    calls: list[str] = []
    seen: list[str] = []

    class Hooks(RunHooks[Any]):
        async def on_llm_start(
            self,
            context: RunContextWrapper[Any],
            agent: Agent[Any],
            system_prompt: Any,
            input_items: Any,
        ) -> None:
            first = str(input_items[0]) if input_items else ""
            seen.append("summary" if "conversation so far" in first else "turn")

    policy = compacting(calls)
    agent = Agent(name="a", tools=[page], model=model)
    result = await Runner.run(agent, "go", hooks=Hooks(), run_config=traced.config(context=policy))
    assert calls
    assert seen.count("summary") == len(calls)
    assert seen.count("turn") == 9
    assert result.usage.requests == 9 + len(calls)
    summary_spans = list(traced.named("chat function:summarise"))
    assert len(summary_spans) == len(calls)
    assert all((s.attributes or {}).get("tooluse.compaction") is True for s in summary_spans)
    turns = list(traced.named("chat function:reply"))
    assert all("tooluse.compaction" not in (s.attributes or {}) for s in turns)
    # A request limit counts the compaction calls: the run stops at one, its state kept.
    limited = RunConfig(context=policy, usage_limits=UsageLimits(request_limit=5))
    calls.clear()
    fresh = Agent(name="a", tools=[page], model=scripted_reader(8)[0])
    with pytest.raises(UsageLimitExceeded) as caught:
        await Runner.run(fresh, "go", run_config=limited)
    assert calls  # the limit was reached at a compaction call
    assert caught.value.limit == "request_limit"
    assert caught.value.state is not None


def test_a_policy_is_checked_when_made() -> None:
    with pytest.raises(UserError) as caught:
        ContextPolicy(max_input_tokens=0, keep_recent_turns=-1, compaction_model=3)  # type: ignore[arg-type]
    message = str(caught.value)
    assert "max_input_tokens=0" in message
    assert "keep_recent_turns=-1" in message
    assert "compaction_model must be a model name" in message
    with pytest.raises(UserError, match="context must be a ContextPolicy"):
        RunConfig(context=60_000)  # type: ignore[arg-type]


class CountingModel(FunctionModel):
    """A model that counts tokens itself (as a provider's counting endpoint would)."""

    def __init__(self, counts: list[int], pages: int) -> None:
        model, _ = scripted_reader(pages)
        super().__init__(model.fn)
        self.counts = counts

    async def count_tokens(self, request: ModelRequest) -> int | None:
        count = 5 * len(request.input)
        self.counts.append(count)
        return count


async def test_a_model_that_counts_tokens_is_asked_instead_of_the_estimate() -> None:
    counts: list[int] = []
    policy = ContextPolicy(max_input_tokens=100, keep_recent_turns=1, count_with_model=True)
    agent = Agent(name="a", tools=[page], model=CountingModel(counts, 3))
    result = await Runner.run(agent, "go", run_config=RunConfig(context=policy))
    # By its count (5 an item) every request fits 100 tokens; estimated, the 4,000-character
    # pages would not.
    assert result.final_output == "done"
    assert counts == [5, 15, 25, 35]


# Resuming and sessions ------------------------------------------------------------------

RESUME = """
import asyncio, json, sys
from tooluse import Agent, Runner, RunState, RunConfig
from tooluse.testing import FunctionModel
from tests.test_context import POLICY_FOR_RESUME, page_tool_needing_approval

sent = []
def reply(items, tools):
    sent.append(items)
    return "done"

state = RunState.from_json(sys.stdin.read())
state.approve(state.interruptions[0])
agent = Agent(name="a", tools=[page_tool_needing_approval], model=FunctionModel(reply))
result = asyncio.run(Runner.run(agent, state, run_config=RunConfig(context=POLICY_FOR_RESUME)))
print(json.dumps({"output": result.final_output, "sent": sent[0]}))
"""


def page_tool_needs(n: int, size: int) -> str:
    """A page, shown only once approved.

    Args:
        n: The page.
        size: Its length.
    """
    return f"page {n} " + "y" * size


page_tool_needing_approval = function_tool(
    page_tool_needs, name_override="page", needs_approval=lambda _c, args, _i: args["n"] == 8
)


def _fixed_summary(items: list[Item], tools: Any) -> str:
    del items, tools
    return "the first pages said y"


POLICY_FOR_RESUME = ContextPolicy(
    max_input_tokens=3_500,
    keep_recent_turns=2,
    trim_tool_outputs_to=None,
    compaction_model=FunctionModel(_fixed_summary),
)


async def test_a_state_saved_after_a_compaction_resumes_in_another_process_alike() -> None:
    model, sent = scripted_reader(9)
    agent = Agent(name="a", tools=[page_tool_needing_approval], model=model)
    config = RunConfig(context=POLICY_FOR_RESUME)
    paused = await Runner.run(agent, "go", run_config=config)
    assert paused.interruptions
    assert paused.interruptions[0].arguments == '{"n": 8, "size": 4000}'
    text = paused.to_state().to_string()
    state = RunState.from_json(text)
    assert state.context is not None
    assert state.context.summary == "the first pages said y"
    assert sent[-1][0]["content"].endswith("the first pages said y")  # compacted before pausing
    # Here: resumed in this process, with the same model.
    here = RunState.from_json(text)
    here.approve(here.interruptions[0])
    mine: list[list[Item]] = []

    def reply(items: list[Item], tools: Any) -> str:
        del tools
        mine.append(list(items))
        return "done"

    resumed_agent = Agent(name="a", tools=[page_tool_needing_approval], model=FunctionModel(reply))
    await Runner.run(resumed_agent, here, run_config=config)
    # There: another interpreter reads the JSON and sends its first request.
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(RESUME)],
        input=text,
        capture_output=True,
        text=True,
        cwd=root,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    there = json.loads(done.stdout)
    assert there["output"] == "done"
    assert there["sent"] == json.loads(json.dumps(mine[0]))
    assert there["sent"][0]["content"].endswith("the first pages said y")


async def test_a_session_run_that_compacted_is_read_back_the_same_way(tmp_path: Path) -> None:
    session = SQLiteSession("reader", tmp_path / "s.db")
    try:
        model, sent = scripted_reader(8)
        calls: list[str] = []
        policy = compacting(calls)
        config = RunConfig(context=policy)
        agent = Agent(name="a", tools=[page], model=model)
        await Runner.run(agent, "go", session=session, run_config=config)
        last_sent = sent[-1]
        stored = await session.get_items()
        originals = [i for i in stored if i.get("type") == "function_call_output"]
        assert len(originals) == 8
        assert all(len(i["output"]) > 4_000 for i in originals)
        marks = [i for i in stored if i.get("type") == "tooluse_context"]
        assert len(marks) == len(calls) >= 1
        # The next run reads what the last one sent, then its own input.
        after: list[list[Item]] = []

        def reply(items: list[Item], tools: Any) -> str:
            del tools
            after.append(list(items))
            return "again"

        again = Agent(name="a", tools=[page], model=FunctionModel(reply))
        await Runner.run(again, "more", session=session, run_config=RunConfig())
        answer = list(last_sent[-1:])
        assert after[0][: len(last_sent)] == [*last_sent[:-1], *answer]
        assert after[0][-1] == {"role": "user", "content": "more"}
        assert after[0][0]["content"].startswith(SUMMARY_HEADER)
        # /history shows the originals, and where the model was sent a summary instead.
        names = {"call_1": "page"}
        lines = [history_line(i, names) for i in await session.get_items()]
        assert any(line.startswith("[context] the model was sent a summary") for line in lines)
        assert sum(1 for line in lines if line.startswith("[tool] page(")) == 8
    finally:
        session.close()


async def test_a_session_run_that_trimmed_is_read_back_trimmed(tmp_path: Path) -> None:
    session = SQLiteSession("trim", tmp_path / "s.db")
    try:
        model, sent = scripted_reader(5)
        policy = ContextPolicy(max_input_tokens=3_000, keep_recent_turns=1, trim_tool_outputs_to=50)
        agent = Agent(name="a", tools=[page], model=model)
        await Runner.run(agent, "go", session=session, run_config=RunConfig(context=policy))
        after: list[list[Item]] = []

        def reply(items: list[Item], tools: Any) -> str:
            del tools
            after.append(list(items))
            return "again"

        again = Agent(name="a", model=FunctionModel(reply))
        await Runner.run(again, "more", session=session)
        outputs = [i["output"] for i in after[0] if i.get("type") == "function_call_output"]
        sent_outputs = [i["output"] for i in sent[-1] if i.get("type") == "function_call_output"]
        assert outputs == sent_outputs
        assert "cut to fit" in outputs[0]
    finally:
        session.close()


def test_the_estimate_errs_high_against_the_server_count() -> None:
    from tooluse.run._token_estimate import items_tokens

    items: list[Item] = [
        {"role": "user", "content": "héllo " * 100},
        {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c", "output": "z" * 1000},
    ]
    assert items_tokens(items) >= server_tokens({"input": items}) - 1


async def test_the_provider_can_compact_instead_of_a_summary(openai_server: ScriptedServer) -> None:
    pages = [
        Turn(calls=[Call("page", json.dumps({"n": n, "size": 4_000}), f"c{n}")]) for n in range(8)
    ]
    openai_server.script(*pages, Turn(text="done"))
    policy = ContextPolicy(
        max_input_tokens=3_500,
        keep_recent_turns=2,
        trim_tool_outputs_to=None,
        compaction_model=openai_server.model("responses"),
        provider_compaction=True,
    )
    agent = Agent(name="a", tools=[page], model=openai_server.model("responses"))
    result = await Runner.run(agent, "go", run_config=RunConfig(context=policy))
    assert result.final_output == "done"
    paths = [r["path"] for r in openai_server.requests]
    compactions = [r for r in openai_server.requests if r["path"].endswith("/responses/compact")]
    assert compactions
    assert paths.count("/v1/responses") == 9
    # What the provider returned stands for the compacted turns: the user's message, then
    # its opaque compaction item, then the turns kept.
    last = openai_server.requests[-1]["body"]["input"]
    assert last[0]["role"] == "user"
    assert last[1]["type"] == "compaction"
    assert last[1]["encrypted_content"]
    assert last[2]["type"] == "function_call"
    entries = [e for e in result.usage.request_usage_entries if e.compaction]
    assert len(entries) == len(compactions)
    assert all(e.input_tokens > 0 for e in entries)


async def test_a_model_without_compaction_writes_the_summary_instead() -> None:
    model, sent = scripted_reader(8)
    calls: list[str] = []
    policy = compacting(calls, provider_compaction=True)
    agent = Agent(name="a", tools=[page], model=model)
    await Runner.run(agent, "go", run_config=RunConfig(context=policy))
    assert calls
    assert sent[-1][0]["content"].startswith(SUMMARY_HEADER)


async def test_a_paused_session_run_stores_each_mark_once(tmp_path: Path) -> None:
    session = SQLiteSession("paused", tmp_path / "s.db")
    try:
        model, sent = scripted_reader(10)
        # The 9th page waits for approval, in the turn right after a compaction: the
        # paused write stores the compaction's mark, and the resumed run must not again.
        ninth = function_tool(
            page_tool_needs, name_override="page", needs_approval=lambda _c, a, _i: a["n"] == 9
        )
        agent = Agent(name="a", tools=[ninth], model=model)
        config = RunConfig(context=POLICY_FOR_RESUME)
        paused = await Runner.run(agent, "go", session=session, run_config=config, max_turns=20)
        assert sent[-1][0]["content"].startswith(SUMMARY_HEADER)
        assert paused.interruptions
        state = await session.get_paused_run()
        assert state is not None
        state.approve(state.interruptions[0])
        result = await Runner.run(agent, state, session=session, run_config=config, max_turns=20)
        assert result.final_output == "done"
        marks = [i for i in await session.get_items() if i.get("type") == "tooluse_context"]
        assert marks
        assert len({json.dumps(m, sort_keys=True) for m in marks}) == len(marks)
    finally:
        session.close()
