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
from typing import TYPE_CHECKING, Final, TypeVar

from gonuts.native import COMPILED

if TYPE_CHECKING:  # only annotations use it: plain ints when interpreted, C int64 compiled
    from mypy_extensions import i64

T = TypeVar("T")

_MASK: Final = (1 << 64) - 1
_GOLDEN: Final = 0x9E3779B97F4A7C15
_LIMITS: Final = [0] + [(1 << 64) - ((1 << 64) % n) for n in range(1, 128)]


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
    targets = _targets_halves(len(out), seed) if COMPILED else _targets(len(out), seed)
    i = len(out) - 1
    for j in targets:
        out[i], out[j] = out[j], out[i]
        i -= 1
    return out


def _targets(size: int, seed: int) -> list[int]:
    """Fisher-Yates' swap target for ``i`` = ``size - 1`` down to 1: SplitMix64 and ``below``
    inlined on Python's big ints (the fastest form when interpreted)."""
    out: list[int] = []
    state = seed & _MASK
    limits = _LIMITS
    for i in range(size - 1, 0, -1):
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
        out.append(z % bound)
    return out


# -- the same numbers on 32-bit halves ----------------------------------------------------------
# 64-bit values would be heap objects in compiled code (its C ints are signed 64-bit): the
# compiled build computes SplitMix64 on (high, low) 32-bit halves as i64, every intermediate
# below 2**50 so that no operation can overflow; tests check both forms agree.

_M32: Final = 0xFFFFFFFF
_M16: Final = 0xFFFF
_GOLDEN_HI: Final = 0x9E3779B9
_GOLDEN_LO: Final = 0x7F4A7C15
_LIMITS_HI: Final = [limit >> 32 for limit in _LIMITS]
_LIMITS_LO: Final = [limit & _M32 for limit in _LIMITS]


def _mul(  # noqa: PLR0917 - the digits as plain arguments: no tuple on the hot path
    x_hi: i64, x_lo: i64, c3: i64, c2: i64, c1: i64, c0: i64
) -> tuple[i64, i64]:
    """``x * c mod 2**64`` as (high, low) halves, for ``c`` given in 16-bit digits (high first)
    and ``x`` in 32-bit halves: every partial product stays below 2**49."""
    a = x_lo * c0
    b = x_lo * c1
    low = a + ((b & _M16) << 16)
    carry = (low >> 32) + (b >> 16)
    cross1 = x_hi * c0 + (((x_hi * c1) & _M16) << 16)
    cross2 = x_lo * c2 + (((x_lo * c3) & _M16) << 16)
    return (carry + cross1 + cross2) & _M32, low & _M32


def _targets_halves(size: int, seed: int) -> list[int]:
    """:func:`_targets`, computed on 32-bit halves."""
    out: list[int] = []
    s_hi: i64 = (seed >> 32) & _M32
    s_lo: i64 = seed & _M32
    z_hi: i64
    z_lo: i64
    limit_hi: i64
    limit_lo: i64
    bound: i64 = size
    while bound > 1:
        if bound < len(_LIMITS):
            limit_hi, limit_lo = _LIMITS_HI[bound], _LIMITS_LO[bound]
        else:
            limit = (1 << 64) - ((1 << 64) % int(bound))  # as an int: 2**64 is no i64
            limit_hi, limit_lo = limit >> 32, limit & _M32
        while True:
            s_lo += _GOLDEN_LO  # state += 0x9E3779B97F4A7C15
            s_hi = (s_hi + _GOLDEN_HI + (s_lo >> 32)) & _M32
            s_lo &= _M32
            # z ^= z >> 30; z *= _MUL1
            z_hi = s_hi ^ (s_hi >> 30)
            z_lo = s_lo ^ (((s_hi << 2) | (s_lo >> 30)) & _M32)
            z_hi, z_lo = _mul(z_hi, z_lo, 0xBF58, 0x476D, 0x1CE4, 0xE5B9)  # 0xBF58476D1CE4E5B9
            # z ^= z >> 27; z *= _MUL2
            z_lo ^= ((z_hi << 5) | (z_lo >> 27)) & _M32
            z_hi ^= z_hi >> 27
            z_hi, z_lo = _mul(z_hi, z_lo, 0x94D0, 0x49BB, 0x1331, 0x11EB)  # 0x94D049BB133111EB
            # z ^= z >> 31
            z_lo ^= ((z_hi << 1) | (z_lo >> 31)) & _M32
            z_hi ^= z_hi >> 31
            if z_hi < limit_hi or (z_hi == limit_hi and z_lo < limit_lo):
                break  # else rejected: practically never for deck-sized bounds
        out.append((((z_hi % bound) << 32) | z_lo) % bound)
        bound -= 1
    return out
