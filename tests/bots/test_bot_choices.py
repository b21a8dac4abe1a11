"""Bots choose well, not only legally: each test here fails if a decision rule is turned around
(a random or worst choice, a flipped sign, a shared victory counted as a full one)."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterator

import pytest

from bots.test_bots import random_positions
from gonuts import rules
from gonuts.actions import ACTIONS, DISCARD_POSITION_BASE, Action, Verb
from gonuts.bots import GreedyBot, MCTSBot, search
from gonuts.bots.determinize import Determinizer
from gonuts.bots.greedy import DENIAL, pick_probabilities, position_values, selection_scores
from gonuts.bots.heuristics import card_values, make_context
from gonuts.bots.mcts import Stats, _rewards
from gonuts.cards import KIND_IDS, NUM_KINDS, deck_counts
from gonuts.envs.encoding import describe_observation, encode_observation, terminal_rewards
from gonuts.game import Game
from gonuts.scoring import scores
from gonuts.state import GameConfig, GameState, Phase
from gonuts.view import PlayerView, make_view

K = NUM_KINDS
INDEX = {kind: i for i, kind in enumerate(KIND_IDS)}


def decisions(phase: Phase, players: range, seeds: range, every: int = 1) -> Iterator[PlayerView]:
    """Views of seats with a real choice (two or more legal actions) in ``phase``, at one
    decision point in ``every`` along random games."""
    for seed in seeds:
        for i, game in enumerate(random_positions(seed, players[seed % len(players)])):
            if game.phase is phase and i % every == 0:
                for seat in game.to_act:
                    view = game.view(seat)
                    if len(view.legal) > 1:
                        yield view


def public_state(view: PlayerView) -> GameState:
    """A state with ``view``'s public facts (the deck order is irrelevant to what is tested)."""
    return Determinizer(view).sample(random.Random(0))


# -- greedy: selections ----------------------------------------------------------------------------


def test_greedy_selects_near_its_best_scored_position() -> None:
    # The bot samples a softmax at temperature 0.3 point over its selection scores: a position
    # scored 3 points below the best has a chance of e^-10 per decision. Random play would
    # take such positions often.
    checked = far_behind = best_taken = 0
    uniform = 0.0
    for view in decisions(Phase.SELECT, range(2, 7), range(12), every=7):
        seat = view.seat
        assert seat is not None
        g = public_state(view)
        unseen = [view.unseen.get(kind, 0) for kind in KIND_IDS]
        ctx = make_context(g.n, view.deck_size, g.row, unseen)
        position_scores = selection_scores(g, ctx, seat)
        chosen = GreedyBot(checked).choose(view)
        assert chosen.position is not None
        top = max(position_scores)
        assert position_scores[chosen.position - 1] > top - 3.0, (position_scores, chosen)
        far_behind += sum(1 for s in position_scores if s < top - 3.0)
        best_taken += position_scores[chosen.position - 1] == top
        uniform += 1 / len(view.legal)
        checked += 1
    assert checked > 100
    assert far_behind > 0.1 * checked  # the bound above was tested on many poor positions
    assert best_taken > 2 * uniform  # the best position, far more often than at random


# -- greedy: French Cruller ------------------------------------------------------------------------


def test_greedy_cruller_discards_cards_worth_more_to_an_opponent() -> None:
    # docs: French Cruller discards the row card whose worth to the best-placed opponent exceeds
    # its worth to the bot by the most (over one point); with none, the bot stops.
    discarded = stopped = 0
    for view in decisions(Phase.FRENCH_CRULLER, range(2, 7), range(60)):
        seat = view.seat
        assert seat is not None
        g = public_state(view)
        unseen = [view.unseen.get(kind, 0) for kind in KIND_IDS]
        ctx = make_context(g.n, view.deck_size, g.row, unseen)
        mine = card_values(g.coll, ctx, seat)
        others = [card_values(g.coll, ctx, p) for p in range(g.n) if p != seat]

        options = {
            a: max(o[kind] for o in others) - mine[kind] - 1.0
            for a in view.legal
            if a.verb is Verb.DISCARD_POSITION
            for kind in (g.row[a.id - DISCARD_POSITION_BASE],)
        }
        chosen = GreedyBot(0).choose(view)
        if chosen.verb is Verb.STOP:
            assert all(v <= 0.0 for v in options.values())
            stopped += 1
        else:
            assert options[chosen] > 0.0
            assert options[chosen] == max(options.values())
            discarded += 1
    assert discarded >= 5 and stopped >= 5


