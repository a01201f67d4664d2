"""`ModelSettings(retry=...)` mapped onto the run's `RetryPolicy`, and the retry rules it takes.

openai-agents' retry settings name a backoff and a policy function (`retry_policies.any(
retry_policies.http_status([429, 503]), ...)`, or one of your own); tooluse's run
retries failed model calls itself by `RetryPolicy`. `SettingsRetries` joins them:
the settings' `max_retries` and backoff replace the policy's, and their function,
when there is one, decides each retry in place of the policy's statuses. Only a
`ModelTransportError` (the API answered with an error, or did not answer) is put to
the function: an error of a model's own code, a missing key or a `UserError` never
is, and a streamed call that already sent events is never tried again.

A retry waits for the decision's `delay` when it names one (the server's own
`Retry-After` for `retry_policies.retry_after()` and `provider_suggested()`), else for
the server's `Retry-After`, else for the backoff. A wait beyond
`RetryPolicy.max_retry_after`, whoever names it, makes the run give up, as without
settings.

A rule `retry_policies` builds is a `BuiltRule`, named by JSON (`rule_spec`), so a
durable backend can rebuild it where the call runs (`rule_from_spec`): a Temporal
worker decides by it in the model activity. A function of the user's own has no name
that travels.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, cast

from ..core._retry_settings import ModelRetrySettings
from ..exceptions import UserError
from ..models import ModelTransportError
from ._retries import RetryPolicy

__all__ = [
    "BuiltRule",
    "ModelRetryAdvice",
    "ModelRetryNormalizedError",
    "RetryDecision",
    "RetryPolicyContext",
    "RetryRule",
    "SettingsRetries",
    "retry_context",
    "retry_policies",
    "rule_from_spec",
    "rule_spec",
    "settings_retries",
]


@dataclass
class RetryDecision:
    """A retry rule's answer: whether to try the failed call again, and after how long."""

    retry: bool
    """Whether to try again."""
    delay: float | None = None
    """Seconds to wait first; None leaves it to the server's `Retry-After` or the backoff."""
    reason: str | None = None
    """Why, for logs and for your own rule's messages."""
    approve_unsafe_replay: bool = False
    """Accepted for openai-agents' code; tooluse marks no request unsafe to replay, so
    there is nothing for it to approve."""
    _veto: bool = field(default=False, init=False, repr=False, compare=False)
    """Set by `retry_policies.provider_suggested` when the provider said not to retry:
    `any` and `all` then answer no, whatever the other rules say."""


@dataclass
class ModelRetryNormalizedError:
    """What a failed model call's error says, whatever the provider."""

    status_code: int | None = None
    """The HTTP status the API answered with; None when it did not answer."""
    message: str | None = None
    """What happened, in one sentence (never the request's content)."""
    retry_after: float | None = None
    """Seconds the server asked to wait before trying again, if it named a wait."""
    is_network_error: bool = False
    """Whether no answer came (a connection lost, a call that timed out)."""
    is_timeout: bool = False
    """Whether the call timed out (a `TimeoutError`); tooluse's models report most
    timeouts as network errors."""


@dataclass
class ModelRetryAdvice:
    """What the provider said about a retry."""

    suggested: bool | None = None
    """Whether it suggests one: its own word where it gave one (`x-should-retry`), else
    whether the status is one the run retries (408, 409, 429, 5xx) or no answer came."""
    retry_after: float | None = None
    """Seconds it asked to wait, if it named a wait."""
    reason: str | None = None
    """Why, when it said."""


@dataclass
class RetryPolicyContext:
    """What a retry rule decides from: the failure and how many attempts were made."""

    error: Exception
    """What the attempt raised (a `ModelTransportError`)."""
    attempt: int
    """The attempt that failed: 1 for the first."""
    max_retries: int
    """Retries allowed after the first attempt."""
    stream: bool
    """Whether the call was streamed."""
    normalized: ModelRetryNormalizedError
    """The error's facts, whatever the provider."""
    provider_advice: ModelRetryAdvice | None = None
    """What the provider said about a retry."""


