"""Invoking a decorated function tool, and what a call comes to: a `ToolOutcome`.

`Invoker` is the `on_invoke_tool` of every `@function_tool`: it validates the raw
JSON in one pass, calls the function (awaited, or in a worker thread when sync) and
turns failures into text for the model. Called as `on_invoke_tool(ctx, arguments)`
it returns what the function returned (or the failure's text), as openai-agents'
tools do; the runner calls `invoke` instead, which renders that value as text for
the model, says whether the call failed, hands back a Swarm-style handoff or context
update, and applies the run's timeout and failure settings. No result travels back
through the `ToolContext` (only its public `error` is set, for error functions).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import logging
import threading
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple, TypeAlias, TypeVar, cast

from pydantic import BaseModel, ValidationError
from pydantic_core import SchemaError, SchemaValidator

from ..core._agent_base import AgentBase
from ..core._context import RunContextWrapper, ToolContext
from ..core._items import InputPart
from ..exceptions import ModelRetry, ToolArgumentsError, UsageLimitExceeded, UserError
from ..schema._argument_errors import arguments_error
from ..schema._function_schema import FuncSchema, plain_validator
from ._errors import default_tool_error_function
from ._outputs import parts_text, rich_parts
from ._returns import Result, is_agent
from ._threads import CallTimedOut, run_in_thread

__all__ = [
    "NO_SETTINGS",
    "InvokeSettings",
    "Invoker",
    "StoppedAtLimit",
    "ToolErrorFunction",
    "ToolOutcome",
    "UnwritableOutput",
    "returned_outcome",
    "timeout_text",
    "tool_output_text",
    "unwritable_outcome",
]

logger = logging.getLogger("tooluse")

ToolErrorFunction: TypeAlias = Callable[[RunContextWrapper[Any], Exception], "str | Awaitable[str]"]
"""Turns a failed tool call into the text the model receives."""


T = TypeVar("T")

_AS_TEXT = object()  # ToolOutcome.value when the tool returned its output text itself


class ToolOutcome(NamedTuple):
    """How one tool call ended (a named tuple: made for every call, it must be cheap)."""

    output: str
    """The text the model receives."""
    failed: bool = False
    """Whether the call failed (bad arguments, an exception, a timeout), for the error budget."""
    handoff: AgentBase | None = None
    """An agent the tool handed the conversation to (a Swarm-style return)."""
    context_variables: dict[str, object] | None = None
    """Values the tool merges into the run context (a Swarm-style return)."""
    value: object = _AS_TEXT
    """What the tool returned, when it is more than `output` (a value rendered as text)."""
    parts: list[InputPart] | None = None
    """The Responses input parts the model receives in place of `output`, for a rich
    output (images, files); `output` is then their text form, for hooks and traces."""

    def returned(self) -> object:
        """What the tool returned, as a Python value; the text when it failed, or is text."""
        return self.output if self.value is _AS_TEXT else self.value


class InvokeSettings(NamedTuple):
    """What the run decides about each call, over the tool's own settings."""

    timeout: float | None = None
    """Seconds the call may run; None for no limit."""
    failure_error_function: ToolErrorFunction | None = None
    """The run-wide text for failures, for tools that kept the default."""
    log_tool_errors: bool = False
    """Whether tool exceptions are logged with their messages."""
    stop: threading.Event | None = None
    """Set when the calls made with these settings stopped: a sync call not yet started
    in its thread then never starts (`run_in_thread`)."""


NO_SETTINGS = InvokeSettings()
"""The settings of a run that sets none (one instance for all such runs)."""
_NO_ARGS: list[object] = []  # never changed: only ever unpacked into a call


class StoppedAtLimit(CallTimedOut):
    """An awaited call cancelled at its timeout: unlike a sync tool's thread, it did stop."""


