"""`RunConfig`: settings for one run that override the agents'."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ._settings import ModelSettings, as_model_settings
from ._values import from_fields, is_positive_number, is_whole_number
from .exceptions import UserError

if TYPE_CHECKING:
    from ._invocation import ToolErrorFunction
    from .models import Model

__all__ = ["DEFAULT_MAX_TURNS", "RunConfig", "as_run_config"]

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

    def __post_init__(self) -> None:
        if self.model_settings is not None:
            self.model_settings = as_model_settings("RunConfig", self.model_settings)
        problems: list[str] = []
        if self.tool_timeout is not None and not is_positive_number(self.tool_timeout):
            problems.append(f"tool_timeout={self.tool_timeout!r} must be a positive number or None")
        if not is_whole_number(self.max_tool_errors, 1):
            problems.append(f"max_tool_errors={self.max_tool_errors!r} must be a whole number >= 1")
        if self.max_retries is not None and not is_whole_number(self.max_retries, 0):
            problems.append(f"max_retries={self.max_retries!r} must be a whole number >= 0 or None")
        if problems:
            raise UserError(f"RunConfig: {'; '.join(problems)}")


def as_run_config(value: object) -> RunConfig:
    """A `RunConfig` as given, or built from a dict of its fields (as openai-agents allows).

    Args:
        value: A `RunConfig`, a dict of its field names, or None for the defaults.

    Returns:
        The settings.

    Raises:
        UserError: The value is none of these, or the dict names fields that do not exist.
    """
    return RunConfig() if value is None else from_fields("run_config", RunConfig, value)
