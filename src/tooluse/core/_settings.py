"""`ModelSettings`: the sampling and tool-use settings sent with each model request."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ._factories import new_dict
from ._retry_settings import ModelRetrySettings, as_retry_settings, merge_retry_settings
from ._values import fields_set, from_fields

__all__ = ["MCPToolChoice", "ModelSettings", "ToolChoice", "as_model_settings"]


@dataclass(frozen=True)
class MCPToolChoice:
    """A `tool_choice` forcing the model to call one tool of a hosted MCP server.

    Responses API only (a `HostedMCPTool` with this `server_label`); the other APIs
    refuse it.
    """

    server_label: str
    """The server's label, as in `HostedMCPTool.tool_config["server_label"]`."""
    name: str
    """The MCP tool the model must call."""


ToolChoice = Literal["auto", "required", "none"] | str | MCPToolChoice
"""`auto`, `required`, `none`, the name of the one tool the model must call, or a hosted
MCP server's tool (`MCPToolChoice`)."""


@dataclass
class ModelSettings:
    """Settings for a model request; None leaves the provider's default."""

    temperature: float | None = None
    """Sampling temperature."""
    top_p: float | None = None
    """Nucleus sampling mass."""
    max_tokens: int | None = None
    """The most tokens the model may produce."""
    tool_choice: ToolChoice | None = None
    """Whether and which tool the model must call."""
    parallel_tool_calls: bool | None = None
    """Whether the model may call several tools at once; sent only when there are tools."""
    frequency_penalty: float | None = None
    """Penalty on repeated tokens (Chat Completions only)."""
    presence_penalty: float | None = None
    """Penalty on tokens already present (Chat Completions only)."""
    reasoning: Any = None
    """Reasoning options for reasoning models: `openai.types.shared.Reasoning` or its dict
    (`{"effort": "low"}`); Chat Completions receives the effort as `reasoning_effort`."""
    thinking_budget: int | None = None
    """Tokens the model may spend thinking before it answers: turns on Anthropic's
    extended thinking (at least 1,024) and sets Gemini's thinking budget (0 turns it
    off); None leaves the model's default. OpenAI models take `reasoning` instead."""
    verbosity: Literal["low", "medium", "high"] | None = None
    """How much the model says."""
    truncation: Literal["auto", "disabled"] | None = None
    """What the Responses API does with a conversation too long for the model."""
    metadata: dict[str, str] | None = None
    """Key/value pairs stored with the response."""
    store: bool | None = None
    """Whether the provider stores the response."""
    top_logprobs: int | None = None
    """How many most likely tokens to return, with their log probabilities, per position."""
    extra_headers: dict[str, str] | None = None
    """More HTTP headers for the request."""
    extra_query: dict[str, object] | None = None
    """More query parameters for the request."""
    extra_body: dict[str, object] | None = None
    """More JSON body fields for the request."""
    extra_args: dict[str, Any] = field(default_factory=new_dict)
    """More request parameters, passed through as they are."""
    retry: ModelRetrySettings | None = None
    """Retries of a failed model call (`ModelRetrySettings` or a dict of its fields): read
    by the run, which maps them onto its `RetryPolicy`; never sent to the model."""

    def __post_init__(self) -> None:
        if self.retry is not None:
            self.retry = as_retry_settings("ModelSettings", self.retry)

    def resolve(self, override: ModelSettings | None) -> ModelSettings:
        """These settings with every field `override` sets taking its place.

        Args:
            override: Settings that win where they are not None.

        Returns:
            The merged settings.
        """
        if override is None:
            return self
        changes = fields_set(override, skip=("extra_args", "retry"))
        changes["extra_args"] = {**self.extra_args, **override.extra_args}
        if override.retry is not None:  # nested: the override's fields win one by one
            changes["retry"] = merge_retry_settings(self.retry, override.retry)
        return replace(self, **changes)


def as_model_settings(owner: str, value: object) -> ModelSettings:
    """`ModelSettings` as given, or built from a dict of its fields (as openai-agents allows).

    Args:
        owner: Who holds the settings, for the message (e.g. "Agent 'triage'").
        value: A `ModelSettings` or a dict of its field names.

    Returns:
        The settings.

    Raises:
        UserError: The value is neither, or the dict names fields that do not exist.
    """
    more = " Other request parameters go in extra_args"
    return from_fields(f"{owner}: model_settings", ModelSettings, value, more)
