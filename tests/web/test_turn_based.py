"""Turn-based tables (issue 27): deadlines in the database, the sweeper, the outbox, the dispatcher.

A table with a clock of an hour or more keeps each pending decision's deadline in
``gn_deadlines`` (an absolute time): a restart or another process keeps it, and the sweeper
enforces it where no process holds the table. Clocks are shortened with ``clock_scale``
(``SCALE``: an hour in a second). Every test taking ``db_url`` runs on SQLite and PostgreSQL.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from starlette.testclient import TestClient

from gonuts.server.kernel.db import utcnow
from gonuts.server.notify.dispatch import Dispatcher
from gonuts.server.notify.protocol import Note
from gonuts.server.play.clock import STRIKES, TURN_BASED, deadlines_json
from gonuts.server.play.deadlines import iso, turn_based
from gonuts.server.play.live import LiveTable
from gonuts.server.play.messages import state_message, table_summary
from gonuts.server.play.sweeper import Sweeper
from gonuts.server.service import Service
from gonuts.server.settings import default_time_factor
from gonuts.server.store import TableStore
from web.helpers import AppFactory

SCALE = 1 / TURN_BASED
"""An hour's clock lasts a second."""
TWO_HUMANS: list[tuple[str, str | None]] = [("human", None), ("human", None)]
TOLERANCE = 1.5
"""Seconds after its deadline by which the sweeper (every 0.1 s here) has timed a decision out."""