# -- a last decision with a known outcome ---------------------------------------------------------


def red_velvet_endgame() -> GameState:
    """Three players, the deck empty, seat 0 resolving a Red Velvet in the last round.

    Seat 0 owns a Red Velvet (-2), seat 1 a Red Velvet and a Glazed (0 points), seat 2 nothing;
    seats 1 and 2 both picked position 4 (contested: discarded). Whatever seat 0 takes from the
    discard pile, the game then ends: Powdered or Plain win it, Glazed, Sprinkled or a French
    Cruller tie seat 1 on points and cards (a shared victory), anything else loses.
    """
    n = 3
    row = [None, "glazed", "plain", "powdered"]
    owned: tuple[list[str], ...] = (["red_velvet"], ["red_velvet", "glazed"], [])
    rest = Counter({KIND_IDS[k]: c for k, c in enumerate(deck_counts(n)) if c})
    rest.subtract([c for c in row if c is not None])
    for cards in owned:
        rest.subtract(cards)
    coll = [0] * (n * K)
    for p, cards in enumerate(owned):
        for card in cards:
            coll[p * K + INDEX[card]] += 1
    return GameState(
        GameConfig(("ann", "bob", "cy"), ()),
        deck=[],
        row=[-1 if c is None else INDEX[c] for c in row],
        discard=[INDEX[c] for c in sorted(rest.elements())],
        coll=coll,
        picks=[0, 3, 3],
        phase=Phase.RED_VELVET,
        actor=0,
        pos=0,
    )


def outcome(state: GameState, action: Action) -> float:
    """Seat 0's exact win share after ``action`` (the game ends at once)."""
    after = state.copy(events=False)
    rules.apply(after, 0, action.id)
    assert after.phase is Phase.OVER
    return terminal_rewards(scores(after.coll, after.n), after.winners)[0]


def test_endgame_outcomes_are_wins_ties_and_losses() -> None:
    state = red_velvet_endgame()
    view = make_view(state, 0)
    assert view.deck_size == 0 and not view.unseen
    shares = {a.notation: outcome(state, a) for a in view.legal}
    assert {k for k, v in shares.items() if v == 1.0} == {"take powdered", "take plain"}
    ties = {"take glazed", "take sprinkled", "take french_cruller"}
    assert {k for k, v in shares.items() if v == 0.5} == ties
    assert sum(1 for v in shares.values() if v == 0.0) == len(shares) - 5


def test_search_win_estimates_are_exact_when_the_outcome_is_certain() -> None:
    # Every simulation of an action ends the same way: its mean win share is the exact one
    # (a shared victory counts one half, not a full win).
    state = red_velvet_endgame()
    view = make_view(state, 0)
    result = search(view, random.Random(3), iterations=600)
    assert not result.simultaneous
    for estimate in result.estimates:
        assert estimate.visits > 0
        assert estimate.win_probability == pytest.approx(outcome(state, estimate.action))
    assert outcome(state, result.best.action) == 1.0


@pytest.mark.parametrize("mixed", [False, True])
def test_search_bot_plays_its_most_visited_action(mixed: bool) -> None:
    state = red_velvet_endgame()
    view = make_view(state, 0)
    for seed in range(3):
        result = search(view, random.Random(seed), iterations=300, mixed=mixed)
        visits = {e.action: e.visits for e in result.estimates}
        assert result.best.visits == max(visits.values())
        # The bot's own rng makes the same search, then plays its result.
        chosen = MCTSBot(seed, iterations=300, mixed=mixed).choose(view)
        assert chosen is result.best.action
        assert visits[chosen] == max(visits.values())
        assert outcome(state, chosen) == 1.0


