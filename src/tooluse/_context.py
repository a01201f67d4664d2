"""The run context handed to tools: `RunContextWrapper`, `ToolContext` and `Usage`."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic

from typing_extensions import TypeVar

if TYPE_CHECKING:
    from ._run_config import RunConfig

__all__ = ["RunContextWrapper", "ToolContext", "Usage"]

TContext = TypeVar("TContext", default=object)
_MAKING_EVENTS = threading.Lock()


@dataclass
class Usage:
    """Tokens and requests used by a run so far."""

    requests: int = 0
    """Number of model requests made."""
    input_tokens: int = 0
    """Tokens sent to the model."""
    output_tokens: int = 0
    """Tokens the model produced."""
    total_tokens: int = 0
    """Input and output tokens together."""

    def add(self, other: Usage) -> None:
        """Add another usage record to this one, in place.

        Args:
            other: The usage to add.
        """
        self.requests += other.requests
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.total_tokens += other.total_tokens


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
    agent: Any = None
    """The agent whose tool this is, when the runner makes the call."""
    run_config: RunConfig | None = None
    """The run's settings, when the runner makes the call (a nested run can pass them on)."""
    # Made on first use: an Event costs more than the rest of the context, and most calls
    # never look at it. The runner makes it before a call with a timeout starts.
    _cancelled: threading.Event | None = field(default=None, init=False, repr=False)

    @classmethod
    def for_testing(
        cls,
        context: Any = None,
        *,
        tool_name: str = "tool",
        tool_call_id: str = "call_test",
        tool_arguments: str = "{}",
        agent: Any = None,
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
