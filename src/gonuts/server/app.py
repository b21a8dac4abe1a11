"""The ASGI app: HTTP lobby and replays, one WebSocket per table, static files, /rules.

``create_app(db_url=...)`` builds it; ``gonuts serve`` runs it with uvicorn. The protocol is
docs/protocol.md.
"""

from __future__ import annotations

import asyncio
import gc
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Final, Literal, TypeVar

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from gonuts import __version__
from gonuts.cards import MAX_PLAYERS, MIN_PLAYERS
from gonuts.errors import RecordError
from gonuts.record import Record
from gonuts.server import i18n, limits
from gonuts.server.limits import BucketMap, Limits, TableQuota, TokenBucket
from gonuts.server.rules_page import rules_html
from gonuts.server.schemas import (
    CLIENT_MESSAGE,
    Act,
    ActBody,
    CreateTable,
    Hello,
    Hints,
    JoinTable,
    Lang,
    Ping,
)
from gonuts.server.service import (
    BOT_LEVELS,
    Conn,
    LiveTable,
    Service,
    ServiceError,
    replay_data,
)

WEB_DIR: Final = i18n.WEB_DIR
STATIC_DIR: Final = WEB_DIR / "static"
MAX_MESSAGE: Final = Limits.max_message
MAX_JSON_BODY: Final = Limits.max_json_body
MAX_RECORD: Final = Limits.max_record

M = TypeVar("M", bound=BaseModel)

PLACEHOLDER: Final = (
    "<!doctype html><meta charset=utf-8><title>Go Nuts for Donuts</title>"
    "<p>The web front end is not installed (no static/index.html).</p>"
)


def tune_gc_for_serving(gen0: int = 20_000) -> None:
    """Shorter and rarer garbage-collector pauses for a long-running server process.

    Under load the heap is mostly per-connection machinery (coroutines, frames) and live
    games; CPython's full collections walk all of it, and stalled every table for 100-250 ms
    at 1,000 players. Freezing what exists at startup takes it out of every collection, and a
    larger first-generation threshold lets short-lived objects (game copies, messages) die by
    reference counting before a collection would promote them.
    """
    gc.collect()
    gc.freeze()
    _, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(gen0, gen1, gen2)


def default_db_url() -> str:
    return "sqlite:///gonuts.sqlite3"


def request_lang(request: Request) -> str:
    return i18n.negotiate(request.query_params.get("lang"), request.headers.get("accept-language"))


def error_text(code: str, lang: str, detail: str | None = None) -> str:
    """The localized message of an error code (docs/protocol.md)."""
    return limits.error_text(code, lang, detail) or i18n.error_text(code, lang, detail)


def error_response(
    code: str, message: str, status: int, headers: dict[str, str] | None = None
) -> JSONResponse:
    return JSONResponse(
        {"error": {"code": code, "message": message}}, status_code=status, headers=headers
    )


def client_key(request: Request) -> str:
    """Whose quota a request counts against: the client's address."""
    return request.client.host if request.client is not None else "unknown"


async def read_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise ServiceError("too_large", f"limit {limit} bytes", 413)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ServiceError("too_large", f"limit {limit} bytes", 413)
        chunks.append(chunk)
    return b"".join(chunks)


async def read_model(request: Request, model: type[M], limit: int = MAX_JSON_BODY) -> M:
    body = await read_body(request, limit)
    try:
        return model.model_validate_json(body or b"{}")
    except ValidationError as exc:
        raise ServiceError("malformed", _first_error(exc), 422) from None


def _first_error(exc: ValidationError) -> str:
    errors = exc.errors(include_url=False, include_input=False)
    if not errors:
        return "invalid"
    e = errors[0]
    where = ".".join(str(p) for p in e.get("loc", ()))
    return f"{where}: {e.get('msg', 'invalid')}" if where else str(e.get("msg", "invalid"))


