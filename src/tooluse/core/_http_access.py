"""Who may reach tooluse's HTTP servers (`tooluse serve`, `tooluse web`): one ASGI guard.

Three checks on every HTTP request, before the app sees it:

- `Host` names an allowed host (the bound address, loopback, and names allowed), so
  that a page on another site cannot reach the server through DNS rebinding (421 if
  not);
- `Origin`, when a browser sends one, names an allowed host too (403 if not);
- with a token set, `Authorization: Bearer TOKEN` carries it, compared in constant
  time (401 if not), except on the paths left open (a page's own files).

Plain ASGI, standard library only, so the same code guards an app of any `mcp` or
`starlette` version.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

__all__ = ["LOOPBACK", "AccessGuard", "host_names", "is_loopback"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})
"""The host names a loopback server answers for."""


def is_loopback(host: str) -> bool:
    """Whether `host` is this machine's loopback (`localhost`, 127.0.0.0/8, `::1`).

    Args:
        host: An address or host name, IPv6 with or without brackets.

    Returns:
        True for loopback only; a host name other than `localhost` is not.
    """
    bare = bare_host(host)
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
    return frozenset(bare_host(name) for name in (bound, *LOOPBACK, *extra))


def bare_host(host: str) -> str:
    """A Host value or address without its port and IPv6 brackets, lowercased."""
    host = host.strip().lower()
    if host.startswith("["):  # [::1]:8000
        return host[1:].partition("]")[0]
    if host.count(":") == 1:  # name:port (more than one colon: a bare IPv6 address)
        return host.partition(":")[0]
    return host


class AccessGuard:
    """An ASGI app that checks Host, Origin and the bearer token, then passes the request on."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        hosts: frozenset[str],
        token: str | None,
        open_paths: Iterable[str] = (),
        token_hint: str = "",
    ) -> None:
        """Guard `app`.

        Args:
            app: The app behind the guard.
            hosts: The host names allowed in `Host` and `Origin` (`host_names`).
            token: The bearer token requests must carry; None for none.
            open_paths: Paths served without a token (a page's files, which hold no data).
            token_hint: What a client refused for its token should do, added to the 401's
                text (where the token goes).
        """
        self._app = app
        self._hosts = hosts
        self._expected = None if token is None else f"Bearer {token}".encode()
        self._open_paths = frozenset(open_paths)
        self._token_refusal = "a valid bearer token is required" + token_hint

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer a refused request here; pass the others (and lifespan events) to the app."""
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        refusal = self._refusal(scope)
        if refusal is None:
            await self._app(scope, receive, send)
            return
        status, text = refusal
        headers = [(b"content-type", b"text/plain; charset=utf-8")]
        if status == 401:
            headers.append((b"www-authenticate", b"Bearer"))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": text.encode()})

    def _refusal(self, scope: Scope) -> tuple[int, str] | None:
        headers = _headers(scope)
        if bare_host(headers.get(b"host", b"").decode("latin-1")) not in self._hosts:
            return 421, "this server does not answer for that Host; allow it with --allow-host NAME"
        origin = headers.get(b"origin")
        if origin is not None and _origin_host(origin.decode("latin-1")) not in self._hosts:
            return 403, "requests from that Origin are not allowed"
        if self._expected is None or scope["path"] in self._open_paths:
            return None
        if not hmac.compare_digest(headers.get(b"authorization", b""), self._expected):
            return 401, self._token_refusal
        return None


def _headers(scope: Scope) -> dict[bytes, bytes]:
    """The request's headers by lowercased name (the first of repeated ones)."""
    found: dict[bytes, bytes] = {}
    pairs: list[tuple[bytes, bytes]] = scope["headers"]
    for name, value in pairs:
        found.setdefault(name.lower(), value)
    return found


def _origin_host(origin: str) -> str:
    try:
        return bare_host(urlsplit(origin).hostname or "")
    except ValueError:  # not a URL (`null`, from a sandboxed page): no host matches
        return ""
