"""`FunctionTool` and the `@function_tool` decorator.

A `FunctionTool` is what the model sees (name, description, schema) plus one
callable, `on_invoke_tool(ctx, arguments_json)`. The decorator checks
the signature and docstring at once (`deferred_function_schema`) and makes an
`Invoker` (`_invocation.py`) that validates the raw JSON in one pass, calls the
function and turns its result, or its failure, into text for the model. The
pydantic model and JSON schema of a plain signature are built once, on first
use (`params_json_schema` read, or a call): see `_deferred.py`.
"""

from __future__ import annotations

import inspect
import math
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from types import MethodType
from typing import Any, Literal, TypeAlias, cast, overload

from ..core._context import RunContextWrapper, ToolContext
from ..core._deferred import defer, deferred_fields
from ..core._errors import UserValueError
from ..exceptions import UserError
from ..guardrails._tool_guardrails import (
    ToolInputGuardrail,
    ToolOutputGuardrail,
    check_tool_guardrails,
)
from ..schema._docstrings import DocstringStyle
from ..schema._function_schema import deferred_function_schema
from ..schema._lints import Finding, tool_findings, warn
from ..schema._strict import strict_or_error
from ._changes import OFFERED_FIELDS, tool_changed
from ._errors import default_tool_error_function
from ._invocation import Invoker, ToolErrorFunction, tool_output_text

__all__ = [
    "FunctionTool",
    "ToolErrorFunction",
    "function_tool",
    "keep_function_unexposed",
    "tool_output_text",
]

ToolFunction: TypeAlias = Callable[..., Any]
"""A sync or async function to turn into a tool."""
ApprovalPredicate: TypeAlias = (
    Callable[[RunContextWrapper[Any], dict[str, Any]], "bool | Awaitable[bool]"]
    | Callable[[RunContextWrapper[Any], dict[str, Any], str], "bool | Awaitable[bool]"]
)
"""Decides whether a call needs approval, from the run context and the call's arguments
(and its approval id, when it takes a third parameter, as in openai-agents)."""
EnabledPredicate: TypeAlias = Callable[[RunContextWrapper[Any], Any], "bool | Awaitable[bool]"]
"""Decides, per run context and agent, whether a tool is offered."""
TimeoutBehavior: TypeAlias = Literal["error_as_result", "raise_exception"]
"""What a timeout does: tell the model, or stop the run."""
MCPAnnotations: TypeAlias = dict[str, "bool | str"]
"""MCP tool annotations by their MCP names: `title` (a str) and the hints `readOnlyHint`,
`destructiveHint`, `idempotentHint`, `openWorldHint` (bools)."""
_MCP_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


_UNEXPOSED: weakref.WeakSet[Callable[..., Any]] = weakref.WeakSet()
"""Functions tooluse itself made a tool from, which `__wrapped__` does not hand out."""


def keep_function_unexposed(func: Callable[..., Any]) -> None:
    """Mark `func`, a function tooluse wrote (an agent tool's nested run), as no developer's.

    A tool made from it has no `__wrapped__`, as a hand-built tool has none: there is no
    function of the developer's to call directly, and `inspect.unwrap` or `tooluse check`
    would otherwise lead into tooluse's own code.

    Args:
        func: The function the tool is made from.
    """
    _UNEXPOSED.add(func)


class _WrappedFunction:
    """`FunctionTool.__wrapped__`: a tool's function, and nothing on the class itself.

    A property would be found on the class too, where `inspect.signature(FunctionTool)`
    and `inspect.unwrap` would follow it and fail: this descriptor is absent there.
    """

    def __get__(self, tool: FunctionTool | None, owner: type[Any] | None = None) -> Any:
        if tool is None:
            raise AttributeError("__wrapped__ belongs to a decorated tool, not to its class")
        invoker = tool.on_invoke_tool
        if isinstance(invoker, Invoker) and invoker.func not in _UNEXPOSED:
            return invoker.func
        if isinstance(invoker, Invoker):
            raise AttributeError(
                f"FunctionTool '{tool.name}' runs a function of tooluse's own (an agent used "
                "as a tool): it wraps no function of yours"
            )
        raise AttributeError(f"FunctionTool '{tool.name}' was built by hand: it wraps no function")

    def __set__(self, tool: FunctionTool, value: object) -> None:
        raise AttributeError(
            f"FunctionTool '{tool.name}': __wrapped__ is read from the tool's invoker; "
            "make a new tool with function_tool(...) to wrap another function"
        )


