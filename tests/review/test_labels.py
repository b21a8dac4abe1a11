"""The labels' bands and the accuracy formula (docs/review.md)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gonuts.review.labels import (
    LABELS,
    THRESHOLDS,
    decision_accuracy,
    label,
    label_counts,
    seat_accuracy,
)

LOSSES = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@pytest.mark.parametrize(
    ("loss", "expected"),
    [
        (0.0, "best"),
        (0.005, "best"),
        (0.0051, "excellent"),
        (0.02, "excellent"),
        (0.0201, "good"),
        (0.05, "good"),
        (0.0501, "inaccuracy"),
        (0.10, "inaccuracy"),
        (0.1001, "mistake"),
        (0.20, "mistake"),
        (0.2001, "blunder"),
        (1.0, "blunder"),
    ],
)
def test_bands_at_their_edges(loss: float, expected: str) -> None:
    assert label(loss) == expected


def test_thresholds_are_the_documented_bands() -> None:
    assert dict(THRESHOLDS) == {
        "best": 0.005,
        "excellent": 0.02,
        "good": 0.05,
        "inaccuracy": 0.10,
        "mistake": 0.20,
    }
    assert [name for name, _ in THRESHOLDS] + ["blunder"] == list(LABELS)


@given(LOSSES, LOSSES)
def test_a_larger_loss_never_earns_a_better_label(a: float, b: float) -> None:
    low, high = sorted((a, b))
    assert LABELS.index(label(low)) <= LABELS.index(label(high))
    assert decision_accuracy(low) >= decision_accuracy(high)


@pytest.mark.parametrize(
    ("loss", "accuracy"),
    [(0.0, 100.0), (0.05, 79.8), (0.10, 63.6), (0.20, 40.0), (0.50, 8.5), (1.0, 0.0)],
)
def test_decision_accuracy_is_lichess_curve_on_percentage_points(
    loss: float, accuracy: float
) -> None:
    expected = min(100.0, max(0.0, 103.1668 * math.exp(-0.04354 * 100 * loss) - 3.1669))
    assert decision_accuracy(loss) == pytest.approx(expected)
    assert decision_accuracy(loss) == pytest.approx(accuracy, abs=0.05)


@pytest.mark.parametrize("bad", [-0.01, math.nan])
def test_a_negative_or_nan_loss_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="loss"):
        label(bad)
    with pytest.raises(ValueError, match="loss"):
        decision_accuracy(bad)


def test_seat_accuracy_blends_mean_and_harmonic_mean() -> None:
    assert seat_accuracy([]) is None
    assert seat_accuracy([0.0, 0.0]) == pytest.approx(100.0, abs=1e-3)
    values = [decision_accuracy(x) for x in (0.0, 0.1, 0.3)]
    mean = sum(values) / 3
    harmonic = 3 / sum(1 / v for v in values)
    assert seat_accuracy([0.0, 0.1, 0.3]) == pytest.approx((mean + harmonic) / 2)
    # one blunder weighs more than its share of the mean: the harmonic half
    one_blunder = seat_accuracy([0.0] * 9 + [1.0])
    assert one_blunder is not None and one_blunder < 0.9 * 100.0


@given(st.lists(LOSSES, min_size=1, max_size=30))
def test_seat_accuracy_is_between_0_and_100(losses: list[float]) -> None:
    value = seat_accuracy(losses)
    assert value is not None
    assert 0.0 <= value <= 100.0
    assert value <= max(decision_accuracy(x) for x in losses) + 1e-9


def test_counts_name_every_label() -> None:
    assert label_counts(["best", "blunder", "best"]) == {
        "best": 2,
        "excellent": 0,
        "good": 0,
        "inaccuracy": 0,
        "mistake": 0,
        "blunder": 1,
    }
