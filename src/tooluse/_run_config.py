"""`RunConfig`: settings for one run that override the agents'."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ._settings import ModelSettings

if TYPE_CHECKING:
    from ._invocation import ToolErrorFunction
    from .models import Model

__all__ = ["DEFAULT_MAX_TURNS", "RunConfig"]

DEFAULT_MAX_TURNS = 10
"""Model calls a run may make before `MaxTurnsExceeded`."""


@dataclass
class RunConfig:
    """Settings for one run that override the agents'."""

    model: str | Model | None = None
    """The model every agent of the run uses, instead of its own."""
    model_settings: ModelSettings | None = None
    """Settings that win over each agent's where they are set."""
    max_tool_errors: int = 3
    """Consecutive turns in which every tool call fails before `ToolErrorBudgetExceeded`."""
    tool_timeout: float | None = None
    """Seconds a tool call may take, for tools that set no `timeout`."""
    failure_error_function: ToolErrorFunction | None = None
    """The text the model gets for a failed call, for tools that kept the default."""
    log_tool_errors: bool = False
    """Log tool exceptions with their messages (off: tool data may hold secrets)."""
    max_retries: int | None = None
    """The `openai` client's retries for each model call; None keeps the client's."""