RetryRule = Callable[[RetryPolicyContext], "bool | RetryDecision | Awaitable[bool | RetryDecision]"]
"""A function deciding on a retry: `ModelRetrySettings.policy`, or one `retry_policies` builds."""


async def decide(rule: RetryRule, context: RetryPolicyContext) -> RetryDecision:
    """A rule's answer for `context`, awaited if need be, as a `RetryDecision`.

    Raises:
        UserError: If the rule answers with something else than a bool or a decision.
    """
    value = rule(context)
    if inspect.isawaitable(value):
        value = await value
    if isinstance(value, RetryDecision):
        return value
    if isinstance(value, bool):  # pyright: ignore[reportUnnecessaryIsInstance]
        return RetryDecision(retry=value)
    raise UserError(
        f"ModelRetrySettings.policy {getattr(rule, '__qualname__', rule)!r} returned "
        f"{value!r}: return True, False or a RetryDecision"
    )


class _RetryPolicies:
    """Builders of common retry rules, combined with `any` and `all`."""

    def never(self) -> RetryRule:
        """A rule that never retries."""
        return BuiltRule({"rule": "never"}, lambda _context: False)

    def provider_suggested(self) -> RetryRule:
        """Retry where the provider suggests it, after the wait it names; its no is final."""

        def rule(context: RetryPolicyContext) -> bool | RetryDecision:
            advice = context.provider_advice
            if advice is None or advice.suggested is None:
                return False
            if not advice.suggested:
                veto = RetryDecision(retry=False, reason=advice.reason)
                veto._veto = True  # pyright: ignore[reportPrivateUsage]
                return veto
            return RetryDecision(retry=True, delay=advice.retry_after, reason=advice.reason)

        return BuiltRule({"rule": "provider_suggested"}, rule)

    def network_error(self) -> RetryRule:
        """Retry when no answer came (a connection lost, a timeout)."""
        return BuiltRule(
            {"rule": "network_error"},
            lambda context: context.normalized.is_network_error or context.normalized.is_timeout,
        )

    def retry_after(self) -> RetryRule:
        """Retry when the server named a wait, after that wait."""

        def rule(context: RetryPolicyContext) -> bool | RetryDecision:
            delay = context.normalized.retry_after
            if delay is None and context.provider_advice is not None:
                delay = context.provider_advice.retry_after
            return False if delay is None else RetryDecision(retry=True, delay=delay)

        return BuiltRule({"rule": "retry_after"}, rule)

    def http_status(self, statuses: Iterable[int]) -> RetryRule:
        """Retry when the API answered with one of `statuses`."""
        allowed = frozenset(statuses)
        spec = {"rule": "http_status", "statuses": sorted(allowed)}
        return BuiltRule(spec, lambda context: context.normalized.status_code in allowed)

    def any(self, *rules: RetryRule) -> RetryRule:
        """Retry when one of `rules` says so (the first yes's delay, unless a later names one)."""

        async def rule(context: RetryPolicyContext) -> RetryDecision:
            chosen: RetryDecision | None = None
            last_no = RetryDecision(retry=False)
            for each in rules:
                decision = await decide(each, context)
                if decision._veto:  # pyright: ignore[reportPrivateUsage]
                    return decision
                if not decision.retry:
                    last_no = decision
                elif chosen is None:
                    chosen = decision
                else:
                    chosen = _joined(chosen, decision)
            return chosen or last_no

        return _combined("any", rules, rule)

    def all(self, *rules: RetryRule) -> RetryRule:
        """Retry when every one of `rules` says so (the last delay named); none never retries."""

        async def rule(context: RetryPolicyContext) -> RetryDecision:
            if not rules:
                return RetryDecision(retry=False)
            chosen = RetryDecision(retry=True)
            for each in rules:
                decision = await decide(each, context)
                if not decision.retry:
                    return decision
                chosen = _joined(chosen, decision)
            return chosen

        return _combined("all", rules, rule)


