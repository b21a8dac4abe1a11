"""Bot tournaments: play many games with rotating seats and rate the bots.

:func:`play_game` plays one game (picklable arguments, so it runs in worker processes or on a
Ray cluster); :func:`summarize` turns results into per-bot statistics: games, win share
(a shared victory is split between the winners), mean score with a 95 % confidence interval,
mean rank (ties share the average rank) and a Bradley–Terry rating on the Elo scale with a
bootstrap 95 % interval. Statistics are per bot *name*: three ``greedy`` seats pool their games.
"""

from __future__ import annotations

import importlib
import math
import multiprocessing
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

from gonuts.bots.base import make_bot
from gonuts.game import Game
from gonuts.record import Record

Z95: Final = 1.959963984540054
ELO: Final = 400.0 / math.log(10.0)
BOOTSTRAP: Final = 200


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished game: which bot sat where and how it ended."""

    index: int
    seed: int
    """The deck's shuffle seed (``gonuts-record/1`` seed)."""
    bots: tuple[str, ...]
    """Bot name per seat."""
    scores: tuple[int, ...]
    cards: tuple[int, ...]
    winners: tuple[int, ...]
    decisions: tuple[int, ...] = ()
    """Decisions each seat took."""
    think_seconds: tuple[float, ...] = ()
    """Time each seat spent choosing."""
    record: str | None = field(default=None, compare=False)
    """The game as a ``gonuts-record/1`` JSON text, when asked for."""

    def win_shares(self) -> list[float]:
        share = 1.0 / len(self.winners)
        return [share if s in self.winners else 0.0 for s in range(len(self.bots))]

    def ranks(self) -> list[float]:
        """Rank per seat (1 = best) by score then cards; exact ties share the average rank."""
        keys = list(zip(self.scores, self.cards, strict=True))
        out = []
        for key in keys:
            better = sum(1 for k in keys if k > key)
            equal = sum(1 for k in keys if k == key)
            out.append(better + (equal + 1) / 2)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.index,
            "seed": self.seed,
            "bots": list(self.bots),
            "scores": list(self.scores),
            "cards": list(self.cards),
            "winners": list(self.winners),
        }


def worker_context() -> Any:
    """The multiprocessing context for game workers: ``forkserver`` where there is one.

    A plain ``fork`` copies whatever threads the parent runs (JAX's, a server's), which can
    deadlock the child; the fork server is a fresh, single-threaded process. Where there is
    none (Windows), ``spawn``.
    """
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


T = TypeVar("T")


def ray_map(fn: Callable[..., T], calls: Sequence[tuple[Any, ...]], address: str) -> Iterator[T]:
    """``fn(*args)`` for every ``args`` of ``calls`` on a Ray cluster, yielded as they finish.

    ``address`` names the cluster; empty starts a local one, shut down again at the end. Ray is
    the optional extra ``gonuts[ray]``, imported only here.
    """
    ray: Any = importlib.import_module("ray")
    started = False
    if not ray.is_initialized():
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(log_to_driver=False, include_dashboard=False)
        started = True
    try:
        remote = ray.remote(fn)
        pending = [remote.remote(*args) for args in calls]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                result: T = ray.get(ref)
                yield result
    finally:
        if started:
            ray.shutdown()


def seating(bots: Sequence[str], index: int) -> tuple[str, ...]:
    """Seat order for game ``index``: the bot list rotated by ``index`` (so over any N
    consecutive games every entry of the list sits in every seat once)."""
    n = len(bots)
    shift = index % n
    return tuple(bots[(s + shift) % n] for s in range(n))


def game_seed(seed: int, index: int) -> int:
    return (seed * 1_000_003 + index) % (1 << 63)


