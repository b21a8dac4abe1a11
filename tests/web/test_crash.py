"""Crash safety: ``gonuts serve`` killed with SIGKILL in the middle of several games (humans
and bots), started again; the clients reconnect by themselves and every game finishes with
nothing lost or duplicated. Once on SQLite, once on PostgreSQL."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

from web.procs import (
    Player,
    Server,
    check_stored_games,
    create_table,
    free_port,
    join_table,
    query,
    stored_games,
)

TABLES = [
    [{"kind": "human"}, {"kind": "bot", "level": "easy"}, {"kind": "bot", "level": "easy"}],
    [{"kind": "human"}, {"kind": "human"}],
    [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "easy"}],
]
KILL_AT = 6
"""Accepted actions every table has when the server is killed."""


def versions(db_url: str) -> dict[str, int]:
    rows = query(db_url, "SELECT table_id, COUNT(*) FROM gn_actions GROUP BY table_id")
    return {str(t): int(n) for t, n in rows}


def test_sigkill_and_restart_lose_nothing(db_url: str, tmp_path: Path) -> None:
    server = Server(
        db_url, free_port(), tmp_path / "serve.log", "--bot-delay", "0.01", "--replace-after", "600"
    )
    server.start()
    try:
        asyncio.run(asyncio.wait_for(play_through_a_crash(server, db_url), 60))
    finally:
        server.stop()


async def play_through_a_crash(server: Server, db_url: str) -> None:
    rng = random.Random(5)
    players: list[Player] = []
    for n, seats in enumerate(TABLES):
        table_id, seat, token = create_table(server.http, seats, f"P{n}a")
        joined = [(seat, token)]
        for i in range(sum(s["kind"] == "human" for s in seats) - 1):
            joined.append(join_table(server.http, table_id, f"P{n}{i}"))
        players += [
            Player([server.ws], table_id, s, t, random.Random(rng.random()), think=0.02)
            for s, t in joined
        ]
    table_ids = {p.table_id for p in players}
    deadline = time.monotonic() + 50
    tasks = [asyncio.create_task(p.run(deadline)) for p in players]

    # let every table get going, then pull the plug
    while True:
        done = versions(db_url)
        if all(done.get(t, 0) >= KILL_AT for t in table_ids):
            break
        assert time.monotonic() < deadline and not any(t.done() for t in tasks)
        await asyncio.sleep(0.02)
    server.kill()
    at_kill = versions(db_url)
    acked_at_kill = sum(len(p.acked) for p in players)
    await asyncio.sleep(0.3)  # the clients find nobody there and back off
    await asyncio.to_thread(server.start)
    await asyncio.gather(*tasks)

    rows, records = stored_games(db_url)
    assert set(rows) == table_ids and set(records) == table_ids
    for t in table_ids:
        assert KILL_AT <= at_kill[t] < len(rows[t]), "each game was cut in the middle"
    assert all(p.connections >= 2 for p in players), "every client reconnected"
    assert sum(len(p.acked) for p in players) > acked_at_kill
    check_stored_games(rows, records, players)
