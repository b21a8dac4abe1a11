"""The turn-based soak (issue 27): many 4-player turn-based tables of humans with accounts who act
at random times (some never), real ``gonuts serve`` processes restarted twice, time sped up.

``GONUTS_TIME_FACTOR=3600`` (test only) makes each table's one-hour clock a second, and the
sweeper and the dispatcher as fast. The tables are made in the database (no process holds them:
the sweepers' look for turn-based games without deadlines loads them). On PostgreSQL two
processes share the database and are restarted one after the other; on SQLite one process is
restarted twice (deadlines passing while it is down are enforced when it is back). Checked:

* no table stuck: every game ends, and no deadline is left overdue;
* every timeout came within ``TOLERANCE`` of its deadline (a deadline that fell during the
  start or a restart: within ``LATE_OUTAGE`` of its end);
* every notification fact (``gn_outbox``) was sent once: it is in the processes' journals
  (``GONUTS_NOTIFY_LOG``) exactly once in all, told or skipped as already decided, and every
  fact the clock timed out (the player never decided) was told, not skipped.

``GONUTS_SOAK_TABLES`` sets the number of tables (default 30 in the suite, more than 21 so that
no account sits twice at one table; the issue's run is 200:
``GONUTS_SOAK_TABLES=200 pytest tests/web/test_turn_soak.py``). ``GONUTS_SOAK_FACTOR`` and
``GONUTS_SOAK_SECONDS`` set the time factor and the longest run. On the 2-core development
machine (shared with other work) 200 tables pass on SQLite in about 100 s; on PostgreSQL two
processes keep up with 30 tables, not with 200 at a factor of 3600 (loaded machine: after 170 s,
145 games were still being played). On the quiet machine (2026-12-04 20:50 UTC, load 1.6) the
200 tables on two processes all finished in 110 s and every fact was told once (6,092 told, 76
skipped as decided), but 544 of 2,969 timeouts came more than ``TOLERANCE`` late (median 1.6 s,
p99 14 s, max 16 s): the 800 first deadlines of tables made all at once fall together just after
the start. Each process holding a table times its decisions out and drives its bots too, and
one wins each race (to look into). Since then one process drives each table
(``play/drivers.py``), and a stopping process no longer claims its tables back on its way out
(which had made CI's 30-table runs fail after a restart, on every backend). The 200 tables on
two processes on 2026-12-07 (idle machine, 12:26 UTC): every game finished and every fact was
told once in that run (in one at 11:27, two tables were still playing after 170 s), but 941
of 2,807 timeouts came more than ``TOLERANCE`` late (median 1.6 s, p99 37 s), the first of them
the start's burst again (due 4.8 s after the start, timed out 12 s later); at
``GONUTS_SOAK_FACTOR=1200`` (an hour in 3 s) 792 of 2,768. A server process was busy about a
third of the time (py-spy), much of it waiting on PostgreSQL's commits in the event loop.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import secrets
import time
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from gonuts.server.kernel.db import hash_token, utcnow
from gonuts.server.lobby.rules import new_table
from gonuts.server.play.store import StoredSeat
from gonuts.server.store import TableStore
from web.procs import Server, free_port

TABLES = int(os.environ.get("GONUTS_SOAK_TABLES", "30"))
FACTOR = float(os.environ.get("GONUTS_SOAK_FACTOR", "3600"))
"""The time factor: 3600, an hour's clock lasts a second."""
SEATS = 4
NEVER = 0.2
"""The share of seats whose player never acts (benched after three timeouts)."""
TOLERANCE = float(os.environ.get("GONUTS_SOAK_TOLERANCE", "8"))
"""Seconds (real) after its deadline by which a decision is timed out: the sweeper's period
(0.25 s at this factor) and the bot's move, on a machine whose cores the test's own clients and
servers share (a load average many times the cores: most of it is waiting for a core)."""
LATE_OUTAGE = 10.0
"""Seconds after a restart is over by which a deadline that fell during it is enforced: on
SQLite nobody enforces it until the process is back (then its sweeper loads every due table, a
hundred a pass); on PostgreSQL the other process takes the restarting one's tables over."""
RUN_FOR = float(os.environ.get("GONUTS_SOAK_SECONDS", "170"))
OPTIONS = ("--bot-delay", "0", "--shutdown-grace", "2")
"""Bots move at once; a restart waits at most 2 s for the moves being stored."""


