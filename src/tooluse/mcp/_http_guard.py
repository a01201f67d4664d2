"""Who may reach `serve`'s HTTP endpoint: a bearer token, and the Host and Origin allowed.

Three checks, in front of the MCP app, on every HTTP request:

- `Host` names an allowed host (by default the bound address and loopback), so that
  a page on another site cannot reach the server through DNS rebinding (421 if not);
- `Origin`, when a browser sends one, names an allowed host too (403 if not);
- with a token set, `Authorization: Bearer TOKEN` carries it, compared in constant
  time (401 if not).

A server bound to an address other than loopback must have a token, unless its
owner says that something in front of it authenticates (`allow_unauthenticated`).
The checks are this module's own ASGI code, the same on every `mcp` version.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..exceptions import UserError

__all__ = ["TOKEN_ENVIRONMENT_VARIABLE", "HttpGuard", "check_exposure", "host_names", "is_loopback"]

TOKEN_ENVIRONMENT_VARIABLE = "TOOLUSE_SERVE_TOKEN"
"""Where `tooluse serve` reads its bearer token when `--token` is not given."""

_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")


def is_loopback(host: str) -> bool:
    """Whether `host` is this machine's loopback (`localhost`, 127.0.0.0/8, `::1`).

    Args:
        host: An address or host name, IPv6 with or without brackets.

    Returns:
        True for loopback only; a host name other than `localhost` is not.
    """
    bare = _bare(host)
    if bare == "localhost":
        return True
    try:
        return ipaddress.ip_address(bare).is_loopback
    except ValueError:  # a host name: it may resolve to anything
        return False


def host_names(bound: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """The host names a request may name: the bound address, loopback, and `extra`.

    Args:
        bound: The address the server listens on.
        extra: More names clients use to reach it (a DNS name, a public address).

    Returns:
        Each name lowercased, IPv6 without brackets, ports left off.
    """
    return frozenset(_bare(name) for name in (bound, *_LOOPBACK_NAMES, *extra))


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


class HttpGuard:
    """An ASGI app that checks Host, Origin and the bearer token, then passes the request on."""

    def __init__(self, app: ASGIApp, *, hosts: frozenset[str], token: str | None) -> None:
        """Guard `app`.

        Args:
            app: The MCP app.
            hosts: The host names allowed in `Host` and `Origin` (`host_names`).
            token: The bearer token every request must carry; None for none.
        """
        self._app = app
        self._hosts = hosts
        self._expected = None if token is None else f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer a refused request here; pass the others (and lifespan events) to the app."""
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        refusal = self._refusal(_headers(scope))
        if refusal is None:
            await self._app(scope, receive, send)
            return
        status, text = refusal
        await _answer(send, status, text, bearer=status == 401)

    def _refusal(self, headers: dict[bytes, bytes]) -> tuple[int, str] | None:
        host = headers.get(b"host", b"").decode("latin-1")
        if _bare(host) not in self._hosts:
            return 421, "this server does not answer for that Host"
        origin = headers.get(b"origin")
        if origin is not None and _origin_host(origin.decode("latin-1")) not in self._hosts:
            return 403, "requests from that Origin are not allowed"
        if self._expected is not None:
            sent = headers.get(b"authorization", b"")
            if not hmac.compare_digest(sent, self._expected):
                return 401, "a valid bearer token is required"
        return None


def _headers(scope: Scope) -> dict[bytes, bytes]:
    """The request's headers by lowercased name (the first of repeated ones)."""
    found: dict[bytes, bytes] = {}
    pairs: list[tuple[bytes, bytes]] = scope["headers"]
    for name, value in pairs:
        found.setdefault(name.lower(), value)
    return found


def _bare(host: str) -> str:
    """A Host value or address without its port and IPv6 brackets, lowercased."""
    host = host.strip().lower()
    if host.startswith("["):  # [::1]:8000
        return host[1:].partition("]")[0]
    if host.count(":") == 1:  # name:port (more than one colon: a bare IPv6 address)
        return host.partition(":")[0]
    return host


def _origin_host(origin: str) -> str:
    try:
        return _bare(urlsplit(origin).hostname or "")
    except ValueError:  # not a URL (`null`, from a sandboxed page): no host matches
        return ""


async def _answer(send: Send, status: int, text: str, *, bearer: bool) -> None:
    headers = [(b"content-type", b"text/plain; charset=utf-8")]
    if bearer:
        headers.append((b"www-authenticate", b"Bearer"))
    start: Message = {"type": "http.response.start", "status": status, "headers": headers}
    await send(start)
    await send({"type": "http.response.body", "body": text.encode()})