def test_greedy_power_choice_takes_a_winning_card() -> None:
    state = red_velvet_endgame()
    view = make_view(state, 0)
    for seed in range(5):
        assert outcome(state, GreedyBot(seed).choose(view)) == 1.0


def test_search_rewards_split_a_shared_victory() -> None:
    state = red_velvet_endgame()
    tie = state.copy(events=False)
    rules.apply(tie, 0, _take(tie, "glazed"))
    rewards, wins, totals = _rewards(tie)
    assert tie.winners == (0, 1)
    assert wins == [0.5, 0.5, 0.0]
    assert totals == scores(tie.coll, 3)
    assert rewards[0] == rewards[1] > rewards[2]
    assert all(0.0 <= r <= 1.0 for r in rewards)
    win = state.copy(events=False)
    rules.apply(win, 0, _take(win, "powdered"))
    rewards_win, wins_win, _ = _rewards(win)
    assert wins_win == [1.0, 0.0, 0.0]
    assert rewards_win[0] > rewards[0]  # a sole victory is worth more than a shared one
    assert math.isclose(sum(wins_win), 1.0) and math.isclose(sum(wins), 1.0)


def _take(state: GameState, kind: str) -> int:
    return next(i for i in rules.legal_ids(state, 0) if ACTIONS[i].notation == f"take {kind}")


# -- greedy: Milk ----------------------------------------------------------------------------------


def milk_decision(owned: list[str]) -> PlayerView:
    """Seat 0's view of :func:`milk_state`."""
    view = make_view(milk_state(owned), 0)
    assert "discard milk" in {a.notation for a in view.legal}
    return view


def milk_state(owned: list[str]) -> GameState:
    """Four players; seat 0 has just taken the Milk and owns ``owned`` besides it; seats 1-3
    took Glazed, Plain and Coffee at positions 2-4; the rest of the cards are in the deck."""
    n = 4
    row = [None, "glazed", "plain", "coffee", "donut_holes"]
    taken: tuple[list[str], ...] = (["milk", *owned], ["glazed"], ["plain"], ["coffee"])
    rest = Counter({KIND_IDS[k]: c for k, c in enumerate(deck_counts(n)) if c})
    rest.subtract([c for c in row if c is not None])
    coll = [0] * (n * K)
    for p, cards in enumerate(taken):
        rest.subtract(cards)
        for card in cards:
            coll[p * K + INDEX[card]] += 1
    assert min(rest.values()) >= 0
    return GameState(
        GameConfig(("ann", "bob", "cy", "dee"), ()),
        deck=[INDEX[c] for c in sorted(rest.elements())],
        row=[-1 if c is None else INDEX[c] for c in row],
        coll=coll,
        picks=[0, 1, 2, 3],
        phase=Phase.MILK,
        actor=0,
        pos=0,
    )


def test_greedy_milk_discards_three_bad_cards_rather_than_the_milk() -> None:
    # Three negative cards (-2, -2, -7) against a Milk worth 5: discard the three.
    view = milk_decision(["red_velvet", "bear_claw", "day_old"])
    for seed in range(3):
        choice = GreedyBot(seed).choose(view)
        assert choice.notation == "discard day_old", choice  # the worst card first


def test_greedy_milk_keeps_three_good_cards_and_drops_the_milk() -> None:
    # Three Powdered (3 points each) against a Milk worth 5: discard the Milk.
    view = milk_decision(["powdered", "powdered", "powdered"])
    for seed in range(3):
        assert GreedyBot(seed).choose(view).notation == "discard milk"


# -- greedy: Cinnamon Twist ------------------------------------------------------------------------