def bearer(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    scheme, _, token = auth.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


class HttpGuard:
    """ASGI middleware: refuses over-long declared bodies (413) on every path and, on
    ``/api/``, more requests per client address than ``limits.http_rate`` allows (429)."""

    def __init__(self, app: ASGIApp, limits: Limits) -> None:
        self.app = app
        self.limits = limits
        self.buckets = (
            BucketMap(limits.http_rate, limits.http_burst) if limits.http_rate is not None else None
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        refusal: JSONResponse | None = None
        declared = request.headers.get("content-length", "")
        largest = max(self.limits.max_record, self.limits.max_json_body)
        if declared and (not declared.isdigit() or int(declared) > largest):
            detail = f"limit {largest} bytes" if declared.isdigit() else "bad Content-Length"
            status = 413 if declared.isdigit() else 400
            code = "too_large" if declared.isdigit() else "malformed"
            refusal = error_response(code, error_text(code, request_lang(request), detail), status)
        elif self.buckets is not None and scope["path"].startswith("/api/"):
            bucket = self.buckets.take(client_key(request))
            if bucket is not None:
                wait = bucket.wait_time()
                refusal = error_response(
                    "rate_limited",
                    error_text("rate_limited", request_lang(request), f"retry in {wait:.1f} s"),
                    429,
                    {"Retry-After": str(max(1, round(wait + 0.5)))},
                )
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)


# -- the OpenAPI description (for clients and for schemathesis; the handlers validate by hand) --


def _inline(schema: Any, defs: dict[str, Any]) -> Any:
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return _inline(defs[ref.removeprefix("#/$defs/")], defs)
        return {k: _inline(v, defs) for k, v in schema.items() if k != "$defs"}
        # (no model here is recursive)
    if isinstance(schema, list):
        return [_inline(v, defs) for v in schema]
    return schema


def _json_body(model: type[BaseModel] | None) -> dict[str, Any]:
    if model is None:
        schema: dict[str, Any] = {"type": "object"}
    else:
        raw = model.model_json_schema()
        schema = _inline(raw, raw.get("$defs", {}))
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _query(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema}


LANG_PARAM: Final = _query("lang", {"type": "string", "maxLength": 16})
AUTH_PARAM: Final = {
    "name": "Authorization",
    "in": "header",
    "required": False,
    "schema": {"type": "string", "pattern": "^Bearer [A-Za-z0-9_-]{1,200}$"},
}


def api_doc(
    body: type[BaseModel] | Literal["any"] | None = None,
    params: tuple[dict[str, Any], ...] = (),
    auth: bool = False,
) -> dict[str, Any]:
    """``openapi_extra`` for a route: its body (``"any"``: any JSON object), query, header."""
    extra: dict[str, Any] = {
        "parameters": [LANG_PARAM, *params, *([AUTH_PARAM] if auth else [])],
    }
    if body is not None:
        extra["requestBody"] = _json_body(None if body == "any" else body)
    return extra


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
) -> FastAPI:
    """The gonuts web app on the database ``db_url`` (SQLite file by default).

    ``limits`` bounds what one client may do (sizes, rates, open tables); see
    :class:`gonuts.server.limits.Limits` for the defaults. A finished table nobody has
    watched for ``keep_finished`` seconds leaves memory (it stays in the database).
    """
    lim = limits or Limits()
    quota = TableQuota(lim.max_open_tables)
    svc = service or Service(
        db_url or default_db_url(),
        bot_delay=bot_delay,
        replace_after=replace_after,
        hint_iterations=hint_iterations,
        keep_finished=keep_finished,
    )
    static = static_dir or STATIC_DIR

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        await svc.close()

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
    app.add_middleware(HttpGuard, limits=lim)

    @app.exception_handler(ServiceError)
    async def _service_error(request: Request, exc: ServiceError) -> JSONResponse:
        lang = request_lang(request)
        return error_response(exc.code, error_text(exc.code, lang, exc.detail), exc.status)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        lang = request_lang(request)
        return error_response("malformed", error_text("malformed", lang), 422)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = "not_found" if exc.status_code == 404 else "http_error"
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

    @app.get("/rules", include_in_schema=False)
    async def rules(request: Request) -> HTMLResponse:
        return HTMLResponse(rules_html(request_lang(request)))

    @app.get("/i18n/{name}", include_in_schema=False)
    async def raw_catalogue(name: str) -> Response:
        lang = name.removesuffix(".json")
        if lang not in i18n.LANGS or not name.endswith(".json"):
            raise ServiceError("unknown_language", None, 404)
        return JSONResponse(i18n.messages(lang))

    app.mount("/static", StaticFiles(directory=static, check_dir=False), name="static")

    # -- health -----------------------------------------------------------------------------------

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

    # -- configuration and languages -----------------------------------------------------------

    @app.get("/api/config", openapi_extra=api_doc())
    async def config(request: Request) -> dict[str, Any]:
        return {
            "lang": request_lang(request),
            "languages": list(i18n.LANGS),
            "bot_levels": list(BOT_LEVELS),
            "min_players": MIN_PLAYERS,
            "max_players": MAX_PLAYERS,
            "max_message_bytes": lim.max_message,
            "version": __version__,
        }

    @app.get("/api/i18n", openapi_extra=api_doc())
    async def catalogue_negotiated(request: Request) -> dict[str, Any]:
        return i18n.catalogue(request_lang(request))

    @app.get("/api/i18n/{lang}", openapi_extra=api_doc())
    async def catalogue(lang: str) -> dict[str, Any]:
        if lang not in i18n.LANGS:
            raise ServiceError("unknown_language", None, 404)
        return i18n.catalogue(lang)

    # -- lobby ------------------------------------------------------------------------------------

    @app.get(
        "/api/tables",
        openapi_extra=api_doc(
            params=(_query("status", {"type": "string", "enum": ["open", "playing", "finished"]}),)
        ),
    )
    async def list_tables(request: Request) -> dict[str, Any]:
        status = request.query_params.get("status")
        if status not in (None, "open", "playing", "finished"):
            raise ServiceError("malformed", "status is open, playing or finished", 422)
        return {"tables": await svc.list_tables(status)}

    def unfinished(table_id: str) -> bool:
        table = svc.tables.get(table_id)
        return table is not None and table.status != "finished"

    @app.post("/api/tables", status_code=201, openapi_extra=api_doc(CreateTable))
    async def create_table(request: Request) -> dict[str, Any]:
        body = await read_model(request, CreateTable, lim.max_json_body)
        seats = [(s.kind, s.level) for s in body.seats]
        key = client_key(request)
        if not quota.reserve(key, unfinished):
            raise ServiceError("too_many_tables", f"at most {lim.max_open_tables}", 429)
        made: str | None = None
        try:
            table, seat, token = await svc.create_table(seats, body.name, request_lang(request))
            made = table.id
        finally:
            quota.settle(key, made)
        return {"table": svc.summary(table), "seat": seat, "token": token}

    @app.get("/api/tables/{table_id}", openapi_extra=api_doc())
    async def get_table(table_id: str) -> dict[str, Any]:
        return svc.summary(await svc.get(table_id))

    @app.post("/api/tables/{table_id}/join", openapi_extra=api_doc(JoinTable))
    async def join(table_id: str, request: Request) -> dict[str, Any]:
        await svc.get(table_id)
        body = await read_model(request, JoinTable, lim.max_json_body)
        seat, token = await svc.join(table_id, body.name)
        return {"table": svc.summary(await svc.get(table_id)), "seat": seat, "token": token}

    @app.post("/api/tables/{table_id}/again", openapi_extra=api_doc(auth=True))
    async def again(table_id: str, request: Request) -> dict[str, Any]:
        new_id, seat, token = await svc.again(table_id, bearer(request), request_lang(request))
        return {"table": svc.summary(await svc.get(new_id)), "seat": seat, "token": token}

    @app.get("/api/tables/{table_id}/state", openapi_extra=api_doc(auth=True))
    async def state(table_id: str, request: Request) -> dict[str, Any]:
        table = await svc.get(table_id)
        token = bearer(request)
        seat = svc.seat_for_token(table, token) if token is not None else None
        msg, _ = svc.state_message(table, seat, request_lang(request), 0)
        return msg

    @app.post("/api/tables/{table_id}/actions", openapi_extra=api_doc(ActBody, auth=True))
    async def act(table_id: str, request: Request) -> dict[str, Any]:
        table = await svc.get(table_id)
        seat = svc.seat_for_token(table, bearer(request))
        body = await read_model(request, ActBody, lim.max_json_body)
        version, _ = await svc.act(table, seat, body.action, client_id=body.id)
        return {"ok": True, "version": version}

    # -- replays ----------------------------------------------------------------------------------

    @app.get(
        "/api/games",
        openapi_extra=api_doc(
            params=(
                _query("limit", {"type": "integer", "minimum": 1, "maximum": 200}),
                _query("offset", {"type": "integer", "minimum": 0}),
            )
        ),
    )
    async def games(request: Request) -> dict[str, Any]:
        try:
            limit = min(max(int(request.query_params.get("limit", "50")), 1), 200)
            offset = min(max(int(request.query_params.get("offset", "0")), 0), 1 << 31)
        except ValueError:
            raise ServiceError("malformed", "limit and offset are integers", 422) from None
        return {"games": svc.list_games(limit, offset)}

    @app.get("/api/games/{game_id}/record", openapi_extra=api_doc())
    async def record(game_id: str) -> Response:
        text = svc.record_text(game_id)
        return Response(
            text,
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="gonuts-{game_id}.json"'},
        )

    @app.get("/api/games/{game_id}/replay", openapi_extra=api_doc())
    async def game_replay(game_id: str, request: Request) -> dict[str, Any]:
        return replay_data(Record.from_json(svc.record_text(game_id)), request_lang(request))

    @app.post("/api/replay", openapi_extra=api_doc("any"))
    async def upload_replay(request: Request) -> dict[str, Any]:
        body = await read_body(request, lim.max_record)
        try:
            return replay_data(Record.from_json(body), request_lang(request))
        except RecordError as exc:
            raise ServiceError("bad_record", str(exc), 422) from None

    # -- live play --------------------------------------------------------------------------------

    @app.websocket("/ws/tables/{table_id}")
    async def play(websocket: WebSocket, table_id: str) -> None:
        await websocket.accept()
        await LiveSocket(svc, websocket, lim).run(table_id)

    return app


