"""Who may reach `tooluse web`: the Host and Origin allowed, and a bearer token off loopback.

The same rules as `tooluse serve`: a request whose `Host` is not the bound address,
loopback or a name allowed gets 421; a browser request whose `Origin` is not one of
them gets 403 (so a page on another site cannot drive the agent); with a token, every
API request carries `Authorization: Bearer TOKEN`, compared in constant time (401
otherwise). The page's own files need no token: they hold no data, and the page
reads the token from its address (`#token=...`).
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["LOOPBACK", "AccessGuard", "is_loopback"]

LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})
"""The host names a loopback server answers for."""


def is_loopback(host: str) -> bool:
    """Whether an address to listen on reaches this machine only.

    Args:
        host: A host name or IP address.

    Returns:
        True for `localhost` and loopback addresses.
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _bare(host: str) -> str:
    """A Host value without its port and IPv6 brackets, lowercased."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class AccessGuard:
    """An ASGI app that checks Host, Origin and the bearer token, then passes the request on."""

    def __init__(
        self, app: ASGIApp, *, hosts: Iterable[str], token: str | None, open_paths: Iterable[str]
    ) -> None:
        """Guard an app.

        Args:
            app: The app behind the guard.
            hosts: The host names allowed in `Host` and `Origin`.
            token: The bearer token API requests must carry; None for none.
            open_paths: Paths served without a token (the page's files).
        """
        self.app = app
        self.hosts = frozenset(_bare(host) for host in hosts)
        self.expected = None if token is None else f"Bearer {token}".encode()
        self.open_paths = frozenset(open_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self._refusal(scope)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, text = refusal
        headers = [(b"content-type", b"text/plain; charset=utf-8")]
        if status == 401:
            headers.append((b"www-authenticate", b"Bearer"))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": text.encode()})

    def _refusal(self, scope: Scope) -> tuple[int, str] | None:
        pairs: list[tuple[bytes, bytes]] = scope["headers"]
        headers = {key.decode("latin-1").lower(): value for key, value in pairs}
        host = headers.get("host", b"").decode("latin-1")
        if _bare(host) not in self.hosts:
            return 421, "this server does not answer for that Host; start it with --allow-host NAME"
        origin = headers.get("origin")
        origin_host = "" if origin is None else str(urlsplit(origin.decode("latin-1")).netloc)
        if origin is not None and _bare(origin_host) not in self.hosts:
            return 403, "requests from that Origin are not allowed"
        if self.expected is None or scope["path"] in self.open_paths:
            return None
        given = headers.get("authorization", b"")
        if not hmac.compare_digest(given, self.expected):
            return 401, "a valid bearer token is required: open the address with #token=TOKEN"
        return None
