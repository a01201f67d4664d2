"""`codex_tool`: a function tool whose every call runs one turn of the Codex CLI.

The model sends the task as `inputs` (text, and local images) and, unless the thread id
is kept in the run's context, the `thread_id` of a thread to continue. The call starts
or resumes a Codex thread, hands each event to `on_stream`, and returns the thread id,
the final response and the usage (`str(CodexToolResult)`: JSON, spaced as openai-agents
writes it, so that the model reads the same text).

What can go wrong, and who hears of it:

- bad arguments: the model, told what to correct (never the values sent);
- the CLI missing, failing, going idle, or its turn failing: the model gets a value-free
  text (openai-agents' own words, so that a ported program's model reads the same); the
  developer gets a WARNING log naming the tool and the error's type (the CLI's words only
  with `RunConfig(log_tool_errors=True)`; tooluse's own advice on installing the CLI
  always), and the error itself with `failure_error_function=None`;
- a context that cannot keep the thread id (`use_run_context_thread_id=True`), or an
  option tooluse does not build: a `UserError`, raised.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ....core._context import InputTokensDetails, RunContextWrapper, ToolContext
from ....core._context import Usage as RunUsage
from ....exceptions import ModelRetry, ToolArgumentsError, UserError
from ....schema._argument_errors import arguments_error
from ....tools._errors import default_tool_error_function
from ....tools._function_tool import EnabledPredicate, FunctionTool
from ....tools._invocation import ToolErrorFunction
from ._events import ItemCompletedEvent, ThreadEvent, ThreadItem, TurnCompletedEvent, Usage
from ._exec import CodexNotFoundError
from ._options import CodexOptions, SandboxMode, ThreadOptions, TurnOptions, options_of
from ._run_context import (
    check_writable,
    context_key,
    one_call_at_a_time,
    read_thread_id,
    store_thread_id,
)
from ._thread import Codex, Thread, UserInput, check_event, final_response

__all__ = [
    "FAILED_CALL_TEXT",
    "CodexToolCall",
    "CodexToolOptions",
    "CodexToolResult",
    "CodexToolStreamEvent",
    "codex_failure_text",
    "codex_tool",
]

logger = logging.getLogger("tooluse")

FAILED_CALL_TEXT = "An error occurred while running the tool. Please try again."
"""What the model is told when a Codex call fails (openai-agents' words for it)."""

_UNBUILT = {
    "parameters": "the tool takes `inputs` (and `thread_id`); for other parameters, write a "
    "function tool that runs `Codex().start_thread().run(...)`",
    "output_schema": "ask for JSON in the task's text, and parse the tool's `response`",
    "span_data_max_chars": "tooluse records no span per Codex command (the tool call has its "
    "span): leave it out",
    "persist_session": "keep the thread id in the run's context "
    "(use_run_context_thread_id=True), or let the model pass `thread_id`",
}
"""openai-agents' options of `codex_tool` that tooluse does not build, and what to do."""


class CodexInputItem(BaseModel):
    """One part of the task: text, or a local image."""

    model_config = ConfigDict(extra="forbid")
    type: Literal["text", "local_image"] = Field(
        description="`text` for instructions, `local_image` to attach an image file."
    )
    text: str | None = Field(default=None, description="The instructions (a `text` input).")
    path: str | None = Field(
        default=None, description="The image file's path (a `local_image` input)."
    )


class CodexToolParameters(BaseModel):
    """The codex tool's arguments."""

    model_config = ConfigDict(extra="forbid")
    inputs: list[CodexInputItem] = Field(
        min_length=1, description="The task for Codex: at least one input."
    )
    thread_id: str | None = Field(
        default=None,
        description="The thread_id of an earlier Codex result, to continue that thread; "
        "null for a new thread.",
    )


class CodexToolRunContextParameters(BaseModel):
    """The codex tool's arguments when the thread id is kept in the run's context."""

    model_config = ConfigDict(extra="forbid")
    inputs: list[CodexInputItem] = Field(
        min_length=1, description="The task for Codex: at least one input."
    )


@dataclass(frozen=True)
class CodexToolCall:
    """The model's call of the codex tool, with the attributes of the API's `function_call`."""

    call_id: str
    """The call's id."""
    name: str
    """The tool's name."""
    arguments: str
    """The call's JSON arguments, as the model sent them."""
    type: Literal["function_call"] = field(default="function_call", init=False)


@dataclass(frozen=True)
class CodexToolStreamEvent:
    """What `on_stream` receives: one event of the Codex turn a tool call runs."""

    event: ThreadEvent
    """The CLI's event, typed."""
    thread: Thread
    """The thread the turn runs in (its `id` is known once `thread.started` came)."""
    tool_call: CodexToolCall
    """The model's call of the tool."""


@dataclass(frozen=True)
class CodexToolResult:
    """What a codex tool call comes to; the model reads it as JSON (`str(result)`)."""

    thread_id: str | None
    """The Codex thread, to continue it (`codex resume <thread_id>`)."""
    response: str
    """Codex's final message."""
    usage: Usage | None
    """The tokens Codex used, when the CLI says."""

    def as_dict(self) -> dict[str, Any]:
        """The result as a dict of JSON values.

        Returns:
            `thread_id`, `response` and `usage` (a dict, or None).
        """
        return dataclasses.asdict(self)

    def __str__(self) -> str:
        """The result as the model reads it: JSON, spaced as openai-agents writes it."""
        return json.dumps(self.as_dict())


StreamHandler = Callable[[CodexToolStreamEvent], "Awaitable[None] | None"]
"""A function given each event of a call's Codex turn, sync or async."""


def codex_failure_text(ctx: RunContextWrapper[Any], error: Exception) -> str:
    """The codex tool's default `failure_error_function`: what the model is told.

    Args:
        ctx: The call's context.
        error: Why the call failed.

    Returns:
        For bad arguments or a `ModelRetry`, tooluse's usual text (what to correct); for
        anything else, `FAILED_CALL_TEXT`, which holds nothing of the error.
    """
    if isinstance(error, ToolArgumentsError | ModelRetry):
        return default_tool_error_function(ctx, error)
    return FAILED_CALL_TEXT


@dataclass(frozen=True)
class CodexToolOptions:
    """The codex tool's options, as `codex_tool`'s keyword arguments (or a dict) give them."""

    name: str = "codex"
    """The tool's name."""
    description: str = "Runs a Codex task (the Codex CLI, an agent) in the local workspace."
    """What the model is told the tool does."""
    codex: Codex | None = None
    """The Codex CLI to run; by default one made from `codex_options`."""
    codex_options: CodexOptions | Mapping[str, Any] | None = None
    """Which executable, with which environment."""
    default_thread_options: ThreadOptions | Mapping[str, Any] | None = None
    """How Codex works on each thread."""
    thread_id: str | None = None
    """A thread to continue when the call names none (nor the run's context)."""
    sandbox_mode: SandboxMode | None = None
    """Over `default_thread_options.sandbox_mode`."""
    working_directory: str | None = None
    """Over `default_thread_options.working_directory`."""
    skip_git_repo_check: bool | None = None
    """Over `default_thread_options.skip_git_repo_check`."""
    default_turn_options: TurnOptions | Mapping[str, Any] | None = None
    """Each turn's idle timeout and abort signal."""
    on_stream: StreamHandler | None = None
    """Called with each event of the turn, in order, as the CLI writes it; what it raises
    is logged, and the turn goes on."""
    is_enabled: bool | EnabledPredicate = True
    """Whether the tool is offered."""
    failure_error_function: ToolErrorFunction | None = codex_failure_text
    """What the model is told when a call fails; None raises the error out of the run."""
    use_run_context_thread_id: bool = False
    """Keep the thread id in the run's context (and not in the tool's parameters)."""
    run_context_thread_id_key: str | None = None
    """The context's key for it; by default from the tool's name (`codex_thread_id`)."""


class _Unset:
    pass


_UNSET: Any = _Unset()


def codex_tool(
    options: CodexToolOptions | Mapping[str, Any] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    codex: Codex | None = None,
    codex_options: CodexOptions | Mapping[str, Any] | None = None,
    default_thread_options: ThreadOptions | Mapping[str, Any] | None = None,
    thread_id: str | None = None,
    sandbox_mode: SandboxMode | None = None,
    working_directory: str | None = None,
    skip_git_repo_check: bool | None = None,
    default_turn_options: TurnOptions | Mapping[str, Any] | None = None,
    on_stream: StreamHandler | None = None,
    is_enabled: bool | EnabledPredicate | None = None,
    failure_error_function: ToolErrorFunction | None = _UNSET,
    use_run_context_thread_id: bool | None = None,
    run_context_thread_id_key: str | None = None,
    **unsupported: object,
) -> FunctionTool:
    """A function tool that runs a Codex task with the Codex CLI (`codex exec`).

    Options come as keyword arguments, or as a `CodexToolOptions` or a dict of its fields
    (keyword arguments win). Nothing starts, and the executable is not looked for, until
    the model calls the tool.

    Args:
        options: The options as one value.
        name: The tool's name (`codex`).
        description: What the model is told the tool does.
        codex: The Codex CLI to run (`Codex(CodexOptions(...))`).
        codex_options: Which executable (`codex_path_override`; else `CODEX_PATH`, else
            `codex` on PATH), with which environment.
        default_thread_options: How Codex works on each thread (`ThreadOptions`).
        thread_id: A thread to continue when neither the call nor the context names one.
        sandbox_mode: What Codex's commands may touch (over the thread options).
        working_directory: The workspace (over the thread options).
        skip_git_repo_check: Let Codex work outside a Git repository.
        default_turn_options: Each turn's idle timeout and abort signal (`TurnOptions`).
        on_stream: Called with each `CodexToolStreamEvent` of a call's turn.
        is_enabled: Whether the tool is offered: a bool, or a function of the run context
            and the agent.
        failure_error_function: What the model is told when a call fails (a value-free
            text by default); None raises the error out of the run instead.
        use_run_context_thread_id: Keep the thread id in the run's context, so that the
            next run with the same context continues the thread.
        run_context_thread_id_key: The context's key for it.
        **unsupported: openai-agents' options tooluse does not build (`output_schema`,
            `parameters`, `persist_session`, `span_data_max_chars`): refused, with what to
            do instead.

    Returns:
        The tool.

    Raises:
        UserError: An option tooluse does not build or know, or a value it cannot use.
    """
    _refuse_unbuilt(options, unsupported)
    given = {
        "name": name, "description": description, "codex": codex,
        "codex_options": codex_options, "default_thread_options": default_thread_options,
        "thread_id": thread_id, "sandbox_mode": sandbox_mode,
        "working_directory": working_directory, "skip_git_repo_check": skip_git_repo_check,
        "default_turn_options": default_turn_options, "on_stream": on_stream,
        "is_enabled": is_enabled, "use_run_context_thread_id": use_run_context_thread_id,
        "run_context_thread_id_key": run_context_thread_id_key,
    }  # fmt: skip
    resolved = options_of(CodexToolOptions, options, "codex_tool(options=...)")
    resolved = dataclasses.replace(
        resolved or CodexToolOptions(), **{k: v for k, v in given.items() if v is not None}
    )
    if failure_error_function is not _UNSET:
        resolved = dataclasses.replace(resolved, failure_error_function=failure_error_function)
    call = _CodexCall(resolved)
    return FunctionTool(
        name=resolved.name,
        description=resolved.description,
        params_json_schema=call.parameters.model_json_schema(),
        on_invoke_tool=call,
        strict_json_schema=True,
        is_enabled=resolved.is_enabled,
    )


def _refuse_unbuilt(
    options: CodexToolOptions | Mapping[str, Any] | None, unsupported: Mapping[str, object]
) -> None:
    given = [*unsupported, *(options if isinstance(options, Mapping) else ())]
    problems = [f"{key}: {_UNBUILT[key]}" for key in given if key in _UNBUILT]
    unknown = [key for key in unsupported if key not in _UNBUILT]
    if unknown:
        known = [f.name for f in dataclasses.fields(CodexToolOptions)]
        problems.append(f"no option {', '.join(unknown)}; the options are {', '.join(known)}")
    if problems:
        raise UserError("codex_tool(...): not built in tooluse: " + "; ".join(problems))


class _CodexCall:
    """The tool's `on_invoke_tool`: one Codex turn per call."""

    def __init__(self, options: CodexToolOptions) -> None:
        self.name = options.name
        self.options = options
        self.codex = options.codex or Codex(
            options_of(CodexOptions, options.codex_options, "codex_tool(codex_options=...)")
        )
        self.thread_options = _thread_options(options)
        turn = options_of(
            TurnOptions, options.default_turn_options, "codex_tool(default_turn_options=...)"
        )
        self.turn_options = turn or TurnOptions()
        key = context_key(options.name, options.run_context_thread_id_key)  # checked anyway
        self.key = key if options.use_run_context_thread_id else None
        self.parameters: type[CodexToolParameters | CodexToolRunContextParameters]
        self.parameters = CodexToolParameters
        if options.use_run_context_thread_id:
            self.parameters = CodexToolRunContextParameters

    async def __call__(self, ctx: ToolContext[Any], arguments: str) -> str:
        try:
            return str(await self._run(ctx, arguments))
        except Exception as error:
            if isinstance(error, UserError) and not isinstance(error, CodexNotFoundError):
                raise  # the developer's to fix in the code, as with any tool
            return await self._failed(ctx, error)

    async def _run(self, ctx: ToolContext[Any], arguments: str) -> CodexToolResult:
        inputs, named = self._arguments(arguments)
        if self.key is None:
            return await self._run_on(ctx, inputs, named)
        check_writable(ctx.context, self.key, self.name)
        async with one_call_at_a_time((id(ctx.context), self.key)):  # read, run, store the id
            named = named or read_thread_id(ctx.context, self.key, self.name)
            return await self._run_on(ctx, inputs, named)

    async def _run_on(
        self, ctx: ToolContext[Any], inputs: list[UserInput], named: str | None
    ) -> CodexToolResult:
        thread_id = named or (self.options.thread_id or "").strip()
        if not thread_id:
            return await self._run_thread(ctx, inputs, self.codex.start_thread(self.thread_options))
        async with one_call_at_a_time(thread_id):  # however the calls name it
            thread = self.codex.resume_thread(thread_id, self.thread_options)
            return await self._run_thread(ctx, inputs, thread)

    async def _run_thread(
        self, ctx: ToolContext[Any], inputs: list[UserInput], thread: Thread
    ) -> CodexToolResult:
        started = time.monotonic()
        try:
            items, usage = await self._turn(ctx, thread, inputs)
        finally:  # a failed turn's thread still holds what it did: keep its id
            if self.key is not None and thread.id is not None:
                store_thread_id(ctx.context, self.key, thread.id, self.name)
        if usage is not None:
            ctx.usage.add(self._spent(usage, time.monotonic() - started))
        response = final_response(items) or "Codex completed the task without a message."
        return CodexToolResult(thread.id, response, usage)

    def _arguments(self, arguments: str) -> tuple[list[UserInput], str | None]:
        try:
            parsed = self.parameters.model_validate_json(arguments or "{}")
        except ValidationError as error:
            raise arguments_error(self.name, error) from None
        inputs: list[UserInput] = []
        problems: list[str] = []
        for i, item in enumerate(parsed.inputs):
            # Strict mode makes the model send both fields: the other kind's is ignored.
            value = (item.text if item.type == "text" else item.path) or ""
            field = "text" if item.type == "text" else "path"
            if not value.strip():
                problems.append(f"inputs[{i}]: a `{item.type}` input needs a non-empty `{field}`")
            elif item.type == "text":
                inputs.append({"type": "text", "text": value.strip()})
            else:
                inputs.append({"type": "local_image", "path": value.strip()})
        if problems:
            raise ToolArgumentsError(self.name, problems)
        named = parsed.thread_id if isinstance(parsed, CodexToolParameters) else None
        return inputs, (named or "").strip() or None

    async def _turn(
        self, ctx: ToolContext[Any], thread: Thread, inputs: list[UserInput]
    ) -> tuple[list[ThreadItem], Usage | None]:
        items: list[ThreadItem] = []
        usage: Usage | None = None
        call = CodexToolCall(ctx.tool_call_id, ctx.tool_name, ctx.tool_arguments)
        events = thread.run_streamed(inputs, self.turn_options)
        async with contextlib.aclosing(events):  # a failed turn stops the CLI at once
            async for event in events:
                await self._emit(CodexToolStreamEvent(event, thread, call))
                check_event(event)
                if isinstance(event, ItemCompletedEvent):
                    items.append(event.item)
                elif isinstance(event, TurnCompletedEvent):
                    usage = event.usage
        return items, usage

    def _spent(self, usage: Usage, seconds: float) -> RunUsage:
        """Codex's turn as one model request of the run (as a nested agent run's are)."""
        spent = RunUsage(
            requests=1,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            total_tokens=usage.input_tokens + usage.output_tokens,
            input_tokens_details=InputTokensDetails(cached_tokens=usage.cached_input_tokens),
        )
        entry = spent.request_entry(
            model=self.thread_options.model, agent_name=self.name, duration_seconds=seconds
        )
        spent.request_usage_entries.append(entry)
        return spent

    async def _emit(self, payload: CodexToolStreamEvent) -> None:
        handler = self.options.on_stream
        if handler is None:
            return
        try:
            returned = handler(payload)
            if inspect.isawaitable(returned):
                await returned
        except Exception:
            logger.warning(
                "codex tool %r: on_stream raised; the turn goes on", self.name, exc_info=True
            )

    async def _failed(self, ctx: ToolContext[Any], error: Exception) -> str:
        ctx.error = error  # the run counts the call as failed
        _log_failure(ctx, self.name, error)
        on_failure = self.options.failure_error_function
        if on_failure is None:
            raise error
        text = on_failure(ctx, error)
        return await text if inspect.isawaitable(text) else text


def _thread_options(options: CodexToolOptions) -> ThreadOptions:
    where = "codex_tool(default_thread_options=...)"
    base = options_of(ThreadOptions, options.default_thread_options, where) or ThreadOptions()
    overrides = {
        "sandbox_mode": options.sandbox_mode,
        "working_directory": options.working_directory,
        "skip_git_repo_check": options.skip_git_repo_check,
    }
    return dataclasses.replace(base, **{k: v for k, v in overrides.items() if v is not None})


def _log_failure(ctx: ToolContext[Any], tool: str, error: Exception) -> None:
    """Tell the developer: tooluse's own advice always, the CLI's words only when asked."""
    if isinstance(error, ToolArgumentsError | ModelRetry):
        return  # meant for the model
    if isinstance(error, CodexNotFoundError):
        logger.warning("codex tool %r: %s", tool, error)
    elif getattr(ctx.run_config, "log_tool_errors", False):
        logger.warning("codex tool %r failed", tool, exc_info=error)
    else:
        logger.warning(
            "codex tool %r failed: %s (its message is not logged, as it may hold tool data: "
            "RunConfig(log_tool_errors=True) logs it)",
            tool,
            type(error).__name__,
        )
