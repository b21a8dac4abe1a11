"""HTTP middleware (ASGI): security headers and no cross-site writes (:class:`Hygiene`), bounded
bodies and request rates (:class:`HttpGuard`), one access-log line per request
(:class:`AccessLog`), and the small helpers every route uses (the request's language, its
client's address, a bearer token, an error response).
"""

from __future__ import annotations

import logging
import time
from typing import Final
from urllib.parse import urlsplit

from fastapi import Request
from fastapi.responses import JSONResponse
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gonuts.server.kernel import i18n
from gonuts.server.kernel.errors import ErrorCode, error_text
from gonuts.server.kernel.limits import BucketMap, Limits
from gonuts.server.kernel.metrics import Metrics
from gonuts.server.transport.http import CUT_OFF
from gonuts.server.transport.wire import error_body

E = ErrorCode
UPLOAD_PATH: Final = "/api/replay"
BODY_METHODS: Final = frozenset({"POST", "PUT", "PATCH"})

access_log = logging.getLogger("gonuts.access")
log = logging.getLogger("gonuts.server")

SAFE_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS"})
PAGE_CSP: Final = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; font-src 'self'; manifest-src 'self'; worker-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""The browser client's policy (the same as its ``<meta>``), plus no framing (clickjacking)."""
RULES_CSP: Final = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)
"""/rules is one self-contained page: inline styles, no script."""
SECURITY_HEADERS: Final = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
)


def request_lang(request: Request) -> str:
    return i18n.negotiate(request.query_params.get("lang"), request.headers.get("accept-language"))


def error_response(
    code: ErrorCode, message: str, status: int, headers: dict[str, str] | None = None
) -> JSONResponse:
    return JSONResponse(error_body(code, message), status_code=status, headers=headers)


def client_key(request: Request) -> str:
    """Whose quota a request counts against: the client's address."""
    return request.client.host if request.client is not None else "unknown"


def same_origin(scope: Scope) -> bool:
    """True when the request carries no ``Origin`` (not a browser, or a same-origin GET) or
    one whose host and port are the ``Host`` it was sent to: a page of another site may not
    make a visitor's browser write here (create, join, act, upload) or open a socket."""
    headers = Headers(scope=scope)
    origin = headers.get("origin")
    if origin is None:
        return True
    host = headers.get("host")
    try:
        netloc = urlsplit(origin).netloc
    except ValueError:
        return False
    return host is not None and bool(netloc) and netloc.lower() == host.lower()


PROOF_SITES: Final = frozenset({"same-origin", "none"})
"""``Sec-Fetch-Site`` values that prove a request is the site's own (``none``: the user typed
it, or a bookmark)."""


def carries_cookie(headers: Headers, names: frozenset[str] | None) -> bool:
    """True when the request sends a credential cookie: one of ``names``, or any cookie at all
    when ``names`` is None."""
    raw = headers.get("cookie")
    if not raw:
        return False
    if names is None:
        return True
    sent = {part.partition("=")[0].strip() for part in raw.split(";")}
    return not sent.isdisjoint(names)


def proven_same_site(scope: Scope) -> bool:
    """For a write with no ``Origin``: True when the browser says it is this site's own
    (``Sec-Fetch-Site: same-origin`` or ``none``) or its ``Referer`` is this host. Browsers
    send ``Origin`` on every cross-site write, but some old ones, and some privacy settings,
    leave it out; a form of another site then still carries ``Sec-Fetch-Site: cross-site``
    or that site's ``Referer`` (this server's ``Referrer-Policy: same-origin`` keeps its own
    pages' ``Referer`` whole)."""
    headers = Headers(scope=scope)
    site = headers.get("sec-fetch-site")
    if site is not None:
        return site.strip().lower() in PROOF_SITES
    referer = headers.get("referer")
    host = headers.get("host")
    if not referer or not host:
        return False
    try:
        netloc = urlsplit(referer).netloc
    except ValueError:
        return False
    return bool(netloc) and netloc.lower() == host.lower()


class ClientGoneError(Exception):
    """The client closed the connection before its request body was complete."""


