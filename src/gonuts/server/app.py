"""The ASGI app: HTTP lobby and replays, one WebSocket per table, static files, /rules.

``create_app(db_url=...)`` builds it; ``gonuts serve`` runs it with uvicorn. The protocol is
docs/protocol.md.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Final, TypeVar

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from gonuts import __version__
from gonuts.cards import MAX_PLAYERS, MIN_PLAYERS
from gonuts.errors import RecordError
from gonuts.record import Record
from gonuts.server import i18n
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
MAX_MESSAGE: Final = 4096
MAX_JSON_BODY: Final = 4096
MAX_RECORD: Final = 1 << 20

M = TypeVar("M", bound=BaseModel)

PLACEHOLDER: Final = (
    "<!doctype html><meta charset=utf-8><title>Go Nuts for Donuts</title>"
    "<p>The web front end is not installed (no static/index.html).</p>"
)


def default_db_url() -> str:
    return "sqlite:///gonuts.sqlite3"


def request_lang(request: Request) -> str:
    return i18n.negotiate(request.query_params.get("lang"), request.headers.get("accept-language"))


def error_response(code: str, message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


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


async def read_model(request: Request, model: type[M]) -> M:
    body = await read_body(request, MAX_JSON_BODY)
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


def create_app(
    db_url: str | None = None,
    *,
    bot_delay: float = 0.5,
    replace_after: float = 120.0,
    hint_iterations: int = 300,
    static_dir: Path | None = None,
    service: Service | None = None,
) -> FastAPI:
    """The gonuts web app on the database ``db_url`` (SQLite file by default)."""
    svc = service or Service(
        db_url or default_db_url(),
        bot_delay=bot_delay,
        replace_after=replace_after,
        hint_iterations=hint_iterations,
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
        openapi_url=None,
    )
    app.state.service = svc

    @app.exception_handler(ServiceError)
    async def _service_error(request: Request, exc: ServiceError) -> JSONResponse:
        lang = request_lang(request)
        return error_response(exc.code, i18n.error_text(exc.code, lang, exc.detail), exc.status)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        lang = request_lang(request)
        return error_response("malformed", i18n.error_text("malformed", lang), 422)

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

    # -- configuration and languages -----------------------------------------------------------

    @app.get("/api/config")
    async def config(request: Request) -> dict[str, Any]:
        return {
            "lang": request_lang(request),
            "languages": list(i18n.LANGS),
            "bot_levels": list(BOT_LEVELS),
            "min_players": MIN_PLAYERS,
            "max_players": MAX_PLAYERS,
            "max_message_bytes": MAX_MESSAGE,
            "version": __version__,
        }

    @app.get("/api/i18n")
    async def catalogue_negotiated(request: Request) -> dict[str, Any]:
        return i18n.catalogue(request_lang(request))

    @app.get("/api/i18n/{lang}")
    async def catalogue(lang: str) -> dict[str, Any]:
        if lang not in i18n.LANGS:
            raise ServiceError("unknown_language", None, 404)
        return i18n.catalogue(lang)

    # -- lobby ------------------------------------------------------------------------------------

    @app.get("/api/tables")
    async def list_tables(request: Request) -> dict[str, Any]:
        status = request.query_params.get("status")
        if status not in (None, "open", "playing", "finished"):
            raise ServiceError("malformed", "status is open, playing or finished", 422)
        return {"tables": await svc.list_tables(status)}

    @app.post("/api/tables", status_code=201)
    async def create_table(request: Request) -> dict[str, Any]:
        body = await read_model(request, CreateTable)
        seats = [(s.kind, s.level) for s in body.seats]
        table, seat, token = await svc.create_table(seats, body.name, request_lang(request))
        return {"table": svc.summary(table), "seat": seat, "token": token}

    @app.get("/api/tables/{table_id}")
    async def get_table(table_id: str) -> dict[str, Any]:
        return svc.summary(await svc.get(table_id))

    @app.post("/api/tables/{table_id}/join")
    async def join(table_id: str, request: Request) -> dict[str, Any]:
        await svc.get(table_id)
        body = await read_model(request, JoinTable)
        seat, token = await svc.join(table_id, body.name)
        return {"table": svc.summary(await svc.get(table_id)), "seat": seat, "token": token}

    @app.post("/api/tables/{table_id}/again")
    async def again(table_id: str, request: Request) -> dict[str, Any]:
        new_id, seat, token = await svc.again(table_id, bearer(request), request_lang(request))
        return {"table": svc.summary(await svc.get(new_id)), "seat": seat, "token": token}

    @app.get("/api/tables/{table_id}/state")
    async def state(table_id: str, request: Request) -> dict[str, Any]:
        table = await svc.get(table_id)
        token = bearer(request)
        seat = svc.seat_for_token(table, token) if token is not None else None
        msg, _ = svc.state_message(table, seat, request_lang(request), 0)
        return msg

    @app.post("/api/tables/{table_id}/actions")
    async def act(table_id: str, request: Request) -> dict[str, Any]:
        table = await svc.get(table_id)
        seat = svc.seat_for_token(table, bearer(request))
        body = await read_model(request, ActBody)
        version = await svc.act(table, seat, body.action)
        return {"ok": True, "version": version}

    # -- replays ----------------------------------------------------------------------------------

    @app.get("/api/games")
    async def games(request: Request) -> dict[str, Any]:
        try:
            limit = min(max(int(request.query_params.get("limit", "50")), 1), 200)
            offset = max(int(request.query_params.get("offset", "0")), 0)
        except ValueError:
            raise ServiceError("malformed", "limit and offset are integers", 422) from None
        return {"games": svc.list_games(limit, offset)}

    @app.get("/api/games/{game_id}/record")
    async def record(game_id: str) -> Response:
        text = svc.record_text(game_id)
        return Response(
            text,
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="gonuts-{game_id}.json"'},
        )

    @app.get("/api/games/{game_id}/replay")
    async def game_replay(game_id: str, request: Request) -> dict[str, Any]:
        return replay_data(Record.from_json(svc.record_text(game_id)), request_lang(request))

    @app.post("/api/replay")
    async def upload_replay(request: Request) -> dict[str, Any]:
        body = await read_body(request, MAX_RECORD)
        try:
            return replay_data(Record.from_json(body), request_lang(request))
        except RecordError as exc:
            raise ServiceError("bad_record", str(exc), 422) from None

    # -- live play --------------------------------------------------------------------------------

    @app.websocket("/ws/tables/{table_id}")
    async def play(websocket: WebSocket, table_id: str) -> None:
        await websocket.accept()
        await LiveSocket(svc, websocket).run(table_id)

    return app


class LiveSocket:
    """One client's WebSocket session (docs/protocol.md, "Live play")."""

    def __init__(self, svc: Service, websocket: WebSocket) -> None:
        self.svc = svc
        self.ws = websocket
        self.lang = i18n.DEFAULT_LANG

    async def error(self, code: str, detail: str | None = None, id_: str | None = None) -> None:
        msg: dict[str, Any] = {
            "type": "error",
            "code": code,
            "message": i18n.error_text(code, self.lang, detail),
        }
        if id_ is not None:
            msg["id"] = id_
        await self.ws.send_text(json.dumps(msg, ensure_ascii=False))

    async def receive(self) -> str | None:
        """The next valid-sized text frame; None after a refusal; raises on disconnect."""
        message = await self.ws.receive()
        if message["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(message.get("code", 1000))
        text = message.get("text")
        if text is None:
            data = message.get("bytes") or b""
            if len(data) > MAX_MESSAGE:
                await self.error("too_large", f"limit {MAX_MESSAGE} bytes")
            else:
                await self.error("malformed", "send JSON text frames")
            return None
        if len(text.encode("utf-8")) > MAX_MESSAGE:
            await self.error("too_large", f"limit {MAX_MESSAGE} bytes")
            return None
        return str(text)

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
            hello: Hello | None = None
            while hello is None:
                text = await self.receive()
                msg = await self.parse(text) if text is not None else None
                if isinstance(msg, Hello):
                    hello = msg
                elif msg is not None:
                    await self.error("malformed", "send hello first")
            self.lang = i18n.normalize(hello.lang) or i18n.DEFAULT_LANG
            seat: int | None = None
            if hello.token is not None:
                try:
                    seat = self.svc.seat_for_token(table, hello.token)
                except ServiceError:
                    await self.error("bad_token")
                    await self.ws.close(4403)
                    return
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
                await self.svc.act(table, conn.seat, action, ack)
            except ServiceError as exc:
                await self.error(exc.code, exc.detail, id_)
