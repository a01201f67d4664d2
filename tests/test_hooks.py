"""Hooks: called in the documented order, streamed or not; a hook that raises stops the run;
mistakes in a hooks class refused where the hooks are given."""

from __future__ import annotations

import functools
import inspect
from typing import Any

import pytest

from tooluse import (
    Agent,
    AgentHooks,
    AgentUpdatedStreamEvent,
    LocalShellTool,
    RunContextWrapper,
    RunHooks,
    Runner,
    RunState,
    ToolContext,
    TResponseInputItem,
    function_tool,
    handoff,
)
from tooluse.agents._hooks import check_hooks
from tooluse.exceptions import UserError
from tooluse.models import ModelResponse
from tooluse.run._events import RunEvents

from .scripted import ScriptModel, call, shell, text


class Recorder(RunHooks[Any]):
    def __init__(self, log: list[str]) -> None:
        self.log = log

    async def on_agent_start(self, context: RunContextWrapper[Any], agent: Agent[Any]) -> None:
        self.log.append(f"run.agent_start {agent.name}")

    async def on_agent_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], output: Any
    ) -> None:
        self.log.append(f"run.agent_end {agent.name} {output}")

    async def on_handoff(
        self, context: RunContextWrapper[Any], from_agent: Agent[Any], to_agent: Agent[Any]
    ) -> None:
        self.log.append(f"run.handoff {from_agent.name}->{to_agent.name}")

    async def on_tool_start(
        self, context: RunContextWrapper[Any], agent: Agent[Any], tool: Any
    ) -> None:
        where = context.tool_call_id if isinstance(context, ToolContext) else "local"
        self.log.append(f"run.tool_start {tool.name} {where}")

    async def on_tool_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], tool: Any, result: str
    ) -> None:
        self.log.append(f"run.tool_end {tool.name} {result[:12]}")

    async def on_llm_start(
        self,
        context: RunContextWrapper[Any],
        agent: Agent[Any],
        system_prompt: str | None,
        input_items: list[TResponseInputItem],
    ) -> None:
        self.log.append(f"run.llm_start {agent.name} {system_prompt} {len(input_items)}")

    async def on_llm_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], response: ModelResponse
    ) -> None:
        self.log.append(f"run.llm_end {agent.name} {response.response_id}")


class AgentRecorder(AgentHooks[Any]):
    def __init__(self, log: list[str]) -> None:
        self.log = log

    async def on_start(self, context: RunContextWrapper[Any], agent: Agent[Any]) -> None:
        self.log.append(f"{agent.name}.start")

    async def on_end(self, context: RunContextWrapper[Any], agent: Agent[Any], output: Any) -> None:
        self.log.append(f"{agent.name}.end {output}")

    async def on_handoff(
        self, context: RunContextWrapper[Any], agent: Agent[Any], source: Agent[Any]
    ) -> None:
        self.log.append(f"{agent.name}.handoff from {source.name}")

    async def on_tool_start(
        self, context: RunContextWrapper[Any], agent: Agent[Any], tool: Any
    ) -> None:
        self.log.append(f"{agent.name}.tool_start {tool.name}")

    async def on_tool_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], tool: Any, result: str
    ) -> None:
        self.log.append(f"{agent.name}.tool_end {tool.name}")

    async def on_llm_start(
        self,
        context: RunContextWrapper[Any],
        agent: Agent[Any],
        system_prompt: str | None,
        input_items: list[TResponseInputItem],
    ) -> None:
        self.log.append(f"{agent.name}.llm_start")

    async def on_llm_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], response: ModelResponse
    ) -> None:
        self.log.append(f"{agent.name}.llm_end")


@function_tool
def lookup(key: str) -> str:
    """Look up.

    Args:
        key: The key.
    """
    return f"value of {key}"


@function_tool(needs_approval=True)
def delete(path: str) -> str:
    """Delete.

    Args:
        path: The file.
    """
    return f"deleted {path}"


def agents(log: list[str], model: ScriptModel) -> Agent[Any]:
    expert = Agent(
        "expert", instructions="Expert.", tools=[delete], model=model, hooks=AgentRecorder(log)
    )
    return Agent(
        "triage",
        instructions="Triage.",
        tools=[lookup, LocalShellTool(executor=lambda action: "listed")],  # pyright: ignore[reportUnknownLambdaType, reportUnknownArgumentType]
        handoffs=[handoff(expert)],
        model=model,
        hooks=AgentRecorder(log),
    )


