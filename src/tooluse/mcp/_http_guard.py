"""`serve` over HTTP: where its token comes from, and no listening beyond loopback without one.

The requests themselves are checked by `core._http_access.AccessGuard` (Host, Origin,
bearer token), the guard `tooluse web` uses too.
"""

from __future__ import annotations

from ..core._http_access import is_loopback
from ..exceptions import UserError

__all__ = ["TOKEN_ENVIRONMENT_VARIABLE", "check_exposure"]

TOKEN_ENVIRONMENT_VARIABLE = "TOOLUSE_SERVE_TOKEN"
"""Where `tooluse serve` reads its bearer token when `--token` is not given."""


def check_exposure(host: str, *, token: str | None, allow_unauthenticated: bool) -> None:
    """Refuse to listen beyond loopback with no token, unless told that is intended.

    Args:
        host: The address `serve` is asked to listen on.
        token: The bearer token clients must send, if any.
        allow_unauthenticated: Listen with no token even off loopback (a proxy in front
            authenticates).

    Raises:
        UserError: If `host` is not loopback, no token is set and that was not allowed.
    """
    if token is not None and not token:
        raise UserError(
            "serve: token='' is empty; pass a secret (tooluse serve reads it from "
            f"--token or {TOKEN_ENVIRONMENT_VARIABLE}), or None for no token on loopback"
        )
    if token is None and not allow_unauthenticated and not is_loopback(host):
        raise UserError(
            f"serve: host={host!r} is not a loopback address, and no token is set: anyone who "
            "can reach it could call the tools. Set a bearer token (serve(token=...); for "
            f"tooluse serve, {TOKEN_ENVIRONMENT_VARIABLE}=... or --token), or, if something "
            "in front of the server authenticates, allow it with "
            "serve(allow_unauthenticated=True) (tooluse serve --allow-unauthenticated)"
        )
