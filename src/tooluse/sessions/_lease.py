"""A run's claim on a session id: who holds it, whether its holder is gone, keeping it alive.

A claim is a row in the runs table: `owner` names the holder (host, process id and
a random token) and `expires_at` (wall-clock seconds) when the claim lapses unless
renewed. A store takes the row when it is free: no owner, expired, or owned by a
process on this host that no longer runs (a run killed outright frees its session
at once). The holder renews it every third of the lease while the run goes on.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
import sys
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import asynccontextmanager

from ..core._tasks import succeeded, to_the_end
from ..exceptions import UserError
from ._protocol import SessionBusyError

__all__ = ["check_lease_seconds", "claimable", "hold_claim", "new_owner", "owner_is_gone"]

logger = logging.getLogger("tooluse.sessions")

_SEPARATOR = "|"

Acquire = Callable[[str, float, float], Awaitable[bool]]
"""`acquire(owner, now, expires_at)`: take the claim if `claimable`; True if taken."""
Renew = Callable[[str, float], Awaitable[bool]]
"""`renew(owner, expires_at)`: push the expiry on if `owner` still holds it; True if so."""
Release = Callable[[str], Awaitable[None]]
"""`release(owner)`: free the claim if `owner` still holds it."""


def new_owner() -> str:
    """A fresh owner string: this host, this process, and a token unique to one claim."""
    return _SEPARATOR.join((socket.gethostname(), str(os.getpid()), secrets.token_hex(8)))


def owner_is_gone(owner: str) -> bool:
    """Whether `owner` is a process on this host that no longer runs.

    An owner on another host, or one that cannot be read, is never taken for gone:
    its claim lapses only when it expires.
    """
    host, _, rest = owner.partition(_SEPARATOR)
    pid_text, _, _token = rest.partition(_SEPARATOR)
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    return pid != os.getpid() and not _pid_alive(pid)


def _pid_alive(pid: int) -> bool:
    if sys.platform == "win32":  # pragma: no cover - os.kill(pid, 0) would end the process
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. PermissionError: it runs, as another user
        return True
    return True


def claimable(owner: str | None, expires_at: float | None, now: float) -> bool:
    """Whether a claim held by `owner` until `expires_at` may be taken at `now`."""
    if owner is None or expires_at is None or expires_at <= now:
        return True
    return owner_is_gone(owner)


def check_lease_seconds(kind: str, lease_seconds: object) -> float:
    """`lease_seconds`, checked to be a positive number.

    Raises:
        UserError: It is not.
    """
    if (
        isinstance(lease_seconds, (int, float))
        and not isinstance(lease_seconds, bool)
        and lease_seconds > 0
    ):
        return float(lease_seconds)
    raise UserError(
        f"{kind}(lease_seconds={lease_seconds!r}): the lease must be a positive number of "
        "seconds (how long a run's claim lasts unless renewed; 30 by default)"
    )


@asynccontextmanager
async def hold_claim(
    session_id: str, lease_seconds: float, acquire: Acquire, renew: Renew, release: Release
) -> AsyncGenerator[str, None]:
    """Hold the claim on `session_id` while the context is open; yields the owner string.

    Raises:
        SessionBusyError: Another live claim holds the session.
    """
    owner = new_owner()
    now = time.time()
    # The write goes on in its thread if this task is cancelled: a claim it took is let go.
    acquiring = asyncio.ensure_future(acquire(owner, now, now + lease_seconds))
    try:
        taken = await to_the_end(acquiring)
    except asyncio.CancelledError:
        if succeeded(acquiring) and acquiring.result():
            await to_the_end(asyncio.ensure_future(release(owner)))
        raise
    if not taken:
        raise SessionBusyError(session_id)
    keeper = asyncio.create_task(_keep(session_id, owner, lease_seconds, renew))
    try:
        yield owner
    finally:
        keeper.cancel()
        await asyncio.wait({keeper})
        await to_the_end(asyncio.ensure_future(release(owner)))


async def _keep(session_id: str, owner: str, lease_seconds: float, renew: Renew) -> None:
    while True:
        await asyncio.sleep(lease_seconds / 3)
        try:
            kept = await renew(owner, time.time() + lease_seconds)
        except Exception:  # a passing database error: the next renewal tries again
            logger.warning("Session %r: renewing the run's claim failed", session_id, exc_info=True)
            continue
        if not kept:
            logger.warning(
                "Session %r: the run's claim lapsed and another run took the session; this "
                "run can no longer store its turns (raise lease_seconds if the event loop "
                "is blocked for long)",
                session_id,
            )
            return
