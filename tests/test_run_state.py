"""One state: a run paused and resumed (through JSON) is the same run; approvals one by one."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from tooluse import (
    Agent,
    LocalShellTool,
    RunConfig,
    RunContextWrapper,
    Runner,
    RunState,
    ToolApproval,
    TResponseInputItem,
    UserError,
    function_tool,
    handoff,
)
from tooluse.exceptions import MaxTurnsExceeded

from .conftest import examples
from .scripted import ScriptModel, call, outputs, parallel, shell, text


class Ledger:
    """What the tools of a test did."""

    def __init__(self, guard: bool = True) -> None:
        self.guard = guard
        self.ran: list[str] = []


@function_tool(needs_approval=lambda ctx, args: ctx.context.guard)  # pyright: ignore[reportUnknownLambdaType, reportUnknownMemberType]
def guarded(ctx: RunContextWrapper[Ledger], n: int) -> str:
    """Do something that needs approval.

    Args:
        n: A number.
    """
    ctx.context.ran.append(f"guarded {n}")
    return f"guarded {n}"


@function_tool(needs_approval=lambda ctx, args: ctx.context.guard and args["n"] % 2 == 0)  # pyright: ignore[reportUnknownLambdaType, reportUnknownMemberType]
def even(ctx: RunContextWrapper[Ledger], n: int) -> str:
    """Do something that needs approval for even numbers.

    Args:
        n: A number.
    """
    ctx.context.ran.append(f"even {n}")
    return f"even {n}"


@function_tool
def free(ctx: RunContextWrapper[Ledger], n: int) -> str:
    """Do something harmless.

    Args:
        n: A number.
    """
    ctx.context.ran.append(f"free {n}")
    return f"free {n}"


def shell_tool(ledger_of: list[str]) -> LocalShellTool:
    def execute(action: dict[str, Any]) -> str:
        ledger_of.append(f"shell {action['command'][0]}")
        return "ok"

    return LocalShellTool(executor=execute)


def only_user_messages(items: list[TResponseInputItem]) -> list[TResponseInputItem]:
    return [item for item in items if item.get("role") == "user"]


def team(model: ScriptModel, shell_log: list[str]) -> Agent[Ledger]:
    tools: list[Any] = [guarded, even, free, shell_tool(shell_log)]
    expert = Agent[Ledger]("expert", instructions="Expert.", tools=tools, model=model)
    return Agent[Ledger](
        "triage",
        instructions="Triage.",
        tools=tools,
        handoffs=[handoff(expert, input_filter=only_user_messages)],
        model=model,
    )


LENIENT = RunConfig(max_tool_errors=10)  # scripts may fail every call of several turns


async def run_resuming(
    agent: Agent[Ledger], ledger: Ledger, streamed: list[bool], decide: Any = None
) -> tuple[Any, int]:
    """Run, and at every pause send the state through JSON, decide, and resume."""
    modes = iter(streamed * 20)
    source: str | RunState = "go"
    pauses = 0
    options: dict[str, Any] = {"context": ledger, "max_turns": 30, "run_config": LENIENT}
    while True:
        if next(modes):
            result: Any = Runner.run_streamed(agent, source, **options)
            async for _ in result.stream_events():
                pass
        else:
            result = await Runner.run(agent, source, **options)
        if not result.interruptions:
            return result, pauses
        pauses += 1
        state = RunState.from_json(result.to_state().to_json())
        for waiting in result.interruptions:
            (decide or RunState.approve)(state, waiting)
        source = state


# The resume property: paused and resumed at every pause point, a run is the same run.

ACTIONS = st.sampled_from(["guarded", "even", "free", "wrapper", "shell", "bad", "handoff"])


def script_for(turns: list[list[str]], numbers: list[int]) -> list[list[TResponseInputItem]]:
    script: list[list[TResponseInputItem]] = []
    number = iter(numbers * 50)
    for t, actions in enumerate(turns):
        output: list[TResponseInputItem] = []
        for k, action in enumerate(actions):
            call_id = f"c{t}_{k}"
            n = next(number)
            if action in ("guarded", "even", "free"):
                output.append(call(call_id, action, {"n": n}))
            elif action == "wrapper":
                output.append(
                    parallel(
                        call_id, ("guarded", {"n": n}), ("free", {"n": n}), ("even", {"n": n + 1})
                    )
                )
            elif action == "shell":
                output.append(shell(call_id, f"echo {n}"))
            elif action == "bad":
                output.append(call(call_id, "even", '{"n": "not a number"'))
            else:
                output.append(call(call_id, "transfer_to_expert", {}))
        script.append(output)
    script.append([text("done")])
    return script


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    turns=st.lists(st.lists(ACTIONS, min_size=1, max_size=3), min_size=1, max_size=4),
    numbers=st.lists(st.integers(0, 9), min_size=1, max_size=5),
    streamed=st.lists(st.booleans(), min_size=1, max_size=3),
)
def test_a_run_resumed_at_every_pause_is_the_run_approved_up_front(
    turns: list[list[str]], numbers: list[int], streamed: list[bool]
) -> None:
    script = script_for(turns, numbers)

    async def both() -> None:
        straight_model, straight_shell = ScriptModel(*script), list[str]()
        straight_ledger = Ledger(guard=False)  # every call approved up front
        straight, no_pauses = await run_resuming(
            team(straight_model, straight_shell), straight_ledger, [False]
        )
        paused_model, paused_shell = ScriptModel(*script), list[str]()
        paused_ledger = Ledger(guard=True)
        paused, _ = await run_resuming(team(paused_model, paused_shell), paused_ledger, streamed)

        assert no_pauses == 0
        assert paused_model.requests == straight_model.requests
        assert paused.final_output == straight.final_output == "done"
        assert paused.new_items == straight.new_items
        assert paused.last_agent.name == straight.last_agent.name
        assert sorted(paused_ledger.ran) == sorted(straight_ledger.ran)
        assert paused_shell == straight_shell  # each command ran once, whatever the pauses

    asyncio.run(both())


# The pieces of that property, one by one.


async def test_local_items_are_answered_once_across_a_resume() -> None:
    shell_log: list[str] = []
    model = ScriptModel([shell(("s1"), "ls"), call("c1", "guarded", {"n": 1})], [text("done")])
    ledger = Ledger()
    result, pauses = await run_resuming(team(model, shell_log), ledger, [False])
    assert (pauses, result.final_output) == (1, "done")
    assert shell_log == ["shell ls"]
    assert ledger.ran == ["guarded 1"]
    assert [i["type"] for i in result.new_items if i.get("type", "").endswith("output")] == [
        "local_shell_call_output",
        "function_call_output",
    ]


async def test_nothing_of_a_turn_runs_before_its_approvals() -> None:
    shell_log: list[str] = []
    model = ScriptModel(
        [shell("s1", "ls"), call("c1", "free", {"n": 1}), call("c2", "guarded", {"n": 2})]
    )
    ledger = Ledger()
    paused = await Runner.run(team(model, shell_log), "go", context=ledger)
    assert [i.approval_id for i in paused.interruptions] == ["c2"]
    assert (shell_log, ledger.ran) == ([], [])


async def test_the_input_filter_holds_across_a_resume() -> None:
    model = ScriptModel(
        [text("Passing you on."), call("h", "transfer_to_expert", {})],
        [call("c1", "guarded", {"n": 1})],
        [text("done")],
    )
    result, pauses = await run_resuming(team(model, []), Ledger(), [False])
    assert (pauses, result.final_output, result.last_agent.name) == (1, "done", "expert")
    after_handoff, after_resume = model.requests[1], model.requests[2]
    assert after_handoff["input"] == [{"role": "user", "content": "go"}]
    assert after_resume["instructions"] == "Expert."
    assert after_resume["input"][0] == {"role": "user", "content": "go"}
    assert "Passing you on." not in json.dumps(after_resume["input"])  # still filtered
    assert outputs(after_resume) == {"c1": "guarded 1"}


async def test_a_run_paused_in_an_agent_reached_by_a_handoff_resumes_there() -> None:
    model = ScriptModel(
        [call("h", "transfer_to_expert", {})], [call("c1", "guarded", {"n": 1})], [text("done")]
    )
    agent = team(model, [])
    paused = await Runner.run(agent, "go", context=Ledger())
    state = RunState.from_json(paused.to_state().to_json())
    assert state.agent_name == "expert"
    state.approve(paused.interruptions[0])
    resumed = await Runner.run(agent, state, context=Ledger())
    assert (resumed.final_output, resumed.last_agent.name) == ("done", "expert")
    assert model.requests[2]["instructions"] == "Expert."


async def test_calls_inside_a_parallel_wrapper_are_approved_one_by_one() -> None:
    model = ScriptModel(
        [parallel("w", ("guarded", {"n": 1}), ("guarded", {"n": 2}), ("free", {"n": 3}))],
        [text("done")],
    )
    agent, ledger = team(model, []), Ledger()
    paused = await Runner.run(agent, "go", context=ledger)
    assert [(i.approval_id, i.call_id, i.arguments) for i in paused.interruptions] == [
        ("w:0", "w", '{"n": 1}'),
        ("w:1", "w", '{"n": 2}'),
    ]
    paused.approve(paused.interruptions[0])
    paused.reject(paused.interruptions[1], rejection_message="Not that one.")
    resumed = await Runner.run(agent, paused.to_state(), context=ledger)
    assert resumed.final_output == "done"
    assert sorted(ledger.ran) == ["free 3", "guarded 1"]
    assert json.loads(outputs(model.requests[1])["w"]) == [
        {"tool": "guarded", "output": "guarded 1"},
        {"tool": "guarded", "output": "Not that one."},
        {"tool": "free", "output": "free 3"},
    ]


async def test_approving_one_call_pauses_again_for_the_other() -> None:
    model = ScriptModel(
        [parallel("w", ("guarded", {"n": 1}), ("guarded", {"n": 2}))], [text("done")]
    )
    agent, ledger = team(model, []), Ledger()
    paused = await Runner.run(agent, "go", context=ledger)
    paused.approve("w:0")
    again = await Runner.run(agent, paused.to_state(), context=ledger)
    assert [i.approval_id for i in again.interruptions] == ["w:1"]
    assert ledger.ran == []  # still nothing: the turn runs when all of it is decided


class Transfer(BaseModel):
    amount: int
    note: str = ""


async def test_a_predicate_sees_the_arguments_as_the_tool_does() -> None:
    seen: list[Any] = []

    def large(ctx: RunContextWrapper[Any], args: dict[str, Any]) -> bool:
        seen.append(args)
        return args["transfer"].amount > 100

    @function_tool(needs_approval=large)
    def pay(transfer: Transfer, tags: dict[str, int]) -> str:
        """Pay.

        Args:
            transfer: What to pay.
            tags: Labels (a dict: strict mode sends it as a list of pairs).
        """
        return "paid"

    arguments = {"transfer": {"amount": 500, "note": "rent"}, "tags": [{"key": "a", "value": 1}]}
    model = ScriptModel([call("c1", "pay", arguments)], [text("done")])
    paused = await Runner.run(Agent("a", tools=[pay], model=model), "go")
    assert [i.tool_name for i in paused.interruptions] == ["pay"]
    assert seen == [{"transfer": Transfer(amount=500, note="rent"), "tags": {"a": 1}}]


@pytest.mark.parametrize("flag", ["predicate", "always"])
async def test_unreadable_arguments_reach_no_approval_check(flag: str) -> None:
    calls: list[Any] = []

    def predicate(ctx: RunContextWrapper[Any], args: dict[str, Any]) -> bool:
        calls.append(args)
        return True

    @function_tool(needs_approval=predicate if flag == "predicate" else True)
    def delete(path: str) -> str:
        """Delete.

        Args:
            path: The file.
        """
        return "deleted"

    model = ScriptModel([call("c1", "delete", '{"path": ')], [text("done")])
    result = await Runner.run(Agent("a", tools=[delete], model=model), "go")
    assert (result.interruptions, calls, result.final_output) == ([], [], "done")
    assert outputs(model.requests[1])["c1"].startswith(
        "Tool 'delete' was called with invalid arguments:\n- the arguments are not valid JSON"
    )


async def test_a_predicate_that_raises_is_a_clear_error_before_anything_runs() -> None:
    def broken(ctx: RunContextWrapper[Any], args: dict[str, Any]) -> bool:
        raise KeyError("oops")

    @function_tool(needs_approval=broken)
    def delete(path: str) -> str:
        """Delete.

        Args:
            path: The file.
        """
        return "deleted"

    ledger = Ledger()
    model = ScriptModel([call("c0", "free", {"n": 1}), call("c1", "delete", {"path": "/x"})])
    agent = Agent[Ledger]("a", tools=[free, delete], model=model)
    with pytest.raises(
        UserError,
        match=r"needs_approval of tool 'delete' raised KeyError \('oops'\) for call 'c1'; no call of this turn has run",
    ) as raised:
        await Runner.run(agent, "go", context=ledger)
    assert isinstance(raised.value.__cause__, KeyError)
    assert ledger.ran == []


async def test_turns_before_a_pause_count_toward_max_turns() -> None:
    model = ScriptModel(
        [call("c1", "free", {"n": 1})],
        [call("c2", "guarded", {"n": 2})],
        [call("c3", "free", {"n": 3})],
    )
    agent = team(model, [])
    paused = await Runner.run(agent, "go", context=Ledger(), max_turns=3)
    assert paused.to_state().turns == 2
    paused.approve("c2")
    with pytest.raises(MaxTurnsExceeded):
        await Runner.run(agent, paused.to_state(), context=Ledger(), max_turns=3)
    assert len(model.requests) == 3


async def test_a_decision_never_approves_a_later_call_reusing_its_id() -> None:
    model = ScriptModel(
        [call("call_0", "guarded", {"n": 1})], [call("call_0", "guarded", {"n": 2})], [text("done")]
    )
    agent, ledger = team(model, []), Ledger()
    paused = await Runner.run(agent, "go", context=ledger)
    paused.approve("call_0")
    again = await Runner.run(agent, paused.to_state(), context=ledger)
    assert [(i.approval_id, i.arguments) for i in again.interruptions] == [("call_0", '{"n": 2}')]
    assert ledger.ran == ["guarded 1"]


async def test_answers_recorded_in_a_turn_are_not_run_again() -> None:
    shell_log: list[str] = []
    model = ScriptModel([text("done")])
    agent, ledger = team(model, shell_log), Ledger(guard=False)
    recorded_shell = {"type": "local_shell_call_output", "id": "s1", "output": "from before"}
    output = [shell("s1", "ls"), call("c1", "free", {"n": 1}), call("c2", "free", {"n": 2})]
    state = RunState(
        agent_name="triage",
        input=[{"role": "user", "content": "go"}],
        new_items=list(output),
        turn=None,
        turns=1,
    )
    data = state.to_json()
    data["turn"] = {
        "output": output,
        "response_id": "r1",
        "answers": {
            "s1": recorded_shell,
            "c1": {"type": "function_call_output", "call_id": "c1", "output": "from before"},
        },
    }
    result = await Runner.run(agent, RunState.from_json(json.dumps(data)), context=ledger)
    assert (shell_log, ledger.ran) == ([], ["free 2"])
    assert outputs(model.requests[0]) == {"c1": "from before", "c2": "free 2"}
    assert result.new_items[3] == recorded_shell


def test_the_state_round_trips_through_json_with_a_version() -> None:
    state = RunState(
        agent_name="a",
        input=[{"role": "user", "content": "hi"}],
        interruptions=[ToolApproval("c1", "t", "{}", "c1")],
        turns=2,
        failed_turns=1,
        tool_choice_released=True,
        filtered_history=[{"role": "user", "content": "hi"}],
        filtered_at=0,
    )
    state.approve("c1")
    text_form = state.to_string()
    assert json.loads(text_form)["version"] == RunState.VERSION
    assert RunState.from_json(text_form) == state


@pytest.mark.parametrize(
    ("text_form", "message"),
    [
        ("{not json", "the text is not JSON"),
        ("[1]", "the JSON is not a run state"),
        (
            '{"agent_name": "a", "input": []}',
            "the state has version None, this tooluse reads version 1",
        ),
        ('{"version": 99, "agent_name": "a", "input": []}', "the state has version 99"),
        ('{"version": 1, "agent_name": "a", "input": [], "colour": 1}', "the state does not fit"),
        (
            '{"version": 1, "agent_name": "a", "input": "hi", "turns": "x"}',
            r"input: Input should be a valid array; turns: Input should be a valid integer",
        ),
    ],
)
def test_a_state_that_cannot_be_read_is_a_clear_error(text_form: str, message: str) -> None:
    with pytest.raises(UserError, match=message):
        RunState.from_json(text_form)


async def test_resuming_leaves_the_given_state_as_it_was() -> None:
    model = ScriptModel([call("c1", "guarded", {"n": 1})], [text("done")], [text("again")])
    agent = team(model, [])
    paused = await Runner.run(agent, "go", context=Ledger())
    state = paused.to_state()
    state.approve("c1")
    before = state.to_json()
    await Runner.run(agent, state, context=Ledger())
    assert state.to_json() == before  # the same state can be resumed again


async def test_resuming_with_an_agent_the_state_does_not_know_is_a_clear_error() -> None:
    model = ScriptModel([call("c1", "guarded", {"n": 1})])
    paused = await Runner.run(team(model, []), "go", context=Ledger())
    with pytest.raises(UserError, match="names agent 'triage', which is neither 'other'"):
        await Runner.run(Agent("other", model=model), paused.to_state())


async def test_a_rejection_stands_even_if_the_call_would_no_longer_need_approval() -> None:
    limits = {"max": 10}

    @function_tool(needs_approval=lambda ctx, args: args["amount"] > limits["max"])  # pyright: ignore[reportUnknownLambdaType]
    def pay(amount: int) -> str:
        """Pay.

        Args:
            amount: How much.
        """
        return "paid"

    model = ScriptModel([call("c1", "pay", {"amount": 50})], [text("done")])
    agent = Agent("a", tools=[pay], model=model)
    paused = await Runner.run(agent, "go")
    paused.reject("c1", rejection_message="No.")
    limits["max"] = 100  # the policy changed while the human decided
    await Runner.run(agent, paused.to_state())
    assert outputs(model.requests[1]) == {"c1": "No."}


async def test_a_run_that_stopped_at_a_limit_goes_on_from_its_state() -> None:
    model = ScriptModel(
        [call("c1", "free", {"n": 1})], [call("c2", "free", {"n": 2})], [text("done")]
    )
    agent, ledger = team(model, []), Ledger()
    with pytest.raises(MaxTurnsExceeded) as raised:
        await Runner.run(agent, "go", context=ledger, max_turns=1)
    state = raised.value.state
    assert state is not None
    result = await Runner.run(agent, RunState.from_json(state.to_json()), context=ledger)
    assert result.final_output == "done"
    assert ledger.ran == ["free 1", "free 2"]
    assert len(model.requests) == 3


async def test_an_agent_reached_by_a_tool_returning_it_is_resumed_by_itself() -> None:
    model = ScriptModel([call("c1", "escalate")], [call("c2", "guarded", {"n": 1})], [text("done")])
    expert = Agent[Ledger]("expert", tools=[guarded], model=model)

    @function_tool
    def escalate() -> Agent[Ledger]:
        """Pass the user to the expert."""
        return expert

    start = Agent[Ledger]("start", tools=[escalate], model=model)
    paused = await Runner.run(start, "go", context=Ledger())
    paused.approve("c2")
    with pytest.raises(
        UserError, match=r"resume with Runner.run\(<the agent named 'expert'>, state\)"
    ):
        await Runner.run(start, paused.to_state(), context=Ledger())
    resumed = await Runner.run(expert, paused.to_state(), context=Ledger())
    assert resumed.final_output == "done"


def test_a_state_with_a_malformed_decision_is_refused_when_read() -> None:
    state = RunState(agent_name="a", input=[])
    data = state.to_json()
    data["decisions"] = {"c1": {"ok": True}}
    with pytest.raises(UserError, match=r"decisions\.c1\.approved: Field required"):
        RunState.from_json(json.dumps(data))


async def test_a_predicate_may_take_the_call_id_as_in_openai_agents() -> None:
    seen: list[str] = []

    async def by_call(ctx: RunContextWrapper[Any], params: dict[str, Any], call_id: str) -> bool:
        seen.append(call_id)
        return True

    @function_tool(needs_approval=by_call)
    def delete(path: str) -> str:
        """Delete.

        Args:
            path: The file.
        """
        return "deleted"

    model = ScriptModel([parallel("w", ("delete", {"path": "a"}), ("delete", {"path": "b"}))])
    paused = await Runner.run(Agent("a", tools=[delete], model=model), "go")
    assert seen == ["w:0", "w:1"]
    assert len(paused.interruptions) == 2


async def test_approving_a_call_that_does_not_wait_is_a_clear_error() -> None:
    model = ScriptModel([call("c1", "guarded", {"n": 1})])
    paused = await Runner.run(team(model, []), "go", context=Ledger())
    with pytest.raises(
        UserError, match="No call waits for approval under 'c9'; the waiting ones are c1"
    ):
        paused.approve("c9")