@dataclass
class FunctionTool:
    """A tool backed by a Python function: what the model sees, and how to call it.

    Built by `@function_tool`, or by hand. A hand-built tool with
    `strict_json_schema=True` has its schema rewritten for strict mode here, so
    it is held to the same rules as a decorated one.
    """

    name: str
    """The name the model calls the tool by."""
    description: str | None
    """What the tool does, for the model."""
    params_json_schema: dict[str, Any]
    """The JSON schema of the arguments."""
    on_invoke_tool: Callable[[ToolContext[Any], str], Awaitable[Any]]
    """Runs the tool with the raw JSON arguments; returns the output for the model: text,
    a `ToolOutputImage` (or other `ToolOutput`, or a list of them), or a value the run
    writes as JSON. A decorated function's returns what the function returned."""
    strict_json_schema: bool = True
    """Whether the model's arguments are constrained to the schema (OpenAI strict mode)."""
    is_enabled: bool | EnabledPredicate = True
    """Whether the tool is offered: a bool, or a function of the run context and the agent."""
    # The guardrails come right after is_enabled, where openai-agents has them (by position).
    tool_input_guardrails: list[ToolInputGuardrail[Any]] | None = None
    """Checks each call goes through before the tool runs (`@tool_input_guardrail`): each may
    allow it, reject it with a message the model gets instead, or stop the run."""
    tool_output_guardrails: list[ToolOutputGuardrail[Any]] | None = None
    """Checks of each call's output (`@tool_output_guardrail`): each may keep it, replace it
    with a message, or stop the run."""
    timeout_seconds: float | None = None
    """Seconds a call may take before the runner gives up on it; None for no limit."""
    timeout_behavior: TimeoutBehavior = "error_as_result"
    """At the timeout: tell the model (`error_as_result`), or stop the run with
    `ToolTimeoutError` (`raise_exception`)."""
    timeout_error_function: ToolErrorFunction | None = None
    """What the model is told at a timeout (it receives the `ToolTimeoutError`); None for
    tooluse's message, which says whether the call may still have its effect."""
    needs_approval: bool | ApprovalPredicate = False
    """Whether a call waits for a human: a bool, or a function of the run context and the
    parsed arguments. The run pauses with `result.interruptions`."""
    namespace: str | None = None
    """The Responses API namespace the tool is offered in (set by `tool_namespace`)."""
    namespace_description: str | None = None
    """What the namespace's tools are for, shown to the model with the namespace."""
    mcp_annotations: MCPAnnotations | None = None
    """What MCP clients are told of the tool when it is served over MCP (`tooluse serve`):
    `{"readOnlyHint": True, "title": "Weather"}`; hints, which a run does not read."""
    defer_loading: bool = False
    """openai-agents' flag for a tool offered only through the Responses API's tool search.
    tooluse declares no tool search yet: a Responses request with such a tool is refused
    with a `UserError` saying so; Chat Completions, which has no tool search, offers it as
    any tool."""
    _rebuild: Callable[[bool], FunctionTool] | None = field(default=None, repr=False, compare=False)
    """How the decorator's tool is rebuilt for `with_strict_mode` (from the function). A
    field, not an `InitVar`, so that a subclass's own `__post_init__(self)` can call
    `super().__post_init__()`, and a copy keeps it."""
    _remake: Callable[[bool], FunctionTool] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    _findings: tuple[Finding, ...] = field(default=(), init=False, repr=False, compare=False)

    def __setattr__(self, name: str, value: Any) -> None:
        # Setting an offered field again on a built tool makes the cached tool lists and
        # params stale (`_tool_changes.py`); the first set, while the tool is built, cannot.
        if name in OFFERED_FIELDS and name in self.__dict__:
            tool_changed()
        object.__setattr__(self, name, value)

    def __post_init__(self) -> None:
        _rebuild = self._rebuild
        self._remake = _rebuild
        self._findings = tuple(
            tool_findings(self.name, self.description, strict=self.strict_json_schema)
        )
        invoker = self.on_invoke_tool
        if isinstance(invoker, Invoker):  # decorated: the signature's findings come first
            self._findings = (*invoker.schema.findings, *self._findings)
        _check_timeout_settings(self)
        check_tool_guardrails(
            f"FunctionTool '{self.name}'", self.tool_input_guardrails, self.tool_output_guardrails
        )
        _check_mcp_annotations(self.name, self.mcp_annotations)
        if not self.strict_json_schema or _rebuild is not None:  # decorated: strict already
            return
        loose = self.params_json_schema
        owner = f"FunctionTool '{self.name}'"
        strict = strict_or_error(loose, owner, "strict_json_schema=False", name=self.name)
        self._remake = lambda _: replace(self, params_json_schema=loose, strict_json_schema=False)
        object.__setattr__(self, "params_json_schema", strict)  # still being built: no change

    def __copy__(self) -> FunctionTool:
        """A shallow copy, not built again (no `__post_init__`, a subclass's `__init__`).

        An invoker that is a method of this very tool (a subclass passing
        `self._invoke`) is bound to the copy, so that the copy reads its own state.
        """
        copied = type(self).__new__(type(self))
        vars(copied).update(vars(self))
        invoker = vars(self).get("on_invoke_tool")
        if inspect.ismethod(invoker) and invoker.__self__ is self:
            vars(copied)["on_invoke_tool"] = MethodType(invoker.__func__, copied)
        return copied

    @property
    def qualified_name(self) -> str:
        """The tool's name inside its namespace (`crm.lookup`), or its name when it has none."""
        return self.name if self.namespace is None else f"{self.namespace}.{self.name}"

    @property
    def findings(self) -> tuple[Finding, ...]:
        """Likely mistakes in the tool's definition (`tooluse check` reports them)."""
        return self._findings

    __wrapped__ = _WrappedFunction()
    """The function `@function_tool` made this tool from, to call directly (in a test).

    A direct call skips what a run does: validation, context injection, timeouts and
    failure handling. A hand-built tool wraps no function: AttributeError.
    """

    def warm(self) -> FunctionTool:
        """Build now what the tool's first call would build, so that the call does not wait.

        A decorated tool builds its JSON schema, its arguments model and their validators
        when first needed, which keeps decorating cheap; the first call pays for them
        instead. Call this at start-up (`tools = [t.warm() for t in tools]`) to move that
        cost there. A tool built by hand has nothing to build.

        Returns:
            This tool.
        """
        invoker = self.on_invoke_tool
        if isinstance(invoker, Invoker):
            self.params_json_schema  # noqa: B018 - a decorated tool builds it on its first read
            invoker.warm()
        return self

    def with_strict_mode(self, strict: bool) -> FunctionTool:
        """Return this tool with its schema built for strict mode on or off.

        Args:
            strict: Whether the schema should follow OpenAI's strict mode.

        Returns:
            A tool calling the same function; this one when nothing changes.
        """
        if strict == self.strict_json_schema:
            return self
        if self._remake is None:
            return replace(self, strict_json_schema=strict)
        remade = self._remake(strict)
        # Rebuilt from the function: what was set on this tool since (a copy's name, its
        # namespace) is this tool's.
        for name in ("name", "description", "namespace", "namespace_description"):
            setattr(remade, name, getattr(self, name))
        return remade


