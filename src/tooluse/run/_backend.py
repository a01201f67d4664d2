"""Where a run's model calls and function tool calls execute: here, or elsewhere.

A durable-execution integration (`tooluse.temporal`) sets a `RunBackend` for the
code it runs (a context variable, so only that code sees it): the loop then asks
the backend for the model to call and for each function tool to offer, and the
backend hands back stand-ins that run the call somewhere else (a Temporal
activity). Without one, both are the run's own.

A stand-in tool's `on_invoke_tool` is a `RemoteInvoker` (`tooluse.tools._calls`): it
reports the whole outcome of the call (text, rich parts, failure), as a decorated
tool's does.
Agents used as tools are never swapped: their nested run is the caller's code,
so its own model and tool calls go through the same backend.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..core._retry_settings import ModelRetrySettings
    from ..models import Model, ModelResponse
    from ..tools._function_tool import FunctionTool

__all__ = ["RunBackend", "run_backend"]


class RunBackend(Protocol):
    """Replaces a run's model and function tools with ones that call out."""

    @property
    def retries_model_calls(self) -> bool:
        """Whether the backend retries failed model calls itself.

        The run then makes one attempt per call: no `RetryPolicy` delays, jitter or clock
        reads in the loop.
        """
        ...

    def model(self, model: str | Model | None) -> Model:
        """The model to call for what the agent or run config names."""
        ...

    def model_with_retry(self, model: Model, retry: ModelRetrySettings, agent_name: str) -> Model:
        """`model` (as `model()` gave it), its calls retried as the agent's settings say.

        Asked only of a backend that retries model calls itself, for an agent whose
        resolved `ModelSettings.retry` is set: the backend honours the settings in its
        own terms, or refuses them before the call.

        Raises:
            UserError: If the backend cannot honour a field, naming the agent and the field.
        """
        ...

    def function_tool(self, tool: FunctionTool) -> FunctionTool:
        """The tool to offer and invoke in place of `tool`."""
        ...

    def duration(self, response: ModelResponse) -> float:
        """Seconds the call that gave `response` took, measured where it ran."""
        ...


run_backend: ContextVar[RunBackend | None] = ContextVar("tooluse_run_backend", default=None)
"""The backend of the code running now; None runs everything in the run itself."""
