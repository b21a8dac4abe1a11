"""Search budgets as the bots' names spell them (``mcts:500``, ``neural-mcts:0.5s``).

Its own module so that :mod:`gonuts.bots.base` (which builds bots by name) and
:mod:`gonuts.bots.neural_mcts` (which base imports lazily) both use it without importing each
other.
"""

from __future__ import annotations


def parse_budget(spec: str) -> tuple[int | None, float | None]:
    """``"500"`` → 500 iterations; ``"0.5s"`` → 0.5 seconds. ``ValueError`` otherwise.

    >>> parse_budget("500"), parse_budget("0.5s")
    ((500, None), (None, 0.5))
    """
    try:
        if spec.endswith("s"):
            seconds = float(spec[:-1])
            if seconds > 0:
                return None, seconds
        else:
            iterations = int(spec)
            if iterations > 0:
                return iterations, None
    except ValueError:
        pass
    raise ValueError(
        f"bad search budget {spec!r}: use N (iterations) or Xs (seconds), e.g. 500 or 0.5s"
    )


def poll_signals() -> None:
    """Nothing, interpreted: the search loops call it now and then so that Ctrl-C stops them.

    Python raises ``KeyboardInterrupt`` for a pending SIGINT only when its interpreter loop
    runs; a loop compiled with mypyc (:data:`gonuts.build.COMPILED_MODULES`) that calls only C
    functions would never get there. This module stays interpreted for that reason.
    """
