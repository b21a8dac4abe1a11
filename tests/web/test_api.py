"""HTTP: lobby, refusals, persistence across app instances, replays, languages, CLI."""

from __future__ import annotations

import json
import subprocess
import sys

from starlette.testclient import TestClient

from gonuts.record import Record
from web.helpers import (
    AppFactory,
    auth,
    create,
    error_code,
    hello,
    receive_until,
    state,
    wait_until,
)

BOTS2 = [{"kind": "human"}, {"kind": "bot", "level": "easy"}, {"kind": "bot", "level": "medium"}]


def test_pages_config_and_languages(client: TestClient) -> None:
    assert client.get("/").status_code == 200
    assert client.get("/t/whatever").status_code == 200
    cfg = client.get("/api/config", headers={"Accept-Language": "es-MX,es;q=0.9,en;q=0.5"})
    assert cfg.json()["lang"] == "es"
    assert client.get("/api/config?lang=it").json()["lang"] == "it"
    assert client.get("/api/config", headers={"Accept-Language": "fr"}).json()["lang"] == "en"
    es = client.get("/api/i18n/es").json()
    it = client.get("/api/i18n/it").json()
    en = client.get("/api/i18n/en").json()
    assert set(es["messages"]) == set(en["messages"]) == set(it["messages"])
    assert es["cards"]["french_cruller"]["name"] == "Buñuelo francés"
    assert it["cards"]["glazed"]["name"] == "Smaltato"
    assert en["cards"]["glazed"]["colour"] == "green"
    assert client.get("/i18n/it.json").json() == it["messages"]
    assert error_code(client.get("/api/i18n/fr")) == "unknown_language"
    for lang, word in (("en", "Glazed"), ("es", "Glaseada"), ("it", "Smaltato")):
        page = client.get(f"/rules?lang={lang}")
        assert page.status_code == 200 and word in page.text and f'lang="{lang}"' in page.text
    assert "Cómo se juega" in client.get("/rules", headers={"Accept-Language": "es"}).text


def test_lobby_create_join_start(client: TestClient) -> None:
    made = create(client, [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "easy"}])
    table = made["table"]
    assert made["seat"] == 0 and len(made["token"]) >= 30
    assert table["status"] == "open" and table["invite_url"] == f"/t/{table['id']}"
    listed = client.get("/api/tables").json()["tables"]
    assert [t["id"] for t in listed] == [table["id"]]
    # the game has not started: no acting yet
    r = client.post(
        f"/api/tables/{table['id']}/actions", json={"action": "pick 1"}, headers=auth(made["token"])
    )
    assert error_code(r) == "not_started" and r.status_code == 409
    joined = client.post(f"/api/tables/{table['id']}/join", json={"name": "  Ben  "}).json()
    assert joined["seat"] == 1 and joined["table"]["status"] == "playing"
    assert joined["table"]["seats"][1]["name"] == "Ben"
    assert "token" not in json.dumps(joined["table"])
    r = client.post(f"/api/tables/{table['id']}/join", json={"name": "Cy"})
    assert error_code(r) == "table_full" and r.status_code == 409
    assert client.get("/api/tables?status=open").json()["tables"] == []


