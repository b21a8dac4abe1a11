"""PostgreSQL specifics of several server processes on one database, in one test process: two
:class:`Service` objects stand for two processes (docs/server.md, "More than one process")."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from sqlalchemy import text

from gonuts.server.kernel.errors import ServiceError
from gonuts.server.kernel.relay import PgRelay
from gonuts.server.play.messages import table_summary
from gonuts.server.service import Service
from gonuts.server.store import TableStore
from gonuts.server.transport.conn import Conn
from web.helpers import Inbox

TWO_HUMANS: list[tuple[str, str | None]] = [("human", None), ("human", None)]


async def eventually(check: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


def run(pg_url: str, body: Callable[[Service, Service], Awaitable[None]], **kw: Any) -> None:
    async def main() -> None:
        one = Service(TableStore(pg_url), bot_delay=0, **kw)
        two = Service(TableStore(pg_url), bot_delay=0, **kw)
        await one.start()
        await two.start()
        try:
            await asyncio.wait_for(body(one, two), 30)
        finally:
            await one.close()
            await two.close()

    asyncio.run(main())


def relay(svc: Service) -> PgRelay[Any]:
    """The service's LISTEN / NOTIFY relay (PostgreSQL gives every service one)."""
    assert isinstance(svc.relay, PgRelay)
    return svc.relay


def query(svc: Service, sql: str, **params: Any) -> list[tuple[Any, ...]]:
    with svc.store.engine.begin() as c:
        return [tuple(r) for r in c.execute(text(sql), params).all()]


async def two_player_table(one: Service, two: Service) -> tuple[str, str, str]:
    table, _, ana = await one.create_table(TWO_HUMANS, "Ana", "en")
    await two.get(table.id)
    _, ben = await two.join(table.id, "Ben")
    await relay(one).connected.wait()
    await relay(two).connected.wait()
    assert ana is not None
    return table.id, ana, ben


def test_updates_cross_between_processes(pg_url: str) -> None:
    async def body(one: Service, two: Service) -> None:
        table_id, _, _ = await two_player_table(one, two)
        t1, t2 = await one.get(table_id), await two.get(table_id)
        await eventually(lambda: t1.status == "playing", "the start to reach process one")
        ana, ben = Inbox(), Inbox()
        await one.connect(t1, Conn(ana, 0, "en"))
        await two.connect(t2, Conn(ben, 1, "en"))
        await one.act(t1, 0, "pick 1")
        await eventually(lambda: 1 in ben.versions(), "Ana's pick to reach Ben")
        await two.act(t2, 1, "pick 2")
        await eventually(lambda: 2 in ana.versions(), "Ben's pick to reach Ana")
        assert t1.version == t2.version == 2
        # each side sees the other's player connected (presence is written in batches,
        # play/presence.py: within a moment)
        for t in (t1, t2):
            await eventually(
                lambda t=t: all(s["connected"] for s in table_summary(t)["seats"]),  # type: ignore[misc]
                "presence to cross",
            )

    run(pg_url, body)


def test_simultaneous_actions_on_two_processes(pg_url: str) -> None:
    """Process two has not heard of process one's action: its insert of the same action number
    fails, it catches up and applies its own action after it."""

    async def body(one: Service, two: Service) -> None:
        table_id, _, _ = await two_player_table(one, two)
        t1, t2 = await one.get(table_id), await two.get(table_id)
        await eventually(lambda: t1.status == "playing", "the start to reach process one")
        await relay(two).close()  # deaf from now on
        ben = Inbox()
        t2.conns.add(Conn(ben, 1, "en"))
        assert await one.act(t1, 0, "pick 1") == (1, False)
        assert t2.version == 0
        assert await two.act(t2, 1, "pick 2") == (2, False)
        assert t2.version == 2 and t2.game is not None
        await eventually(lambda: 2 in ben.versions(), "process two to tell its client")
        rows = query(
            one, "SELECT seq, seat FROM gn_actions WHERE table_id = :t ORDER BY seq", t=table_id
        )
        assert rows == [(0, 0), (1, 1)]

    run(pg_url, body)