def timeout_text(tool_name: str, limit: CallTimedOut) -> str:
    """What the model is told of a call given up at its timeout.

    Args:
        tool_name: The tool's name.
        limit: The timeout that passed: `StoppedAtLimit` when the call was stopped.

    Returns:
        The text, saying whether the call may still have its effect.
    """
    if isinstance(limit, StoppedAtLimit):
        text = "and was stopped. Try a smaller request, or another approach."
    else:  # a sync tool's thread cannot be stopped: the model must not assume nothing happened
        text = "but could not be stopped: it may still finish. Check its effect before retrying."
    return f"Tool '{tool_name}' timed out after {limit.timeout:g} s {text}"


class Invoker:
    """`on_invoke_tool` for a decorated function: validate, call, render, handle failure."""

    __slots__ = (
        "_by_keyword", "_context_keyword", "_direct", "_fields", "_func", "_is_async",
        "_on_failure", "_schema", "_wrapped",
    )  # fmt: skip

    def __init__(
        self, func: Callable[..., Any], schema: FuncSchema, on_failure: ToolErrorFunction | None
    ) -> None:
        self._wrapped = func
        self._func = _call_method(func)
        self._schema = schema
        self._on_failure = on_failure
        self._is_async = _is_async_callable(func)
        # The common call, every argument by keyword under its own name, is made here
        # straight from the validated model (what `to_call_args` would build, without the
        # copies); the slots it is decided from are fixed when the schema is made.
        self._by_keyword = schema.keyword_call
        self._context_keyword = schema.context_parameter
        # The commonest tool of all: async, arguments by keyword, no context parameter.
        self._direct = self._is_async and self._by_keyword and self._context_keyword is None
        self._fields: tuple[object, SchemaValidator | None] = (None, None)
        """The model's validator last seen, and the fields-only validator made from it."""

    def __copy__(self) -> Invoker:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Invoker:
        # A copied tool calls the same function: a callable object's state is the
        # developer's (a counter, a connection), not the tool's, as deepcopy keeps a
        # plain function as it is. Nothing else here changes after it is made.
        return self

    @property
    def func(self) -> Callable[..., Any]:
        """The function (or callable object) this invoker was made for."""
        return self._wrapped

    @property
    def schema(self) -> FuncSchema:
        """What the function's arguments are, and how it is called."""
        return self._schema

    async def __call__(self, ctx: ToolContext[Any], arguments: str) -> Any:
        """Validate the arguments and call the function, as a direct call (a test) makes it.

        Args:
            ctx: The call's context (`ToolContext.for_testing` builds one).
            arguments: The raw JSON arguments.

        Returns:
            What the function returned, as openai-agents' tools return it (a run sends
            its `str()` to the model); on failure, the text the model would be told.
        """
        try:
            if self._direct:  # `_start`'s call, made in place
                return await self._func(**self._keyword_arguments(arguments))
            # A sync function's returned awaitable is handed back as it is (what the function
            # returned); a run awaits it, within the timeout.
            return await self._start(ctx, arguments, NO_SETTINGS, await_returned=False)
        except Exception as error:
            return (await self._failed(ctx, error, NO_SETTINGS)).output

    async def invoke(
        self, ctx: ToolContext[Any], arguments: str, settings: InvokeSettings
    ) -> ToolOutcome:
        """Call the tool with the model's arguments.

        Args:
            ctx: The call's context.
            arguments: The raw JSON arguments.
            settings: The run's timeout and failure settings.

        Returns:
            The outcome; a failure is text for the model unless the tool re-raises.

        Raises:
            CallTimedOut: The call ran past `settings.timeout`.
        """
        try:
            return _outcome(ctx, await self._start(ctx, arguments, settings))
        except CallTimedOut as error:
            if settings.timeout is not None:
                raise  # the runner decides what a timeout means for this tool
            # No limit was set: a call inside the tool timed out, and the tool let it go.
            return await self._failed(ctx, error, settings)
        except Exception as error:
            return await self._failed(ctx, error, settings)

    def named_arguments(self, arguments: str) -> dict[str, object]:
        """The validated arguments by parameter name, as the function would receive them.

        Args:
            arguments: The raw JSON arguments.

        Returns:
            Each parameter's value, strict-mode rewrites undone; context parameters left out.

        Raises:
            ToolArgumentsError: If the arguments are not valid.
        """
        return self._schema.named_arguments(self._schema.parse_arguments(arguments))

    def _start(
        self,
        ctx: ToolContext[Any],
        arguments: str,
        settings: InvokeSettings,
        *,
        await_returned: bool = True,
    ) -> Awaitable[object]:
        """Validate the arguments and start the call; a plain function, not one more await."""
        args: list[object] = _NO_ARGS
        if not self._by_keyword:
            args, kwargs = self._schema.to_call_args(self._schema.parse_arguments(arguments), ctx)
        else:
            kwargs = self._keyword_arguments(arguments)
            if self._context_keyword is not None:
                kwargs = {**kwargs, self._context_keyword: ctx}
        if not self._is_async:
            return self._in_thread(ctx, args, kwargs, settings, await_returned)
        call = self._func(*args, **kwargs)
        timeout = settings.timeout
        return call if timeout is None else run_within(call, timeout, ctx)

    def warm(self) -> None:
        """Build now what the first call would: the schema, the model and its validators."""
        self._schema.params_json_schema  # noqa: B018 - built on its first read
        if self._by_keyword:
            self._fields_validator()
        else:
            self._schema.params_pydantic_model.__pydantic_validator__  # noqa: B018 - likewise

    def _fields_validator(self) -> SchemaValidator | None:
        """The fields-only validator, made again whenever the model's validator changes.

        Until the arguments model is built, a plain signature's is written without it.
        """
        schema = self._schema
        written = plain_validator(schema)
        if written is not None:
            return written
        model = schema.params_pydantic_model
        seen, fields = self._fields
        if seen is not model.__pydantic_validator__:
            fields = None if schema.adapts_arguments else _fields_validator(model)
            self._fields = (model.__pydantic_validator__, fields)
        return fields

    def _keyword_arguments(self, arguments: str) -> dict[str, object]:
        """The validated arguments by name, for a call by keyword (the call copies them).

        The model's fields are validated without building the model (about a third of
        what validating costs), when the model is a plain one; the fields-only validator
        is made again whenever the model's validator changes, so it is never stale. Any
        failure is reported as the model's own validation reports it (once: validators
        with effects run once per call, as always).
        """
        schema = self._schema
        fields = self._fields_validator()
        if fields is not None:
            try:
                return fields.validate_json(arguments or "{}")[0]
            except ValidationError as error:  # the model's errors are its fields' errors
                # Not chained, as in `parse_arguments`: pydantic's message repeats the values.
                raise arguments_error(schema.name, error) from None
        # An instance's __dict__ is a dict; pyright types it as the class's mappingproxy.
        return schema.parse_arguments(arguments).__dict__  # pyright: ignore[reportReturnType]

    async def _in_thread(
        self,
        ctx: ToolContext[Any],
        args: list[object],
        kwargs: dict[str, object],
        settings: InvokeSettings,
        await_returned: bool,
    ) -> object:
        timeout = settings.timeout
        result = await run_in_thread(
            self._func, args, kwargs, timeout=timeout, label=ctx.tool_name,
            on_abandon=ctx.cancel, stop=settings.stop,
        )  # fmt: skip
        if type(result) in _PLAIN_RETURNS or not await_returned or not inspect.isawaitable(result):
            return result  # (the common returns skip isawaitable's ABC checks)
        # A sync wrapper that returned a coroutine: the rest of the call, within the limit too.
        return await (result if timeout is None else run_within(result, timeout, ctx))

    async def _failed(
        self, ctx: ToolContext[Any], error: Exception, settings: InvokeSettings
    ) -> ToolOutcome:
        if isinstance(error, UserError) and not isinstance(error, UnwritableOutput):
            raise error  # the developer's mistake, met while the tool ran: not the model's to fix
        if isinstance(error, UsageLimitExceeded) and error.state is None:
            # This run's budget (reached in a nested run): not the model's to fix. One with
            # a state is another run's, with limits of its own: the tool's error, as others.
            raise error
        if isinstance(error, ToolArgumentsError) and error.tool_name != ctx.tool_name:
            error = ToolArgumentsError(ctx.tool_name, error.problems)  # a renamed tool
        ctx.error = error
        on_failure = self._on_failure
        if on_failure is default_tool_error_function and settings.failure_error_function:
            on_failure = settings.failure_error_function
        hidden = on_failure is default_tool_error_function or isinstance(error, UnwritableOutput)
        if hidden or settings.log_tool_errors:
            # Unasked, only where tooluse hides the message: a handler of yours sees the error.
            _log_failure(ctx.tool_name, error, log_message=settings.log_tool_errors)
        if on_failure is None:
            raise error
        text = on_failure(ctx, error)
        return ToolOutcome(await text if inspect.isawaitable(text) else text, failed=True)