SCRIPT = (
    [call("c1", "lookup", {"key": "k"}), shell("s1", "ls")],
    [call("h1", "transfer_to_expert")],
    [call("c2", "delete", {"path": "/tmp/x"})],
    [text("done")],
)

EXPECTED = [
    "run.agent_start triage", "triage.start",
    "run.llm_start triage Triage. 1", "triage.llm_start",
    "run.llm_end triage resp_1", "triage.llm_end",
    "run.tool_start local_shell local", "triage.tool_start local_shell",
    "run.tool_end local_shell {\"type\": \"lo", "triage.tool_end local_shell",
    "run.tool_start lookup c1", "triage.tool_start lookup",
    "run.tool_end lookup value of k", "triage.tool_end lookup",
    "run.llm_start triage Triage. 5", "triage.llm_start",
    "run.llm_end triage resp_2", "triage.llm_end",
    "run.handoff triage->expert", "expert.handoff from triage",
    "run.agent_start expert", "expert.start",
    "run.llm_start expert Expert. 7", "expert.llm_start",
    "run.llm_end expert resp_3", "expert.llm_end",
    # paused for approval: no end; the resumed run starts the current agent again
    "run.agent_start expert", "expert.start",
    "run.tool_start delete c2", "expert.tool_start delete",
    "run.tool_end delete deleted /tmp", "expert.tool_end delete",
    "run.llm_start expert Expert. 9", "expert.llm_start",
    "run.llm_end expert resp_4", "expert.llm_end",
    "run.agent_end expert done", "expert.end done",
]  # fmt: skip


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_hooks_are_called_in_the_documented_order(streamed: bool) -> None:
    log: list[str] = []
    agent = agents(log, ScriptModel(*SCRIPT))
    updates: list[str] = []

    async def run(source: str | RunState) -> Any:
        if not streamed:
            return await Runner.run(agent, source, hooks=Recorder(log))
        result = Runner.run_streamed(agent, source, hooks=Recorder(log))
        events = [event async for event in result.stream_events()]
        updates.extend(e.new_agent.name for e in events if isinstance(e, AgentUpdatedStreamEvent))
        return result

    paused = await run("go")
    paused.approve(paused.interruptions[0])
    result = await run(RunState.from_json(paused.to_state().to_json()))
    assert result.final_output == "done"
    assert log == EXPECTED
    if streamed:  # the stream's agent changes come from the same seam as on_agent_start
        assert updates == [e.split()[1] for e in EXPECTED if e.startswith("run.agent_start")]


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_a_hook_that_raises_stops_the_run_with_its_error(streamed: bool) -> None:
    class Strict(RunHooks[Any]):
        async def on_tool_start(
            self, context: RunContextWrapper[Any], agent: Agent[Any], tool: Any
        ) -> None:
            raise PermissionError(f"{tool.name} is not allowed")

    model = ScriptModel([call("c1", "lookup", {"key": "k"})], [text("done")])
    agent = Agent("a", tools=[lookup], model=model)
    with pytest.raises(PermissionError, match="lookup is not allowed"):
        await drain(agent, streamed, hooks=Strict())
    assert len(model.requests) == 1


async def drain(agent: Agent[Any], streamed: bool, **options: Any) -> Any:
    if not streamed:
        return await Runner.run(agent, "go", **options)
    result = Runner.run_streamed(agent, "go", **options)
    async for _ in result.stream_events():
        pass
    return result


# Mistakes in a hooks class: refused where the hooks are given, not at the step that calls them.


def refusal(hooks: object, kind: Any = RunHooks) -> str:
    with pytest.raises(UserError) as caught:
        check_hooks(hooks, kind, "Runner hooks" if kind is RunHooks else "Agent 'a' hooks")
    return str(caught.value)


def test_a_hook_of_the_wrong_arity_is_refused_with_the_signature_to_write() -> None:
    class H(RunHooks[Any]):
        async def on_llm_retry(self, context: Any, agent: Any, error: Any) -> None:  # pyright: ignore[reportIncompatibleMethodOverride]
            pass

    class A(AgentHooks[Any]):
        async def on_end(self, context: Any, agent: Any) -> None:  # pyright: ignore[reportIncompatibleMethodOverride]
            pass

    assert refusal(H()) == (
        "Runner hooks: RunHooks subclass H: on_llm_retry(self, context, agent, error) cannot "
        "take the 5 arguments the run passes: (context, agent, error, attempt, delay); "
        "write `async def on_llm_retry(self, context, agent, error, attempt, delay)`"
    )
    assert refusal(A(), AgentHooks) == (
        "Agent 'a' hooks: AgentHooks subclass A: on_end(self, context, agent) cannot take the "
        "3 arguments the run passes: (context, agent, output); "
        "write `async def on_end(self, context, agent, output)`"
    )


