"""The deadline sweeper: turn-based deadlines are enforced even where nobody holds the table.

Every process runs one (started with the app). Every ``every`` seconds it reads the deadlines
that have passed (``gn_deadlines.due_at <= now``, an index range scan, at most ``batch`` rows a
pass) of the tables no other live process drives, claims those tables (one statement: the
lease of :mod:`gonuts.server.play.deadlines`, so two processes never both take one) and makes
sure a clock is on each: a table this process does not hold is loaded, which arms its clock
from the stored deadline, already passed, so the medium bot decides at once with the clock's
client id ``clock:<n>`` (the database stores one action in any case: docs/server.md). A row
whose decision the table no longer waits for (a process stopped between a move and the
delete) is dropped. Now and then it also claims and loads the turn-based games with no
deadline at all and no driver (bots to move, or a process stopped between a move and the next
deadline), so nothing stays stuck across a restart; and every
:data:`~gonuts.server.play.deadlines.RENEW_EVERY` seconds it renews this process's leases.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Collection, Mapping
from typing import Final, Protocol

from gonuts.server.kernel.db import utcnow
from gonuts.server.kernel.relay import Changes
from gonuts.server.kernel.work import Periodic
from gonuts.server.play.deadlines import RENEW_EVERY, DeadlineBook
from gonuts.server.play.live import LiveTable

log = logging.getLogger("gonuts.server.clock")

EVERY: Final = 2.0
"""Seconds between two passes (real time; the time factor divides it, down to ``FLOOR``)."""
FLOOR: Final = 0.25
BATCH: Final = 100
"""Deadlines looked at per pass: a backlog after an outage is worked off a pass at a time."""
ORPHANS_EVERY: Final = 30
"""Passes between two looks for turn-based games with no deadline stored."""


class SweptClock(Protocol):
    book: DeadlineBook
    driving: set[str]

    def arm(self, table: LiveTable) -> None: ...

    def take(self, table_ids: Collection[str]) -> set[str]: ...

    def renew(self) -> set[str]: ...

    def rearm(self, table: LiveTable) -> None: ...


class SweepHub(Protocol):
    """What the sweeper needs of the play service."""

    @property
    def clock(self) -> SweptClock: ...

    @property
    def tables(self) -> Mapping[str, LiveTable]: ...

    async def get(self, table_id: str) -> LiveTable: ...

    def catch_up(self, table: LiveTable) -> Changes: ...

    async def broadcast_state(self, table: LiveTable) -> None: ...

    def kick_bots(self, table: LiveTable) -> None: ...


class Sweeper(Periodic):
    """One process's deadline sweeper (``start`` with the app, ``close`` at shutdown)."""

    what = "the deadline sweep"

    def __init__(
        self, hub: SweepHub, *, every: float = EVERY, batch: int = BATCH, factor: float = 1.0
    ) -> None:
        self.hub = hub
        self.every = max(FLOOR, every / factor) if factor != 1.0 else every
        self.batch = batch
        self.passes = 0
        self.loaded = 0
        """Tables this sweeper loaded (for the tests and the logs)."""
        self._renewed = float("-inf")

    async def _pass(self) -> object:
        return await self.sweep()

    async def sweep(self) -> int:
        """One pass: the due deadlines of the tables no other process drives, each table
        claimed and given a clock; how many were looked at."""
        clock = self.hub.clock
        book = clock.book
        if time.monotonic() - self._renewed >= RENEW_EVERY:
            self._renewed = time.monotonic()
            for table_id in clock.renew():  # (taken over after a stall: its timers stop)
                lost = self.hub.tables.get(table_id)
                if lost is not None:
                    clock.rearm(lost)
        rows = book.due(utcnow(), self.batch)
        orphans = book.orphans(self.batch) if self.passes % ORPHANS_EVERY == 0 else []
        self.passes += 1
        wanted = {t for t, _, _ in rows} | set(orphans)
        taken = clock.take([t for t in sorted(wanted) if t not in clock.driving])
        for table_id in orphans:
            if table_id not in clock.driving:
                continue  # (another process took it first)
            table = self.hub.tables.get(table_id)
            if table is None:
                await self._load(table_id)
            elif table_id in taken:  # (held here, driven elsewhere until now)
                clock.rearm(table)
                self.hub.kick_bots(table)
        for table_id, seat, decision in rows:
            if table_id not in clock.driving:
                continue
            table = self.hub.tables.get(table_id)
            if table is None:
                table = await self._load(table_id)
                if table is None:
                    continue
            elif table_id in taken:
                clock.rearm(table)
            await self._check(table, seat, decision)
        return len(rows)

    async def _load(self, table_id: str) -> LiveTable | None:
        try:
            table = await self.hub.get(table_id)
        except Exception:
            log.exception("the sweeper could not load table %s", table_id)
            return None
        self.loaded += 1
        return table

    async def _check(self, table: LiveTable, seat: int, decision: int) -> None:
        """The table is here: its clock must be on ``seat``'s ``decision`` (then its timer,
        already due, decides), or the row is stale and goes."""
        book = self.hub.clock.book
        if table.status != "playing":
            book.clear(table.id)
            return
        self.hub.clock.arm(table)
        if seat in table.deadlines:
            return
        async with table.lock:  # perhaps another process moved on: catch up first
            changes = self.hub.catch_up(table)
        if changes.state:
            await self.hub.broadcast_state(table)
        self.hub.kick_bots(table)
        if seat not in table.deadlines or table.status != "playing":
            book.decided(table.id, seat, decision)