def as_dt(value: Any) -> datetime:
    return value if isinstance(value, datetime) else datetime.fromisoformat(str(value))


class Soak:
    def __init__(self, db_url: str, tmp: Path, processes: int) -> None:
        self.db_url = db_url
        self.tmp = tmp
        self.store = TableStore(db_url)
        self.rng = random.Random(27)
        self.tokens: dict[tuple[str, int], str] = {}
        self.never: set[tuple[str, int]] = set()
        self.due: dict[tuple[str, int, int], datetime] = {}
        """Every deadline seen: (table, seat, decision) -> due_at."""
        self.seen: set[tuple[str, int, int]] = set()
        self.servers = [
            Server(db_url, free_port(), tmp / f"server{i}.log", *OPTIONS) for i in range(processes)
        ]
        self.down: list[tuple[datetime, datetime]] = []
        """The start and the restarts: from the stop to the answer of the new process."""
        self.acted = 0
        self.refused = 0
        self.t0 = utcnow()

    def sql(self, query: str, **params: Any) -> list[Any]:
        with self.store.engine.connect() as c:
            return list(c.execute(text(query), params).all())

    def make_tables(self) -> list[str]:
        accounts = [
            self.store.create_account(f"Soak{i}", f"soak{i}", "-", 25.0, 25 / 3)
            for i in range(TABLES)
        ]
        ids = []
        for t in range(TABLES):
            stored, _, _ = new_table([("human", None)] * SEATS, None, "en")
            seats = []
            for s in range(SEATS):
                account = accounts[(t + s * 7) % TABLES]  # each account at several games
                token = secrets.token_urlsafe(16)
                self.tokens[(stored.id, s)] = token
                if self.rng.random() < NEVER:
                    self.never.add((stored.id, s))
                seats.append(
                    StoredSeat(
                        s,
                        "human",
                        None,
                        f"Soak{(t + s * 7) % TABLES}",
                        hash_token(token),
                        account_id=account,
                    )
                )
            self.store.create(replace(stored, status="playing", seats=tuple(seats), clock=3600))
            ids.append(stored.id)
        return ids

    def env(self, i: int) -> None:
        env = self.servers[i].env
        assert env is not None
        env.update(
            GONUTS_TEST="1",
            GONUTS_TIME_FACTOR=f"{FACTOR:g}",
            GONUTS_NOTIFY_LOG=str(self.tmp / f"notes{i}.jsonl"),
            GONUTS_THINK_WORKERS="0",
            GONUTS_FORWARDED_ALLOW_IPS="127.0.0.1",
        )

    def start(self, i: int) -> None:
        self.env(i)
        self.servers[i].start()

    async def watch(self, stop: asyncio.Event, http: httpx.AsyncClient) -> None:
        """Poll the deadlines; each new decision of an acting seat gets an actor."""
        tasks: set[asyncio.Task[None]] = set()
        while not stop.is_set():
            for t, s, d, due in self.sql(
                "SELECT table_id, seat, decision, due_at FROM gn_deadlines"
            ):
                key = (str(t), int(s), int(d))
                # (the earliest seen)
                self.due[key] = min(self.due.get(key, as_dt(due)), as_dt(due))
                if key in self.seen:
                    continue
                self.seen.add(key)
                if key[:2] not in self.never and self.rng.random() < 0.85:
                    # (some after the deadline: the clock lasts 3600 / FACTOR s)
                    delay = self.rng.uniform(0.0, 1.5 * 3600 / FACTOR)
                    task = asyncio.create_task(self.act(http, key, delay))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
            await asyncio.sleep(0.2)
        for task in list(tasks):
            task.cancel()

    async def act(self, http: httpx.AsyncClient, key: tuple[str, int, int], delay: float) -> None:
        await asyncio.sleep(delay)
        table_id, seat, decision = key
        up = [s for s in self.servers if s.proc is not None]
        if not up:
            return
        server = self.rng.choice(up)
        headers = {
            "Authorization": f"Bearer {self.tokens[(table_id, seat)]}",
            "X-Forwarded-For": f"10.{seat}.{hash(table_id) % 250}.{decision % 250}",
        }
        try:
            r = await http.get(f"{server.http}/api/tables/{table_id}/state", headers=headers)
            legal = r.json()["view"]["legal"] if r.status_code == 200 else []
            if not legal:
                return
            body = {"action": self.rng.choice(legal)["action"], "id": f"soak-{decision}"}
            r = await http.post(
                f"{server.http}/api/tables/{table_id}/actions", json=body, headers=headers
            )
            if r.status_code == 200:
                self.acted += 1
            else:
                self.refused += 1
        except (httpx.HTTPError, ValueError, KeyError):
            self.refused += 1

    async def restart(self, i: int, alone: bool) -> None:
        began = utcnow()
        await asyncio.to_thread(self.servers[i].stop)
        if alone:
            await asyncio.sleep(1.0)  # (deadlines pass meanwhile)
        await asyncio.to_thread(self.start, i)
        self.down.append((began, utcnow()))

    def journal(self) -> list[dict[str, Any]]:
        lines = []
        for path in sorted(self.tmp.glob("notes*.jsonl")):
            lines += [json.loads(x) for x in path.read_text().splitlines()]
        return lines