class LiveSocket:
    """One client's WebSocket session (docs/protocol.md, "Live play")."""

    def __init__(
        self,
        svc: Service,
        websocket: WebSocket,
        limits: Limits | None = None,
    ) -> None:
        self.svc = svc
        self.ws = websocket
        self.lang = i18n.DEFAULT_LANG
        self.limits = limits or Limits()
        rate = self.limits.ws_rate
        self.bucket = TokenBucket(rate, self.limits.ws_burst) if rate is not None else None
        self.strikes = 0

    async def error(self, code: str, detail: str | None = None, id_: str | None = None) -> None:
        msg: dict[str, Any] = {
            "type": "error",
            "code": code,
            "message": error_text(code, self.lang, detail),
        }
        if id_ is not None:
            msg["id"] = id_
        await self.ws.send_text(json.dumps(msg, ensure_ascii=False))

    async def within_rate(self) -> bool:
        """Take a token; refuse the message if none, and close the socket of a flooder."""
        bucket = self.bucket
        if bucket is None:
            return True
        if bucket.take():
            if bucket.tokens >= bucket.burst / 2:
                self.strikes = 0  # calm again
            return True
        self.strikes += 1
        if self.strikes >= self.limits.ws_strikes:
            await self.error("rate_limited", "closing the connection")
            await self.ws.close(1008)
            raise WebSocketDisconnect(1008)
        await self.error("rate_limited", f"at most {bucket.rate:g} messages a second")
        return False

    async def receive(self) -> str | None:
        """The next valid-sized text frame; None after a refusal; raises on disconnect."""
        message = await self.ws.receive()
        if message["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(message.get("code", 1000))
        if not await self.within_rate():
            return None
        limit = self.limits.max_message
        text = message.get("text")
        if text is None:
            data = message.get("bytes") or b""
            if len(data) > limit:
                await self.error("too_large", f"limit {limit} bytes")
            else:
                await self.error("malformed", "send JSON text frames")
            return None
        if len(text) > limit or len(text.encode("utf-8")) > limit:
            await self.error("too_large", f"limit {limit} bytes")
            return None
        return str(text)

    async def wait_hello(self) -> Hello:
        while True:
            text = await self.receive()
            msg = await self.parse(text) if text is not None else None
            if isinstance(msg, Hello):
                return msg
            if msg is not None:
                await self.error("malformed", "send hello first")

    async def parse(self, text: str) -> Hello | Act | Hints | Lang | Ping | None:
        try:
            return CLIENT_MESSAGE.validate_json(text)
        except ValidationError as exc:
            await self.error("malformed", _first_error(exc))
            return None

    async def run(self, table_id: str) -> None:
        try:
            try:
                table = await self.svc.get(table_id)
            except ServiceError:
                await self.error("unknown_table")
                await self.ws.close(4404)
                return
            timeout = self.limits.hello_timeout
            try:
                async with asyncio.timeout(timeout):
                    hello = await self.wait_hello()
            except TimeoutError:
                await self.error("malformed", f"send hello within {timeout:g} s")
                await self.ws.close(1008)
                return
            self.lang = i18n.normalize(hello.lang) or i18n.DEFAULT_LANG
            seat: int | None = None
            if hello.token is not None:
                try:
                    seat = self.svc.seat_for_token(table, hello.token)
                except ServiceError:
                    await self.error("bad_token")
                    await self.ws.close(4403)
                    return
            # the same object the others use (a finished table may have been let go meanwhile)
            table = await self.svc.get(table_id)
            await self.session(table, seat)
        except WebSocketDisconnect:
            return

    async def session(self, table: LiveTable, seat: int | None) -> None:
        conn = Conn(self.ws, seat, self.lang)
        await self.svc.connect(table, conn)
        try:
            s = table.seats[seat] if seat is not None else None
            await conn.send(
                {
                    "type": "welcome",
                    "seat": seat,
                    "name": s.name if s is not None else None,
                    "spectator": seat is None,
                    "hints": s.hints if s is not None else False,
                    "lang": self.lang,
                    "table": self.svc.summary(table),
                }
            )
            await self.svc.send_state(table, conn, full=True)
            if seat is not None:
                self.svc._schedule_hints(table)
            while True:
                text = await self.receive()
                msg = await self.parse(text) if text is not None else None
                if msg is not None:
                    await self.handle(table, conn, msg)
        finally:
            await self.svc.disconnect(table, conn)

    async def handle(
        self, table: LiveTable, conn: Conn, msg: Hello | Act | Hints | Lang | Ping
    ) -> None:
        if isinstance(msg, Ping):
            await conn.send({"type": "pong"})
        elif isinstance(msg, Hello):
            await self.error("malformed", "hello was already sent")
        elif isinstance(msg, Lang):
            lang = i18n.normalize(msg.lang)
            if lang is None:
                await self.error("unknown_language")
                return
            self.lang = conn.lang = lang
            await self.svc.send_state(table, conn, full=True)
        elif isinstance(msg, Hints):
            try:
                await self.svc.set_hints(table, conn, msg.on)
            except ServiceError as exc:
                await self.error(exc.code, exc.detail)
        else:
            if conn.seat is None:
                await self.error("spectator", None, msg.id)
                return
            action, id_ = msg.action, msg.id

            async def ack(version: int) -> None:
                await conn.send({"type": "ack", "id": id_, "action": action, "version": version})

            try:
                await self.svc.act(table, conn.seat, action, ack, client_id=id_)
            except ServiceError as exc:
                await self.error(exc.code, exc.detail, id_)
