"""How the server processes on one database hear of each other's changes: a :class:`Relay`.

One process (SQLite, or PostgreSQL with one server) needs nobody: :class:`NullRelay`. Several
processes on one PostgreSQL database use :class:`PgRelay`, through ``LISTEN`` / ``NOTIFY``:

* every commit that changes a table sends ``NOTIFY gonuts, '{"o": origin, "t": table_id}'``,
  from triggers (migration 0003), so it is heard if and only if the change is committed;
* each process LISTENs on a connection of its own and, for a table it has in memory, asks the
  :class:`Hub` (the service) to catch it up from the database and tell its clients;
* two processes taking the same table's next action at once both try to store action number
  *n*: the primary key lets one win; the other catches up (:meth:`Relay.refresh`) and applies
  its action again, if it is still legal (``Service.act``); likewise an action a process
  refuses is looked at again after catching up, and a client id already stored (a replay
  arriving at another process) is refused by a unique index, then acknowledged;
* presence (which seats have a socket open, and where) travels the same way, repeated every
  :data:`HEARTBEAT` seconds and forgotten after :data:`PRESENCE_TTL`, so a player is replaced
  by a bot only when connected to no process at all.

The relay knows the service only as a :class:`Hub` (public methods): it imports nothing of
:mod:`gonuts.server.play.service` (tests/test_architecture.py checks it).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Mapping, Set
from dataclasses import dataclass
from typing import Any, Final, Generic, Protocol, TypeVar

import psycopg
from sqlalchemy import text
from sqlalchemy.engine import Engine

from gonuts.server.kernel.db import CHANNEL

log = logging.getLogger("gonuts.server.relay")

HEARTBEAT: Final = 5.0
"""Seconds between two announcements of a process's connected seats."""
PRESENCE_TTL: Final = 3 * HEARTBEAT
"""Seconds after which another process's silent announcement is forgotten (it has died)."""
MAX_BACKOFF: Final = 5.0
ANNOUNCE: Final = text("SELECT pg_notify(:channel, p) FROM unnest(CAST(:payloads AS text[])) AS p")


@dataclass
class Changes:
    """What catching a table up with the database changed (what to tell its sockets)."""

    state: bool = False
    table: bool = False


class Watcher(Protocol):
    """A socket watching a table, as the relay sees it: which seat (None: a spectator)."""

    @property
    def seat(self) -> int | None: ...


class RelayedTable(Protocol):
    """A live table, as the relay sees it (the play feature's ``T``)."""

    @property
    def id(self) -> str: ...

    @property
    def lock(self) -> asyncio.Lock: ...

    @property
    def conns(self) -> Set[Watcher]: ...

    @property
    def remote(self) -> dict[str, tuple[frozenset[int], float]]: ...

    def connected_seats(self) -> list[bool]: ...


class RelayDatabase(Protocol):
    """The database the relay listens to (the store's engine and its identity)."""

    @property
    def dialect(self) -> str: ...

    @property
    def origin(self) -> str: ...

    @property
    def libpq_url(self) -> str: ...

    @property
    def engine(self) -> Engine: ...


T = TypeVar("T", bound=RelayedTable)


class Hub(Protocol[T]):
    """What a relay may ask of the play service: public methods only."""

    @property
    def tables(self) -> Mapping[str, T]: ...

    def catch_up(self, table: T) -> Changes: ...

    async def broadcast_state(self, table: T) -> None: ...

    async def broadcast_table(self, table: T) -> None: ...

    def kick_bots(self, table: T) -> None: ...

    def presence_changed(self, table: T, before: list[bool]) -> None: ...


class Relay(Protocol[T]):
    """The service's link to the other server processes on its database, if any."""

    async def start(self, hub: Hub[T]) -> None:
        """Begin following the others' changes on behalf of ``hub`` (in the app's lifespan)."""

    async def close(self) -> None: ...

    def announce(self, *tables: T) -> None:
        """Tell the others which of these tables' seats have a socket open here."""

    def refresh(self, table: T) -> Changes:
        """Catch ``table`` up now with what the others committed (the caller holds its lock)."""


class NullRelay(Generic[T]):
    """One process: nobody else changes the database, nothing to tell or hear."""

    async def start(self, hub: Hub[T]) -> None:
        return None

    async def close(self) -> None:
        return None

    def announce(self, *tables: T) -> None:
        return None

    def refresh(self, table: T) -> Changes:
        return Changes()


