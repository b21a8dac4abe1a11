"""Play's routes: a table's state and an action over HTTP, and the table's WebSocket
(``/ws/tables/{id}``, capped per client address in number and in new handshakes)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, WebSocket

from gonuts.server.kernel.errors import ErrorCode
from gonuts.server.kernel.limits import BucketMap, Limits
from gonuts.server.play.messages import ActBody, Acted, State, state_message
from gonuts.server.play.service import Service
from gonuts.server.play.session import TableSocket
from gonuts.server.transport.middleware import bearer, request_lang
from gonuts.server.transport.routes import AuthHeader, api_router
from gonuts.server.transport.socket import Dispatcher

E = ErrorCode


def play_router(svc: Service) -> APIRouter:
    """``/api/tables/{id}/state`` and ``/api/tables/{id}/actions``."""
    api = api_router()

    @api.get("/tables/{table_id}/state", response_model=State)
    async def state(
        table_id: str, request: Request, authorization: AuthHeader = None
    ) -> dict[str, Any]:
        table = await svc.get(table_id)
        token = bearer(authorization)
        seat = svc.seat_for_token(table, token) if token is not None else None
        if seat is not None:
            svc.look_up_rating(table, seat)
        msg, _ = state_message(table, seat, request_lang(request), 0)
        return msg

    @api.post("/tables/{table_id}/actions", response_model=Acted)
    async def act(table_id: str, body: ActBody, authorization: AuthHeader = None) -> dict[str, Any]:
        table = await svc.get(table_id)
        seat = svc.seat_for_token(table, bearer(authorization))
        if body.change:
            version = await svc.change(table, seat, body.action, client_id=body.id)
        else:
            version, _ = await svc.act(table, seat, body.action, client_id=body.id)
        return {"ok": True, "version": version}

    return api


def socket_router(svc: Service, lim: Limits, messages: Dispatcher[TableSocket]) -> APIRouter:
    """``/ws/tables/{id}``: one :class:`TableSocket` per connection."""
    router = APIRouter()
    sockets: dict[str, int] = {}
    """Open WebSockets per client address."""
    handshakes = (
        BucketMap(lim.ws_connect_rate, lim.ws_connect_burst)
        if lim.ws_connect_rate is not None
        else None
    )
    """WebSocket handshakes per client address (a reconnect loop, a flood of spectators)."""

    @router.websocket("/ws/tables/{table_id}")
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
            await TableSocket(svc, websocket, lim, messages).run(table_id)
        finally:
            left = sockets.pop(key, 1) - 1
            if left > 0:
                sockets[key] = left

    return router
