"""From a :class:`~gonuts.analysis.simulate.Tally` to the numbers of ``summary.json``.

Definitions (also in docs/analysis.md):

* ``seat_win_share`` — per seat, the mean win share (a shared victory split between the
  winners), with a normal-approximation 95 % interval; a fair game gives 1/N each.
* ``kinds`` — per kind in the deck for that player count: ``taken_per_game`` (cards taken from
  the row by a lone selector, per game), ``mean_points_when_owned`` (what the kind scored for a
  seat that ended the game owning it), ``win_share_when_owned`` (that seat's mean win share)
  and ``contested_rate`` (of the times the card was selected, the share it was selected by
  two or more players and discarded).
* ``rounds`` — game length in rounds; ``scores`` — every seat's final score, and the mean
  score of the winners.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any, Final

from gonuts.analysis.simulate import Tally
from gonuts.cards import KIND_IDS, deck_counts

Z95: Final = 1.959963984540054


def _mean_sd(counts: Counter[int]) -> tuple[float, float]:
    total = sum(counts.values())
    if total == 0:
        return 0.0, 0.0
    mean = sum(v * c for v, c in counts.items()) / total
    if total == 1:
        return mean, 0.0
    var = sum(c * (v - mean) ** 2 for v, c in counts.items()) / (total - 1)
    return mean, math.sqrt(var)


def _r(x: float, digits: int = 4) -> float:
    return round(x, digits)


def seat_shares(tally: Tally) -> list[dict[str, Any]]:
    g = tally.games
    out = []
    for seat in range(tally.players):
        mean = tally.seat_share[seat] / g if g else 0.0
        var = (tally.seat_share_sq[seat] / g - mean * mean) * g / (g - 1) if g > 1 else 0.0
        half = Z95 * math.sqrt(max(var, 0.0) / g) if g else 0.0
        out.append(
            {
                "seat": seat,
                "share": _r(mean),
                "ci95": [_r(max(0.0, mean - half)), _r(min(1.0, mean + half))],
            }
        )
    return out


def kind_stats(tally: Tally) -> dict[str, dict[str, float | None]]:
    g = tally.games
    counts = deck_counts(tally.players)
    out: dict[str, dict[str, float | None]] = {}
    for k, kind in enumerate(KIND_IDS):
        if not counts[k]:
            continue
        owned = tally.owned[k]
        selected = tally.taken[k] + tally.contested[k]
        out[kind] = {
            "taken_per_game": _r(tally.taken[k] / g) if g else 0.0,
            "mean_points_when_owned": _r(tally.owned_points[k] / owned, 3) if owned else None,
            "win_share_when_owned": _r(tally.owned_wins[k] / owned) if owned else None,
            "contested_rate": _r(tally.contested[k] / selected) if selected else None,
        }
    return out


def summarize(tally: Tally, bots: str, variants: tuple[str, ...]) -> dict[str, Any]:
    """The ``summary.json`` object of one player count (the keys of issue 15, exactly)."""
    rounds_mean, rounds_sd = _mean_sd(tally.rounds)
    score_mean, score_sd = _mean_sd(tally.scores)
    winner_mean, _ = _mean_sd(tally.winner_scores)
    return {
        "players": tally.players,
        "games": tally.games,
        "bots": bots,
        "variants": list(variants),
        "seat_win_share": seat_shares(tally),
        "kinds": kind_stats(tally),
        "rounds": {"mean": _r(rounds_mean, 3), "sd": _r(rounds_sd, 3)},
        "scores": {
            "mean": _r(score_mean, 3),
            "sd": _r(score_sd, 3),
            "winner_mean": _r(winner_mean, 3),
        },
    }


def combine(per_players: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """One player count: its object; several: ``{"by_players": {"3": {…}, …}}``."""
    if len(per_players) == 1:
        return next(iter(per_players.values()))
    return {"by_players": {str(n): per_players[n] for n in sorted(per_players)}}
