"""Several server processes on one PostgreSQL database: live updates through LISTEN / NOTIFY.

Every process keeps the tables its clients use in memory (:class:`~gonuts.server.service.
LiveTable`), and the database stays the source of truth:

* every commit that changes a table sends ``NOTIFY gonuts, '{"o": origin, "t": table_id}'``,
  from triggers (migration 0003), so it is heard if and only if the change is committed;
* each process LISTENs on a connection of its own (:class:`Bus`) and, for a table it has in
  memory, reads what changed (:func:`catch_up`) and sends its own clients the new state;
* two processes taking the same table's next action at once both try to insert action number
  *n*: the primary key lets one win; the other catches up and applies its action again, if it
  is still legal (:meth:`gonuts.server.service.Service._apply_locked`); likewise an action a
  process refuses is looked at again after catching up, and a client id already stored (a
  replay arriving at another process) is refused by a unique index, then acknowledged;
* presence (which seats have a socket open, and where) travels the same way, repeated every
  :data:`HEARTBEAT` seconds and forgotten after :data:`PRESENCE_TTL`, so a player is replaced
  by a bot only when connected to no process at all.

SQLite has no NOTIFY: there, one process serves (docs/server.md).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import psycopg
from sqlalchemy import select, text

from gonuts.record import apply_recorded
from gonuts.server.db import CHANNEL, ActionRow, TableRow, engine_origin, libpq_url

if TYPE_CHECKING:
    from gonuts.server.service import LiveTable, Service

log = logging.getLogger("gonuts.server.pubsub")

HEARTBEAT: Final = 5.0
"""Seconds between two announcements of a process's connected seats."""
PRESENCE_TTL: Final = 3 * HEARTBEAT
"""Seconds after which another process's silent announcement is forgotten (it has died)."""
MAX_BACKOFF: Final = 5.0
ANNOUNCE: Final = text("SELECT pg_notify(:channel, p) FROM unnest(CAST(:payloads AS text[])) AS p")


@dataclass
class Changes:
    state: bool = False
    """New actions (or the game started): send the new state."""
    table: bool = False
    """Seats, status or the next table changed: send the table summary."""


def catch_up(svc: Service, table: LiveTable) -> Changes:
    """Bring ``table`` up to the database: seats, status, next table, new actions.

    Synchronous; the caller holds ``table.lock`` (or runs between two awaits).
    """
    changes = Changes()
    with svc.sessions() as s:
        row = s.get(TableRow, table.id)
        if row is None:
            return changes
        for r in row.seats:
            seat = table.seats[r.seat]
            stored = (r.name, r.token_hash, r.hints, r.replaced)
            if stored != (seat.name, seat.token_hash, seat.hints, seat.replaced):
                seat.name, seat.token_hash, seat.hints, seat.replaced = stored
                changes.table = True
        actions = s.scalars(
            select(ActionRow)
            .where(ActionRow.table_id == table.id, ActionRow.seq >= table.version)
            .order_by(ActionRow.seq)
        ).all()
        if row.next_table != table.next_table:
            table.next_table = row.next_table
            changes.table = True
        if row.status != "open" and table.game is None:
            table.game = svc._new_game(table)
            changes.state = True
        if actions and table.game is not None:
            game = table.game.copy()
            for a in actions:
                apply_recorded(game, a.seq, a.seat, a.notation)
                if a.client_id is not None:
                    table.acked[(a.seat, a.client_id)] = (a.notation, a.seq + 1)
            table.game = game
            changes.state = True
        if row.status != table.status:
            table.status = row.status
            changes.table = True
    for s_ in table.seats:
        if s_.bot_level is None:
            table.bots.pop(s_.seat, None)
    svc._make_bots(table)
    return changes


