"""Presence in batches (server/play/presence.py): a herd of sockets opening at once costs one
database transaction for their seats and one NOTIFY for their tables, not two per socket."""

from __future__ import annotations

import asyncio
from datetime import datetime

from sqlalchemy import select, update
from starlette.testclient import TestClient

from gonuts.server.kernel.db import SeatRow
from gonuts.server.play.live import LiveTable
from gonuts.server.play.presence import Presence
from gonuts.server.play.store import PlayStore
from web.helpers import create


class Spy:
    """A store and a relay that count their calls."""

    def __init__(self) -> None:
        self.seen: list[dict[tuple[str, int], bool]] = []
        self.announced: list[tuple[str, ...]] = []

    def mark_seen(self, seats: dict[tuple[str, int], bool]) -> None:
        self.seen.append(dict(seats))

    def announce(self, *tables: LiveTable) -> None:
        self.announced.append(tuple(t.id for t in tables))


def live(table_id: str) -> LiveTable:
    return LiveTable(
        id=table_id, created_at=datetime(2026, 1, 1), status="playing", deck=(), seats=[]
    )


def test_a_herd_of_sockets_is_written_once() -> None:
    async def herd() -> Spy:
        spy = Spy()
        presence = Presence(spy, spy, delay=0.02)  # type: ignore[arg-type]
        tables = [live(f"t{n}") for n in range(50)]
        for table in tables:
            for seat in range(4):
                presence.seen(table, seat, back=True)
        presence.seen(tables[0], 0, back=False)  # (closed again: still cleared, once)
        assert spy.seen == [] and spy.announced == []  # nothing written yet
        await asyncio.sleep(0.1)
        return spy

    spy = asyncio.run(herd())
    assert len(spy.seen) == 1 and len(spy.seen[0]) == 200
    assert all(spy.seen[0].values())
    assert spy.announced == [tuple(f"t{n}" for n in range(50))]


def test_nothing_pending_writes_nothing_and_flush_writes_now() -> None:
    async def run() -> Spy:
        spy = Spy()
        presence = Presence(spy, spy, delay=60)  # type: ignore[arg-type]
        presence.flush()
        presence.seen(live("a"), 1, back=False)
        presence.flush()  # (a shutdown does not wait for the delay)
        return spy

    spy = asyncio.run(run())
    assert spy.seen == [{("a", 1): False}] and spy.announced == [("a",)]


def test_mark_seen_writes_every_seat_in_one_go(client: TestClient, db_url: str) -> None:
    """The real store, on both databases: last_seen set for all, replaced cleared for those
    that came back only."""
    table_id = create(client, [{"kind": "human"}, {"kind": "human"}])["table"]["id"]
    assert client.post(f"/api/tables/{table_id}/join", json={"name": "Ben"}).status_code == 200
    store = PlayStore(db_url)
    try:
        with store.engine.begin() as c:
            c.execute(update(SeatRow).values(replaced=True, last_seen=None))
        store.mark_seen({(table_id, 0): True, (table_id, 1): False})
        with store.engine.connect() as c:
            rows = c.execute(
                select(SeatRow.replaced, SeatRow.last_seen)
                .where(SeatRow.table_id == table_id)
                .order_by(SeatRow.seat)
            ).all()
    finally:
        store.close()
    assert [r.replaced for r in rows] == [False, True]
    assert all(r.last_seen is not None for r in rows)