@overload
def function_tool(
    func: ToolFunction,
    /,
    *,
    name_override: str | None = None,
    description_override: str | None = None,
    docstring_style: DocstringStyle | None = None,
    use_docstring_info: bool = True,
    failure_error_function: ToolErrorFunction | None = default_tool_error_function,
    strict_mode: bool = True,
    is_enabled: bool | EnabledPredicate = True,
    timeout: float | None = None,
    timeout_behavior: TimeoutBehavior = "error_as_result",
    timeout_error_function: ToolErrorFunction | None = None,
    needs_approval: bool | ApprovalPredicate = False,
    tool_input_guardrails: list[ToolInputGuardrail[Any]] | None = None,
    tool_output_guardrails: list[ToolOutputGuardrail[Any]] | None = None,
    mcp_annotations: MCPAnnotations | None = None,
    defer_loading: bool = False,
) -> FunctionTool: ...


@overload
def function_tool(
    *,
    name_override: str | None = None,
    description_override: str | None = None,
    docstring_style: DocstringStyle | None = None,
    use_docstring_info: bool = True,
    failure_error_function: ToolErrorFunction | None = default_tool_error_function,
    strict_mode: bool = True,
    is_enabled: bool | EnabledPredicate = True,
    timeout: float | None = None,
    timeout_behavior: TimeoutBehavior = "error_as_result",
    timeout_error_function: ToolErrorFunction | None = None,
    needs_approval: bool | ApprovalPredicate = False,
    tool_input_guardrails: list[ToolInputGuardrail[Any]] | None = None,
    tool_output_guardrails: list[ToolOutputGuardrail[Any]] | None = None,
    mcp_annotations: MCPAnnotations | None = None,
    defer_loading: bool = False,
) -> Callable[[ToolFunction], FunctionTool]: ...


