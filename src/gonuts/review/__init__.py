"""Game review: every decision of a finished game judged from the deciding seat's own view.

* :func:`review_record` — a pure function over a record (analyser and budget, seed, seats,
  a progress callback, cancellable) returning a :class:`Review`, whose ``to_dict()`` is the
  JSON of ``gonuts review --json`` (docs/review.md);
* :mod:`gonuts.review.labels` — the labels' thresholds and the accuracy formula;
* :mod:`gonuts.review.engine` — the analysers (``neural:N``, ``mcts:N``, ``neural-mcts:N``);
* :mod:`gonuts.review.validity` — the measurements behind docs/review.md.

The package is a ring around the core that uses the bots (their public API); it imports
nothing from the CLI or the server.
"""

from gonuts.review.engine import (
    ANALYSER_KINDS,
    DEFAULT_ANALYSER,
    DEFAULT_BUDGETS,
    Analyser,
    Judgement,
    judge,
    parse_analyser,
)
from gonuts.review.labels import LABELS, THRESHOLDS, decision_accuracy, label, seat_accuracy
from gonuts.review.run import (
    Decision,
    GraphPoint,
    Review,
    ReviewCancelledError,
    TurningPoint,
    review_record,
)

__all__ = [
    "ANALYSER_KINDS",
    "DEFAULT_ANALYSER",
    "DEFAULT_BUDGETS",
    "LABELS",
    "THRESHOLDS",
    "Analyser",
    "Decision",
    "GraphPoint",
    "Judgement",
    "Review",
    "ReviewCancelledError",
    "TurningPoint",
    "decision_accuracy",
    "judge",
    "label",
    "parse_analyser",
    "review_record",
    "seat_accuracy",
]
