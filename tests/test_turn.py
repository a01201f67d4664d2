"""A turn in named steps: planning is pure, failures cancel siblings, the budget counts every
failure, handoff input is checked, and an agent's tools are tools."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from tooluse import (
    Agent,
    ComputerTool,
    FunctionTool,
    RunConfig,
    RunContextWrapper,
    Runner,
    WebSearchTool,
    function_tool,
    handoff,
)
from tooluse.core._items import Item
from tooluse.exceptions import ToolErrorBudgetExceeded, UserError
from tooluse.run._scope import AgentSetup, TurnTools
from tooluse.run._tool_calls import normalise_calls
from tooluse.run._turn import plan_turn

from .scripted import ScriptModel, call, outputs, parallel, shell, text


@function_tool
def lookup(key: str) -> str:
    """Look a key up.

    Args:
        key: The key.
    """
    return key


def test_planning_a_turn_changes_nothing() -> None:
    billing = Agent("billing")
    agent = Agent("a", tools=[lookup], handoffs=[billing])
    setup = AgentSetup.of(agent)
    tools = TurnTools.index(agent, [lookup], setup.handoff_tools)
    output = [
        text("on it"),
        call("c1", "lookup", {"key": "k"}),
        parallel("c2", ("lookup", {"key": "a"}), ("nope", {})),
        call("c3", "transfer_to_billing", {}),
        shell("c4", "ls"),  # no shell tool: not planned
    ]
    before = copy.deepcopy(output)
    plan = plan_turn(output, tools, setup)
    assert output == before
    assert plan == plan_turn(output, tools, setup)
    assert plan.order == ("c1", "c2", "c3")
    assert [g.call_id for g in plan.groups] == ["c1", "c2"]
    assert plan.handoff is not None
    assert plan.handoff.call_id == "c3"
    assert [c.approval_id for c in plan.groups[1].calls] == ["c2:0", "c2:1"]


_CALL_IDS = st.sampled_from(["c1", "c2", "c3", ""])  # repeated and missing ids too
_NAMES = st.sampled_from(["lookup", "functions.lookup", "nope", "multi_tool_use.parallel"])


def _wrapper(call_id: str) -> Item:
    return parallel(call_id, ("lookup", {"key": "a"}), ("nope", {}))


def _reasoning(n: int) -> Item:
    return {"type": "reasoning", "id": f"rs_{n}", "summary": []}


_ITEMS = st.one_of(
    st.builds(text, st.sampled_from(["on it", ""])),
    st.builds(call, _CALL_IDS, _NAMES, st.sampled_from(['{"key": "k"}', "", "{"])),
    st.builds(_wrapper, _CALL_IDS),
    st.builds(_reasoning, st.integers(0, 3)),
)


@given(st.lists(_ITEMS, max_size=6))
def test_a_turn_of_function_calls_alone_is_planned_as_any_other(output: list[Item]) -> None:
    """The common tool turn's shortcut (no local calls, no handoffs) plans what the whole
    path plans: the same agent with a handoff it never calls takes the whole path."""
    output = normalise_calls(output, 1)  # as recorded: one call per id
    plain = AgentSetup.of(Agent("a", tools=[lookup]))
    with_handoff = AgentSetup.of(Agent("a", tools=[lookup], handoffs=[Agent("billing")]))
    tools = TurnTools.index(plain.agent, [lookup], ())
    assert plan_turn(output, tools, plain) == plan_turn(output, tools, with_handoff)


async def test_when_one_call_fails_the_run_its_siblings_are_cancelled_first() -> None:
    started, cancelled = asyncio.Event(), asyncio.Event()

    @function_tool
    async def slow() -> str:
        """Take a while."""
        started.set()
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "late"

    @function_tool(failure_error_function=None)
    async def fatal() -> str:
        """Fail the run."""
        await started.wait()
        raise RuntimeError("fatal")

    model = ScriptModel([call("c1", "slow"), call("c2", "fatal")])
    with pytest.raises(RuntimeError, match="fatal"):
        await Runner.run(Agent("a", tools=[slow, fatal], model=model), "go")
    assert cancelled.is_set()  # before the error reached us, not some time later


@pytest.mark.parametrize("failure", ["raises", "times out", "bad arguments", "unknown tool"])
async def test_the_error_budget_counts_every_kind_of_failure(failure: str) -> None:
    @function_tool
    def broken() -> str:
        """Always fails."""
        raise ValueError("no")

    @function_tool(timeout=0.01)
    async def stuck() -> str:
        """Never finishes in time."""
        await asyncio.sleep(5)
        return "late"

    name, arguments = {
        "raises": ("broken", "{}"),
        "times out": ("stuck", "{}"),
        "bad arguments": ("lookup", '{"key": 1}'),
        "unknown tool": ("nope", "{}"),
    }[failure]
    model = ScriptModel(*([call(f"c{i}", name, arguments)] for i in range(5)))
    agent = Agent("a", tools=[broken, stuck, lookup], model=model)
    with pytest.raises(ToolErrorBudgetExceeded) as raised:
        await Runner.run(agent, "go", run_config=RunConfig(max_tool_errors=2))
    assert len(model.requests) == 2
    assert len(raised.value.errors) == 1


async def test_one_call_that_works_resets_the_budget() -> None:
    model = ScriptModel(
        [call("c1", "nope")], [call("c2", "nope"), call("c3", "lookup", {"key": "k"})],
        [call("c4", "nope")], [text("done")],
    )  # fmt: skip
    result = await Runner.run(
        Agent("a", tools=[lookup], model=model), "go", run_config=RunConfig(max_tool_errors=2)
    )
    assert result.final_output == "done"


async def test_a_rejected_call_is_not_a_failure_of_the_model() -> None:
    @function_tool(needs_approval=True)
    def delete() -> str:
        """Delete."""
        return "deleted"

    model = ScriptModel([call("c1", "delete")], [call("c2", "delete")], [text("done")])
    agent = Agent("a", tools=[delete], model=model)
    config = RunConfig(max_tool_errors=1)
    result = await Runner.run(agent, "go", run_config=config)
    while result.interruptions:
        result.reject(result.interruptions[0])
        result = await Runner.run(agent, result.to_state(), run_config=config)
    assert result.final_output == "done"


class Escalation(BaseModel):
    reason: str


async def test_invalid_handoff_input_is_answered_and_no_handoff_happens() -> None:
    taken: list[Any] = []

    def remember(ctx: RunContextWrapper[Any], data: Escalation) -> None:
        taken.append(data)

    boss = Agent("boss", model=ScriptModel())
    model = ScriptModel(
        [call("h1", "transfer_to_boss", {"why": "angry"})],
        [call("h2", "transfer_to_boss", {"reason": "angry"})],
        [text("boss here")],
    )
    clerk = Agent(
        "clerk",
        handoffs=[handoff(boss, input_type=Escalation, on_handoff=remember)],
        model=model,
    )
    boss.model = model
    result = await Runner.run(clerk, "go")
    assert result.last_agent.name == "boss"
    assert outputs(model.requests[1]) == {
        "h1": "The handoff's input is not valid (1 invalid field(s)); call it again corrected."
    }
    assert taken == [Escalation(reason="angry")]


class TestAgentTools:
    def test_an_undecorated_function_is_refused_when_the_agent_is_built(self) -> None:
        def add(a: int, b: int) -> int:
            return a + b

        with pytest.raises(
            UserError,
            match=r"tools\[1\] is the function .*add, not a tool: decorate it with @function_tool",
        ):
            Agent("a", tools=[lookup, add])  # pyright: ignore[reportArgumentType]

    def test_every_problem_is_named_at_once(self) -> None:
        with pytest.raises(UserError) as raised:
            Agent("calc", tools=[WebSearchTool, Agent("helper"), "lookup"])  # pyright: ignore[reportArgumentType]
        assert str(raised.value) == (
            "Agent 'calc' has tools that are not tools:\n"
            "  - tools[0] is the class WebSearchTool: pass an instance of a tool or toolset, not the class\n"
            "  - tools[1] is an Agent 'helper': use agent.as_tool() to call it as a tool, or handoffs=[agent]\n"
            "  - tools[2] is a str, not a tool: use @function_tool, a hosted tool or a toolset"
        )

    def test_clone_checks_too(self) -> None:
        with pytest.raises(UserError, match="tools that are not tools"):
            Agent("a").clone(tools=[print])


class Screen:
    def __init__(self) -> None:
        self.done: list[str] = []

    @property
    def environment(self) -> Any:
        return "browser"

    @property
    def dimensions(self) -> tuple[int, int]:
        return (800, 600)

    def screenshot(self) -> str:
        self.done.append("screenshot")
        return "png"

    def click(self, x: int, y: int, button: str) -> None:
        self.done.append(f"click {x},{y} {button}")

    def type(self, text: str) -> None:
        self.done.append(f"type {text}")

    def __getattr__(self, name: str) -> Any:
        def anything(*args: Any, **kwargs: Any) -> None:
            self.done.append(f"called {name}")

        return anything


async def test_only_documented_computer_actions_reach_the_computer() -> None:
    def computer_call(call_id: str, *actions: dict[str, Any]) -> dict[str, Any]:
        return {
            "type": "computer_call", "id": f"cu_{call_id}", "call_id": call_id,
            "status": "completed", "pending_safety_checks": [], "actions": list(actions),
        }  # fmt: skip

    screen = Screen()
    model = ScriptModel(
        [
            computer_call(
                "c1",
                {"type": "click", "x": 1, "y": 2, "button": "left", "keys": ["shift"]},
                {"type": "__init__"},
                {"type": "type"},  # no text
                {"type": "type", "text": "hi"},
                {"type": "environment"},
            )
        ],
        [text("done")],
    )
    computer = ComputerTool(screen)  # pyright: ignore[reportArgumentType]  # the rest via __getattr__
    result = await Runner.run(Agent("a", tools=[computer], model=model), "go")
    assert result.final_output == "done"
    assert screen.done == ["click 1,2 left", "type hi", "screenshot"]


async def test_a_callable_is_enabled_check_runs_every_turn() -> None:
    admin = {"on": True}

    @function_tool(is_enabled=lambda ctx, agent: admin["on"])  # pyright: ignore[reportUnknownLambdaType]
    def reset() -> str:
        """Reset."""
        admin["on"] = False
        return "reset"

    model = ScriptModel([call("c1", "reset")], [text("done")])
    await Runner.run(Agent("a", tools=[reset], model=model), "go")
    assert [r["tools"] for r in model.requests] == [["reset"], []]


async def test_instructions_may_depend_on_the_context() -> None:
    def instructions(ctx: RunContextWrapper[str], agent: Agent[Any]) -> str:
        return f"Help {ctx.context}."

    model = ScriptModel([text("hi")])
    await Runner.run(Agent("a", instructions=instructions, model=model), "go", context="Ann")
    assert model.requests[0]["instructions"] == "Help Ann."


async def test_an_unknown_option_is_refused_with_a_suggestion() -> None:
    with pytest.raises(
        UserError, match=r"unknown options: 'max_turn' \(did you mean 'max_turns'\?\)"
    ):
        await Runner.run(Agent("a", model=ScriptModel()), "go", max_turn=3)  # type: ignore[call-arg]  # pyright: ignore[reportCallIssue]
    with pytest.raises(
        UserError, match="Runner input must be a str, a list of items or a RunState"
    ):
        await Runner.run(Agent("a", model=ScriptModel()), 42)  # pyright: ignore[reportArgumentType]


async def test_a_hand_built_tool_wrapping_a_failing_tool_counts_as_failed() -> None:
    @function_tool
    def boom() -> str:
        """Fail."""
        raise ValueError("no")

    async def logged(ctx: Any, arguments: str) -> Any:
        return await boom.on_invoke_tool(ctx, arguments)

    wrapped = FunctionTool("boom", "Fail.", boom.params_json_schema, logged)
    model = ScriptModel(*([call(f"c{i}", "boom")] for i in range(4)))
    with pytest.raises(ToolErrorBudgetExceeded):
        await Runner.run(
            Agent("a", tools=[wrapped], model=model), "go", run_config=RunConfig(max_tool_errors=2)
        )


async def test_a_hand_built_tool_may_return_any_value() -> None:
    async def sums(ctx: Any, arguments: str) -> Any:
        return {"total": 3}

    tool = FunctionTool("sums", "Sum.", {"type": "object", "properties": {}}, sums)
    model = ScriptModel([call("c1", "sums")], [text("done")])
    await Runner.run(Agent("a", tools=[tool], model=model), "go")
    assert outputs(model.requests[1]) == {"c1": "{'total': 3}"}  # its str()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_turns": 0}, "max_turns=0 must be a whole number >= 1"),
        ({"max_turns": "3"}, "max_turns='3' must be a whole number >= 1"),
        ({"run_config": 3}, "run_config=3 must be a RunConfig, or a dict of its fields"),
        ({"run_config": {"tool_timout": 1}}, r"unknown field\(s\) 'tool_timout'"),
        ({"hooks": object()}, "hooks must be a RunHooks, not object"),
    ],
)
async def test_option_values_are_checked_before_the_run(
    options: dict[str, Any], message: str
) -> None:
    with pytest.raises(UserError, match=message):
        await Runner.run(Agent("a", model=ScriptModel()), "go", **options)


def test_run_config_values_are_checked_when_made() -> None:
    with pytest.raises(UserError) as raised:
        RunConfig(tool_timeout=0, max_tool_errors=0, max_retries=-1)
    assert str(raised.value) == (
        "RunConfig: tool_timeout=0 must be a positive number or None; max_tool_errors=0 must be "
        "a whole number >= 1; max_retries=-1 must be a whole number >= 0 or None"
    )
    with pytest.raises(UserError, match=r"timeout_seconds='5' \(the decorator's timeout\) must be"):
        function_tool(name_override="x", timeout="5")(lambda: "x")  # pyright: ignore[reportArgumentType, reportUnknownLambdaType]


def test_tools_must_be_a_list() -> None:
    with pytest.raises(
        UserError,
        match=r"tools must be a list of tools and toolsets, not a FunctionTool 'lookup'; write tools=\[...\]",
    ):
        Agent("a", tools=lookup)  # pyright: ignore[reportArgumentType]


async def test_passing_a_result_as_input_says_how_to_resume_or_continue() -> None:
    result = await Runner.run(Agent("a", model=ScriptModel([text("hi")])), "go")
    with pytest.raises(
        UserError, match=r"not RunResult: resume with result.to_state\(\), or continue"
    ):
        await Runner.run(Agent("a", model=ScriptModel()), result)  # pyright: ignore[reportArgumentType]