async def soak(run: Soak, ids: list[str]) -> None:
    processes = len(run.servers)
    for i in range(processes):
        run.start(i)
    run.down.append((run.t0, utcnow()))  # (the start: the first deadlines all fall at once)
    stop = asyncio.Event()
    began = time.monotonic()
    async with httpx.AsyncClient(timeout=10) as http:
        watcher = asyncio.create_task(run.watch(stop, http))
        try:
            restarts = (12.0, 26.0) if os.environ.get("GONUTS_SOAK_RESTARTS", "1") == "1" else ()
            for n, at in enumerate(restarts):  # two restarts
                await asyncio.sleep(at - (time.monotonic() - began))
                await run.restart(n % processes, alone=processes == 1)
            while time.monotonic() - began < RUN_FOR:
                playing = run.sql("SELECT COUNT(*) FROM gn_tables WHERE status = 'playing'")
                if playing[0][0] == 0:
                    break
                await asyncio.sleep(0.5)
            # the last facts settle and are dispatched
            end = time.monotonic() + 10
            while time.monotonic() < end:
                if not run.sql("SELECT COUNT(*) FROM gn_outbox WHERE sent_at IS NULL")[0][0]:
                    break
                await asyncio.sleep(0.2)
        finally:
            stop.set()
            await watcher
            for s in run.servers:
                s.stop()


def outage(run: Soak, at: datetime) -> datetime | None:
    """When the restart ``at`` fell in was over (None: it fell in none). A deadline whose
    tolerance had not run out when the stop began counts as falling in it."""
    for a, b in run.down:
        if a - timedelta(seconds=TOLERANCE) <= at <= b + timedelta(seconds=2):
            return b
    return None


