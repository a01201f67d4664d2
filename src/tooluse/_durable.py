"""Where a run's model calls and function tool calls execute: here, or elsewhere.

A durable-execution integration (`tooluse.temporal`) sets a `RunBackend` for the
code it runs (a context variable, so only that code sees it): the loop then asks
the backend for the model to call and for each function tool to offer, and the
backend hands back stand-ins that run the call somewhere else (a Temporal
activity). Without one, both are the run's own.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ._function_tool import FunctionTool
    from .models import Model

__all__ = ["RunBackend", "run_backend"]


class RunBackend(Protocol):
    """Replaces a run's model and function tools with ones that call out."""

    def model(self, model: str | Model | None) -> Model:
        """The model to call for what the agent or run config names."""
        ...

    def function_tool(self, tool: FunctionTool) -> FunctionTool:
        """The tool to offer and invoke in place of `tool`."""
        ...


run_backend: ContextVar[RunBackend | None] = ContextVar("tooluse_run_backend", default=None)
"""The backend of the code running now; None runs everything in the run itself."""
