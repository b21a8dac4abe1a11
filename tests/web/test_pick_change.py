"""Changing a secret choice until the reveal (issue 25, item 2), on SQLite and PostgreSQL.

A seated player replaces their pick (``change`` on the socket, ``"change": true`` over HTTP)
until the last seat has chosen: the changed pick is the one revealed, the record holds only it,
a restart keeps it, nobody else hears of it, and after the reveal a change is ``pick_final``.
"""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from gonuts.game import Game
from gonuts.record import Record
from gonuts.server.kernel.errors import ServiceError
from gonuts.server.kernel.limits import Limits
from gonuts.server.play.live import LiveTable
from gonuts.server.play.messages import SERVER_MESSAGE
from gonuts.server.service import Service
from gonuts.state import Phase
from web.browser.stacked import play_to, store_table
from web.helpers import AppFactory, auth, create, error_code, hello, receive_until, state
from web.test_postgres import eventually, query, relay, run, two_player_table

HUMANS3 = [{"kind": "human"}, {"kind": "human"}, {"kind": "human"}]


def seated_three(client: TestClient) -> tuple[str, list[str]]:
    """A 3-player table of three people: its id and their tokens by seat."""
    made = create(client, HUMANS3)
    tid = made["table"]["id"]
    tokens = [made["token"]]
    for name in ("Ben", "Cy"):
        r = client.post(f"/api/tables/{tid}/join", json={"name": name})
        assert r.status_code == 200, r.text
        tokens.append(r.json()["token"])
    return tid, tokens


def act(client: TestClient, tid: str, token: str, action: str, **extra: Any) -> Any:
    return client.post(
        f"/api/tables/{tid}/actions", json={"action": action, **extra}, headers=auth(token)
    )


def test_a_changed_pick_is_the_one_revealed_and_recorded(make_app: AppFactory) -> None:
    with TestClient(make_app()) as client:
        tid, tokens = seated_three(client)
        assert act(client, tid, tokens[1], "pick 4").is_success
        others_before = [state(client, tid, tokens[s]) for s in (1, 2)]
        public_before = state(client, tid)
        assert act(client, tid, tokens[0], "pick 1").is_success
        mine = state(client, tid, tokens[0])
        assert mine["view"]["selections"][0] == 1 and mine["view"]["legal"] == []
        options = [a["action"] for a in mine["change"]]
        assert options == [f"pick {p}" for p in range(1, 5)]  # every position, my own too
        assert SERVER_MESSAGE.validate_python(mine)
        r = act(client, tid, tokens[0], "pick 3", change=True)
        assert r.is_success and r.json()["version"] == mine["version"]
        assert act(client, tid, tokens[0], "pick 2", change=True).is_success
        changed = state(client, tid, tokens[0])
        assert changed["view"]["selections"][0] == 2 and changed["version"] == mine["version"]
        # nobody else can tell: their views and the public one are as before my first pick
        # except for "has chosen", which the first pick already showed
        for seat, before in zip((1, 2), others_before, strict=True):
            after = state(client, tid, tokens[seat])
            assert after["view"]["selections"] == before["view"]["selections"]
            assert after["view"]["waiting_for"] == [2] and after["change"] == (
                before["change"] if seat == 1 else []
            )
        public = state(client, tid)
        assert public["view"]["selections"] == public_before["view"]["selections"]
        assert public["change"] == []
        # an illegal change, a bad notation, a change without a choice to change
        assert error_code(act(client, tid, tokens[0], "pick 6", change=True)) == "illegal"
        assert error_code(act(client, tid, tokens[0], "pock 2", change=True)) == "bad_action"
        assert error_code(act(client, tid, tokens[2], "pick 1", change=True)) == "pick_final"
    # a restart rebuilds the table from the database: the change is there
    with TestClient(make_app(limits=Limits.unlimited())) as client:
        again = state(client, tid, tokens[0])
        assert {**again, "deadlines": {}} == {**changed, "deadlines": {}}  # (the clock ticked)
        assert act(client, tid, tokens[2], "pick 1").is_success  # the last pick: the reveal
        revealed = state(client, tid, tokens[0])
        reveal = next(e for e in revealed["events"] if e["type"] == "selections_revealed")
        assert reveal["positions"] == [2, 4, 1]
        # after the reveal: final
        r = act(client, tid, tokens[0], "pick 3", change=True)
        assert error_code(r) == "pick_final" and r.status_code == 409
        version = play_to_end(client, tid, tokens)
        record = Record.from_json(client.get(f"/api/games/{tid}/record").text)
        assert len(record.actions) == version
        first = [(a.player, str(a.action)) for a in record.actions[:3]]
        assert first == [(1, "pick 4"), (0, "pick 2"), (2, "pick 1")]
        assert record.replay().is_over


