"""One client's WebSocket session at a table (docs/protocol.md, "Live play").

The transport (:class:`~gonuts.server.transport.socket.SocketSession`) reads the frames;
here a session finds its table, waits for ``hello``, joins the table (``welcome``, the full
state) and hands every later message to its handler (:func:`table_messages`: play's own,
and whatever other features register beside them), turning refusals into ``error`` messages.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import WebSocket, WebSocketDisconnect

from gonuts.server.kernel import i18n
from gonuts.server.kernel.errors import DatabaseUnavailableError, ErrorCode, ServiceError
from gonuts.server.kernel.limits import Limits
from gonuts.server.play.live import LiveTable
from gonuts.server.play.messages import (
    Act,
    Back,
    Change,
    Hello,
    Hints,
    Lang,
    Ping,
    table_summary,
)
from gonuts.server.play.service import Service
from gonuts.server.transport.conn import to_json
from gonuts.server.transport.socket import (
    CLOSE_BAD_TOKEN,
    CLOSE_POLICY,
    CLOSE_TRY_LATER,
    CLOSE_UNKNOWN_TABLE,
    Dispatcher,
    SocketSession,
)

E = ErrorCode


class TableSocket(SocketSession):
    """One client's WebSocket session at a table."""

    def __init__(
        self,
        svc: Service,
        websocket: WebSocket,
        limits: Limits | None = None,
        dispatcher: Dispatcher[TableSocket] | None = None,
    ) -> None:
        self.dispatcher = dispatcher or table_messages()
        super().__init__(websocket, svc.metrics, self.dispatcher.adapter, limits)
        self.svc = svc
        self.table: LiveTable | None = None
        """The table joined (after ``hello``)."""

    async def wait_hello(self) -> Hello:
        while True:
            text = await self.receive()
            msg = await self.parse(text) if text is not None else None
            if isinstance(msg, Hello):
                return msg
            if msg is not None:
                await self.error(E.MALFORMED, "send hello first")

    async def run(self, table_id: str) -> None:
        try:
            try:
                table = await self.svc.get(table_id)
            except DatabaseUnavailableError:
                raise  # (not "unknown table": the client tries again)
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
        except DatabaseUnavailableError as exc:  # while joining: say so, and let it come back
            await self.error(exc.code, exc.detail)
            await self.conn.close(CLOSE_TRY_LATER, "database unavailable")

    async def session(self, table: LiveTable, seat: int | None) -> None:
        self.table = table
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
                    try:
                        await self.dispatcher.dispatch(self, msg)
                    except DatabaseUnavailableError as exc:  # (a handler that let it through)
                        await self.error(exc.code, exc.detail, getattr(msg, "id", None))
        finally:
            await self.svc.disconnect(table, conn)

    @property
    def joined(self) -> LiveTable:
        assert self.table is not None  # (handlers run only after the session joined)
        return self.table


async def on_ping(s: TableSocket, msg: Ping) -> None:
    await s.conn.send({"type": "pong"})


async def on_hello(s: TableSocket, msg: Hello) -> None:
    await s.error(E.MALFORMED, "hello was already sent")


async def on_lang(s: TableSocket, msg: Lang) -> None:
    lang = i18n.normalize(msg.lang)
    if lang is None:
        await s.error(E.UNKNOWN_LANGUAGE)
        return
    s.lang = s.conn.lang = lang
    await s.svc.send_state(s.joined, s.conn, full=True)


async def on_hints(s: TableSocket, msg: Hints) -> None:
    try:
        await s.svc.set_hints(s.joined, s.conn, msg.on)
    except ServiceError as exc:
        await s.error(exc.code, exc.detail)


async def on_back(s: TableSocket, msg: Back) -> None:
    try:
        await s.svc.clock.back(s.joined, s.conn)
    except ServiceError as exc:
        await s.error(exc.code, exc.detail)


async def on_act(s: TableSocket, msg: Act) -> None:
    await _move(s, msg.action, msg.id, change=False)


async def on_change(s: TableSocket, msg: Change) -> None:
    await _move(s, msg.action, msg.id, change=True)


async def _move(s: TableSocket, action: str, id_: str | None, *, change: bool) -> None:
    """A seat's move (``act``) or its changed pick (``change``): acknowledged once stored (a
    change's ``ack`` says ``"changed": true``), or refused with an ``error`` naming the id."""
    conn = s.conn
    if conn.seat is None:
        await s.error(E.SPECTATOR, None, id_)
        return

    async def ack(version: int) -> None:
        reply: dict[str, Any] = {"type": "ack", "id": id_, "action": action, "version": version}
        if change:
            reply["changed"] = True
        await conn.send(reply)

    move = s.svc.change if change else s.svc.act
    try:
        await move(s.joined, conn.seat, action, ack, client_id=id_)
    except ServiceError as exc:
        await s.error(exc.code, exc.detail, id_)


def table_messages() -> Dispatcher[TableSocket]:
    """Play's socket messages and their handlers, in the protocol's order (``CLIENT_MESSAGE``);
    another feature adds its own with :meth:`Dispatcher.on` before the first socket opens."""
    d: Dispatcher[TableSocket] = Dispatcher()
    d.on(Hello, on_hello)
    d.on(Act, on_act)
    d.on(Change, on_change)
    d.on(Hints, on_hints)
    d.on(Lang, on_lang)
    d.on(Ping, on_ping)
    d.on(Back, on_back)
    return d