def check(run: Soak, ids: list[str]) -> tuple[dict[str, Any], list[str]]:
    """The figures of the run, and what went wrong (nothing, to pass)."""
    problems = []
    # no stuck table: every game ended, nothing left due
    status = dict(run.sql("SELECT id, status FROM gn_tables"))
    stuck = [t for t in ids if status[t] != "finished"]
    left = run.sql("SELECT COUNT(*) FROM gn_deadlines")[0][0]
    if stuck or left:
        problems.append(f"{len(stuck)} tables not finished, {left} deadlines left")
    # every timeout within its tolerance of its deadline
    clocked = run.sql(
        "SELECT table_id, seat, client_id, created_at FROM gn_actions "
        "WHERE client_id LIKE 'clock:%'"
    )
    lateness = []
    after_restart: list[float] = []
    over = []
    for t, s, cid, at in clocked:
        key = (str(t), int(s), int(str(cid).removeprefix("clock:")))
        due = run.due.get(key)
        if due is None:
            continue  # (a deadline that came and went between two polls: none is over 1 s)
        late = (as_dt(at) - due).total_seconds()
        back = outage(run, due)
        if back is None:
            lateness.append(late)
            ok = -0.05 <= late <= TOLERANCE  # (never early)
        else:  # (due while a process restarted: measured from its return)
            after_restart.append((as_dt(at) - back).total_seconds())
            ok = late >= -0.05 and after_restart[-1] <= LATE_OUTAGE
        if not ok:
            over.append((key, round(late, 2), round((due - run.t0).total_seconds(), 1)))
    if over:
        down = [[round((x - run.t0).total_seconds(), 1) for x in w] for w in run.down]
        problems.append(f"{len(over)} timeouts late: {over[:5]} (down: {down})")
    if len(lateness) + len(after_restart) < 0.5 * len(clocked):
        problems.append(f"only {len(lateness)} of {len(clocked)} deadlines seen")
    # every fact told or skipped exactly once, across the processes
    facts = {
        (str(t), int(s), int(d), str(k))
        for t, s, d, k in run.sql("SELECT table_id, seat, decision, kind FROM gn_outbox")
    }
    unsent = run.sql("SELECT COUNT(*) FROM gn_outbox WHERE sent_at IS NULL")[0][0]
    if unsent:
        problems.append(f"{unsent} facts never sent")
    lines = run.journal()
    told = [tuple(f) for line in lines for f in line["facts"]]
    skipped = [tuple(f) for line in lines for f in line["skipped"]]
    every = told + skipped
    if len(every) != len(set(every)):
        problems.append(f"{len(every) - len(set(every))} facts told twice")
    if set(every) != facts:
        problems.append(f"{len(facts - set(every))} facts unaccounted for")
    timed_out = {
        (str(t), int(s), int(str(cid).removeprefix("clock:")), "turn") for t, s, cid, _ in clocked
    }
    not_told = [
        f for f in timed_out & set(skipped) if outage(run, run.due.get(f[:3], run.t0)) is None
    ]
    if not_told:
        problems.append(f"{len(not_told)} timed-out decisions never told: {not_told[:3]}")
    ended = {f for f in facts if f[3] == "ended"}
    if len(ended) != SEATS * len(ids):
        problems.append(f"{len(ended)} ended facts for {len(ids)} tables")
    notes = [line for line in lines if line["kind"] is not None]
    ordered = sorted(lateness)
    figures = {
        "tables": len(ids),
        "clock_timeouts": len(clocked),
        "late_s_median": round(ordered[len(ordered) // 2], 3) if ordered else None,
        "late_s_p99": round(ordered[int(len(ordered) * 0.99)], 3) if ordered else None,
        "late_s_max": round(ordered[-1], 3) if ordered else None,
        "after_restart_s_max": round(max(after_restart), 3) if after_restart else None,
        "deadlines_seen": len(lateness) + len(after_restart),
        "facts": len(facts),
        "told": len(told),
        "skipped_stale": len(skipped),
        "notes": len(notes),
        "digests": sum(line["kind"] == "digest" for line in notes),
        "start_and_restarts_s": [round((b - a).total_seconds(), 1) for a, b in run.down],
        "player_actions": run.acted,
        "refused_actions": run.refused,
    }
    return figures, problems


@pytest.mark.parametrize("processes", [1, 2], ids=["one-process", "two-processes"])
def test_turn_based_soak(db_url: str, backend: str, processes: int, tmp_path: Path) -> None:
    if processes == 2 and backend != "postgresql":
        pytest.skip("two processes share PostgreSQL only")
    run = Soak(db_url, tmp_path, processes)
    ids = run.make_tables()
    started = time.monotonic()
    asyncio.run(soak(run, ids))
    figures, problems = check(run, ids)
    figures["wall_s"] = round(time.monotonic() - started, 1)
    print(f"\nsoak[{backend}, {processes} process(es)]: {json.dumps(figures)}")
    assert not problems, problems
