"""One driver per turn-based table (issue 27's soak): of the processes holding a turn-based
table, only the one holding its lease (``gn_table_drivers``, migration 0012) times its
decisions out and moves its bots; the others follow it. A process that stops lets its tables
go at once and another takes them over; a lease that runs out (a process killed outright) is
taken too. Every test taking ``db_url`` runs on SQLite and PostgreSQL.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

from gonuts.actions import Action
from gonuts.server.kernel.db import utcnow
from gonuts.server.play.drivers import DriverBook
from gonuts.server.play.live import LiveTable
from gonuts.server.play.sweeper import Sweeper
from gonuts.server.service import Service
from gonuts.server.store import TableStore
from gonuts.view import PlayerView
from web.test_turn_based import SCALE, clock_actions, eventually, run, service, turn_table


def counting(svc: Service) -> list[str]:
    """The tables ``svc``'s clock decided at (its bot's decisions, one per timeout tried)."""
    seen: list[str] = []
    decide = svc.bot_decision

    async def bot_decision(table: LiveTable, level: str, view: PlayerView) -> Action:
        seen.append(table.id)
        return await decide(table, level, view)

    svc.bot_decision = bot_decision  # type: ignore[method-assign]
    return seen


def test_leases_are_claimed_once_renewed_and_let_go(db_url: str) -> None:
    """Two processes' books: a table is claimed by one; the other gets it only once it is let
    go or its lease has run out; renewing reports what was lost."""
    one, two = TableStore(db_url), TableStore(db_url)
    try:
        book1, book2 = DriverBook(one), DriverBook(two)
        soon = utcnow() + timedelta(seconds=30)
        assert book1.drive(["a", "b"], soon) == {"a", "b"}
        assert book2.drive(["b", "c"], soon) == {"c"}
        assert book1.drive(["b"], soon) == {"b"}  # (its own: renewed)
        book1.release(["b"])
        assert book2.drive(["b"], soon) == {"b"}
        # a lease that ran out (a process killed outright) is taken
        assert book1.drive(["d"], utcnow() - timedelta(seconds=1)) == {"d"}
        assert book2.drive(["d"], soon) == {"d"}
        assert book1.renew(soon) == {"a"}
        book2.release()
        assert book1.drive(["b", "c", "d"], soon) == {"b", "c", "d"}
    finally:
        one.close()
        two.close()


def test_one_of_two_processes_times_a_turn_based_table_out(pg_url: str) -> None:
    """Both processes hold the table; only its driver decides at the deadlines. When the
    driver stops, the other process's sweeper takes the table over at once."""

    async def main() -> None:
        one = service(pg_url, clock_scale=SCALE)
        two = service(pg_url, clock_scale=SCALE)
        await one.start()
        await two.start()
        sweepers = [Sweeper(svc, every=0.1) for svc in (one, two)]
        for s in sweepers:
            s.start()
        by_one, by_two = counting(one), counting(two)
        try:
            table = await turn_table(one)  # (made here: this process drives it)
            t2 = await two.get(table.id)
            assert table.id in one.clock.driving and table.id not in two.clock.driving
            assert not two.clock.drives(t2)
            await eventually(lambda: len(clock_actions(one, table.id)) >= 2, "two timeouts")
            assert by_two == [] and len(by_one) >= 2
            # the driver stops: its lease goes with it, the other takes the table over
            await sweepers[0].close()
            await one.close()
            before = len(clock_actions(two, table.id))
            await eventually(lambda: len(clock_actions(two, table.id)) > before, "a takeover", 10)
            assert table.id in two.clock.driving and len(by_two) >= 1
        finally:
            for s in sweepers:
                await s.close()
            await two.close()

    run(main)


def test_a_process_that_stops_lets_its_tables_go(db_url: str) -> None:
    """Closing a service deletes its leases (nothing waits for them to run out), and it
    takes none again: a task cancelled at shutdown that arms a clock on its way out used to
    claim the table back, and its successor waited out the lease (the soak's late timeouts
    after a restart)."""

    async def main() -> None:
        svc = service(db_url, clock_scale=SCALE)
        await svc.start()
        table = await turn_table(svc)
        assert table.id in svc.clock.driving
        await svc.close()
        assert not svc.clock.drives(table)
        assert svc.clock.take([table.id]) == set()
        assert svc.clock.renew({table.id: table}) == (set(), set())
        other = TableStore(db_url)
        try:
            soon = utcnow() + timedelta(seconds=30)
            assert DriverBook(other).drive([table.id], soon) == {table.id}
        finally:
            other.close()

    run(main)


def test_a_real_time_table_is_timed_by_every_process(db_url: str) -> None:
    """Real-time tables are unchanged: no lease, every process holding one runs its clock."""

    async def main() -> None:
        svc = service(db_url, clock_scale=0.05)
        await svc.start()
        try:
            table = await turn_table(svc, clock=60)
            assert svc.clock.drives(table) and table.id not in svc.clock.driving
            await asyncio.sleep(0)
        finally:
            await svc.close()

    run(main)


def test_the_processes_share_the_tables_out(pg_url: str) -> None:
    """One process made every table (it drives them all); a second one comes: at the first's
    next renewal the idle tables that fall to the second are handed over, and it drives them
    from its own renewal on. Each table has one driver; both have some."""

    async def main() -> None:
        one = service(pg_url, clock_scale=1.0)  # (no deadline falls during the test)
        two = service(pg_url, clock_scale=1.0)
        await one.start()
        await two.start()
        sweepers = [Sweeper(svc, every=0.1, renew_every=0.3) for svc in (one, two)]
        try:
            tables = [await turn_table(one, names=(f"A{i}", f"B{i}")) for i in range(12)]
            ids = {t.id for t in tables}
            assert one.clock.driving == ids
            for s in sweepers:
                s.start()

            def shared() -> bool:
                a, b = one.clock.driving, two.clock.driving
                loaded = all(t in two.tables for t in b)
                return bool(a) and bool(b) and a | b == ids and not a & b and loaded

            await eventually(shared, "the tables shared out", 15)
            for table_id in two.clock.driving:
                assert two.clock.owner(table_id) == two.store.origin
        finally:
            for s in sweepers:
                await s.close()
            await one.close()
            await two.close()

    run(main)


def test_bookkeeping_commits_do_not_wait_for_the_disk_and_moves_do(db_url: str) -> None:
    """Deadlines, leases and heartbeats go through ``Database.bookkeeping``: on PostgreSQL its
    own connections with ``synchronous_commit`` off (of the same origin: a change it makes is
    this process's), every other statement waiting for the disk as before; on SQLite it is the
    ordinary autocommit. What it writes is seen at once by another process."""
    one, two = TableStore(db_url), TableStore(db_url)
    try:
        if one.dialect == "postgresql":
            with one.bookkeeping.connect() as c:
                assert c.exec_driver_sql("SHOW synchronous_commit").scalar() == "off"
            with one.autocommit.connect() as c:
                assert c.exec_driver_sql("SHOW synchronous_commit").scalar() == "on"
            with one.bookkeeping.connect() as c:
                name = c.exec_driver_sql("SHOW application_name").scalar()
            assert name == one.origin
        else:
            assert one.bookkeeping is one.autocommit
        books = DriverBook(one), DriverBook(two)
        until = utcnow() + timedelta(seconds=30)
        assert books[0].drive(["T1"], until) == {"T1"}
        assert books[1].drive(["T1"], until) == set()  # (seen by the other at once)
    finally:
        one.close()
        two.close()
