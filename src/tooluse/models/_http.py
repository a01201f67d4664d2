"""What every provider's model reads the same way from an HTTP answer: the wait it asks for.

A server names its wait in `retry-after-ms` (OpenAI's, more precise) or
`Retry-After` (seconds, or an HTTP date). A wait of zero or less (a date already
past) is no wait named: the backoff applies, so a server that keeps saying 0 is
not hit in a tight loop.
"""

from __future__ import annotations

import email.utils
import math
from collections.abc import Mapping
from datetime import datetime, timezone

__all__ = ["retry_after"]


def retry_after(headers: Mapping[str, str]) -> float | None:
    """The wait the server asked for, in seconds; None when it named none it means.

    Args:
        headers: The answer's headers (looked up case-insensitively by the SDKs' types).

    Returns:
        The wait, or None.
    """
    delay = _seconds(headers.get("retry-after-ms"), 1000)
    if delay is None:
        delay = _seconds(headers.get("retry-after"), 1)
    if delay is None:
        delay = _date_delay(headers.get("retry-after"))
    return delay if delay is not None and delay > 0 else None


def _seconds(value: str | None, per_second: float) -> float | None:
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return None if math.isnan(number) else number / per_second


def _date_delay(value: str | None) -> float | None:
    if not value:
        return None
    try:
        date = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if date.tzinfo is None:  # "-0000": UTC, with no claim about local time
        date = date.replace(tzinfo=timezone.utc)
    return (date - datetime.now(timezone.utc)).total_seconds()