class Hygiene:
    """ASGI middleware: security headers on every HTTP response, and no cross-site writes:
    a state-changing request (403) or WebSocket handshake (refused) whose ``Origin`` is
    another site's, and a state-changing request that carries a cookie but no ``Origin``
    and no proof that it is this site's own (:func:`proven_same_site`; 403).

    A request with an ``Authorization`` header is not held to the cookie rule: a page of
    another site cannot send one without the CORS permission this server never gives, so
    the bearer-token API (scripts, bots) is unchanged. ``credential_cookies``: the cookies
    that count (None: any cookie)."""

    def __init__(
        self, app: ASGIApp, metrics: Metrics, credential_cookies: frozenset[str] | None = None
    ) -> None:
        self.app = app
        self.metrics = metrics
        self.credential_cookies = credential_cookies

    def cross_site_write(self, scope: Scope) -> str | None:
        """Why this write must be refused as cross-site, or None."""
        if not same_origin(scope):
            return "cross-origin request"
        headers = Headers(scope=scope)
        if (
            "origin" not in headers
            and "authorization" not in headers
            and carries_cookie(headers, self.credential_cookies)
            and not proven_same_site(scope)
        ):
            return "a write with a cookie needs Origin, Sec-Fetch-Site or a same-origin Referer"
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            if not same_origin(scope):
                self.metrics.error(E.HTTP_ERROR)
                await send({"type": "websocket.close", "code": 1008, "reason": "cross-origin"})
                return
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        csp = (RULES_CSP if scope["path"] == "/rules" else PAGE_CSP).encode()

        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (k, v)
                    for k, v in message.get("headers", [])
                    if k.lower() != b"content-security-policy"
                ]
                headers.extend(SECURITY_HEADERS)
                headers.append((b"content-security-policy", csp))
                message = {**message, "headers": headers}
            await send(message)

        refusal = self.cross_site_write(scope) if scope["method"] not in SAFE_METHODS else None
        if refusal is not None:
            self.metrics.error(E.HTTP_ERROR)
            text = error_text(E.HTTP_ERROR, request_lang(Request(scope)), refusal)
            await error_response(E.HTTP_ERROR, text, 403)(scope, receive, secured)
            return
        await self.app(scope, receive, secured)


def bearer(authorization: str | None) -> str | None:
    scheme, _, token = (authorization or "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


class HttpGuard:
    """ASGI middleware: bounds request bodies (413: the declared length, and the bytes that
    actually arrive: :data:`UPLOAD_PATH` takes a record, other API paths a small JSON body)
    and, on ``/api/``, requests per client address (429), before any handler runs."""

    def __init__(self, app: ASGIApp, limits: Limits, metrics: Metrics) -> None:
        self.app = app
        self.limits = limits
        self.metrics = metrics
        self.buckets = (
            BucketMap(limits.http_rate, limits.http_burst) if limits.http_rate is not None else None
        )

    def body_limit(self, path: str) -> int:
        if path == UPLOAD_PATH:
            return self.limits.max_record
        if path.startswith("/api/"):
            return self.limits.max_json_body
        return max(self.limits.max_record, self.limits.max_json_body)

    async def refuse(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        *,
        code: ErrorCode,
        detail: str,
        status: int,
        headers: dict[str, str] | None = None,
    ) -> None:
        request = Request(scope)
        self.metrics.error(code)
        text = error_text(code, request_lang(request), detail)
        await error_response(code, text, status, headers)(scope, receive, send)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        limit = self.body_limit(scope["path"])
        declared = request.headers.get("content-length", "")
        if declared and not declared.isdigit():
            await self.refuse(
                scope, receive, send, code=E.MALFORMED, detail="bad Content-Length", status=400
            )
            return
        if declared and int(declared) > limit:
            await self.refuse(
                scope, receive, send, code=E.TOO_LARGE, detail=f"limit {limit} bytes", status=413
            )
            return
        if self.buckets is not None and scope["path"].startswith("/api/"):
            bucket = self.buckets.take(client_key(request))
            if bucket is not None:
                wait = bucket.wait_time()
                retry = {"Retry-After": str(max(1, round(wait + 0.5)))}
                detail = f"retry in {wait:.1f} s"
                await self.refuse(
                    scope,
                    receive,
                    send,
                    code=E.RATE_LIMITED,
                    detail=detail,
                    status=429,
                    headers=retry,
                )
                return
        if scope["method"] in BODY_METHODS:
            try:
                body = await self.read_body(receive, limit)
            except ClientGoneError:
                if scope.get(CUT_OFF):
                    return  # too slow: answered 408 and logged (gonuts.server.transport.http)
                client = scope.get("client")
                log.warning(
                    "%s %s: the client left before its request body was complete",
                    scope["method"],
                    scope["path"],
                    extra={"client": client[0] if client else None},
                )
                return
            if body is None:
                await self.refuse(
                    scope,
                    receive,
                    send,
                    code=E.TOO_LARGE,
                    detail=f"limit {limit} bytes",
                    status=413,
                )
                return
            receive = replay_body(body, receive)
        await self.app(scope, receive, send)

    @staticmethod
    async def read_body(receive: Receive, limit: int) -> bytes | None:
        """The whole body (None if over ``limit``): handlers then find it complete.

        Raises :class:`ClientGoneError` if the client disconnects first."""
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                raise ClientGoneError
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)


def replay_body(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def again() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again


class AccessLog:
    """ASGI middleware: one ``gonuts.access`` log line per HTTP request and per WebSocket."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or not access_log.isEnabledFor(logging.INFO):
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 0

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            elif message["type"] == "websocket.accept":
                status = 101
            elif message["type"] == "websocket.close" and not status:
                status = 403
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            client = scope.get("client")
            access_log.info(
                "%s %s %s",
                scope.get("method", "WS"),
                scope["path"],
                status or 500,
                extra={
                    "method": scope.get("method", "WS"),
                    "path": scope["path"],
                    "status": status or 500,
                    "ms": round((time.perf_counter() - started) * 1000, 2),
                    "client": client[0] if client else None,
                },
            )
