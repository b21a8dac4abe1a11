"""The ASGI app: HTTP lobby and replays, one WebSocket per table, static files, /rules, probes.

``create_app(db_url=...)`` builds it; ``gonuts serve`` runs it with uvicorn. The protocol is
docs/protocol.md; the request and response models are :mod:`gonuts.server.play.messages`, from
which FastAPI also writes the OpenAPI description (``/api/openapi.json``).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, Final, Literal
from urllib.parse import urlsplit

from fastapi import APIRouter, Depends, FastAPI, Header, Query, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gonuts import __version__
from gonuts.cards import MAX_PLAYERS, MIN_PLAYERS
from gonuts.errors import RecordError
from gonuts.record import Record
from gonuts.server.accounts.api import CurrentAccount, accounts_router
from gonuts.server.kernel import i18n
from gonuts.server.kernel.errors import ErrorCode, ServiceError, error_text
from gonuts.server.kernel.limits import BucketMap, Limits, TableQuota
from gonuts.server.kernel.metrics import CONTENT_TYPE, Metrics
from gonuts.server.kernel.work import BoundedPool, check_record_names
from gonuts.server.lobby.tutorial import tutorial_table
from gonuts.server.play.clock import default_clock
from gonuts.server.play.messages import (
    BOT_LEVELS,
    ActBody,
    Acted,
    Config,
    CreateTable,
    CreateTutorial,
    ErrorBody,
    GameList,
    JoinTable,
    Replay,
    Seated,
    State,
    TableList,
    TableSummary,
    error_body,
    replay_data,
    state_message,
    table_summary,
)
from gonuts.server.play.service import Service
from gonuts.server.play.store import TableStore
from gonuts.server.transport.http import CUT_OFF
from gonuts.server.transport.rules_page import rules_html
from gonuts.server.transport.socket import CLOSE_RESTART, LiveSocket, first_error

E = ErrorCode
WEB_DIR: Final = i18n.WEB_DIR
STATIC_DIR: Final = WEB_DIR / "static"
MAX_MESSAGE: Final = Limits.max_message
MAX_JSON_BODY: Final = Limits.max_json_body
MAX_RECORD: Final = Limits.max_record
UPLOAD_PATH: Final = "/api/replay"
BODY_METHODS: Final = frozenset({"POST", "PUT", "PATCH"})

access_log = logging.getLogger("gonuts.access")
log = logging.getLogger("gonuts.server")

SAFE_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS"})
PAGE_CSP: Final = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
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

PLACEHOLDER: Final = (
    "<!doctype html><meta charset=utf-8><title>Go Nuts for Donuts</title>"
    "<p>The web front end is not installed (no static/index.html).</p>"
)


def tune_gc_for_serving(gen0: int = 20_000, gen1: int = 0, gen2: int = 60) -> None:
    """Shorter and rarer garbage-collector pauses for a long-running server process.

    Under load the heap is mostly per-connection machinery (coroutines, frames) and live
    games; CPython's full collections walk all of it, and stalled every table for 100-250 ms
    at 1,000 players. Freezing what exists at startup takes it out of every collection, and a
    larger first-generation threshold lets short-lived objects (game copies, messages) die by
    reference counting before a collection would promote them.

    A middle-generation collection walks the young generation and everything promoted since
    the last one: with CPython's ``gen1`` of 10, twelve young collections' worth, 170,000 to
    240,000 objects at 1,000 players (mostly their WebSockets' machinery, ~150 objects each,
    and the games' events): a 100-190 ms pause about every 90 s, the longest wait of issue
    17's load test. With ``gen1=0`` it runs at every other young collection, whenever the
    middle generation holds anything, and walks about twice ``gen0`` objects (20-50 ms): the
    same objects are walked once each either way, in smaller pieces. ``gen2=60`` keeps full
    collections as rare as before (one per ~120 young collections, and only when the old
    generation has grown by a quarter since the last).
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(gen0, gen1, gen2)


def default_db_url() -> str:
    return "sqlite:///gonuts.sqlite3"


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


class ClientGoneError(Exception):
    """The client closed the connection before its request body was complete."""


class Hygiene:
    """ASGI middleware: security headers on every HTTP response, and no cross-site writes:
    a state-changing request (403) or WebSocket handshake (refused) whose ``Origin`` is
    another site's."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

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

        if scope["method"] not in SAFE_METHODS and not same_origin(scope):
            self.metrics.error(E.HTTP_ERROR)
            text = error_text(E.HTTP_ERROR, request_lang(Request(scope)), "cross-origin request")
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


# -- parameters shared by the API routes ---------------------------------------------------------

LangParam = Annotated[
    str | None,
    Query(alias="lang", description="language of the texts: en, es or it (else Accept-Language)"),
]
AuthHeader = Annotated[
    str | None,
    Header(alias="Authorization", description="`Bearer <seat token>`", max_length=300),
]


async def _lang_param(lang_query: LangParam = None) -> None:
    """Documents ``?lang=`` on every API route (:func:`request_lang` reads it). Async: a plain
    function would be run in a worker thread for every request."""


ERRORS: Final[dict[int | str, dict[str, Any]]] = {
    status: {"model": ErrorBody, "description": what}
    for status, what in (
        (403, "bad_token"),
        (404, "unknown_table, unknown_language"),
        (409, "the rules or the table refuse it (see docs/protocol.md)"),
        (413, "too_large"),
        (422, "malformed, bad_action, bad_record"),
        (429, "rate_limited, too_many_tables"),
    )
}


def create_app(
    db_url: str | None = None,
    *,
    bot_delay: float = 0.5,
    replace_after: float = 120.0,
    hint_iterations: int = 300,
    keep_finished: float = 300.0,
    static_dir: Path | None = None,
    service: Service | None = None,
    limits: Limits | None = None,
    shutdown_grace: float = 10.0,
    think_workers: int = 0,
    think_ray: str | None = None,
    clock_scale: float = 1.0,
) -> FastAPI:
    """The gonuts web app on the database ``db_url`` (SQLite file by default).

    ``limits`` bounds what one client may do (sizes, rates, open tables); see
    :class:`gonuts.server.kernel.limits.Limits` for the defaults. A finished table nobody has
    watched for ``keep_finished`` seconds leaves memory (it stays in the database). At
    shutdown, moves being stored get ``shutdown_grace`` seconds to finish. Bots and hints
    think in ``think_workers`` worker processes (0: two threads of this process; ``gonuts
    serve`` starts one per core but one, :mod:`gonuts.server.kernel.thinking`), or on the Ray
    cluster at ``think_ray`` (empty: a local one). ``clock_scale``
    multiplies every table's turn clock (tests shorten it; :mod:`gonuts.server.play.clock`).
    """
    lim = limits or Limits()
    quota = TableQuota(lim.max_open_tables)
    svc = service or Service(
        TableStore(db_url or default_db_url()),
        bot_delay=bot_delay,
        replace_after=replace_after,
        hint_iterations=hint_iterations,
        keep_finished=keep_finished,
        think_workers=think_workers,
        think_ray=think_ray,
        clock_scale=clock_scale,
    )
    static = static_dir or STATIC_DIR
    replays = BoundedPool(lim.replay_workers, lim.replay_queue, "gonuts-replay")

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await svc.thinker.start()  # the worker processes import the bots before the first move
        await svc.start()
        yield
        replays.close()
        # uvicorn has stopped accepting and closed its sockets (1012) by now; another server
        # may not have: finish the moves being stored, then close what is left, then stop
        await svc.drain(shutdown_grace)
        await svc.close_sockets(CLOSE_RESTART, "server restart")
        await svc.close()
        svc.thinker.close()

    app = FastAPI(
        title="gonuts",
        version=__version__,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    app.state.service = svc
    app.state.limits = lim
    app.add_middleware(HttpGuard, limits=lim, metrics=svc.metrics)
    app.add_middleware(Hygiene, metrics=svc.metrics)
    app.add_middleware(AccessLog)

    @app.exception_handler(ServiceError)
    async def _service_error(request: Request, exc: ServiceError) -> JSONResponse:
        svc.metrics.error(exc.code)
        lang = request_lang(request)
        return error_response(exc.code, error_text(exc.code, lang, exc.detail), exc.status)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        svc.metrics.error(E.MALFORMED)
        problems = exc.errors()
        detail = None
        if problems:
            first = problems[0]
            where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
            detail = f"{where}: {first.get('msg', 'invalid')}" if where else first.get("msg")
        return error_response(
            E.MALFORMED, error_text(E.MALFORMED, request_lang(request), detail), 422
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        code = E.NOT_FOUND if exc.status_code == 404 else E.HTTP_ERROR
        svc.metrics.error(code)
        page = static / "index.html"
        if (
            exc.status_code == 404
            and not request.url.path.startswith("/api/")
            and "text/html" in request.headers.get("accept", "")
            and page.is_file()
        ):  # a browser's unknown page: the app says "page not found" (JSON stays for /api/*)
            return FileResponse(page, status_code=404, media_type="text/html")
        return error_response(code, str(exc.detail), exc.status_code)

    # -- pages ------------------------------------------------------------------------------------

    def index() -> Response:
        page = static / "index.html"
        if page.is_file():
            return FileResponse(page, media_type="text/html")
        return HTMLResponse(PLACEHOLDER)

    @app.get("/", include_in_schema=False)
    async def root() -> Response:
        return index()

    @app.get("/t/{table_id}", include_in_schema=False)
    async def table_page(table_id: str) -> Response:
        return index()

    @app.get("/replays", include_in_schema=False)
    async def replays_page() -> Response:
        return index()

    @app.get("/replay/{game_id}", include_in_schema=False)
    async def replay_page(game_id: str) -> Response:
        return index()

    @app.get("/account", include_in_schema=False)
    @app.get("/leaderboard", include_in_schema=False)
    @app.get("/players/{name}", include_in_schema=False)
    async def account_pages() -> Response:
        return index()

    @app.get("/rules", include_in_schema=False)
    async def rules(request: Request) -> HTMLResponse:
        return HTMLResponse(rules_html(request_lang(request)))

    @app.get("/i18n/{name}", include_in_schema=False)
    async def raw_catalogue(name: str) -> Response:
        lang = name.removesuffix(".json")
        if lang not in i18n.LANGS or not name.endswith(".json"):
            raise ServiceError(E.UNKNOWN_LANGUAGE, None, 404)
        return JSONResponse(i18n.messages(lang))

    app.mount("/static", StaticFiles(directory=static, check_dir=False), name="static")

    # -- operations: probes and metrics ---------------------------------------------------------

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, str]:
        """Alive: the process answers (a supervisor restarts it otherwise)."""
        return {"status": "ok"}

    @app.get("/readyz", include_in_schema=False)
    async def readyz() -> JSONResponse:
        """Ready for traffic: the database answers and its schema is at the newest migration."""
        reason = await asyncio.to_thread(svc.readiness)
        if reason is None:
            return JSONResponse({"status": "ready"})
        return JSONResponse({"status": "unavailable", "reason": reason}, status_code=503)

    @app.get("/metrics", include_in_schema=False)
    async def metrics() -> Response:
        return Response(svc.metrics.render(), media_type=CONTENT_TYPE)

    # -- the API ----------------------------------------------------------------------------------

    api = APIRouter(prefix="/api", dependencies=[Depends(_lang_param)], responses=ERRORS)

    @api.get("/config")
    async def config(request: Request) -> Config:
        return Config(
            lang=request_lang(request),
            languages=list(i18n.LANGS),
            bot_levels=list(BOT_LEVELS),
            min_players=MIN_PLAYERS,
            max_players=MAX_PLAYERS,
            max_message_bytes=lim.max_message,
            version=__version__,
        )

    @api.get("/i18n")
    async def catalogue_negotiated(request: Request) -> dict[str, Any]:
        return i18n.catalogue(request_lang(request))

    @api.get("/i18n/{lang}")
    async def catalogue(lang: str) -> dict[str, Any]:
        if lang not in i18n.LANGS:
            raise ServiceError(E.UNKNOWN_LANGUAGE, None, 404)
        return i18n.catalogue(lang)

    # lobby

    @api.get("/tables", response_model=TableList)
    async def list_tables(
        status: Annotated[Literal["open", "playing", "finished"] | None, Query()] = None,
        limit: Annotated[int, Query(ge=1, le=200)] = 100,
        offset: Annotated[int, Query(ge=0, le=1 << 31)] = 0,
    ) -> dict[str, Any]:
        """Newest first, ``limit`` at a time: every table can be reached with ``offset``."""
        return {"tables": await svc.list_tables(status, limit, offset)}

    def unfinished(table_id: str) -> bool:
        table = svc.tables.get(table_id)
        return table is not None and table.status != "finished"

    @api.post("/tables", status_code=201, response_model=Seated)
    async def create_table(
        body: CreateTable, request: Request, account: CurrentAccount
    ) -> dict[str, Any]:
        """A new table; a signed-in creator sits under their account's name (rated games)."""
        seats = [(s.kind, s.level) for s in body.seats]
        kinds = [s.kind for s in body.seats]
        key = client_key(request)
        if not quota.reserve(key, unfinished):
            raise ServiceError(E.TOO_MANY_TABLES, f"at most {lim.max_open_tables}", 429)
        made: str | None = None
        try:
            table, seat, token = await svc.create_table(
                seats,
                account.name if account is not None else body.name,
                request_lang(request),
                variants=body.variants,
                account=account.id if account is not None else None,
                clock=body.clock if "clock" in body.model_fields_set else default_clock(kinds),
            )
            made = table.id
        finally:
            quota.settle(key, made)
        return {"table": table_summary(table), "seat": seat, "token": token}

    @api.post("/tutorial", status_code=201, response_model=Seated)
    async def create_tutorial(body: CreateTutorial, request: Request) -> dict[str, Any]:
        """The first-game guide: a 2-player table against the scripted coach, started at once
        (it counts as one of the caller's open tables)."""
        key = client_key(request)
        if not quota.reserve(key, unfinished):
            raise ServiceError(E.TOO_MANY_TABLES, f"at most {lim.max_open_tables}", 429)
        made: str | None = None
        try:
            stored, seat, token = tutorial_table(body.name, request_lang(request))
            table = await svc.open_table(stored)
            made = table.id
        finally:
            quota.settle(key, made)
        return {"table": table_summary(table), "seat": seat, "token": token}

    @api.get("/tables/{table_id}", response_model=TableSummary)
    async def get_table(table_id: str) -> dict[str, Any]:
        return table_summary(await svc.get(table_id))

    @api.post("/tables/{table_id}/join", response_model=Seated)
    async def join(
        table_id: str, body: JoinTable, account: CurrentAccount, authorization: AuthHeader = None
    ) -> dict[str, Any]:
        """Take a free seat (signed in: under the account's name); with the token of a seat
        already held here, that seat."""
        table = await svc.get(table_id)
        token = bearer(authorization)
        seat = svc.held_seat(table, token)
        if seat is None or token is None:
            name = account.name if account is not None else body.name
            seat, token = await svc.join(
                table_id, name, account=account.id if account is not None else None
            )
        return {"table": table_summary(await svc.get(table_id)), "seat": seat, "token": token}

    @api.post("/tables/{table_id}/again", response_model=Seated)
    async def again(
        table_id: str, request: Request, authorization: AuthHeader = None
    ) -> dict[str, Any]:
        """Play again. The new table counts against the open tables of whoever asks first, as
        if made with ``POST /api/tables``; the others (or a second click) only take a seat."""
        key = client_key(request)
        making = (await svc.get(table_id)).next_table is None
        if making and not quota.reserve(key, unfinished):
            raise ServiceError(E.TOO_MANY_TABLES, f"at most {lim.max_open_tables}", 429)
        new_id: str | None = None
        try:
            new_id, seat, token = await svc.again(
                table_id, bearer(authorization), request_lang(request)
            )
        finally:
            if making:
                quota.settle(key, new_id)
        return {"table": table_summary(await svc.get(new_id)), "seat": seat, "token": token}

    @api.get("/tables/{table_id}/state", response_model=State)
    async def state(
        table_id: str, request: Request, authorization: AuthHeader = None
    ) -> dict[str, Any]:
        table = await svc.get(table_id)
        token = bearer(authorization)
        seat = svc.seat_for_token(table, token) if token is not None else None
        msg, _ = state_message(table, seat, request_lang(request), 0)
        return msg

    @api.post("/tables/{table_id}/actions", response_model=Acted)
    async def act(table_id: str, body: ActBody, authorization: AuthHeader = None) -> dict[str, Any]:
        table = await svc.get(table_id)
        seat = svc.seat_for_token(table, bearer(authorization))
        version, _ = await svc.act(table, seat, body.action, client_id=body.id)
        return {"ok": True, "version": version}

    # replays

    @api.get("/games", response_model=GameList)
    async def games(
        limit: Annotated[int, Query(ge=1, le=200)] = 50,
        offset: Annotated[int, Query(ge=0, le=1 << 31)] = 0,
    ) -> dict[str, Any]:
        return {"games": svc.list_games(limit, offset)}

    @api.get(
        "/games/{game_id}/record",
        response_class=Response,
        responses={200: {"content": {"application/json": {}}, "description": "gonuts-record/1"}},
    )
    async def record(game_id: str) -> Response:
        text = svc.record_text(game_id)
        return Response(
            text,
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="gonuts-{game_id}.json"'},
        )

    @api.get("/games/{game_id}/replay", response_model=Replay)
    async def game_replay(game_id: str, request: Request) -> dict[str, Any]:
        record = Record.from_json(svc.record_text(game_id))
        return await replays.run(replay_data, record, request_lang(request))

    @api.post(
        "/replay",
        response_model=Replay,
        # the body is a record file of any content type, read as is: described, not parsed
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": {"type": "object"}}},
            }
        },
    )
    async def upload_replay(request: Request) -> dict[str, Any]:
        body = await request.body()
        try:
            record = Record.from_json(body)
            check_record_names(record)
            return await replays.run(replay_data, record, request_lang(request))
        except RecordError as exc:
            raise ServiceError(E.BAD_RECORD, str(exc), 422) from None

    app.include_router(api)
    accounts_api, app.state.accounts, app.state.sign_in_limits = accounts_router(svc.store)
    app.include_router(accounts_api)

    # -- live play --------------------------------------------------------------------------------

    sockets: dict[str, int] = {}
    """Open WebSockets per client address."""
    handshakes = (
        BucketMap(lim.ws_connect_rate, lim.ws_connect_burst)
        if lim.ws_connect_rate is not None
        else None
    )
    """WebSocket handshakes per client address (a reconnect loop, a flood of spectators)."""

    @app.websocket("/ws/tables/{table_id}")
    async def play(websocket: WebSocket, table_id: str) -> None:
        key = websocket.client.host if websocket.client is not None else "unknown"
        cap = lim.max_sockets_per_address
        if cap is not None and sockets.get(key, 0) >= cap:
            svc.metrics.error(E.RATE_LIMITED)
            await websocket.close(1008, "too many sockets from this address")
            return
        if handshakes is not None and handshakes.take(key) is not None:
            svc.metrics.error(E.RATE_LIMITED)
            await websocket.close(1008, "too many new sockets from this address")
            return
        sockets[key] = sockets.get(key, 0) + 1
        try:
            await websocket.accept()
            await LiveSocket(svc, websocket, lim).run(table_id)
        finally:
            left = sockets.pop(key, 1) - 1
            if left > 0:
                sockets[key] = left

    return app


__all__ = ["create_app", "first_error", "tune_gc_for_serving"]
