"""A portable seeded shuffle: the same seed gives the same deck on every machine and Python.

Python's :mod:`random` only promises reproducible ``random()`` floats, not ``shuffle``, so the
deck is shuffled with a fully specified algorithm that any implementation can repeat:

* **Generator** — SplitMix64 (Steele, Lea & Flood 2014). The state starts at ``seed mod 2**64``;
  each output adds ``0x9E3779B97F4A7C15`` to the state and mixes it.
* **Bounded integer** — ``below(n)`` draws outputs until one is smaller than
  ``2**64 - (2**64 mod n)`` and returns it ``mod n`` (no modulo bias).
* **Shuffle** — Fisher–Yates over the canonical deck (kinds in ``RULES.md`` table order, top
  card first): for ``i`` from ``len - 1`` down to ``1``, swap items ``i`` and ``below(i + 1)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_LIMITS = [0] + [(1 << 64) - ((1 << 64) % n) for n in range(1, 128)]


class SplitMix64:
    """The SplitMix64 generator; tiny, fast enough for shuffling, and easy to port."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK

    def next(self) -> int:
        """The next 64-bit output."""
        self.state = (self.state + _GOLDEN) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``range(n)``."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next()
            if x < limit:
                return x % n


def seeded_shuffle(items: Sequence[T], seed: int) -> list[T]:
    """A new list: ``items`` shuffled by the documented algorithm."""
    out = list(items)
    # SplitMix64 and below() inlined: this runs once per game, also in fast simulations.
    state = seed & _MASK
    limits = _LIMITS
    for i in range(len(out) - 1, 0, -1):
        bound = i + 1
        limit = limits[bound] if bound < len(limits) else (1 << 64) - ((1 << 64) % bound)
        state = (state + _GOLDEN) & _MASK
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        z ^= z >> 31
        while z >= limit:  # rejection: practically never for deck-sized bounds
            state = (state + _GOLDEN) & _MASK
            z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
            z ^= z >> 31
        j = z % bound
        out[i], out[j] = out[j], out[i]
    return out