def twist_decision() -> PlayerView:
    """Four players; seat 0 resolves its Cinnamon Twist owning a Jelly-Filled and a Boston
    Cream. Seat 1 (on its left, who receives its pass) owns three Jelly-Filled: a fourth is
    worth 5 points to them; seat 3 (on its right) owns three Boston Cream: a fourth, 15."""
    n = 4
    row = [None, "glazed", "plain", "coffee", "powdered"]
    owned: tuple[list[str], ...] = (
        ["cinnamon_twist", "jelly_filled", "boston_cream"],
        ["jelly_filled"] * 3,
        ["plain", "glazed"],
        ["boston_cream"] * 3,
    )
    rest = Counter({KIND_IDS[k]: c for k, c in enumerate(deck_counts(n)) if c})
    rest.subtract([c for c in row if c is not None])
    coll = [0] * (n * K)
    for p, cards in enumerate(owned):
        rest.subtract(cards)
        for card in cards:
            coll[p * K + INDEX[card]] += 1
    state = GameState(
        GameConfig(("ann", "bob", "cy", "dee"), ()),
        deck=[INDEX[c] for c in sorted(rest.elements())],
        row=[-1 if c is None else INDEX[c] for c in row],
        coll=coll,
        picks=[0, 1, 2, 3],
        phase=Phase.CINNAMON_TWIST,
        actor=0,
        pos=0,
        passes=[-1] * n,
    )
    view = make_view(state, 0)
    assert {a.notation for a in view.legal} == {"pass jelly_filled", "pass boston_cream"}
    return view


def test_greedy_twist_passes_what_helps_its_left_neighbour_least() -> None:
    view = twist_decision()
    for seed in range(3):
        assert GreedyBot(seed).choose(view).notation == "pass boston_cream"


def test_selection_scores_follow_the_opponent_model() -> None:
    # docs: a position is worth its value to the bot times the chance that no opponent picks
    # it, plus (weighted by DENIAL, averaged over opponents) the value it denies an opponent
    # who would have taken it alone; opponents pick by pick_probabilities over their values.
    checked = 0
    for view in decisions(Phase.SELECT, range(2, 5), range(4), every=11):
        seat = view.seat
        assert seat is not None
        g = public_state(view)
        unseen = [view.unseen.get(kind, 0) for kind in KIND_IDS]
        ctx = make_context(g.n, view.deck_size, g.row, unseen)
        mine = position_values(g, ctx, seat)
        others = [p for p in range(g.n) if p != seat]
        values = {p: position_values(g, ctx, p) for p in others}
        probs = {p: pick_probabilities(values[p]) for p in others}
        for i, score in enumerate(selection_scores(g, ctx, seat)):
            if mine[i] == -math.inf:
                assert score == -math.inf
                continue
            free = math.prod(1.0 - probs[p][i] for p in others)
            denied = sum(
                probs[p][i]
                * math.prod(1.0 - probs[q][i] for q in others if q != p)
                * max(0.0, values[p][i])
                for p in others
            )
            assert score == pytest.approx(mine[i] * free + DENIAL * denied / len(others))
            checked += 1
    assert checked > 30


def test_pick_probabilities_prefer_higher_values() -> None:
    probs = pick_probabilities([1.0, 5.0, -math.inf, 3.0])
    assert sum(probs) == pytest.approx(1.0)
    assert probs[2] == 0.0
    assert probs[1] > probs[3] > probs[0] > 0.0


def test_search_rewards_rank_losers_by_score() -> None:
    # Taking the Éclair hands the game to seat 1; of the two losers, seat 2 (0 points) ends
    # ahead of seat 0 (-2 points): its reward is higher (the score margin's share).
    state = red_velvet_endgame()
    lost = state.copy(events=False)
    rules.apply(lost, 0, _take(lost, "eclair"))
    rewards, wins, totals = _rewards(lost)
    assert lost.winners == (1,) and wins == [0.0, 1.0, 0.0]
    assert totals[2] > totals[0]
    assert rewards[1] > rewards[2] > rewards[0] >= 0.0


def test_mixed_search_plays_only_near_best_selections() -> None:
    # docs: with mixed=True a simultaneous root is played from the visit frequencies of the
    # near-best actions (at least half the most visits), never from the rarely visited ones.
    game = Game.new(4, seed=21)
    view = game.view(2)
    result = search(view, random.Random(2), iterations=400, mixed=True)
    assert result.simultaneous
    top = max(e.visits for e in result.estimates)
    played = [e for e in result.estimates if e.probability > 0.0]
    assert played and all(e.visits >= 0.5 * top for e in played)
    assert sum(e.probability for e in played) == pytest.approx(1.0)
    rare = [e for e in result.estimates if e.visits < 0.5 * top]
    assert rare and all(e.probability == 0.0 for e in rare)


