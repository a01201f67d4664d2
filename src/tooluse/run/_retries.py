"""`RetryPolicy`: when a failed model call is tried again, and after how long.

The runner makes every attempt itself (a model's client is asked for one attempt
per call), so that hooks and spans see each one. Every model raises a failed call
as a `ModelTransportError` (the OpenAI models map the `openai` client's errors at
their edge), and the policy decides from it alone, whatever the provider. A
failure is tried again, while retries are left, when its `retryable` says so (a
connection lost, a call that timed out), or, where the model left that to the
status, when its `status_code` is in `retry_statuses` (408, 409, 429 and 500-599
by default). A model says `retryable=False` where the provider said a retry cannot
help (the OpenAI API's `x-should-retry: false`). An error without a status, or
with a success status (a 200 body that is not JSON, an error event in a 200
stream), is not tried again: the API did answer, the same request would most
likely get the same answer, and the call may have been billed.

Nothing else is: not the client errors a retry cannot fix (400, 401, 403, 404,
422), not `UserError` or `MissingAPIKey`, not an error of a model's own code. The
runner never retries a streamed call that has already yielded an event.

The wait is the server's when it names one (`ModelTransportError.retry_after`,
read from `retry-after-ms` or `Retry-After`), taken as it is: it is the least the
server will accept, so it is neither shortened by jitter nor capped by
`max_delay`; a server asking for more than `max_retry_after` makes the policy give
up at once. Without one, the wait grows exponentially from `initial_delay` by
`multiplier`, up to `max_delay`, and jitter shortens it by a random fraction of up
to `jitter`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Set
from dataclasses import dataclass, field
from typing import Any, cast

from ..core._values import is_number, is_whole_number
from ..exceptions import UserError
from ..models import ModelTransportError

__all__ = ["DEFAULT_RETRY_POLICY", "RetryPolicy", "may_help"]


class _Statuses(frozenset[int]):
    """A set of HTTP statuses whose repr writes runs as ranges (not 100 numbers in a row)."""

    __slots__ = ()

    def __repr__(self) -> str:
        parts: list[str] = []
        ordered = sorted(self)
        start = 0
        for end in range(1, len(ordered) + 1):
            if end < len(ordered) and ordered[end] == ordered[end - 1] + 1:
                continue
            run = ordered[start:end]
            parts.extend(
                [f"*range({run[0]}, {run[-1] + 1})"] if len(run) > 2 else [str(n) for n in run]
            )
            start = end
        return f"frozenset({{{', '.join(parts)}}})" if parts else "frozenset()"


# What the openai client retried by itself, and what transient failures answer with.
_RETRY_STATUSES = _Statuses({408, 409, 429, *range(500, 600)})


@dataclass(frozen=True)
class RetryPolicy:
    """When a failed model call is tried again, and after how long (docs/limits.md).

    `RunConfig(retry_policy=RetryPolicy(...))` sets it for a run;
    `RunConfig(max_retries=...)`, when set, overrides its `max_retries`. It replaces
    the retries an OpenAI client was made with (`AsyncOpenAI(max_retries=...)`),
    for calls a run makes.

    Raises:
        UserError: If a field is out of range, naming every such field.
    """

    max_retries: int = 2
    """Retries after the first attempt: 0 makes one attempt only."""
    initial_delay: float = 0.5
    """Seconds before the first retry, before jitter."""
    max_delay: float = 8.0
    """The longest backoff between attempts, in seconds (a server's `Retry-After` may
    be longer, up to `max_retry_after`)."""
    multiplier: float = 2.0
    """How much the backoff grows with each retry (1 keeps it at `initial_delay`)."""
    jitter: float = 0.25
    """The largest fraction of the backoff taken off at random, from 0 (always the whole
    backoff) to 1 ("full jitter": anywhere from none of it to all of it). Spreads out
    the retries of many runs that failed at the same moment."""
    max_retry_after: float = 60.0
    """The longest wait a server may ask for, in seconds. A server asking for more
    (a quota that resets in an hour, say) makes the policy give up at once rather
    than hold the run, or retry sooner than the server will accept."""
    retry_statuses: Set[int] = _RETRY_STATUSES
    """The HTTP statuses tried again: 408, 409, 429 and 500-599. Kept as a frozenset;
    to drop one, `RetryPolicy().retry_statuses - {409}`."""
    rng: random.Random | None = field(default=None, compare=False, repr=False)
    """Where jitter's random fractions come from; None uses the `random` module's
    functions. `random.Random(seed)` makes the delays repeatable."""

    def __post_init__(self) -> None:
        problems = [
            *self._count_problems(),
            *self._delay_problems(),
            *self._status_problems(),
        ]
        if self.rng is not None and not isinstance(self.rng, random.Random):  # pyright: ignore[reportUnnecessaryIsInstance]
            problems.append(f"rng must be a random.Random or None, not {type(self.rng).__name__}")
        if problems:
            raise UserError(f"RetryPolicy: {'; '.join(problems)}")
        # A frozenset whatever was given, so that policies compare and hash by value.
        object.__setattr__(self, "retry_statuses", _Statuses(self.retry_statuses))

    def retry_delay(self, error: BaseException, retries_done: int) -> float | None:
        """Seconds to wait before trying again after `error`, or None to give up.

        Args:
            error: What the attempt raised.
            retries_done: Retries made so far for this call (0 after the first attempt).

        Returns:
            The delay, or None: no retries are left, the error is not one that is
            retried, or the server asked for a longer wait than `max_retry_after`.
        """
        if retries_done >= self.max_retries or not self._retryable(error):
            return None
        asked = error.retry_after if isinstance(error, ModelTransportError) else None
        return self.wait(asked, retries_done)

    def wait(self, asked: float | None, retries_done: int) -> float | None:
        """The wait before the next retry: the one asked for, else the backoff.

        Args:
            asked: Seconds the server (or a retry rule) asked to wait, or None.
            retries_done: Retries made so far for this call (0 after the first attempt).

        Returns:
            `asked` as it is, or None (give up) when it is beyond `max_retry_after`;
            the backoff when nothing was asked.
        """
        if asked is None:
            return self.backoff(retries_done)
        return asked if asked <= self.max_retry_after and math.isfinite(asked) else None

    def _retryable(self, error: BaseException) -> bool:
        return may_help(error, self.retry_statuses)

    def backoff(self, retries_done: int) -> float:
        """Seconds of exponential backoff before the next retry, jitter applied.

        Args:
            retries_done: Retries made so far for this call (0 after the first attempt).

        Returns:
            `initial_delay` grown by `multiplier` once a retry, at most `max_delay`,
            shortened at random by up to `jitter` of it.
        """
        try:
            delay = min(self.initial_delay * self.multiplier**retries_done, self.max_delay)
        except OverflowError:  # so many retries that the growth leaves floats behind
            delay = self.max_delay
        fraction = self.rng.random() if self.rng is not None else random.random()
        return delay * (1 - self.jitter * fraction)

    def _count_problems(self) -> list[str]:
        if is_whole_number(self.max_retries, 0):
            return []
        return [f"max_retries={self.max_retries!r} must be a whole number >= 0"]

    def _delay_problems(self) -> list[str]:
        problems: list[str] = []
        if not is_number(self.initial_delay, 0, math.inf):
            problems.append(f"initial_delay={self.initial_delay!r} must be a number >= 0")
        if not is_number(self.max_delay, 0, math.inf, finite=False):
            problems.append(f"max_delay={self.max_delay!r} must be a number >= 0")
        elif is_number(self.initial_delay, 0, math.inf) and self.max_delay < self.initial_delay:
            problems.append(
                f"max_delay={self.max_delay!r} must be at least "
                f"initial_delay={self.initial_delay!r}"
            )
        if not is_number(self.multiplier, 1, math.inf):
            problems.append(f"multiplier={self.multiplier!r} must be a number >= 1")
        if not is_number(self.jitter, 0, 1):
            problems.append(f"jitter={self.jitter!r} must be a number from 0 to 1")
        if not is_number(self.max_retry_after, 0, math.inf, finite=False):
            problems.append(f"max_retry_after={self.max_retry_after!r} must be a number >= 0")
        return problems

    def _status_problems(self) -> list[str]:
        statuses = cast(object, self.retry_statuses)  # whatever the caller passed
        if (
            isinstance(statuses, Collection)
            and not isinstance(statuses, str | bytes)
            and all(is_number(s, 100, 599) and isinstance(s, int) for s in cast(Any, statuses))
        ):
            return []
        return [f"retry_statuses={statuses!r} must be a set of HTTP statuses (100 to 599)"]


DEFAULT_RETRY_POLICY = RetryPolicy()
"""The policy of a run that sets none."""


def may_help(error: BaseException, statuses: Set[int] = _RETRY_STATUSES) -> bool:
    """Whether trying a failed model call again may help.

    Args:
        error: What the call raised.
        statuses: The HTTP statuses worth a retry (`RetryPolicy.retry_statuses`).

    Returns:
        For a `ModelTransportError`, its `retryable`, else whether its status is one of
        `statuses`; False for anything else.
    """
    if not isinstance(error, ModelTransportError):
        return False
    if error.retryable is not None:
        return error.retryable
    return error.status_code in statuses
