"""Presence written in batches: the seats seen and the tables whose sockets changed.

Every socket that opens or closes used to cost the event loop two database round trips of
its own (the seat's ``last_seen``/``replaced`` UPDATE and the relay's presence NOTIFY), on the
loop, one after another. When a server process dies, the few hundred players it held all
connect to the survivors within the same tenth of a second (docs/loadtest.md, "Scale-out"):
hundreds of round trips in a row, each delaying every other player. Here they are gathered
for :data:`DELAY` seconds and written at once: one transaction for all the seats, one NOTIFY
transaction for all the tables (:meth:`~gonuts.server.kernel.relay.PgRelay.announce` takes many).

What is delayed is harmless to delay: ``last_seen`` is kept for the operator, and a seat
whose player came back after a bot replaced it is cleared at once (the service writes that
one itself, :meth:`Presence.seen` is told ``back=False``); the other processes hear of a socket
:data:`DELAY` seconds later, far inside their replacement clock (``--replace-after``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Final, Protocol

from gonuts.server.kernel.relay import Relay
from gonuts.server.play.live import LiveTable

log = logging.getLogger("gonuts.server.presence")

DELAY: Final = 0.05
"""Seconds a presence change waits for others to be written with it."""


class SeenStore(Protocol):
    def mark_seen(self, seats: dict[tuple[str, int], bool]) -> None: ...


class Presence:
    """Collects seats seen and tables to announce; writes them :data:`DELAY` s later."""

    def __init__(self, store: SeenStore, relay: Relay[LiveTable], delay: float = DELAY) -> None:
        self.store = store
        self.relay = relay
        self.delay = delay
        self._seen: dict[tuple[str, int], bool] = {}
        self._tables: dict[str, LiveTable] = {}
        self._due: asyncio.TimerHandle | None = None

    def seen(self, table: LiveTable, seat: int, *, back: bool) -> None:
        """``seat``'s player was seen now (a socket opened or closed); ``back``: also clear
        the seat's ``replaced`` flag in the database (a socket opened)."""
        key = (table.id, seat)
        self._seen[key] = self._seen.get(key, False) or back
        self.changed(table)

    def changed(self, table: LiveTable) -> None:
        """``table``'s sockets here changed: the other processes are to hear of it."""
        self._tables[table.id] = table
        if self._due is None:
            self._due = asyncio.get_running_loop().call_later(self.delay, self.flush)

    def flush(self) -> None:
        """Write what is pending now (also at shutdown)."""
        if self._due is not None:
            self._due.cancel()
            self._due = None
        seen, self._seen = self._seen, {}
        tables, self._tables = list(self._tables.values()), {}
        if seen:
            try:
                self.store.mark_seen(seen)
            except Exception:  # (a database outage: last_seen is not worth an error)
                log.warning("writing %d seats' presence failed", len(seen), exc_info=True)
        if tables:
            self.relay.announce(*tables)
