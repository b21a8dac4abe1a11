"""The judges tried for telling ``hard`` from ``medium`` (``neural2:N``, ``search:N``) and the
probes that measure them (the contrast probe, the paired accuracy difference)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from gonuts.game import Game
from gonuts.record import Record
from gonuts.review import Analyser, contrast, judge, parse_analyser, review_record, validity
from gonuts.review.engine import neural_estimates
from gonuts.review.run import decision_rng
from gonuts.review.search import search_estimates
from gonuts.state import Phase

RECORDS = Path(__file__).parent.parent / "records"


def record(name: str) -> Record:
    return Record.from_json((RECORDS / name).read_text(encoding="utf-8"))


def views_at(name: str) -> list[tuple[int, Game]]:
    """(round, game) at every decision of more than one action in the record (a fresh game
    per decision)."""
    rec = record(name)
    game = Game.new(rec.players, deck=rec.initial_deck(), events=False)
    out = []
    for index, action in enumerate(rec.actions):
        if len(game.legal_actions(action.player)) > 1:
            out.append((index, action.player))
        game.apply(action.player, action.action)
    games = []
    for index, seat in out:
        g = Game.new(rec.players, deck=rec.initial_deck(), events=False)
        for action in rec.actions[:index]:
            g.apply(action.player, action.action)
        games.append((seat, g))
    return games


@pytest.mark.parametrize(
    ("spec", "expected"),
    [("neural2", Analyser("neural2", 64)), ("search:7", Analyser("search", 7))],
)
def test_parse_the_new_analysers(spec: str, expected: Analyser) -> None:
    assert parse_analyser(spec) == expected


def test_two_rounds_play_on_past_the_first() -> None:
    decisions = views_at("complete-2p.json")
    seat, early = decisions[2]
    view = early.view(seat)
    one = neural_estimates(view, 4, random.Random(1))
    two = neural_estimates(view, 4, random.Random(1), rounds=2)
    assert one != two  # the second round was played
    assert two == neural_estimates(view, 4, random.Random(1), rounds=2)
    seat, last = decisions[-1]  # two rounds from the last decision: every leaf is the result
    values = neural_estimates(last.view(seat), 1, random.Random(1), rounds=2)
    assert all(round(v * 100, 6).is_integer() for v in values)  # win share 0, 1/2, 1 ± margin


def test_search_values_every_action_from_the_view_alone() -> None:
    seat, game = views_at("complete-4p.json")[5]
    view = game.view(seat)
    values = search_estimates(view, 6, random.Random(2))
    assert len(values) == len(view.legal)
    assert values == search_estimates(view, 6, random.Random(2))
    assert all(-0.5 < v < 1.5 for v in values)  # the reward's scale: win share ± margin/100
    first = judge(view, parse_analyser("search:6"), decision_rng(0, 1))
    assert first.best == view.legal[max(range(len(values)), key=lambda i: first.values[i])]


@pytest.mark.parametrize("spec", ["neural2:2", "search:2"])
def test_a_review_with_the_new_analysers(spec: str) -> None:
    rec = record("complete-2p.json")
    short = Record(rec.players, rec.deck, None, rec.actions[:10])
    review = review_record(short, analyser=parse_analyser(spec), seed=0)
    assert review.decisions and review.analyser.spec == spec
    assert all(d.loss >= 0.0 for d in review.decisions)


def line(bots: list[str], accuracy: list[float]) -> dict[str, Any]:
    return {
        "bot": "neural:1",
        "bots": bots,
        "accuracy": accuracy,
        "ranks": [1.0, 2.0, 3.0, 4.0],
        "cpu_seconds": 1.0,
    }


def test_paired_difference_within_games() -> None:
    lines = [
        line(["hard", "medium", "easy", "random"], [90.0, 80.0, 70.0, 60.0]),
        line(["medium", "hard", "random", "easy"], [85.0, 87.0, 50.0, 72.0]),
        line(["medium", "medium", "easy", "random"], [85.0, 87.0, 50.0, 72.0]),  # no pair
    ]
    got = validity.paired_difference(lines, "hard", "medium")
    assert got["games"] == 2 and got["mean"] == 6.0 and got["ahead"] == 2
    assert got["ci95"][0] < 6.0 < got["ci95"][1]
    summary = validity.summarize(lines)
    assert summary["paired"]["hard-medium"]["games"] == 2


def test_contrast_summary() -> None:
    lines = [{"bot": "neural:1", "decisions": 5, "diffs": [0.1, -0.05, 0.0], "cpu_seconds": 3}]
    got = contrast.summarize(lines)
    assert got["contested"] == 3 and got["decisions"] == 5
    assert got["preferred_share"] == 0.5
    assert got["mean_difference"] == pytest.approx(0.0167, abs=1e-4)


def test_contrast_on_an_arena_record(tmp_path: Path) -> None:
    rec = record("complete-4p.json")
    payload = json.loads(rec.to_json())
    payload["bots"] = ["random", "medium", "medium", "easy"]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(payload), encoding="utf-8")
    got = contrast.contrast_game((str(path), "neural:2", 0, "easy", "medium"))
    assert got["decisions"] > 0
    assert 0 < len(got["diffs"]) <= got["decisions"]  # easy plays at random one time in three


def test_greedy_choices_pick_a_live_position_and_mostly_the_greedy_best() -> None:
    from gonuts import rules  # noqa: PLC0415
    from gonuts.bots.greedy import selection_scores  # noqa: PLC0415
    from gonuts.review.engine import greedy_choices  # noqa: PLC0415

    seat, game = views_at("complete-4p.json")[0]  # the first pick: everyone chooses at once
    view = game.view(seat)
    g = game.state.copy(events=False)
    others = [p for p in rules.to_act(g) if p != seat]
    assert others
    counts: dict[int, dict[int, int]] = {p: {} for p in others}
    for k in range(50):
        for p, a in greedy_choices(view, g, others, [(k + 0.5) / 50] * len(others)):
            assert a in rules.legal_ids(g, p)
            counts[p][a] = counts[p].get(a, 0) + 1
    from gonuts.bots.heuristics import make_context  # noqa: PLC0415
    from gonuts.cards import NUM_KINDS, kind_index  # noqa: PLC0415

    unseen = [0] * NUM_KINDS
    for kind, count in view.unseen.items():
        unseen[kind_index(kind)] = count
    ctx = make_context(g.n, view.deck_size, g.row, unseen)
    for p in others:
        scores = selection_scores(g, ctx, p)
        top = max(range(len(scores)), key=lambda i: scores[i])
        assert max(counts[p], key=lambda a: counts[p][a]) == top  # ids are positions - 1


def test_neural_greedy_models_the_others_picks_differently() -> None:
    seat, game = views_at("complete-4p.json")[0]
    view = game.view(seat)
    network = neural_estimates(view, 8, random.Random(3))
    greedy = neural_estimates(view, 8, random.Random(3), greedy_share=1.0)
    assert len(greedy) == len(view.legal) and greedy != network
    assert parse_analyser("neural-greedy") == Analyser("neural-greedy", 128)


def test_pick_collisions_count_shared_picks(tmp_path: Path) -> None:
    rec = record("complete-4p.json")
    payload = json.loads(rec.to_json())
    payload["bots"] = ["a", "b", "c", "d"]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(payload), encoding="utf-8")
    got = contrast.pick_collisions([path])
    rounds: list[list[str]] = []
    current: list[str] = []
    for action in rec.actions:
        if action.action.startswith("pick "):
            current.append(action.action)
            if len(current) == 4:
                rounds.append(current)
                current = []
    assert {row["picks"] for row in got.values()} == {len(rounds)}
    shared = sum(sum(r.count(a) > 1 for a in r) for r in rounds)
    assert sum(row["shared"] * row["picks"] for row in got.values()) == pytest.approx(
        shared, abs=0.01 * len(rounds)
    )


def test_neural_mixed_draws_between_the_two_models() -> None:
    seat, game = views_at("complete-4p.json")[0]
    view = game.view(seat)
    network = neural_estimates(view, 8, random.Random(3))
    greedy = neural_estimates(view, 8, random.Random(3), greedy_share=1.0)
    mixed = neural_estimates(view, 8, random.Random(3), greedy_share=0.5)
    assert mixed not in (network, greedy)
    assert parse_analyser("neural-mixed:16") == Analyser("neural-mixed", 16)


def test_greedy_scores_kept_for_a_view_are_the_ones_computed_afresh() -> None:
    # neural-greedy and neural-mixed compute greedy's scores once per view and public cards
    # (every sample of one view shares them): the same choices as computed at every sample.
    from gonuts import rules  # noqa: PLC0415
    from gonuts.bots.determinize import Determinizer  # noqa: PLC0415
    from gonuts.review.engine import GreedyKey, greedy_choices  # noqa: PLC0415

    picks = [
        (seat, game)
        for seat, game in views_at("complete-4p.json")
        if game.state.phase is Phase.SELECT
    ]
    assert len(picks) >= 5
    for seat, game in picks[:: max(1, len(picks) // 6)]:
        view = game.view(seat)
        det = Determinizer(view)
        rng = random.Random(seat)
        known: dict[GreedyKey, list[float]] = {}
        for k in range(12):
            g = det.sample(rng)
            others = [p for p in rules.to_act(g) if p != seat]
            quantiles = [((k * 7 + p) % 12 + 0.5) / 12 for p in others]
            kept = greedy_choices(view, g, others, quantiles, known=known)
            assert kept == greedy_choices(view, g, others, quantiles)
        assert 0 < len(known) <= 3  # one entry per other player: the samples share the cards


def test_neural_mixed_gives_every_combination_of_models_alike() -> None:
    # Which of the others pick as greedy is stratified over the samples: with 16 samples at four
    # players each of the 16 bit patterns once, so each other player is greedy in 8 of 16.
    from gonuts.review import engine  # noqa: PLC0415

    seat, game = views_at("complete-4p.json")[0]
    view = game.view(seat)
    seen: list[list[int]] = []
    real = engine.greedy_choices

    def spy(*args: Any, **kwargs: Any) -> list[tuple[int, int]]:
        seen.append(list(args[2]))
        return real(*args, **kwargs)

    engine.greedy_choices = spy
    try:
        engine.neural_estimates(view, 16, random.Random(5), greedy_share=0.5)
    finally:
        engine.greedy_choices = real
    others = [p for p in range(4) if p != seat]
    assert len(seen) == 16
    for p in others:
        assert sum(p in chosen for chosen in seen) == 8
