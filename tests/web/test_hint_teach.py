"""Hints that teach (issue 25, item 5): every option names its card, its expected final score,
the chance another player picks it too (at a selection) and its win probability; the
recommended one comes with a one-line reason in the socket's language; and a hint comes for
every decision, a power's included (a Milk decision's hint is about the Milk's choices)."""

from __future__ import annotations

from typing import Any

from starlette.testclient import TestClient

from gonuts.server.play.messages import SERVER_MESSAGE
from web.browser.stacked import deciding, play_to, store_table
from web.helpers import AppFactory, create, hello, receive_until


def hint_after_state(
    ws: Any, last: dict[str, Any] | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The latest state (``last`` or a later one) and the hint of its version."""
    last = last or {}
    for _ in range(200):
        msg: dict[str, Any] = ws.receive_json()
        if msg["type"] == "state":
            last = msg
        elif msg["type"] == "hint" and last and msg["version"] == last["version"]:
            return last, msg
    raise AssertionError("no hint for the latest state")


def test_a_selection_hint_names_cards_and_the_contest(client: TestClient) -> None:
    made = create(
        client,
        [{"kind": "human"}, {"kind": "bot", "level": "easy"}] * 1
        + [{"kind": "bot", "level": "easy"}],
    )
    tid, token = made["table"]["id"], made["token"]
    with client.websocket_connect(f"/ws/tables/{tid}") as ws:
        assert hello(ws, token, "es")["type"] == "welcome"
        first = receive_until(ws, "state")
        ws.send_json({"type": "hints", "on": True})
        state, msg = hint_after_state(ws, first)
    assert SERVER_MESSAGE.validate_python(msg)
    hint = msg["hint"]
    row = state["view"]["row"]
    legal = {a["action"] for a in state["view"]["legal"]}
    assert {a["action"] for a in hint["actions"]} == legal
    for a in hint["actions"]:
        position = int(a["action"].split()[1])
        assert a["card"] == row[position - 1]
        assert a["label"] == f"Elegir la posición {position}"
        assert 0.0 <= a["contested"] <= 1.0 and 0.0 <= a["win_probability"] <= 1.0
        assert a["expected_score"] is not None
    best = next(a for a in hint["actions"] if a["action"] == hint["recommended"])
    assert hint["why"].startswith(best["label"])
    assert f"{round(best['win_probability'] * 100)} %" in hint["why"]  # (Spanish spacing)


def test_a_power_decision_gets_its_own_hint(make_app: AppFactory, db_url: str) -> None:
    deck, actions, game = play_to(4, deciding("milk", options=2), power="milk")
    stacked = store_table(db_url, 4, deck, actions, game)
    with (
        TestClient(make_app()) as client,
        client.websocket_connect(f"/ws/tables/{stacked.table_id}") as ws,
    ):
        assert hello(ws, stacked.token)["type"] == "welcome"
        ws.send_json({"type": "hints", "on": True})
        state, msg = hint_after_state(ws)
    assert state["view"]["phase"] == "milk" and state["view"]["power"] == "milk"
    hint = msg["hint"]
    legal = [a["action"] for a in state["view"]["legal"]]
    assert sorted(a["action"] for a in hint["actions"]) == sorted(legal)
    assert all(not a["action"].startswith("pick") for a in hint["actions"])
    for a in hint["actions"]:
        assert a["contested"] is None  # (nobody else decides a Milk)
        assert a["card"] == a["action"].split()[-1]  # "discard glazed": the Glazed
    assert hint["why"] and hint["why"].startswith(
        next(a["label"] for a in hint["actions"] if a["action"] == hint["recommended"])
    )