def test_a_hook_that_needs_a_keyword_the_run_never_passes_is_refused() -> None:
    class H(RunHooks[Any]):
        async def on_tool_start(self, context: Any, agent: Any, tool: Any, *, strict: bool) -> None:  # pyright: ignore[reportIncompatibleMethodOverride]
            pass

    assert refusal(H()).startswith(
        "Runner hooks: RunHooks subclass H: on_tool_start(self, context, agent, tool, *, strict) "
        "cannot take the 3 arguments"
    )


def test_a_hook_that_is_not_async_is_refused() -> None:
    class S(RunHooks[Any]):
        def on_llm_retry(  # pyright: ignore[reportIncompatibleMethodOverride]
            self, context: Any, agent: Any, error: Any, attempt: Any, delay: Any
        ) -> None:
            pass

    class A(AgentHooks[Any]):
        def on_start(self, context: Any, agent: Any) -> None:  # pyright: ignore[reportIncompatibleMethodOverride]
            pass

    assert refusal(S()) == (
        "Runner hooks: RunHooks subclass S: on_llm_retry is not async: write `async def`"
    )
    assert refusal(A(), AgentHooks) == (
        "Agent 'a' hooks: AgentHooks subclass A: on_start is not async: write `async def`"
    )


def test_every_mistake_of_a_class_is_named_at_once() -> None:
    class Sloppy(AgentHooks[Any]):
        on_handoff = None  # pyright: ignore[reportAssignmentType]

        def on_tool_end(self, context: Any, agent: Any, tool: Any) -> None:  # pyright: ignore[reportIncompatibleMethodOverride]
            pass

        async def on_llm_end(self, context: Any, agent: Any, response: Any) -> Any:  # pyright: ignore[reportIncompatibleMethodOverride]
            yield response

        async def on_llm_begin(self, context: Any, agent: Any) -> None:
            pass

    assert refusal(Sloppy(), AgentHooks) == (
        "Agent 'a' hooks: AgentHooks subclass Sloppy has 5 mistakes:\n"
        "  - on_handoff is NoneType, not a method: "
        "write `async def on_handoff(self, context, agent, source)`\n"
        "  - on_tool_end is not async: write `async def`\n"
        "  - on_tool_end(self, context, agent, tool) cannot take the 4 arguments the run passes: "
        "(context, agent, tool, result); write `async def on_tool_end(self, context, agent, tool, result)`\n"
        "  - on_llm_end is an async generator, which the run cannot await: drop `yield`\n"
        "  - on_llm_begin is not a hook, so the run never calls it: did you mean on_llm_start? "
        "(rename it if it is a helper of yours)"
    )


def test_a_misspelt_hook_is_refused_with_a_suggestion() -> None:
    class Typos(RunHooks[Any]):
        async def on_tool_started(self, context: Any, agent: Any, tool: Any) -> None:
            pass

    class Inherited(Typos):  # found in the class's bases too
        pass

    class Mixed(RunHooks[Any]):  # AgentHooks' names in a RunHooks, and the other way round
        async def on_start(self, context: Any, agent: Any) -> None:
            pass

    class MixedAgent(AgentHooks[Any]):
        async def on_agent_end(self, context: Any, agent: Any, output: Any) -> None:
            pass

    expected = (
        "RunHooks subclass Typos: on_tool_started is not a hook, so the run never calls it: "
        "did you mean on_tool_start? (rename it if it is a helper of yours)"
    )
    assert refusal(Typos()) == f"Runner hooks: {expected}"
    assert refusal(Inherited()) == f"Runner hooks: {expected.replace('Typos', 'Inherited', 1)}"
    assert refusal(Mixed()) == (
        "Runner hooks: RunHooks subclass Mixed: on_start is an AgentHooks method, which the run "
        "never calls on a RunHooks: did you mean on_agent_start?"
    )
    assert refusal(MixedAgent(), AgentHooks).endswith(
        "on_agent_end is a RunHooks method, which the run never calls on an AgentHooks: "
        "did you mean on_end?"
    )