def test_a_replay_reaching_a_process_that_has_not_heard(pg_url: str) -> None:
    """Ana's move (id z1) was stored through process one; her client, reconnected to process
    two (deaf, behind), sends it again: acknowledged with the original version, not applied."""

    async def body(one: Service, two: Service) -> None:
        table_id, _, _ = await two_player_table(one, two)
        t1, t2 = await one.get(table_id), await two.get(table_id)
        await eventually(lambda: t1.status == "playing", "the start to reach process one")
        await relay(two).close()
        assert await one.act(t1, 0, "pick 1", client_id="z1") == (1, False)
        assert t2.version == 0
        assert await two.act(t2, 0, "pick 1", client_id="z1") == (1, True)
        assert await two.act(t2, 0, "pick 1", client_id="z1") == (1, True)
        with pytest.raises(ServiceError) as refused:
            await two.act(t2, 0, "pick 2", client_id="z1")
        assert refused.value.code == "malformed"
        assert await two.act(t2, 1, "pick 3", client_id="z1") == (2, False)  # ids are per seat
        rows = query(
            one,
            "SELECT seq, seat, client_id FROM gn_actions WHERE table_id = :t ORDER BY seq",
            t=table_id,
        )
        assert rows == [(0, 0, "z1"), (1, 1, "z1")]

    run(pg_url, body)


def test_a_seat_is_taken_once(pg_url: str) -> None:
    async def body(one: Service, two: Service) -> None:
        table, _, _ = await one.create_table([*TWO_HUMANS, ("human", None)], "Ana", "en")
        await two.get(table.id)
        await relay(two).close()  # process two does not hear of Ben
        seat_b, _ = await one.join(table.id, "Ben")
        seat_c, _ = await two.join(table.id, "Cid")
        assert {seat_b, seat_c} == {1, 2}
        names = query(one, "SELECT name FROM gn_seats WHERE table_id = :t", t=table.id)
        assert sorted(n or "" for (n,) in names) == ["Ana", "Ben", "Cid"]

    run(pg_url, body)


def test_no_bot_replaces_a_player_connected_elsewhere(pg_url: str) -> None:
    async def body(one: Service, two: Service) -> None:
        table_id, _, _ = await two_player_table(one, two)
        t1, t2 = await one.get(table_id), await two.get(table_id)
        await eventually(lambda: t1.status == "playing", "the start to reach process one")
        ana, ben = Conn(Inbox(), 0, "en"), Conn(Inbox(), 1, "en")
        await one.connect(t1, ana)
        await two.connect(t2, ben)
        await eventually(lambda: t1.connected(1) and t2.connected(0), "presence")
        await asyncio.sleep(0.6)  # twice the replacement delay
        assert not t1.seats[1].replaced and not t2.seats[0].replaced
        await two.disconnect(t2, ben)  # Ben leaves for good
        await eventually(lambda: t1.seats[1].replaced, "Ben's bot", timeout=5)
        await eventually(lambda: t1.version > 0, "Ben's bot to play", timeout=5)

    run(pg_url, body, replace_after=0.3)


def test_the_listener_reconnects_and_catches_up(pg_url: str) -> None:
    async def body(one: Service, two: Service) -> None:
        table_id, _, _ = await two_player_table(one, two)
        t1, t2 = await one.get(table_id), await two.get(table_id)
        await eventually(lambda: t1.status == "playing", "the start to reach process one")
        killed = query(  # cut process two's LISTEN connection
            one,
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = :a",
            a=f"{two.store.origin}:listen",
        )
        assert killed == [(True,)]
        await one.act(t1, 0, "pick 1")  # may happen while nobody listens
        await eventually(lambda: t2.version == 1, "process two to catch up")

    run(pg_url, body)


def test_presence_of_many_tables_in_one_announcement(pg_url: str) -> None:
    """The heartbeat announces every table with a player here in one round trip; the other
    process learns each table's connected seats from it (and forgets them when they go)."""

    async def body(one: Service, two: Service) -> None:
        pairs = []
        for _ in range(3):
            table_id, _, _ = await two_player_table(one, two)
            t1, t2 = await one.get(table_id), await two.get(table_id)
            t1.conns.add(Conn(Inbox(), 0, "en"))  # Ana is here, without announcing it
            pairs.append((t1, t2))
        assert not any(t2.connected(0) for _, t2 in pairs)
        relay(one).announce(*(t1 for t1, _ in pairs))
        await eventually(lambda: all(t2.connected(0) for _, t2 in pairs), "presence")
        assert not any(t2.connected(1) for _, t2 in pairs)
        for t1, _ in pairs:
            t1.conns.clear()
        relay(one).announce(*(t1 for t1, _ in pairs))
        await eventually(lambda: not any(t2.connected(0) for _, t2 in pairs), "absence")

    run(pg_url, body)
