"""The run context handed to tools: `RunContextWrapper`, `ToolContext` and `Usage`."""

from __future__ import annotations

import threading
from collections.abc import Generator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Protocol

from typing_extensions import TypeVar

from ._agent_base import AgentBase
from ._factories import new_list

__all__ = [
    "AgentHookContext",
    "InputTokensDetails",
    "ModelCallWatcher",
    "OutputTokensDetails",
    "RequestUsage",
    "RunContextWrapper",
    "ToolContext",
    "Usage",
    "input_details",
    "made_by_run",
    "output_details",
    "run_of",
    "watched_by",
    "watcher_of",
]

TContext = TypeVar("TContext", default=object)
_MAKING_EVENTS = threading.Lock()


@dataclass(frozen=True)
class InputTokensDetails:
    """What the input tokens of a call (or a run) were made of.

    Frozen, so that every usage record with nothing cached shares one (a run keeps
    several records alive, and each object costs the cyclic collector at every pass).
    """

    cached_tokens: int = 0
    """Input tokens read from the provider's prompt cache (billed at a lower rate)."""
    cache_write_tokens: int = 0
    """Input tokens written to the provider's prompt cache (Anthropic bills them at a
    higher rate; providers that cache by themselves report none)."""


@dataclass(frozen=True)
class OutputTokensDetails:
    """What the output tokens of a call (or a run) were made of (frozen, as the input's)."""

    reasoning_tokens: int = 0
    """Output tokens a reasoning model spent thinking (billed, never shown)."""


_NO_INPUT_DETAILS = InputTokensDetails()
_NO_OUTPUT_DETAILS = OutputTokensDetails()


def input_details(cached: int, written: int = 0) -> InputTokensDetails:
    """A call's `InputTokensDetails`: the shared zero when nothing was cached.

    Args:
        cached: Input tokens read from the prompt cache.
        written: Input tokens written to it.

    Returns:
        The details.
    """
    return InputTokensDetails(cached, written) if cached or written else _NO_INPUT_DETAILS


def output_details(reasoning: int) -> OutputTokensDetails:
    """A call's `OutputTokensDetails`: the shared zero when nothing was spent reasoning.

    Args:
        reasoning: Output tokens spent reasoning.

    Returns:
        The details.
    """
    return OutputTokensDetails(reasoning) if reasoning else _NO_OUTPUT_DETAILS


@dataclass
class RequestUsage:
    """What one model call used: one entry of `Usage.request_usage_entries`."""

    input_tokens: int = 0
    """Tokens sent."""
    output_tokens: int = 0
    """Tokens produced."""
    total_tokens: int = 0
    """Both together."""
    input_tokens_details: InputTokensDetails = _NO_INPUT_DETAILS
    """Cached input tokens."""
    output_tokens_details: OutputTokensDetails = _NO_OUTPUT_DETAILS
    """Reasoning tokens."""
    model: str | None = None
    """The model called, as the agent (or the run's settings) named it."""
    agent_name: str | None = None
    """The agent that made the call."""
    duration_seconds: float = 0.0
    """From sending the request to having the whole response (streamed or not)."""
    compaction: bool = False
    """Whether the call summarised the conversation for the run's `ContextPolicy` rather
    than answering."""


