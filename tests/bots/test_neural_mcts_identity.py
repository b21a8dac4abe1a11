"""The compiled ``neural-mcts`` (puct + observe) searches exactly as the code it replaced.

The reference (``reference_neural_mcts.py``) is the search as it was before: views of every
seat at every leaf, ``encode_observation``, one softmax per player. Same seed and view, same
network: the root statistics (visits and backed-up worth of every action) must be equal, not
close; then the decision (the most visited action) is equal too, and so is the strength.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from gonuts import rules
from gonuts.bots import make_bot, neural_mcts
from gonuts.bots.determinize import Determinizer
from gonuts.bots.neural import shipped_network
from gonuts.bots.observe import OBS_SIZE, SECTION_SIZES, encode_state, env_ids
from gonuts.envs.encoding import NUM_ENV_ACTIONS, OBS_SECTIONS, encode_observation, to_env_action
from gonuts.game import Game
from gonuts.state import GameState
from gonuts.view import PlayerView, make_view

from . import reference_neural_mcts as reference


def random_states(players: int, games: int, seed: int) -> list[GameState]:
    """Every state of ``games`` random games (powers, ends of rounds and of the game included)."""
    out = []
    for g in range(games):
        game = Game.new(players, seed=seed + g)
        rng = random.Random(seed + g)
        while not game.is_over:
            out.append(game.state.copy())
            seat = game.to_act[int(rng.random() * len(game.to_act))]
            legal = game.legal_actions(seat)
            game.apply(seat, legal[int(rng.random() * len(legal))])
        out.append(game.state.copy())
    return out


def dense(g: GameState, seat: int) -> np.ndarray:
    idx: list[int] = []
    val: list[float] = []
    encode_state(g, seat, 0, idx, val)
    assert len(set(idx)) == len(idx)  # each index once: a scatter, not a sum
    obs = np.zeros(OBS_SIZE, np.float32)
    obs[idx] = val
    return obs


def test_layout_is_the_encoding_modules() -> None:
    assert SECTION_SIZES == OBS_SECTIONS
    assert sum(size for _, size in SECTION_SIZES) == OBS_SIZE


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_env_ids_are_to_env_action(players: int) -> None:
    ids = list(range(NUM_ENV_ACTIONS))
    for seat in range(players):
        expected = []
        for a in ids:
            try:
                expected.append(to_env_action(a, seat, players))
            except (KeyError, ValueError):  # pragma: no cover - every id maps
                expected.append(-1)
        got = env_ids(ids, seat, players)
        # ids naming a seat beyond the table are never legal; compare the ones that exist
        real = [i for i, a in enumerate(ids) if (rules_seat(a) or 0) < players]
        assert [got[i] for i in real] == [expected[i] for i in real]


def rules_seat(action_id: int) -> int | None:
    from gonuts.actions import ACTIONS  # noqa: PLC0415

    return ACTIONS[action_id].seat


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_state_encoding_is_the_views(players: int) -> None:
    """Every seat's observation of every state of random games, and of determinized samples
    (where a sampled opponent's secret choice is pending again), as the view encodes it."""
    states = random_states(players, 4, 100 * players)
    rng = random.Random(players)
    for g in states[::7]:
        for seat in rules.to_act(g):
            states.append(Determinizer(make_view(g, seat)).sample(rng))
    checked = 0
    for g in states:
        for seat in range(players):
            expected = encode_observation(make_view(g, seat))
            assert np.array_equal(dense(g, seat), expected), (players, seat, g.phase)
            checked += 1
    assert checked > 150 * players


def positions(players: int, count: int, seed: int) -> list[PlayerView]:
    """Views of decisions with a choice, spread over seeded random games."""
    out: list[PlayerView] = []
    game_seed = seed
    while len(out) < count:
        game = Game.new(players, seed=game_seed)
        rng = random.Random(game_seed)
        step = 0
        while not game.is_over and len(out) < count:
            seat = game.to_act[0]
            view = game.view(seat)
            if len(view.legal) > 1 and step % 5 == rng.randrange(5):
                out.append(view)
            legal = game.legal_actions(seat)
            game.apply(seat, legal[int(rng.random() * len(legal))])
            step += 1
        game_seed += 1
    return out


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_search_visits_exactly_as_before(players: int) -> None:
    net = shipped_network(players)
    for i, view in enumerate(positions(players, 8, 7 * players)):
        new = neural_mcts._search(view, random.Random(i), net, 150, None, exact=True)
        old = reference._search(view, random.Random(i), net, 150, None)
        assert new.iterations == old.iterations == 150
        assert new.simultaneous == old.simultaneous
        assert (new.stats is None) == (old.stats is None)
        if new.stats is not None and old.stats is not None:
            assert new.stats.visits == old.stats.visits, (players, i)
            assert new.stats.worth == old.stats.worth, (players, i)
            assert new.stats.priors == old.stats.priors
            assert new.stats.value == old.stats.value


@pytest.mark.parametrize("players", [2, 4])
def test_the_exact_bot_searches_with_the_exact_leaves(players: int) -> None:
    """``neural-mcts-exact:N`` (the arena's stand-in for 0.3.0's ``hard``) searches with the
    exact arithmetic, ``neural-mcts:N`` with the sparse leaves: each bot's visits are those of
    the search it names, from the same seed."""
    net = shipped_network(players)
    for i, view in enumerate(positions(players, 3, 11 * players)):
        for name, exact in (("neural-mcts-exact:80", True), ("neural-mcts:80", False)):
            bot = make_bot(name, i)
            assert isinstance(bot, neural_mcts.NeuralMCTSBot) and bot.exact is exact
            assert bot.name == name
            run = neural_mcts._search(view, random.Random(i), net, 80, None, exact=exact)
            assert run.stats is not None
            best = max(run.stats.visits, key=lambda a: run.stats.visits[a] if run.stats else 0)
            assert bot.choose(view).id == best, (name, i)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_sparse_leaves_are_the_exact_ones_up_to_float32_rounding(players: int) -> None:
    # The search's default leaves (the first layer over the used columns only, the legal
    # logits only) against Network.forward's operations, on sampled states of seeded games:
    # every prior and value agrees to float32 precision.
    net = shipped_network(players)
    sparse = neural_mcts.Expander(net, players)
    exact = neural_mcts.Expander(net, players, exact=True)
    assert sparse.sparse and not exact.sparse
    rng = random.Random(players)
    worst_prior = worst_value = 0.0
    for view in positions(players, 6, 11 * players):
        det = Determinizer(view)
        for _ in range(10):
            g = det.sample(rng)
            acting = rules.to_act(g)
            node, values = sparse(g, acting)
            reference_node, reference_values = exact(g, acting)
            assert node.players.keys() == reference_node.players.keys()
            for p, stats in node.players.items():
                expected = reference_node.players[p]
                assert stats.priors.keys() == expected.priors.keys()
                assert sum(stats.priors.values()) == pytest.approx(1.0, abs=1e-12)
                for a, prior in stats.priors.items():
                    worst_prior = max(worst_prior, abs(prior - expected.priors[a]))
                assert stats.value == values[p]
            for value, expected_value in zip(values, reference_values, strict=True):
                worst_value = max(worst_value, abs(value - expected_value))
    assert worst_prior < 1e-5, worst_prior
    assert worst_value < 1e-5, worst_value
