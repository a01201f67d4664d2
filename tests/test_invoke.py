"""Calling a tool: arguments in, Python values to the function, text out, failures as text."""

from __future__ import annotations

import asyncio
import contextvars
import copy
import dataclasses
import datetime
import inspect
import logging
import threading
import time
import uuid
from typing import Annotated, Any

import pytest
from inline_snapshot import snapshot
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    create_model,
    field_validator,
    model_validator,
)

from tooluse import (
    ModelRetry,
    RunContextWrapper,
    ToolArgumentsError,
    ToolContext,
    UserError,
    function_tool,
    tool_output_text,
)
from tooluse.tools._invocation import _fields_validator  # pyright: ignore[reportPrivateUsage]

from .conftest import model_text, tool_context
from .types_for_tests import Color, User

SECRET = "s3cr3t-value"


@function_tool
def book(user: User, color: Color, when: datetime.date, seats: int = 1) -> str:
    """Book seats.

    Args:
        user: Who books.
        color: The seat color.
        when: The day.
        seats: How many seats.
    """
    return f"{user.name}:{color.value}:{when.isoformat()}:{seats}"


async def call(tool: Any, arguments: str) -> str:
    return await tool.on_invoke_tool(tool_context(tool.name, arguments), arguments)


class TestArguments:
    async def test_valid_call(self) -> None:
        arguments = '{"user": {"name": "ann", "age": null}, "color": "red", "when": "2024-05-01", "seats": 2}'
        assert await call(book, arguments) == "ann:red:2024-05-01:2"

    @pytest.mark.parametrize("arguments", ["", "{}"])
    async def test_empty_string_means_no_arguments(self, arguments: str) -> None:
        @function_tool
        def ping() -> str:
            return "pong"

        assert await call(ping, arguments) == "pong"

    async def test_invalid_json(self) -> None:
        assert await call(book, '{"user": {"name": "ann"') == snapshot("""\
Tool 'book' was called with invalid arguments:
- the arguments are not valid JSON: EOF while parsing an object at line 1 column 23
Call 'book' again with corrected arguments.\
""")

    async def test_not_an_object(self) -> None:
        assert await call(book, '["a", "b"]') == snapshot("""\
Tool 'book' was called with invalid arguments:
- expected a JSON object (the arguments by name), not a JSON array
Call 'book' again with corrected arguments.\
""")
        assert await call(book, '"just text"') == snapshot("""\
Tool 'book' was called with invalid arguments:
- expected a JSON object (the arguments by name), not a JSON string
Call 'book' again with corrected arguments.\
""")

    async def test_wrong_types_missing_and_extra_fields(self) -> None:
        arguments = (
            '{"user": {"name": 5, "age": null}, "color": "purple", "when": "2024-13-45",'
            ' "seats": "many", "vip": true}'
        )
        assert await call(book, arguments) == snapshot("""\
Tool 'book' was called with invalid arguments:
- user.name: Input should be a valid string
- color: Input should be 'red' or 'green'
- when: Input should be a valid date or datetime, month value is outside expected range of 1-12
- seats: Input should be a valid integer, unable to parse string as an integer
- vip: unexpected field; remove it
Call 'book' again with corrected arguments.\
""")

    async def test_missing_fields(self) -> None:
        assert await call(book, '{"color": "red"}') == snapshot("""\
Tool 'book' was called with invalid arguments:
- user: required field is missing
- when: required field is missing
Call 'book' again with corrected arguments.\
""")

    async def test_no_argument_value_is_echoed(self) -> None:
        class Strict(BaseModel):
            code: str = Field(pattern=r"^[A-Z]{3}$")

            @field_validator("code")
            @classmethod
            def known(cls, value: str) -> str:
                raise ValueError(f"unknown code {value}")

        @function_tool
        def lookup(item: Strict, count: int, day: datetime.date, ref: int | None = None) -> str:
            return "never"

        values = [
            f'{{"item": {{"code": "{SECRET}"}}, "count": 1, "day": "2024-01-01", "ref": 1}}',
            f'{{"item": {{"code": "ABC"}}, "count": "{SECRET}", "day": "2024-01-01", "ref": 1}}',
            f'{{"item": {{"code": "ABC"}}, "count": 1, "day": "{SECRET}", "ref": 1}}',
            f'{{"item": {{"code": "ABC"}}, "count": 1, "day": "2024-01-01", "ref": 1, "{SECRET[:3]}x": "{SECRET}"}}',
            f'{{"item": "{SECRET}"',
            f'"{SECRET}"',
        ]
        for arguments in values:
            text = await lookup.on_invoke_tool(tool_context("lookup"), arguments)
            assert SECRET not in text
            assert text.startswith("Tool 'lookup' was called with invalid arguments")

    async def test_parser_reason_quoting_the_input_is_dropped(self) -> None:
        @function_tool
        def fetch(id: uuid.UUID) -> str:
            return str(id)

        assert await call(fetch, '{"id": "not-a-uuid-Q"}') == snapshot("""\
Tool 'fetch' was called with invalid arguments:
- id: Input should be a valid UUID
Call 'fetch' again with corrected arguments.\
""")

    async def test_validator_message_is_not_sent(self) -> None:
        class Checked(BaseModel):
            code: str

            @field_validator("code")
            @classmethod
            def known(cls, value: str) -> str:
                raise ValueError(f"unknown code {value}")

        @function_tool(strict_mode=False)
        def lookup(item: Checked) -> str:
            return "never"

        assert await call(lookup, '{"item": {"code": "X"}}') == snapshot("""\
Tool 'lookup' was called with invalid arguments:
- item.code: was rejected by a validation check (value_error)
Call 'lookup' again with corrected arguments.\
""")

    async def test_failure_error_function_none_raises_tool_arguments_error(self) -> None:
        @function_tool(failure_error_function=None)
        def add(a: int) -> int:
            return a

        with pytest.raises(ToolArgumentsError) as raised:
            await call(add, f'{{"a": "{SECRET}"}}')
        assert raised.value.tool_name == "add"
        assert SECRET not in str(raised.value)
        assert raised.value.__cause__ is None
        assert str(raised.value) == snapshot("""\
Invalid JSON input for tool add: a: Input should be a valid integer, unable to parse string as an integer\
""")


