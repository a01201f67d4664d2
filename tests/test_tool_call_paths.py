"""One path for a tool call: the bare invocation and the wrapped call behave alike.

`ToolExecutor.call` hands back the tool's own invocation when nothing wraps the
call, and `_wrapped(...)` otherwise. Each scenario runs twice: with no hooks (the
bare path) and with `hooks=RunHooks()`, a hooks object that overrides nothing (the
wrapped path, and no behaviour added). Both runs must give the caller and the
model the same: the same items, answer, tool-call count, context, last agent, and
the same requests sent to the model. A spy on `_wrapping` shows each run took the
path it was meant to. Then each layer that can wrap a call is shown to make
`_wrapping` true, and the wrapped call through it to give the tool's answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider

from tooluse import (
    Agent,
    AgentHooks,
    FunctionTool,
    ModelRetry,
    Result,
    RunConfig,
    RunContextWrapper,
    RunHooks,
    Runner,
    RunState,
    ToolContext,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrailData,
    ToolOutputGuardrailData,
    ToolOutputImage,
    function_tool,
    tool_input_guardrail,
    tool_output_guardrail,
)
from tooluse.run._events import RunEvents
from tooluse.run._record import RunRecord
from tooluse.run._tool_calls import PlannedCall
from tooluse.run._tool_execution import ToolExecutor
from tooluse.tools._invocation import ToolOutcome
from tooluse.tracing._tracer import run_tracer

from .scripted import Item, ScriptModel, call, text

# --- the scenarios ---------------------------------------------------------------------------


@dataclass
class Scenario:
    """A fresh agent (with its scripted model) and the run's context."""

    agent: Agent[Any]
    model: ScriptModel
    context: Any = field(default_factory=dict[str, Any])


