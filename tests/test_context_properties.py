"""A property of the context policy, over random conversations (hypothesis).

Whatever the policy trims or summarises, in every request the model receives,
every tool output has its call before it and every call has its output: with
parallel calls, calls paused for approval (approved or rejected), handoffs back
and forth, and several user messages to begin with.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tooluse import Agent, ContextPolicy, RunConfig, Runner, function_tool, handoff
from tooluse.core._context_record import SUMMARY_HEADER
from tooluse.core._items import Item
from tooluse.exceptions import ContextWindowExceeded
from tooluse.testing import FunctionModel, ModelReply, ToolCall

SIZES = st.sampled_from([10, 300, 1_500, 4_000])

Step = tuple[str, Any]

steps: st.SearchStrategy[Step] = st.one_of(
    st.tuples(st.just("calls"), st.lists(SIZES, min_size=1, max_size=3)),
    st.tuples(st.just("approval"), st.tuples(SIZES, st.booleans())),
    st.tuples(st.just("handoff"), st.none()),
)

policies = st.builds(
    ContextPolicy,
    max_input_tokens=st.sampled_from([700, 1_500, 3_000]),
    keep_recent_turns=st.integers(0, 2),
    trim_tool_outputs_to=st.sampled_from([None, 40, 400]),
    compaction_model=st.sampled_from([None, "summariser"]),
)


@function_tool
def fill(size: int) -> str:
    """Text of a size.

    Args:
        size: Its length.
    """
    return "f" * size


@function_tool(needs_approval=True)
def guarded(size: int) -> str:
    """Text of a size, once approved.

    Args:
        size: Its length.
    """
    return "g" * size


def broken_pairs(items: list[Item]) -> list[str]:
    """What is wrong with a request: outputs without their calls, calls without outputs."""
    problems: list[str] = []
    called: set[str] = set()
    answered = {i["call_id"] for i in items if i.get("type") == "function_call_output"}
    for item in items:
        if item.get("type") == "function_call":
            called.add(item["call_id"])
            if item["call_id"] not in answered:
                problems.append(f"call {item['call_id']} without its output")
        elif item.get("type") == "function_call_output" and item["call_id"] not in called:
            problems.append(f"output {item['call_id']} before or without its call")
    return problems


class Script:
    """A scripted model playing `plan`, one step a request, checking every request."""

    def __init__(self, plan: list[Step]) -> None:
        self.plan = list(plan)
        self.problems: list[str] = []
        self.requests = 0
        self.seen: set[str] = set()

    def reply(self, items: list[Item], tools: Any) -> ModelReply | str:
        self.requests += 1
        self.problems.extend(broken_pairs(items))
        text = str(items)
        self.seen.add("summarised" if SUMMARY_HEADER in text else "whole")
        if "cut to fit the context window" in text:
            self.seen.add("trimmed")
        if not self.plan:
            return "the end"
        kind, value = self.plan.pop(0)
        if kind == "calls":
            return ModelReply(tool_calls=[ToolCall("fill", {"size": size}) for size in value])
        if kind == "approval":
            size, _ = value
            return ModelReply(tool_calls=[ToolCall("guarded", {"size": size})])
        other = next(t.name for t in tools if t.name.startswith("transfer_to_"))
        return ModelReply(tool_calls=[ToolCall(other, {})])


def summarise(items: list[Item], tools: Any) -> str:
    del tools
    return f"summary of {len(str(items))} characters"


class Provider:
    """Resolves the compaction model's name."""

    def get_model(self, name: str | None) -> FunctionModel:
        assert name == "summariser"
        return FunctionModel(summarise)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    plan=st.lists(steps, min_size=1, max_size=14),
    policy=policies,
    opening=st.lists(st.text("ab ", min_size=1, max_size=300), min_size=1, max_size=3),
)
async def test_every_request_keeps_calls_and_outputs_together(
    plan: list[Step], policy: ContextPolicy, opening: list[str]
) -> None:
    script = Script(plan)
    decisions = [value[1] for kind, value in plan if kind == "approval"]
    model = FunctionModel(script.reply)
    first = Agent(name="first", tools=[fill, guarded], model=model)
    second = Agent(name="second", tools=[fill, guarded], model=model)
    first.handoffs = [handoff(second)]
    second.handoffs = [handoff(first)]
    config = RunConfig(context=policy, model_provider=Provider())  # type: ignore[arg-type]
    run_input: Any = [{"role": "user", "content": text} for text in opening]
    agent = first
    try:
        while True:
            result = await Runner.run(agent, run_input, run_config=config, max_turns=40)
            if not result.interruptions:
                break
            state = result.to_state()
            for waiting in result.interruptions:
                if decisions.pop(0):
                    state.approve(waiting)
                else:
                    state.reject(waiting)
            run_input, agent = state, result.last_agent
        assert result.final_output == "the end"
    except ContextWindowExceeded as error:
        stopped = error.tokens  # the request that could not fit was never sent
        event("stopped: cannot fit")
        assert stopped > policy.max_input_tokens
    for what in sorted(script.seen):
        event(what)
    assert script.problems == []
    assert script.requests >= 1
