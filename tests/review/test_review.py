"""The review library: JSON shape, determinism, seats, progress and cancelling, and that a
decision is judged on the deciding seat's view alone (no deck order, no secret picks)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from gonuts.errors import RecordError
from gonuts.game import Game
from gonuts.record import Record, RecordedAction
from gonuts.review import (
    Analyser,
    ReviewCancelledError,
    judge,
    label,
    parse_analyser,
    review_record,
)
from gonuts.review.engine import normalized_values
from gonuts.review.run import decision_rng

RECORDS = Path(__file__).parent.parent / "records"
SMALL = Analyser("neural", 3)
TOP_LEVEL = {"players", "analyser", "accuracy", "decisions", "graph"}
DECISION_KEYS = {"index", "seat", "action", "best", "win_prob", "best_win_prob", "loss", "label"}


def record(name: str) -> Record:
    return Record.from_json((RECORDS / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def two_player_review() -> dict[str, Any]:
    return review_record(record("complete-2p.json"), analyser=SMALL, seed=5).to_dict()


def test_json_has_exactly_the_documented_top_level(two_player_review: dict[str, Any]) -> None:
    assert set(two_player_review) == TOP_LEVEL


def test_every_decision_of_more_than_one_action_is_judged_once(
    two_player_review: dict[str, Any],
) -> None:
    rec = record("complete-2p.json")
    game = Game.new(rec.players, deck=rec.initial_deck(), events=False)
    expected = []
    for index, action in enumerate(rec.actions):
        if len(game.legal_actions(action.player)) > 1:
            expected.append((index, action.player, action.action))
        game.apply(action.player, action.action)
    decisions = two_player_review["decisions"]
    assert isinstance(decisions, list)
    assert [(d["index"], d["seat"], d["action"]) for d in decisions] == expected
    for d in decisions:
        assert set(d) >= DECISION_KEYS
        assert 0.0 <= d["win_prob"] <= 1.0 and 0.0 <= d["best_win_prob"] <= 1.0
        assert d["loss"] >= 0.0
        assert d["label"] == label(d["loss"])
        if d["best"] == d["action"]:
            assert d["loss"] == 0.0
        else:  # the best has the higher win probability unless both are clipped at 0 or 1
            assert d["best_win_prob"] >= d["win_prob"]


def test_accuracy_graph_and_players(two_player_review: dict[str, Any]) -> None:
    accuracy = two_player_review["accuracy"]
    assert isinstance(accuracy, list) and len(accuracy) == 2
    assert all(isinstance(a, float) and 0.0 <= a <= 100.0 for a in accuracy)
    graph = two_player_review["graph"]
    assert isinstance(graph, list)
    rounds = [p["round"] for p in graph if not p["end"]]
    assert rounds == list(range(1, len(rounds) + 1))
    assert graph[-1]["end"] is True and graph[-1]["win_prob"] == [1.0, 0.0]  # Ana won
    for point in graph:
        assert sum(point["win_prob"]) == pytest.approx(1.0, abs=1e-3)
    players = two_player_review["players"]
    assert isinstance(players, list)
    assert [p["name"] for p in players] == ["Ana", "Ben"]
    assert sum(sum(p["counts"].values()) for p in players) == len(two_player_review["decisions"])


def test_the_same_seed_gives_the_same_review_and_another_seed_another() -> None:
    rec = record("complete-3p.json")
    first = review_record(rec, analyser=SMALL, seed=1).to_dict()
    assert review_record(rec, analyser=SMALL, seed=1).to_dict() == first
    other = review_record(rec, analyser=SMALL, seed=2).to_dict()
    assert [d["win_prob"] for d in other["decisions"]] != [
        d["win_prob"] for d in first["decisions"]
    ]


def test_players_only_judges_those_seats_exactly_as_a_full_review() -> None:
    rec = record("complete-3p.json")
    full = review_record(rec, analyser=SMALL, seed=3)
    some = review_record(rec, analyser=SMALL, seed=3, seats=[2])
    assert some.seats == (2,) and some.decisions
    assert some.decisions == tuple(d for d in full.decisions if d.seat == 2)
    assert some.accuracy(0) is None and some.accuracy(2) == full.accuracy(2)
    with pytest.raises(ValueError, match="no seat 3"):
        review_record(rec, analyser=SMALL, seats=[3])


def test_progress_counts_every_decision_and_cancel_stops() -> None:
    rec = record("complete-2p.json")
    calls: list[tuple[int, int]] = []
    review = review_record(rec, analyser=SMALL, progress=lambda d, t: calls.append((d, t)))
    total = len(review.decisions)
    assert calls == [(i, total) for i in range(total + 1)]
    asked = []

    def cancelled() -> bool:
        asked.append(1)
        return len(asked) > 4

    with pytest.raises(ReviewCancelledError, match="after 4 of"):
        review_record(rec, analyser=SMALL, cancelled=cancelled)


def test_a_bad_record_is_a_record_error_before_any_search() -> None:
    rec = record("complete-2p.json")
    bad = Record(rec.players, rec.deck, rec.seed, (*rec.actions[:3], RecordedAction(0, "pick 9")))
    with pytest.raises(RecordError, match="action 3"):
        review_record(bad, analyser=SMALL, progress=lambda d, t: pytest.fail("searched"))


# -- the seat's own view, nothing more ------------------------------------------------------------


def cut_points(rec: Record) -> list[int]:
    """Action indexes with more than one legal action and no private deck knowledge."""
    game = Game.new(rec.players, deck=rec.initial_deck(), events=False)
    out = []
    for index, action in enumerate(rec.actions):
        if len(game.legal_actions(action.player)) > 1 and not game.state.known:
            out.append(index)
        game.apply(action.player, action.action)
    return out


@pytest.mark.parametrize("name", ["complete-4p.json", "complete-3p.json"])
def test_a_review_does_not_change_when_the_unseen_deck_is_permuted(name: str) -> None:
    rec = record(name)
    rng = random.Random(7)
    for index in rng.sample(cut_points(rec)[:-3], 4):
        prefix = rec.actions[: index + 1]
        game = Game.new(rec.players, deck=rec.initial_deck(), events=False)
        for action in rec.actions[:index]:
            game.apply(action.player, action.action)
        dealt = len(rec.initial_deck()) - game.deck_size
        deck = list(rec.initial_deck())
        rest = deck[dealt:]
        while rest == deck[dealt:]:
            rng.shuffle(rest)
        same = Record(rec.players, tuple(deck), None, prefix)
        permuted = Record(rec.players, tuple(deck[:dealt] + rest), None, prefix)
        a = review_record(same, analyser=SMALL, seed=4).to_dict()
        b = review_record(permuted, analyser=SMALL, seed=4).to_dict()
        assert a["decisions"] == b["decisions"] and a["graph"] == b["graph"]
        assert a["decisions"][-1]["index"] == index


def test_an_earlier_secret_pick_of_another_seat_does_not_change_the_judgement() -> None:
    rec = record("complete-4p.json")
    game = Game.new(rec.players, deck=rec.initial_deck(), events=False)
    found = None
    picked: dict[int, int] = {}
    for index, action in enumerate(rec.actions):
        if action.action.startswith("pick"):
            if picked and action.player not in picked:
                found = (index, next(iter(picked)))
                break
            picked[action.player] = index
        else:
            picked.clear()
        game.apply(action.player, action.action)
    assert found is not None
    index, earlier_seat = found
    earlier = picked[earlier_seat]
    actions = list(rec.actions[: index + 1])
    taken = actions[earlier].action
    other = "pick 1" if taken != "pick 1" else "pick 2"
    changed = list(actions)
    changed[earlier] = RecordedAction(earlier_seat, other)
    seat = actions[index].player
    a = review_record(
        Record(rec.players, rec.deck, None, tuple(actions)), analyser=SMALL, seed=9, seats=[seat]
    )
    b = review_record(
        Record(rec.players, rec.deck, None, tuple(changed)), analyser=SMALL, seed=9, seats=[seat]
    )
    assert a.decisions[-1].index == index
    assert a.decisions == b.decisions


def test_judge_reads_the_view_only() -> None:
    game = Game.new(4, seed=3, events=False)
    view = game.view(1)
    first = judge(view, SMALL, decision_rng(0, 0))
    assert judge(view, SMALL, decision_rng(0, 0)) == first
    assert first.actions == view.legal and first.best in view.legal
    with pytest.raises(ValueError, match="decision"):
        judge(game.public_view(), SMALL, decision_rng(0, 0))


@pytest.mark.parametrize("spec", ["mcts:30", "neural-mcts:20"])
def test_the_bots_searches_as_analysers(spec: str) -> None:
    rec = record("complete-2p.json")
    short = Record(rec.players, rec.deck, None, rec.actions[:8])
    review = review_record(short, analyser=parse_analyser(spec), seed=0)
    assert review.decisions and review.analyser.spec == spec
    for d in review.decisions:
        assert d.loss >= 0.0


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("neural", Analyser("neural", 128)),
        ("mcts:200", Analyser("mcts", 200)),
        ("neural-mcts:5", Analyser("neural-mcts", 5)),
    ],
)
def test_parse_analyser(spec: str, expected: Analyser) -> None:
    assert parse_analyser(spec) == expected


@pytest.mark.parametrize("spec", ["greedy", "neural:0", "mcts:x", "mcts:1.5s", "neural:-3", ""])
def test_parse_analyser_refuses(spec: str) -> None:
    with pytest.raises(ValueError, match=r"analyser|budget"):
        parse_analyser(spec)


def test_normalized_values_are_a_distribution() -> None:
    assert normalized_values([0.8, 0.8, 0.8, 0.8]) == [0.25] * 4
    assert normalized_values([-0.2, 0.6, 0.2]) == pytest.approx([0.0, 0.75, 0.25])
    assert normalized_values([-1.0, -1.0]) == [0.5, 0.5]
