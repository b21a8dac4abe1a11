"""Play games through gonuts.batch and the rules engine side by side and compare them."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import jax
import numpy as np

from gonuts import batch, rules
from gonuts.actions import NUM_ACTIONS
from gonuts.batch import core
from gonuts.cards import KIND_IDS
from gonuts.envs.encoding import encode_observation
from gonuts.game import Game
from gonuts.record import replay_summary
from gonuts.state import Phase
from gonuts.view import make_view

PHASES = tuple(Phase)


@dataclass
class Tally:
    """What a lockstep run covered (so a test can check it was not vacuous)."""

    steps: int = 0
    decisions: int = 0
    games_over: int = 0
    phases: set[str] = field(default_factory=set)
    observations: int = 0
    summaries: int = 0


def host(state: batch.State) -> batch.State:
    return jax.tree.map(np.asarray, state)


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
    top = int(s.top[b])
    assert s.deck[b, top:].tolist() == g.deck[::-1], f"{where}: deck"
    assert s.pile[b, : int(s.pile_len[b])].tolist() == g.discard, f"{where}: discard"
    assert s.coll[b].reshape(-1).tolist() == g.coll, f"{where}: collections"
    assert int(s.round[b]) == g.round, f"{where}: round"
    assert np.array_equal(mask[b], engine_mask(game)), f"{where}: legal masks"
    if g.phase is Phase.SELECT:
        assert s.picks[b].tolist() == g.picks, f"{where}: picks"
    if g.phase is Phase.CINNAMON_TWIST:
        assert s.passes[b].tolist() == g.passes, f"{where}: passes"
    if g.phase not in (Phase.SELECT, Phase.OVER):
        assert int(s.actor[b]) == g.actor and int(s.pos[b]) == g.pos, f"{where}: actor/pos"
    if g.phase is Phase.OVER:
        assert [p for p in range(n) if s.winners[b, p]] == list(g.winners), f"{where}: winners"


def compare_observations(game: Game, obs: Sequence[np.ndarray[Any, Any]], b: int, where: str) -> None:
    for seat in range(game.num_players):
        want = encode_observation(make_view(game.state, seat))
        got = obs[seat][b]
        bad = np.flatnonzero(want != got)
        assert bad.size == 0, f"{where}: observation of seat {seat} differs at {bad.tolist()}"


def choose(game: Game, rng: random.Random) -> list[tuple[int, int]]:
    """Random legal decisions for this step: in a simultaneous phase, a random nonempty
    subset of the seats that must act (usually all of them)."""
    seats = list(rules.to_act(game.state))
    if len(seats) > 1 and rng.random() < 0.25:
        seats = rng.sample(seats, rng.randint(1, len(seats)))
    out = []
    for p in seats:
        ids = rules.legal_ids(game.state, p)
        out.append((p, ids[rng.randrange(len(ids))]))
    return out


def lockstep(
    players: int,
    games: int,
    seed: int,
    *,
    observe_every: int = 0,
    summary_games: int = 0,
    tally: Tally | None = None,
) -> Tally:
    """Play ``games`` random games in both engines, comparing after every step."""
    rng = random.Random(seed)
    tally = tally or Tally()
    engines = [Game.new(players, seed=seed * 100_003 + i, events=False) for i in range(games)]
    decks = np.array(
        [[KIND_IDS.index(k) for k in _deck(e)] for e in engines], dtype=np.int32
    )
    state = batch.new(players, decks)
    t = 0
    while True:
        s = host(state)
        mask = np.asarray(batch.legal(state))
        obs = None
        if observe_every and t % observe_every == 0:
            obs = [np.asarray(batch.observe(state, seat)) for seat in range(players)]
        over = np.asarray(batch.done(state))
        sc = np.asarray(batch.scores(state))
        for b, e in enumerate(engines):
            where = f"{players}p seed {seed} game {b} step {t}"
            compare(e, s, b, mask, where)
            assert sc[b].tolist() == e.scores(), f"{where}: scores"
            assert bool(over[b]) == e.is_over, f"{where}: done"
            tally.phases.add(e.state.phase.value)
            if obs is not None:
                compare_observations(e, obs, b, where)
                tally.observations += players
            if b < summary_games:
                assert batch.summary(state, b) == replay_summary(e), f"{where}: summary"
                tally.summaries += 1
        if over.all():
            tally.games_over += games
            return tally
        actions = np.full((games, players), -1, np.int32)
        for b, e in enumerate(engines):
            if e.is_over:
                continue
            for p, a in choose(e, rng):
                rules.apply(e.state, p, a)
                actions[b, p] = a
                tally.decisions += 1
        state = batch.step(state, actions)
        tally.steps += 1
        t += 1


def _deck(game: Game) -> list[str]:
    return [KIND_IDS[c] for c in game.state.config.initial_deck]


def record_lockstep(record_text: str) -> int:
    """Step a record's actions one at a time through both; compare summaries. Returns steps."""
    from gonuts.record import Record

    record = Record.from_json(record_text)
    n = len(record.players)
    game = Game.new(list(record.players), deck=list(record.initial_deck()))
    state = batch.new(n, np.array([[KIND_IDS.index(k) for k in record.initial_deck()]]))
    players = list(record.players)
    for i, act in enumerate(record.actions):
        where = f"record action {i}"
        assert batch.summary(state, 0, players) == replay_summary(game), where
        compare(game, host(state), 0, np.asarray(batch.legal(state)), where)
        compare_observations(game, [np.asarray(batch.observe(state, p)) for p in range(n)], 0, where)
        game.apply(act.player, act.action)
        actions = np.full((1, n), -1, np.int32)
        actions[0, act.player] = game_action_id(act.action)
        state = batch.step(state, actions)
    assert batch.summary(state, 0, players) == replay_summary(game)
    compare(game, host(state), 0, np.asarray(batch.legal(state)), "record end")
    return len(record.actions)


def game_action_id(text: str) -> int:
    from gonuts.actions import parse_action

    return parse_action(text).id


__all__ = ["Tally", "core", "lockstep", "record_lockstep"]
