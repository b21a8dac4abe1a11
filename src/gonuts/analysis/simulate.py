"""Play many games and count what a designer asks about, in mergeable tallies.

Games are cut into chunks (:class:`Task`); each chunk is played on its own (in this process, a
worker process or a Ray task) into a :class:`Tally` of plain counts, and the tallies are merged
in chunk order, so the result depends only on the seed, never on ``--jobs`` or the scheduler.
Random play uses the engine's search fast path directly (uniform over legal actions, the same
distribution as the ``random`` bot, without building views); bots play through the arena's
seating and seeding (:mod:`gonuts.bots.arena`) on the public :class:`~gonuts.game.Game` API.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from gonuts import rules, scoring
from gonuts.actions import PICK_BASE
from gonuts.bots.arena import game_seed, seating
from gonuts.bots.base import make_bot
from gonuts.cards import KIND_BY_ID, NUM_KINDS
from gonuts.errors import IllegalActionError
from gonuts.game import Game
from gonuts.state import GameState, Phase

K: Final = NUM_KINDS
RANDOM: Final = "random"
RANDOM_CHUNK: Final = 500
"""Games per chunk of fast random play (about 0.1–0.3 s of work)."""
BOT_CHUNK: Final = 4
"""Games per chunk with bots (keeps the progress bar moving and the work balanced)."""


@dataclass(frozen=True, slots=True)
class Task:
    """One chunk of games: ``count`` games from game ``start`` on, all with the same table."""

    players: int
    bots: tuple[str, ...]
    """Bot name per seat before rotation; all ``random`` takes the fast path."""
    variants: tuple[str, ...]
    seed: int
    start: int
    count: int

    @property
    def fast(self) -> bool:
        return all(b == RANDOM for b in self.bots)


@dataclass(slots=True)
class Tally:
    """Counts over finished games of one player count; :meth:`merge` adds another tally."""

    players: int
    games: int = 0
    rounds: Counter[int] = field(default_factory=Counter)
    """Game length in rounds → games."""
    scores: Counter[int] = field(default_factory=Counter)
    """Final score → seat-games."""
    winner_scores: Counter[int] = field(default_factory=Counter)
    """Final score of each winner → count (a shared victory counts each winner)."""
    seat_share: list[float] = field(default_factory=list)
    """Per seat: sum over games of the seat's win share (a shared victory is split)."""
    seat_share_sq: list[float] = field(default_factory=list)
    taken: list[int] = field(default_factory=lambda: [0] * K)
    """Per kind: cards taken from the row by a lone selector."""
    contested: list[int] = field(default_factory=lambda: [0] * K)
    """Per kind: cards discarded from the row because two or more players selected them."""
    owned: list[int] = field(default_factory=lambda: [0] * K)
    """Per kind: seat-games ending with at least one card of the kind."""
    owned_points: list[int] = field(default_factory=lambda: [0] * K)
    """Per kind: points the kind scored for its owners (summed over those seat-games)."""
    owned_wins: list[float] = field(default_factory=lambda: [0.0] * K)
    """Per kind: win shares of the seat-games that own the kind."""

    def __post_init__(self) -> None:
        if not self.seat_share:
            self.seat_share = [0.0] * self.players
            self.seat_share_sq = [0.0] * self.players

    def merge(self, other: Tally) -> None:
        self.games += other.games
        self.rounds.update(other.rounds)
        self.scores.update(other.scores)
        self.winner_scores.update(other.winner_scores)
        for s in range(self.players):
            self.seat_share[s] += other.seat_share[s]
            self.seat_share_sq[s] += other.seat_share_sq[s]
        for k in range(K):
            self.taken[k] += other.taken[k]
            self.contested[k] += other.contested[k]
            self.owned[k] += other.owned[k]
            self.owned_points[k] += other.owned_points[k]
            self.owned_wins[k] += other.owned_wins[k]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (``tallies.json``), so runs can be merged and re-plotted later."""
        return {
            "players": self.players,
            "games": self.games,
            "rounds": {str(k): v for k, v in sorted(self.rounds.items())},
            "scores": {str(k): v for k, v in sorted(self.scores.items())},
            "winner_scores": {str(k): v for k, v in sorted(self.winner_scores.items())},
            "seat_share": self.seat_share,
            "seat_share_sq": self.seat_share_sq,
            "taken": self.taken,
            "contested": self.contested,
            "owned": self.owned,
            "owned_points": self.owned_points,
            "owned_wins": self.owned_wins,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Tally:
        """The inverse of :meth:`to_dict`; KeyError, TypeError or ValueError if malformed."""
        players = int(data["players"])
        tally = cls(
            players,
            int(data["games"]),
            Counter({int(k): int(v) for k, v in data["rounds"].items()}),
            Counter({int(k): int(v) for k, v in data["scores"].items()}),
            Counter({int(k): int(v) for k, v in data["winner_scores"].items()}),
            [float(x) for x in data["seat_share"]],
            [float(x) for x in data["seat_share_sq"]],
            [int(x) for x in data["taken"]],
            [int(x) for x in data["contested"]],
            [int(x) for x in data["owned"]],
            [int(x) for x in data["owned_points"]],
            [float(x) for x in data["owned_wins"]],
        )
        sizes = (len(tally.seat_share), len(tally.seat_share_sq), len(tally.taken))
        if sizes != (players, players, K) or not all(
            len(x) == K
            for x in (tally.contested, tally.owned, tally.owned_points, tally.owned_wins)
        ):
            raise ValueError("tally lists of the wrong length")
        return tally

    def note_reveal(self, row: Sequence[int], picks: Sequence[int]) -> None:
        """Count the row cards a reveal hands out (one selector) or discards (several)."""
        for position in set(picks):
            chosen = picks.count(position)
            if chosen == 1:
                self.taken[row[position]] += 1
            else:
                self.contested[row[position]] += 1

    def note_end(self, state: GameState) -> None:
        """Count a finished game: length, scores, seat shares, what each kind did for owners."""
        n = state.n
        self.games += 1
        self.rounds[state.round] += 1
        totals = scoring.scores(state.coll, n)
        winners = state.winners
        share = 1.0 / len(winners)
        for p in range(n):
            self.scores[totals[p]] += 1
            won = share if p in winners else 0.0
            self.seat_share[p] += won
            self.seat_share_sq[p] += won * won
        for p in winners:
            self.winner_scores[totals[p]] += 1
        for sheet in scoring.breakdown(state.coll, n):
            won = share if sheet.player in winners else 0.0
            for line in sheet.lines:
                k = KIND_BY_ID[line.kind].index
                self.owned[k] += 1
                self.owned_points[k] += line.points
                self.owned_wins[k] += won


def chunk_rng(task: Task) -> random.Random:
    """The random stream of one chunk (a text seed: the same on every machine and Python)."""
    return random.Random(f"gonuts-analyze/{task.seed}/{task.players}/{task.start}")


def play_random(task: Task) -> Tally:
    """Uniformly random games on the fast path, counting every reveal."""
    tally = Tally(task.players)
    rng = chunk_rng(task)
    rand = rng.random
    width = task.players + 1
    n = task.players
    names = tuple(f"random ({s})" for s in range(n))
    select, over = Phase.SELECT, Phase.OVER
    to_act, legal_ids, step = rules.to_act, rules.legal_ids, rules.apply_unchecked
    for index in range(task.start, task.start + task.count):
        g = Game.new(
            names, seed=game_seed(task.seed, index), events=False, variants=task.variants
        ).state
        while g.phase is not over:
            if g.phase is select:
                picks = [int(rand() * width) for _ in range(n)]
                tally.note_reveal(g.row, picks)
                rules.select_all(g, picks)
                continue
            for player in to_act(g):
                ids = legal_ids(g, player)
                step(g, player, ids[int(rand() * len(ids))])
        tally.note_end(g)
    return tally


def play_bots(task: Task) -> Tally:
    """Games between bots, seated and seeded as :func:`gonuts.bots.arena.play_game` does."""
    tally = Tally(task.players)
    for index in range(task.start, task.start + task.count):
        seats = seating(task.bots, index)
        deck_seed = game_seed(task.seed, index)
        bots = [make_bot(name, deck_seed * 8 + s) for s, name in enumerate(seats)]
        game = Game.new(
            [f"{name} ({s})" for s, name in enumerate(seats)],
            seed=deck_seed,
            events=False,
            variants=task.variants,
        )
        state = game.state
        while not game.is_over:
            for p in game.to_act:
                if p not in game.to_act:  # the phase moved on (a forced choice settled it)
                    continue
                action = bots[p].choose(game.view(p))
                if state.phase is Phase.SELECT and state.picks.count(-1) == 1:
                    picks = state.picks[:]
                    picks[p] = action.id - PICK_BASE
                    tally.note_reveal(state.row, picks)
                try:
                    game.apply(p, action)
                except IllegalActionError as exc:
                    raise RuntimeError(f"bot {seats[p]} chose an illegal action: {exc}") from None
        tally.note_end(state)
    return tally


def run_task(task: Task) -> tuple[Task, Tally]:
    """Play one chunk (picklable: the unit of work for worker processes and Ray)."""
    return task, (play_random(task) if task.fast else play_bots(task))


def make_tasks(
    players: int, games: int, bots: Sequence[str], variants: Sequence[str], seed: int
) -> list[Task]:
    """Cut ``games`` games into chunks; bots rotate seats as in the arena."""
    lineup = tuple(bots) if len(bots) > 1 else (bots[0],) * players
    size = RANDOM_CHUNK if all(b == RANDOM for b in lineup) else BOT_CHUNK
    return [
        Task(players, lineup, tuple(variants), seed, start, min(size, games - start))
        for start in range(0, games, size)
    ]
