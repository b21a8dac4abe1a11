"""Play now (issue 26, item 2): queued clients are seated exactly once, at new tables of a
count each accepted, with bots in the empty seats after the wait; one request per client; a
client that goes away leaves the queue; ratings keep accounts apart until the window widens."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import httpx
import pytest
from anyio.from_thread import BlockingPortal
from starlette.testclient import TestClient

from gonuts.server.accounts.service import COOKIE
from gonuts.server.kernel.db import utcnow
from gonuts.server.kernel.errors import ServiceError
from gonuts.server.matching.service import plan
from gonuts.server.matching.store import Queued
from gonuts.server.service import Service
from gonuts.server.store import TableStore
from web.helpers import AppFactory, error_code

# 20 clients at mixed counts: some tables fill with people, the rest after the wait with bots
COUNTS: list[list[int]] = [
    [2], [2], [3], [3], [3], [4], [4], [2, 3], [3, 4], [4, 5],
    [5], [5], [6], [2, 6], [3], [2], [4], [5, 6], [6], [2, 3, 4],
]  # fmt: skip


def portal(client: TestClient) -> BlockingPortal:
    """The app's own event loop (a ``with TestClient(...)`` block is running it)."""
    assert client.portal is not None
    return client.portal


def check_seated(results: list[tuple[str, int, list[dict[str, Any]]]], names: list[str]) -> None:
    """Every client once, at a table of a count it accepted, under its name; no seat twice."""
    assert len(results) == len(COUNTS)
    places = [(table, seat) for table, seat, _ in results]
    assert len(set(places)) == len(places), "a seat given twice"
    humans: dict[str, set[int]] = {}
    for i, (table, seat, seats) in enumerate(results):
        assert len(seats) in COUNTS[i], (i, len(seats), COUNTS[i])
        assert seats[seat]["name"] == names[i] and seats[seat]["kind"] == "human"
        humans.setdefault(table, set()).add(seat)
    for table, taken in humans.items():  # every other seat of those tables is a bot
        row = next(r for t, _, r in results if t == table)
        assert {s["seat"] for s in row if s["kind"] == "human"} == taken


async def queue_all(svc: Service, wait: float) -> list[tuple[str, int, list[dict[str, Any]]]]:
    names = [f"P{i}" for i in range(len(COUNTS))]

    async def one(i: int) -> tuple[str, int, list[dict[str, Any]]]:
        await asyncio.sleep(0.02 * i)  # they arrive one after another
        table, seat, token = await svc.matcher.play_now(f"client-{i}", names[i], "en", COUNTS[i])
        assert svc.held_seat(table, token) == seat
        seats = [{"seat": s.seat, "kind": s.kind, "name": s.name} for s in table.seats]
        return table.id, seat, seats

    svc.matcher.wait = wait
    return await asyncio.wait_for(asyncio.gather(*(one(i) for i in range(len(COUNTS)))), 60)


def test_twenty_clients_are_seated_once(db_url: str) -> None:
    async def main() -> None:
        svc = Service(TableStore(db_url), bot_delay=3600, replace_after=3600)
        await svc.start()
        try:
            results = await queue_all(svc, wait=1.5)
            check_seated(results, [f"P{i}" for i in range(len(COUNTS))])
            assert svc.store.waiting(100) == []  # the queue is empty again
            statuses = {(await svc.get(t)).status for t, _, _ in results}
            assert statuses == {"playing"}
        finally:
            await svc.close()

    asyncio.run(main())


def q(id_: int, counts: tuple[int, ...], rating: float | None, waited: float) -> Queued:
    return Queued(id_, f"P{id_}", "en", counts, None, rating, utcnow() - timedelta(seconds=waited))


def test_plan_ratings_and_the_wait() -> None:
    now = utcnow()
    # two accounts 300 points apart do not meet at first; after 20 s both windows reach 300
    apart = [q(1, (2,), 1000.0, 1), q(2, (2,), 1300.0, 1)]
    assert plan(apart, now, wait=60) == []
    later = [q(1, (2,), 1000.0, 21), q(2, (2,), 1300.0, 21)]
    assert [g.members for g in plan(later, now, wait=60)] == [(1, 2)]
    # a guest sits with anyone; two accounts 1000 apart never sit together (before the wait)
    mixed = [q(1, (2, 3), 1000.0, 1), q(2, (3,), None, 1), q(3, (2, 3), 2000.0, 1)]
    assert plan(mixed, now, wait=60) == []
    mixed.append(q(4, (2, 3), None, 1))  # the largest full count is taken
    assert [(g.members, g.players) for g in plan(mixed, now, wait=60)] == [((1, 2, 4), 3)]
    # alone after the wait: the count that seats the most people, then the smallest
    alone = [q(1, (4, 6), None, 31)]
    assert [(g.members, g.players) for g in plan(alone, now, wait=30)] == [((1,), 4)]
    assert plan([q(1, (4, 6), None, 29)], now, wait=30) == []


