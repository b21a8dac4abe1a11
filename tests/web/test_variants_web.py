"""House-rule variants in the web game (issue 15 item 1): created, stored, played, recorded.

Every test runs on SQLite and on PostgreSQL (``client`` / ``make_app`` take ``db_url``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from gonuts.cards import KIND_IDS, canonical_deck
from gonuts.server.kernel.limits import Limits
from gonuts.server.lobby import rules as lobby
from gonuts.variants import SPRINKLED_ANY_CARD, TWIST_PASS_ANY, VARIANTS
from web.helpers import AppFactory, auth, create, error_code, state

HUMAN = {"kind": "human"}
BOT = {"kind": "bot", "level": "easy"}


def post_table(client: TestClient, variants: Any, seats: list[dict[str, Any]] | None = None) -> Any:
    body = {"seats": seats or [HUMAN, BOT], "name": "Ana", "variants": variants}
    return client.post("/api/tables", json=body)


def test_a_table_is_created_with_its_variants_in_canonical_order(client: TestClient) -> None:
    r = post_table(client, [TWIST_PASS_ANY, SPRINKLED_ANY_CARD])
    assert r.status_code == 201, r.text
    table = r.json()["table"]
    assert table["variants"] == [SPRINKLED_ANY_CARD, TWIST_PASS_ANY]  # RULES.md order
    assert client.get(f"/api/tables/{table['id']}").json()["variants"] == table["variants"]
    listed = {t["id"]: t for t in client.get("/api/tables").json()["tables"]}
    assert listed[table["id"]]["variants"] == table["variants"]
    # the game is played by them: every view says so
    view = state(client, table["id"], r.json()["token"])["view"]
    assert view["variants"] == [SPRINKLED_ANY_CARD, TWIST_PASS_ANY]


def test_the_default_game_has_no_variants(client: TestClient) -> None:
    made = create(client, [HUMAN, BOT])
    assert made["table"]["variants"] == []
    assert state(client, made["table"]["id"], made["token"])["view"]["variants"] == []


@pytest.mark.parametrize(
    ("variants", "words"),
    [
        (["sprinkled_any"], "unknown variant 'sprinkled_any'"),
        ([SPRINKLED_ANY_CARD, SPRINKLED_ANY_CARD], "listed more than once"),
        ("sprinkled_any_card", "variants"),  # a string, not a list
        ([1], "variants"),
    ],
)
def test_bad_variants_are_refused_clearly(client: TestClient, variants: Any, words: str) -> None:
    r = post_table(client, variants)
    assert r.status_code == 422, r.text
    assert error_code(r) == "malformed"
    assert words in r.json()["error"]["message"]
    assert client.get("/api/tables").json()["tables"] == []  # nothing was made


def test_the_unknown_name_error_lists_the_known_ones(client: TestClient) -> None:
    message = post_table(client, ["nope"]).json()["error"]["message"]
    assert all(name in message for name in VARIANTS)


def test_variants_survive_a_restart(make_app: AppFactory) -> None:
    with TestClient(make_app()) as c:
        made = post_table(c, [TWIST_PASS_ANY], seats=[HUMAN, HUMAN]).json()
        table_id, token = made["table"]["id"], made["token"]
        c.post(f"/api/tables/{table_id}/join", json={"name": "Ben"}).raise_for_status()
    with TestClient(make_app()) as c:  # a new process: the table is rebuilt from the database
        assert c.get(f"/api/tables/{table_id}").json()["variants"] == [TWIST_PASS_ANY]
        assert state(c, table_id, token)["view"]["variants"] == [TWIST_PASS_ANY]


# -- the house rule is really played, through the API, to the end and into the replay -----------

OPENING = (
    # round 1: Ana 1, Ben 2, Cy 3 (the Glazed at 4 stays)
    "glazed", "plain", "powdered", "glazed",
    # round 2 refills positions 1-3: Ana takes the Sprinkled while she owns a Glazed
    "sprinkled", "plain", "powdered",
)  # fmt: skip


def stacked_deck() -> list[str]:
    """The 3-player deck with :data:`OPENING` on top (the rest in canonical order)."""
    rest = Counter(KIND_IDS[k] for k in canonical_deck(3))
    rest.subtract(OPENING)
    return [*OPENING, *rest.elements()]


def legal(client: TestClient, table_id: str, token: str) -> list[str]:
    return [a["action"] for a in state(client, table_id, token)["view"]["legal"]]


def act(client: TestClient, table_id: str, token: str, action: str) -> None:
    r = client.post(f"/api/tables/{table_id}/actions", json={"action": action}, headers=auth(token))
    assert r.status_code == 200, r.text


def sprinkled_table(
    client: TestClient, variants: list[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[str, list[str]]:
    """Three humans at a table dealt :func:`stacked_deck`; Ana has just taken the Sprinkled."""
    deck = stacked_deck()
    monkeypatch.setattr(
        lobby, "seeded_shuffle", lambda _cards, _seed: [KIND_IDS.index(k) for k in deck]
    )
    made = post_table(client, variants, seats=[HUMAN, HUMAN, HUMAN]).json()
    table_id = made["table"]["id"]
    tokens = [made["token"]]
    for name in ("Ben", "Cy"):
        tokens.append(
            client.post(f"/api/tables/{table_id}/join", json={"name": name}).json()["token"]
        )
    for _round in range(2):
        for seat, token in enumerate(tokens):
            act(client, table_id, token, f"pick {seat + 1}")
    return table_id, tokens


def test_the_default_sprinkled_gives_another_card(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    table_id, tokens = sprinkled_table(client, [], monkeypatch)
    assert sorted(legal(client, table_id, tokens[0])) == ["give glazed to 1", "give glazed to 2"]


@pytest.fixture
def unthrottled(make_app: AppFactory) -> Iterator[TestClient]:
    """A client without the per-address HTTP rate: a whole game over HTTP is a few hundred
    requests, and the replay at the end was sometimes refused with 429."""
    with TestClient(make_app(limits=Limits(http_rate=None))) as c:
        yield c


def test_sprinkled_any_card_is_played_recorded_and_replayed(
    unthrottled: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = unthrottled
    table_id, tokens = sprinkled_table(client, [SPRINKLED_ANY_CARD], monkeypatch)
    options = legal(client, table_id, tokens[0])
    assert "give sprinkled to 1" in options  # only this house rule allows it
    act(client, table_id, tokens[0], "give sprinkled to 1")
    view = state(client, table_id, tokens[0])["view"]
    assert view["collections"][0] == {"glazed": 1}
    assert view["collections"][1]["sprinkled"] == 1
    # play to the end: each seat takes a legal action (its own spread of positions)
    for _ in range(2_000):
        if client.get(f"/api/tables/{table_id}").json()["status"] == "finished":
            break
        for seat, token in enumerate(tokens):
            choices = legal(client, table_id, token)
            if choices:
                act(client, table_id, token, choices[seat % len(choices)])
    else:
        pytest.fail("the game did not finish")
    record = client.get(f"/api/games/{table_id}/record").json()
    assert record["variants"] == [SPRINKLED_ANY_CARD]
    assert "give sprinkled to 1" in [a["action"] for a in record["actions"]]
    replay = client.get(f"/api/games/{table_id}/replay")
    assert replay.status_code == 200, replay.text  # replayed by the house rule, not refused
    steps = replay.json()["steps"]
    assert steps[-1]["view"]["over"]
    assert {tuple(s["view"]["variants"]) for s in steps} == {(SPRINKLED_ANY_CARD,)}


def test_play_again_keeps_the_variants(client: TestClient) -> None:
    made = post_table(client, [TWIST_PASS_ANY], seats=[HUMAN, BOT]).json()
    table_id, token = made["table"]["id"], made["token"]
    for _ in range(500):
        if client.get(f"/api/tables/{table_id}").json()["status"] == "finished":
            break
        choices = legal(client, table_id, token)
        if choices:
            r = client.post(
                f"/api/tables/{table_id}/actions", json={"action": choices[0]}, headers=auth(token)
            )
            assert r.status_code in (200, 409), r.text  # the bot may have moved the game on
    else:
        pytest.fail("the game did not finish")
    again = client.post(f"/api/tables/{table_id}/again", headers=auth(token))
    assert again.status_code == 200, again.text
    assert again.json()["table"]["variants"] == [TWIST_PASS_ANY]