async def run_within(awaitable: Awaitable[T], timeout: float, ctx: ToolContext[Any]) -> T:
    """Await a tool's coroutine for at most `timeout` seconds; cancel it after that.

    Unlike `asyncio.wait_for`, a `TimeoutError` the tool raises itself stays the
    tool's own failure; only the limit raises `CallTimedOut`.

    Args:
        awaitable: The tool's coroutine.
        timeout: The limit, in seconds.
        ctx: The call's context; its `cancelled` event is set at the limit.

    Returns:
        What the coroutine returned.

    Raises:
        StoppedAtLimit: If the limit passed first.
    """
    task = asyncio.ensure_future(awaitable)
    try:
        done, _ = await asyncio.wait((task,), timeout=timeout)
    except asyncio.CancelledError:
        task.cancel()
        await asyncio.wait((task,))  # the tool's own cleanup ends before the run goes on
        raise
    if not done:
        ctx.cancel()
        task.cancel()
        await asyncio.wait((task,))
        raise StoppedAtLimit(timeout, ctx.tool_name)
    return task.result()


def tool_output_text(value: object, tool_name: str = "tool") -> str:
    """Render a tool's return value as the text the model receives.

    As openai-agents does, so that a tool moved over sends the model the same text:
    a `str` as it is, anything else as its `str()` (a dict as `{'a': 1}`, a pydantic
    model as `a=1 b='x'`). To send JSON, return it: `model.model_dump_json()`,
    `json.dumps(value)`.

    Args:
        value: What the tool returned.
        tool_name: The tool's name, for the error message.

    Returns:
        The text.

    Raises:
        UnwritableOutput: If the value's `str()` raised; the message names the
            value's type and the exception's, never the value.
    """
    if isinstance(value, str):
        return value
    try:
        return str(value)
    except Exception as error:
        raise UnwritableOutput(
            f"Tool '{tool_name}' returned a value of type {type(value).__name__}, whose str() "
            f"raised {type(error).__name__}; return a str"
        ) from error


