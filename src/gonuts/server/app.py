"""The ASGI app, wired: HTTP lobby and replays, one WebSocket per table, static files, /rules,
probes. Only wiring: each part is its feature's or the transport's (docs/architecture.md).

``create_app(db_url=...)`` builds it; ``gonuts serve`` runs it with uvicorn. The protocol is
docs/protocol.md; FastAPI writes the OpenAPI description (``/api/openapi.json``) from the
features' request and response models.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from gonuts import __version__
from gonuts.server.accounts.api import accounts_router
from gonuts.server.chat.api import chat_handler, chat_router
from gonuts.server.chat.messages import ChatSay
from gonuts.server.games.api import games_router
from gonuts.server.kernel.limits import Limits
from gonuts.server.kernel.work import BoundedPool
from gonuts.server.lobby.api import lobby_router
from gonuts.server.matching.api import matching_router
from gonuts.server.mygames.api import mygames_router
from gonuts.server.mygames.service import MyGames
from gonuts.server.notify.api import notify_router
from gonuts.server.notify.dispatch import Dispatcher
from gonuts.server.notify.protocol import Channel
from gonuts.server.notify.service import Notifications
from gonuts.server.notify.service import channels as notify_channels
from gonuts.server.play.api import play_router, socket_router
from gonuts.server.play.messages import BOT_LEVELS
from gonuts.server.play.session import table_messages
from gonuts.server.play.sweeper import Sweeper
from gonuts.server.review.api import review_router
from gonuts.server.review.service import DEFAULT_REVIEW_BOT
from gonuts.server.service import Service
from gonuts.server.settings import Settings, default_db_url
from gonuts.server.store import TableStore
from gonuts.server.transport.http import tune_gc_for_serving
from gonuts.server.transport.middleware import AccessLog, HttpGuard, Hygiene
from gonuts.server.transport.pages import pages_router, probes_router, start_router
from gonuts.server.transport.routes import install_error_handlers
from gonuts.server.transport.socket import CLOSE_RESTART, first_error


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
    review_bot: str | None = None,
    play_now_wait: float | None = None,
) -> FastAPI:
    """The gonuts web app on the database ``db_url`` (SQLite file by default): the keywords
    are :class:`~gonuts.server.settings.Settings`' (``service``: one made already)."""
    optional: dict[str, Any] = {}
    if static_dir is not None:
        optional["static_dir"] = static_dir
    if play_now_wait is not None:
        optional["play_now_wait"] = play_now_wait
    settings = Settings(
        db_url=db_url or default_db_url(),
        bot_delay=bot_delay,
        replace_after=replace_after,
        hint_iterations=hint_iterations,
        keep_finished=keep_finished,
        limits=limits or Limits(),
        shutdown_grace=shutdown_grace,
        think_workers=think_workers,
        think_ray=think_ray,
        clock_scale=clock_scale,
        review_bot=review_bot or DEFAULT_REVIEW_BOT,
        **optional,
    )
    return build_app(settings, service)


def build_app(
    settings: Settings, service: Service | None = None, channels: Sequence[Channel] | None = None
) -> FastAPI:
    """The app from ``settings``: the service, then the transport, then each feature's routes;
    ``channels``: how notifications are delivered (:mod:`gonuts.server.notify.protocol`; by
    default :func:`gonuts.server.notify.service.channels`: Web Push, and e-mail when
    ``GONUTS_SMTP_URL`` is set)."""
    lim = settings.limits
    svc = service or Service(
        TableStore(settings.db_url),
        bot_delay=settings.bot_delay,
        replace_after=settings.replace_after,
        hint_iterations=settings.hint_iterations,
        keep_finished=settings.keep_finished,
        think_workers=settings.think_workers,
        think_ray=settings.think_ray,
        clock_scale=settings.clock_scale / settings.time_factor,
        review_bot=settings.review_bot,
        play_now_wait=settings.play_now_wait,
    )
    replays = BoundedPool(lim.replay_workers, lim.replay_queue, "gonuts-replay")
    sweeper = Sweeper(svc, factor=settings.time_factor)
    """Turn-based deadlines enforced where no process holds the table (play/sweeper.py)."""
    if channels is None:
        channels = notify_channels(svc.store)
    dispatcher = Dispatcher(
        svc.store, channels, factor=settings.time_factor, journal=settings.notify_log
    )
    """The outbox's facts told (notify/dispatch.py) on ``channels`` (``[]``: marked sent only)."""

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await svc.thinker.start()  # the worker processes import the bots before the first move
        await svc.start()
        sweeper.start()
        dispatcher.start()
        yield
        await sweeper.close()
        await dispatcher.close()
        replays.close()
        svc.reviews.close()
        # uvicorn has stopped accepting and closed its sockets (1012) by now; another server
        # may not have: finish the moves being stored, then close what is left, then stop
        await svc.drain(settings.shutdown_grace)
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
    app.state.sweeper, app.state.dispatcher = sweeper, dispatcher
    app.state.limits = lim
    app.add_middleware(HttpGuard, limits=lim, metrics=svc.metrics)
    app.add_middleware(Hygiene, metrics=svc.metrics)
    app.add_middleware(AccessLog)
    install_error_handlers(app, svc.metrics, settings.static_dir)

    app.include_router(pages_router(settings.static_dir))
    app.mount("/static", StaticFiles(directory=settings.static_dir, check_dir=False), name="static")
    app.include_router(probes_router(svc.readiness, svc.metrics))
    app.include_router(start_router(lim, BOT_LEVELS))
    app.include_router(lobby_router(svc.lobby, lim))
    app.include_router(matching_router(svc.matcher))
    app.include_router(chat_router(svc.chat))
    app.include_router(play_router(svc))
    app.include_router(games_router(svc.games, replays))
    app.include_router(review_router(svc.reviews))
    app.include_router(mygames_router(MyGames(svc.store, svc.tables)))
    accounts_api, app.state.accounts, app.state.sign_in_limits = accounts_router(
        svc.store, svc.games, svc.forget_account
    )
    app.include_router(accounts_api)
    app.state.notifications = Notifications(svc.store)  # push subscriptions, settings
    app.include_router(notify_router(app.state.notifications))
    messages = table_messages()
    messages.on(ChatSay, chat_handler(svc.chat))  # chat beside play's messages
    app.include_router(socket_router(svc, lim, messages))
    return app


__all__ = ["build_app", "create_app", "first_error", "tune_gc_for_serving"]
