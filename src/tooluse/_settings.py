"""`ModelSettings`: the sampling and tool-use settings sent with each model request."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

__all__ = ["ModelSettings", "ToolChoice"]

ToolChoice = Literal["auto", "required", "none"] | str
"""`auto`, `required`, `none`, or the name of the one tool the model must call."""


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
    extra_args: dict[str, Any] = field(default_factory=dict[str, Any])
    """More request parameters, passed through as they are."""

    def resolve(self, override: ModelSettings | None) -> ModelSettings:
        """These settings with every field `override` sets taking its place.

        Args:
            override: Settings that win where they are not None.

        Returns:
            The merged settings.
        """
        if override is None:
            return self
        changes: dict[str, Any] = {
            f.name: getattr(override, f.name)
            for f in fields(override)
            if f.name != "extra_args" and getattr(override, f.name) is not None
        }
        changes["extra_args"] = {**self.extra_args, **override.extra_args}
        return replace(self, **changes)
