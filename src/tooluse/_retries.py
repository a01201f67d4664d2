"""`RetryPolicy`: when a failed model call is tried again, and after how long.

(Skeleton: the policy's rules are filled in with their tests.)
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["RetryPolicy"]


@dataclass(frozen=True)
class RetryPolicy:
    """When a failed model call is tried again, and after how long."""

    max_retries: int = 2
    """Retries after the first attempt."""
    initial_delay: float = 0.5
    """Seconds before the first retry."""
    max_delay: float = 8.0
    """The longest wait between attempts."""

    def retry_delay(self, error: BaseException, retries_done: int) -> float | None:
        """Seconds to wait before trying again after `error`, or None to give up.

        Args:
            error: What the attempt raised.
            retries_done: Retries made so far for this call.

        Returns:
            The delay, or None.
        """
        del error, retries_done
        return None
