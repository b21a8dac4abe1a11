"""One client's WebSocket session at a table (docs/protocol.md, "Live play").

Reads the client's frames (size and rate limits, :data:`~gonuts.server.play.messages.CLIENT_MESSAGE`
parsing), turns them into calls on the service, and turns refusals into ``error`` messages.
"""

from __future__ import annotations

import asyncio

from fastapi import WebSocket, WebSocketDisconnect
from pydantic import ValidationError

from gonuts.server.kernel import i18n
from gonuts.server.kernel.errors import ErrorCode, ServiceError
from gonuts.server.kernel.limits import Limits, TokenBucket
from gonuts.server.play.live import Conn, LiveTable, to_json
from gonuts.server.play.messages import (
    CLIENT_MESSAGE,
    Act,
    Back,
    Hello,
    Hints,
    Lang,
    Ping,
    error_message,
    table_summary,
)
from gonuts.server.play.service import Service

E = ErrorCode
ClientMessage = Hello | Act | Hints | Lang | Ping | Back

CLOSE_BAD_TOKEN = 4403
CLOSE_UNKNOWN_TABLE = 4404
CLOSE_POLICY = 1008
CLOSE_RESTART = 1012
"""Service restart (RFC 6455 registry): the server is going away for a moment; the browser
client reconnects after any close it did not ask for (docs/deploy.md, "Graceful shutdown")."""


def first_error(exc: ValidationError) -> str:
    """The first problem pydantic found, as ``where: what``."""
    errors = exc.errors(include_url=False, include_input=False)
    if not errors:
        return "invalid"
    e = errors[0]
    where = ".".join(str(p) for p in e.get("loc", ()))
    return f"{where}: {e.get('msg', 'invalid')}" if where else str(e.get("msg", "invalid"))


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
        self.conn = Conn(websocket, None, self.lang, queue_bytes=self.limits.ws_send_queue)
        """Everything this socket is sent goes through its queue, in order (errors too)."""

    async def error(
        self, code: ErrorCode, detail: str | None = None, id_: str | None = None
    ) -> None:
        self.svc.metrics.error(code)
        await self.conn.send(error_message(code, self.lang, detail, id_))

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
            await self.error(E.RATE_LIMITED, "closing the connection")
            await self.conn.close(CLOSE_POLICY, "too many messages")
            raise WebSocketDisconnect(CLOSE_POLICY)
        await self.error(E.RATE_LIMITED, f"at most {bucket.rate:g} messages a second")
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
                await self.error(E.TOO_LARGE, f"limit {limit} bytes")
            else:
                await self.error(E.MALFORMED, "send JSON text frames")
            return None
        if len(text) > limit or len(text.encode("utf-8")) > limit:
            await self.error(E.TOO_LARGE, f"limit {limit} bytes")
            return None
        return str(text)

    async def wait_hello(self) -> Hello:
        while True:
            text = await self.receive()
            msg = await self.parse(text) if text is not None else None
            if isinstance(msg, Hello):
                return msg
            if msg is not None:
                await self.error(E.MALFORMED, "send hello first")

    async def parse(self, text: str) -> ClientMessage | None:
        try:
            return CLIENT_MESSAGE.validate_json(text)
        except ValidationError as exc:
            await self.error(E.MALFORMED, first_error(exc))
            return None

    async def run(self, table_id: str) -> None:
        try:
            try:
                table = await self.svc.get(table_id)
            except ServiceError:
                await self.error(E.UNKNOWN_TABLE)
                await self.conn.close(CLOSE_UNKNOWN_TABLE, "unknown table")
                return
            timeout = self.limits.hello_timeout
            try:
                async with asyncio.timeout(timeout):
                    hello = await self.wait_hello()
            except TimeoutError:
                await self.error(E.MALFORMED, f"send hello within {timeout:g} s")
                await self.conn.close(CLOSE_POLICY, "no hello")
                return
            self.lang = self.conn.lang = i18n.normalize(hello.lang) or i18n.DEFAULT_LANG
            seat: int | None = None
            if hello.token is not None:
                try:
                    seat = self.svc.seat_for_token(table, hello.token)
                except ServiceError:
                    await self.error(E.BAD_TOKEN)
                    await self.conn.close(CLOSE_BAD_TOKEN, "bad token")
                    return
            # the same object the others use (a finished table may have been let go meanwhile)
            table = await self.svc.get(table_id)
            cap = self.limits.max_spectators
            watching = sum(1 for c in table.conns if c.seat is None)
            if seat is None and cap is not None and watching >= cap:
                await self.error(E.TABLE_FULL, f"at most {cap} spectators")
                await self.conn.close(CLOSE_POLICY, "table full")
                return
            await self.session(table, seat)
        except WebSocketDisconnect:
            return

    async def session(self, table: LiveTable, seat: int | None) -> None:
        conn = self.conn
        conn.seat = seat
        await self.svc.connect(table, conn)
        try:
            s = table.seats[seat] if seat is not None else None
            summary = table_summary(table)
            conn.last_summary = to_json({"type": "table", "table": summary})
            await conn.send(
                {
                    "type": "welcome",
                    "seat": seat,
                    "name": s.name if s is not None else None,
                    "spectator": seat is None,
                    "hints": s.hints if s is not None else False,
                    "lang": self.lang,
                    "table": summary,
                }
            )
            await self.svc.send_state(table, conn, full=True)
            if seat is not None:
                self.svc.schedule_hints(table)
            while True:
                text = await self.receive()
                msg = await self.parse(text) if text is not None else None
                if msg is not None:
                    await self.handle(table, conn, msg)
        finally:
            await self.svc.disconnect(table, conn)

    async def handle(self, table: LiveTable, conn: Conn, msg: ClientMessage) -> None:
        if isinstance(msg, Ping):
            await conn.send({"type": "pong"})
        elif isinstance(msg, Hello):
            await self.error(E.MALFORMED, "hello was already sent")
        elif isinstance(msg, Lang):
            lang = i18n.normalize(msg.lang)
            if lang is None:
                await self.error(E.UNKNOWN_LANGUAGE)
                return
            self.lang = conn.lang = lang
            await self.svc.send_state(table, conn, full=True)
        elif isinstance(msg, Hints):
            try:
                await self.svc.set_hints(table, conn, msg.on)
            except ServiceError as exc:
                await self.error(exc.code, exc.detail)
        elif isinstance(msg, Back):
            try:
                await self.svc.clock.back(table, conn)
            except ServiceError as exc:
                await self.error(exc.code, exc.detail)
        else:
            if conn.seat is None:
                await self.error(E.SPECTATOR, None, msg.id)
                return
            action, id_ = msg.action, msg.id

            async def ack(version: int) -> None:
                await conn.send({"type": "ack", "id": id_, "action": action, "version": version})

            try:
                await self.svc.act(table, conn.seat, action, ack, client_id=id_)
            except ServiceError as exc:
                await self.error(exc.code, exc.detail, id_)


__all__ = ["CLOSE_RESTART", "LiveSocket", "first_error"]
