"""Review a whole record: every decision of every seat judged, labels, accuracies, the graph.

:func:`review_record` is a pure function of the record, the analyser (its budget), the seed and
the seats asked for; it reports progress through a callback, stops when ``cancelled()`` says
so, and returns a :class:`Review` whose :meth:`Review.to_dict` is plain JSON — so a server can
run it in a worker thread or process and cache the result by record and analyser.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, Final

from gonuts.actions import parse_action
from gonuts.game import Game
from gonuts.record import Record, apply_recorded
from gonuts.review.engine import (
    DEFAULT_ANALYSER,
    Analyser,
    judge,
    one_blas_thread,
    table_win_probabilities,
)
from gonuts.review.labels import LABELS, THRESHOLDS, decision_accuracy, label, label_counts
from gonuts.review.labels import seat_accuracy as _seat_accuracy
from gonuts.state import Phase

Progress = Callable[[int, int], None]
"""Called with (decisions judged, decisions to judge) before the first and after each one."""
TURNING_POINTS: Final = 3
ROUND_DIGITS: Final = 4


class ReviewCancelledError(Exception):
    """The review was stopped by its ``cancelled`` callback before it finished."""


@dataclass(frozen=True, slots=True)
class Decision:
    """One judged decision."""

    index: int
    """The record's 0-based action index."""
    seat: int
    round: int
    action: str
    """The action taken, in record notation."""
    best: str
    """The analyser's best action."""
    win_prob: float
    """The seat's estimated chance of winning after the action taken."""
    best_win_prob: float
    """... after the best action."""
    legal: int
    """How many legal actions the seat had."""
    value_loss: float = 0.0
    """``best − taken`` on the analyser's value scale (see :attr:`Judgement.values`)."""

    @property
    def loss(self) -> float:
        """``best − taken`` on the analyser's value (never below 0): win-probability points,
        plus a hundredth per point of score margin with ``neural``."""
        if self.action == self.best:
            return 0.0
        return max(0.0, self.value_loss)

    @property
    def label(self) -> str:
        return label(self.loss)

    @property
    def accuracy(self) -> float:
        return decision_accuracy(self.loss)

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "seat": self.seat,
            "round": self.round,
            "action": self.action,
            "best": self.best,
            "win_prob": round(self.win_prob, ROUND_DIGITS),
            "best_win_prob": round(self.best_win_prob, ROUND_DIGITS),
            "loss": round(self.loss, ROUND_DIGITS),
            "label": self.label,
            "legal": self.legal,
        }


@dataclass(frozen=True, slots=True)
class GraphPoint:
    """Every seat's estimated chance of winning at the start of a round (or at the end)."""

    round: int
    win_prob: tuple[float, ...]
    end: bool = False
    """The final point: the true result (each winner's share of the victory)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "end": self.end,
            "win_prob": [round(p, ROUND_DIGITS) for p in self.win_prob],
        }


@dataclass(frozen=True, slots=True)
class TurningPoint:
    round: int
    change: float
    """The seat's win probability at the next point minus at this round's start."""

    def to_dict(self) -> dict[str, Any]:
        return {"round": self.round, "change": round(self.change, ROUND_DIGITS)}


@dataclass(frozen=True, slots=True)
class Review:
    """The review of one record (see :func:`review_record`)."""

    players: tuple[str, ...]
    analyser: Analyser
    seed: int
    seats: tuple[int, ...]
    """The seats whose decisions were judged."""
    decisions: tuple[Decision, ...]
    graph: tuple[GraphPoint, ...]
    over: bool
    scores: tuple[int, ...]
    winners: tuple[int, ...]

    def seat_decisions(self, seat: int) -> list[Decision]:
        return [d for d in self.decisions if d.seat == seat]

    def accuracy(self, seat: int) -> float | None:
        """0–100 (:func:`gonuts.review.labels.seat_accuracy`); ``None`` for a seat not judged or
        with no decision of more than one legal action."""
        if seat not in self.seats:
            return None
        return _seat_accuracy(d.loss for d in self.seat_decisions(seat))

    def counts(self, seat: int) -> dict[str, int]:
        return label_counts([d.label for d in self.seat_decisions(seat)])

    def turning_points(self, seat: int, count: int = TURNING_POINTS) -> list[TurningPoint]:
        """The rounds over which ``seat``'s win probability moved most (largest first)."""
        points = []
        for here, after in itertools.pairwise(self.graph):
            points.append(TurningPoint(here.round, after.win_prob[seat] - here.win_prob[seat]))
        points.sort(key=lambda t: (-abs(t.change), t.round))
        return points[:count]

    def to_dict(self) -> dict[str, Any]:
        """The JSON of ``gonuts review --json``: top-level keys ``players``, ``analyser``,
        ``accuracy``, ``decisions``, ``graph`` (docs/review.md)."""
        accuracy = [self.accuracy(s) for s in range(len(self.players))]
        return {
            "players": [
                {
                    "seat": s,
                    "name": name,
                    "reviewed": s in self.seats,
                    "decisions": len(self.seat_decisions(s)),
                    "counts": self.counts(s),
                    "score": self.scores[s],
                    "winner": s in self.winners,
                    "turning_points": [t.to_dict() for t in self.turning_points(s)],
                }
                for s, name in enumerate(self.players)
            ],
            "analyser": {
                "bot": self.analyser.spec,
                "kind": self.analyser.kind,
                "budget": self.analyser.budget,
                "seed": self.seed,
                "labels": list(LABELS),
                "thresholds": {name: limit for name, limit in THRESHOLDS},
            },
            "accuracy": [None if a is None else round(a, 1) for a in accuracy],
            "decisions": [d.to_dict() for d in self.decisions],
            "graph": [p.to_dict() for p in self.graph],
        }


