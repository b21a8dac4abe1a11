"""Play games through gonuts.batch and the rules engine side by side and compare every step.

One batch per player count holds the records of ``tests/records/`` for that count (their
decisions applied one at a time, as recorded) and random games (random legal decisions; in a
simultaneous phase usually every seat at once, sometimes a random part of them), so each
player count compiles once. Variants are data in a :class:`gonuts.batch.State`, so the same
batch also holds random games of every house-rule variant (``Game.new(..., variants=...)``
on the engine's side).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import jax
import numpy as np

from gonuts import actions as A  # noqa: N812
from gonuts import batch, rules
from gonuts.actions import NUM_ACTIONS, parse_action
from gonuts.batch import core
from gonuts.cards import CINNAMON_TWIST, KIND_IDS, MILK, NUM_KINDS, SPRINKLED
from gonuts.envs.encoding import encode_observation
from gonuts.game import Game
from gonuts.record import Record, replay_summary
from gonuts.state import Phase
from gonuts.variants import MILK_ANY_THREE, SPRINKLED_ANY_CARD, TWIST_PASS_ANY, VARIANTS
from gonuts.view import make_view

PHASES = tuple(Phase)
CONFIGS: tuple[tuple[str, ...], ...] = ((), *((v,) for v in VARIANTS), VARIANTS)
"""The variant sets random games cycle through: the default game first, each variant alone,
all three together; the default game takes half of the random games."""


def config_of(i: int) -> tuple[str, ...]:
    """The variants of random game ``i``: the default for even ``i``, else the others in turn."""
    return () if i % 2 == 0 else CONFIGS[1 + (i // 2) % (len(CONFIGS) - 1)]


def variant_only(game: Game, player: int, action: int) -> str | None:
    """The variant whose rule alone makes ``action`` legal here (``None``: the default game
    allows it too) — so a test can check that each variant's own moves were played."""
    g = game.state
    mine = g.coll[player * NUM_KINDS : (player + 1) * NUM_KINDS]
    given = (action - A.GIVE_BASE) % NUM_KINDS
    # the default game lets a power's own card go only when it is not the last of its kind
    last_sprinkled = given == SPRINKLED and mine[SPRINKLED] == 1 and sum(mine) > 1
    if g.phase is Phase.SPRINKLED and last_sprinkled:
        return SPRINKLED_ANY_CARD
    if g.phase is Phase.MILK and action == A.DISCARD_BASE + MILK and g.step > 0:
        return MILK_ANY_THREE
    twist = A.PASS_BASE + CINNAMON_TWIST
    last_twist = action == twist and mine[CINNAMON_TWIST] == 1
    if g.phase is Phase.CINNAMON_TWIST and player == g.actor and last_twist:
        return TWIST_PASS_ANY
    return None


@dataclass
class Tally:
    """What a lockstep run covered (so a test can check that it was not vacuous)."""

    steps: int = 0
    decisions: int = 0
    games_over: int = 0
    record_actions: int = 0
    phases: set[str] = field(default_factory=set)
    observations: int = 0
    summaries: int = 0
    variant_moves: dict[str, int] = field(default_factory=dict)
    """Moves only a variant allows (:func:`variant_only`), counted per variant."""


def engine_mask(game: Game) -> np.ndarray[Any, Any]:
    n = game.num_players
    mask = np.zeros((n, NUM_ACTIONS), bool)
    for p in range(n):
        mask[p, list(rules.legal_ids(game.state, p))] = True
    return mask


def compare(game: Game, s: batch.State, b: int, mask: np.ndarray[Any, Any], where: str) -> None:
    """Game ``b`` of host state ``s`` equals ``game``, field by field, legal masks included."""
    g = game.state
    n = g.n
    assert PHASES[int(s.phase[b])] is g.phase, f"{where}: phase {s.phase[b]} vs {g.phase}"
    assert s.row[b].tolist() == g.row, f"{where}: row"
    assert s.deck[b, int(s.top[b]) :].tolist() == g.deck[::-1], f"{where}: deck"
    assert s.pile[b, : int(s.pile_len[b])].tolist() == g.discard, f"{where}: discard"
    assert s.coll[b].reshape(-1).tolist() == g.coll, f"{where}: collections"
    assert int(s.round[b]) == g.round, f"{where}: round"
    assert np.array_equal(mask[b], engine_mask(game)), f"{where}: legal masks"
    if g.phase is Phase.SELECT:
        assert s.picks[b].tolist() == g.picks, f"{where}: picks"
    if g.phase is Phase.CINNAMON_TWIST:
        assert s.passes[b].tolist() == g.passes, f"{where}: passes"
    if g.phase not in (Phase.SELECT, Phase.OVER):
        assert int(s.actor[b]) == g.actor, f"{where}: actor"
        assert int(s.pos[b]) == g.pos, f"{where}: position"
    if g.phase is Phase.OVER:
        assert [p for p in range(n) if s.winners[b, p]] == list(g.winners), f"{where}: winners"


