"""Two ``gonuts serve`` processes on one PostgreSQL database: players of one table on different
processes see each other's moves live (LISTEN / NOTIFY) and finish the game together; a move
replayed to the other process is acknowledged, not applied; "play again" asked on both at once
makes one new table."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from web.procs import (
    Player,
    RoundRobinProxy,
    Server,
    check_stored_games,
    create_table,
    free_port,
    join_table,
    query,
    stored_games,
)

SEATS = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "easy"}]


@contextmanager
def two_servers(pg_url: str, tmp_path: Path) -> Iterator[tuple[Server, Server]]:
    """Two ``gonuts serve`` processes on one PostgreSQL schema (stopped afterwards)."""
    opts = ("--bot-delay", "0.01", "--replace-after", "600")
    one = Server(pg_url, free_port(), tmp_path / "one.log", *opts)
    two = Server(pg_url, free_port(), tmp_path / "two.log", *opts)
    one.start()
    try:
        two.start()
        yield one, two
    finally:
        one.stop()
        two.stop()


def test_two_processes_one_table(pg_url: str, tmp_path: Path) -> None:
    with two_servers(pg_url, tmp_path) as (one, two):
        asyncio.run(asyncio.wait_for(play(one, two, pg_url), 60))


async def play(one: Server, two: Server, db_url: str) -> None:
    table_id, seat_a, token_a = create_table(one.http, SEATS, "Ana")
    seat_b, token_b = join_table(two.http, table_id, "Ben")  # the game starts on process two
    ana = Player([one.ws], table_id, seat_a, token_a, random.Random(1), think=0.01)
    ben = Player([two.ws], table_id, seat_b, token_b, random.Random(2), think=0.01)
    deadline = time.monotonic() + 50
    tasks = [asyncio.create_task(p.run(deadline)) for p in (ana, ben)]

    # each process knows the other's player is connected (so no bot replaces them)
    async with httpx.AsyncClient() as http:
        while True:
            seen = [
                (await http.get(f"{s.http}/api/tables/{table_id}")).json()["seats"]
                for s in (one, two)
            ]
            if all(all(x["connected"] for x in seats) for seats in seen) or all(
                t.done() for t in tasks
            ):
                break
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
    await asyncio.gather(*tasks)

    assert ana.final is not None and ben.final is not None
    assert ana.final["version"] == ben.final["version"]
    assert ana.final["view"]["scores"] == ben.final["view"]["scores"]
    assert ana.acked and ben.acked
    rows, records = stored_games(db_url)
    actions = rows[table_id]
    assert {s for _, s, _ in actions} == {0, 1, 2}
    check_stored_games(rows, records, [ana, ben])
    # both processes agree on the finished table
    async with httpx.AsyncClient() as http:
        for s in (one, two):
            summary = (await http.get(f"{s.http}/api/tables/{table_id}")).json()
            assert summary["status"] == "finished" and summary["version"] == len(actions)

        # Ana's moves (sent to process one) replayed to process two: acknowledged, not applied
        ana_ids = query(
            db_url,
            "SELECT seq, notation, client_id FROM gn_actions "
            "WHERE table_id = :t AND seat = :s AND client_id IS NOT NULL ORDER BY seq",
            t=table_id,
            s=seat_a,
        )
        assert len(ana_ids) == len(ana.acked)
        headers = {"Authorization": f"Bearer {token_a}"}
        for seq, notation, client_id in ana_ids[:5]:
            r = await http.post(
                f"{two.http}/api/tables/{table_id}/actions",
                json={"action": notation, "id": client_id},
                headers=headers,
            )
            assert r.json() == {"ok": True, "version": seq + 1}, r.text
        summary = (await http.get(f"{two.http}/api/tables/{table_id}")).json()
        assert summary["version"] == len(actions)

        # both players ask to play again at once, each on their own process: one new table
        answers = await asyncio.gather(
            http.post(f"{one.http}/api/tables/{table_id}/again", headers=headers),
            http.post(
                f"{two.http}/api/tables/{table_id}/again",
                headers={"Authorization": f"Bearer {token_b}"},
            ),
        )
        new = [r.json() for r in answers]
        assert all(r.status_code == 200 for r in answers), [r.text for r in answers]
        assert new[0]["table"]["id"] == new[1]["table"]["id"]
        assert {new[0]["seat"], new[1]["seat"]} == {seat_a, seat_b}
        new_id = new[0]["table"]["id"]
        tables = query(db_url, "SELECT id, next_table FROM gn_tables")
        assert sorted(tables) == sorted([(table_id, new_id), (new_id, None)])
        for s in (one, two):
            deadline = time.monotonic() + 10
            while (await http.get(f"{s.http}/api/tables/{new_id}")).json()["status"] != "playing":
                assert time.monotonic() < deadline, "the new table did not start"
                await asyncio.sleep(0.05)


def test_two_processes_behind_one_address(pg_url: str, tmp_path: Path) -> None:
    """Players know one address only; a round-robin balancer spreads their connections over
    two processes, and cuts them all twice mid-game: they reconnect, land where they land,
    and finish the game together."""
    with two_servers(pg_url, tmp_path) as (one, two):
        asyncio.run(asyncio.wait_for(behind_one_address(one, two, pg_url), 90))


async def behind_one_address(one: Server, two: Server, db_url: str) -> None:
    proxy = RoundRobinProxy([one.port, two.port])
    await proxy.start()
    try:
        async with httpx.AsyncClient(base_url=proxy.http, timeout=10) as http:
            r = await http.post("/api/tables", json={"seats": SEATS, "name": "Ana"})
            assert r.status_code == 201, r.text
            made = r.json()
            table_id, seat_a, token_a = made["table"]["id"], made["seat"], made["token"]
        async with httpx.AsyncClient(base_url=proxy.http, timeout=10) as http:
            r = await http.post(f"/api/tables/{table_id}/join", json={"name": "Ben"})
            assert r.status_code == 200, r.text
            seat_b, token_b = r.json()["seat"], r.json()["token"]
        ana = Player([proxy.ws], table_id, seat_a, token_a, random.Random(3), think=0.01)
        ben = Player([proxy.ws], table_id, seat_b, token_b, random.Random(4), think=0.01)
        deadline = time.monotonic() + 80
        tasks = [asyncio.create_task(p.run(deadline)) for p in (ana, ben)]
        for _ in range(2):  # the balancer restarts twice while they play
            target = len(ana.acked) + 6
            while len(ana.acked) < target and not all(t.done() for t in tasks):
                await asyncio.sleep(0.02)
            proxy.drop_all()
        await asyncio.gather(*tasks)
    finally:
        await proxy.close()

    assert ana.final is not None and ben.final is not None
    assert ana.final["version"] == ben.final["version"]
    assert ana.connections >= 2 and ben.connections >= 2, (ana.connections, ben.connections)
    sockets = [port for port, is_ws in proxy.served if is_ws]
    assert {one.port, two.port} <= set(sockets), proxy.served  # both processes had players
    rows, records = stored_games(db_url)
    check_stored_games(rows, records, [ana, ben])
