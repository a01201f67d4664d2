"""Limits on a run: UsageLimits, the whole-run timeout, and the cap on tool calls at once."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tooluse import (
    Agent,
    RetryPolicy,
    RunConfig,
    Runner,
    RunTimeoutError,
    ToolContext,
    TResponseInputItem,
    Usage,
    UsageLimitExceeded,
    UsageLimits,
    UserError,
    function_tool,
)
from tooluse.models import (
    Model,
    ModelRequest,
    ModelResponse,
    ModelTransportError,
    ResponseDone,
    StreamEvent,
)

from .scripted import ScriptModel, call, text


class TokenModel(Model):
    """Answers with the scripted outputs, each response using `tokens` in and out."""

    def __init__(
        self, *turns: list[TResponseInputItem], tokens: tuple[int, int] = (100, 10)
    ) -> None:
        self.turns = list(turns)
        self.tokens = tokens
        self.calls = 0

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        self.calls += 1
        output = self.turns.pop(0) if self.turns else [text("done")]
        used_in, used_out = self.tokens
        usage = Usage(
            requests=1,
            input_tokens=used_in,
            output_tokens=used_out,
            total_tokens=used_in + used_out,
        )
        return ModelResponse(output, usage, f"resp_{self.calls}")

    async def stream_response(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        yield ResponseDone(await self.get_response(request))


@function_tool
def ping(n: int) -> str:
    """Ping.

    Args:
        n: A number.
    """
    return f"pong {n}"


def calls(*numbers: int) -> list[TResponseInputItem]:
    return [call(f"c{n}", "ping", {"n": n}) for n in numbers]


def limited(**limits: int) -> RunConfig:
    return RunConfig(usage_limits=UsageLimits(**limits))


# UsageLimits.


async def test_the_request_limit_stops_before_the_call_that_would_pass_it() -> None:
    model = TokenModel(calls(1), calls(2), calls(3))
    agent = Agent("a", tools=[ping], model=model)
    with pytest.raises(UsageLimitExceeded) as raised:
        await Runner.run(agent, "go", run_config=limited(request_limit=2))
    error = raised.value
    assert model.calls == 2
    assert (error.limit, error.value, error.used) == ("request_limit", 2, 3)
    assert "request_limit=2" in str(error)
    assert "resume" in str(error)
    # The conversation is kept, whole: every call has its output.
    assert error.items[0] == {"role": "user", "content": "go"}
    kinds = [item.get("type") for item in error.new_items]
    assert kinds == ["function_call", "function_call_output"] * 2
    assert error.state is not None
    assert error.state.usage.requests == 2


async def test_a_token_limit_is_checked_after_the_response_and_the_answer_is_kept() -> None:
    model = TokenModel(calls(1), tokens=(100, 10))
    agent = Agent("a", tools=[ping], model=model)
    with pytest.raises(UsageLimitExceeded) as raised:
        await Runner.run(agent, "go", run_config=limited(total_tokens_limit=100))
    error = raised.value
    assert (error.limit, error.value, error.used) == ("total_tokens_limit", 100, 110)
    assert model.calls == 1
    # Resuming with a higher limit runs the kept calls without asking the model again.
    assert error.state is not None
    assert error.state.turn is not None
    result = await Runner.run(agent, error.state, run_config=limited(total_tokens_limit=1_000))
    assert result.final_output == "done"
    assert model.calls == 2
    assert [i.get("output") for i in result.new_items if "output" in i] == ["pong 1"]


@pytest.mark.parametrize(
    ("limit", "tokens"),
    [("input_tokens_limit", (100, 1)), ("output_tokens_limit", (1, 100))],
)
async def test_input_and_output_token_limits(limit: str, tokens: tuple[int, int]) -> None:
    agent = Agent("a", model=TokenModel(tokens=tokens))
    with pytest.raises(UsageLimitExceeded) as raised:
        await Runner.run(agent, "go", run_config=limited(**{limit: 99}))
    assert raised.value.limit == limit


async def test_tokens_spent_by_a_nested_run_stop_the_next_call() -> None:
    inner = Agent("inner", model=TokenModel(tokens=(500, 0)))
    outer_model = TokenModel(
        [call("c1", "inner", {"input": "hi"})], [text("never")], tokens=(10, 0)
    )
    outer = Agent("outer", tools=[inner.as_tool()], model=outer_model)
    with pytest.raises(UsageLimitExceeded) as raised:
        await Runner.run(outer, "go", run_config=limited(input_tokens_limit=400))
    assert raised.value.limit == "input_tokens_limit"
    assert raised.value.used == 510
    assert outer_model.calls == 1  # stopped before the second call


async def test_the_tool_call_limit_runs_none_of_a_turn_that_would_pass_it() -> None:
    ran: list[int] = []

    @function_tool
    def count(n: int) -> int:
        """Count.

        Args:
            n: A number.
        """
        ran.append(n)
        return n

    model = TokenModel(
        [call("c1", "count", {"n": 1})],
        [call("c2", "count", {"n": 2}), call("c3", "count", {"n": 3})],
    )
    agent = Agent("a", tools=[count], model=model)
    with pytest.raises(UsageLimitExceeded) as raised:
        await Runner.run(agent, "go", run_config=limited(tool_calls_limit=2))
    assert ran == [1]
    assert (raised.value.limit, raised.value.used) == ("tool_calls_limit", 3)
    assert raised.value.state is not None
    assert raised.value.state.usage.tool_calls == 1


async def test_limits_not_reached_let_the_run_finish_and_usage_counts_tool_calls() -> None:
    model = TokenModel(calls(1, 2), tokens=(10, 1))
    agent = Agent("a", tools=[ping], model=model)
    limits = limited(request_limit=2, total_tokens_limit=22, tool_calls_limit=2)
    result = await Runner.run(agent, "go", run_config=limits)
    assert result.final_output == "done"
    assert (result.usage.requests, result.usage.total_tokens, result.usage.tool_calls) == (2, 22, 2)


def test_usage_limits_refuse_values_that_are_not_counts() -> None:
    with pytest.raises(UserError, match=r"request_limit=-1, total_tokens_limit=1\.5"):
        UsageLimits(request_limit=-1, total_tokens_limit=1.5)  # type: ignore[arg-type]
    with pytest.raises(UserError, match="usage_limits must be a UsageLimits, not dict"):
        RunConfig(usage_limits={"request_limit": 1})  # type: ignore[arg-type]


# The whole-run timeout.


async def test_the_run_timeout_cancels_running_tools_and_keeps_the_conversation() -> None:
    cancelled: list[str] = []

    @function_tool
    async def slow() -> str:
        """Take a long time."""
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.append("slow")
            raise
        return "late"

    agent = Agent("a", tools=[slow], model=ScriptModel([call("c1", "slow")]))
    started = time.perf_counter()
    with pytest.raises(RunTimeoutError) as raised:
        await Runner.run(agent, "go", run_config=RunConfig(run_timeout=0.2))
    assert time.perf_counter() - started < 5
    assert cancelled == ["slow"]
    error = raised.value
    assert error.timeout_seconds == 0.2
    assert "run_timeout=0.2" in str(error)
    assert [i.get("type") for i in error.new_items] == ["function_call"]
    assert error.state is not None
    assert error.state.turn is not None  # resumable mid-turn


async def test_the_run_timeout_signals_sync_tools() -> None:
    seen = threading.Event()

    @function_tool
    def blocking(ctx: ToolContext[Any]) -> str:
        """Wait until told to stop."""
        ctx.cancelled.wait(10)
        if ctx.cancelled.is_set():
            seen.set()
        return "stopped"

    agent = Agent("a", tools=[blocking], model=ScriptModel([call("c1", "blocking")]))
    with pytest.raises(RunTimeoutError):
        await Runner.run(agent, "go", run_config=RunConfig(run_timeout=0.2))
    assert await asyncio.to_thread(seen.wait, 5)


async def test_the_run_timeout_also_stops_a_streamed_run() -> None:
    @function_tool
    async def slow() -> str:
        """Take a long time."""
        await asyncio.sleep(30)
        return "late"

    agent = Agent("a", tools=[slow], model=ScriptModel([call("c1", "slow")]))
    result = Runner.run_streamed(agent, "go", run_config=RunConfig(run_timeout=0.2))
    with pytest.raises(RunTimeoutError):
        async for _ in result.stream_events():
            pass
    assert result.is_complete
    assert not result.cancelled


async def test_a_run_within_its_timeout_is_untouched_and_the_caller_can_still_cancel() -> None:
    agent = Agent("a", tools=[ping], model=ScriptModel(calls(1)))
    result = await Runner.run(agent, "go", run_config=RunConfig(run_timeout=10))
    assert result.final_output == "(no more turns scripted)"

    @function_tool
    async def slow() -> str:
        """Take a long time."""
        await asyncio.sleep(30)
        return "late"

    waiting = Agent("a", tools=[slow], model=ScriptModel([call("c1", "slow")]))
    task = asyncio.ensure_future(Runner.run(waiting, "go", run_config=RunConfig(run_timeout=10)))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task  # the caller's cancellation stays a cancellation, not a timeout


async def test_a_tool_raising_timeout_error_is_not_taken_for_the_run_timeout() -> None:
    @function_tool(failure_error_function=None)
    def flaky() -> str:
        """Fail."""
        raise TimeoutError("the tool's own")

    agent = Agent("a", tools=[flaky], model=ScriptModel([call("c1", "flaky")]))
    with pytest.raises(TimeoutError, match="the tool's own"):
        await Runner.run(agent, "go", run_config=RunConfig(run_timeout=10))


@pytest.mark.parametrize("value", [0, -1, "5", True])
def test_run_timeout_must_be_a_positive_number(value: object) -> None:
    with pytest.raises(UserError, match="run_timeout="):
        RunConfig(run_timeout=value)  # type: ignore[arg-type]


# The cap on tool calls running at once.


async def test_at_most_the_cap_of_calls_run_at_once() -> None:
    running = 0
    most = 0

    @function_tool
    async def query(n: int) -> int:
        """Query the database.

        Args:
            n: Which row.
        """
        nonlocal running, most
        running += 1
        most = max(most, running)
        await asyncio.sleep(0.01)
        running -= 1
        return n

    many = [call(f"c{n}", "query", {"n": n}) for n in range(40)]
    agent = Agent("a", tools=[query], model=ScriptModel(many))
    result = await Runner.run(agent, "go", run_config=RunConfig(max_concurrent_tool_calls=3))
    assert most == 3
    outputs = [i["output"] for i in result.new_items if i.get("type") == "function_call_output"]
    assert outputs == [str(n) for n in range(40)]  # in call order, each answered


async def test_the_cap_also_holds_for_sync_tools() -> None:
    running = 0
    most = 0
    lock = threading.Lock()

    @function_tool
    def query(n: int) -> int:
        """Query the database.

        Args:
            n: Which row.
        """
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.01)
        with lock:
            running -= 1
        return n

    many = [call(f"c{n}", "query", {"n": n}) for n in range(20)]
    agent = Agent("a", tools=[query], model=ScriptModel(many))
    await Runner.run(agent, "go", run_config=RunConfig(max_concurrent_tool_calls=2))
    assert most <= 2


@pytest.mark.parametrize("value", [0, 1.5, "2"])
def test_the_cap_must_be_a_count(value: object) -> None:
    with pytest.raises(UserError, match="max_concurrent_tool_calls="):
        RunConfig(max_concurrent_tool_calls=value)  # type: ignore[arg-type]


async def test_resuming_after_the_timeout_does_not_run_finished_calls_again() -> None:
    charged: list[int] = []

    @function_tool
    def charge(n: int) -> str:
        """Charge a card.

        Args:
            n: The amount.
        """
        charged.append(n)
        return "charged"

    @function_tool
    async def slow() -> str:
        """Take a long time."""
        await asyncio.sleep(30)
        return "late"

    model = ScriptModel([call("c1", "charge", {"n": 1}), call("c2", "slow")], [text("done")])
    agent = Agent("a", tools=[charge, slow], model=model)
    with pytest.raises(RunTimeoutError) as raised:
        await Runner.run(agent, "go", run_config=RunConfig(run_timeout=0.2))
    state = raised.value.state
    assert state is not None
    assert state.turn is not None
    assert list(state.turn.answers) == ["c1"]  # the finished call's answer is kept

    @function_tool(name_override="slow")
    def quick() -> str:
        """Answer at once."""
        return "quick"

    resumed = Agent("a", tools=[charge, quick], model=model)
    result = await Runner.run(resumed, state)
    assert result.final_output == "done"
    assert charged == [1]  # charged once
    outputs = [i["output"] for i in result.new_items if i.get("type") == "function_call_output"]
    assert outputs == ["charged", "quick"]


async def test_a_caller_cancelling_while_the_run_unwinds_past_its_deadline_stays_cancelled() -> (
    None
):
    @function_tool
    async def stubborn() -> str:
        """Clean up slowly when cancelled."""
        try:
            await asyncio.sleep(30)
        finally:
            await asyncio.shield(asyncio.sleep(0.3))  # the timer fires during this
        return "late"

    agent = Agent("a", tools=[stubborn], model=ScriptModel([call("c1", "stubborn")]))
    task = asyncio.ensure_future(Runner.run(agent, "go", run_config=RunConfig(run_timeout=0.15)))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_a_tool_that_swallows_the_cancellation_does_not_buy_another_model_call() -> None:
    @function_tool
    async def deaf() -> str:
        """Ignore cancellation."""
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            return "ignored"
        return "late"

    model = TokenModel([call("c1", "deaf")])
    agent = Agent("a", tools=[deaf], model=model)
    with pytest.raises(RunTimeoutError):
        await Runner.run(agent, "go", run_config=RunConfig(run_timeout=0.1))
    assert model.calls == 1


async def test_a_nested_run_with_the_same_timeout_does_not_outlive_its_caller() -> None:
    @function_tool
    async def slow() -> str:
        """Take a long time."""
        await asyncio.sleep(30)
        return "late"

    inner = Agent("inner", tools=[slow], model=ScriptModel([call("c1", "slow")]))
    outer = Agent(
        "outer",
        tools=[inner.as_tool()],
        model=ScriptModel([call("o1", "inner", {"input": "go"})], [text("outer done")]),
    )
    started = time.perf_counter()
    with pytest.raises(RunTimeoutError):
        await Runner.run(outer, "go", run_config=RunConfig(run_timeout=0.2))
    assert time.perf_counter() - started < 2


async def test_toolsets_are_left_in_the_task_that_entered_them() -> None:
    tasks: list[object] = []

    class Connection:
        async def __aenter__(self) -> Connection:
            tasks.append(asyncio.current_task())
            return self

        async def __aexit__(self, *exc_info: object) -> None:
            tasks.append(asyncio.current_task())

        async def list_tools(self, context: Any, agent: Any) -> list[Any]:
            return [ping]

    agent = Agent("a", tools=[Connection()], model=ScriptModel(calls(1)))
    await Runner.run(agent, "go", run_config=RunConfig(run_timeout=5))
    assert len(tasks) == 2
    assert tasks[0] is tasks[1]


async def test_one_budget_bounds_a_run_and_every_run_nested_in_it() -> None:
    inner_model = TokenModel(*[calls(1) for _ in range(20)])
    inner = Agent("inner", tools=[ping], model=inner_model)
    fan_out = [call(f"o{n}", "inner", {"input": "go"}) for n in range(10)]
    outer_model = TokenModel(fan_out)
    outer = Agent("outer", tools=[inner.as_tool()], model=outer_model)
    with pytest.raises(UsageLimitExceeded) as raised:
        await Runner.run(outer, "go", run_config=limited(request_limit=5))
    assert raised.value.limit == "request_limit"
    assert outer_model.calls + inner_model.calls == 5  # the whole tree, not 5 per nested run
    state = raised.value.state
    assert state is not None
    assert state.agent_name == "outer"  # the caller's run stops, at its own place
    assert state.usage.requests == 5


async def test_a_limit_reached_in_a_nested_run_stops_the_caller() -> None:
    inner = Agent("inner", tools=[ping], model=TokenModel(calls(1, 2)))
    outer_model = TokenModel([call("o1", "inner", {"input": "go"})])
    outer = Agent("outer", tools=[inner.as_tool()], model=outer_model)
    with pytest.raises(UsageLimitExceeded) as raised:
        await Runner.run(outer, "go", run_config=limited(tool_calls_limit=2))
    assert (raised.value.limit, raised.value.used) == ("tool_calls_limit", 3)
    assert outer_model.calls == 1  # not told "the tool failed" and asked again
    assert raised.value.new_items[0]["call_id"] == "o1"  # the caller's conversation


@pytest.mark.parametrize("value", ["false", 0, "no"])
def test_trace_content_capture_takes_only_a_bool_or_none(value: object) -> None:
    with pytest.raises(UserError, match=r"trace_include_sensitive_data=.* must be True, False"):
        RunConfig(trace_include_sensitive_data=value)  # type: ignore[arg-type]
    with pytest.raises(UserError, match=r"tracing_disabled=.* must be True or False"):
        RunConfig(tracing_disabled=value)  # type: ignore[arg-type]


def test_max_retries_overrides_the_policy_whenever_it_is_set() -> None:
    config = RunConfig(max_retries=5)
    assert config.effective_retry_policy().max_retries == 5
    config.max_retries = 0
    assert config.effective_retry_policy().max_retries == 0
    assert RunConfig().effective_retry_policy() is RunConfig().retry_policy  # one default


async def test_a_tool_changing_its_run_config_leaves_other_runs_alone() -> None:
    @function_tool
    def meddle(ctx: ToolContext[Any]) -> str:
        """Change the run's settings."""
        assert ctx.run_config is not None
        ctx.run_config.usage_limits = UsageLimits(tool_calls_limit=1)
        return "done"

    await Runner.run(Agent("a", tools=[meddle], model=ScriptModel([call("c1", "meddle")])), "go")
    later = await Runner.run(Agent("b", tools=[ping], model=ScriptModel(calls(1, 2))), "go")
    assert later.usage.tool_calls == 2


