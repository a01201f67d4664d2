"""`RunConfig`: settings for one run that override the agents'."""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..core._settings import ModelSettings, as_model_settings
from ..core._values import from_fields, is_positive_number, is_whole_number
from ..exceptions import UserError
from ..guardrails._agent_guardrails import InputGuardrail, OutputGuardrail
from ..guardrails._checks import check_guardrail_list
from ._context import ContextPolicy
from ._limits import UsageLimits
from ._retries import DEFAULT_RETRY_POLICY, RetryPolicy

if TYPE_CHECKING:
    from ..models import Model, ModelProvider
    from ..sessions import SessionSettings
    from ..sessions._protocol import SessionInputCallback
    from ..tools._invocation import ToolErrorFunction
    from ._tool_error_formatter import ToolErrorFormatter

__all__ = ["DEFAULT_MAX_TURNS", "RunConfig", "as_run_config"]

DEFAULT_MAX_TURNS = 10
"""Model calls a run may make before `MaxTurnsExceeded`."""


@dataclass
class RunConfig:
    """Settings for one run that override the agents'."""

    model: str | Model | None = None
    """The model every agent of the run uses, instead of its own."""
    model_provider: ModelProvider | None = None
    """Resolves model names (the agents', or `model` above) to models; None uses
    `MultiProvider()` (`"anthropic/..."`, `"gemini/..."`; a bare name is OpenAI's). The
    Temporal plugin takes the same object."""
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
    tool_error_formatter: ToolErrorFormatter | None = None
    """Words the model's text for a rejected call (without a `rejection_message`), an
    unknown tool, and a tool that raised (for tools that kept the default
    `failure_error_function`); gets `ToolErrorFormatterArgs`, returns text or None for
    the default; may be async."""
    max_retries: int | None = None
    """Retries of a failed model call; None keeps `retry_policy`'s (2). Overrides
    `retry_policy.max_retries` when set."""
    retry_policy: RetryPolicy = DEFAULT_RETRY_POLICY  # made once: checking one costs ~30 us
    """When and how a failed model call is retried (docs/limits.md)."""
    usage_limits: UsageLimits | None = None
    """Limits on requests, tokens and tool calls; going over raises `UsageLimitExceeded`."""
    context: ContextPolicy | None = None
    """How each request is kept within a budget of input tokens (trimming older tool
    outputs, then summarising the oldest turns); None sends the whole history."""
    run_timeout: float | None = None
    """Seconds the whole run may take; then it stops with `RunTimeoutError`."""
    max_concurrent_tool_calls: int | None = None
    """The most function tool calls of this run running at once; None runs a turn's calls
    all at once."""
    input_guardrails: list[InputGuardrail[Any]] | None = None
    """Input guardrails for the run, beside the starting agent's (None: none, as in
    openai-agents)."""
    output_guardrails: list[OutputGuardrail[Any]] | None = None
    """Output guardrails for the run, beside the answering agent's (None: none)."""
    tracing_disabled: bool = False
    """Record no OpenTelemetry spans for this run, even with a tracer provider set."""
    trace_include_sensitive_data: bool | None = None
    """Record content (instructions, messages, tool arguments and outputs) in spans. None
    reads `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` (off unless `true`)."""
    tracer_provider: Any = None
    """The OpenTelemetry `TracerProvider` to record spans with; None uses the global one."""
    workflow_name: str = "Agent workflow"
    """The workflow the run's span is named after (`invoke_workflow {workflow_name}`, and its
    `gen_ai.workflow.name`)."""
    session_settings: SessionSettings | None = None
    """Settings for the run's session that win over the session's own: `limit`, the most
    recent items of the history the model is sent."""
    session_input_callback: SessionInputCallback | None = None
    """Builds what the model is sent from the session's history and the new input (to
    compact or summarise a long history); may be async. None: the history, then the input."""
    sandbox: object | None = None
    """Where the run's sandbox agents work: a `tooluse.sandbox.SandboxRunConfig` (typed
    `object` here: the sandbox sits above the run loop). None: a `SandboxAgent` taking
    over in the run is refused."""

    def __post_init__(self) -> None:
        if self.input_guardrails is not None:
            check_guardrail_list("RunConfig", "input_guardrails", self.input_guardrails, "input")
        if self.output_guardrails is not None:
            check_guardrail_list("RunConfig", "output_guardrails", self.output_guardrails, "output")
        if self.model_settings is not None:
            self.model_settings = as_model_settings("RunConfig", self.model_settings)
        problems = [*self._number_problems(), *self._type_problems()]
        if problems:
            raise UserError(f"RunConfig: {'; '.join(problems)}")

    def effective_retry_policy(self) -> RetryPolicy:
        """`retry_policy`, with `max_retries` in it when that is set.

        Returns:
            The policy a run retries its model calls by.
        """
        retries = self.max_retries
        if retries is None or retries == self.retry_policy.max_retries:
            return self.retry_policy
        return replace(self.retry_policy, max_retries=retries)

    def _number_problems(self) -> list[str]:
        problems: list[str] = []
        if self.tool_timeout is not None and not is_positive_number(self.tool_timeout):
            problems.append(f"tool_timeout={self.tool_timeout!r} must be a positive number or None")
        if not is_whole_number(self.max_tool_errors, 1):
            problems.append(f"max_tool_errors={self.max_tool_errors!r} must be a whole number >= 1")
        if self.max_retries is not None and not is_whole_number(self.max_retries, 0):
            problems.append(f"max_retries={self.max_retries!r} must be a whole number >= 0 or None")
        if self.run_timeout is not None and not is_positive_number(self.run_timeout):
            problems.append(f"run_timeout={self.run_timeout!r} must be a positive number or None")
        cap = self.max_concurrent_tool_calls
        if cap is not None and not is_whole_number(cap, 1):
            problems.append(
                f"max_concurrent_tool_calls={cap!r} must be a whole number >= 1 or None"
            )
        return problems

    def _type_problems(self) -> list[str]:
        problems: list[str] = []
        provider = self.model_provider
        if provider is not None and not callable(getattr(provider, "get_model", None)):
            problems.append(
                f"model_provider must be a ModelProvider (with get_model(name)), not "
                f"{type(provider).__name__}"
            )
        if not isinstance(self.usage_limits, UsageLimits | None):  # pyright: ignore[reportUnnecessaryIsInstance]
            problems.append(
                f"usage_limits must be a UsageLimits, not {type(self.usage_limits).__name__}"
            )
        if not isinstance(self.context, ContextPolicy | None):  # pyright: ignore[reportUnnecessaryIsInstance]
            problems.append(f"context must be a ContextPolicy, not {type(self.context).__name__}")
        if not isinstance(self.retry_policy, RetryPolicy):  # pyright: ignore[reportUnnecessaryIsInstance]
            problems.append(
                f"retry_policy must be a RetryPolicy, not {type(self.retry_policy).__name__}"
            )
        callback = self.session_input_callback
        if callback is not None and not callable(callback):
            problems.append(
                f"session_input_callback must be a function (history, new_input) -> items, "
                f"not {type(callback).__name__}"
            )
        if not isinstance(self.tracing_disabled, bool):  # pyright: ignore[reportUnnecessaryIsInstance]
            problems.append(f"tracing_disabled={self.tracing_disabled!r} must be True or False")
        sensitive = self.trace_include_sensitive_data
        if not isinstance(sensitive, bool | None):  # pyright: ignore[reportUnnecessaryIsInstance]
            # A string such as "false" (read from the environment) must not turn it on.
            problems.append(
                f"trace_include_sensitive_data={sensitive!r} must be True, False or None"
            )
        return problems


def as_run_config(value: object) -> RunConfig:
    """A `RunConfig` as given, or built from a dict of its fields (as openai-agents allows).

    Args:
        value: A `RunConfig`, a dict of its field names, or None for the defaults.

    Returns:
        The settings.

    Raises:
        UserError: The value is none of these, or the dict names fields that do not exist.
    """
    return _default_config() if value is None else from_fields("run_config", RunConfig, value)


@functools.cache
def _defaults() -> tuple[tuple[str, Any], ...]:
    """The fields of `RunConfig()`, checked once."""
    checked = RunConfig()
    return tuple((f.name, getattr(checked, f.name)) for f in dataclasses.fields(RunConfig))


def _default_config() -> RunConfig:
    """`RunConfig()`, without checking the defaults again for every run that gives none.

    Set field by field, never through `vars()`: on Python 3.11+ an instance keeps its
    fields inline until its `__dict__` is asked for, one GC-tracked object less for every
    waiting run (`tooluse.run._lean`).
    """
    config = RunConfig.__new__(RunConfig)
    for name, value in _defaults():  # all immutable: nothing is shared that a run could change
        setattr(config, name, value)
    return config