@function_tool
def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: The first.
        b: The second.
    """
    return a + b


@function_tool
async def add_later(a: int, b: int) -> int:
    """Add two numbers, after yielding to the loop.

    Args:
        a: The first.
        b: The second.
    """
    await asyncio.sleep(0)
    return a + b


@function_tool
def divide(a: int, b: int) -> float:
    """Divide.

    Args:
        a: The dividend.
        b: The divisor.
    """
    if b == 0:
        raise ValueError(f"secret internal state {a}/{b}")
    return a / b


@function_tool
def below_ten(n: int) -> str:
    """Accept a number below ten.

    Args:
        n: The number.
    """
    if n >= 10:
        raise ModelRetry(f"Use a number below 10, not {n}.")
    return "accepted"


@function_tool
def chart() -> ToolOutputImage:
    """Draw the chart."""
    return ToolOutputImage(image_url="https://example.com/chart.png")


def one_turn(tools: list[FunctionTool], *calls: Item) -> Scenario:
    model = ScriptModel(list(calls), [text("done")])
    return Scenario(Agent("a", tools=tools, model=model), model)


def a_value() -> Scenario:
    return one_turn([add], call("c1", "add", {"a": 2, "b": 3}))


def a_raise() -> Scenario:
    return one_turn([divide], call("c1", "divide", {"a": 1, "b": 0}))


def a_model_retry() -> Scenario:
    return one_turn([below_ten], call("c1", "below_ten", {"n": 12}))


def a_rich_output() -> Scenario:
    return one_turn([chart], call("c1", "chart"))


def an_agent_returned() -> Scenario:
    model = ScriptModel([call("c1", "escalate")], [text("the boss speaking")])
    boss = Agent("boss", instructions="You decide.", model=model)

    @function_tool
    def escalate() -> Agent[Any]:
        """Hand the user to the boss."""
        return boss

    return Scenario(Agent("clerk", tools=[escalate], model=model), model)


def a_result_with_context_variables() -> Scenario:
    @function_tool
    def identify(name: str) -> Result:
        """Identify the user.

        Args:
            name: Their name.
        """
        return Result(value=f"Hello {name}", context_variables={"user": name, "tier": "gold"})

    return one_turn([identify], call("c1", "identify", {"name": "Ann"}))


def invalid_arguments() -> Scenario:
    return one_turn(
        [add],
        call("c1", "add", {"a": "two", "b": 3}),  # the wrong type
        call("c2", "add", '{"a": 1,'),  # not JSON
        call("c3", "add", {"a": 1}),  # a field missing
    )


def an_unknown_tool() -> Scenario:
    return one_turn([add], call("c1", "subtract", {"a": 2, "b": 3}))


def a_sync_tool() -> Scenario:
    return one_turn([add], call("c1", "add", {"a": 20, "b": 22}))


def an_async_tool() -> Scenario:
    return one_turn([add_later], call("c1", "add_later", {"a": 20, "b": 22}))


def several_calls_in_one_turn() -> Scenario:
    return one_turn(
        [add, add_later, divide, below_ten, chart],
        call("c1", "add", {"a": 1, "b": 2}),
        call("c2", "add_later", {"a": 3, "b": 4}),
        call("c3", "divide", {"a": 5, "b": 0}),
        call("c4", "below_ten", {"n": 99}),
        call("c5", "nowhere"),
        call("c6", "chart"),
        call("c7", "add", "not json"),
    )


SCENARIOS: dict[str, Callable[[], Scenario]] = {
    "a value": a_value,
    "a raise": a_raise,
    "ModelRetry": a_model_retry,
    "a rich output": a_rich_output,
    "an agent returned": an_agent_returned,
    "a Result with context variables": a_result_with_context_variables,
    "invalid arguments": invalid_arguments,
    "an unknown tool": an_unknown_tool,
    "a sync tool": a_sync_tool,
    "an async tool": an_async_tool,
    "several calls in one turn": several_calls_in_one_turn,
}


# --- running both paths ----------------------------------------------------------------------


@dataclass
class Seen:
    """What a run gave its caller and its model."""

    new_items: list[Item]
    final_output: Any
    tool_calls: int
    last_agent: str
    context: Any
    sent: list[dict[str, Any]]
    wrapped: list[bool]


@pytest.fixture
def paths(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """What `_wrapping` answered for each call of the runs, in order."""
    answers: list[bool] = []
    wrapping = ToolExecutor._wrapping  # pyright: ignore[reportPrivateUsage]

    def spy(self: ToolExecutor, agent: Agent[Any], tool: FunctionTool) -> bool:
        answers.append(wrapping(self, agent, tool))
        return answers[-1]

    monkeypatch.setattr(ToolExecutor, "_wrapping", spy)
    return answers


async def seen(scenario: Scenario, hooks: RunHooks[Any] | None, paths: list[bool]) -> Seen:
    del paths[:]
    result = await Runner.run(scenario.agent, "go", context=scenario.context, hooks=hooks)
    return Seen(
        new_items=result.new_items.raw(),
        final_output=result.final_output,
        tool_calls=result.usage.tool_calls,
        last_agent=result.last_agent.name,
        context=scenario.context,
        sent=scenario.model.requests,
        wrapped=list(paths),
    )


@pytest.mark.parametrize("make", SCENARIOS.values(), ids=SCENARIOS.keys())
async def test_the_bare_and_the_wrapped_path_give_the_same_run(
    make: Callable[[], Scenario], paths: list[bool]
) -> None:
    bare = await seen(make(), None, paths)
    wrapped = await seen(make(), RunHooks(), paths)
    assert not any(bare.wrapped)
    assert all(wrapped.wrapped)
    assert len(bare.wrapped) == len(wrapped.wrapped)
    assert wrapped.new_items == bare.new_items
    assert wrapped.final_output == bare.final_output
    assert wrapped.tool_calls == bare.tool_calls
    assert wrapped.last_agent == bare.last_agent
    assert wrapped.context == bare.context
    assert wrapped.sent == bare.sent  # what the model was shown, request by request


def outputs(run: Seen) -> dict[str, Any]:
    return {i["call_id"]: i["output"] for i in run.new_items if i["type"] == "function_call_output"}


async def test_the_scenarios_show_what_they_claim(paths: list[bool]) -> None:
    """The diff above compares runs that did what each scenario names, on either path."""
    for hooks in (None, RunHooks[Any]()):
        value = await seen(a_value(), hooks, paths)
        assert outputs(value) == {"c1": "5"}
        assert value.wrapped == [hooks is not None]

        raised = outputs(await seen(a_raise(), hooks, paths))["c1"]
        assert "ValueError" in raised
        assert "secret" not in raised  # value-free

        retry = await seen(a_model_retry(), hooks, paths)
        assert outputs(retry) == {"c1": "Use a number below 10, not 12."}

        rich = outputs(await seen(a_rich_output(), hooks, paths))["c1"]
        assert {"type": "input_image", "image_url": "https://example.com/chart.png"}.items() <= (
            rich[0].items()
        )

        handed = await seen(an_agent_returned(), hooks, paths)
        assert (handed.last_agent, handed.final_output) == ("boss", "the boss speaking")
        assert handed.sent[1]["instructions"] == "You decide."

        result = await seen(a_result_with_context_variables(), hooks, paths)
        assert result.context == {"user": "Ann", "tier": "gold"}
        assert outputs(result) == {"c1": "Hello Ann"}

        invalid = await seen(invalid_arguments(), hooks, paths)
        assert set(outputs(invalid)) == {"c1", "c2", "c3"}
        assert invalid.wrapped == [hooks is not None] * 3  # the tool's validation refuses them

        unknown = await seen(an_unknown_tool(), hooks, paths)
        assert "subtract" in outputs(unknown)["c1"]
        assert (unknown.tool_calls, unknown.wrapped) == (0, [])  # no tool to call, no path

        assert outputs(await seen(a_sync_tool(), hooks, paths)) == {"c1": "42"}
        assert outputs(await seen(an_async_tool(), hooks, paths)) == {"c1": "42"}

        several = await seen(several_calls_in_one_turn(), hooks, paths)
        assert list(outputs(several)) == [f"c{n}" for n in range(1, 8)]
        assert several.wrapped == [hooks is not None] * 6  # every call but the unknown tool's


# --- each layer wraps the call ----------------------------------------------------------------


@tool_input_guardrail
def allow_input(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
    return ToolGuardrailFunctionOutput.allow()


@tool_output_guardrail
def allow_output(data: ToolOutputGuardrailData) -> ToolGuardrailFunctionOutput:
    return ToolGuardrailFunctionOutput.allow()


async def add_by_hand(ctx: ToolContext[Any], arguments: str) -> str:
    return "5"


@dataclass
class Layer:
    """What a run gives a call, with one layer (or none) around it."""

    config: RunConfig = field(default_factory=RunConfig)
    hooks: RunHooks[Any] | None = None
    agent_hooks: AgentHooks[Any] | None = None
    tool: FunctionTool = field(default_factory=lambda: add)


def add_fn(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: The first.
        b: The second.
    """
    return a + b