def test_objects_that_are_not_hooks_of_the_kind_are_refused() -> None:
    class Partial:  # duck-typed: the run would fail at the first hook it lacks
        async def on_start(self, context: Any, agent: Any) -> None:
            pass

    assert refusal(RunHooks(), AgentHooks) == (
        "Agent 'a' hooks: must be an AgentHooks, not a RunHooks (for Runner.run(..., hooks=...))"
    )
    assert refusal("log", AgentHooks) == "Agent 'a' hooks: must be an AgentHooks, not str"
    assert refusal(Partial(), AgentHooks) == (
        "Agent 'a' hooks: Partial is not an AgentHooks and has no on_end, on_handoff, "
        "on_tool_start, on_tool_end, on_llm_start, on_llm_retry, on_llm_end, which the run "
        "calls: subclass AgentHooks (its methods do nothing by default)"
    )


class Proxy:
    """Not a RunHooks: answers every hook through `__getattr__`."""

    def __getattr__(self, name: str) -> Any:
        async def hook(*args: Any) -> None:
            pass

        return hook


def test_unusual_attributes_are_judged_by_what_the_run_would_call() -> None:
    class SyncProxy(Proxy):
        def on_tool_start(self, context: Any, agent: Any, tool: Any) -> None:
            pass

    class Odd(RunHooks[Any]):
        on_tool_start = staticmethod(max)  # a builtin: no signature to read  # pyright: ignore[reportAssignmentType]

        @property
        def on_tool_end(self) -> Any:  # pyright: ignore[reportIncompatibleMethodOverride]
            raise RuntimeError("fails when looked up: the run would say so")

    check_hooks(Proxy(), RunHooks, "Runner hooks")
    assert refusal(SyncProxy()) == (
        "Runner hooks: SyncProxy (not a RunHooks subclass): on_tool_start is not async: "
        "write `async def`"
    )
    assert (
        refusal(Odd())
        == "Runner hooks: RunHooks subclass Odd: on_tool_start is not async: write `async def`"
    )


def logged(function: Any) -> Any:
    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return function(*args, **kwargs)

    return wrapper


class Stamp:
    async def __call__(self, context: Any, agent: Any) -> None:
        pass


class SyncBase(RunHooks[Any]):
    def on_agent_end(self, context: Any, agent: Any, output: Any) -> None:  # pyright: ignore[reportIncompatibleMethodOverride]
        pass


class Flexible(SyncBase):
    async def on_agent_end(self, context: Any, agent: Any, output: Any) -> None:  # pyright: ignore[reportIncompatibleMethodOverride]
        pass  # async again, overriding a sync one: what the run calls is async

    async def on_tool_start(self, *args: Any, **kwargs: Any) -> None:
        pass

    async def on_tool_end(
        self, context: Any, agent: Any, tool: Any, result: str, extra: int = 0, *, tag: str = ""
    ) -> None:
        pass

    async def on_handoff(self, context: Any, /, *agents: Any) -> None:  # pyright: ignore[reportIncompatibleMethodOverride]
        pass

    @staticmethod
    async def on_llm_start(context: Any, agent: Any, system_prompt: Any, input_items: Any) -> None:  # pyright: ignore[reportIncompatibleMethodOverride]
        pass

    @classmethod
    async def on_agent_start(cls, context: Any, agent: Any) -> None:  # pyright: ignore[reportIncompatibleMethodOverride]
        pass

    @logged
    async def on_llm_end(self, context: Any, agent: Any, response: Any) -> None:
        pass

    async def on_billing(self, cost: float) -> None:  # an on_ helper named like no hook
        pass


class FlexibleAgent(AgentHooks[Any]):
    on_start = Stamp()  # a callable object with an async __call__  # pyright: ignore[reportAssignmentType]

    async def on_llm_retry(self, context: Any, agent: Any, *failure: Any) -> None:  # pyright: ignore[reportIncompatibleMethodOverride]
        pass


class OpenAIAgentsStyle(RunHooks[Any]):
    """Written for openai-agents' RunHooks (`result: object`; no `on_llm_retry` there)."""

    async def on_llm_start(
        self, context: Any, agent: Any, system_prompt: str | None, input_items: list[Any]
    ) -> None:
        pass

    async def on_llm_end(self, context: Any, agent: Any, response: Any) -> None:
        pass

    async def on_agent_start(self, context: Any, agent: Any) -> None:
        pass

    async def on_agent_end(self, context: Any, agent: Any, output: Any) -> None:
        pass

    async def on_handoff(self, context: Any, from_agent: Any, to_agent: Any) -> None:
        pass

    async def on_tool_start(self, context: Any, agent: Any, tool: Any) -> None:
        pass

    async def on_tool_end(self, context: Any, agent: Any, tool: Any, result: object) -> None:
        pass


