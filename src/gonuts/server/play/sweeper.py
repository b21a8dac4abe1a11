"""The deadline sweeper: turn-based deadlines are enforced even where nobody holds the table.

Every process runs one (started with the app). Every ``every`` seconds it reads the deadlines
that have passed (``gn_deadlines.due_at <= now``, an index range scan, at most ``batch`` rows a
pass) of the tables no other live process drives, claims those tables (one statement: the
lease of :mod:`gonuts.server.play.drivers`, so two processes never both take one) and makes
sure a clock is on each: a table this process does not hold is loaded, which arms its clock
from the stored deadline, already passed, so the medium bot decides at once with the clock's
client id ``clock:<n>`` (the database stores one action in any case: docs/server.md). A row
whose decision the table no longer waits for (a process stopped between a move and the
delete) is dropped. Now and then it also claims and loads the turn-based games with no
deadline at all and no driver (bots to move, or a process stopped between a move and the next
deadline), so nothing stays stuck across a restart; and every
:data:`~gonuts.server.play.drivers.RENEW_EVERY` seconds it renews this process's leases.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Collection, Mapping
from datetime import timedelta
from typing import Final, Protocol

from gonuts.server.kernel.db import utcnow
from gonuts.server.kernel.relay import Changes
from gonuts.server.kernel.work import Periodic
from gonuts.server.play.deadlines import DeadlineBook
from gonuts.server.play.drivers import RENEW_EVERY
from gonuts.server.play.live import LiveTable

log = logging.getLogger("gonuts.server.clock")

EVERY: Final = 2.0
"""Seconds between two passes (real time; the time factor divides it, down to ``FLOOR``)."""
FLOOR: Final = 0.25
BATCH: Final = 100
"""Deadlines looked at per pass: a backlog after an outage is worked off a pass at a time."""
GRACE: Final = 0.5
"""Seconds (real, plus two periods) a due table that falls to another live process
(``DurableClock.owner``) is left to it before this one takes it (that one is slow, or its
row is stale)."""
ORPHANS_EVERY: Final = 30
"""Passes between two looks for turn-based games with no deadline stored (the next pass
looks again while the last look found some: many tables made at once, or taken by another
process first)."""


class SweptClock(Protocol):
    book: DeadlineBook
    driving: set[str]

    def arm(self, table: LiveTable) -> None: ...

    def take(self, table_ids: Collection[str]) -> set[str]: ...

    def renew(self, tables: Mapping[str, LiveTable]) -> tuple[set[str], set[str]]: ...

    def preferred(self, table_id: str) -> bool: ...

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
        self,
        hub: SweepHub,
        *,
        every: float = EVERY,
        batch: int = BATCH,
        factor: float = 1.0,
        renew_every: float = RENEW_EVERY,
    ) -> None:
        self.hub = hub
        self.every = max(FLOOR, every / factor) if factor != 1.0 else every
        self.batch = batch
        self.passes = 0
        self.loaded = 0
        """Tables this sweeper loaded (for the tests and the logs)."""
        self.renew_every = renew_every
        self._renewed = float("-inf")
        self.grace = GRACE + 2 * self.every
        """Seconds a due table that falls to another live process is left to it."""
        self._orphans_at = 0
        """The pass that looks for orphans next."""

    async def _pass(self) -> object:
        return await self.sweep()

    async def sweep(self) -> int:
        """One pass: the due deadlines of the tables no other process drives, each table
        claimed and given a clock; how many were looked at."""
        clock = self.hub.clock
        book = clock.book
        if time.monotonic() - self._renewed >= self.renew_every:
            self._renewed = time.monotonic()
            await self._renew()
        now = utcnow()
        rows = book.due(now, self.batch)
        looked = self.passes >= self._orphans_at
        orphans = book.orphans(self.batch) if looked else []
        self.passes += 1
        # a table that falls to another live process is left to it for a moment
        late = now - timedelta(seconds=self.grace)
        wanted = {t for t, _, _, at in rows if at <= late or clock.preferred(t)}
        wanted |= {t for t in orphans if clock.preferred(t)}
        taken = clock.take([t for t in sorted(wanted) if t not in clock.driving])
        if looked:  # (while new ones turn up, or others took them first: next pass again)
            fresh = len(orphans) >= self.batch or any(
                t not in clock.driving or t not in self.hub.tables for t in orphans
            )
            self._orphans_at = self.passes + (0 if fresh else ORPHANS_EVERY - 1)
        for table_id in orphans:
            if table_id not in clock.driving:
                continue  # (another process took it first)
            table = self.hub.tables.get(table_id)
            if table is None:
                await self._load(table_id)
            elif table_id in taken:  # (held here, driven elsewhere until now)
                clock.rearm(table)
                self.hub.kick_bots(table)
        for table_id, seat, decision, _ in rows:
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

    async def _renew(self) -> None:
        """This process's leases renewed and shared out: the tables handed to it by another
        process are loaded (or armed, if held), those it lost stop their timers."""
        clock = self.hub.clock
        gained, lost = clock.renew(self.hub.tables)
        for table_id in sorted(lost):
            table = self.hub.tables.get(table_id)
            if table is not None:
                clock.rearm(table)
        for table_id in sorted(gained):
            table = self.hub.tables.get(table_id)
            if table is None:
                await self._load(table_id)
            else:
                clock.rearm(table)
                self.hub.kick_bots(table)

    async def _load(self, table_id: str) -> LiveTable | None:
        try:
            table = await self.hub.get(table_id)
        except Exception:
            log.exception("the sweeper could not load table %s", table_id)
            return None
        self.loaded += 1
        await asyncio.sleep(0)  # (a hundred loads in a pass: the requests are served between)
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
