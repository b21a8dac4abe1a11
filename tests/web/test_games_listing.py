"""Tutorial games are nobody's replay (issue 25, item 4): ``/api/games`` (the replay list)
leaves them out, while their record and replay stay reachable by id."""

from __future__ import annotations

from typing import Any

from starlette.testclient import TestClient

from gonuts.server.kernel.limits import Limits
from web.helpers import AppFactory, auth, create, state, wait_until


def finish(client: TestClient, tid: str, token: str) -> None:
    """The person takes their first legal action until the game is over (bots move alone)."""

    def over_or_mine() -> bool:
        view: dict[str, Any] = state(client, tid, token)["view"]
        return bool(view["over"] or view["legal"])

    for _ in range(500):
        wait_until(over_or_mine, message="a decision or the end")
        view = state(client, tid, token)["view"]
        if view["over"]:
            return
        action = view["legal"][0]["action"]
        r = client.post(f"/api/tables/{tid}/actions", json={"action": action}, headers=auth(token))
        assert r.is_success or r.json()["error"]["code"] == "not_your_turn", r.text
    raise AssertionError("the game did not end")


def test_tutorial_games_are_not_listed(make_app: AppFactory) -> None:
    with TestClient(make_app(limits=Limits.unlimited())) as client:
        tutorial = client.post("/api/tutorial", json={"name": "Tia"}).json()
        ordinary = create(client, [{"kind": "human"}, {"kind": "bot", "level": "easy"}], "Ola")
        finish(client, tutorial["table"]["id"], tutorial["token"])
        finish(client, ordinary["table"]["id"], ordinary["token"])
        listed = [g["id"] for g in client.get("/api/games").json()["games"]]
        assert listed == [ordinary["table"]["id"]]
        tid = tutorial["table"]["id"]
        assert client.get(f"/api/games/{tid}/record").status_code == 200
        assert client.get(f"/api/games/{tid}/replay").status_code == 200
