"""The host's waiting room (issue 26, item 1): before the game starts the table's creator may
make a seat a bot or a free seat again, remove a guest, start now with bots in the empty
seats, or cancel; everyone in the room sees it live; anyone else is refused (``not_host``)."""

from __future__ import annotations

from typing import Any

from starlette.testclient import TestClient

from web.helpers import auth, create, error_code, hello, receive_until

THREE = [{"kind": "human"}, {"kind": "human"}, {"kind": "human"}]


def host_table(client: TestClient) -> tuple[str, str, str]:
    """A three-seat table of Ana (the host) with Ben seated: its id, their tokens."""
    made = create(client, THREE)
    tid, ana = made["table"]["id"], made["token"]
    ben = client.post(f"/api/tables/{tid}/join", json={"name": "Ben"}).json()["token"]
    return tid, ana, ben


def kinds(summary: dict[str, Any]) -> list[tuple[str, str | None, bool]]:
    return [(s["kind"], s["level"], s["taken"]) for s in summary["seats"]]


def test_host_makes_a_seat_a_bot_and_back(client: TestClient) -> None:
    tid, ana, _ = host_table(client)
    r = client.post(
        f"/api/tables/{tid}/seats/2", json={"kind": "bot", "level": "easy"}, headers=auth(ana)
    )
    assert r.status_code == 200, r.text
    # all three seats are taken now: the game starts
    assert kinds(r.json()) == [("human", None, True), ("human", None, True), ("bot", "easy", True)]
    assert r.json()["status"] == "playing"
    assert r.json()["seats"][2]["name"] == "Bot 3 (easy)"
    again = client.post(f"/api/tables/{tid}/seats/2", json={"kind": "human"}, headers=auth(ana))
    assert again.status_code == 409 and error_code(again) == "already_started"


def test_bot_seat_becomes_free_and_the_stored_table_follows(client: TestClient) -> None:
    made = create(client, [{"kind": "human"}, {"kind": "bot", "level": "hard"}, {"kind": "human"}])
    tid, ana = made["table"]["id"], made["token"]
    r = client.post(f"/api/tables/{tid}/seats/1", json={"kind": "human"}, headers=auth(ana))
    assert r.status_code == 200, r.text
    assert kinds(r.json())[1] == ("human", None, False)
    # a second app on the same database (a restart) loads the changed seat
    ben = client.post(f"/api/tables/{tid}/join", json={"name": "Ben"}).json()
    assert ben["seat"] == 1


def test_only_the_host_may(client: TestClient) -> None:
    tid, ana, ben = host_table(client)
    assert client.get(f"/api/tables/{tid}/room").json() == {"host_seat": 0, "chat": True}
    for token in (ben, None, "not-a-token"):
        headers = auth(token) if token else {}
        for path, body in (
            (f"/api/tables/{tid}/seats/2", {"kind": "bot", "level": "easy"}),
            (f"/api/tables/{tid}/seats/1/remove", None),
            (f"/api/tables/{tid}/start", {}),
            (f"/api/tables/{tid}/cancel", None),
        ):
            r = client.post(path, json=body, headers=headers)
            assert r.status_code == 403 and error_code(r) == "not_host", (path, token, r.text)
    assert client.get(f"/api/tables/{tid}").json()["status"] == "open"
    # the host's own seat stays the host's; a seat that is not there is malformed
    r = client.post(
        f"/api/tables/{tid}/seats/0", json={"kind": "bot", "level": "easy"}, headers=auth(ana)
    )
    assert r.status_code == 422 and error_code(r) == "malformed"
    r = client.post(f"/api/tables/{tid}/seats/5", json={"kind": "human"}, headers=auth(ana))
    assert r.status_code == 422 and error_code(r) == "malformed"
    r = client.post(f"/api/tables/{tid}/seats/2", json={"kind": "bot"}, headers=auth(ana))
    assert r.status_code == 422 and error_code(r) == "malformed"
    r = client.post("/api/tables/nope/start", json={}, headers=auth(ana))
    assert r.status_code == 404 and error_code(r) == "unknown_table"