_SCALAR_RETURNS = frozenset({int, float, bool, type(None)})
_PLAIN_RETURNS = _SCALAR_RETURNS | {str, dict, list}


def returned_outcome(value: object, tool_name: str, *, failed: bool = False) -> ToolOutcome:
    """What the model sees of a value a tool returned: text, or rich output's parts.

    Args:
        value: What the tool returned.
        tool_name: The tool's name, for the error message.
        failed: Whether the call failed.

    Returns:
        The outcome; a `ToolOutput` (or a list of them) as Responses input parts.

    Raises:
        UnwritableOutput: If the value's `str()` raised.
    """
    if type(value) is str:
        return ToolOutcome(value, failed, value=value)
    parts = rich_parts(value)
    if parts is not None:
        return ToolOutcome(parts_text(parts), failed, value=value, parts=parts)
    return ToolOutcome(tool_output_text(value, tool_name), failed, value=value)


def _fields_validator(model: type[BaseModel]) -> SchemaValidator | None:
    """A validator of a plain model's fields that returns them as a dict, or None.

    Plain: the model's core schema is its fields alone (no model validators, custom
    `__init__`, `model_post_init` or root model), so the fields are all that validating
    it decides; the model's config (`extra`) goes with them.
    """
    core = cast("dict[str, Any] | None", vars(model).get("__pydantic_core_schema__"))
    if not isinstance(core, dict) or core.get("type") != "model" or core.get("cls") is not model:
        return None
    if core.get("custom_init") or core.get("root_model") or core.get("post_init"):
        return None
    fields = cast("dict[str, Any]", core["schema"])
    if fields.get("type") != "model-fields":
        return None
    try:
        return SchemaValidator(cast(Any, fields), core.get("config"))
    except SchemaError:  # e.g. a reference to definitions the model holds
        return None