async def eventually(check: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


def service(db_url: str, **kw: Any) -> Service:
    return Service(TableStore(db_url), bot_delay=0, **kw)


def account(svc: Service, name: str) -> int:
    made = svc.store.create_account(name, name.lower(), "-", 25.0, 25 / 3)
    assert made is not None
    return made


async def turn_table(
    svc: Service,
    ana: int | None = None,
    ben: int | None = None,
    clock: int = TURN_BASED,
    names: tuple[str, str] = ("Ana", "Ben"),
) -> LiveTable:
    table, _, _ = await svc.create_table(TWO_HUMANS, names[0], "en", clock=clock, account=ana)
    await svc.join(table.id, names[1], account=ben)
    assert table.status == "playing"
    return table


def rows(svc: Service, sql: str, **params: Any) -> list[Any]:
    with svc.store.engine.connect() as c:
        return list(c.execute(text(sql), params).all())


def deadlines(svc: Service, table_id: str) -> dict[int, tuple[int, datetime]]:
    found = rows(
        svc, "SELECT seat, decision, due_at FROM gn_deadlines WHERE table_id = :t", t=table_id
    )
    return {int(r[0]): (int(r[1]), as_datetime(r[2])) for r in found}


def as_datetime(value: Any) -> datetime:
    return value if isinstance(value, datetime) else datetime.fromisoformat(str(value))


def clock_actions(svc: Service, table_id: str) -> list[tuple[int, str, datetime]]:
    found = rows(
        svc,
        "SELECT seat, client_id, created_at FROM gn_actions "
        "WHERE table_id = :t AND client_id LIKE 'clock:%' ORDER BY seq",
        t=table_id,
    )
    return [(int(r[0]), str(r[1]), as_datetime(r[2])) for r in found]


def facts(svc: Service, kind: str = "turn") -> list[tuple[str, int, int, int]]:
    found = rows(
        svc,
        "SELECT table_id, seat, decision, account_id FROM gn_outbox WHERE kind = :k",
        k=kind,
    )
    return [(str(r[0]), int(r[1]), int(r[2]), int(r[3])) for r in found]


def run(body: Callable[[], Awaitable[None]], timeout: float = 90) -> None:
    asyncio.run(asyncio.wait_for(body(), timeout))


# -- the clock's range and what the clients see ----------------------------------------------------


def test_an_hour_or_more_is_turn_based() -> None:
    assert [turn_based(c) for c in (None, 10, 600, 3599, 3600, 604_800)] == [
        False,
        False,
        False,
        False,
        True,
        True,
    ]


def test_a_turn_based_deadline_is_stored_and_survives_a_restart(db_url: str) -> None:
    async def main() -> None:
        one = service(db_url)
        await one.start()
        before = utcnow()
        table = await turn_table(one)
        stored = deadlines(one, table.id)
        assert set(stored) == set(table.game.to_act) == {0, 1}  # type: ignore[union-attr]
        for decision, due in stored.values():
            assert decision == 0
            assert before + timedelta(hours=1) <= due <= utcnow() + timedelta(hours=1)
        # the clients get the absolute time as well as the seconds left
        msg, _ = state_message(table, 0, "en", 0)
        assert msg["deadlines_at"] == {str(s): iso(due) for s, (_, due) in stored.items()}
        assert 3590 < msg["deadlines"]["0"] <= 3600
        assert table_summary(table)["turn_based"] is True
        await one.close()
        # a restart (another process): the same absolute deadlines, not fresh ones
        await asyncio.sleep(0.3)
        two = service(db_url)
        await two.start()
        try:
            again = await two.get(table.id)
            assert again.deadlines_at == {s: due for s, (_, due) in stored.items()}
            assert deadlines(two, table.id) == stored
            left = deadlines_json(again)
            assert 3590 < left["0"] < 3600 - 0.25
            # a decision made: its row goes (the other seat's stays)
            game = again.game
            assert game is not None
            await two.act(again, 0, game.legal_actions(0)[0].notation)
            after = deadlines(two, table.id)
            assert 0 not in after or after[0][0] > 0
            assert after[1] == stored[1]
        finally:
            await two.close()

    run(main)


def test_a_real_time_table_keeps_its_deadlines_in_memory(db_url: str) -> None:
    async def main() -> None:
        svc = service(db_url)
        await svc.start()
        try:
            table = await turn_table(svc, clock=600)
            assert table.deadlines and deadlines(svc, table.id) == {}
            assert state_message(table, 0, "en", 0)[0]["deadlines_at"] == {}
            assert table_summary(table)["turn_based"] is False
        finally:
            await svc.close()

    run(main)


# -- the sweeper -----------------------------------------------------------------------------------


def test_the_sweeper_times_out_a_table_no_process_holds(db_url: str) -> None:
    """The process that made the table stops; another, which never loaded it, enforces its
    deadlines from the database within the tolerance."""

    async def main() -> None:
        one = service(db_url, clock_scale=SCALE)
        await one.start()
        table = await turn_table(one)
        due = {s: d for s, (_, d) in deadlines(one, table.id).items()}
        one.clock.close()
        await one.close()  # (before any deadline: nobody holds the table now)
        two = service(db_url, clock_scale=SCALE)
        await two.start()
        sweeper = Sweeper(two, every=0.1)
        sweeper.start()
        try:
            assert table.id not in two.tables
            await eventually(lambda: len(clock_actions(two, table.id)) >= 2, "two timeouts")
            assert sweeper.loaded >= 1 and table.id in two.tables
            first = clock_actions(two, table.id)[:2]
            assert sorted((s, c) for s, c, _ in first) == [(0, "clock:0"), (1, "clock:0")]
            for seat, _, at in first:
                late = (at - due[seat]).total_seconds()
                assert -0.05 <= late <= TOLERANCE, (seat, late)
        finally:
            await sweeper.close()
            await two.close()

    run(main)


def test_three_sweeps_in_a_row_bench_the_seat_and_the_game_ends(db_url: str) -> None:
    """Nobody ever acts and the table leaves memory between deadlines (``keep_finished=0``):
    every timeout is the sweeper's reload, the strikes are counted from the stored ids, the
    third benches each seat (stored), bots finish the game, and each account hears it ended."""

    async def main() -> None:
        svc = service(db_url, clock_scale=SCALE, keep_finished=0.0)
        await svc.start()
        sweeper = Sweeper(svc, every=0.1)
        sweeper.start()
        ana, ben = account(svc, "Ana"), account(svc, "Ben")
        try:
            table = await turn_table(svc, ana, ben)
            status = "SELECT status FROM gn_tables WHERE id = :t"
            await eventually(lambda: rows(svc, status, t=table.id)[0][0] == "finished", "end", 60)
            clocked = clock_actions(svc, table.id)
            assert sorted(s for s, _, _ in clocked) == [0] * STRIKES + [1] * STRIKES
            assert sweeper.loaded >= 2  # (evicted and loaded again between deadlines)
            replaced = rows(svc, "SELECT replaced FROM gn_seats WHERE table_id = :t", t=table.id)
            assert [bool(r[0]) for r in replaced] == [True, True]
            assert deadlines(svc, table.id) == {}
            turns = facts(svc)
            assert sorted((s, d) for t, s, d, _ in turns if t == table.id) == sorted(
                (s, int(c.removeprefix("clock:"))) for s, c, _ in clocked
            )
            assert sorted(a for _, _, _, a in facts(svc, "ended")) == [ana, ben]
        finally:
            await sweeper.close()
            await svc.close()

    run(main)


# -- the outbox and the dispatcher -----------------------------------------------------------------


def journal(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_two_processes_store_and_tell_each_decision_once(pg_url: str, tmp_path: Path) -> None:
    """Both processes hold the table and time it out; each dispatches with its own journal:
    each pending decision is one fact, told once in all."""

    async def main() -> None:
        one = service(pg_url, clock_scale=SCALE)
        two = service(pg_url, clock_scale=SCALE)
        await one.start()
        await two.start()
        logs = [tmp_path / "one.jsonl", tmp_path / "two.jsonl"]
        dispatchers = [
            Dispatcher(svc.store, [], every=0.05, grouping=0.0, quiet=0.0, journal=log)
            for svc, log in zip((one, two), logs, strict=True)
        ]
        for d in dispatchers:
            d.start()
        try:
            ana, ben = account(one, "Ana"), account(one, "Ben")
            table = await turn_table(one, ana, ben)
            t2 = await two.get(table.id)
            await eventually(lambda: t2.status == "finished", "the end", 60)
            await eventually(lambda: unsent(one) == 0, "every fact sent")
            turns = facts(one)
            assert len(turns) == 2 * STRIKES
            told = [tuple(f) for line in journal(logs[0]) + journal(logs[1]) for f in line["facts"]]
            skipped = [
                tuple(f) for line in journal(logs[0]) + journal(logs[1]) for f in line["skipped"]
            ]
            every = sorted(told + skipped)
            assert len(every) == len(set(every))  # nothing twice, across both processes
            expected = {(t, s, d, "turn") for t, s, d, _ in turns} | {
                (table.id, s, -1, "ended") for s in (0, 1)
            }
            assert set(every) == expected
            # each timed-out decision was waiting when told: none of them skipped
            assert {(t, s, d) for t, s, d, k in told if k == "turn"} == {
                (t, s, d) for t, s, d, _ in turns
            }
        finally:
            for d in dispatchers:
                await d.close()
            await one.close()
            await two.close()

    run(main)


def unsent(svc: Service) -> int:
    return int(rows(svc, "SELECT COUNT(*) FROM gn_outbox WHERE sent_at IS NULL")[0][0])


class Recorder:
    name = "recorder"

    def __init__(self) -> None:
        self.notes: list[Note] = []

    async def send(self, note: Note) -> bool:
        self.notes.append(note)
        return True


def test_a_burst_is_one_digest_and_stale_turns_are_not_told(db_url: str) -> None:
    """Ana sits at three turn-based games at once: one digest after the grouping delay, then
    nothing for her until the quiet time has passed; a decision made before the dispatch is
    not told; the channels get each note once; an ended game is an ``ended`` note."""

    async def main() -> None:
        svc = service(db_url)
        await svc.start()
        recorder = Recorder()
        dispatcher = Dispatcher(svc.store, [recorder, Recorder()], grouping=0.5, quiet=600)
        try:
            ana = account(svc, "Ana")
            names = ("Ben", "Cid", "Dee")
            others = [account(svc, n) for n in names]
            tables = [
                await turn_table(svc, ana, o, names=("Ana", n))
                for o, n in zip(others, names, strict=True)
            ]
            assert await dispatcher.dispatch() == []  # (not settled yet: a burst to come)
            # Dee decides before the dispatcher gets to it: no stale "your turn" for her
            last = tables[2]
            assert last.game is not None
            await svc.act(last, 1, last.game.legal_actions(1)[0].notation)
            await asyncio.sleep(0.6)
            notes = await dispatcher.dispatch()
            by_account = {n.account_id: n for n in notes}
            assert set(by_account) == {ana, *others[:2]}
            digest = by_account[ana]
            assert digest.kind == "digest"
            assert sorted(t.table_id for t in digest.tables) == sorted(t.id for t in tables)
            assert all(t.deadline and t.url == f"/t/{t.table_id}" for t in digest.tables)
            assert all(t.round == 1 for t in digest.tables)  # (the round when it was stored)
            assert [by_account[o].kind for o in others[:2]] == ["turn", "turn"]
            assert dispatcher.skipped == 1 and recorder.notes == notes
            assert unsent(svc) == 0
            # the next decisions at one game: told only once the quiet time has passed
            first = tables[0]
            assert first.game is not None
            await svc.act(first, 0, first.game.legal_actions(0)[0].notation)
            await svc.act(first, 1, first.game.legal_actions(1)[0].notation)
            query = "SELECT DISTINCT account_id FROM gn_outbox WHERE sent_at IS NULL"
            waiting = {int(r[0]) for r in rows(svc, query)}
            assert waiting and waiting <= {ana, others[0]}  # (both told a moment ago)
            later = utcnow() + timedelta(seconds=1)
            assert await dispatcher.dispatch(later) == []
            told = await dispatcher.dispatch(later + timedelta(seconds=601))
            assert {n.account_id for n in told} == waiting
            # a game that ends: one "ended" note per account seat
            svc.clock.book.ended(tables[1].id, 9)
            end = await dispatcher.dispatch(later + timedelta(seconds=1300))
            ended = {n.account_id: n for n in end}
            assert ended[others[1]].kind == "ended" and ended[others[1]].tables[0].deadline is None
            assert ended[others[1]].tables[0].round == 9
            assert len(recorder.notes) == dispatcher.sent
        finally:
            await svc.close()

    run(main)


# -- the test-only time factor and the app's wiring -----------------------------------------------


def test_the_time_factor_is_refused_outside_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GONUTS_TIME_FACTOR", "3600")
    monkeypatch.delenv("GONUTS_TEST", raising=False)
    with pytest.raises(SystemExit, match="tests only"):
        default_time_factor()
    monkeypatch.setenv("GONUTS_TEST", "1")
    assert default_time_factor() == 3600
    for wrong in ("0", "-2", "fast"):
        monkeypatch.setenv("GONUTS_TIME_FACTOR", wrong)
        with pytest.raises(SystemExit):
            default_time_factor()
    monkeypatch.delenv("GONUTS_TIME_FACTOR")
    assert default_time_factor() == 1.0


def test_the_app_runs_a_sweeper_and_a_dispatcher(make_app: AppFactory) -> None:
    app = make_app()
    with TestClient(app):
        sweeper, dispatcher = app.state.sweeper, app.state.dispatcher
        assert sweeper.every == 2.0
        assert [c.name for c in dispatcher.channels] == ["push"]  # (no GONUTS_SMTP_URL: no mail)
        end = time.monotonic() + 10
        while sweeper.passes == 0:
            assert time.monotonic() < end
            time.sleep(0.05)