class PgRelay(Generic[T]):
    """One process's ear on a PostgreSQL database: follows the tables it has in memory."""

    def __init__(self, store: RelayDatabase) -> None:
        self.store = store
        self.origin = store.origin
        self.url = store.libpq_url
        self.hub: Hub[T] | None = None
        self._task: asyncio.Task[None] | None = None
        self._beat: asyncio.Task[None] | None = None
        self._running: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self.connected = asyncio.Event()
        """Set while the listening connection is up (tests wait for it)."""

    async def start(self, hub: Hub[T]) -> None:
        self.hub = hub
        if self._task is None:
            self._task = asyncio.ensure_future(self._listen(hub))
            self._beat = asyncio.ensure_future(self._heartbeat(hub))

    async def close(self) -> None:
        tasks = [t for t in (self._task, self._beat, *self._running.values()) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def refresh(self, table: T) -> Changes:
        if self.hub is None:
            return Changes()
        return self.hub.catch_up(table)

    # -- listening ------------------------------------------------------------------------------

    async def _listen(self, hub: Hub[T]) -> None:
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
                    for table_id in list(hub.tables):
                        self.follow(hub, table_id)
                    async for note in conn.notifies():
                        self.heard(hub, note.payload)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("listening to PostgreSQL failed; retrying", exc_info=True)
            self.connected.clear()
            await asyncio.sleep(delay)
            delay = min(delay * 2, MAX_BACKOFF)

    def heard(self, hub: Hub[T], payload: str) -> None:
        try:
            data: dict[str, Any] = json.loads(payload)
            origin, table_id = str(data["o"]), str(data["t"])
        except (ValueError, KeyError, TypeError):
            return
        if origin == self.origin:
            return
        table = hub.tables.get(table_id)
        if table is None:
            return
        if "p" in data:
            seats = frozenset(int(s) for s in data["p"])
            self.present(hub, table, origin, seats)
        else:
            self.follow(hub, table_id)

    def follow(self, hub: Hub[T], table_id: str) -> None:
        """Catch ``table_id`` up soon: one refresh at a time per table, repeated if needed."""
        if table_id in self._running:
            self._again.add(table_id)
            return
        self._running[table_id] = asyncio.ensure_future(self._catch_up(hub, table_id))

    async def _catch_up(self, hub: Hub[T], table_id: str) -> None:
        try:
            while True:
                self._again.discard(table_id)
                table = hub.tables.get(table_id)
                if table is None:
                    return
                async with table.lock:
                    changes = hub.catch_up(table)
                if changes.state:
                    await hub.broadcast_state(table)
                if changes.table:
                    await hub.broadcast_table(table)
                hub.kick_bots(table)
                if table_id not in self._again:
                    return
        except Exception:
            log.exception("following table %s failed", table_id)
        finally:
            self._running.pop(table_id, None)

    # -- presence ---------------------------------------------------------------------------------

    def announce(self, *tables: T) -> None:
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
            with self.store.engine.begin() as conn:
                conn.execute(ANNOUNCE, {"channel": CHANNEL, "payloads": payloads})
        except Exception:
            log.warning("announcing presence failed", exc_info=True)

    def present(self, hub: Hub[T], table: T, origin: str, seats: frozenset[int]) -> None:
        before = table.connected_seats()
        if seats:
            table.remote[origin] = (seats, time.monotonic() + PRESENCE_TTL)
        else:
            table.remote.pop(origin, None)
        hub.presence_changed(table, before)

    async def _heartbeat(self, hub: Hub[T]) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT)
            now = time.monotonic()
            tables = list(hub.tables.values())
            self.announce(*(t for t in tables if any(c.seat is not None for c in t.conns)))
            for table in tables:
                expired = [o for o, (_, until) in table.remote.items() if until <= now]
                if expired:
                    before = table.connected_seats()
                    for origin in expired:
                        table.remote.pop(origin, None)
                    hub.presence_changed(table, before)


def relay_for(store: RelayDatabase) -> Relay[Any]:
    """The relay a store's database needs: LISTEN / NOTIFY on PostgreSQL, none on SQLite."""
    return PgRelay(store) if store.dialect == "postgresql" else NullRelay()
