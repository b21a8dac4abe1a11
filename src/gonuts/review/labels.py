"""Labels and accuracy: how a decision's win-probability loss becomes a word and a number.

The loss of a decision is ``best − taken`` in win-probability points (0 … 1): the analyser's
estimate of the seat's chance of winning after its best action, minus the estimate after the
action taken. The bands follow chess.com's expected-points bands; the per-decision accuracy is
lichess's curve on win-percentage loss; a seat's accuracy blends the mean and the harmonic mean
of its decisions' accuracies, as lichess blends a weighted mean and a harmonic mean.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Final

LABELS: Final = ("best", "excellent", "good", "inaccuracy", "mistake", "blunder")
"""Every label, best first."""

THRESHOLDS: Final = (
    ("best", 0.005),
    ("excellent", 0.02),
    ("good", 0.05),
    ("inaccuracy", 0.10),
    ("mistake", 0.20),
)
"""(label, the largest loss that still earns it); a larger loss than the last is a blunder.
``best`` is the analyser's best action or one within half a point of it: two actions that
close are the same to an analyser that samples (their order changes with the seed)."""

EPSILON: Final = 1e-9
"""Losses this small count as zero (floating-point noise between equal estimates)."""

LICHESS_A: Final = 103.1668
LICHESS_B: Final = 0.04354
LICHESS_C: Final = 3.1669


def label(loss: float) -> str:
    """The label of a decision that lost ``loss`` win-probability points (0: best)."""
    if math.isnan(loss) or loss < 0:
        raise ValueError(f"a loss is a number >= 0, not {loss!r}")
    for name, limit in THRESHOLDS:
        if loss <= limit + EPSILON:
            return name
    return "blunder"


def decision_accuracy(loss: float) -> float:
    """0–100 for one decision: lichess's ``103.1668·exp(−0.04354·Δ) − 3.1669`` on the loss Δ in
    percentage points (0 → 100, 0.05 → 79.8, 0.10 → 63.6, 0.20 → 40.0, 0.50 → 8.5), clipped."""
    if math.isnan(loss) or loss < 0:
        raise ValueError(f"a loss is a number >= 0, not {loss!r}")
    value = LICHESS_A * math.exp(-LICHESS_B * 100.0 * loss) - LICHESS_C
    return min(100.0, max(0.0, value))


def seat_accuracy(losses: Iterable[float]) -> float | None:
    """A seat's accuracy 0–100 over its decisions' losses: the mean of the arithmetic and the
    harmonic mean of the decisions' accuracies (the harmonic mean weighs blunders, as lichess
    does; each accuracy is floored at 1 for it, and it never exceeds the mean). ``None`` with
    no decision."""
    values = [decision_accuracy(loss) for loss in losses]
    if not values:
        return None
    mean = sum(values) / len(values)
    harmonic = min(mean, len(values) / sum(1.0 / max(1.0, v) for v in values))
    return (mean + harmonic) / 2.0


def label_counts(labels: Sequence[str]) -> dict[str, int]:
    """How many decisions earned each label (every label present, best first)."""
    counts = dict.fromkeys(LABELS, 0)
    for name in labels:
        counts[name] += 1
    return counts
