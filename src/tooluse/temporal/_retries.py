"""`ModelSettings.retry` inside a workflow: the model activity's `RetryPolicy`, or a refusal.

In a workflow the run makes one attempt per model call and Temporal retries the
model activity, so an agent's retry settings count by changing that call's
activity `RetryPolicy` (the plugin's `ActivityOptions.retry_policy` gives the rest,
`non_retryable_error_types` included):

```
ModelRetrySettings          Temporal RetryPolicy
max_retries                 maximum_attempts = max_retries + 1
backoff.initial_delay       initial_interval
backoff.max_delay           maximum_interval
backoff.multiplier          backoff_coefficient
backoff.jitter              False: as it is; True: the worker shortens each wait
policy (retry_policies)     decided on the worker, at each failed attempt
```

The worker's part travels with each call (`ModelCall`): a `policy` built with
`retry_policies` as JSON (`rule_spec`), which the model activity rebuilds and asks
at each failed attempt, its no a non-retryable failure and its delay (else the
server's `Retry-After`) the next attempt's (`ApplicationError.next_retry_delay`);
and the jitter, by which the activity shortens the backoff of the policy it was
scheduled with, naming that wait the same way.

What cannot be honoured is refused with one `UserError` before any activity is
scheduled: a `policy` function of the user's own (it would have to decide where
the call failed, on the worker, and only JSON reaches the activity), a delay of 0
(Temporal reads a zero interval as its default), and a backoff whose longest wait
would fall below its first.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from temporalio.common import RetryPolicy

from ..core._retry_settings import ModelRetrySettings
from ..exceptions import UserError
from ..run._retries import RetryPolicy as ToolusePolicy
from ..run._retry_rules import rule_spec

__all__ = ["ActivityRetries", "activity_retries"]

_HONOURED = (
    "Temporal's activity RetryPolicy retries the model call there: max_retries and backoff's "
    "initial_delay, max_delay and multiplier become its maximum_attempts, initial_interval, "
    "maximum_interval and backoff_coefficient, and the worker applies jitter and a "
    "retry_policies rule; set anything else on the worker's plugin, "
    "TooluseTemporalPlugin(activity_options=ActivityOptions(retry_policy=RetryPolicy(...)))"
)


@dataclass(frozen=True)
class ActivityRetries:
    """How an agent's model calls are retried as activities."""

    policy: RetryPolicy
    """Temporal's policy the model activity is scheduled with."""
    rule: dict[str, Any] | None = None
    """The settings' `retry_policies` rule as `rule_spec` names it, decided on the worker."""
    jitter: float | None = None
    """The fraction by which the worker shortens each backoff wait at random; None leaves
    Temporal's waits as they are."""


def activity_retries(
    base: RetryPolicy | None, retry: ModelRetrySettings, owner: str
) -> ActivityRetries:
    """The model activity's retries: `base` with what `retry` sets in its place.

    Args:
        base: The plugin's `ActivityOptions.retry_policy`; None for Temporal's default.
        retry: The agent's resolved `ModelSettings.retry`.
        owner: Who set them, for the message (`"Agent 'support'"`).

    Returns:
        The policy to schedule the agent's model calls with, and what the worker applies.

    Raises:
        UserError: If a field cannot be honoured, naming each with its fix.
    """
    base = base or RetryPolicy()
    problems = _unexpressible(retry)
    changes = _changes(retry)
    policy = dataclasses.replace(base, **changes)
    if not problems:
        problems += _crossed(policy, changes)
    if problems:
        raise UserError(
            f"{owner}: model_settings.retry cannot be honoured inside a Temporal workflow: "
            f"{'; '.join(problems)}. {_HONOURED}"
        )
    jitter = _JITTER if retry.backoff_settings.jitter else None
    return ActivityRetries(policy, rule_spec(retry.policy), jitter)


_JITTER = ToolusePolicy().jitter
"""The run's default jitter, which `jitter=True` turns on outside a workflow too."""


def _unexpressible(retry: ModelRetrySettings) -> list[str]:
    """What of `retry` a workflow cannot honour, each with what to do instead."""
    problems: list[str] = []
    if retry.policy is not None and rule_spec(retry.policy) is None:
        name = getattr(retry.policy, "__qualname__", repr(retry.policy))
        problems.append(
            f"policy={name} is a function of your own, which would have to decide where the "
            "call failed, on the worker, but only JSON reaches the model activity: build the "
            "policy with retry_policies (http_status, retry_after, network_error, "
            "provider_suggested, never, any, all), whose rules the worker rebuilds, or leave "
            "it out (the model activity never retries an error tooluse does not retry, such "
            "as a 400 or a missing key), or stop retrying by error type with "
            "RetryPolicy(non_retryable_error_types=[...])"
        )
    backoff = retry.backoff_settings
    for name, value in (("initial_delay", backoff.initial_delay), ("max_delay", backoff.max_delay)):
        if value == 0:
            problems.append(
                f"backoff {name}=0: Temporal reads a zero interval as its default "
                f"(1 s, or 100 times the first); set a small delay such as {name}=0.001"
            )
    return problems


def _changes(retry: ModelRetrySettings) -> dict[str, Any]:
    """The `RetryPolicy` fields `retry` sets, in Temporal's terms."""
    backoff = retry.backoff_settings
    changes: dict[str, Any] = {}
    if retry.max_retries is not None:
        changes["maximum_attempts"] = retry.max_retries + 1
    if backoff.initial_delay:
        changes["initial_interval"] = timedelta(seconds=backoff.initial_delay)
    if backoff.max_delay:
        changes["maximum_interval"] = timedelta(seconds=backoff.max_delay)
    if backoff.multiplier is not None:
        changes["backoff_coefficient"] = float(backoff.multiplier)
    return changes


def _crossed(policy: RetryPolicy, changes: dict[str, Any]) -> list[str]:
    """A longest wait below the first, where one of the two is the plugin's (Temporal refuses it).

    Settings that set both are checked when they are made (`ModelRetryBackoffSettings`).
    """
    longest, first = policy.maximum_interval, policy.initial_interval
    if longest is None or longest >= first or policy.maximum_attempts == 1:
        return []  # a single attempt never waits: Temporal checks nothing then
    if "maximum_interval" in changes:
        return [
            f"backoff max_delay={longest.total_seconds():g} is below the plugin's "
            f"RetryPolicy.initial_interval ({first.total_seconds():g} s): raise max_delay or "
            "set initial_delay too"
        ]
    if "initial_interval" not in changes:
        return []  # the plugin's own policy: Temporal names the problem
    return [
        f"backoff initial_delay={first.total_seconds():g} is above the plugin's "
        f"RetryPolicy.maximum_interval ({longest.total_seconds():g} s): lower initial_delay "
        "or set max_delay too"
    ]
