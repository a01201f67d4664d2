"""Guardrails: input, output and tool guardrails, made and checked, run alone and in runs."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections.abc import AsyncIterator
from typing import Any

import pytest
from pydantic import BaseModel

from tooluse import (
    Agent,
    FunctionTool,
    GuardrailFunctionOutput,
    InputGuardrail,
    InputGuardrailResult,
    InputGuardrailTripwireTriggered,
    OutputGuardrail,
    OutputGuardrailResult,
    OutputGuardrailTripwireTriggered,
    RunConfig,
    RunContextWrapper,
    Runner,
    ToolContext,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrail,
    ToolInputGuardrailData,
    ToolInputGuardrailResult,
    ToolInputGuardrailTripwireTriggered,
    ToolOutputGuardrail,
    ToolOutputGuardrailData,
    ToolOutputGuardrailResult,
    ToolOutputGuardrailTripwireTriggered,
    UserError,
    function_tool,
    input_guardrail,
    output_guardrail,
    tool_input_guardrail,
    tool_output_guardrail,
)
from tooluse.exceptions import GuardrailTripwireTriggered
from tooluse.models import Model, ModelRequest, ModelResponse, StreamDelta, StreamEvent
from tooluse.run._guardrails import (
    beside_input_guardrails,
    check_tool_input,
    check_tool_output,
    run_input_guardrails,
    run_output_guardrails,
    split_input_guardrails,
)
from tooluse.run._stream_events import GuardrailResultStreamEvent
from tooluse.testing import TestModel
from tooluse.tracing._tracer import RunTracer, SpanScope

from .openai_server import Call, ScriptedServer, Turn, sent_tool_outputs
from .scripted import ScriptModel, call, outputs, text

AGENT: Agent[Any] = Agent("a", model=TestModel())
CONTEXT: RunContextWrapper[Any] = RunContextWrapper(None)
PASS = GuardrailFunctionOutput(output_info="fine", tripwire_triggered=False)
TRIP = GuardrailFunctionOutput(output_info="bad", tripwire_triggered=True)


def passing(name: str) -> InputGuardrail[Any]:
    return InputGuardrail(lambda ctx, agent, input: PASS, name=name)


def tripping(name: str) -> InputGuardrail[Any]:
    return InputGuardrail(lambda ctx, agent, input: TRIP, name=name)


class Span(SpanScope):
    """A scope with no OpenTelemetry span behind it: it logs what the run records."""

    def __init__(self, log: list[str], label: str) -> None:  # no span to give SpanScope
        self.log = log
        self.label = label

    def __enter__(self) -> Span:
        return self

    def __exit__(self, kind: Any, error: Any, traceback: Any) -> None:
        self.log.append(f"end {self.label}{' error' if error else ''}")

    def set_triggered(self, triggered: bool) -> None:
        self.log.append(f"triggered {self.label} {triggered}")


class Tracer(RunTracer):
    def __init__(self) -> None:
        self.log: list[str] = []

    def guardrail(self, kind: str, name: str, agent: Any) -> SpanScope:
        self.log.append(f"start {kind}:{name} {agent.name}")
        return Span(self.log, f"{kind}:{name}")


# --- making guardrails -----------------------------------------------------------------


class TestInputAndOutputGuardrails:
    async def test_decorated_bare_sync(self) -> None:
        @input_guardrail
        def no_math(
            ctx: RunContextWrapper[Any], agent: Agent[Any], input: str | list[Any]
        ) -> GuardrailFunctionOutput:
            return GuardrailFunctionOutput(len(input), "math" in str(input))

        assert isinstance(no_math, InputGuardrail)
        assert (no_math.name, no_math.get_name(), no_math.run_in_parallel) == (
            "no_math",
            "no_math",
            True,
        )
        result = await no_math.run(AGENT, "do my math", CONTEXT)
        assert result == InputGuardrailResult(no_math, GuardrailFunctionOutput(10, True))

    async def test_decorated_called_async(self) -> None:
        @input_guardrail(name="topic", run_in_parallel=False)
        async def check(
            ctx: RunContextWrapper[Any], agent: Agent[Any], input: str | list[Any]
        ) -> GuardrailFunctionOutput:
            await asyncio.sleep(0)
            return GuardrailFunctionOutput({"agent": agent.name}, False)

        assert (check.get_name(), check.run_in_parallel) == ("topic", False)
        result = await check.run(AGENT, [{"role": "user", "content": "hi"}], CONTEXT)
        assert result.output == GuardrailFunctionOutput({"agent": "a"}, False)

    async def test_output_guardrail(self) -> None:
        @output_guardrail
        async def short(ctx: RunContextWrapper[Any], agent: Agent[Any], output: Any) -> Any:
            return GuardrailFunctionOutput(None, len(output) > 5)

        @output_guardrail(name="named")
        def named(ctx: RunContextWrapper[Any], agent: Agent[Any], output: Any) -> Any:
            return PASS

        assert (short.get_name(), named.get_name()) == ("short", "named")
        result = await short.run(CONTEXT, AGENT, "too long")
        assert result == OutputGuardrailResult(
            short, "too long", AGENT, GuardrailFunctionOutput(None, True)
        )

    async def test_by_hand_the_name_defaults_to_the_function(self) -> None:
        def check(ctx: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
            return PASS

        def configured(level: int, ctx: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
            return PASS

        class Checker:
            def __call__(self, ctx: Any, agent: Any, output: Any) -> GuardrailFunctionOutput:
                return PASS

        assert InputGuardrail(check).name is None
        assert InputGuardrail(check).get_name() == "check"
        assert InputGuardrail(functools.partial(configured, 1)).get_name() == "configured"
        assert OutputGuardrail(Checker()).get_name() == "Checker"
        assert input_guardrail(functools.partial(configured, 1)).name == "configured"
        assert (await OutputGuardrail(Checker()).run(CONTEXT, AGENT, 1)).output is PASS

    def test_a_function_taking_the_wrong_arguments_is_refused_when_made(self) -> None:
        def one(input: str) -> GuardrailFunctionOutput:
            return PASS

        with pytest.raises(UserError) as caught:
            input_guardrail(one)  # pyright: ignore[reportArgumentType]
        assert str(caught.value) == (
            "Input guardrail 'one': 'tests.test_guardrails.TestInputAndOutputGuardrails."
            "test_a_function_taking_the_wrong_arguments_is_refused_when_made.<locals>.one' "
            "takes (input), but the run calls it with 3 positional arguments, as function(context, agent, input); give it exactly those "
            "parameters"
        )
        with pytest.raises(UserError, match=r"^Output guardrail 'one': .* as function\(context"):
            output_guardrail(name="one")(lambda ctx, agent: PASS)  # pyright: ignore[reportArgumentType]

    def test_a_function_with_a_keyword_only_parameter_is_refused(self) -> None:
        def check(ctx: Any, agent: Any, input: Any, *, strict: bool) -> GuardrailFunctionOutput:
            return PASS

        with pytest.raises(UserError, match="give it exactly those parameters"):
            InputGuardrail(check)  # pyright: ignore[reportArgumentType]

    def test_a_function_that_takes_more_with_defaults_or_star_args_is_fine(self) -> None:
        def extra(ctx: Any, agent: Any, input: Any, strict: bool = True) -> Any:
            return PASS

        def star(*args: Any) -> Any:
            return PASS

        assert input_guardrail(extra).get_name() == "extra"
        assert output_guardrail(star).get_name() == "star"
        no_signature: Any = max  # a builtin inspect cannot read: taken on trust
        assert InputGuardrail(no_signature).get_name() == "max"

    def test_not_a_function(self) -> None:
        with pytest.raises(UserError) as caught:
            InputGuardrail(42)  # pyright: ignore[reportArgumentType]
        assert str(caught.value) == (
            "Input guardrail '?': guardrail_function must be a function, called as "
            "function(context, agent, input); got 42"
        )
        with pytest.raises(UserError, match=r"^Output guardrail 'x': guardrail_function must"):
            OutputGuardrail("nope", name="x")  # pyright: ignore[reportArgumentType]

    def test_a_name_given_where_the_function_goes(self) -> None:
        with pytest.raises(UserError) as caught:
            input_guardrail("topic")  # pyright: ignore[reportArgumentType, reportCallIssue]
        assert str(caught.value) == (
            "input_guardrail takes the function itself, or only keyword arguments; got "
            "'topic'. For a name, write @input_guardrail(name='topic')"
        )
        with pytest.raises(UserError, match=r"@output_guardrail\(name='x'\)"):
            output_guardrail("x")  # pyright: ignore[reportArgumentType, reportCallIssue]

    def test_bad_name_and_run_in_parallel(self) -> None:
        def check(ctx: Any, agent: Any, input: Any) -> Any:
            return PASS

        with pytest.raises(UserError, match=r"^Input guardrail 'check': name must be a string"):
            InputGuardrail(check, name=3)  # pyright: ignore[reportArgumentType]
        with pytest.raises(UserError) as caught:
            InputGuardrail(check, run_in_parallel="no")  # pyright: ignore[reportArgumentType]
        assert str(caught.value) == (
            "Input guardrail 'check': run_in_parallel must be True or False, not 'no'"
        )

    async def test_a_function_returning_something_else_is_refused_naming_it(self) -> None:
        @input_guardrail
        def flag(ctx: Any, agent: Any, input: Any) -> Any:
            return True

        @output_guardrail(name="dicty")
        async def as_dict(ctx: Any, agent: Any, output: Any) -> Any:
            return {"tripwire_triggered": False}

        with pytest.raises(UserError) as caught:
            await flag.run(AGENT, "hi", CONTEXT)
        assert str(caught.value) == (
            "Input guardrail 'flag' returned a bool (True), not a GuardrailFunctionOutput; "
            "return GuardrailFunctionOutput(output_info=None, tripwire_triggered=True)"
        )
        with pytest.raises(UserError) as caught:
            await as_dict.run(CONTEXT, AGENT, "hi")
        assert str(caught.value) == (
            "Output guardrail 'dicty' returned a dict ({'tripwire_triggered': False}), not a "
            "GuardrailFunctionOutput; return GuardrailFunctionOutput(output_info=..., "
            "tripwire_triggered=True or False)"
        )

    def test_the_verdict_must_be_a_bool(self) -> None:
        with pytest.raises(UserError) as caught:
            GuardrailFunctionOutput(None, "false")  # pyright: ignore[reportArgumentType]
        assert str(caught.value) == (
            "GuardrailFunctionOutput: tripwire_triggered must be True or False, not 'false' "
            "(a str); write tripwire_triggered=bool(...)"
        )


# --- running input and output guardrails -----------------------------------------------


class TestRunInputGuardrails:
    async def test_none(self) -> None:
        assert await run_input_guardrails([], CONTEXT, AGENT, "hi") == []

    async def test_all_pass_in_their_order(self) -> None:
        seen: list[InputGuardrailResult] = []
        first, second = passing("first"), passing("second")
        results = await run_input_guardrails(
            [first, second], CONTEXT, AGENT, "hi", on_result=seen.append
        )
        assert [r.guardrail for r in results] == [first, second]
        assert sorted(r.guardrail.get_name() for r in seen) == ["first", "second"]

    async def test_they_run_at_once(self) -> None:
        # Each waits for the other to start: run one after the other, they would hang.
        started = {"a": asyncio.Event(), "b": asyncio.Event()}

        def waiting(me: str, other: str) -> InputGuardrail[Any]:
            async def check(ctx: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
                started[me].set()
                await started[other].wait()
                return PASS

            return InputGuardrail(check, name=me)

        guardrails = [waiting("a", "b"), waiting("b", "a")]
        results = await asyncio.wait_for(run_input_guardrails(guardrails, CONTEXT, AGENT, ""), 5)
        assert len(results) == 2

    async def test_the_first_to_trip_stops_the_rest(self) -> None:
        cancelled: list[str] = []
        seen: list[InputGuardrailResult] = []

        async def slow(ctx: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                cancelled.append("slow")
                raise
            return PASS  # pragma: no cover - cancelled first

        trip = tripping("trip")
        with pytest.raises(InputGuardrailTripwireTriggered) as caught:
            await run_input_guardrails(
                [InputGuardrail(slow), passing("ok"), trip],
                CONTEXT,
                AGENT,
                "hi",
                on_result=seen.append,
            )
        error = caught.value
        assert isinstance(error, GuardrailTripwireTriggered)
        assert error.guardrail_result == InputGuardrailResult(trip, TRIP)
        assert str(error) == (
            "Input guardrail 'trip' tripped: its details are in "
            "error.guardrail_result.output.output_info"
        )
        assert cancelled == ["slow"]
        assert seen[-1] is error.guardrail_result  # the tripping result is reported too
        assert {r.guardrail.get_name() for r in seen} == {"ok", "trip"}

    async def test_one_guardrail_that_trips(self) -> None:
        seen: list[InputGuardrailResult] = []
        with pytest.raises(InputGuardrailTripwireTriggered):
            await run_input_guardrails([tripping("t")], CONTEXT, AGENT, "x", on_result=seen.append)
        assert [r.output for r in seen] == [TRIP]

    async def test_a_guardrail_that_raises_stops_the_rest_and_propagates(self) -> None:
        cancelled: list[str] = []

        async def slow(ctx: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                cancelled.append("slow")
                raise
            return PASS  # pragma: no cover - cancelled first

        def broken(ctx: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
            raise ValueError("classifier down")

        with pytest.raises(ValueError, match="classifier down"):
            await run_input_guardrails(
                [InputGuardrail(slow), InputGuardrail(broken)], CONTEXT, AGENT, "hi"
            )
        assert cancelled == ["slow"]

    async def test_cancelling_the_caller_cancels_them(self) -> None:
        cancelled: list[str] = []
        started = asyncio.Event()

        async def slow(ctx: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
            started.set()
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                cancelled.append("slow")
                raise
            return PASS  # pragma: no cover - cancelled first

        task = asyncio.ensure_future(
            run_input_guardrails([InputGuardrail(slow), InputGuardrail(slow)], CONTEXT, AGENT, "")
        )
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert cancelled == ["slow", "slow"]

    async def test_spans(self) -> None:
        tracer = Tracer()
        await run_input_guardrails([passing("ok")], CONTEXT, AGENT, "hi", tracer=tracer)
        with pytest.raises(InputGuardrailTripwireTriggered):
            await run_input_guardrails([tripping("bad")], CONTEXT, AGENT, "hi", tracer=tracer)
        assert tracer.log == [
            "start input:ok a",
            "triggered input:ok False",
            "end input:ok",
            "start input:bad a",
            "triggered input:bad True",
            "end input:bad",
        ]

    async def test_a_span_records_a_guardrail_that_raises(self) -> None:
        def broken(ctx: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
            raise ValueError("down")

        tracer = Tracer()
        with pytest.raises(ValueError, match="down"):
            await run_input_guardrails([InputGuardrail(broken)], CONTEXT, AGENT, "", tracer=tracer)
        assert tracer.log == ["start input:broken a", "end input:broken error"]

    def test_split(self) -> None:
        a, b = passing("a"), InputGuardrail(PASS_FN, name="b", run_in_parallel=False)
        c = passing("c")
        assert split_input_guardrails([a, b, c]) == ([b], [a, c])


def PASS_FN(ctx: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
    return PASS


class TestRunOutputGuardrails:
    async def test_pass_and_trip(self) -> None:
        ok = OutputGuardrail(lambda ctx, agent, output: PASS, name="ok")
        bad = OutputGuardrail(lambda ctx, agent, output: TRIP, name="bad")
        seen: list[OutputGuardrailResult] = []
        tracer = Tracer()
        assert await run_output_guardrails([], CONTEXT, AGENT, "x") == []
        results = await run_output_guardrails(
            [ok, ok], CONTEXT, AGENT, "answer", tracer=tracer, on_result=seen.append
        )
        assert results == [OutputGuardrailResult(ok, "answer", AGENT, PASS)] * 2
        with pytest.raises(OutputGuardrailTripwireTriggered) as caught:
            await run_output_guardrails([ok, bad], CONTEXT, AGENT, "answer", on_result=seen.append)
        assert caught.value.guardrail_result == OutputGuardrailResult(bad, "answer", AGENT, TRIP)
        assert str(caught.value) == (
            "Output guardrail 'bad' tripped: its details are in "
            "error.guardrail_result.output.output_info"
        )
        assert len(seen) == 4
        with pytest.raises(OutputGuardrailTripwireTriggered):
            await run_output_guardrails([bad], CONTEXT, AGENT, "answer")
        assert tracer.log[:3] == ["start output:ok a", "triggered output:ok False", "end output:ok"]


class TestBesideTheModelCall:
    async def test_both_pass(self) -> None:
        async def call() -> str:
            return "response"

        checks = run_input_guardrails([passing("ok")], CONTEXT, AGENT, "hi")
        results, response = await beside_input_guardrails(checks, call())
        assert (len(results), response) == (1, "response")

    async def test_a_trip_cancels_the_call(self) -> None:
        cancelled: list[str] = []

        async def call() -> str:
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                cancelled.append("call")
                raise
            return "response"  # pragma: no cover - cancelled first

        checks = run_input_guardrails([tripping("t")], CONTEXT, AGENT, "hi")
        with pytest.raises(InputGuardrailTripwireTriggered):
            await beside_input_guardrails(checks, call())
        assert cancelled == ["call"]

    async def test_a_call_done_first_waits_for_the_guardrails(self) -> None:
        release = asyncio.Event()
        order: list[str] = []

        async def check(ctx: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
            await release.wait()
            order.append("guardrail")
            return TRIP

        async def call() -> str:
            order.append("call")
            release.set()
            return "response"

        checks = run_input_guardrails([InputGuardrail(check)], CONTEXT, AGENT, "hi")
        with pytest.raises(InputGuardrailTripwireTriggered):
            await beside_input_guardrails(checks, call())
        assert order == ["call", "guardrail"]

    async def test_a_failed_call_still_waits_and_a_trip_wins(self) -> None:
        release = asyncio.Event()

        async def check(ctx: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
            await release.wait()
            return TRIP

        async def call() -> str:
            release.set()
            raise ConnectionError("api down")

        checks = run_input_guardrails([InputGuardrail(check)], CONTEXT, AGENT, "hi")
        with pytest.raises(InputGuardrailTripwireTriggered):
            await beside_input_guardrails(checks, call())

    async def test_a_failed_call_with_passing_guardrails_raises_its_error(self) -> None:
        async def call() -> str:
            raise ConnectionError("api down")

        checks = run_input_guardrails([passing("ok")], CONTEXT, AGENT, "hi")
        with pytest.raises(ConnectionError, match="api down"):
            await beside_input_guardrails(checks, call())


# --- tool guardrails -------------------------------------------------------------------


def tool_ctx(arguments: str = '{"text": "hi"}') -> ToolContext[Any]:
    return ToolContext(
        context=None, tool_name="echo", tool_call_id="call_1", tool_arguments=arguments
    )


def echo_with(
    inputs: list[ToolInputGuardrail[Any]] | None = None,
    outputs: list[ToolOutputGuardrail[Any]] | None = None,
) -> FunctionTool:
    @function_tool(tool_input_guardrails=inputs, tool_output_guardrails=outputs)
    def echo(text: str) -> str:
        """Echo the text.

        Args:
            text: What to echo.
        """
        return text

    return echo


class TestToolGuardrailOutputs:
    def test_the_three_verdicts(self) -> None:
        assert ToolGuardrailFunctionOutput.allow() == ToolGuardrailFunctionOutput(None)
        assert ToolGuardrailFunctionOutput.allow("i").behavior == {"type": "allow"}
        rejected = ToolGuardrailFunctionOutput.reject_content("No.", output_info=1)
        assert (rejected.behavior, rejected.output_info) == (
            {"type": "reject_content", "message": "No."},
            1,
        )
        assert ToolGuardrailFunctionOutput.raise_exception().behavior == {"type": "raise_exception"}

    def test_a_bad_behavior_is_refused(self) -> None:
        with pytest.raises(UserError) as caught:
            ToolGuardrailFunctionOutput(None, {"type": "block"})  # pyright: ignore[reportArgumentType]
        assert str(caught.value) == (
            "ToolGuardrailFunctionOutput: behavior must be a dict whose type is 'allow', "
            "'reject_content' or 'raise_exception', not {'type': 'block'}; make one with "
            "ToolGuardrailFunctionOutput.allow(), .reject_content(message) or .raise_exception()"
        )
        with pytest.raises(UserError, match="behavior must be a dict"):
            ToolGuardrailFunctionOutput(None, "allow")  # pyright: ignore[reportArgumentType]
        with pytest.raises(UserError, match="reject_content's message must be text for the model"):
            ToolGuardrailFunctionOutput.reject_content(None)  # pyright: ignore[reportArgumentType]


class TestMakingToolGuardrails:
    async def test_decorators(self) -> None:
        @tool_input_guardrail
        def allow_all(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
            return ToolGuardrailFunctionOutput.allow(data.context.tool_name)

        @tool_output_guardrail(name="redact")
        async def redactor(data: ToolOutputGuardrailData) -> ToolGuardrailFunctionOutput:
            return ToolGuardrailFunctionOutput.reject_content(f"[{len(data.output)} chars]")

        @tool_input_guardrail(name="named")
        async def named(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
            return ToolGuardrailFunctionOutput.allow()

        @tool_output_guardrail
        def plain(data: ToolOutputGuardrailData) -> ToolGuardrailFunctionOutput:
            return ToolGuardrailFunctionOutput.allow()

        assert isinstance(allow_all, ToolInputGuardrail)
        assert isinstance(redactor, ToolOutputGuardrail)
        assert [g.get_name() for g in (allow_all, redactor, named, plain)] == [
            "allow_all",
            "redact",
            "named",
            "plain",
        ]
        data = ToolInputGuardrailData(tool_ctx(), AGENT)
        assert (await allow_all.run(data)).output_info == "echo"
        output = await redactor.run(ToolOutputGuardrailData(tool_ctx(), AGENT, "secret"))
        assert output.behavior == {"type": "reject_content", "message": "[6 chars]"}
        assert ToolInputGuardrail(lambda data: ToolGuardrailFunctionOutput(None)).get_name() == (
            "<lambda>"
        )

    def test_wrong_arguments_and_names_are_refused(self) -> None:
        with pytest.raises(UserError) as caught:
            tool_input_guardrail(lambda ctx, agent, input: PASS)  # pyright: ignore[reportArgumentType, reportUnknownLambdaType]
        assert str(caught.value).startswith("Tool input guardrail '<lambda>': ")
        assert str(caught.value).endswith(
            "but the run calls it with 1 positional argument, as function(data); give it "
            "exactly those parameters"
        )
        with pytest.raises(UserError, match=r"^Tool output guardrail 'x': guardrail_function"):
            ToolOutputGuardrail(None, name="x")  # pyright: ignore[reportArgumentType]
        with pytest.raises(UserError, match=r"@tool_input_guardrail\(name='x'\)"):
            tool_input_guardrail("x")  # pyright: ignore[reportArgumentType, reportCallIssue]
        with pytest.raises(UserError, match=r"@tool_output_guardrail\(name='x'\)"):
            tool_output_guardrail("x")  # pyright: ignore[reportArgumentType, reportCallIssue]

    async def test_a_function_returning_something_else_is_refused_naming_it(self) -> None:
        @tool_input_guardrail
        def run_level(data: Any) -> Any:
            return PASS

        @tool_output_guardrail
        def nothing(data: Any) -> Any:
            return None

        with pytest.raises(UserError) as caught:
            await run_level.run(ToolInputGuardrailData(tool_ctx(), AGENT))
        assert str(caught.value) == (
            "Tool input guardrail 'run_level' returned a GuardrailFunctionOutput "
            "(GuardrailFunctionOutput(output_info='...), not a "
            "ToolGuardrailFunctionOutput; return ToolGuardrailFunctionOutput.allow(), "
            ".reject_content(message) or .raise_exception()"
        )
        with pytest.raises(
            UserError, match=r"^Tool output guardrail 'nothing' returned a NoneType"
        ):
            await nothing.run(ToolOutputGuardrailData(tool_ctx(), AGENT, "out"))


def verdicts(
    *outputs: ToolGuardrailFunctionOutput, log: list[str]
) -> tuple[list[ToolInputGuardrail[Any]], list[ToolOutputGuardrail[Any]]]:
    """Input and output guardrails that log their name and return these verdicts."""

    def make(index: int, verdict: ToolGuardrailFunctionOutput) -> Any:
        async def check(data: Any) -> ToolGuardrailFunctionOutput:
            log.append(f"g{index}")
            return verdict

        return check

    inputs = [ToolInputGuardrail(make(i, v), name=f"g{i}") for i, v in enumerate(outputs)]
    outs = [ToolOutputGuardrail(make(i, v), name=f"g{i}") for i, v in enumerate(outputs)]
    return inputs, outs


ALLOW = ToolGuardrailFunctionOutput.allow()
REJECT = ToolGuardrailFunctionOutput.reject_content("Not allowed.")
RAISE = ToolGuardrailFunctionOutput.raise_exception("why")


class TestCheckToolInput:
    async def test_no_guardrails(self) -> None:
        results: list[ToolInputGuardrailResult] = []
        assert await check_tool_input(echo_with(), tool_ctx(), AGENT, results) is None
        assert results == []

    async def test_all_allow(self) -> None:
        log: list[str] = []
        inputs, _ = verdicts(ALLOW, ALLOW, log=log)
        results: list[ToolInputGuardrailResult] = []
        seen: list[ToolInputGuardrailResult] = []
        tool = echo_with(inputs)
        assert (
            await check_tool_input(tool, tool_ctx(), AGENT, results, on_result=seen.append) is None
        )
        assert log == ["g0", "g1"]
        assert results == seen == [ToolInputGuardrailResult(g, ALLOW) for g in inputs]

    async def test_the_first_rejection_decides(self) -> None:
        log: list[str] = []
        inputs, _ = verdicts(ALLOW, REJECT, RAISE, log=log)
        results: list[ToolInputGuardrailResult] = []
        message = await check_tool_input(echo_with(inputs), tool_ctx(), AGENT, results)
        assert message == "Not allowed."
        assert log == ["g0", "g1"]
        assert [r.output for r in results] == [ALLOW, REJECT]

    async def test_trip(self) -> None:
        log: list[str] = []
        inputs, _ = verdicts(RAISE, ALLOW, log=log)
        results: list[ToolInputGuardrailResult] = []
        tracer = Tracer()
        with pytest.raises(ToolInputGuardrailTripwireTriggered) as caught:
            await check_tool_input(echo_with(inputs), tool_ctx(), AGENT, results, tracer=tracer)
        assert (caught.value.guardrail, caught.value.output) == (inputs[0], RAISE)
        assert (caught.value.tool_name, caught.value.tool_call_id) == ("echo", "call_1")
        assert str(caught.value) == (
            "Tool input guardrail 'g0' tripped on tool 'echo' (call call_1): its details are in "
            "error.output.output_info"
        )
        assert log == ["g0"]
        assert results == [ToolInputGuardrailResult(inputs[0], RAISE)]
        assert tracer.log == [
            "start tool_input:g0 a",
            "triggered tool_input:g0 True",
            "end tool_input:g0",
        ]

    async def test_the_guardrail_sees_the_call_and_the_agent(self) -> None:
        seen: list[Any] = []

        @tool_input_guardrail
        def look(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
            seen.append((data.context.tool_name, data.context.tool_arguments, data.agent.name))
            return ToolGuardrailFunctionOutput.allow()

        await check_tool_input(echo_with([look]), tool_ctx('{"text": "x"}'), AGENT, [])
        assert seen == [("echo", '{"text": "x"}', "a")]


class TestCheckToolOutput:
    async def test_no_guardrails_keep_the_output(self) -> None:
        assert await check_tool_output(echo_with(), tool_ctx(), AGENT, "out", []) is None

    async def test_replace(self) -> None:
        log: list[str] = []
        _, outputs = verdicts(ALLOW, REJECT, ALLOW, log=log)
        results: list[ToolOutputGuardrailResult] = []
        seen: list[ToolOutputGuardrailResult] = []
        tracer = Tracer()
        tool = echo_with(outputs=outputs)
        message = await check_tool_output(
            tool, tool_ctx(), AGENT, "out", results, tracer=tracer, on_result=seen.append
        )
        assert message == "Not allowed."
        assert log == ["g0", "g1"]
        assert (
            results
            == seen
            == [
                ToolOutputGuardrailResult(outputs[0], ALLOW),
                ToolOutputGuardrailResult(outputs[1], REJECT),
            ]
        )
        assert tracer.log[-2:] == ["triggered tool_output:g1 True", "end tool_output:g1"]

    async def test_trip(self) -> None:
        _, outputs = verdicts(RAISE, log=[])
        results: list[ToolOutputGuardrailResult] = []
        with pytest.raises(ToolOutputGuardrailTripwireTriggered) as caught:
            await check_tool_output(echo_with(outputs=outputs), tool_ctx(), AGENT, "o", results)
        assert (caught.value.guardrail, caught.value.output) == (outputs[0], RAISE)
        assert (caught.value.tool_name, caught.value.tool_call_id) == ("echo", "call_1")
        assert str(caught.value) == (
            "Tool output guardrail 'g0' tripped on tool 'echo' (call call_1): its details are in "
            "error.output.output_info"
        )
        assert len(results) == 1

    def test_a_trip_made_by_hand_may_leave_the_call_out(self) -> None:
        inputs, outputs = verdicts(RAISE, log=[])
        error = ToolOutputGuardrailTripwireTriggered(outputs[0], RAISE)  # as openai-agents does
        assert (error.tool_name, error.tool_call_id) == (None, None)
        assert str(error) == (
            "Tool output guardrail 'g0' tripped: its details are in error.output.output_info"
        )
        named = ToolInputGuardrailTripwireTriggered(inputs[0], RAISE, tool_name="refund")
        assert str(named).startswith("Tool input guardrail 'g0' tripped on tool 'refund': ")

    async def test_the_guardrail_sees_the_output(self) -> None:
        seen: list[Any] = []

        @tool_output_guardrail
        def look(data: ToolOutputGuardrailData) -> ToolGuardrailFunctionOutput:
            seen.append((data.context.tool_call_id, data.output))
            return ToolGuardrailFunctionOutput.allow()

        assert await check_tool_output(echo_with(outputs=[look]), tool_ctx(), AGENT, 7, []) is None
        assert seen == [("call_1", 7)]


# --- where guardrails go ---------------------------------------------------------------


class TestPlaces:
    def test_an_agent_holds_input_and_output_guardrails(self) -> None:
        out = OutputGuardrail(lambda ctx, agent, output: PASS, name="out")
        agent = Agent("a", input_guardrails=[passing("in")], output_guardrails=[out])
        assert [g.get_name() for g in agent.input_guardrails] == ["in"]
        assert agent.output_guardrails == [out]
        assert Agent("b").input_guardrails == []
        assert Agent("b").output_guardrails == []
        assert agent.clone(name="c").input_guardrails == agent.input_guardrails

    def test_an_agent_refuses_anything_else(self) -> None:
        out = OutputGuardrail(lambda ctx, agent, output: PASS, name="out")

        @tool_input_guardrail
        def tool_check(data: Any) -> ToolGuardrailFunctionOutput:
            return ToolGuardrailFunctionOutput.allow()

        def undecorated(ctx: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
            return PASS

        with pytest.raises(UserError) as caught:
            Agent("a", input_guardrails=[passing("ok"), out, tool_check, undecorated, 42])  # pyright: ignore[reportArgumentType]
        assert str(caught.value) == (
            "Agent 'a' has input_guardrails that are not input guardrails:\n"
            "  - input_guardrails[1] is an OutputGuardrail 'out', an output guardrail: it goes "
            "in Agent(output_guardrails=[...]) or RunConfig(output_guardrails=[...])\n"
            "  - input_guardrails[2] is a ToolInputGuardrail 'tool_check', a tool input "
            "guardrail: it goes in @function_tool(tool_input_guardrails=[...])\n"
            "  - input_guardrails[3] is the function TestPlaces.test_an_agent_refuses_anything_"
            "else.<locals>.undecorated: decorate it with @input_guardrail\n"
            "  - input_guardrails[4] is an int (42), not a guardrail: make one with "
            "@input_guardrail"
        )
        with pytest.raises(UserError) as caught:
            Agent("a", output_guardrails=out)  # pyright: ignore[reportArgumentType]
        assert str(caught.value) == (
            "Agent 'a': output_guardrails must be a list of guardrails, not an OutputGuardrail "
            "'out'; write output_guardrails=[...]"
        )
        with pytest.raises(UserError, match=r"output_guardrails\[0\] is an InputGuardrail 'in'"):
            Agent("a", output_guardrails=[passing("in")])  # pyright: ignore[reportArgumentType]

    def test_a_tool_holds_tool_guardrails(self) -> None:
        inputs, outputs = verdicts(ALLOW, log=[])
        tool = echo_with(inputs, outputs)
        assert (tool.tool_input_guardrails, tool.tool_output_guardrails) == (inputs, outputs)
        assert echo_with().tool_input_guardrails is None
        assert echo_with().tool_output_guardrails is None
        loose = tool.with_strict_mode(False)
        assert (loose.tool_input_guardrails, loose.tool_output_guardrails) == (inputs, outputs)

    def test_by_hand_and_by_position_as_in_openai_agents(self) -> None:
        inputs, outputs = verdicts(ALLOW, log=[])

        async def invoke(ctx: ToolContext[Any], arguments: str) -> str:
            return arguments

        schema: dict[str, Any] = {"type": "object", "properties": {}}
        tool = FunctionTool("t", "T.", schema, invoke, True, True, inputs, outputs)
        assert (tool.tool_input_guardrails, tool.tool_output_guardrails) == (inputs, outputs)

    def test_a_tool_refuses_anything_else(self) -> None:
        inputs, outputs = verdicts(ALLOW, log=[])
        with pytest.raises(UserError) as caught:
            echo_with(outputs, inputs)  # pyright: ignore[reportArgumentType]
        assert str(caught.value) == (
            "FunctionTool 'echo' has tool_input_guardrails that are not tool input guardrails:\n"
            "  - tool_input_guardrails[0] is a ToolOutputGuardrail 'g0', a tool output "
            "guardrail: it goes in @function_tool(tool_output_guardrails=[...])"
        )
        with pytest.raises(
            UserError,
            match=r"tool_output_guardrails\[0\] is an InputGuardrail 'in', an input guardrail: it goes in Agent\(input_guardrails",
        ):
            echo_with(outputs=[passing("in")])  # pyright: ignore[reportArgumentType]
        with pytest.raises(UserError, match="decorate it with @tool_input_guardrail"):
            echo_with([lambda data: ALLOW])  # pyright: ignore[reportArgumentType, reportUnknownLambdaType]
        with pytest.raises(
            UserError, match=r"tool_input_guardrails must be a list of guardrails, not a str"
        ):
            echo_with("g")  # pyright: ignore[reportArgumentType]


# --- in a run ----------------------------------------------------------------------------


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


class Counter:
    """Tools that count their calls."""

    def __init__(self) -> None:
        self.calls: list[str] = []

        @function_tool
        def lookup(topic: str) -> str:
            """Look a topic up.

            Args:
                topic: The topic.
            """
            self.calls.append(topic)
            return f"all about {topic}"

        self.lookup = lookup


async def run(
    agent: Agent[Any], input: Any, streamed: bool, **kwargs: Any
) -> tuple[Any, list[Any]]:
    """The result and (streamed) the events; a run that raises raises here, events or not."""
    if not streamed:
        return await Runner.run(agent, input, **kwargs), []
    result = Runner.run_streamed(agent, input, **kwargs)
    events = [event async for event in result.stream_events()]
    return result, events


async def run_raising(
    agent: Agent[Any], input: Any, streamed: bool, error: type[Exception], **kwargs: Any
) -> tuple[Any, list[Any]]:
    """The error the run raised, and (streamed) the events before it."""
    events: list[Any] = []

    async def go() -> None:
        if not streamed:
            await Runner.run(agent, input, **kwargs)
            return
        async for event in Runner.run_streamed(agent, input, **kwargs).stream_events():
            events.append(event)  # noqa: PERF401 - a comprehension would lose them as it raises

    with pytest.raises(error) as caught:
        await go()
    return caught.value, events


def guardrail_events(events: list[Any]) -> list[tuple[str, str]]:
    return [
        (e.kind, e.result.guardrail.get_name())
        for e in events
        if isinstance(e, GuardrailResultStreamEvent)
    ]


class Hanging(Model):
    """A model whose call never ends; records that it was cancelled."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.cancelled = False

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        self.started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        raise AssertionError("unreachable")  # pragma: no cover

    async def stream_response(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        yield StreamDelta(await self.get_response(request))


STREAMED = pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])