@dataclass
class Usage:
    """Tokens, requests and tool calls used by a run so far.

    The totals cover every agent of the run and every nested run (an agent used
    as a tool adds its run's usage to its caller's); `request_usage_entries`
    keeps one entry per model call, in order, to bill or profile each.
    """

    requests: int = 0
    """Number of model requests made."""
    input_tokens: int = 0
    """Tokens sent to the model."""
    output_tokens: int = 0
    """Tokens the model produced."""
    total_tokens: int = 0
    """Input and output tokens together."""
    input_tokens_details: InputTokensDetails = _NO_INPUT_DETAILS
    """Of the input tokens: those read from the prompt cache."""
    output_tokens_details: OutputTokensDetails = _NO_OUTPUT_DETAILS
    """Of the output tokens: those spent reasoning."""
    tool_calls: int = 0
    """Function tool calls run (`UsageLimits.tool_calls_limit` counts these)."""
    request_usage_entries: list[RequestUsage] = field(default_factory=new_list)
    """One entry per model call: its model, agent, tokens and duration."""

    @property
    def cached_input_tokens(self) -> int:
        """Input tokens read from the prompt cache (`input_tokens_details.cached_tokens`)."""
        return self.input_tokens_details.cached_tokens

    @property
    def reasoning_tokens(self) -> int:
        """Output tokens spent reasoning (`output_tokens_details.reasoning_tokens`)."""
        return self.output_tokens_details.reasoning_tokens

    def add(self, other: Usage) -> None:
        """Add another usage record to this one, in place (its entries are appended).

        Args:
            other: The usage to add.
        """
        self.requests += other.requests
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.total_tokens += other.total_tokens
        mine, theirs = self.input_tokens_details, other.input_tokens_details
        if theirs != _NO_INPUT_DETAILS:
            self.input_tokens_details = InputTokensDetails(
                mine.cached_tokens + theirs.cached_tokens,
                mine.cache_write_tokens + theirs.cache_write_tokens,
            )
        reasoning = other.output_tokens_details.reasoning_tokens
        if reasoning:
            self.output_tokens_details = OutputTokensDetails(
                self.output_tokens_details.reasoning_tokens + reasoning
            )
        self.tool_calls += other.tool_calls
        self.request_usage_entries.extend(other.request_usage_entries)

    def request_entry(
        self, *, model: str | None, agent_name: str | None, duration_seconds: float
    ) -> RequestUsage:
        """This usage, as one model call's entry.

        Args:
            model: The model called.
            agent_name: The agent that called it.
            duration_seconds: How long the call took.

        Returns:
            The entry (its details are frozen: adding to this usage later leaves it alone).
        """
        return RequestUsage(
            self.input_tokens,
            self.output_tokens,
            self.total_tokens,
            self.input_tokens_details,
            self.output_tokens_details,
            model,
            agent_name,
            duration_seconds,
        )


@dataclass(eq=False)
class RunContextWrapper(Generic[TContext]):
    """Wraps the context object passed to a run, for tools and hooks.

    The context is yours: tooluse never sends it to the model. Annotate a tool
    parameter with `RunContextWrapper[YourType]` (in any position) to receive
    it; that parameter never appears in the tool's schema.
    """

    context: TContext
    """The object passed as `context=` to the run (or None)."""
    usage: Usage = field(default_factory=Usage)
    """What the run has used so far."""
    # Set on a run's context only while something outside the run's turns calls a model
    # for it (`watched_by`): a class default, so that no context pays for it otherwise.
    _watcher: ClassVar[ModelCallWatcher | None] = None


@dataclass(eq=False, kw_only=True)
class ToolContext(RunContextWrapper[TContext]):
    """The run context of one tool call, with the call's identity.

    Example:
        `ToolContext(context=None, tool_name="add", tool_call_id="call_1",
        tool_arguments='{"a": 1}')`
    """

    tool_name: str
    """The name of the tool being called."""
    tool_call_id: str
    """The id the model gave this call."""
    tool_arguments: str
    """The raw JSON arguments the model sent."""
    error: Exception | None = field(default=None, init=False)
    """What made the call fail, once `on_invoke_tool` turned it into text for the model."""
    agent: AgentBase | None = None
    """The agent whose tool this is, when the runner makes the call."""
    run_config: Any = None
    """The run's `RunConfig`, when the runner makes the call (a nested run passes it on).
    Typed `Any` here: `RunConfig` is defined in the run loop's layer, above this one."""
    # Made on first use: an Event costs more than the rest of the context, and most calls
    # never look at it. The runner makes it before a call with a timeout starts.
    _cancelled: threading.Event | None = field(default=None, init=False, repr=False)
    # The run whose steps made the call (`made_by_run`): how an agent tool's nested run
    # reaches its caller's turn. Typed `Any`: the run loop's layer is above this one.
    _run: Any = field(default=None, init=False, repr=False)

    @classmethod
    def for_testing(
        cls,
        context: Any = None,
        *,
        tool_name: str = "tool",
        tool_call_id: str = "call_test",
        tool_arguments: str = "{}",
        agent: AgentBase | None = None,
    ) -> ToolContext[Any]:
        """A context for calling `tool.on_invoke_tool(ctx, arguments)` directly, as a test does.

        Args:
            context: Your context object, as `Runner.run(context=...)` would pass it.
            tool_name: The tool's name (error messages use it: pass `tool.name`).
            tool_call_id: The call's id.
            tool_arguments: The raw arguments, for tools that read them from the context.
            agent: The agent whose tool it is, for tools that read it.

        Returns:
            The context, with empty usage.
        """
        return cls(
            context=context,
            tool_name=tool_name,
            tool_call_id=tool_call_id,
            tool_arguments=tool_arguments,
            agent=agent,
        )

    @property
    def cancelled(self) -> threading.Event:
        """Set when the call has timed out, or the run was cancelled while it ran.

        An async tool is cancelled, but a sync tool's thread cannot be stopped: check
        `ctx.cancelled.is_set()` in long loops and return.
        """
        event = self._cancelled
        if event is None:
            with _MAKING_EVENTS:  # the tool's thread and the loop may both ask first
                if self._cancelled is None:
                    self._cancelled = threading.Event()
                event = self._cancelled
        return event

    def cancel(self) -> None:
        """Tell the tool to stop: set `cancelled` (the runner does, at a timeout or a cancel)."""
        self.cancelled.set()

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Tell whoever called the tool how far it has got; in a run, nobody is told.

        Served over MCP (`tooluse.mcp.tool_server`), each report reaches the client as a
        progress notification when its request asked for them; in a run it does nothing
        and costs an await. Await it from an async tool; a sync tool calls
        `report_progress_sync` instead.

        Args:
            progress: How much is done; it should grow with each report.
            total: How much there is to do, if known.
            message: What is being done, for a person to read.
        """
        del progress, total, message

    def report_progress_sync(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """`report_progress` for a sync tool, which runs in a worker thread and cannot await.

        Served over MCP, the report is handed to the server's event loop and this returns
        once it is sent, so reports arrive in order; in a run it does nothing. Called from
        the event loop itself (an async tool), it schedules the report and returns at once.

        Args:
            progress: How much is done; it should grow with each report.
            total: How much there is to do, if known.
            message: What is being done, for a person to read.
        """
        del progress, total, message


@dataclass(eq=False, kw_only=True)
class AgentHookContext(RunContextWrapper[TContext]):
    """The run context an agent's start hooks get (`on_agent_start`, `on_start`).

    The same `context` and `usage` as the run's, with the input the agent starts from.
    """

    turn_input: list[Mapping[str, Any]] = field(default_factory=new_list)
    """The conversation the agent is given: the run's input, then what came before it."""


