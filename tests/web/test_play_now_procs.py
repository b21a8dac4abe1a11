"""Play now on two ``gonuts serve`` processes and one PostgreSQL database (issue 26, item 2):
20 clients, half on each process, each from an address of its own, are all seated exactly
once at tables of the counts they accepted; a client that goes away first leaves the queue."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import httpx

from web.procs import Server, free_port, query
from web.test_play_now import COUNTS

WAIT = "2"


async def ask(base: str, address: str, body: dict[str, Any], timeout: float) -> httpx.Response:
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(transport=transport, timeout=timeout) as c:
        return await c.post(f"{base}/api/play-now", json=body)


async def scenario(one: Server, two: Server, db_url: str) -> None:
    # a client that gives up before anyone could seat it leaves the queue
    try:
        await ask(one.http, "127.0.0.9", {"players": 6, "name": "Leaver"}, timeout=0.5)
        raise AssertionError("answered too soon")
    except httpx.TimeoutException:
        pass
    end = time.monotonic() + 5
    while query(db_url, "SELECT name FROM gn_play_now"):
        assert time.monotonic() < end, "the client that went away is still queued"
        await asyncio.sleep(0.1)

    servers = (one, two)
    answers = await asyncio.gather(
        *(
            ask(
                servers[i % 2].http,
                f"127.0.0.{10 + i}",
                {"players": counts if len(counts) > 1 else counts[0], "name": f"P{i}"},
                timeout=30,
            )
            for i, counts in enumerate(COUNTS)
        )
    )
    for r in answers:
        assert r.status_code == 200, r.text
    seen: set[tuple[str, int]] = set()
    for i, r in enumerate(answers):
        body = r.json()
        table, seat = body["table"], body["seat"]
        assert (table["id"], seat) not in seen
        seen.add((table["id"], seat))
        assert table["players"] in COUNTS[i]
        assert table["seats"][seat]["name"] == f"P{i}"
    # the database agrees: every client sits at exactly one seat, never "Leaver"
    rows = query(db_url, "SELECT name FROM gn_seats WHERE kind = 'human' AND name IS NOT NULL")
    names = sorted(str(n) for (n,) in rows)
    assert names == sorted(f"P{i}" for i in range(len(COUNTS)))
    assert query(db_url, "SELECT id FROM gn_play_now") == []
    # both processes matched clients of the other (one queue): some table mixes them
    tables: dict[str, set[int]] = {}
    for i, r in enumerate(answers):
        tables.setdefault(r.json()["table"]["id"], set()).add(i % 2)
    assert any(len(s) == 2 for s in tables.values()), tables


def test_play_now_on_two_processes(pg_url: str, tmp_path: Path) -> None:
    opts = ("--bot-delay", "3600", "--replace-after", "600")
    one = Server(pg_url, free_port(), tmp_path / "one.log", *opts)
    two = Server(pg_url, free_port(), tmp_path / "two.log", *opts)
    for s in (one, two):
        assert s.env is not None
        s.env["GONUTS_PLAY_NOW_WAIT"] = WAIT
    one.start()
    try:
        two.start()
        asyncio.run(asyncio.wait_for(scenario(one, two, pg_url), 90))
    finally:
        one.stop()
        two.stop()
