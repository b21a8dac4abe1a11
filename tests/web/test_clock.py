"""The turn clock (issue 11): deadlines, the bot at the deadline, three strikes, coming back.

Clocks are shortened with ``clock_scale`` (the API still refuses clocks under 10 s). Every test
that takes ``db_url`` runs on SQLite and on PostgreSQL; the last one puts two server processes
(two services) on one PostgreSQL database.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from sqlalchemy import text
from starlette.testclient import TestClient

from gonuts.server.kernel.errors import ServiceError
from gonuts.server.play.clock import CLOCK_ID, DEFAULT_CLOCK, STRIKES, benches, default_clock
from gonuts.server.play.live import LiveTable
from gonuts.server.play.messages import SERVER_MESSAGE, table_summary
from gonuts.server.service import Service
from gonuts.server.store import TableStore
from gonuts.server.transport.conn import Conn
from web.helpers import Inbox, error_code

TWO_HUMANS: list[tuple[str, str | None]] = [("human", None), ("human", None)]
HUMAN_AND_BOT: list[tuple[str, str | None]] = [("human", None), ("bot", "easy")]


async def eventually(check: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


def run(db_url: str, body: Callable[[Service], Awaitable[None]], **kw: Any) -> None:
    async def main() -> None:
        svc = Service(TableStore(db_url), bot_delay=0, **kw)
        await svc.start()
        try:
            await asyncio.wait_for(body(svc), 60)
        finally:
            await svc.close()

    asyncio.run(main())


async def drained(table: LiveTable) -> None:
    """Wait until every socket of ``table`` has been sent what was queued for it."""
    await asyncio.sleep(0)
    for conn in list(table.conns):
        assert await conn.flush(5)


def of_type(inbox: Inbox, kind: str) -> list[dict[str, Any]]:
    return [m for m in inbox.messages if m["type"] == kind]


def stored_ids(svc: Service, table_id: str) -> list[tuple[int, int, str | None]]:
    with svc.store.engine.begin() as c:
        rows = c.execute(
            text("SELECT seq, seat, client_id FROM gn_actions WHERE table_id = :t ORDER BY seq"),
            {"t": table_id},
        ).all()
    return [(int(r[0]), int(r[1]), r[2]) for r in rows]


async def two_humans(svc: Service, clock: int | None) -> tuple[LiveTable, str, str]:
    table, _, ana = await svc.create_table(TWO_HUMANS, "Ana", "en", clock=clock)
    _, ben = await svc.join(table.id, "Ben")
    assert ana is not None and table.status == "playing"
    return table, ana, ben


# -- the API --------------------------------------------------------------------------------------


def test_the_clock_of_a_new_table(client: TestClient) -> None:
    def made(seats: list[str], **extra: Any) -> Any:
        body = {
            "seats": [{"kind": k, "level": "easy"} if k == "bot" else {"kind": k} for k in seats]
        }
        return client.post("/api/tables", json={**body, "name": "Ana", **extra})

    for refused in (9, 604_801, 0, -5, 30.0, "60", True):
        r = made(["human", "human"], clock=refused)
        assert r.status_code == 422 and error_code(r) == "malformed", refused
    assert made(["human", "human"], clock=10).json()["table"]["clock"] == 10
    assert made(["human", "human"], clock=600).json()["table"]["clock"] == 600
    # turn-based from an hour on, up to seven days (issue 27)
    for clock, turn_based in ((3599, False), (3600, True), (604_800, True)):
        made_table = made(["human", "human"], clock=clock).json()["table"]
        assert (made_table["clock"], made_table["turn_based"]) == (clock, turn_based)
    assert made(["human", "human"], clock=None).json()["table"]["clock"] is None
    # the default: a clock only when two or more seats are human (documented in protocol.md)
    assert made(["human", "human"]).json()["table"]["clock"] == DEFAULT_CLOCK == 60
    assert made(["human", "bot", "bot"]).json()["table"]["clock"] is None
    assert made(["human", "bot"], clock=45).json()["table"]["clock"] == 45
    table = made(["human", "human", "bot"], clock=30).json()["table"]
    assert client.get(f"/api/tables/{table['id']}").json()["clock"] == 30
    listed = client.get("/api/tables").json()["tables"]
    assert {t["id"]: t["clock"] for t in listed}[table["id"]] == 30
    assert default_clock(["bot", "human"]) is None
    assert default_clock(["human", "bot", "human"]) == DEFAULT_CLOCK


def test_deadlines_are_per_seat_and_survive_the_others_moves(db_url: str) -> None:
    async def body(svc: Service) -> None:
        table, _, _ = await two_humans(svc, 60)
        watcher = Inbox()
        conn = Conn(watcher, None, "en")
        await svc.connect(table, conn)
        await svc.send_state(table, conn, full=True)
        await drained(table)
        first = of_type(watcher, "state")[-1]
        assert set(first["deadlines"]) == {"0", "1"}
        assert all(58 <= s <= 60 for s in first["deadlines"].values())
        await asyncio.sleep(0.3)
        await svc.act(table, 0, "pick 1")
        await drained(table)
        after = of_type(watcher, "state")[-1]
        # Ana has chosen: no deadline; Ben's kept running (not restarted by Ana's pick)
        assert set(after["deadlines"]) == {"1"}
        assert after["deadlines"]["1"] <= first["deadlines"]["1"] - 0.2
        # a table without a clock has no deadlines
        free, _, _ = await two_humans(svc, None)
        assert table_summary(free)["clock"] is None
        svc.clock.arm(free)
        assert free.deadlines == {}
        assert svc.clock.seconds(free) == 0

    run(db_url, body)


def test_a_table_of_two_idle_humans_still_ends(db_url: str) -> None:
    """Nobody acts: the clock decides (three times each), then bots play both seats."""

    async def body(svc: Service) -> None:
        table, _, _ = await two_humans(svc, 10)  # 10 s, scaled to 0.05 s
        ana = Inbox()
        await svc.connect(table, Conn(ana, 0, "en"))
        await eventually(lambda: table.status == "finished", "the end of the game", 50)
        ids = stored_ids(svc, table.id)
        assert [seq for seq, _, _ in ids] == list(range(len(ids)))
        for seat in (0, 1):
            mine = [cid for _, s, cid in ids if s == seat]
            # the first decisions were the clock's, then the bot replacing the player
            assert mine[:STRIKES] == [f"{CLOCK_ID}{k}" for k in range(STRIKES)]
            assert all(cid is None for cid in mine[STRIKES:])
        assert all(s.replaced for s in table.seats)
        timeouts = of_type(ana, "timeout")
        assert len(timeouts) == 2 * STRIKES
        for m in ana.messages:
            SERVER_MESSAGE.validate_python(m)

    run(db_url, body, clock_scale=0.005)


@pytest.mark.parametrize("lang", ["en", "es", "it"])
def test_the_timeout_is_told_to_everyone_in_their_language(db_url: str, lang: str) -> None:
    words = {
        "en": (
            "Time ran out: Ana's choice was made by a bot.",
            "Time ran out: a bot chose for you",
        ),
        "es": ("Se acabó el tiempo: un bot eligió por Ana.", "Se acabó tu tiempo: un bot eligió"),
        "it": ("Tempo scaduto: un bot ha scelto per Ana.", "Il tuo tempo è scaduto: un bot ha"),
    }[lang]

    async def body(svc: Service) -> None:
        table, _, _ = await two_humans(svc, 10)  # 10 s, scaled to 0.5 s
        ana, ben, spectator = Inbox(), Inbox(), Inbox()
        await svc.connect(table, Conn(ana, 0, lang))
        await svc.connect(table, Conn(ben, 1, lang))
        await svc.connect(table, Conn(spectator, None, lang))
        await svc.act(table, 1, "pick 2")  # Ben decides; Ana does not
        await eventually(lambda: bool(of_type(ben, "timeout")), "the timeout")
        told = of_type(ben, "timeout")[0]
        assert told["seat"] == 0 and told["text"] == words[0]
        assert told["action"] is None and told["label"] is None  # Ana's pick stays secret
        assert of_type(spectator, "timeout")[0]["text"] == words[0]
        own = of_type(ana, "timeout")[0]
        assert own["text"].startswith(words[1]) and own["action"].startswith("pick ")
        assert own["label"] and own["label"] in own["text"]
        assert not own["bot_playing"]
        for inbox in (ana, ben, spectator):
            for m in inbox.messages:
                SERVER_MESSAGE.validate_python(m)
        # the clock's pick was stored as Ana's decision, under the clock's id
        assert [cid for _, s, cid in stored_ids(svc, table.id) if s == 0] == [f"{CLOCK_ID}0"]

    run(db_url, body, clock_scale=0.05)


def test_three_timeouts_bench_a_player_until_they_act_again(db_url: str) -> None:
    async def body(svc: Service) -> None:
        svc.bot_delay = 0.3  # the replacing bot takes its time: Ana can catch a decision
        table, _, _ = await svc.create_table(HUMAN_AND_BOT, "Ana", "en", clock=10)
        inbox = Inbox()
        ana = Conn(inbox, 0, "en")
        await svc.connect(table, ana)
        await eventually(lambda: table.seats[0].replaced, "the third timeout")
        assert [cid for _, s, cid in stored_ids(svc, table.id) if s == 0] == [
            f"{CLOCK_ID}{k}" for k in range(STRIKES)
        ]
        told = of_type(inbox, "timeout")
        assert len(told) == STRIKES and told[-1]["bot_playing"]
        assert "three times in a row" in told[-1]["text"]
        assert table_summary(table)["seats"][0]["bot_playing"]
        assert 0 not in table.deadlines  # no clock on a seat the bot plays
        # Ana acts again (any legal action, once it is hers): the seat is hers once more
        for _ in range(200):
            game = table.game
            assert game is not None and table.status == "playing"
            legal = game.legal_actions(0)
            if legal:
                try:
                    await svc.act(table, 0, legal[0].notation)
                    break
                except ServiceError:  # the bot moved first: look again
                    pass
            await asyncio.sleep(0.01)
        assert not table.seats[0].replaced
        assert not table_summary(table)["seats"][0]["bot_playing"]
        await drained(table)
        away = of_type(inbox, "away")
        assert len(away) == 1
        assert len(away[0]["decisions"]) >= STRIKES
        assert [d["by"] for d in away[0]["decisions"][:STRIKES]] == ["clock"] * STRIKES
        assert away[0]["text"].startswith("While you were away, a bot made")
        SERVER_MESSAGE.validate_python(away[0])
        # the clock runs for her again, from a fresh streak
        await eventually(lambda: 0 in table.deadlines or table.status != "playing", "a deadline")
        assert svc.clock.streak(table, 0) == 0

    run(db_url, body, clock_scale=0.02)


def test_i_am_back_takes_the_seat_back(db_url: str) -> None:
    async def body(svc: Service) -> None:
        svc.bot_delay = 0.2
        table, _, _ = await svc.create_table(HUMAN_AND_BOT, "Ana", "it", clock=10)
        inbox = Inbox()
        ana = Conn(inbox, 0, "it")
        await svc.connect(table, ana)
        await eventually(lambda: table.seats[0].replaced, "the third timeout")
        await svc.clock.back(table, ana)
        await drained(table)
        assert not table.seats[0].replaced
        summaries = of_type(inbox, "table")
        assert summaries and not summaries[-1]["table"]["seats"][0]["bot_playing"]
        away = of_type(inbox, "away")[-1]
        assert away["text"].startswith("Mentre eri via, un bot ha preso")
        assert all(d["label"] for d in away["decisions"])
        # the state that follows carries her fresh deadline
        await eventually(
            lambda: "0" in of_type(inbox, "state")[-1]["deadlines"] or table.status != "playing",
            "her deadline",
        )
        # a spectator cannot say it
        with pytest.raises(ServiceError):
            await svc.clock.back(table, Conn(Inbox(), None, "it"))

    run(db_url, body, clock_scale=0.02)


def test_a_returning_player_hears_what_was_played_for_them(db_url: str) -> None:
    async def body(svc: Service) -> None:
        table, _, _ = await two_humans(svc, 10)
        ben = Inbox()
        await svc.connect(table, Conn(ben, 1, "en"))
        # Ben plays; Ana (not connected) times out twice
        for _ in range(2000):
            if len([1 for _, s, c in stored_ids(svc, table.id) if s == 0 and c]) >= 2:
                break
            game = table.game
            assert game is not None
            legal = game.legal_actions(1)
            if legal:
                with contextlib.suppress(ServiceError):
                    await svc.act(table, 1, legal[0].notation)
            await asyncio.sleep(0.01)
        inbox = Inbox()
        conn = Conn(inbox, 0, "es")
        await svc.connect(table, conn)
        await svc.send_state(table, conn, full=True)
        await drained(table)
        away = of_type(inbox, "away")
        assert len(away) == 1, inbox.messages
        assert away[0]["text"].startswith("Mientras no estabas, un bot tomó")
        assert len(away[0]["decisions"]) >= 2
        assert {d["by"] for d in away[0]["decisions"]} == {"clock"}
        assert inbox.messages.index(away[0]) > inbox.messages.index(of_type(inbox, "state")[0])
        # told once
        await svc.send_state(table, conn, full=True)
        await drained(table)
        assert len(of_type(inbox, "away")) == 1

    run(db_url, body, clock_scale=0.03)


def test_clients_cannot_use_the_clocks_ids(db_url: str) -> None:
    async def body(svc: Service) -> None:
        table, _, _ = await two_humans(svc, None)
        with pytest.raises(ServiceError) as caught:
            await svc.act(table, 0, "pick 1", client_id=f"{CLOCK_ID}0")
        assert caught.value.code == "malformed"
        assert table.version == 0

    run(db_url, body)


def test_two_processes_time_a_decision_out_once(pg_url: str) -> None:
    """Both processes hold the table and both clocks run out: the database stores one action
    per decision (the clock's ids are unique per seat), and the game still ends."""

    async def main() -> None:
        one = Service(TableStore(pg_url), bot_delay=0, clock_scale=0.01)
        two = Service(TableStore(pg_url), bot_delay=0, clock_scale=0.01)
        await one.start()
        await two.start()
        try:
            table, _, _ = await one.create_table(TWO_HUMANS, "Ana", "en", clock=10)
            t2 = await two.get(table.id)
            await two.join(table.id, "Ben")
            t1 = await one.get(table.id)
            watcher = Inbox()
            await two.connect(t2, Conn(watcher, None, "en"))
            await eventually(lambda: t1.status == t2.status == "finished", "the end", 50)
            ids = stored_ids(one, table.id)
            assert [seq for seq, _, _ in ids] == list(range(len(ids)))
            clocked = [(s, c) for _, s, c in ids if c is not None]
            assert len(clocked) == len(set(clocked)) == 2 * STRIKES
            # process two heard every timeout, whoever took it
            assert len(of_type(watcher, "timeout")) == 2 * STRIKES
        finally:
            await one.close()
            await two.close()

    asyncio.run(asyncio.wait_for(main(), 90))


def test_the_third_timeout_in_a_row_benches_and_every_third_after() -> None:
    assert [n for n in range(10) if benches(n)] == [3, 6, 9]


def test_an_absent_players_replacement_counts_down(db_url: str) -> None:
    async def body(svc: Service) -> None:
        table, _, _ = await two_humans(svc, None)
        ben = Conn(Inbox(), 1, "en")
        await svc.connect(table, ben)
        assert table_summary(table)["seats"][1]["replace_in"] is None  # here
        await svc.disconnect(table, ben)
        first = table_summary(table)["seats"][1]["replace_in"]
        assert first is not None and 4.5 <= first <= 5.0
        await asyncio.sleep(0.3)
        later = table_summary(table)["seats"][1]["replace_in"]
        assert later is not None and later <= first - 0.2
        await svc.connect(table, Conn(Inbox(), 1, "en"))  # back before the bot came
        assert table_summary(table)["seats"][1]["replace_in"] is None
        assert not table.seats[1].replaced

    run(db_url, body, replace_after=5.0)