def play_to_end(client: TestClient, tid: str, tokens: list[str]) -> int:
    """Everyone takes their first legal action until the game is over; the last version."""
    for _ in range(2000):
        states = [state(client, tid, t) for t in tokens]
        if states[0]["view"]["over"]:
            version: int = states[0]["version"]
            return version
        for token, s in zip(tokens, states, strict=True):
            if s["view"]["legal"]:
                assert act(client, tid, token, s["view"]["legal"][0]["action"]).is_success
                break
    raise AssertionError("the game did not end")


def test_the_socket_change_is_told_to_its_seat_only(client: TestClient) -> None:
    tid, tokens = seated_three(client)
    with (
        client.websocket_connect(f"/ws/tables/{tid}") as me,
        client.websocket_connect(f"/ws/tables/{tid}") as other,
    ):
        for ws, token in ((me, tokens[0]), (other, tokens[1])):
            assert hello(ws, token)["type"] == "welcome"
            receive_until(ws, "state")
        me.send_json({"type": "act", "action": "pick 1", "id": "a1"})
        receive_until(me, "ack")
        first = receive_until(me, "state")
        assert first["view"]["selections"][0] == 1
        seen = receive_until(other, "state")  # the first pick: "Ana has chosen"
        assert seen["view"]["waiting_for"] == [1, 2]
        me.send_json({"type": "change", "action": "pick 3", "id": "a2"})
        ack = receive_until(me, "ack")
        assert ack == {
            "type": "ack",
            "id": "a2",
            "action": "pick 3",
            "version": first["version"],
            "changed": True,
        }
        mine = receive_until(me, "state")
        assert SERVER_MESSAGE.validate_python(mine)
        assert mine["view"]["selections"][0] == 3 and mine["events"] == []
        # the same id again: the same answer, nothing changes
        me.send_json({"type": "change", "action": "pick 3", "id": "a2"})
        assert receive_until(me, "ack")["version"] == first["version"]
        me.send_json({"type": "change", "action": "pick 2", "id": "a2"})
        assert receive_until(me, "error")["code"] == "malformed"
        # the other seat heard nothing of it: its next message is its own pick's answer
        other.send_json({"type": "ping"})
        heard: list[dict[str, Any]] = []
        receive_until(other, "pong", heard)
        assert [m for m in heard if m["type"] not in ("table", "pong")] == [], heard
        other.send_json({"type": "change", "action": "pick 2", "id": "b1"})
        assert receive_until(other, "error")["code"] == "pick_final"  # nothing chosen yet
        other.send_json({"type": "act", "action": "pick 2", "id": "b2"})
        receive_until(other, "ack")
        assert receive_until(other, "state")["view"]["selections"] == [None, 2, None]
        theirs = receive_until(me, "state")
        assert theirs["view"]["selections"] == [3, None, None]
    with client.websocket_connect(f"/ws/tables/{tid}") as spectator:
        assert hello(spectator, None)["spectator"]
        watched = receive_until(spectator, "state")
        assert watched["view"]["selections"] == [None, None, None] and watched["change"] == []
        spectator.send_json({"type": "change", "action": "pick 2"})
        assert receive_until(spectator, "error")["code"] == "spectator"