def decision_rng(seed: int, index: int) -> random.Random:
    """The random stream that judges action ``index``: its own, so a decision's judgement does
    not depend on which other decisions are judged (``players_only``) or in what order."""
    return random.Random(f"gonuts-review/{seed}/{index}")


def review_record(
    record: Record,
    *,
    analyser: Analyser = DEFAULT_ANALYSER,
    seed: int = 0,
    seats: Collection[int] | None = None,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Review:
    """Judge every decision with more than one legal action of ``seats`` (default: all) in
    ``record``, each from the deciding seat's own view at that moment.

    Deterministic for a given record, analyser, seed and seat set. :class:`RecordError` for an
    action that does not fit the game (as :meth:`Record.replay`), ``ValueError`` for a seat
    out of range, :class:`ReviewCancelledError` when ``cancelled()`` turns true (checked before
    each decision)."""
    n = len(record.players)
    chosen = tuple(range(n)) if seats is None else tuple(sorted(set(seats)))
    for s in chosen:
        if not 0 <= s < n:
            raise ValueError(f"no seat {s} in a {n}-player game")
    todo = _decisions_to_judge(record, chosen)
    with one_blas_thread():
        return _review(
            record,
            analyser,
            seed=seed,
            chosen=chosen,
            todo=todo,
            progress=progress,
            cancelled=cancelled,
        )


def _review(
    record: Record,
    analyser: Analyser,
    *,
    seed: int,
    chosen: tuple[int, ...],
    todo: set[int],
    progress: Progress | None,
    cancelled: Callable[[], bool] | None,
) -> Review:
    n = len(record.players)
    game = Game.new(
        record.players, deck=record.initial_deck(), events=False, variants=record.variants
    )
    total = len(todo)
    if progress is not None:
        progress(0, total)
    decisions: list[Decision] = []
    graph: list[GraphPoint] = []
    graph_round = 0
    for index, recorded in enumerate(record.actions):
        if game.phase is Phase.SELECT and game.round != graph_round and not game.is_over:
            graph_round = game.round
            views = [game.view(p) for p in range(n)]
            graph.append(GraphPoint(game.round, tuple(table_win_probabilities(views))))
        if index in todo:
            if cancelled is not None and cancelled():
                raise ReviewCancelledError(f"stopped after {len(decisions)} of {total} decisions")
            view = game.view(recorded.player)
            judgement = judge(view, analyser, decision_rng(seed, index))
            taken = parse_action(recorded.action)
            decisions.append(
                Decision(
                    index=index,
                    seat=recorded.player,
                    round=game.round,
                    action=recorded.action,
                    best=judgement.best.notation,
                    win_prob=judgement.win_probability(taken),
                    best_win_prob=judgement.best_win_probability,
                    legal=len(view.legal),
                    value_loss=judgement.value(judgement.best) - judgement.value(taken),
                )
            )
            if progress is not None:
                progress(len(decisions), total)
        apply_recorded(game, index, recorded.player, recorded.action)
    if game.is_over:
        share = 1.0 / len(game.winner_seats)
        result = tuple(share if p in game.winner_seats else 0.0 for p in range(n))
        graph.append(GraphPoint(game.round, result, end=True))
    return Review(
        players=record.players,
        analyser=analyser,
        seed=seed,
        seats=chosen,
        decisions=tuple(decisions),
        graph=tuple(graph),
        over=game.is_over,
        scores=tuple(game.scores()),
        winners=game.winner_seats if game.is_over else (),
    )


def _decisions_to_judge(record: Record, seats: tuple[int, ...]) -> set[int]:
    """The action indexes to judge: a chosen seat's, with more than one legal action (one
    quick replay first, so that progress can say how many; a bad record fails here, before any
    search)."""
    game = Game.new(
        record.players, deck=record.initial_deck(), events=False, variants=record.variants
    )
    out: set[int] = set()
    for index, recorded in enumerate(record.actions):
        if recorded.player in seats and len(game.legal_action_ids(recorded.player)) > 1:
            out.add(index)
        apply_recorded(game, index, recorded.player, recorded.action)
    return out