class TestFailures:
    async def test_exception_sends_only_tool_name_and_type(self) -> None:
        @function_tool
        def explode() -> str:
            raise KeyError(SECRET)

        text = await call(explode, "")
        assert SECRET not in text
        assert text == snapshot(
            "Tool 'explode' failed with an internal error (KeyError); its details are hidden. Do not retry the same call unchanged."
        )

    async def test_model_retry_message_is_sent_verbatim(self) -> None:
        @function_tool
        async def find(city: str) -> str:
            raise ModelRetry(f"No city named {city!r}; check the spelling.")

        assert (
            await call(find, '{"city": "Pariss"}') == "No city named 'Pariss'; check the spelling."
        )

    async def test_custom_failure_error_function(self) -> None:
        seen: list[tuple[Any, Exception]] = []

        def explain(ctx: RunContextWrapper[Any], error: Exception) -> str:
            seen.append((ctx, error))
            return f"custom: {type(error).__name__}"

        @function_tool(failure_error_function=explain)
        def explode(a: int) -> str:
            raise RuntimeError("boom")

        assert await call(explode, '{"a": 1}') == "custom: RuntimeError"
        assert await call(explode, '{"a": "x"}') == "custom: ToolArgumentsError"
        assert isinstance(seen[0][0], ToolContext)

    async def test_async_failure_error_function(self) -> None:
        async def explain(ctx: RunContextWrapper[Any], error: Exception) -> str:
            await asyncio.sleep(0)
            return "async custom"

        @function_tool(failure_error_function=explain)
        def explode() -> str:
            raise RuntimeError("boom")

        assert await call(explode, "") == "async custom"

    @pytest.mark.parametrize("is_async", [False, True])
    async def test_failure_error_function_none_reraises_the_original(self, is_async: bool) -> None:
        class Boom(Exception):
            pass

        def sync_explode() -> str:
            raise Boom

        async def async_explode() -> str:
            raise Boom

        tool = function_tool(failure_error_function=None)(
            async_explode if is_async else sync_explode
        )
        with pytest.raises(Boom):
            await call(tool, "")

    async def test_cancellation_is_not_swallowed(self) -> None:
        @function_tool
        async def slow() -> str:
            await asyncio.sleep(10)
            return "late"

        task = asyncio.create_task(call(slow, ""))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