def made_by_run(ctx: ToolContext[Any], run: object) -> ToolContext[Any]:
    """Mark a call's context as made by a run's steps (the run loop's own use).

    Args:
        ctx: The context.
        run: What the run's steps keep (the run loop's `RunRecord`).

    Returns:
        `ctx`.
    """
    ctx._run = run  # pyright: ignore[reportPrivateUsage] - the field's own accessor
    return ctx


def run_of(ctx: ToolContext[Any]) -> Any:
    """What the run whose steps made `ctx` keeps (`made_by_run`).

    Args:
        ctx: A call's context.

    Returns:
        The run loop's `RunRecord`; None for a context made elsewhere (a test's, a served
        tool's, or one a tool made itself).
    """
    return ctx._run  # pyright: ignore[reportPrivateUsage] - the field's own accessor


class ModelCallWatcher(Protocol):
    """What records a model call made for a run outside its turns (a session's compaction).

    The run loop's: a span in the run's trace and a usage event in its stream.
    """

    def started(self, model: Any, request: Any) -> None:
        """The call to `model` (a `Model`) with `request` (a `ModelRequest`) starts."""
        ...

    def failed(self, error: BaseException) -> None:
        """The call raised `error`."""
        ...

    def ended(self, response: Any, entry: RequestUsage, usage: Usage) -> None:
        """The call answered `response`, using `entry`; the run has used `usage`."""
        ...


@contextmanager
def watched_by(wrapper: RunContextWrapper[Any], watcher: ModelCallWatcher) -> Generator[None]:
    """Let `watcher` record the model calls made for the run of `wrapper` while entered.

    Args:
        wrapper: The run's context.
        watcher: What records the calls (the run loop's).

    Yields:
        Nothing.
    """
    own = vars(wrapper)  # the instance's own: a class default stands for "none"
    previous = own.get("_watcher")
    own["_watcher"] = watcher
    try:
        yield
    finally:
        if previous is None:
            own.pop("_watcher", None)
        else:
            own["_watcher"] = previous


def watcher_of(wrapper: RunContextWrapper[Any] | None) -> ModelCallWatcher | None:
    """What records a model call made for the run of `wrapper` now (`watched_by`), if any.

    Args:
        wrapper: The run's context, or None (no run).

    Returns:
        The watcher, or None.
    """
    return None if wrapper is None else wrapper._watcher  # pyright: ignore[reportPrivateUsage]