class OpenAIAgentsStyleAgent(AgentHooks[Any]):
    async def on_start(self, context: Any, agent: Any) -> None:
        pass

    async def on_end(self, context: Any, agent: Any, output: Any) -> None:
        pass

    async def on_handoff(self, context: Any, agent: Any, source: Any) -> None:
        pass

    async def on_tool_end(self, context: Any, agent: Any, tool: Any, result: object) -> None:
        pass


@pytest.mark.parametrize(
    ("hooks", "kind"),
    [
        (RunHooks(), RunHooks),  # overrides nothing
        (AgentHooks(), AgentHooks),
        (Recorder([]), RunHooks),
        (AgentRecorder([]), AgentHooks),
        (Flexible(), RunHooks),
        (FlexibleAgent(), AgentHooks),
        (OpenAIAgentsStyle(), RunHooks),
        (OpenAIAgentsStyleAgent(), AgentHooks),
    ],
    ids=lambda value: type(value).__name__ if not isinstance(value, type) else "",
)
def test_hooks_the_run_can_call_are_accepted(hooks: object, kind: Any) -> None:
    check_hooks(hooks, kind, "hooks")


async def test_accepted_hooks_are_called_with_what_the_run_passes() -> None:
    model = ScriptModel([call("c1", "lookup", {"key": "k"})], [text("done")])
    agent = Agent("a", tools=[lookup], model=model, hooks=FlexibleAgent())
    result = await Runner.run(agent, "go", hooks=Flexible())
    assert result.final_output == "done"


class Misspelt(AgentHooks[Any]):
    async def on_tool_started(self, context: Any, agent: Any, tool: Any) -> None:
        pass


class WrongArity(RunHooks[Any]):
    async def on_llm_retry(self, context: Any, agent: Any, error: Any) -> None:  # pyright: ignore[reportIncompatibleMethodOverride]
        pass


def test_an_agent_refuses_its_hooks_when_made_or_cloned() -> None:
    with pytest.raises(UserError, match=r"^Agent 'a' hooks: AgentHooks subclass Misspelt: "):
        Agent("a", hooks=Misspelt())
    with pytest.raises(UserError, match="on_tool_started is not a hook"):
        Agent("a").clone(hooks=Misspelt())


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_a_run_refuses_its_hooks_before_calling_the_model(streamed: bool) -> None:
    model = ScriptModel([text("done")])
    with pytest.raises(UserError, match=r"^Runner hooks: RunHooks subclass WrongArity: "):
        await drain(Agent("a", model=model), streamed, hooks=WrongArity())
    agent = Agent("b", model=model)
    agent.hooks = Misspelt()  # set after the agent was made: refused as it starts
    with pytest.raises(UserError, match=r"^Agent 'b' hooks: AgentHooks subclass Misspelt: "):
        await drain(agent, streamed)
    assert model.requests == []


def test_the_verdict_is_kept_per_class(monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[object] = []
    signature = inspect.signature

    def counted(target: Any, *args: Any, **kwargs: Any) -> inspect.Signature:
        reads.append(target)
        return signature(target, *args, **kwargs)

    monkeypatch.setattr(inspect, "signature", counted)

    class Fresh(RunHooks[Any]):
        async def on_tool_start(self, context: Any, agent: Any, tool: Any) -> None:
            pass

    class FreshWrong(RunHooks[Any]):
        async def on_tool_start(self, context: Any, agent: Any) -> None:  # pyright: ignore[reportIncompatibleMethodOverride]
            pass

    RunEvents(Fresh(), None)
    first = refusal(FreshWrong())
    assert reads  # each class is inspected the first time
    reads.clear()
    for _ in range(3):  # then each run pays a lookup
        RunEvents(Fresh(), None)
        assert refusal(FreshWrong()) == first
    assert reads == []


def test_a_helper_named_after_the_hook_it_serves_is_not_taken_for_a_misspelling() -> None:
    class Helped(RunHooks[Any]):
        async def on_tool_start(self, context: Any, agent: Any, tool: Any) -> None:
            await self.on_tool_start_impl(tool)

        async def on_tool_start_impl(self, tool: Any) -> None:
            del tool

    Runner.run_sync(Agent("a", model=ScriptModel([text("hi")])), "hi", hooks=Helped())