async def test_a_limit_of_another_run_started_by_a_tool_is_that_tools_error() -> None:
    inner = Agent("inner", tools=[ping], model=ScriptModel(calls(1), calls(2)))

    @function_tool
    async def research() -> str:
        """Research with a small budget of its own."""
        result = await Runner.run(inner, "go", run_config=limited(request_limit=1))
        return str(result.final_output)

    model = ScriptModel([call("c1", "research")], [text("could not research")])
    result = await Runner.run(Agent("outer", tools=[research], model=model), "go")
    assert result.final_output == "could not research"
    outputs = [i["output"] for i in result.new_items if i.get("type") == "function_call_output"]
    assert "UsageLimitExceeded" in outputs[0]


async def test_answers_that_carry_more_than_text_are_not_kept_when_a_turn_stops() -> None:
    @function_tool
    def quick() -> str:
        """Answer at once."""
        return "the answer"

    @function_tool
    async def slow() -> str:
        """Take a long time."""
        await asyncio.sleep(30)
        return "late"

    model = ScriptModel([call("c1", "quick"), call("c2", "slow")])
    agent = Agent("a", tools=[quick, slow], model=model, tool_use_behavior="stop_on_first_tool")
    with pytest.raises(RunTimeoutError) as raised:
        await Runner.run(agent, "go", run_config=RunConfig(run_timeout=0.2))
    state = raised.value.state
    assert state is not None
    assert state.turn is not None
    assert state.turn.answers == {}  # the value it would stop on is not in the state


