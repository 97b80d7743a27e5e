"""Who may talk to a served game: loopback by default, a bearer token anywhere else.

:func:`check_exposure` refuses to listen on a non-loopback address without a token;
:class:`BearerGuard` is an ASGI middleware that checks the token on every request (HTTP and
WebSocket). Browsers cannot send headers, so with ``cookie=True`` a page opened once as
``/?token=...`` gets the token as an HTTP-only cookie.

Example:
    >>> is_loopback("127.0.0.1"), is_loopback("0.0.0.0")
    (True, False)
    >>> check_exposure("0.0.0.0", None)
    Traceback (most recent call last):
    ...
    ValueError: listening on 0.0.0.0 (not loopback) needs a bearer token: pass --token or set TEXTMEM_TOKEN
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs

#: Environment variable read when ``--token`` is not given.
TOKEN_ENV = "TEXTMEM_TOKEN"
#: Cookie that carries the token for browsers.
COOKIE = "textmem_token"

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Awaitable[None]]


def is_loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_exposure(host: str, token: str | None) -> None:
    """Raises ``ValueError`` when ``host`` is not loopback and no token protects it."""
    if not is_loopback(host) and not token:
        raise ValueError(f"listening on {host} (not loopback) needs a bearer token: pass --token or set {TOKEN_ENV}")


class BearerGuard:
    """ASGI middleware: every HTTP/WebSocket request must carry ``Authorization: Bearer <token>``
    (or, with ``cookie``, the token cookie or a ``?token=`` query that sets it).

    Args:
        app: The protected ASGI app.
        token: The shared secret; ``None`` lets everything through (loopback use).
        cookie: Accept the browser cookie / query parameter too.
    """

    def __init__(self, app: ASGIApp, token: str | None, *, cookie: bool = False) -> None:
        self.app, self.token, self.cookie = app, token, cookie

    def _matches(self, candidate: str | None) -> bool:
        return candidate is not None and self.token is not None and \
            hmac.compare_digest(candidate.encode(), self.token.encode())

    def _presented(self, scope: Scope) -> tuple[bool, bool]:
        """(authorized, came from the query string)."""
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        scheme, _, value = headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and self._matches(value.strip()):
            return True, False
        if not self.cookie:
            return False, False
        jar: SimpleCookie = SimpleCookie(headers.get("cookie", ""))
        if COOKIE in jar and self._matches(jar[COOKIE].value):
            return True, False
        query = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [None])[0]
        return (True, True) if self._matches(query) else (False, False)

    async def __call__(self, scope: Scope, receive: Callable[[], Awaitable[Any]],
                       send: Callable[[Any], Awaitable[None]]) -> None:
        if self.token is None or scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        authorized, from_query = self._presented(scope)
        if not authorized:
            await self._refuse(scope, send)
            return
        if from_query:
            send = self._setting_cookie(send)
        await self.app(scope, receive, send)

    def _setting_cookie(self, send: Callable[[Any], Awaitable[None]]) -> Callable[[Any], Awaitable[None]]:
        async def wrapped(message: Any) -> None:
            if message["type"] == "http.response.start":
                cookie = f"{COOKIE}={self.token}; HttpOnly; SameSite=Strict; Path=/"
                message = {**message, "headers": [*message.get("headers", []), (b"set-cookie", cookie.encode())]}
            await send(message)
        return wrapped

    @staticmethod
    async def _refuse(scope: Scope, send: Callable[[Any], Awaitable[None]]) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 4401})
            return
        body = json.dumps({"error": "unauthorized: send 'Authorization: Bearer <token>'"}).encode()
        await send({"type": "http.response.start", "status": 401,
                    "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