def test_views_count_the_milk_discards() -> None:
    # The step of a Milk (cards discarded so far) is public: every seat's view shows it, and
    # so does the observation; the seat discarding may not discard the Milk once it has begun.
    state = milk_state(["red_velvet", "bear_claw", "day_old", "glazed", "maple_bar"])
    for step, card in enumerate(["day_old", "red_velvet"], start=1):
        rules.apply(state, 0, _discard(state, card))
        views = [make_view(state, p) for p in range(4)]
        assert [v.step for v in views] == [step] * 4
        assert [v.resolving for v in views] == [1] * 4 and views[2].actor == 0
        assert "discard milk" not in {a.notation for a in views[0].legal}
        parts = describe_observation(encode_observation(views[1]))
        assert parts["step"] == [float(step)]


def _discard(state: GameState, kind: str) -> int:
    return next(i for i in rules.legal_ids(state, 0) if ACTIONS[i].notation == f"discard {kind}")


def test_determinization_keeps_the_seats_own_pass_and_hides_the_others() -> None:
    view = twist_decision()
    state = public_state(view)
    assert state.passes[0] == -1  # nothing chosen yet
    # Seats 1 and 3 own one kind each: their passes are forced, made at once in the sample;
    # seat 2 has a choice.
    assert state.passes[1] == INDEX["jelly_filled"] and state.passes[3] == INDEX["boston_cream"]
    assert state.passes[2] == -1
    for seed in range(5):
        sample = Determinizer(view).sample(random.Random(seed))
        assert sample.passes == state.passes and sample.passes is not state.passes


def test_determinization_keeps_a_chosen_pass() -> None:
    # Seat 0 has passed its Jelly-Filled; seat 2 still chooses. Seat 0's samples keep its
    # pass; seat 2's, which cannot see it, leave it pending (and keep seat 2's own choice open).
    view = twist_decision()
    state = public_state(view)
    real = GameState(
        state.config,
        deck=state.deck,
        row=state.row,
        coll=state.coll,
        picks=state.picks,
        phase=state.phase,
        actor=0,
        pos=0,
        passes=[INDEX["jelly_filled"], *state.passes[1:]],
    )
    mine, theirs = make_view(real, 0), make_view(real, 2)
    assert mine.my_pass == "jelly_filled" and theirs.my_pass is None
    assert public_state(mine).passes == [INDEX["jelly_filled"], *state.passes[1:]]
    assert public_state(theirs).passes[0] == -1 and public_state(theirs).passes[2] == -1


def test_regret_matching_favours_the_action_that_did_better() -> None:
    stats = Stats()
    stats.update(1, 1.0, 1.0, 10.0)
    stats.update(2, 0.0, 0.0, 2.0)
    stats.update_regret([1, 2], 0.0)  # action 2 was just played and earned 0
    assert stats.regret_strategy([1, 2]) == [1.0, 0.0]
    stats.update_regret([1, 2], 1.0)  # then action 1, earning 1: no regret either way
    assert stats.regret_strategy([1, 2]) == [1.0, 0.0]
    fresh = Stats()
    assert fresh.regret_strategy([3, 4, 5]) == [1 / 3, 1 / 3, 1 / 3]


def test_a_search_plans_with_the_house_rules_in_play() -> None:
    """The view carries the variants and a determinized sample plays by them, not the default."""
    game = Game.new(["Ana", "Ben", "Cy"], seed=5, variants=["milk_any_three", "twist_pass_any"])
    view = game.view(0)
    assert view.variants == frozenset({"milk_any_three", "twist_pass_any"})
    assert Determinizer(view).sample(random.Random(0)).config.variants == view.variants
    assert Game.new(["Ana", "Ben"], seed=5).view(1).variants == frozenset()