async def test_a_retry_that_would_start_past_the_deadline_is_the_timeout() -> None:
    class Overloaded(TokenModel):
        async def get_response(self, request: ModelRequest) -> ModelResponse:
            self.calls += 1
            raise ModelTransportError("overloaded", 503)

    model = Overloaded()
    agent = Agent("a", model=model)
    policy = RetryPolicy(max_retries=5, initial_delay=0.3, jitter=0)
    with pytest.raises(RunTimeoutError):
        await Runner.run(agent, "go", run_config=RunConfig(run_timeout=0.2, retry_policy=policy))
    assert model.calls == 1


async def test_cancelling_a_timed_run_twice_still_waits_for_it_to_stop() -> None:
    left: list[str] = []

    class SlowToClose:
        async def __aenter__(self) -> SlowToClose:
            return self

        async def __aexit__(self, *exc_info: object) -> None:
            try:
                await asyncio.sleep(0.1)
            finally:
                left.append("closed")

        async def list_tools(self, context: Any, agent: Any) -> list[Any]:
            return []

    @function_tool
    async def slow() -> str:
        """Take a long time."""
        await asyncio.sleep(30)
        return "late"

    agent = Agent("a", tools=[slow, SlowToClose()], model=ScriptModel([call("c1", "slow")]))
    task = asyncio.ensure_future(Runner.run(agent, "go", run_config=RunConfig(run_timeout=10)))
    await asyncio.sleep(0.05)
    task.cancel()
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert left == ["closed"]  # the toolset was left before the caller's task ended


async def test_a_call_its_guardrail_refused_is_not_counted_as_run() -> None:
    from tooluse import ToolGuardrailFunctionOutput, tool_input_guardrail

    @tool_input_guardrail
    def never(data: Any) -> ToolGuardrailFunctionOutput:
        return ToolGuardrailFunctionOutput.reject_content("not allowed")

    @function_tool(tool_input_guardrails=[never])
    def guarded() -> str:
        """Do something guarded."""
        return "done"

    agent = Agent("a", tools=[guarded, ping], model=ScriptModel([call("g1", "guarded"), *calls(1)]))
    result = await Runner.run(agent, "go")
    assert result.usage.tool_calls == 1
