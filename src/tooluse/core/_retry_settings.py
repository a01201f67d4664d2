"""`ModelRetrySettings`: retries of failed model calls set with the model settings.

openai-agents sets a run's model retries in `ModelSettings(retry=ModelRetrySettings(...))`,
on an agent or on the run's config, merged field by field (`backoff` too) as the rest of
`ModelSettings.resolve` merges: where both set a field, the run config's wins. tooluse
keeps the settings here, as plain values; the run reads them and maps them onto its
own `RetryPolicy` (`tooluse.run._retry_rules`) when a call fails, so they are checked at
construction for what that policy cannot honour.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, cast

from ._errors import UserError
from ._values import fields_set, from_fields, is_number, is_whole_number

__all__ = [
    "ModelRetryBackoffSettings",
    "ModelRetrySettings",
    "as_retry_settings",
    "merge_retry_settings",
]


@dataclass
class ModelRetryBackoffSettings:
    """How long to wait between retries; None keeps `RetryPolicy`'s default for a field.

    Raises:
        UserError: If a field is out of what the run's backoff can honour, naming each.
    """

    initial_delay: float | None = None
    """Seconds before the first retry."""
    max_delay: float | None = None
    """The longest wait between attempts, in seconds."""
    multiplier: float | None = None
    """How much the wait grows with each retry; at least 1 (tooluse's backoff never shrinks)."""
    jitter: bool | None = None
    """Whether to shorten each wait by a random fraction (`RetryPolicy.jitter`), or not at all."""

    def __post_init__(self) -> None:
        problems = [
            f"{name}={value!r} must be a number >= {least}"
            for name, value, least in (
                ("initial_delay", self.initial_delay, 0),
                ("max_delay", self.max_delay, 0),
                ("multiplier", self.multiplier, 1),
            )
            if value is not None and not is_number(value, least)
        ]
        if not problems and self._delays_crossed():
            problems.append(
                f"max_delay={self.max_delay!r} must be at least "
                f"initial_delay={self.initial_delay!r}: raise max_delay or lower initial_delay"
            )
        if self.jitter is not None and not isinstance(self.jitter, bool):  # pyright: ignore[reportUnnecessaryIsInstance]
            problems.append(f"jitter={self.jitter!r} must be True, False or None")
        if problems:
            raise UserError(f"ModelRetryBackoffSettings: {'; '.join(problems)}")

    def _delays_crossed(self) -> bool:
        """Whether both delays are set and the longest is below the first (never a backoff)."""
        first, longest = self.initial_delay, self.max_delay
        return first is not None and longest is not None and longest < first


@dataclass
class ModelRetrySettings:
    """Retries of a failed model call, set in `ModelSettings(retry=...)` (docs/limits.md).

    The run maps them onto its `RetryPolicy`: `max_retries` and `backoff` replace the
    policy's own, and `policy`, when given, decides each retry in its place.

    Raises:
        UserError: If a field cannot be honoured, naming each.
    """

    max_retries: int | None = None
    """Retries after the first attempt; None keeps the run's `RetryPolicy.max_retries`."""
    backoff: ModelRetryBackoffSettings | dict[str, Any] | None = None
    """The waits between attempts: `ModelRetryBackoffSettings` or a dict of its fields."""
    policy: Callable[[Any], Any] | None = None
    """Decides whether a failed call is tried again: called with a `RetryPolicyContext`, it
    returns (or awaits to) a bool or a `RetryDecision`; `retry_policies` builds common
    ones. None leaves the decision to the run's `RetryPolicy`."""

    def __post_init__(self) -> None:
        problems: list[str] = []
        if self.max_retries is not None and not is_whole_number(self.max_retries, 0):
            problems.append(f"max_retries={self.max_retries!r} must be a whole number >= 0")
        if self.policy is not None and not callable(self.policy):
            problems.append(
                f"policy={self.policy!r} must be a function of a RetryPolicyContext, or None"
            )
        if problems:
            raise UserError(f"ModelRetrySettings: {'; '.join(problems)}")
        if self.backoff is not None:
            self.backoff = from_fields(
                "ModelRetrySettings: backoff", ModelRetryBackoffSettings, self.backoff
            )

    @property
    def backoff_settings(self) -> ModelRetryBackoffSettings:
        """`backoff` as settings (all None when it is not set)."""
        return cast(ModelRetryBackoffSettings, self.backoff or ModelRetryBackoffSettings())


def merge_retry_settings(
    base: ModelRetrySettings | None, override: ModelRetrySettings | None
) -> ModelRetrySettings | None:
    """`base` with every field `override` sets in its place, `backoff` merged field by field.

    Args:
        base: The settings inherited (the agent's).
        override: The settings that win where they are not None (the run config's).

    Returns:
        The merged settings, or whichever is not None.
    """
    if base is None or override is None:
        return base or override
    backoff = replace(base.backoff_settings, **fields_set(override.backoff_settings))
    return replace(base, **fields_set(override, skip=("backoff",)), backoff=backoff)


def as_retry_settings(owner: str, value: object) -> ModelRetrySettings | None:
    """`ModelRetrySettings` as given, built from a dict of its fields, or None.

    Args:
        owner: Who holds the settings, for the message.
        value: The value of `ModelSettings.retry`.

    Returns:
        The settings.

    Raises:
        UserError: The value is none of these.
    """
    if value is None:
        return None
    return from_fields(f"{owner}: retry", ModelRetrySettings, value)