def twist_moment(game: Game) -> bool:
    """Seat 0 decides a Cinnamon Twist pass between two or more cards."""
    if game.state.phase is not Phase.CINNAMON_TWIST:
        return False
    return 0 in game.to_act and len(game.legal_actions(0)) >= 2


def test_a_cinnamon_twist_pass_can_be_changed(make_app: AppFactory, db_url: str) -> None:
    deck, actions, game = play_to(5, twist_moment, power="cinnamon_twist")
    stacked = store_table(db_url, 5, deck, actions, game)
    token, tid = stacked.token, stacked.table_id
    # the bots wait a minute before each move: they have not passed yet
    with TestClient(make_app(bot_delay=60)) as client:
        before = state(client, tid, token)
        passes = [a["action"] for a in before["view"]["legal"]]
        assert passes and all(p.startswith("pass ") for p in passes)
        assert act(client, tid, token, passes[0]).is_success
        mine = state(client, tid, token)
        assert [a["action"] for a in mine["change"]] == passes
        assert act(client, tid, token, passes[-1], change=True).is_success
        changed = state(client, tid, token)
        assert changed["view"]["my_pass"] == passes[-1].split()[1]
    with TestClient(make_app(bot_delay=60)) as client:
        assert {**state(client, tid, token), "deadlines": {}} == {**changed, "deadlines": {}}


def test_a_change_on_one_process_wins_the_reveal_on_another(pg_url: str) -> None:
    """Process one changes Ana's pick; process two, which does not hear of UPDATEs, stores
    Ben's last pick: its check of the pending picks fails, it catches up and reveals the new
    one. And a change arriving after the reveal on the other process is ``pick_final``."""

    async def body(one: Service, two: Service) -> None:
        table_id, _, _ = await two_player_table(one, two)
        t1, t2 = await one.get(table_id), await two.get(table_id)
        await eventually(lambda: t1.status == "playing", "the start to reach process one")
        await one.act(t1, 0, "pick 1")
        await eventually(lambda: t2.version == 1, "Ana's pick to reach process two")
        assert await one.change(t1, 0, "pick 3") == 1
        assert t2.pending[0].notation == "pick 1"  # process two has not heard
        await two.act(t2, 1, "pick 2")
        assert revealed(t2) == [3, 2]
        await eventually(lambda: t1.version == 2, "the reveal to reach process one")
        assert revealed(t1) == [3, 2]
        with pytest.raises(ServiceError) as refused:
            await one.change(t1, 0, "pick 1")
        assert refused.value.code == "pick_final"
        rows = query(
            one,
            "SELECT seat, notation FROM gn_actions WHERE table_id = :t ORDER BY seq",
            t=table_id,
        )
        assert rows == [(0, "pick 3"), (1, "pick 2")]

    run(pg_url, body)


def test_a_late_change_on_a_process_that_has_not_heard_is_final(pg_url: str) -> None:
    async def body(one: Service, two: Service) -> None:
        table_id, _, _ = await two_player_table(one, two)
        t1, t2 = await one.get(table_id), await two.get(table_id)
        await eventually(lambda: t1.status == "playing", "the start to reach process one")
        await one.act(t1, 0, "pick 1")
        await eventually(lambda: t2.version == 1, "Ana's pick to reach process two")
        await relay(one).close()  # process one is deaf from now on
        await two.act(t2, 1, "pick 2")  # the reveal, on process two
        assert t1.version == 1 and 0 in t1.pending
        with pytest.raises(ServiceError) as refused:
            await one.change(t1, 0, "pick 3")
        assert refused.value.code == "pick_final" and t1.version >= 2
        assert revealed(t1) == [1, 2]

    run(pg_url, body)


def revealed(table: LiveTable) -> list[int]:
    """The positions of the table's last reveal."""
    assert table.game is not None
    events = [e.to_json() for e in table.game.event_log]
    positions: list[int] = [e for e in events if e["type"] == "selections_revealed"][-1][
        "positions"
    ]
    return positions