BY_HAND = FunctionTool(
    "add",
    "Add two numbers.",
    {"type": "object", "properties": {}, "required": [], "additionalProperties": False},
    add_by_hand,
)

LAYERS: dict[str, Callable[[], Layer]] = {
    "max_concurrent_tool_calls": lambda: Layer(RunConfig(max_concurrent_tool_calls=2)),
    "an input guardrail": lambda: Layer(
        tool=function_tool(tool_input_guardrails=[allow_input])(add_fn)
    ),
    "run hooks": lambda: Layer(hooks=RunHooks()),
    "agent hooks": lambda: Layer(agent_hooks=AgentHooks()),
    "the run's tool timeout": lambda: Layer(RunConfig(tool_timeout=5)),
    "the tool's timeout": lambda: Layer(tool=function_tool(timeout=5)(add_fn)),
    "a hand-built on_invoke_tool": lambda: Layer(tool=BY_HAND),
    "an output guardrail": lambda: Layer(
        tool=function_tool(tool_output_guardrails=[allow_output])(add_fn)
    ),
}


def executor_for(layer: Layer) -> tuple[ToolExecutor, Agent[Any]]:
    config = layer.config
    events = RunEvents(layer.hooks, None, run_tracer(config))
    agent = Agent("a", tools=[layer.tool], hooks=layer.agent_hooks)
    record = RunRecord(RunState(agent_name="a", input=[]))
    return ToolExecutor(RunContextWrapper(None), config, events, record), agent


async def called(layer: Layer) -> tuple[bool, Awaitable[ToolOutcome], ToolOutcome]:
    executor, agent = executor_for(layer)
    wrapping = executor._wrapping(agent, layer.tool)  # pyright: ignore[reportPrivateUsage]
    planned = PlannedCall(layer.tool.name, '{"a": 2, "b": 3}', "c1", layer.tool)
    call_ = executor.call(agent, "c1", planned)
    return wrapping, call_, await call_


async def test_a_call_that_nothing_wraps_is_the_tools_own_invocation() -> None:
    wrapping, invocation, outcome = await called(Layer())
    assert not wrapping
    assert getattr(invocation, "__qualname__", "") == "Invoker.invoke"
    assert (outcome.output, outcome.failed) == ("5", False)


async def test_a_call_that_only_a_span_wraps_skips_the_other_layers() -> None:
    wrapping, invocation, outcome = await called(Layer(RunConfig(tracer_provider=TracerProvider())))
    assert not wrapping
    assert getattr(invocation, "__qualname__", "") == "ToolExecutor._traced"
    assert (outcome.output, outcome.failed) == ("5", False)


@pytest.mark.parametrize("layer", LAYERS.values(), ids=LAYERS.keys())
async def test_each_layer_wraps_the_call_and_the_call_still_answers(
    layer: Callable[[], Layer],
) -> None:
    wrapping, invocation, outcome = await called(layer())
    assert wrapping
    assert getattr(invocation, "__qualname__", "") == "ToolExecutor._wrapped"
    assert (outcome.output, outcome.failed) == ("5", False)
