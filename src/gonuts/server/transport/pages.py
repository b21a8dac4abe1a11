"""The pages (the browser client's single page under each of its paths, ``/rules``, the raw
UI catalogues, the installable app's manifest, service worker and offline page), the
operations probes (``/healthz``, ``/readyz``, ``/metrics``) and the client's start-up answers
(``/api/config``, ``/api/i18n``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response

from gonuts import __version__
from gonuts.cards import MAX_PLAYERS, MIN_PLAYERS
from gonuts.server.kernel import i18n
from gonuts.server.kernel.errors import ErrorCode, ServiceError
from gonuts.server.kernel.limits import Limits
from gonuts.server.kernel.metrics import CONTENT_TYPE, Metrics
from gonuts.server.transport.middleware import request_lang
from gonuts.server.transport.routes import api_router
from gonuts.server.transport.rules_page import rules_html, rules_main
from gonuts.server.transport.wire import Out

E = ErrorCode
WEB_DIR: Final = i18n.WEB_DIR
STATIC_DIR: Final = WEB_DIR / "static"
PLACEHOLDER: Final = (
    "<!doctype html><meta charset=utf-8><title>Go Nuts for Donuts</title>"
    "<p>The web front end is not installed (no static/index.html).</p>"
)


MANIFEST_TYPE: Final = "application/manifest+json"


class Config(Out):
    lang: str
    languages: list[str]
    bot_levels: list[str]
    min_players: int
    max_players: int
    max_message_bytes: int
    version: str


def pages_router(static: Path) -> APIRouter:
    """The browser client's page under each of its paths, ``/rules`` and ``/i18n/*.json``."""
    router = APIRouter(include_in_schema=False)

    def index() -> Response:
        page = static / "index.html"
        if page.is_file():
            return FileResponse(page, media_type="text/html")
        return HTMLResponse(PLACEHOLDER)

    @router.get("/")
    async def root() -> Response:
        return index()

    @router.get("/t/{table_id}")
    async def table_page(table_id: str) -> Response:
        return index()

    @router.get("/replays")
    async def replays_page() -> Response:
        return index()

    @router.get("/replay/{game_id}")
    async def replay_page(game_id: str) -> Response:
        return index()

    @router.get("/account")
    @router.get("/leaderboard")
    @router.get("/my-games")
    @router.get("/players/{name}")
    async def account_pages() -> Response:
        return index()

    # The installable app (docs/server.md, "Installable app"): the manifest, the service worker
    # at the root so that its scope is the whole site, and the page it shows offline.
    @router.get("/manifest.webmanifest")
    async def manifest() -> Response:
        return FileResponse(static / "manifest.webmanifest", media_type=MANIFEST_TYPE)

    @router.get("/sw.js")
    async def service_worker() -> Response:
        # revalidated on every check, so a new release's worker is picked up at once
        return FileResponse(
            static / "js" / "sw.js",
            media_type="text/javascript",
            headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"},
        )

    @router.get("/offline")
    async def offline() -> Response:
        return FileResponse(static / "offline.html", media_type="text/html")

    @router.get("/rules")
    async def rules(request: Request, part: str | None = None) -> HTMLResponse:
        """The rules page; ``?part=main``: only its content, for the app's rules view."""
        lang = request_lang(request)
        return HTMLResponse(rules_main(lang) if part == "main" else rules_html(lang))

    @router.get("/i18n/{name}")
    async def raw_catalogue(name: str) -> Response:
        lang = name.removesuffix(".json")
        if lang not in i18n.LANGS or not name.endswith(".json"):
            raise ServiceError(E.UNKNOWN_LANGUAGE, None, 404)
        return JSONResponse(i18n.messages(lang))

    return router


def probes_router(readiness: Callable[[], str | None], metrics: Metrics) -> APIRouter:
    """Alive, ready (the database answers at the newest schema), and the Prometheus series."""
    router = APIRouter(include_in_schema=False)

    @router.get("/healthz")
    async def healthz() -> dict[str, str]:
        """Alive: the process answers (a supervisor restarts it otherwise)."""
        return {"status": "ok"}

    @router.get("/readyz")
    async def readyz() -> JSONResponse:
        """Ready for traffic: the database answers and its schema is at the newest migration."""
        reason = await asyncio.to_thread(readiness)
        if reason is None:
            return JSONResponse({"status": "ready"})
        return JSONResponse({"status": "unavailable", "reason": reason}, status_code=503)

    @router.get("/metrics")
    async def metrics_page() -> Response:
        return Response(metrics.render(), media_type=CONTENT_TYPE)

    return router


def start_router(limits: Limits, bot_levels: Sequence[str]) -> APIRouter:
    """``/api/config`` and the UI catalogues: what the client asks for when it starts."""
    api = api_router()

    @api.get("/config")
    async def config(request: Request) -> Config:
        return Config(
            lang=request_lang(request),
            languages=list(i18n.LANGS),
            bot_levels=list(bot_levels),
            min_players=MIN_PLAYERS,
            max_players=MAX_PLAYERS,
            max_message_bytes=limits.max_message,
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

    return api