def function_tool(
    func: ToolFunction | None = None,
    /,
    *,
    name_override: str | None = None,
    description_override: str | None = None,
    docstring_style: DocstringStyle | None = None,
    use_docstring_info: bool = True,
    failure_error_function: ToolErrorFunction | None = default_tool_error_function,
    strict_mode: bool = True,
    is_enabled: bool | EnabledPredicate = True,
    timeout: float | None = None,
    timeout_behavior: TimeoutBehavior = "error_as_result",
    timeout_error_function: ToolErrorFunction | None = None,
    needs_approval: bool | ApprovalPredicate = False,
    tool_input_guardrails: list[ToolInputGuardrail[Any]] | None = None,
    tool_output_guardrails: list[ToolOutputGuardrail[Any]] | None = None,
    mcp_annotations: MCPAnnotations | None = None,
    defer_loading: bool = False,
) -> FunctionTool | Callable[[ToolFunction], FunctionTool]:
    """Turn a function into a `FunctionTool`; use it bare (`@function_tool`) or called.

    Args:
        func: The function, when used bare.
        name_override: The tool name; defaults to the function's name.
        description_override: The description; defaults to the docstring's.
        docstring_style: "google", "numpy" or "sphinx"; None detects it.
        use_docstring_info: Whether to take descriptions from the docstring.
        failure_error_function: Turns a failure into the text the model receives;
            None re-raises instead (`ToolArgumentsError` for bad arguments).
        strict_mode: Whether the schema follows OpenAI's strict mode (recommended).
        is_enabled: Whether the tool is offered: a bool, or a function of the run
            context and the agent.
        timeout: Seconds a call may take; enforced by the runner.
        timeout_behavior: At the timeout, tell the model (`"error_as_result"`) or stop the
            run with `ToolTimeoutError` (`"raise_exception"`).
        timeout_error_function: What the model is told at a timeout; None for tooluse's
            message.
        needs_approval: Whether calls wait for a human's approval: a bool, or a function
            of the run context and the call's arguments.
        tool_input_guardrails: Checks each call goes through before the tool runs.
        tool_output_guardrails: Checks of each call's output.
        mcp_annotations: Hints for MCP clients when the tool is served over MCP, by
            their MCP names (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
            `openWorldHint`, `title`).
        defer_loading: openai-agents' flag for a tool offered only through tool search;
            kept on the tool, refused on the Responses API until tooluse declares tool
            search.

    Returns:
        The tool, or a decorator that makes one.
    """
    options = _ToolOptions(
        name_override=name_override,
        description_override=description_override,
        docstring_style=docstring_style,
        use_docstring_info=use_docstring_info,
        failure_error_function=failure_error_function,
        strict_mode=strict_mode,
        is_enabled=is_enabled,
        timeout=timeout,
        timeout_behavior=timeout_behavior,
        timeout_error_function=timeout_error_function,
        needs_approval=needs_approval,
        tool_input_guardrails=tool_input_guardrails,
        tool_output_guardrails=tool_output_guardrails,
        mcp_annotations=mcp_annotations,
        defer_loading=defer_loading,
    )

    def decorate(f: ToolFunction) -> FunctionTool:
        return _make_tool(f, options)

    if func is None:
        return decorate
    if not callable(func):
        raise UserError(
            f"function_tool takes the function itself, or only keyword arguments; got "
            f"{func!r}. For a name, write @function_tool(name_override={func!r})"
        )
    return decorate(func)


@dataclass(frozen=True)
class _ToolOptions:
    name_override: str | None
    description_override: str | None
    docstring_style: DocstringStyle | None
    use_docstring_info: bool
    failure_error_function: ToolErrorFunction | None
    strict_mode: bool
    is_enabled: bool | EnabledPredicate
    timeout: float | None
    timeout_behavior: TimeoutBehavior
    timeout_error_function: ToolErrorFunction | None
    needs_approval: bool | ApprovalPredicate
    tool_input_guardrails: list[ToolInputGuardrail[Any]] | None
    tool_output_guardrails: list[ToolOutputGuardrail[Any]] | None
    mcp_annotations: MCPAnnotations | None
    defer_loading: bool