def play_game(
    bots: Sequence[str],
    index: int,
    seed: int,
    save: bool = False,
    variants: Sequence[str] = (),
) -> GameResult:
    """Play game ``index`` of a tournament with base ``seed``: rotated seats, seeded deck and
    seeded bots (games are reproducible when every bot has an iteration budget), with the
    house-rule ``variants`` of RULES.md."""
    seats = seating(bots, index)
    n = len(seats)
    deck_seed = game_seed(seed, index)
    players = [make_bot(name, deck_seed * 8 + s) for s, name in enumerate(seats)]
    game = Game.new(
        [f"{name} ({s})" for s, name in enumerate(seats)],
        seed=deck_seed,
        events=False,
        variants=variants,
    )
    decisions = [0] * n
    think = [0.0] * n
    while not game.is_over:
        for p in game.to_act:
            if p not in game.to_act:  # the phase moved on (e.g. a forced pass settled it)
                continue
            start = time.perf_counter()
            action = players[p].choose(game.view(p))
            think[p] += time.perf_counter() - start
            decisions[p] += 1
            game.apply(p, action)
    record = None
    if save:
        record = Record.from_game(
            game, event="gonuts arena", bots=list(seats), arena_seed=seed, arena_game=index
        ).to_json()
    state = game.state
    return GameResult(
        index=index,
        seed=deck_seed,
        bots=seats,
        scores=tuple(game.scores()),
        cards=tuple(state.cards_owned(p) for p in range(n)),
        winners=game.winner_seats,
        decisions=tuple(decisions),
        think_seconds=tuple(think),
        record=record,
    )


