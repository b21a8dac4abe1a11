"""The first-game guide (issue 11 item 5): its stacked deck and scripted coach produce the
moments the guide explains, and the API makes its table (SQLite and PostgreSQL)."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from gonuts.actions import parse_action
from gonuts.bots import RandomBot
from gonuts.cards import KIND_IDS, canonical_deck
from gonuts.events import Event, EventType
from gonuts.game import Game
from gonuts.server.lobby.tutorial import (
    COACH_NAMES,
    SUGGESTED,
    TUTORIAL_LEVEL,
    TutorialBot,
    again_level,
    tutorial_deck,
)
from web.helpers import AppFactory, auth, error_code, state, wait_until

ME, COACH = 0, 1


def new_game() -> Game:
    return Game.new(["Ana", "Coach"], deck=tutorial_deck())


def suggested_position(game: Game) -> int:
    return game.row.index(SUGGESTED[game.round]) + 1


def play_round(game: Game, mine: int, coach: TutorialBot) -> list[Event]:
    """Both choose (the player ``mine``), then every decision until the next round or the end:
    the player's power decisions are the first legal ones. The events of the round."""
    start = len(game.event_log)
    first = game.round
    game.apply(ME, parse_action(f"pick {mine}"))
    game.apply(COACH, coach.choose(game.view(COACH)))
    while not game.is_over and game.round == first:
        for seat in game.to_act:
            game.apply(
                seat,
                coach.choose(game.view(seat)) if seat == COACH else game.legal_actions(seat)[0],
            )
    return list(game.event_log[start:])


def of(events: list[Event], kind: EventType) -> list[Event]:
    return [e for e in events if e.type is kind]


def test_the_deck_is_a_real_two_player_deck() -> None:
    assert sorted(tutorial_deck()) == sorted(KIND_IDS[k] for k in canonical_deck(2))
    assert tutorial_deck() == tutorial_deck()  # every tutorial is the same game


def test_following_the_guide_gives_the_reveal_a_contest_and_a_power() -> None:
    game, coach = new_game(), TutorialBot(seed=1)
    assert list(game.row) == ["glazed", "donut_holes", "plain"]
    # round 1: the reveal; each takes a different card
    events = play_round(game, suggested_position(game), coach)
    [revealed] = of(events, EventType.SELECTIONS_REVEALED)
    assert revealed.positions == (1, 2)
    taken = {(e.player, e.card) for e in of(events, EventType.CARD_TAKEN)}
    assert taken == {(ME, "glazed"), (COACH, "donut_holes")}
    # round 2: both choose the Powdered: contested, discarded, nobody gets it
    assert game.row[0] == "powdered"
    events = play_round(game, suggested_position(game), coach)
    [contested] = of(events, EventType.CARD_CONTESTED)
    assert (contested.card, contested.position, contested.players) == ("powdered", 1, (ME, COACH))
    assert game.discard_pile == ("powdered",)
    # round 3: the Éclair's power takes that Powdered back from the discard pile
    assert game.row[0] == "eclair"
    events = play_round(game, suggested_position(game), coach)
    [took] = of(events, EventType.TOOK_FROM_DISCARD)
    assert (took.player, took.card, took.source) == (ME, "powdered", "eclair")
    assert game.collection(ME) == {"glazed": 1, "eclair": 1, "powdered": 1}
    # then the game goes on to its end and its scoring
    while not game.is_over:
        play_round(game, 1 + game.round % 3, coach)
    assert len(game.score_breakdown()) == 2
    assert sum(1 for e in game.event_log if e.type is EventType.GAME_OVER) == 1


def test_a_player_who_does_otherwise_still_plays_a_whole_game() -> None:
    for seed in range(20):
        game, coach, me = new_game(), TutorialBot(seed), RandomBot(seed)
        while not game.is_over:
            for seat in game.to_act:
                bot = coach if seat == COACH else me
                action = bot.choose(game.view(seat))
                assert action in game.legal_actions(seat)
                game.apply(seat, action)
        assert game.is_over


def test_the_coach_keeps_to_its_script_when_the_player_contests_round_one() -> None:
    game, coach = new_game(), TutorialBot(seed=2)
    events = play_round(game, 2, coach)  # the player takes the coach's Donut Holes position
    [contested] = of(events, EventType.CARD_CONTESTED)
    assert contested.card == "donut_holes"


# -- the API --------------------------------------------------------------------------------------


def start(client: TestClient, name: str = "Ana", lang: str = "en") -> dict[str, Any]:
    r = client.post(f"/api/tutorial?lang={lang}", json={"name": name})
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def test_the_api_starts_a_tutorial_table(client: TestClient) -> None:
    made = start(client, lang="es")
    table = made["table"]
    assert made["seat"] == ME and made["token"]
    assert table["status"] == "playing"
    assert [(s["kind"], s["level"], s["name"]) for s in table["seats"]] == [
        ("human", None, "Ana"),
        ("bot", TUTORIAL_LEVEL, COACH_NAMES["es"]),
    ]
    assert table["variants"] == []
    view = state(client, table["id"], made["token"])["view"]
    assert view["row"] == ["glazed", "donut_holes", "plain"]
    # the player picks; the coach answers by its script
    r = client.post(
        f"/api/tables/{table['id']}/actions", json={"action": "pick 1"}, headers=auth(made["token"])
    )
    assert r.status_code == 200, r.text

    def coach_moved() -> bool:
        version: int = state(client, table["id"], made["token"])["version"]
        return version >= 2

    wait_until(coach_moved, message="the coach's pick")
    view = state(client, table["id"], made["token"])["view"]
    assert view["collections"] == [{"glazed": 1}, {"donut_holes": 1}]


@pytest.mark.parametrize("body", [{}, {"name": ""}, {"name": "x" * 300}, {"name": "A", "b": 1}])
def test_a_bad_tutorial_request_is_refused(client: TestClient, body: dict[str, Any]) -> None:
    r = client.post("/api/tutorial", json=body)
    assert r.status_code == 422, r.text
    assert error_code(r) == "malformed"


def test_the_coach_comes_back_after_a_restart(make_app: AppFactory) -> None:
    app = make_app()
    with TestClient(app) as c:
        table_id = start(c)["table"]["id"]
    app = make_app()
    with TestClient(app) as c:
        assert c.get(f"/api/tables/{table_id}").json()["seats"][1]["level"] == TUTORIAL_LEVEL
        assert isinstance(app.state.service.tables[table_id].bots[COACH], TutorialBot)


def test_the_guide_game_ends_and_play_again_is_an_ordinary_game(client: TestClient) -> None:
    made = start(client)
    table_id, token = made["table"]["id"], made["token"]
    for _ in range(1_000):
        current = state(client, table_id, token)
        if current["view"]["over"]:
            break
        legal = current["view"]["legal"]
        if legal:
            body = {"action": legal[0]["action"]}
            r = client.post(f"/api/tables/{table_id}/actions", json=body, headers=auth(token))
            assert r.status_code in (200, 409), r.text  # 409: the coach moved the game on
    else:
        pytest.fail("the guide's game did not end")
    assert current["breakdown"] is not None  # the end screen's scoring
    again = client.post(f"/api/tables/{table_id}/again", headers=auth(token))
    assert again.status_code == 200, again.text
    seats = again.json()["table"]["seats"]
    assert [(s["kind"], s["level"]) for s in seats] == [("human", None), ("bot", "easy")]
    assert again_level(None) is None