def test_remove_a_guest_live(client: TestClient) -> None:
    tid, ana, ben = host_table(client)
    with (
        client.websocket_connect(f"/ws/tables/{tid}") as host_ws,
        client.websocket_connect(f"/ws/tables/{tid}") as guest_ws,
    ):
        assert hello(host_ws, ana)["type"] == "welcome"
        assert hello(guest_ws, ben)["type"] == "welcome"
        r = client.post(f"/api/tables/{tid}/seats/1/remove", headers=auth(ben))
        assert error_code(r) == "not_host"
        r = client.post(f"/api/tables/{tid}/seats/1/remove", headers=auth(ana))
        assert r.status_code == 200, r.text
        assert kinds(r.json())[1] == ("human", None, False)
        removed = receive_until(guest_ws, "removed")
        assert removed == {"type": "removed", "table_id": tid, "seat": 1}
        # the host's page follows: a summary with the seat free again, and a notice
        log: list[dict[str, Any]] = []
        notice = receive_until(host_ws, "chat_notice", log)
        assert "Ben" in notice["text"] and notice["key"] == "removed"
        summaries = [m for m in log if m["type"] == "table"]
        assert summaries and kinds(summaries[-1]["table"])[1] == ("human", None, False)
    # the removed guest's token no longer holds a seat; the seat can be taken again
    r = client.get(f"/api/tables/{tid}/state", headers=auth(ben))
    assert error_code(r) == "bad_token"
    r = client.post(f"/api/tables/{tid}/seats/1/remove", headers=auth(ana))
    assert r.status_code == 409 and error_code(r) == "malformed"
    cy = client.post(f"/api/tables/{tid}/join", json={"name": "Cy"}).json()
    assert cy["seat"] == 1


def test_start_now_fills_bots_and_everyone_sees_it(client: TestClient) -> None:
    tid, ana, ben = host_table(client)
    with client.websocket_connect(f"/ws/tables/{tid}") as guest_ws:
        assert hello(guest_ws, ben, "es")["type"] == "welcome"
        r = client.post(f"/api/tables/{tid}/start", json={"level": "hard"}, headers=auth(ana))
        assert r.status_code == 200, r.text
        summary = r.json()
        assert summary["status"] == "playing"
        assert kinds(summary)[2] == ("bot", "hard", True)
        notice = receive_until(guest_ws, "chat_notice")
        assert notice["key"] == "started"
        assert notice["text"].startswith("El anfitrión")  # in the guest's language
        state = receive_until(guest_ws, "state")
        assert state["view"]["players"][:2] == ["Ana", "Ben"]
    r = client.post(f"/api/tables/{tid}/start", json={}, headers=auth(ana))
    assert r.status_code == 409 and error_code(r) == "already_started"


def test_cancel_deletes_the_table_and_tells_the_room(client: TestClient) -> None:
    tid, ana, ben = host_table(client)
    with client.websocket_connect(f"/ws/tables/{tid}") as guest_ws:
        assert hello(guest_ws, ben)["type"] == "welcome"
        r = client.post(f"/api/tables/{tid}/cancel", headers=auth(ana))
        assert r.status_code == 200 and r.json() == {"cancelled": True}
        assert receive_until(guest_ws, "cancelled") == {"type": "cancelled", "table_id": tid}
    listed = client.get("/api/tables?status=open").json()["tables"]
    assert tid not in [t["id"] for t in listed]
    assert client.get(f"/api/tables/{tid}/chat").status_code == 404
    r = client.post(f"/api/tables/{tid}/join", json={"name": "Cy"})
    assert r.status_code >= 400
    r = client.post(f"/api/tables/{tid}/cancel", headers=auth(ana))
    assert r.status_code in (403, 409)


def test_no_host_for_a_watcher_creator(client: TestClient) -> None:
    made = create(client, THREE, name=None)
    tid = made["table"]["id"]
    assert made["token"] is None
    r = client.post(f"/api/tables/{tid}/start", json={})
    assert r.status_code == 403 and error_code(r) == "not_host"
