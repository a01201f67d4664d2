"""`UsageLimits`: hard limits on what one run may spend, and the checks the loop makes.

The loop counts requests and tool calls itself, whatever a model reports, and
counts them before it awaits what they bound: a request is reserved before it is
sent (`reserve_request`), a turn's function calls before any of them starts
(`reserve_tool_calls`). Runs that share one usage (agents used as tools, running at
once) therefore cannot all pass a check before one of them counts: a limit of N
never lets N+1 start. Tokens are checked before each call (a nested run may have
spent some) and after each response. Going over raises `UsageLimitExceeded`, which
keeps the conversation and the state.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from ..core._context import Usage
from ..core._values import is_whole_number
from ..exceptions import UsageLimitExceeded, UserError

__all__ = ["UsageLimits", "reserve_request", "reserve_tool_calls"]

# Each token limit, and the usage field it bounds.
_TOKEN_LIMITS = (
    ("input_tokens_limit", "input_tokens"),
    ("output_tokens_limit", "output_tokens"),
    ("total_tokens_limit", "total_tokens"),
)


@dataclass(frozen=True)
class UsageLimits:
    """Limits on what one run may use; None leaves a quantity unbounded.

    Set them as `RunConfig(usage_limits=UsageLimits(total_tokens_limit=50_000))`.
    The names are pydantic-ai's. An agent used as a tool runs in its caller's budget:
    one `UsageLimits` bounds the whole tree of runs.

    Example:
        `UsageLimits(request_limit=5, tool_calls_limit=20, total_tokens_limit=100_000)`
    """

    request_limit: int | None = None
    """The most model calls (retries of one call count once); `max_turns` bounds them too."""
    input_tokens_limit: int | None = None
    """The most input tokens, over every call."""
    output_tokens_limit: int | None = None
    """The most output tokens, over every call."""
    total_tokens_limit: int | None = None
    """The most input and output tokens together."""
    tool_calls_limit: int | None = None
    """The most function tool calls run; a turn whose calls would go over runs none of them."""

    def __post_init__(self) -> None:
        wrong = [
            f"{f.name}={value!r}"
            for f in fields(self)
            if (value := getattr(self, f.name)) is not None and not is_whole_number(value, 0)
        ]
        if wrong:
            raise UserError(
                f"UsageLimits: {', '.join(wrong)}: each limit is a whole number >= 0, or None"
            )

    def check_before_request(self, usage: Usage) -> None:
        """Raise if the next model call would go over a limit.

        Args:
            usage: The run's usage so far.

        Raises:
            UsageLimitExceeded: If `request_limit` would be passed, or a token limit
                already is (a nested run may have spent tokens since the last check).
        """
        limit = self.request_limit
        if limit is not None and usage.requests + 1 > limit:
            raise UsageLimitExceeded("request_limit", limit, usage.requests + 1)
        self.check_tokens(usage)

    def check_tokens(self, usage: Usage) -> None:
        """Raise if the tokens used are over a token limit.

        Args:
            usage: The run's usage so far.

        Raises:
            UsageLimitExceeded: If they are.
        """
        for name, used_field in _TOKEN_LIMITS:
            limit: int | None = getattr(self, name)
            used: int = getattr(usage, used_field)
            if limit is not None and used > limit:
                raise UsageLimitExceeded(name, limit, used)

    def check_tool_calls(self, usage: Usage, coming: int) -> None:
        """Raise if running `coming` more tool calls would go over `tool_calls_limit`.

        Args:
            usage: The run's usage so far.
            coming: The calls about to run.

        Raises:
            UsageLimitExceeded: If they would.
        """
        limit = self.tool_calls_limit
        if limit is not None and coming and usage.tool_calls + coming > limit:
            raise UsageLimitExceeded("tool_calls_limit", limit, usage.tool_calls + coming)


def reserve_request(limits: UsageLimits | None, usage: Usage) -> None:
    """Count the model request about to be sent, once the limits allow it.

    Args:
        limits: The run's limits, if any.
        usage: The run's usage (shared with its nested runs).

    Raises:
        UsageLimitExceeded: If the request would pass `request_limit`, or the tokens
            already spent are over a token limit; nothing is counted then.
    """
    if limits is not None:
        limits.check_before_request(usage)
    usage.requests += 1


def reserve_tool_calls(limits: UsageLimits | None, usage: Usage, coming: int) -> None:
    """Count a turn's function calls before any starts, once the limits allow them all.

    A call that then does not run (its input guardrails refuse it) is taken back off
    by the executor.

    Args:
        limits: The run's limits, if any.
        usage: The run's usage (shared with its nested runs).
        coming: The calls about to run.

    Raises:
        UsageLimitExceeded: If they would pass `tool_calls_limit`; none of them is
            counted or run then.
    """
    if limits is not None:
        limits.check_tool_calls(usage, coming)
    usage.tool_calls += coming