class TestOutput:
    @dataclasses.dataclass
    class Pair:
        a: int
        b: str

    @pytest.mark.parametrize(
        ("value", "text"),
        [
            ("plain text", "plain text"),
            (User(name="ann"), "name='ann' age=None"),
            (Pair(1, "x"), "TestOutput.Pair(a=1, b='x')"),
            ({"k": [1, 2.5, None]}, "{'k': [1, 2.5, None]}"),
            ([1, "two"], "[1, 'two']"),
            (3, "3"),
            (2.5, "2.5"),
            (True, "True"),
            (None, "None"),
            (Color.RED, str(Color.RED)),
            (datetime.date(2024, 1, 2), "2024-01-02"),
            ({"é": "ü"}, "{'é': 'ü'}"),
        ],
        ids=lambda v: type(v).__name__,
    )
    def test_values_become_their_str_as_in_openai_agents(self, value: Any, text: str) -> None:
        assert tool_output_text(value) == text

    def test_a_str_that_raises_is_a_user_error_naming_the_type_not_the_value(self) -> None:
        class Secretive:
            def __str__(self) -> str:
                raise RuntimeError("token sk-123")

        with pytest.raises(
            UserError, match=r"Tool 'f' returned a value of type Secretive, whose str\(\) raised"
        ) as raised:
            tool_output_text(Secretive(), "f")
        assert "sk-123" not in str(raised.value)

    async def test_returned_value_goes_through_to_text(self) -> None:
        @function_tool
        async def info() -> User:
            return User(name="bo", age=3)

        assert await call(info, "") == User(name="bo", age=3)  # a direct call: the value
        assert await model_text(info, "") == "name='bo' age=3"  # a run: its str()


