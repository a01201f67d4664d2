"""Guardrails: input, output and tool guardrails, made and checked, run alone and in runs."""

from __future__ import annotations

import asyncio
import functools
from typing import Any

import pytest

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
    RunContextWrapper,
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
from tooluse._guardrails import (
    beside_input_guardrails,
    run_input_guardrails,
    run_output_guardrails,
    split_input_guardrails,
)
from tooluse._tool_guardrails import check_tool_input, check_tool_output
from tooluse._tracing import RunTracer, SpanScope
from tooluse.exceptions import GuardrailTripwireTriggered
from tooluse.testing import TestModel

AGENT: Agent[Any] = Agent("a", model=TestModel())
CONTEXT: RunContextWrapper[Any] = RunContextWrapper(None)
PASS = GuardrailFunctionOutput(output_info="fine", tripwire_triggered=False)
TRIP = GuardrailFunctionOutput(output_info="bad", tripwire_triggered=True)


def passing(name: str) -> InputGuardrail[Any]:
    return InputGuardrail(lambda ctx, agent, input: PASS, name=name)


def tripping(name: str) -> InputGuardrail[Any]:
    return InputGuardrail(lambda ctx, agent, input: TRIP, name=name)


class Span(SpanScope):
    def __init__(self, log: list[str], label: str) -> None:
        super().__init__()  # no span: the scope itself records nothing
        self.log = log
        self.label = label

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
        assert str(error) == "Input guardrail 'trip' tripped"
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
        assert str(caught.value) == "Output guardrail 'bad' tripped"
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
        assert str(caught.value) == "Tool input guardrail 'g0' tripped"
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
        assert str(caught.value) == "Tool output guardrail 'g0' tripped"
        assert len(results) == 1

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