def compare_observations(game: Game, obs: list[np.ndarray[Any, Any]], b: int, where: str) -> None:
    for seat in range(game.num_players):
        want = encode_observation(make_view(game.state, seat))
        bad = np.flatnonzero(want != obs[seat][b])
        assert bad.size == 0, f"{where}: observation of seat {seat} differs at {bad.tolist()}"


def random_decisions(game: Game, rng: random.Random) -> list[tuple[int, int]]:
    """Random legal decisions for one step: in a simultaneous phase, usually every seat that
    must act, sometimes a random nonempty part of them."""
    seats = list(rules.to_act(game.state))
    if len(seats) > 1 and rng.random() < 0.25:
        seats = rng.sample(seats, rng.randint(1, len(seats)))
    out = []
    for p in seats:
        ids = rules.legal_ids(game.state, p)
        out.append((p, ids[rng.randrange(len(ids))]))
    return out


@dataclass
class Table:
    """One game of the batch: the engine's copy and, for a record, the decisions to come."""

    game: Game
    names: list[str] | None = None
    script: list[tuple[int, int]] | None = None

    def decisions(self, rng: random.Random) -> list[tuple[int, int]]:
        if self.script is None:
            return [] if self.game.is_over else random_decisions(self.game, rng)
        return [self.script.pop(0)] if self.script else []


def tables(players: int, games: int, seed: int, records: list[str]) -> list[Table]:
    out = []
    for text in records:
        record = Record.from_json(text)
        names = list(record.players)
        game = Game.new(
            names, deck=list(record.initial_deck()), events=False, variants=record.variants
        )
        script = [(a.player, parse_action(a.action).id) for a in record.actions]
        out.append(Table(game, names, script))
    for i in range(games):
        variants = config_of(i)
        out.append(
            Table(Game.new(players, seed=seed * 100_003 + i, events=False, variants=variants))
        )
    return out


def lockstep(
    players: int,
    games: int,
    seed: int,
    *,
    records: list[str] = [],  # noqa: B006 - read only
    observe_every: int = 3,
    summary_games: int = 2,
) -> Tally:
    """Play the records and ``games`` random games in both engines, comparing every step:
    the state, legal masks, scores, done and winners always; every seat's observation every
    ``observe_every`` steps; :func:`gonuts.batch.summary` always for the records and the
    first ``summary_games`` random games."""
    rng = random.Random(seed)
    tally = Tally()
    tabs = tables(players, games, seed, records)
    decks = np.array([[KIND_IDS.index(k) for k in _deck(t.game)] for t in tabs], np.int32)
    state = batch.new(players, decks)
    # each game's variants (batch.new deals one set for all; here they differ per game)
    bits = [core.variant_mask(t.game.variants) for t in tabs]
    state = state._replace(variants=jax.numpy.asarray(bits, jax.numpy.int32))
    summarised = len(records) + summary_games
    t = 0
    while True:
        s = jax.tree.map(np.asarray, state)
        mask = np.asarray(batch.legal(state))
        over = np.asarray(batch.done(state))
        totals = np.asarray(batch.scores(state))
        obs = None
        if observe_every and t % observe_every == 0:
            obs = [np.asarray(batch.observe(state, seat)) for seat in range(players)]
        for b, tab in enumerate(tabs):
            game = tab.game
            where = f"{players}p seed {seed} game {b} step {t}"
            compare(game, s, b, mask, where)
            assert totals[b].tolist() == game.scores(), f"{where}: scores"
            assert bool(over[b]) == game.is_over, f"{where}: done"
            tally.phases.add(game.state.phase.value)
            if obs is not None:
                compare_observations(game, obs, b, where)
                tally.observations += players
            if b < summarised:
                got = batch.summary(state, b, tab.names)
                assert got == replay_summary(game), f"{where}: summary"
                tally.summaries += 1
        actions = np.full((len(tabs), players), -1, np.int32)
        for b, tab in enumerate(tabs):
            for p, a in tab.decisions(rng):
                only = variant_only(tab.game, p, a)
                if only is not None:
                    assert only in tab.game.variants, f"{players}p game {b}: {only} move"
                    tally.variant_moves[only] = tally.variant_moves.get(only, 0) + 1
                rules.apply(tab.game.state, p, a)
                actions[b, p] = a
                tally.decisions += 1
                tally.record_actions += tab.script is not None
        if (actions < 0).all():
            assert all(tab.game.is_over or tab.script is not None for tab in tabs)
            tally.games_over = int(over.sum())
            return tally
        state = batch.step(state, actions)
        tally.steps += 1
        t += 1


def _deck(game: Game) -> list[str]:
    return [KIND_IDS[c] for c in game.state.config.initial_deck]
