"""A wrapper around every model a run calls, for the code running now (a test harness).

The pytest plugin of `tooluse.testing` sets `model_wrapper` for a test, so that every
model its runs call (named, given as an object, a handoff target's, an agent tool's
nested run's) records into or replays from the test's cassette, with no change to the
agents. A context variable, like `run_backend`: only the code it is set for sees it.
Under a `RunBackend` (a Temporal workflow) the wrapper is the model activity's to apply.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..models import Model

__all__ = ["model_wrapper", "wrapped"]

model_wrapper: ContextVar[Callable[[Model], Model] | None] = ContextVar(
    "tooluse_model_wrapper", default=None
)
"""Wraps each model a run is about to call; None calls the model as it is."""


def wrapped(model: Model) -> Model:
    """The model to call in place of `model`: itself, or the wrapper's.

    Args:
        model: The model resolved for the call.

    Returns:
        The model to call.
    """
    wrap = model_wrapper.get()
    return model if wrap is None else wrap(model)