def _make_tool(func: ToolFunction, options: _ToolOptions) -> FunctionTool:
    schema = deferred_function_schema(
        func,
        docstring_style=options.docstring_style,
        name_override=options.name_override,
        description_override=options.description_override,
        use_docstring_info=options.use_docstring_info,
        strict_json_schema=options.strict_mode,
    )
    tool = FunctionTool(
        name=schema.name,
        description=schema.description or "",
        params_json_schema={},  # read from the schema when first needed
        on_invoke_tool=Invoker(func, schema, options.failure_error_function),
        strict_json_schema=options.strict_mode,
        is_enabled=options.is_enabled,
        timeout_seconds=options.timeout,
        timeout_behavior=options.timeout_behavior,
        timeout_error_function=options.timeout_error_function,
        needs_approval=options.needs_approval,
        tool_input_guardrails=options.tool_input_guardrails,
        tool_output_guardrails=options.tool_output_guardrails,
        mcp_annotations=options.mcp_annotations,
        defer_loading=options.defer_loading,
        # Rebuilding from the function (not the schema) keeps `with_strict_mode` exact.
        _rebuild=lambda strict: _make_tool(func, replace(options, strict_mode=strict)),
    )
    defer(tool, "params_json_schema")
    # __post_init__ found the findings; a strict tool's bad name already failed.
    warn(tool.findings, func)
    return tool


def _complete_tool(tool: FunctionTool) -> None:
    """Give a decorated tool its schema, built on this first read (see `_deferred`)."""
    invoker = tool.on_invoke_tool
    if isinstance(invoker, Invoker):  # only decorated tools defer their schema
        vars(tool)["params_json_schema"] = invoker.schema.params_json_schema


deferred_fields(FunctionTool, _complete_tool, "params_json_schema")


def _check_mcp_annotations(name: str, annotations: Any) -> None:
    """Raise one `UserError` naming every annotation that MCP does not have, or mistypes."""
    if annotations is None:
        return
    if not isinstance(annotations, dict):
        raise UserError(
            f"FunctionTool '{name}': mcp_annotations={annotations!r} must be a dict such as "
            '{"readOnlyHint": True}, or None'
        )
    given = cast("dict[Any, Any]", annotations)
    problems: list[str] = []
    for key, value in given.items():
        if key == "title":
            if not isinstance(value, str):
                problems.append(f"'title' must be a str, not {type(value).__name__}")
        elif key in _MCP_HINTS:
            if not isinstance(value, bool):
                problems.append(f"{key!r} must be True or False, not {type(value).__name__}")
        else:
            problems.append(f"{key!r} is no MCP annotation; use {', '.join(_MCP_HINTS)} or title")
    if problems:
        raise UserError(f"FunctionTool '{name}': mcp_annotations: {'; '.join(problems)}")


def _check_timeout_settings(tool: FunctionTool) -> None:
    """Refuse a timeout the runner could not apply: a `TypeError` or `ValueError` saying why.

    Both are `UserError`s; their words (`timeout_behavior must be one of`, `must be callable`)
    are openai-agents' too, so code matching on them keeps working.
    """
    where = f"FunctionTool '{tool.name}'"
    seconds = cast(object, tool.timeout_seconds)  # as given, whatever its annotation says
    given = f"{where}: timeout_seconds={seconds!r} (the decorator's timeout)"
    if seconds is not None:
        if not isinstance(seconds, int | float) or isinstance(seconds, bool):
            raise UserError(
                f"{given} must be a positive number of seconds (an int or a float), "
                "or None for no limit"
            )
        if not math.isfinite(seconds):
            raise UserValueError(
                f"{given} must be a finite number of seconds greater than 0; use None for no limit"
            )
        if seconds <= 0:
            raise UserValueError(
                f"{given} must be a positive number of seconds (greater than 0), "
                "or None for no limit"
            )
    if tool.timeout_behavior not in ("error_as_result", "raise_exception"):
        raise UserValueError(
            f"{where}: timeout_behavior must be one of 'error_as_result' (tell the model) or "
            f"'raise_exception' (stop the run), not {tool.timeout_behavior!r}"
        )
    if tool.timeout_error_function is not None and not callable(tool.timeout_error_function):
        raise UserError(
            f"{where}: timeout_error_function must be callable (a function of the run context "
            "and the ToolTimeoutError that returns the model's text), or None for tooluse's "
            f"message; got {tool.timeout_error_function!r}"
        )