@dataclass(frozen=True, eq=False)
class BuiltRule:
    """A rule `retry_policies` built: called as a function, and named by JSON (`spec`).

    The JSON lets a durable backend rebuild the rule where the model call runs (a
    Temporal worker), which a function of your own cannot reach.
    """

    spec: dict[str, Any]
    """The builder and its arguments, e.g. `{"rule": "http_status", "statuses": [503]}`."""
    rule: RetryRule
    """The function deciding."""

    def __call__(self, context: RetryPolicyContext) -> bool | RetryDecision | Awaitable[Any]:
        return self.rule(context)

    def __repr__(self) -> str:
        return f"retry_policies.{self.spec['rule']}(...)"


def _combined(kind: str, rules: tuple[RetryRule, ...], rule: RetryRule) -> RetryRule:
    """`any`'s or `all`'s rule, named by JSON when every rule it combines is."""
    specs = [rule_spec(each) for each in rules]
    if any(spec is None for spec in specs):
        return rule  # a function of the user's inside: only this process can run it
    return BuiltRule({"rule": kind, "rules": specs}, rule)


def rule_spec(rule: object) -> dict[str, Any] | None:
    """The JSON naming a rule `retry_policies` built, or None for any other function.

    Args:
        rule: `ModelRetrySettings.policy`.

    Returns:
        The rule's spec, which `rule_from_spec` rebuilds it from.
    """
    return rule.spec if isinstance(rule, BuiltRule) else None


_PLAIN_RULES = frozenset({"never", "provider_suggested", "network_error", "retry_after"})


def rule_from_spec(spec: dict[str, Any]) -> RetryRule:
    """The rule `rule_spec` named, built again by `retry_policies`.

    Args:
        spec: A rule's spec.

    Returns:
        The rule.

    Raises:
        UserError: If the spec names no rule this tooluse builds (one from a newer release).
    """
    kind = spec.get("rule")
    if kind in ("any", "all"):
        combine = retry_policies.any if kind == "any" else retry_policies.all
        return combine(*[rule_from_spec(each) for each in spec["rules"]])
    if kind == "http_status":
        return retry_policies.http_status(spec["statuses"])
    if kind in _PLAIN_RULES:
        return cast("Callable[[], RetryRule]", getattr(retry_policies, kind))()
    raise UserError(
        f"ModelRetrySettings.policy: no retry rule is named {kind!r} in this tooluse "
        f"(it knows {', '.join(sorted({*_PLAIN_RULES, 'http_status', 'any', 'all'}))}): "
        "install the same tooluse release where the rule is built and where it runs"
    )


def _joined(first: RetryDecision, then: RetryDecision) -> RetryDecision:
    """Two yeses as one: the later's delay and reason where it names them."""
    return RetryDecision(
        retry=True,
        delay=then.delay if then.delay is not None else first.delay,
        reason=then.reason if then.reason is not None else first.reason,
        approve_unsafe_replay=first.approve_unsafe_replay or then.approve_unsafe_replay,
    )


retry_policies = _RetryPolicies()
"""Builders of retry rules for `ModelRetrySettings(policy=...)`, as openai-agents names them."""


@dataclass(frozen=True)
class SettingsRetries:
    """The run's retries as `ModelSettings.retry` sets them."""

    policy: RetryPolicy
    """The run's policy with the settings' `max_retries` and backoff."""
    rule: RetryRule | None
    """The settings' rule, deciding in place of the policy's statuses; None leaves them."""

    async def delay(self, error: BaseException, attempt: int, stream: bool) -> float | None:
        """Seconds to wait before trying again after attempt `attempt` failed, or None.

        Args:
            error: What the attempt raised.
            attempt: The attempt that failed (1 for the first).
            stream: Whether the call was streamed.

        Returns:
            The delay, or None to give up.

        Raises:
            UserError: If the rule raises, or answers with something unusable.
        """
        if self.rule is None:
            return self.policy.retry_delay(error, attempt - 1)
        if attempt > self.policy.max_retries or not isinstance(error, ModelTransportError):
            return None
        context = retry_context(error, attempt, self.policy, stream)
        decision = await _decided(self.rule, context)
        if not decision.retry:
            return None
        asked = error.retry_after if decision.delay is None else _checked_delay(decision.delay)
        return self.policy.wait(asked, attempt - 1)