class TestInputGuardrailsInARun:
    @STREAMED
    async def test_a_trip_beside_the_call_drops_its_response_and_runs_no_tool(
        self, streamed: bool
    ) -> None:
        tools = Counter()
        model = ScriptModel([call("c1", "lookup", {"topic": "math"})], [text("done")])

        @input_guardrail
        async def no_math(ctx: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
            while not model.requests:  # trip only once the model has answered
                await asyncio.sleep(0)
            return GuardrailFunctionOutput({"topic": "math"}, "math" in str(input))

        agent = Agent("a", tools=[tools.lookup], model=model, input_guardrails=[no_math])
        error, events = await run_raising(
            agent, "do my math homework", streamed, InputGuardrailTripwireTriggered
        )
        assert isinstance(error, InputGuardrailTripwireTriggered)
        assert error.guardrail_result == InputGuardrailResult(
            no_math, GuardrailFunctionOutput({"topic": "math"}, True)
        )
        assert tools.calls == []  # the model asked for the tool: it never ran
        assert len(model.requests) == 1  # and no second model call
        assert error.items == [user("do my math homework")]
        assert error.new_items == []  # the response to refused input is not the conversation
        assert error.state is not None
        assert guardrail_events(events) == ([("input", "no_math")] if streamed else [])

    @STREAMED
    async def test_a_trip_cancels_a_call_still_running(self, streamed: bool) -> None:
        model = Hanging()

        @input_guardrail
        async def late(ctx: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
            await model.started.wait()  # trip while the call is on its way
            return TRIP

        agent = Agent("a", model=model, input_guardrails=[late])
        error, _ = await run_raising(agent, "hi", streamed, InputGuardrailTripwireTriggered)
        assert isinstance(error, InputGuardrailTripwireTriggered)
        assert error.guardrail_result.guardrail is late
        assert model.cancelled
        assert error.new_items == []

    @STREAMED
    async def test_a_blocking_guardrail_runs_before_the_call(self, streamed: bool) -> None:
        model = ScriptModel([text("never")])
        blocking = InputGuardrail(PASS_FN, name="first", run_in_parallel=False)
        order: list[str] = []

        @input_guardrail(run_in_parallel=False)
        def blocker(ctx: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
            order.append(f"guardrail, {len(model.requests)} requests")
            return TRIP

        agent = Agent("a", model=model, input_guardrails=[blocking, blocker])
        error, _ = await run_raising(agent, "hi", streamed, InputGuardrailTripwireTriggered)
        assert isinstance(error, InputGuardrailTripwireTriggered)
        assert order == ["guardrail, 0 requests"]
        assert model.requests == []  # the model was never called
        assert error.items == [user("hi")]

    @STREAMED
    async def test_passing_guardrails_are_on_the_result(self, streamed: bool) -> None:
        tools = Counter()
        model = ScriptModel([call("c1", "lookup", {"topic": "owls"})], [text("Owls hoot.")])
        seen: list[Any] = []

        @input_guardrail(name="agent's")
        async def agents(ctx: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
            seen.append((agent.name, input))
            return PASS

        runs = InputGuardrail(PASS_FN, name="run's", run_in_parallel=False)
        agent = Agent("a", tools=[tools.lookup], model=model, input_guardrails=[agents])
        result, events = await run(
            agent, "owls?", streamed, run_config=RunConfig(input_guardrails=[runs])
        )
        assert result.final_output == "Owls hoot."
        assert tools.calls == ["owls"]
        assert seen == [("a", "owls?")]  # once: on the first turn only
        assert [r.guardrail.get_name() for r in result.input_guardrail_results] == [
            "run's",
            "agent's",
        ]
        assert all(not r.output.tripwire_triggered for r in result.input_guardrail_results)
        if streamed:
            assert guardrail_events(events) == [("input", "run's"), ("input", "agent's")]

    async def test_a_guardrail_that_raises_stops_the_run(self) -> None:
        def broken(ctx: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
            raise RuntimeError("classifier down")

        agent = Agent(
            "a", model=ScriptModel([text("hi")]), input_guardrails=[InputGuardrail(broken)]
        )
        with pytest.raises(RuntimeError, match="classifier down"):
            await Runner.run(agent, "hi")

    async def test_they_see_the_input_as_given(self) -> None:
        seen: list[Any] = []

        @input_guardrail
        def look(ctx: RunContextWrapper[str], agent: Any, input: Any) -> GuardrailFunctionOutput:
            seen.append((ctx.context, input))
            return PASS

        agent = Agent("a", model=ScriptModel([text("ok")]), input_guardrails=[look])
        await Runner.run(agent, [user("one"), user("two")], context="mine")
        assert seen == [("mine", [user("one"), user("two")])]

    async def test_not_after_a_handoff(self) -> None:
        later = Agent(
            "later", model=ScriptModel([text("from later")]), input_guardrails=[tripping("later")]
        )
        first = Agent(
            "first",
            model=ScriptModel([call("h1", "transfer_to_later")]),
            handoffs=[later],
            input_guardrails=[passing("first")],
        )
        result = await Runner.run(first, "hi")
        assert result.final_output == "from later"
        assert [r.guardrail.get_name() for r in result.input_guardrail_results] == ["first"]

    async def test_not_again_when_a_paused_run_resumes(self) -> None:
        checks: list[str] = []

        @function_tool(needs_approval=True)
        def delete(path: str) -> str:
            """Delete a file.

            Args:
                path: The file.
            """
            return f"deleted {path}"

        @input_guardrail
        def counted(ctx: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
            checks.append("checked")
            return PASS

        model = ScriptModel([call("c1", "delete", {"path": "/tmp/x"})], [text("Deleted.")])
        agent = Agent("a", tools=[delete], model=model, input_guardrails=[counted])
        paused = await Runner.run(agent, "delete /tmp/x")
        assert paused.interruptions
        state = paused.to_state()
        state.approve(paused.interruptions[0])
        resumed = await Runner.run(agent, state)
        assert resumed.final_output == "Deleted."
        assert checks == ["checked"]


class TestOutputGuardrailsInARun:
    @STREAMED
    async def test_a_trip_stops_the_run_with_the_output(self, streamed: bool) -> None:
        @output_guardrail
        def no_secrets(ctx: Any, agent: Any, output: Any) -> GuardrailFunctionOutput:
            return GuardrailFunctionOutput({"found": "hunter2"}, "hunter2" in output)

        agent = Agent(
            "a",
            model=ScriptModel([text("the password is hunter2")]),
            output_guardrails=[no_secrets],
        )
        error, events = await run_raising(agent, "pw?", streamed, OutputGuardrailTripwireTriggered)
        assert isinstance(error, OutputGuardrailTripwireTriggered)
        result = error.guardrail_result
        assert (result.guardrail, result.agent_output, result.agent) == (
            no_secrets,
            "the password is hunter2",
            agent,
        )
        assert result.output == GuardrailFunctionOutput({"found": "hunter2"}, True)
        assert error.items[0] == user("pw?")
        assert [i["type"] for i in error.new_items] == ["message"]
        assert error.state is not None
        if streamed:
            assert guardrail_events(events) == [("output", "no_secrets")]

    @STREAMED
    async def test_the_answering_agents_and_the_runs(self, streamed: bool) -> None:
        seen: list[Any] = []

        def recording(name: str) -> OutputGuardrail[Any]:
            def check(ctx: Any, agent: Any, output: Any) -> GuardrailFunctionOutput:
                seen.append((name, agent.name, output))
                return PASS

            return OutputGuardrail(check, name=name)

        later = Agent(
            "later", model=ScriptModel([text("42")]), output_guardrails=[recording("later's")]
        )
        first = Agent(
            "first",
            model=ScriptModel([call("h1", "transfer_to_later")]),
            handoffs=[later],
            output_guardrails=[recording("first's")],
        )
        config = RunConfig(output_guardrails=[recording("run's")])
        result, _ = await run(first, "answer?", streamed, run_config=config)
        assert result.final_output == "42"
        assert sorted(seen) == [("later's", "later", "42"), ("run's", "later", "42")]
        assert [r.guardrail.get_name() for r in result.output_guardrail_results] == [
            "later's",
            "run's",
        ]
        assert result.output_guardrail_results[0].agent is later

    async def test_they_see_a_structured_output_as_its_type(self) -> None:
        seen: list[Any] = []

        @output_guardrail
        def look(ctx: Any, agent: Any, output: Any) -> GuardrailFunctionOutput:
            seen.append(output)
            return PASS

        agent = Agent(
            "a",
            model=ScriptModel([text('{"answer": 42}')]),
            output_type=Answer,
            output_guardrails=[look],
        )
        result = await Runner.run(agent, "?")
        assert seen == [Answer(answer=42)] == [result.final_output]

    async def test_no_final_output_no_output_guardrails(self) -> None:
        @function_tool(needs_approval=True)
        def act() -> str:
            """Act."""
            return "done"

        agent = Agent(
            "a",
            tools=[act],
            model=ScriptModel([call("c1", "act")]),
            output_guardrails=[OutputGuardrail(lambda ctx, agent, output: TRIP, name="never")],
        )
        paused = await Runner.run(agent, "go")
        assert paused.interruptions
        assert paused.output_guardrail_results == []


class Answer(BaseModel):
    answer: int


class TestToolGuardrailsInARun:
    @STREAMED
    async def test_allow_reject_and_replace(self, streamed: bool) -> None:
        tools = Counter()

        @tool_input_guardrail
        def no_secrets(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
            if "secret" in data.context.tool_arguments:
                return ToolGuardrailFunctionOutput.reject_content("That topic is off limits.")
            return ToolGuardrailFunctionOutput.allow()

        @tool_output_guardrail
        def shorten(data: ToolOutputGuardrailData) -> ToolGuardrailFunctionOutput:
            if "owls" in data.output:
                return ToolGuardrailFunctionOutput.reject_content("[owl facts withheld]")
            return ToolGuardrailFunctionOutput.allow()

        lookup = dataclasses.replace(
            tools.lookup, tool_input_guardrails=[no_secrets], tool_output_guardrails=[shorten]
        )
        model = ScriptModel(
            [
                call("c1", "lookup", {"topic": "secret plans"}),
                call("c2", "lookup", {"topic": "owls"}),
                call("c3", "lookup", {"topic": "cats"}),
            ],
            [text("Done.")],
        )
        agent = Agent("a", tools=[lookup], model=model)
        result, events = await run(agent, "tell me", streamed)
        assert result.final_output == "Done."
        assert sorted(tools.calls) == ["cats", "owls"]  # the rejected call never ran
        assert outputs(model.requests[1]) == {
            "c1": "That topic is off limits.",
            "c2": "[owl facts withheld]",
            "c3": "all about cats",
        }
        inputs = [r.output.behavior["type"] for r in result.tool_input_guardrail_results]
        assert sorted(inputs) == ["allow", "allow", "reject_content"]
        outs = [r.output.behavior["type"] for r in result.tool_output_guardrail_results]
        assert sorted(outs) == ["allow", "reject_content"]  # no output from the rejected call
        if streamed:
            kinds = sorted(kind for kind, _ in guardrail_events(events))
            assert kinds == ["tool_input"] * 3 + ["tool_output"] * 2

    @STREAMED
    async def test_an_input_trip_stops_the_run_before_the_tool(self, streamed: bool) -> None:
        tools = Counter()

        @tool_input_guardrail
        def stop(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
            return ToolGuardrailFunctionOutput.raise_exception({"why": "forbidden"})

        lookup = dataclasses.replace(tools.lookup, tool_input_guardrails=[stop])
        model = ScriptModel([call("c1", "lookup", {"topic": "x"})], [text("never")])
        agent = Agent("a", tools=[lookup], model=model)
        error, _ = await run_raising(agent, "go", streamed, ToolInputGuardrailTripwireTriggered)
        assert isinstance(error, ToolInputGuardrailTripwireTriggered)
        assert error.guardrail is stop
        assert error.output == ToolGuardrailFunctionOutput.raise_exception({"why": "forbidden"})
        assert tools.calls == []
        assert len(model.requests) == 1
        assert error.items[0] == user("go")
        assert [i["type"] for i in error.new_items] == ["function_call"]
        assert error.state is not None

    @STREAMED
    async def test_an_output_trip_stops_the_run_after_the_tool(self, streamed: bool) -> None:
        tools = Counter()

        @tool_output_guardrail
        async def stop(data: ToolOutputGuardrailData) -> ToolGuardrailFunctionOutput:
            return ToolGuardrailFunctionOutput.raise_exception(data.output)

        lookup = dataclasses.replace(tools.lookup, tool_output_guardrails=[stop])
        model = ScriptModel([call("c1", "lookup", {"topic": "x"})], [text("never")])
        agent = Agent("a", tools=[lookup], model=model)
        error, _ = await run_raising(agent, "go", streamed, ToolOutputGuardrailTripwireTriggered)
        assert isinstance(error, ToolOutputGuardrailTripwireTriggered)
        assert (error.guardrail, error.output.output_info) == (stop, "all about x")
        assert tools.calls == ["x"]
        assert len(model.requests) == 1
        assert error.state is not None

    async def test_resuming_after_a_trip_runs_the_call_and_its_guardrails_again(self) -> None:
        tools = Counter()
        locked = [True]

        @tool_input_guardrail
        def lock(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
            if locked[0]:
                return ToolGuardrailFunctionOutput.raise_exception()
            return ToolGuardrailFunctionOutput.allow()

        lookup = dataclasses.replace(tools.lookup, tool_input_guardrails=[lock])
        model = ScriptModel([call("c1", "lookup", {"topic": "x"})], [text("Done.")])
        agent = Agent("a", tools=[lookup], model=model)
        with pytest.raises(ToolInputGuardrailTripwireTriggered) as caught:
            await Runner.run(agent, "go")
        state = caught.value.state
        assert state is not None
        locked[0] = False
        result = await Runner.run(agent, state)
        assert result.final_output == "Done."
        assert tools.calls == ["x"]
        assert len(model.requests) == 2  # the call was answered, not asked for again
        assert [r.output.behavior for r in result.tool_input_guardrail_results] == [
            {"type": "allow"}
        ]

    async def test_an_output_guardrail_sees_the_value_returned(self) -> None:
        seen: list[Any] = []

        @tool_output_guardrail
        def look(data: ToolOutputGuardrailData) -> ToolGuardrailFunctionOutput:
            seen.append(data.output)
            return ToolGuardrailFunctionOutput.allow()

        @function_tool(tool_output_guardrails=[look])
        def stats(n: int) -> dict[str, int]:
            """Stats.

            Args:
                n: How many.
            """
            return {"count": n}

        @function_tool(tool_output_guardrails=[look])
        def broken() -> str:
            """Fail."""
            raise ValueError("secret detail")

        model = ScriptModel([call("c1", "stats", {"n": 3}), call("c2", "broken")], [text("ok")])
        await Runner.run(Agent("a", tools=[stats, broken], model=model), "go")
        # The two calls run at once: their guardrails in either order.
        assert {"count": 3} in seen
        failed = [value for value in seen if isinstance(value, str)]
        assert failed == [outputs(model.requests[1])["c2"]]  # the error text the model got
        assert "secret detail" not in failed[0]

    async def test_the_guardrail_sees_the_call(self) -> None:
        seen: list[Any] = []

        @tool_input_guardrail
        def look(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
            ctx = data.context
            seen.append((ctx.context, ctx.tool_name, ctx.tool_call_id, ctx.tool_arguments))
            seen.append(data.agent.name)
            return ToolGuardrailFunctionOutput.allow()

        tools = Counter()
        lookup = dataclasses.replace(tools.lookup, tool_input_guardrails=[look])
        model = ScriptModel([call("c1", "lookup", {"topic": "x"})], [text("ok")])
        await Runner.run(Agent("a", tools=[lookup], model=model), "go", context="mine")
        assert seen == [("mine", "lookup", "c1", '{"topic": "x"}'), "a"]


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("api", ["responses", "chat"])
async def test_over_http_with_the_openai_client(
    openai_server: ScriptedServer, api: str, streamed: bool
) -> None:
    # Turn 1: two calls, one rejected by its input guardrail; turn 2: the answer, which the
    # output guardrail passes. Then a run whose input guardrail trips: no tool runs.
    tools = Counter()

    @tool_input_guardrail
    def no_secrets(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        if "secret" in data.context.tool_arguments:
            return ToolGuardrailFunctionOutput.reject_content("Off limits.")
        return ToolGuardrailFunctionOutput.allow()

    @output_guardrail
    def polite(ctx: Any, agent: Any, output: Any) -> GuardrailFunctionOutput:
        return GuardrailFunctionOutput(None, "stupid" in output)

    @input_guardrail
    def no_math(ctx: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
        return GuardrailFunctionOutput(None, "math" in str(input))

    lookup = dataclasses.replace(tools.lookup, tool_input_guardrails=[no_secrets])
    openai_server.script(
        Turn(calls=[Call("lookup", '{"topic": "secret"}'), Call("lookup", '{"topic": "owls"}')]),
        Turn(text="Owls hoot."),
        Turn(calls=[Call("lookup", '{"topic": "math"}')]),
    )
    agent = Agent(
        "a",
        tools=[lookup],
        model=openai_server.model(api),
        input_guardrails=[no_math],
        output_guardrails=[polite],
    )
    result, _ = await run(agent, "owls?", streamed)
    assert result.final_output == "Owls hoot."
    assert tools.calls == ["owls"]
    assert sent_tool_outputs(openai_server.requests[1]["body"]) == {
        "call_1": "Off limits.",
        "call_2": "all about owls",
    }
    assert [r.guardrail.get_name() for r in result.input_guardrail_results] == ["no_math"]
    assert [r.guardrail.get_name() for r in result.output_guardrail_results] == ["polite"]

    error, _ = await run_raising(agent, "math?", streamed, InputGuardrailTripwireTriggered)
    assert isinstance(error, InputGuardrailTripwireTriggered)
    assert tools.calls == ["owls"]  # the math call the server scripted never ran
    assert error.new_items == []


async def test_resuming_after_an_input_trip_checks_the_input_again() -> None:
    verdicts = [TRIP, PASS]
    checked = InputGuardrail(lambda ctx, agent, input: verdicts.pop(0), name="moderation")
    model = ScriptModel([text("dropped: the input tripped")], [text("answered")])
    agent = Agent("a", input_guardrails=[checked], model=model)
    with pytest.raises(InputGuardrailTripwireTriggered) as raised:
        await Runner.run(agent, "hi")
    state = raised.value.state
    assert state is not None
    assert state.new_items == []
    result = await Runner.run(agent, state)  # nothing was answered: the input is checked again
    assert result.final_output == "answered"
    assert [r.guardrail.get_name() for r in result.input_guardrail_results] == ["moderation"]
    assert verdicts == []


async def test_a_resumed_run_that_answered_something_does_not_check_the_input_again() -> None:
    seen: list[object] = []

    def moderation(ctx: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
        seen.append(input)
        return PASS

    model = ScriptModel([call("c1", "echo", {"text": "x"})], [text("done")])

    @function_tool(needs_approval=True)
    def echo(text: str) -> str:
        """Echo.

        Args:
            text: The text.
        """
        return text

    agent = Agent("a", tools=[echo], input_guardrails=[InputGuardrail(moderation)], model=model)
    paused = await Runner.run(agent, "hi")
    assert paused.interruptions
    paused.approve(paused.interruptions[0])
    result = await Runner.run(agent, paused.to_state())
    assert result.final_output == "done"
    assert seen == ["hi"]


def test_run_config_refuses_guardrails_in_the_wrong_list() -> None:
    wrong = OutputGuardrail(lambda ctx, agent, output: PASS, name="out")
    with pytest.raises(UserError, match=r"RunConfig has input_guardrails that are not input"):
        RunConfig(input_guardrails=[wrong])  # type: ignore[list-item]
    with pytest.raises(UserError, match="RunConfig: output_guardrails must be a list"):
        RunConfig(output_guardrails=wrong)  # type: ignore[arg-type]
