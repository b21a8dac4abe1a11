"""The action encoding round-trips, masks are the engine's legal actions, observations hide
nothing they must not show."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from envs.helpers import random_states
from gonuts import rules
from gonuts.actions import ACTIONS, NUM_ACTIONS
from gonuts.cards import KIND_IDS, deck_counts
from gonuts.envs import encoding as E  # noqa: N812
from gonuts.envs._core import engine_action
from gonuts.errors import NotYourTurnError
from gonuts.game import Game
from gonuts.state import Phase
from gonuts.view import make_view

PLAYERS = range(2, 7)


def test_layout_sizes() -> None:
    assert E.OBS_SIZE == sum(size for _, size in E.OBS_SECTIONS) == 538
    assert E.NUM_ENV_ACTIONS == NUM_ACTIONS == 521
    assert E.OBS_LOW.shape == E.OBS_HIGH.shape == (E.OBS_SIZE,)
    assert (E.OBS_LOW < E.OBS_HIGH).all()
    stops = [b for _, b in E.OBS_SLICES.values()]
    assert stops[-1] == E.OBS_SIZE


@pytest.mark.parametrize("players", PLAYERS)
def test_every_env_id_round_trips(players: int) -> None:
    for seat in range(players):
        seen: set[int] = set()
        for env_id in range(E.NUM_ENV_ACTIONS):
            act = ACTIONS[env_id]
            if act.seat is not None and act.seat >= players:
                with pytest.raises(ValueError):
                    E.from_env_action(env_id, seat, players)
                continue
            engine_id = E.from_env_action(env_id, seat, players)
            assert E.to_env_action(engine_id, seat, players) == env_id
            seen.add(engine_id)
        # every engine action of this table is reachable from exactly one env id
        at_table = {a.id for a in ACTIONS if a.seat is None or a.seat < players}
        assert seen == at_table


@pytest.mark.parametrize("players", PLAYERS)
def test_masks_equal_engine_legal_actions(players: int) -> None:
    checked = 0
    for state in random_states(players, games=3, seed=players):
        for seat in range(players):
            legal = list(rules.legal_ids(state, seat))
            view = make_view(state, seat)
            mask = E.action_mask(view)
            assert mask.dtype == np.int8
            env_ids = [E.to_env_action(i, seat, players) for i in legal]
            assert sorted(np.flatnonzero(mask).tolist()) == sorted(env_ids)
            assert len(set(env_ids)) == len(legal)
            for i, e in zip(legal, env_ids, strict=True):
                assert E.from_env_action(e, seat, players) == i
                assert E.env_action_to_action(e, seat, players) is ACTIONS[i]
            if legal:
                checked += 1
                seats = [ACTIONS[i].seat for i in legal if ACTIONS[i].seat is not None]
                # relative slots: never yourself
                assert all(ACTIONS[e].seat != 0 for e in env_ids if ACTIONS[e].seat is not None)
                assert all(s != seat for s in seats)
    assert checked > 50


@pytest.mark.parametrize("players", PLAYERS)
def test_observation_in_bounds_and_blind_to_hidden_information(players: int) -> None:
    rng = random.Random(players)
    for state in random_states(players, games=2, seed=10 + players):
        for seat in range(players):
            obs = E.encode_observation(make_view(state, seat))
            assert obs.dtype == np.float32 and obs.shape == (E.OBS_SIZE,)
            assert (obs >= E.OBS_LOW).all() and (obs <= E.OBS_HIGH).all()
            # Reorder the deck below its top two cards (which a seat may know through Double
            # Chocolate) and change the others' secret picks: the observation is unchanged.
            other = state.copy(events=False)
            hidden = other.deck[:-2]
            rng.shuffle(hidden)
            other.deck[:-2] = hidden
            if other.phase is Phase.SELECT:
                for p in range(players):
                    if p != seat and other.picks[p] >= 0:
                        other.picks[p] = rng.randrange(players + 1)
            again = E.encode_observation(make_view(other, seat))
            assert np.array_equal(obs, again)


def test_observation_sections_read_back() -> None:
    state = next(iter(random_states(4, games=1, seed=3)))
    view = make_view(state, 2)
    parts = E.describe_observation(E.encode_observation(view))
    assert parts["players"] == [0, 0, 1, 0, 0]
    assert parts["deck_size"] == [view.deck_size]
    assert parts["must_act"] == [1.0]
    row = np.array(parts["row"]).reshape(7, E.K + 1)
    assert row[:5].sum() == 5 and row[5:].sum() == 0  # 4 players: positions 1–5


def test_rewards() -> None:
    assert E.terminal_rewards([10, 12, 12], (1, 2)) == [0.0, 0.5, 0.5]
    assert E.terminal_rewards([10, 12, 11], (1,)) == [0.0, 1.0, 0.0]
    assert E.terminal_rewards([10, 12, 11], (1,), "score_diff") == [-2.0, 1.0, -1.0]
    with pytest.raises(ValueError, match="unknown reward"):
        E.terminal_rewards([1, 2], (1,), "elo")


def test_illegal_actions_substitute_or_raise() -> None:
    state = next(iter(random_states(3, games=1)))
    assert engine_action(state, 0, 2, "substitute") == (2, False)
    assert engine_action(state, 0, 400, "substitute") == (0, True)
    assert engine_action(state, 0, None, "substitute") == (0, True)
    assert engine_action(state, 0, np.int64(3), "substitute") == (3, False)
    with pytest.raises(ValueError, match="not legal"):
        engine_action(state, 0, 400, "raise")
    rules.apply(state, 0, 2)
    with pytest.raises(NotYourTurnError, match="seat 0 has no decision"):
        engine_action(state, 0, 3, "substitute")


@pytest.mark.parametrize("players", PLAYERS)
def test_observation_lists_seats_from_the_observer_leftwards(players: int) -> None:
    # Relative slot r is the seat r places to the observer's left, (seat + r) mod N: the one a
    # Cinnamon Twist passes to is slot 1. Every per-seat section is read back from the view.
    checked = 0
    for state in random_states(players, games=2, seed=20 + players):
        for me in range(players):
            view = make_view(state, me)
            parts = E.describe_observation(E.encode_observation(view))
            collections = np.array(parts["collections"]).reshape(6, E.K)
            selections = np.array(parts["selections"]).reshape(6, 7)
            for r in range(6):
                if r >= players:
                    assert not collections[r].any() and not selections[r].any()
                    assert parts["scores"][r] == parts["cards_owned"][r] == 0.0
                    continue
                p = (me + r) % players
                counts = {KIND_IDS[k]: int(c) for k, c in enumerate(collections[r]) if c}
                assert counts == dict(view.collections[p])
                assert parts["cards_owned"][r] == sum(view.collections[p].values())
                assert parts["scores"][r] == view.scores[p]
                assert parts["waiting_for"][r] == (1.0 if p in view.waiting_for else 0.0)
                assert parts["actor"][r] == (1.0 if view.actor == p else 0.0)
                pick = view.selections[p]
                assert selections[r].tolist() == [1.0 if pick == i + 1 else 0.0 for i in range(7)]
            checked += 1
    assert checked > 20


def test_observation_seat_order_example() -> None:
    # Seat 1 of 3 owns a Glazed, seat 2 a Plain: from seat 0, slot 1 holds the Glazed and slot 2
    # the Plain; from seat 1, slot 1 is seat 2 (the Plain) and slot 2 is seat 0 (nothing).
    game = Game.new(3, deck=["plain", "glazed", "plain", "powdered", *_rest(3)], events=False)
    game.apply(0, "pick 4")
    game.apply(1, "pick 2")
    game.apply(2, "pick 3")
    coll = slice(*E.OBS_SLICES["collections"])
    glazed, plain = KIND_IDS.index("glazed"), KIND_IDS.index("plain")

    def owned(seat: int) -> list[list[int]]:
        obs = E.encode_observation(game.view(seat))[coll].reshape(6, E.K)
        return [sorted(np.flatnonzero(obs[r]).tolist()) for r in range(3)]

    assert game.collection(1) == {"glazed": 1} and game.collection(2) == {"plain": 1}
    powdered = KIND_IDS.index("powdered")
    assert owned(0) == [[powdered], [glazed], [plain]]
    assert owned(1) == [[glazed], [plain], [powdered]]
    assert owned(2) == [[plain], [powdered], [glazed]]


def _rest(players: int) -> list[str]:
    rest = Counter({KIND_IDS[k]: c for k, c in enumerate(deck_counts(players)) if c})
    rest.subtract(["plain", "glazed", "plain", "powdered"])
    return sorted(rest.elements())
