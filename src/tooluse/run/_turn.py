"""One turn of a run, as named steps over its `RunState`.

```
call model ──► plan ──► approve ──► run ──► apply ──► next step
```

- **call model**: the request is made from the state (the history the agent
  sees, its tools for this turn, its settings); the response's items join the
  conversation and become the turn in progress.
- **plan** (pure): the response becomes a `TurnPlan`: function calls grouped by
  call id (each with its own approval id), handoffs, and items answered here
  (computer actions, shell commands, MCP approval requests). Nothing changes.
- **approve**: each call that needs approval is decided by the state's
  decisions, or the turn stops at `Interrupted` before anything has run (an MCP
  approval request whose `HostedMCPTool` has no `on_approval_request` is such a call).
- **run**: local items, then every function call at once, then the handoff's
  `on_handoff`; the answers are recorded in the turn in progress.
- **apply**: the answers join the conversation in the order of the calls, the
  error budget is spent, and the next step is decided.

A run resumed from a state whose turn is in progress starts at plan; what is
already answered is not run again.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Sequence
from typing import Any, NamedTuple, cast

from ..agents._agent import Agent, as_agent
from ..agents._handoffs import handoff
from ..agents._tool_use import FunctionToolResult, StopAtTools
from ..core._context import RunContextWrapper
from ..core._items import Item, function_call_output, valid_text
from ..core._state import REJECTION, Decision, RunState, ToolApproval, TurnInProgress
from ..exceptions import ModelBehaviorError, ToolErrorBudgetExceeded, UserError
from ..tools._hosted import HostedMCPTool
from ..tools._invocation import ToolOutcome
from ..tools._local import LOCAL_ITEM_TYPES, LocalTool, answer_id, local_handler
from ..tools._mcp_approval import approval_response
from ..tools._returns import apply_context_variables
from ..tools._shell import ShellTool, approval_arguments, shell_rejection
from ._approvals import needs_approval, shell_needs_approval
from ._handoffs import AgentHandoff, HandoffCall, read_handoff, run_on_handoff
from ._lean import later
from ._limits import reserve_tool_calls
from ._model_call import call_model, final_output
from ._nested import settle_nested
from ._record import RunRecord
from ._run_items import ToolApprovalItem
from ._scope import AgentSetup, RunSetup, TurnTools
from ._tool_calls import CallGroup, PlannedCall, plan_calls
from ._tool_execution import GroupOutcome, given_up

__all__ = [
    "FinalOutput",
    "Interrupted",
    "NextAgent",
    "NextStep",
    "Pending",
    "RunAgain",
    "TurnPlan",
    "plan_turn",
    "run_calls",
    "take_turn",
]

ONE_HANDOFF_ONLY = (
    "Only the first handoff in a response is taken; this one was ignored. "
    "The conversation is with the agent chosen first."
)


# The next step: what the runner does after a turn. Named tuples, like the plan's
# types below: made every turn, and cheaper than dataclasses to make and to import.


class FinalOutput(NamedTuple):
    """The run is over: the agent answered."""

    output: Any


class RunAgain(NamedTuple):
    """Call the model again."""


class NextAgent(NamedTuple):
    """Hand the conversation to another agent, then call the model again."""

    handoff: AgentHandoff


class Interrupted(NamedTuple):
    """Stop for a human: these calls wait for approval.

    Nothing of the turn has run, unless an agent used as a tool paused: then the
    calls waiting are its nested run's, and the turn's other calls have answered.
    """

    approvals: list[ToolApproval]
    nested_agents: dict[str, Agent[Any]] = {}  # noqa: RUF012 - a NamedTuple's default, never changed
    """The agent whose tool each nested call calls, by approval id (the others are the
    answering agent's)."""


class Pending(NamedTuple):
    """Stop with the function calls unexecuted (`execute_tools=False`)."""

    calls: list[Item]


NextStep = FinalOutput | RunAgain | NextAgent | Interrupted | Pending


async def take_turn(run: RunSetup, record: RunRecord, setup: AgentSetup) -> NextStep:
    """Run one turn for the agent answering, from wherever the state left it.

    Args:
        run: What the run's steps read.
        record: What they write.
        setup: The agent answering.

    Returns:
        The next step.
    """
    tools = await setup.turn_tools(run.context)
    state = record.state
    if state.turn is None:
        checks, record.input_checks = record.input_checks, None
        if checks is None:
            await call_model(run, record, setup, tools)
        else:
            await checks(later(call_model, run, record, setup, tools))
    turn = state.turn
    assert turn is not None  # call_model records the response as the turn in progress
    plan = plan_turn(turn.output, tools, setup)
    if plan.is_final:
        state.turn = None
        if _tools_ran_unanswered(turn.output):
            return RunAgain()
        return FinalOutput(final_output(setup, turn.output))
    if plan.calls and not run.execute_tools:
        return Pending(list(plan.calls))
    approved = await approve(run, state, plan, setup.agent)
    if isinstance(approved, Interrupted):
        return approved
    outcomes = await run_calls(run, state, setup, approved)
    if record.nested_paused or state.nested:
        waiting = settle_nested(record)
        if waiting:  # an agent tool's run paused: its call waits, the others keep answers
            answers = _turn(state).answers
            for call_id in state.nested:
                answers.pop(call_id, None)
            return Interrupted(
                [approval for approval, _ in waiting],
                {approval.approval_id: agent for approval, agent in waiting},
            )
    return await apply(run, record, setup, approved, outcomes)


_HOSTED_CALLS = frozenset(
    {
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_call",
        "tool_search_call",
    }
)
"""The calls of tools the provider runs, whose results the model reads in its next turn."""


def _tools_ran_unanswered(output: list[Item]) -> bool:
    """Whether hosted tools ran in a response with no message: the model has yet to answer.

    Ending the run there would answer `""`; as openai-agents, the model is asked again.
    """
    ran = False
    for item in output:
        kind = item.get("type")
        if kind == "message":
            return False  # the common last turn: stops at its answer
        ran = ran or kind in _HOSTED_CALLS
    return ran


# Step 2: plan.


class PlannedHandoff(NamedTuple):
    """A handoff call, and how it is answered."""

    call_id: str
    answer: str
    """What the model is told."""
    target: AgentHandoff | None = None
    """The handoff taken (only one per turn), or None."""
    data: Any = None
    """The taken handoff's validated input."""


class LocalCall(NamedTuple):
    """An item answered here, and the tool that answers it."""

    item: Item
    tool: LocalTool
    answer: Item | None = None
    """What answers it in place of running it: a human's decision (a refused shell call's
    output, an MCP approval request's response)."""


class TurnPlan(NamedTuple):
    """What a response asks for, resolved against the agent's tools and handoffs."""

    groups: tuple[CallGroup, ...]
    """Function calls, one group per call id."""
    handoffs: tuple[PlannedHandoff, ...]
    """Handoff calls."""
    local_calls: tuple[LocalCall, ...]
    """Computer actions, shell commands and MCP approval requests with a tool to answer them."""
    order: tuple[str, ...]
    """The ids to answer, in the order the model asked."""
    calls: tuple[Item, ...]
    """The response's function calls, as the model made them."""

    @property
    def is_final(self) -> bool:
        """Whether nothing is asked: the response is the answer."""
        return not self.order

    @property
    def handoff(self) -> PlannedHandoff | None:
        """The handoff taken, if any."""
        return next((h for h in self.handoffs if h.target is not None), None)


def plan_turn(output: list[Item], tools: TurnTools, setup: AgentSetup) -> TurnPlan:
    """Resolve a response into a plan; pure.

    Args:
        output: The response's items, as recorded.
        tools: The turn's tools.
        setup: The agent answering.

    Returns:
        The plan.
    """
    kinds = [item.get("type") for item in output]
    local = not LOCAL_ITEM_TYPES.isdisjoint(kinds)
    if "function_call" not in kinds and not local:
        return _NOTHING_ASKED  # the common last turn: an answer
    calls = [item for item in output if item.get("type") == "function_call"]
    if not local and not setup.handoffs:  # the common tool turn: function calls alone
        groups = plan_calls(calls, tools.functions)
        return TurnPlan(tuple(groups), (), (), tuple([c["call_id"] for c in calls]), tuple(calls))
    one_tool = setup.agent.handoff_mode == "one_tool"
    asked = [
        read_handoff(c, setup.handoffs, one_tool=one_tool) if setup.handoffs else None
        for c in calls
    ]
    groups = plan_calls(
        [c for c, h in zip(calls, asked, strict=True) if h is None], tools.functions
    )
    local_calls = [
        LocalCall(item, tool)
        for item in output
        if item.get("type") in LOCAL_ITEM_TYPES and (tool := local_handler(item, tools.tools))
    ]
    _refuse_unknown_mcp_servers(output, local_calls, tools, setup)
    answered = {c["call_id"] for c in calls} | {answer_id(c.item) for c in local_calls}
    order = [key for item in output if (key := _answer_key(item)) in answered]
    if local_calls:
        # A hosted MCP server's approvals are answered after the turn's other calls, as
        # openai-agents sends them (the order of `new_items`, stream events and input).
        mcp = {
            answer_id(c.item) for c in local_calls if c.item.get("type") == "mcp_approval_request"
        }
        order = [k for k in order if k not in mcp] + [k for k in order if k in mcp]
    return TurnPlan(
        tuple(groups),
        _plan_handoffs([h for h in asked if h is not None]),
        tuple(local_calls),
        tuple(order),
        tuple(calls),
    )


_NOTHING_ASKED = TurnPlan((), (), (), (), ())


def _refuse_unknown_mcp_servers(
    output: list[Item], local_calls: list[LocalCall], tools: TurnTools, setup: AgentSetup
) -> None:
    """Stop at an MCP approval request of a server the agent does not offer (as openai-agents).

    Raises:
        ModelBehaviorError: Naming the server's label, and the labels the agent has.
    """
    handled = {id(local.item) for local in local_calls}
    for item in output:
        if item.get("type") != "mcp_approval_request" or id(item) in handled:
            continue
        label = item.get("server_label")
        labels = [
            t.tool_config.get("server_label") for t in tools.tools if isinstance(t, HostedMCPTool)
        ]
        raise ModelBehaviorError(
            f"MCP server label {label!r} not found: the model sent an mcp_approval_request "
            f"(id {item.get('id')!r}) for it, and agent '{setup.agent.name}' has no HostedMCPTool "
            f"with that server_label (its hosted MCP servers: {labels or 'none'}). Give the "
            f"agent HostedMCPTool({{'type': 'mcp', 'server_label': {label!r}, ...}})"
        )


def _answer_key(item: Item) -> str:
    return item["call_id"] if item.get("type") == "function_call" else answer_id(item)


def _plan_handoffs(calls: list[HandoffCall]) -> tuple[PlannedHandoff, ...]:
    planned: list[PlannedHandoff] = []
    taken = False
    for call in calls:
        if call.target is None:
            planned.append(PlannedHandoff(call.call_id, call.refusal or ""))
        elif taken:
            planned.append(PlannedHandoff(call.call_id, ONE_HANDOFF_ONLY))
        else:
            try:
                data = call.target.parse_input(call.arguments)
            except ValueError as error:
                answer = f"The handoff's input is not valid ({error}); call it again corrected."
                planned.append(PlannedHandoff(call.call_id, answer))
                continue
            taken = True
            answer = json.dumps({"assistant": call.target.agent.name})
            planned.append(PlannedHandoff(call.call_id, answer, call.target, data))
    return tuple(planned)


# Step 3: approve.


async def approve(
    run: RunSetup, state: RunState, plan: TurnPlan, agent: Agent[object]
) -> TurnPlan | Interrupted:
    """Apply the human's decisions to the calls that need approval.

    Args:
        run: What the run's steps read (the context `needs_approval` is asked with).
        state: The run's state: its decisions, and the turn's answers so far.
        plan: The turn's plan.
        agent: The agent answering (a shell tool's `on_approval` gets it in its item).

    Returns:
        The plan with rejected calls turned into their messages, or `Interrupted`
        with every call still waiting for a decision.

    Raises:
        UserError: If a `needs_approval` function raises.
    """
    if _nothing_to_decide(state, plan):
        return plan
    answers = _turn(state).answers
    waiting: list[ToolApproval] = []
    groups: list[CallGroup] = []
    for group in plan.groups:
        calls = group.calls
        if group.call_id not in answers:
            calls = tuple(
                [await _decide(run, state, group.call_id, call, waiting) for call in calls]
            )
        changed = any(new is not old for new, old in zip(calls, group.calls, strict=True))
        groups.append(group._replace(calls=calls) if changed else group)
    local_calls = plan.local_calls
    if any(_asks_a_human(local.tool) for local in local_calls):
        local_calls = tuple(
            [await _decide_local(run, state, local, agent, waiting) for local in local_calls]
        )
    if waiting:
        return Interrupted(waiting)
    if local_calls is not plan.local_calls:
        plan = plan._replace(local_calls=local_calls)
    if all(new is old for new, old in zip(groups, plan.groups, strict=True)):
        return plan
    return plan._replace(groups=tuple(groups))


def _nothing_to_decide(state: RunState, plan: TurnPlan) -> bool:
    """Whether the plan is approved as it is, asking nothing: the common turn."""
    if state.decisions or plan.local_calls:
        return False
    for group in plan.groups:  # plain loops: most turns hold one call
        for call in group.calls:
            if call.tool is not None and call.tool.needs_approval is not False:
                return False
    return True


async def _decide(
    run: RunSetup, state: RunState, call_id: str, call: PlannedCall, waiting: list[ToolApproval]
) -> PlannedCall:
    if call.tool is None or (call.tool.needs_approval is False and not state.decisions):
        return call  # the common case, decided without a call
    decision = state.decisions.get(call.approval_id)  # a decision made stands
    if decision is None:
        if not await needs_approval(run.context, call.tool, call):
            return call
        decision = state.standing.get(call.tool.name)
        if decision is None:
            waiting.append(ToolApproval(call_id, call.name, call.arguments, call.approval_id))
            return call
    if decision["approved"]:
        return call
    return call._replace(tool=None, error=decision.get("message") or REJECTION, rejected=True)


def _asks_a_human(tool: LocalTool) -> bool:
    """Whether a tool's items may wait for a human: a shell, or an MCP server's tool."""
    # A hosted MCP server's requests wait only when no `on_approval_request` answers them.
    if isinstance(tool, HostedMCPTool):
        return tool.on_approval_request is None
    return isinstance(tool, ShellTool)


async def _decide_local(
    run: RunSetup,
    state: RunState,
    local: LocalCall,
    agent: Agent[object],
    waiting: list[ToolApproval],
) -> LocalCall:
    """A local item's decision: made, standing, asked of `on_approval` (shells), or waited for."""
    tool, key = local.tool, answer_id(local.item)
    if key in _turn(state).answers or not _asks_a_human(tool):
        return local
    if not isinstance(tool, ShellTool):
        return _decide_mcp(state, local, waiting)
    decision = state.decisions.get(key)
    if decision is None and not await shell_needs_approval(run.context, tool, local.item):
        return local
    approval = ToolApproval(key, tool.name, approval_arguments(local.item), key, "shell_call")
    if decision is None:
        decision = state.standing.get(approval.standing_key)
    if decision is None and tool.on_approval is not None:
        decision = await _on_approval(run, tool, ToolApprovalItem.of(approval, agent))
        if decision is not None:  # kept, so that a pause for another call does not ask again
            state.decisions[key] = decision
    if decision is None:
        waiting.append(approval)
        return local
    if decision["approved"]:
        return local
    return local._replace(answer=shell_rejection(local.item, decision.get("message") or REJECTION))


def _decide_mcp(state: RunState, local: LocalCall, waiting: list[ToolApproval]) -> LocalCall:
    """An MCP approval request's answer from a decision made or standing, or it waits."""
    item, key = local.item, answer_id(local.item)
    approval = ToolApproval(
        key,
        str(item.get("name", "")),
        str(item.get("arguments") or ""),
        key,
        "mcp_approval_request",
        str(item.get("server_label", "")),
    )
    decision = state.decisions.get(key) or state.standing.get(approval.standing_key)
    if decision is None:
        waiting.append(approval)
        return local
    # `reject` records openai-agents' default words when the human gave none: those are
    # no reason of theirs, and openai-agents then sends the answer without one.
    message = decision.get("message")
    reason = None if decision["approved"] or message == REJECTION else message
    return local._replace(answer=approval_response(key, decision["approved"], reason))


async def _on_approval(run: RunSetup, tool: ShellTool, item: ToolApprovalItem) -> Decision | None:
    """What a shell tool's `on_approval` decides; None (the run pauses) for any other answer."""
    assert tool.on_approval is not None  # asked only of tools that have one
    try:
        answer: object = tool.on_approval(run.context, item)
        if inspect.isawaitable(answer):
            answer = await answer
    except Exception as error:
        raise UserError(
            f"on_approval of shell tool '{tool.name}' raised {type(error).__name__} ({error}) "
            f"for call '{item.call_id}'; no call of this turn has run. Fix the function and "
            "run again"
        ) from error
    return _decision_of(answer)


def _decision_of(answer: object) -> Decision | None:
    """An `on_approval` answer as a decision; None for anything but `approve` True or False."""
    fields = cast(dict[str, object], answer) if isinstance(answer, dict) else {}
    approve = fields.get("approve")
    if approve is True:
        return {"approved": True, "message": None}
    if approve is False:
        reason = fields.get("reason")
        return {
            "approved": False,
            "message": reason if isinstance(reason, str) and reason else None,
        }
    return None


# Step 4: run.


async def run_calls(
    run: RunSetup, state: RunState, setup: AgentSetup, plan: TurnPlan
) -> list[GroupOutcome]:
    """Run what the plan asks for, recording each answer in the turn in progress.

    The function calls are counted in the run's usage before any of them starts, and
    refused all together if they would go over `tool_calls_limit`: runs that share a
    usage (agents used as tools, at once) cannot all pass the check before one counts.

    Args:
        run: What the run's steps read.
        state: The run's state (the turn's answers, the usage).
        setup: The agent answering.
        plan: The approved plan.

    Returns:
        The outcomes of the function calls run now.
    """
    answers, agent = _turn(state).answers, setup.agent
    for local in plan.local_calls:
        key = answer_id(local.item)
        if key in answers:
            continue
        if local.answer is not None:
            answers[key] = local.answer
        else:
            answers[key] = await run.executor.answer_local(agent, local.item, local.tool)
    groups = _unanswered(plan.groups, answers)
    reserve_tool_calls(run.config.usage_limits, state.usage, _to_run(groups, state.nested))
    if len(groups) == 1 and len(groups[0].calls) == 1:
        # The common turn, one call: awaited here, with nothing else kept alive while it
        # runs; stopped early, it has no finished answer to keep, unless it was a sync
        # call given up in its thread, which resuming must not start again.
        group = groups[0]
        planned = group.calls[0]
        ctx = run.executor.context_for(agent, group.call_id, planned)
        try:
            outcome = await run.executor.call(agent, group.call_id, planned, ctx)
        except BaseException:
            if ctx is not None and ctx.cancelled.is_set():
                _answer(answers, GroupOutcome(group, (given_up(ctx.tool_name),)))
            raise
        outcomes = [GroupOutcome(group, (outcome,))]
    else:
        outcomes = await _run_at_once(run, groups, agent, answers)
    for outcome in outcomes:
        _answer(answers, outcome)
    for planned in plan.handoffs:
        if planned.call_id not in answers:
            if planned.target is not None:
                await run_on_handoff(planned.target, run.context, planned.data)
            answers[planned.call_id] = function_call_output(planned.call_id, planned.answer)
    return outcomes


def _to_run(groups: Sequence[CallGroup], resumed: dict[str, RunState]) -> int:
    """How many of the groups' calls start a tool (unknown tools and rejections do not).

    An agent tool's call that resumes its paused nested run (`resumed`, by call id)
    started, and was counted, before the pause.
    """
    coming = 0
    for group in groups:  # plain loops: most turns hold one call
        if group.call_id in resumed:
            coming -= 1
        for call in group.calls:
            if call.tool is not None:
                coming += 1
    return coming


async def _run_at_once(
    run: RunSetup, groups: Sequence[CallGroup], agent: Agent[object], answers: dict[str, Item]
) -> list[GroupOutcome]:
    """Run the calls of several groups (or a group of several) at once."""
    finished: list[GroupOutcome] = []
    try:
        return await run.executor.run(agent, groups, finished)
    except BaseException:
        # An answer made before the turn stopped early is kept only if its text is all that
        # counts: what a tool returned beyond it (an agent, context variables, the value a
        # tool_use_behavior stops on, a failure for the error budget) is not in the state.
        if agent.tool_use_behavior == "run_llm_again":
            for outcome in finished:
                if all(map(_only_text, outcome.outcomes)):
                    _answer(answers, outcome)
        raise


def _unanswered(groups: tuple[CallGroup, ...], answers: dict[str, Item]) -> Sequence[CallGroup]:
    if not answers:  # a fresh turn: the plan's own tuple, no list kept while the calls run
        return groups
    # A function of its own (`_lean`: no closure in a waiting frame).
    return [group for group in groups if group.call_id not in answers]


def _answer(answers: dict[str, Item], outcome: GroupOutcome) -> None:
    call_id = outcome.group.call_id
    parts = outcome.parts
    output = valid_text(outcome.output) if parts is None else parts
    answers[call_id] = function_call_output(call_id, output, is_error=outcome.failed)


def _only_text(outcome: ToolOutcome) -> bool:
    return not outcome.failed and outcome.handoff is None and not outcome.context_variables


# Step 5: apply, and decide the next step.


async def apply(
    run: RunSetup,
    record: RunRecord,
    setup: AgentSetup,
    plan: TurnPlan,
    outcomes: list[GroupOutcome],
) -> NextStep:
    """Add the answers to the conversation in call order, and decide what comes next.

    Args:
        run: What the run's steps read.
        record: What they write: the state the answers join.
        setup: The agent answering.
        plan: The plan that ran.
        outcomes: The function calls' outcomes.

    Returns:
        The next step: a handoff, the final output, or another model call.

    Raises:
        ToolErrorBudgetExceeded: If every call failed, turn after turn.
    """
    state, agent = record.state, setup.agent
    answers = _turn(state).answers
    taken = plan.handoff.call_id if plan.handoff else None
    target = plan.handoff.target if plan.handoff else None
    for key in plan.order:
        state.new_items.append(answers[key])
        if key == taken:
            run.events.item("handoff_occured", answers[key], agent, target and target.agent)
        elif answers[key].get("type") == "mcp_approval_response":
            run.events.item("mcp_approval_response", answers[key], agent)
        else:
            run.events.item("tool_output", answers[key], agent, items=state.new_items)
    state.turn = None
    # Decisions are for this turn's calls only: a model that reuses call ids in a later
    # turn must not find its new call approved in advance.
    state.decisions, state.interruptions = {}, []
    for group in outcomes:
        for outcome in group.outcomes:
            if outcome.context_variables:
                apply_context_variables(run.context.context, outcome.context_variables)
    if (plan.groups or plan.handoffs or plan.local_calls) and agent.reset_tool_choice:
        state.tool_choice_released = True
    _spend_error_budget(run.config.max_tool_errors, record, outcomes)
    target = plan.handoff.target if plan.handoff else _returned_agent(outcomes)
    if target is not None:
        return NextAgent(target)
    return await _decide_final(run.context, agent, outcomes)


def _returned_agent(outcomes: list[GroupOutcome]) -> AgentHandoff | None:
    """A Swarm-style handoff: the first agent a tool returned."""
    for group in outcomes:
        for outcome in group.outcomes:
            agent = as_agent(outcome.handoff) if outcome.handoff is not None else None
            if agent is not None:
                return handoff(agent)
    return None


def _spend_error_budget(budget: int, record: RunRecord, outcomes: list[GroupOutcome]) -> None:
    """Count turns in which every call failed; stop the run when the budget is gone."""
    if not outcomes:
        return
    state = record.state
    if not all(outcome.failed for outcome in outcomes):
        state.failed_turns = 0
        return
    state.failed_turns += 1
    if state.failed_turns >= budget:
        errors = [outcome.output for outcome in outcomes]
        raise ToolErrorBudgetExceeded(budget, errors, *record.error_items())


def _results(outcomes: list[GroupOutcome]) -> list[FunctionToolResult]:
    return [
        FunctionToolResult(call.tool, group.group.call_id, outcome.returned())
        for group in outcomes
        if not group.group.wrapper
        for call, outcome in zip(group.group.calls, group.outcomes, strict=True)
        if call.tool is not None
    ]


async def _decide_final(
    context: RunContextWrapper[object], agent: Agent[object], outcomes: list[GroupOutcome]
) -> NextStep:
    behavior = agent.tool_use_behavior
    if behavior == "run_llm_again":  # the default: no results made to look at
        return RunAgain()
    results = _results(outcomes)
    if not results:
        return RunAgain()
    if behavior == "stop_on_first_tool":
        return FinalOutput(results[0].output)
    if isinstance(behavior, dict):
        stop_at = cast(StopAtTools, behavior)["stop_at_tool_names"]
        hit = next((r for r in results if r.tool.name in stop_at), None)
        return FinalOutput(hit.output) if hit else RunAgain()
    decision = behavior(context, results)
    if inspect.isawaitable(decision):
        decision = await decision
    return FinalOutput(decision.final_output) if decision.is_final_output else RunAgain()


def _turn(state: RunState) -> TurnInProgress:
    turn = state.turn
    assert turn is not None  # the steps after call_model run inside a turn
    return turn