class Bus:
    """One process's ear on the database: follows the tables it has in memory."""

    def __init__(self, svc: Service) -> None:
        self.svc = svc
        self.origin = engine_origin(svc.engine)
        self.url = libpq_url(svc.engine.url)
        self._task: asyncio.Task[None] | None = None
        self._beat: asyncio.Task[None] | None = None
        self._running: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self.connected = asyncio.Event()

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.ensure_future(self._listen())
            self._beat = asyncio.ensure_future(self._heartbeat())

    async def close(self) -> None:
        tasks = [t for t in (self._task, self._beat, *self._running.values()) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # -- listening ------------------------------------------------------------------------------

    async def _listen(self) -> None:
        delay = 0.1
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(
                    self.url, autocommit=True, application_name=f"{self.origin}:listen"
                )
                async with conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self.connected.set()
                    delay = 0.1
                    # anything may have happened while nobody listened
                    for table_id in list(self.svc.tables):
                        self.follow(table_id)
                    async for note in conn.notifies():
                        self.heard(note.payload)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("listening to PostgreSQL failed; retrying", exc_info=True)
            self.connected.clear()
            await asyncio.sleep(delay)
            delay = min(delay * 2, MAX_BACKOFF)

    def heard(self, payload: str) -> None:
        try:
            data: dict[str, Any] = json.loads(payload)
            origin, table_id = str(data["o"]), str(data["t"])
        except (ValueError, KeyError, TypeError):
            return
        if origin == self.origin:
            return
        table = self.svc.tables.get(table_id)
        if table is None:
            return
        if "p" in data:
            seats = frozenset(int(s) for s in data["p"])
            self.present(table, origin, seats)
        else:
            self.follow(table_id)

    def follow(self, table_id: str) -> None:
        """Catch ``table_id`` up soon: one refresh at a time per table, repeated if needed."""
        if table_id in self._running:
            self._again.add(table_id)
            return
        self._running[table_id] = asyncio.ensure_future(self._refresh(table_id))

    async def _refresh(self, table_id: str) -> None:
        try:
            while True:
                self._again.discard(table_id)
                table = self.svc.tables.get(table_id)
                if table is None:
                    return
                async with table.lock:
                    changes = catch_up(self.svc, table)
                if changes.state:
                    await self.svc.broadcast_state(table)
                if changes.table:
                    await self.svc.broadcast_table(table)
                self.svc._kick_bots(table)
                if table_id not in self._again:
                    return
        except Exception:
            log.exception("following table %s failed", table_id)
        finally:
            self._running.pop(table_id, None)

    # -- presence ---------------------------------------------------------------------------------

    def announce(self, *tables: LiveTable) -> None:
        """Tell the other processes which of these tables' seats are connected here.

        One round trip for all of them: the heartbeat announces every table at once, and the
        event loop waits for the database meanwhile.
        """
        payloads = [
            json.dumps(
                {
                    "o": self.origin,
                    "t": table.id,
                    "p": sorted({c.seat for c in table.conns if c.seat is not None}),
                },
                separators=(",", ":"),
            )
            for table in tables
        ]
        if not payloads:
            return
        try:
            with self.svc.engine.begin() as conn:
                conn.execute(ANNOUNCE, {"channel": CHANNEL, "payloads": payloads})
        except Exception:
            log.warning("announcing presence failed", exc_info=True)

    def present(self, table: LiveTable, origin: str, seats: frozenset[int]) -> None:
        before = [table.connected(s.seat) for s in table.seats]
        if seats:
            table.remote[origin] = (seats, time.monotonic() + PRESENCE_TTL)
        else:
            table.remote.pop(origin, None)
        self._presence_changed(table, before)

    def _presence_changed(self, table: LiveTable, before: list[bool]) -> None:
        svc = self.svc
        for s in table.seats:
            here = table.connected(s.seat)
            task = table.replace_tasks.get(s.seat)
            if here and task is not None:  # back, on another process
                table.replace_tasks.pop(s.seat).cancel()
            elif (
                not here
                and task is None
                and table.status == "playing"
                and s.kind == "human"
                and not s.replaced
            ):  # gone from everywhere: the replacement clock starts
                table.replace_tasks[s.seat] = svc._spawn(svc._replace_later(table, s.seat))
        if before != [table.connected(s.seat) for s in table.seats]:
            svc._spawn(svc.broadcast_table(table))

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT)
            now = time.monotonic()
            self.announce(
                *(
                    t
                    for t in list(self.svc.tables.values())
                    if any(c.seat is not None for c in t.conns)
                )
            )
            for table in list(self.svc.tables.values()):
                expired = [o for o, (_, until) in table.remote.items() if until <= now]
                if expired:
                    before = [table.connected(s.seat) for s in table.seats]
                    for origin in expired:
                        table.remote.pop(origin, None)
                    self._presence_changed(table, before)