def test_lobby_refusals(client: TestClient) -> None:
    bad_bodies = [
        {"seats": [{"kind": "human"}]},
        {"seats": [{"kind": "human"}] * 7},
        {"seats": [{"kind": "bot"}, {"kind": "human"}]},
        {"seats": [{"kind": "robot"}, {"kind": "human"}]},
        {"seats": [{"kind": "human"}, {"kind": "human"}], "name": ""},
        {"seats": [{"kind": "human"}, {"kind": "human"}], "name": "a\u0007b"},
        {"seats": [{"kind": "human"}, {"kind": "human"}], "extra": 1},
        {"seats": "two"},
    ]
    for body in bad_bodies:
        r = client.post("/api/tables", json=body)
        assert r.status_code == 422 and error_code(r) == "malformed", body
    r = client.post(
        "/api/tables", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert error_code(r) == "malformed"
    r = client.post("/api/tables", content=b"x" * 5000)
    assert r.status_code == 413 and error_code(r) == "too_large"
    assert error_code(client.get("/api/tables/nope")) == "unknown_table"
    assert client.get("/api/tables/nope").status_code == 404
    assert error_code(client.post("/api/tables/nope/join", json={"name": "x"})) == "unknown_table"
    assert error_code(client.get("/api/games/nope/record")) == "unknown_table"
    assert error_code(client.get("/api/tables?status=weird")) == "malformed"


def test_http_action_refusals(client: TestClient) -> None:
    made = create(client, [{"kind": "human"}, {"kind": "human"}])
    tid, token = made["table"]["id"], made["token"]
    other = client.post(f"/api/tables/{tid}/join", json={"name": "Ben"}).json()["token"]
    url = f"/api/tables/{tid}/actions"
    before = state(client, tid, token)
    # forged and missing tokens
    assert error_code(client.post(url, json={"action": "pick 1"}, headers=auth("forged"))) == (
        "bad_token"
    )
    r = client.post(url, json={"action": "pick 1"})
    assert r.status_code == 403 and error_code(r) == "bad_token"
    # malformed notation, illegal move, schema errors
    assert error_code(client.post(url, json={"action": "pick  1"}, headers=auth(token))) == (
        "bad_action"
    )
    assert error_code(client.post(url, json={"action": "pick 7"}, headers=auth(token))) == (
        "illegal"
    )
    assert error_code(client.post(url, json={"action": 3}, headers=auth(token))) == "malformed"
    # nothing changed (but the turn clock's countdown, which runs on)
    assert {**state(client, tid, token), "deadlines": {}} == {**before, "deadlines": {}}
    ok = client.post(url, json={"action": "pick 1"}, headers=auth(token))
    assert ok.json() == {"ok": True, "version": 1}
    # out of turn: seat 0 has picked, seat 1 has not
    r = client.post(url, json={"action": "pick 2"}, headers=auth(token))
    assert error_code(r) == "not_your_turn"
    mine = state(client, tid, token)["view"]
    theirs = state(client, tid, other)["view"]
    public = state(client, tid)["view"]
    assert mine["selections"] == [1, None] and mine["legal"] == []
    assert theirs["selections"] == [None, None] and theirs["waiting_for"] == [1]
    assert public["selections"] == [None, None] and public["seat"] is None


def test_persistence_across_app_instances(make_app: AppFactory) -> None:
    with TestClient(make_app()) as c1:
        made = create(c1, BOTS2)
        tid, token = made["table"]["id"], made["token"]
        url = f"/api/tables/{tid}/actions"
        for _ in range(4):
            wait_until(lambda: state(c1, tid, token)["view"]["waiting_for"] == [0], message="bots")
            legal = state(c1, tid, token)["view"]["legal"]
            assert c1.post(
                url, json={"action": legal[-1]["action"]}, headers=auth(token)
            ).is_success
        wait_until(lambda: state(c1, tid, token)["view"]["waiting_for"] == [0], message="bots")
        before = state(c1, tid, token)
        assert before["version"] >= 4
    with TestClient(make_app()) as c2:
        after = state(c2, tid, token)
        assert after == before
        assert c2.get(f"/api/tables/{tid}").json()["status"] == "playing"


def test_replacement_finished_game_record_replay_again(make_app: AppFactory) -> None:
    with TestClient(make_app(replace_after=0.0)) as client:
        made = create(client, BOTS2)
        tid, token = made["table"]["id"], made["token"]
        # the human connects and leaves: after the timeout a bot plays the seat to the end
        with client.websocket_connect(f"/ws/tables/{tid}") as ws:
            ws.send_json({"type": "hello", "token": token})
            assert ws.receive_json()["type"] == "welcome"
        wait_until(
            lambda: client.get(f"/api/tables/{tid}").json()["status"] == "finished",
            timeout=40,
            message="the game to finish",
        )
        summary = client.get(f"/api/tables/{tid}").json()
        assert summary["seats"][0]["bot_playing"] and summary["winners"]
        r = client.post(
            f"/api/tables/{tid}/actions", json={"action": "pick 1"}, headers=auth(token)
        )
        assert error_code(r) == "game_over"
        games = client.get("/api/games").json()["games"]
        assert [g["id"] for g in games] == [tid]
        rec = client.get(f"/api/games/{tid}/record")
        assert "attachment" in rec.headers["content-disposition"]
        record = Record.from_json(rec.text)
        assert record.replay().is_over
        replay = client.get(f"/api/games/{tid}/replay").json()
        assert len(replay["steps"]) == len(record.actions) + 1
        assert replay["breakdown"] and replay["steps"][-1]["view"]["over"]
        assert all(s["view"]["seat"] is None and s["view"]["legal"] == [] for s in replay["steps"])
        uploaded = client.post("/api/replay", content=rec.content).json()
        assert uploaded["steps"] == replay["steps"]
        # bad and oversized uploads
        broken = json.loads(rec.text)
        broken["actions"][3]["action"] = "pick 9"
        r = client.post("/api/replay", content=json.dumps(broken))
        assert error_code(r) == "bad_record" and "action 3" in r.json()["error"]["message"]
        assert error_code(client.post("/api/replay", content=b"[")) == "bad_record"
        assert error_code(client.post("/api/replay", content=b" " * (1 << 21))) == "too_large"
        # play again: a new table with the same seats, the caller in their old seat
        assert error_code(client.post(f"/api/tables/{tid}/again")) == "bad_token"
        again = client.post(f"/api/tables/{tid}/again", headers=auth(token)).json()
        new = again["table"]
        assert again["seat"] == 0 and new["id"] != tid and new["status"] == "playing"
        assert [s["level"] for s in new["seats"]] == [None, "easy", "medium"]
        assert client.get(f"/api/tables/{tid}").json()["next_table"] == new["id"]


def test_running_game_record_is_refused(client: TestClient) -> None:
    made = create(client, BOTS2)
    tid = made["table"]["id"]
    assert error_code(client.get(f"/api/games/{tid}/record")) == "not_finished"
    assert error_code(client.get(f"/api/games/{tid}/replay")) == "not_finished"


def test_serve_help() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "gonuts", "serve", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "--host" in out and "--port" in out and "--db" in out


def test_finished_tables_leave_memory_and_come_back(make_app: AppFactory) -> None:
    """A finished table nobody watches is let go after ``keep_finished``; asked for, it is
    loaded again from the database; one with a socket open stays."""
    with TestClient(make_app(keep_finished=0.2)) as client:
        svc = client.app.state.service  # type: ignore[attr-defined]
        bots = [{"kind": "bot", "level": "easy"}] * 2
        gone = create(client, bots, name=None)["table"]["id"]
        kept = create(client, bots, name=None)["table"]["id"]
        with client.websocket_connect(f"/ws/tables/{kept}") as ws:
            hello(ws, None)  # a spectator
            for tid in (gone, kept):

                def finished(tid: str = tid) -> bool:
                    return bool(client.get(f"/api/tables/{tid}").json()["status"] == "finished")

                wait_until(finished, message="the bots' game to end")
            before = client.get(f"/api/tables/{gone}").json()
            wait_until(lambda: gone not in svc.tables, message="the finished table to go")
            assert kept in svc.tables
            assert client.get(f"/api/tables/{gone}").json() == before  # loaded again
            assert gone in svc.tables
            ws.send_json({"type": "ping"})
            assert receive_until(ws, "pong")
        assert client.get(f"/api/games/{gone}/record").status_code == 200
