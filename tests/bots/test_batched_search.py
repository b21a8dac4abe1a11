"""``neural-mcts`` reading its new leaves in batches (:func:`gonuts.bots.puct.search`'s
``batch``): each leaf's numbers are the single leaf's, every visit is backed up exactly once
(the virtual losses all resolved), the iteration budget is exact, and ``batch=1`` is the
sequential search (``test_neural_mcts_identity.py`` proves that one against 0.3.0's)."""

from __future__ import annotations

import random

import pytest

from gonuts import rules
from gonuts.bots import make_bot, neural_mcts, puct
from gonuts.bots.determinize import Determinizer
from gonuts.bots.neural import shipped_network
from gonuts.game import Game
from gonuts.state import GameState
from gonuts.view import PlayerView

from .test_neural_mcts_identity import positions


def sampled_leaves(players: int, count: int) -> tuple[list[GameState], list[list[int]]]:
    """``count`` determinized states of seeded positions and their acting players."""
    rng = random.Random(players)
    states: list[GameState] = []
    actings: list[list[int]] = []
    for view in positions(players, 4, 13 * players):
        det = Determinizer(view)
        for _ in range(count // 4):
            g = det.sample(rng)
            states.append(g)
            actings.append(rules.to_act(g))
    return states, actings


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_a_batch_of_leaves_gives_each_leafs_own_numbers(players: int) -> None:
    """One forward pass over eight leaves' rows against eight passes of one leaf each: the
    same priors and values up to float32 rounding (the products' sums may be ordered
    differently for more rows), the same actions, and values in the same order."""
    net = shipped_network(players)
    batched = neural_mcts.Expander(net, players, batch=8)
    single = neural_mcts.Expander(net, players)
    states, actings = sampled_leaves(players, 16)
    worst = 0.0
    for start in range(0, len(states), 8):
        made = batched.many(states[start : start + 8], actings[start : start + 8])
        assert len(made) == len(states[start : start + 8])
        for (node, values), g, acting in zip(
            made, states[start : start + 8], actings[start : start + 8], strict=True
        ):
            one, one_values = single(g, acting)
            assert len(values) == players
            assert node.players.keys() == one.players.keys() == set(acting)
            for p, stats in node.players.items():
                assert stats.priors.keys() == one.players[p].priors.keys()
                assert stats.value == values[p]
                for a, prior in stats.priors.items():
                    worst = max(worst, abs(prior - one.players[p].priors[a]))
            for v, w in zip(values, one_values, strict=True):
                worst = max(worst, abs(v - w))
    assert worst < 1e-5, worst


def constant_expander(value: float) -> puct.Expand:
    """Nodes with uniform priors and every player worth ``value``, counting its calls."""

    def expand(
        states: list[GameState], actings: list[list[int]]
    ) -> list[tuple[puct.Node, list[float]]]:
        out = []
        for g, acting in zip(states, actings, strict=True):
            legal = [rules.legal_ids(g, p) for p in acting]
            values = [value] * g.n
            out.append(
                (puct.make_node(acting, legal, [0.0] * sum(map(len, legal)), values), values)
            )
        return out

    return expand


def walk(node: puct.Node) -> list[puct.Player]:
    out = list(node.players.values())
    for child in node.children.values():
        out.extend(walk(child))
    return out


@pytest.mark.parametrize("batch", [1, 3, 8])
@pytest.mark.parametrize("players", [2, 4, 6])
def test_every_visit_is_backed_up_exactly_once(players: int, batch: int) -> None:
    """Early in a game no descent of 200 iterations reaches the end, so with every leaf worth
    0.25 to everyone each action's worth is 0.25 per visit, exactly, at every node: a virtual
    loss left unresolved (worth 0) or a value backed up twice would show."""
    view = Game.new(players, seed=3).view(0)
    seen: list[puct.Node] = []

    def keep_root(
        states: list[GameState], actings: list[list[int]]
    ) -> list[tuple[puct.Node, list[float]]]:
        made = constant_expander(0.25)(states, actings)
        if not seen:
            seen.append(made[0][0])
        return made

    run = puct.search(
        Determinizer(view),
        random.Random(1),
        0,
        keep_root,
        iterations=200,
        seconds=None,
        batch=batch,
    )
    assert run.iterations == 200
    checked = 0
    for stats in walk(seen[0]):
        assert sum(stats.visits.values()) == stats.total
        for a, n in stats.visits.items():
            assert stats.worth[a] == pytest.approx(0.25 * n, abs=1e-9)
            checked += 1
    assert checked > 10
    assert run.stats is not None
    assert sum(run.stats.visits.values()) == 199  # every iteration but the one that made the root


@pytest.mark.parametrize(("iterations", "batch"), [(1, 8), (10, 8), (9, 4), (17, 16)])
def test_the_iteration_budget_is_exact_whatever_the_batch(iterations: int, batch: int) -> None:
    view = Game.new(3, seed=5).view(0)
    calls: list[int] = []
    expand = constant_expander(0.5)

    def counting(
        states: list[GameState], actings: list[list[int]]
    ) -> list[tuple[puct.Node, list[float]]]:
        calls.append(len(states))
        assert len(states) <= batch
        return expand(states, actings)

    run = puct.search(
        Determinizer(view),
        random.Random(2),
        0,
        counting,
        iterations=iterations,
        seconds=None,
        batch=batch,
    )
    assert run.iterations == iterations
    assert calls[0] == 1  # the root alone
    assert sum(calls) <= iterations


def test_the_bots_batch_and_the_exact_one_does_not(monkeypatch: pytest.MonkeyPatch) -> None:
    """``neural-mcts:N`` reads :data:`~gonuts.bots.neural_mcts.BATCH` leaves a pass; the
    arena's stand-in for 0.3.0's ``hard`` (``neural-mcts-exact:N``) one, as 0.3.0 did."""
    batches: list[int] = []
    real = puct.search

    def spy(*args: object, **kwargs: object) -> puct.Run:
        batch = kwargs["batch"]
        assert isinstance(batch, int)
        batches.append(batch)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(puct, "search", spy)
    view: PlayerView = Game.new(2, seed=7).view(0)
    for name in ("neural-mcts:40", "neural-mcts-exact:40"):
        make_bot(name, 1).choose(view)
    assert batches == [neural_mcts.BATCH, 1]
    assert neural_mcts.BATCH > 1


@pytest.mark.parametrize("players", [2, 4])
def test_a_batched_search_decides_as_the_visits_say(players: int) -> None:
    """The bot plays the most visited root action of the batched search it runs."""
    net = shipped_network(players)
    for i, view in enumerate(positions(players, 3, 17 * players)):
        bot = make_bot("neural-mcts:120", i)
        run = neural_mcts._search(view, random.Random(i), net, 120, None)
        assert run.stats is not None
        visits = run.stats.visits
        assert bot.choose(view).id == max(visits, key=lambda a: visits[a])