class TestSyncTools:
    async def test_sync_tool_runs_in_a_worker_thread(self) -> None:
        threads: list[threading.Thread] = []

        @function_tool
        def where() -> str:
            threads.append(threading.current_thread())
            return "ok"

        await call(where, "")
        assert threads[0] is not threading.main_thread()

    async def test_sync_tool_does_not_block_the_event_loop(self) -> None:
        started = threading.Event()
        release = threading.Event()

        @function_tool
        def blocking() -> str:
            started.set()
            release.wait(5)
            return "done"

        task = asyncio.create_task(call(blocking, ""))
        ticks = 0
        while not started.is_set():
            await asyncio.sleep(0.001)
        for _ in range(20):  # the loop keeps running while the tool blocks
            await asyncio.sleep(0.001)
            ticks += 1
        release.set()
        assert await task == "done"
        assert ticks == 20

    async def test_sync_tools_run_concurrently(self) -> None:
        @function_tool
        def nap(seconds: float) -> str:
            time.sleep(seconds)
            return "ok"

        start = time.perf_counter()
        results = await asyncio.gather(*(call(nap, '{"seconds": 0.2}') for _ in range(4)))
        assert results == ["ok"] * 4
        assert time.perf_counter() - start < 0.6  # not 0.8: they overlap

    async def test_context_variables_reach_the_sync_tool(self) -> None:
        var: contextvars.ContextVar[str] = contextvars.ContextVar("var")
        var.set("from the caller")

        @function_tool
        def read() -> str:
            return var.get()

        assert await call(read, "") == "from the caller"

    async def test_sync_tool_exception_reaches_the_caller(self) -> None:
        @function_tool(failure_error_function=None)
        def explode() -> str:
            raise ValueError("boom")

        with pytest.raises(ValueError, match="boom"):
            await call(explode, "")

    async def test_sync_function_returning_a_coroutine_is_awaited_by_a_run(self) -> None:
        async def inner() -> str:
            return "inner"

        def outer() -> Any:
            return inner()

        tool = function_tool(name_override="outer")(outer)
        assert await model_text(tool, "") == "inner"
        # A direct call returns what the function returned, as openai-agents' tools do.
        returned: Any = await call(tool, "")
        assert inspect.iscoroutine(returned)
        assert await returned == "inner"

    async def test_callable_object_with_async_call(self) -> None:
        class Greeter:
            async def __call__(self, name: str) -> str:
                return f"hi {name}"

        tool = function_tool(name_override="greet")(Greeter())
        assert await call(tool, '{"name": "x"}') == "hi x"

    async def test_callable_object_runs_the_call_method_its_schema_was_read_from(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        class Greeter:
            async def __call__(self, name: str) -> str:
                return f"hi {name}"

        greeter = Greeter()
        tool = function_tool(name_override="greet")(greeter)

        async def other(self: Greeter, count: int) -> str:
            return f"{count} others"

        monkeypatch.setattr(Greeter, "__call__", other)  # a signature the schema never saw
        assert await call(tool, '{"name": "x"}') == "hi x"
        assert tool.__wrapped__ is greeter

    async def test_a_copied_tool_calls_the_same_callable_object(self) -> None:
        class Counter:
            def __init__(self) -> None:
                self.seen: list[int] = []

            async def __call__(self, value: int) -> int:
                self.seen.append(value)
                return value

        counter = Counter()
        tool = function_tool(counter)
        copies = [copy.copy(tool), copy.deepcopy(tool), dataclasses.replace(tool, name="other")]
        assert [await call(each, f'{{"value": {n}}}') for n, each in enumerate(copies)] == [0, 1, 2]
        assert counter.seen == [0, 1, 2]
        assert all(each.__wrapped__ is counter for each in copies)


class TestCallPaths:
    """The shortcuts of the common call: the same arguments and text as the general path."""

    @pytest.mark.parametrize(
        "value",
        [3, -(2**70), 2.5, 1e20, True, False, None, "text"],
        ids=[
            "int",
            "wide-int",
            "float",
            "e-float",
            "true",
            "false",
            "none",
            "str",
        ],
    )
    @pytest.mark.parametrize("is_async", [True, False])
    async def test_plain_returns_read_as_tool_output_text(self, value: Any, is_async: bool) -> None:
        async def give_async() -> Any:
            return value

        def give_sync() -> Any:
            return value

        tool = function_tool(name_override="give")(give_async if is_async else give_sync)
        assert await model_text(tool, "") == tool_output_text(value)
        assert await call(tool, "") == value  # a direct call returns the value itself

    async def test_an_int_past_the_str_limit_gets_the_value_free_error(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        @function_tool
        def huge() -> int:
            return 10**5000

        with caplog.at_level(logging.WARNING, logger="tooluse"):
            text = await model_text(huge, "")
        assert text.startswith("Tool 'huge' failed with an internal error (UnwritableOutput)")
        assert "returned a value of type int, whose str() raised ValueError" in caplog.text

    @pytest.mark.parametrize("is_async", [True, False])
    async def test_context_by_keyword_next_to_arguments(self, is_async: bool) -> None:
        seen: list[Any] = []

        def record(a: int, ctx: ToolContext[Any], b: list[int]) -> str:
            seen.append((a, ctx, b))
            return f"{ctx.tool_name}:{a + sum(b)}"

        async def record_async(a: int, ctx: ToolContext[Any], b: list[int]) -> str:
            return record(a, ctx, b)

        tool = function_tool(name_override="record")(record_async if is_async else record)
        context = tool_context("record", '{"a": 1, "b": [2, 3]}')
        assert await tool.on_invoke_tool(context, '{"a": 1, "b": [2, 3]}') == "record:6"
        assert seen == [(1, context, [2, 3])]

    async def test_each_call_gets_its_own_arguments(self) -> None:
        @function_tool(strict_mode=False)  # a plain dict parameter
        def grow(items: list[int], extra: dict[str, int]) -> str:
            items.append(0)
            extra["added"] = 1
            return f"{len(items)}:{len(extra)}"

        arguments = '{"items": [1], "extra": {"k": 2}}'
        assert [await call(grow, arguments) for _ in range(3)] == ["2:2"] * 3

    async def test_positional_only_and_spread_parameters_take_the_general_path(self) -> None:
        @function_tool(strict_mode=False)
        def join(first: str, /, *rest: str, **named: int) -> str:
            return ",".join([first, *rest, *(f"{k}={v}" for k, v in named.items())])

        arguments = '{"first": "a", "rest": ["b", "c"], "named": {"x": 1}}'
        assert await call(join, arguments) == "a,b,c,x=1"


class TestFieldsValidation:
    """A plain arguments model's fields are validated without building the model."""

    async def test_a_new_model_is_validated_against_never_a_stale_one(self) -> None:
        @function_tool
        def show(a: int | str) -> str:
            return repr(a)

        assert await call(show, '{"a": 1}') == "1"  # validated without the model
        schema = show.on_invoke_tool._schema  # pyright: ignore[reportFunctionMemberAccess]
        schema.params_pydantic_model = create_model(
            "show_args", __config__=ConfigDict(extra="forbid"), a=(str, ...)
        )
        assert await call(show, '{"a": "x"}') == "'x'"
        assert await call(show, '{"a": 1}') == snapshot("""\
Tool 'show' was called with invalid arguments:
- a: Input should be a valid string
Call 'show' again with corrected arguments.\
""")

    def test_only_plain_models_get_a_fields_validator(self) -> None:
        class Plain(BaseModel):
            a: int

        class Checked(BaseModel):
            a: int

            @model_validator(mode="after")
            def positive(self) -> Checked:
                return self

        class Initialised(BaseModel):
            a: int

            def model_post_init(self, context: Any, /) -> None:
                pass

        validator = _fields_validator(Plain)
        assert validator is not None
        assert validator.validate_json('{"a": 1}')[0] == {"a": 1}
        assert _fields_validator(Checked) is None
        assert _fields_validator(Initialised) is None

    async def test_a_refused_argument_is_checked_once(self) -> None:
        checks: list[int] = []

        def refuse(value: int) -> int:
            checks.append(value)
            raise ValueError("no")

        @function_tool
        def take(a: Annotated[int, AfterValidator(refuse)]) -> str:
            return str(a)

        assert "- a: " in await call(take, '{"a": 1}')
        assert checks == [1]  # a validator with effects runs once per call, as always