async def _decided(rule: RetryRule, context: RetryPolicyContext) -> RetryDecision:
    """The settings' rule's decision; its own error, wrapped, in place of the model's.

    Raises:
        UserError: If the rule raises (its error as the cause), or answers with something
            unusable.
    """
    try:
        return await decide(rule, context)
    except UserError:
        raise  # already says what is wrong (an answer that is no decision)
    except Exception as error:
        failed = context.error
        status = getattr(failed, "status_code", None)
        raise UserError(
            f"ModelRetrySettings.policy {getattr(rule, '__qualname__', rule)!r} raised "
            f"{type(error).__name__} ({error}) deciding retry {context.attempt} of "
            f"{type(failed).__name__} (status {status}); fix the function"
        ) from error


def settings_retries(base: RetryPolicy, retry: ModelRetrySettings) -> SettingsRetries:
    """The run's retries with `retry`'s settings in place of `base`'s.

    Args:
        base: The run's `RetryPolicy`.
        retry: The resolved `ModelSettings.retry`.

    Returns:
        The retries.

    Raises:
        UserError: If the settings and `base` together make a policy the run cannot
            honour: a `max_delay` set alone below `base.initial_delay`, or an
            `initial_delay` alone above `base.max_delay` (a pair the settings set both
            of is checked when they are made).
    """
    backoff = retry.backoff_settings
    changes: dict[str, Any] = {
        name: value
        for name, value in (
            ("max_retries", retry.max_retries),
            ("initial_delay", backoff.initial_delay),
            ("max_delay", backoff.max_delay),
            ("multiplier", backoff.multiplier),
        )
        if value is not None
    }
    if backoff.jitter is not None:
        changes["jitter"] = (base.jitter or _DEFAULT_JITTER) if backoff.jitter else 0.0
    try:
        policy = replace(base, **changes) if changes else base
    except UserError as error:
        raise UserError(f"ModelSettings(retry=...): {error}") from None
    return SettingsRetries(policy, cast("RetryRule | None", retry.policy))


_DEFAULT_JITTER = RetryPolicy().jitter


def retry_context(
    error: ModelTransportError, attempt: int, policy: RetryPolicy, stream: bool
) -> RetryPolicyContext:
    """What a retry rule decides from, for a failed attempt.

    Args:
        error: What the attempt raised.
        attempt: The attempt that failed (1 for the first).
        policy: The retries in force (its `max_retries`, and `retry_statuses` for the
            provider's advice when the error does not say whether a retry may help).
        stream: Whether the call was streamed.

    Returns:
        The context.
    """
    status, retryable = error.status_code, error.retryable
    no_answer = status is None and bool(retryable)
    suggested = retryable
    if suggested is None and status is not None:
        suggested = status in policy.retry_statuses
    normalized = ModelRetryNormalizedError(
        status_code=status,
        message=error.description,
        retry_after=error.retry_after,
        is_network_error=no_answer,
        is_timeout=isinstance(error.__cause__, TimeoutError),
    )
    advice = ModelRetryAdvice(suggested=suggested, retry_after=error.retry_after)
    return RetryPolicyContext(error, attempt, policy.max_retries, stream, normalized, advice)


def _checked_delay(delay: object) -> float:
    """A rule's delay, which must be a number of seconds (capped as a server's by the policy)."""
    if isinstance(delay, int | float) and not isinstance(delay, bool) and 0 <= delay < math.inf:
        return float(delay)
    raise UserError(
        f"ModelRetrySettings.policy returned RetryDecision(delay={delay!r}): "
        "the delay must be a number of seconds >= 0, or None for the backoff"
    )
