"""OpenTelemetry spans for a run (skeleton: the spans are filled in with their tests).

The loop calls a `RunTracer` at each step when `run_tracer` gives one; with no
tracer provider configured it gives None, and the loop skips every call.
"""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._context import RunContextWrapper
    from ._run_config import RunConfig
    from .models import Model, ModelRequest, ModelResponse

__all__ = ["RunTracer", "SpanScope", "run_tracer"]


def run_tracer(config: RunConfig) -> RunTracer | None:
    """The tracer for a run, or None when nothing would record its spans.

    Args:
        config: The run's settings.

    Returns:
        The tracer, or None.
    """
    del config
    return None


class SpanScope:
    """A span that is current while its `with` block runs (a tool call, a guardrail)."""

    def __enter__(self) -> SpanScope:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """End the span, recording `error` if the block raised."""

    def set_result(self, output: str, failed: bool) -> None:
        """Record a tool call's outcome: the text the model gets, and whether it failed."""

    def set_triggered(self, triggered: bool) -> None:
        """Record whether a guardrail tripped."""


class RunTracer:
    """Records one run's spans."""

    def run_start(self, agent: Any) -> None:
        """The run starts with `agent` (the run's span opens, under the current span)."""

    def run_end(self, error: BaseException | None) -> None:
        """The run ended, with `error` if it raised (every open span closes)."""

    def agent_start(self, agent: Any) -> None:
        """`agent` takes over (its `invoke_agent` span opens; the previous one closes)."""

    def handoff(self, from_agent: Any, to_agent: Any) -> None:
        """The conversation passes from one agent to another."""

    def llm_start(self, agent: Any, model: Model, request: ModelRequest) -> None:
        """A model call (one attempt) starts."""

    def llm_end(self, response: ModelResponse) -> None:
        """The model call's response arrived."""

    def llm_error(self, error: BaseException, retry_in: float | None) -> None:
        """The model call failed; `retry_in` seconds until it is tried again, or None."""

    def tool_call(self, context: RunContextWrapper[Any], agent: Any, tool: Any) -> SpanScope:
        """A local tool call's span, current inside its block (a nested run nests in it)."""
        del context, agent, tool
        return SpanScope()

    def guardrail(self, kind: str, name: str, agent: Any) -> SpanScope:
        """A guardrail's span (`kind`: input, output, tool_input, tool_output)."""
        del kind, name, agent
        return SpanScope()