def test_http_play_now_seats_two_addresses(make_app: AppFactory) -> None:
    app = make_app(play_now_wait=30)

    async def ask(who: str, address: str) -> httpx.Response:
        transport = httpx.ASGITransport(app=app, client=(address, 50000))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            return await c.post("/api/play-now", json={"players": [2, 3], "name": who})

    async def both() -> tuple[httpx.Response, httpx.Response]:
        a, b = await asyncio.gather(ask("Ana", "10.0.0.1"), ask("Ben", "10.0.0.2"))
        return a, b

    with TestClient(app) as first:
        answer_a, answer_b = portal(first).call(both)  # (on the app's own event loop)
        assert answer_a.status_code == 200, answer_a.text
        ana, ben = answer_a.json(), answer_b.json()
        assert set(ana) == {"table", "seat", "token"}
        assert ana["table"]["id"] == ben["table"]["id"] and {ana["seat"], ben["seat"]} == {0, 1}
        assert ana["table"]["players"] == 2  # two people, both accept 2: no bot needed
        table = first.get(f"/api/tables/{ana['table']['id']}").json()
        assert table["status"] == "playing"
        r = first.get(
            f"/api/tables/{table['id']}/state", headers={"Authorization": f"Bearer {ana['token']}"}
        )
        assert r.status_code == 200 and r.json()["view"]["seat"] == ana["seat"]
        # malformed bodies are refused as such
        for body in ({"players": 7, "name": "X"}, {"players": [], "name": "X"}, {"players": 2}):
            r = first.post("/api/play-now", json=body)
            assert r.status_code == 422 and error_code(r) == "malformed", body


def test_bots_fill_after_the_wait_over_http(make_app: AppFactory) -> None:
    with TestClient(make_app(play_now_wait=0.5)) as client:
        r = client.post("/api/play-now", json={"players": 4, "name": "Solo"})
        assert r.status_code == 200, r.text
        seats = r.json()["table"]["seats"]
        assert [s["kind"] for s in seats] == ["human", "bot", "bot", "bot"]
        assert r.json()["table"]["status"] == "playing"


def test_one_request_per_client_and_a_bounded_queue(db_url: str) -> None:
    async def main() -> None:
        svc = Service(TableStore(db_url), bot_delay=3600)
        svc.matcher.wait = 3600
        await svc.start()
        try:
            first = asyncio.ensure_future(svc.matcher.play_now("same", "Ana", "en", 6))
            await asyncio.sleep(0.3)
            with pytest.raises(ServiceError) as again:
                await svc.matcher.play_now("same", "Ana", "en", 6)
            assert again.value.code == "already_queued"
            svc.matcher.max_queue = 1
            with pytest.raises(ServiceError) as full:
                await svc.matcher.play_now("other", "Ben", "en", 5)
            assert full.value.code == "queue_full"
            # the client goes away: its row leaves the queue
            gone = asyncio.Event()

            async def is_gone() -> bool:
                return gone.is_set()

            svc.matcher.max_queue = 10
            leaving = asyncio.ensure_future(
                svc.matcher.play_now("leaver", "Cy", "en", 3, gone=is_gone)
            )
            await asyncio.sleep(0.3)
            assert len(svc.store.waiting(10)) == 2
            gone.set()
            with pytest.raises(ServiceError):
                await leaving
            assert [w.name for w in svc.store.waiting(10)] == ["Ana"]
            first.cancel()
            await asyncio.gather(first, return_exceptions=True)
            assert svc.store.waiting(10) == []
        finally:
            await svc.close()

    asyncio.run(main())


def test_an_address_has_three_requests_at_most(make_app: AppFactory) -> None:
    app = make_app(play_now_wait=3600)

    async def ask(name: str) -> httpx.Response:
        transport = httpx.ASGITransport(app=app, client=("10.0.0.7", 50000))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            return await c.post("/api/play-now", json={"players": 6, "name": name})

    async def scenario() -> tuple[int, str, int]:
        svc = app.state.service
        waiting = [asyncio.ensure_future(ask(f"P{i}")) for i in range(3)]
        while len(svc.store.waiting(10)) < 3:
            await asyncio.sleep(0.05)
        fourth = await ask("P3")
        for task in waiting:  # they give up: out of the queue
            task.cancel()
        await asyncio.gather(*waiting, return_exceptions=True)
        return fourth.status_code, fourth.json()["error"]["code"], len(svc.store.waiting(10))

    with TestClient(app) as client:
        status, code, left = portal(client).call(scenario)
    assert (status, code, left) == (409, "already_queued", 0)


def test_signed_in_players_sit_under_their_accounts(make_app: AppFactory) -> None:
    app = make_app(play_now_wait=30)

    async def scenario(cookies: list[str]) -> list[httpx.Response]:
        async def ask(cookie: str, address: str) -> httpx.Response:
            transport = httpx.ASGITransport(app=app, client=(address, 50000))
            async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
                return await c.post(
                    "/api/play-now",
                    json={"players": 2, "name": "Impostor"},
                    headers={"Cookie": f"{COOKIE}={cookie}", "Origin": "http://testserver"},
                )

        return list(await asyncio.gather(ask(cookies[0], "10.0.1.1"), ask(cookies[1], "10.0.1.2")))

    with TestClient(app) as client:
        cookies = []
        for name in ("Ana Account", "Ben Account"):
            r = client.post(
                "/api/account/signup", json={"name": name, "password": "a long password"}
            )
            assert r.status_code == 201, r.text
            cookies.append(str(r.cookies[COOKIE]))
            client.cookies.clear()
        answers = portal(client).call(scenario, cookies)
    seated = {a.json()["table"]["seats"][a.json()["seat"]]["name"] for a in answers}
    assert seated == {"Ana Account", "Ben Account"}  # the accounts' names, not the body's
    assert answers[0].json()["table"]["id"] == answers[1].json()["table"]["id"]