def _outcome(ctx: ToolContext[Any], result: object) -> ToolOutcome:
    """What the model sees of a return value, and a handoff or context update it carries."""
    if type(result) is str:
        return ToolOutcome(result)
    if type(result) in _SCALAR_RETURNS:  # the common cases, decided without an isinstance chain
        return ToolOutcome(tool_output_text(result, ctx.tool_name), value=result)
    if isinstance(result, Result):
        given = returned_outcome(result.value, ctx.tool_name)
        variables = result.context_variables
        return given._replace(handoff=result.agent, context_variables=variables)
    if is_agent(result):
        return ToolOutcome(json.dumps({"assistant": result.name}), handoff=result)
    return returned_outcome(result, ctx.tool_name)


class UnwritableOutput(UserError):
    """A tool returned a value whose `str()` raised; the message names its type, not its value."""


def unwritable_outcome(ctx: ToolContext[Any], error: UnwritableOutput) -> ToolOutcome:
    """A hand-built tool's unwritable output: logged for the developer, value-free for the model.

    Args:
        ctx: The call's context.
        error: The error naming the tool and the value's type.

    Returns:
        A failed outcome with the default "internal error" text.
    """
    ctx.error = error
    _log_failure(ctx.tool_name, error, log_message=False)
    return ToolOutcome(default_tool_error_function(ctx, error), failed=True)


def _log_failure(tool: str, error: Exception, *, log_message: bool) -> None:
    """Log a tool's own exception: its type always, its message only when asked."""
    if isinstance(error, ModelRetry | ToolArgumentsError):
        return  # meant for the model, not a failure of the tool
    if isinstance(error, UnwritableOutput):  # the developer's to fix, and free of tool data
        logger.warning("%s", error)
        return
    if log_message:
        logger.warning("Tool %r raised %s", tool, type(error).__name__, exc_info=error)
    else:
        logger.warning(
            "Tool %r raised %s (its message is not logged, as tool data may hold secrets: "
            "RunConfig(log_tool_errors=True) logs it)",
            tool,
            type(error).__name__,
        )


def _call_method(func: Callable[..., Any]) -> Callable[..., Any]:
    """What calling `func` runs: a callable object's `__call__`, bound when the tool is made.

    The schema was read from that method's signature then; a `__call__` replaced on the
    class later must not receive arguments validated against another signature.
    """
    if inspect.isroutine(func) or isinstance(func, functools.partial | type):
        return func  # pyright: ignore[reportUnknownVariableType] - the partial's own types
    method = getattr(func, "__call__", None)  # noqa: B004 - the object's own method
    return method if inspect.ismethod(method) else func


def _is_async_callable(func: object) -> bool:
    while isinstance(func, functools.partial):
        func = func.func
    return inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(
        getattr(func, "__call__", None)  # noqa: B004 - a callable object's async __call__
    )