# -- statistics ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BotSummary:
    name: str
    games: int
    """Seat-games played (a bot in two seats of one game counts twice)."""
    wins: float
    """Victories, a shared one split between its winners."""
    win_share: float
    """``wins / games``."""
    win_share_ci: tuple[float, float]
    mean_score: float
    mean_score_ci: tuple[float, float]
    mean_rank: float
    rating: float
    """Bradley–Terry strength on the Elo scale (mean over the bots 0)."""
    rating_ci: tuple[float, float]
    seats: tuple[int, ...]
    """Games played in each seat."""
    seconds_per_decision: float
    """Mean time the bot took per decision (three significant figures in JSON: a random
    bot's microseconds do not round to 0)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "games": self.games,
            "wins": round(self.wins, 4),
            "win_share": round(self.win_share, 4),
            "win_share_ci": [round(x, 4) for x in self.win_share_ci],
            "mean_score": round(self.mean_score, 3),
            "mean_score_ci": [round(x, 3) for x in self.mean_score_ci],
            "mean_rank": round(self.mean_rank, 3),
            "rating": round(self.rating, 1),
            "rating_ci": [round(x, 1) for x in self.rating_ci],
            "seats": list(self.seats),
            "seconds_per_decision": float(f"{self.seconds_per_decision:.3g}"),
        }


def mean_ci(values: Sequence[float]) -> tuple[float, tuple[float, float]]:
    """Mean and its normal-approximation 95 % confidence interval (sample standard deviation)."""
    n = len(values)
    if n == 0:
        return 0.0, (0.0, 0.0)
    mean = sum(values) / n
    if n == 1:
        return mean, (mean, mean)
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = Z95 * math.sqrt(var / n)
    return mean, (mean - half, mean + half)


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (``successes`` may be fractional: shared
    victories): unlike the normal approximation it is not ±0 at 0 or n successes."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def pairwise(results: Sequence[GameResult], names: Sequence[str]) -> list[list[float]]:
    """``w[i][j]``: points bot i scored against bot j (a better rank 1, a tie ½ each), over
    every pair of seats held by different bots."""
    index = {name: i for i, name in enumerate(names)}
    k = len(names)
    w = [[0.0] * k for _ in range(k)]
    for r in results:
        ranks = r.ranks()
        for a in range(len(r.bots)):
            for b in range(a + 1, len(r.bots)):
                i, j = index[r.bots[a]], index[r.bots[b]]
                if i == j:
                    continue
                if ranks[a] < ranks[b]:
                    w[i][j] += 1.0
                elif ranks[a] > ranks[b]:
                    w[j][i] += 1.0
                else:
                    w[i][j] += 0.5
                    w[j][i] += 0.5
    return w


def bradley_terry(w: Sequence[Sequence[float]], prior: float = 1.0) -> list[float]:
    """Bradley–Terry strengths (Elo scale, mean 0) by the MM algorithm. ``prior`` adds that
    many drawn games against an average opponent to each bot, so the estimate stays finite."""
    k = len(w)
    if k < 2:
        return [0.0] * k
    gamma = [1.0] * k
    for _ in range(500):
        new = []
        for i in range(k):
            wins = sum(w[i]) + prior / 2
            denom = prior / (gamma[i] + 1.0)
            for j in range(k):
                if j != i:
                    games = w[i][j] + w[j][i]
                    if games:
                        denom += games / (gamma[i] + gamma[j])
            new.append(wins / denom if denom > 0 else gamma[i])
        # normalise to geometric mean 1
        log_mean = sum(math.log(g) for g in new) / k
        new = [g / math.exp(log_mean) for g in new]
        done = max(abs(a - b) for a, b in zip(new, gamma, strict=True)) < 1e-10
        gamma = new
        if done:
            break
    return [ELO * math.log(g) for g in gamma]


def summarize(
    results: Sequence[GameResult], bots: Sequence[str], *, bootstrap: int = BOOTSTRAP, seed: int = 0
) -> list[BotSummary]:
    """Per-bot statistics (in order of first appearance in ``bots``)."""
    names = list(dict.fromkeys(bots))
    n = len(bots)
    per: dict[str, dict[str, list[float]]] = {
        name: {"shares": [], "scores": [], "ranks": []} for name in names
    }
    seats = {name: [0] * n for name in names}
    think = dict.fromkeys(names, 0.0)
    decisions = dict.fromkeys(names, 0)
    for r in results:
        shares = r.win_shares()
        ranks = r.ranks()
        for s, name in enumerate(r.bots):
            per[name]["shares"].append(shares[s])
            per[name]["scores"].append(float(r.scores[s]))
            per[name]["ranks"].append(ranks[s])
            seats[name][s] += 1
            if r.decisions:
                decisions[name] += r.decisions[s]
                think[name] += r.think_seconds[s]
    ratings = bradley_terry(pairwise(results, names))
    samples: list[list[float]] = [[] for _ in names]
    if len(names) > 1 and results and bootstrap > 0:
        rng = random.Random(seed)
        m = len(results)
        for _ in range(bootstrap):
            resample = [results[int(rng.random() * m)] for _ in range(m)]
            for i, value in enumerate(bradley_terry(pairwise(resample, names))):
                samples[i].append(value)
    out = []
    for i, name in enumerate(names):
        data = per[name]
        games = len(data["shares"])
        share = sum(data["shares"]) / games if games else 0.0
        share_ci = wilson(sum(data["shares"]), games)
        score, score_ci = mean_ci(data["scores"])
        rank = sum(data["ranks"]) / games if games else 0.0
        if samples[i]:
            ordered = sorted(samples[i])
            lo = ordered[int(0.025 * (len(ordered) - 1))]
            hi = ordered[math.ceil(0.975 * (len(ordered) - 1))]
            rating_ci = (lo, hi)
        else:
            rating_ci = (ratings[i], ratings[i])
        out.append(
            BotSummary(
                name=name,
                games=games,
                wins=sum(data["shares"]),
                win_share=share,
                win_share_ci=(max(0.0, share_ci[0]), min(1.0, share_ci[1])),
                mean_score=score,
                mean_score_ci=score_ci,
                mean_rank=rank,
                rating=ratings[i],
                rating_ci=rating_ci,
                seats=tuple(seats[name]),
                seconds_per_decision=think[name] / decisions[name] if decisions[name] else 0.0,
            )
        )
    return out
