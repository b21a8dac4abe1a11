"""End-game scores and winners of one game's collections, as :mod:`gonuts.scoring` counts.

>>> import jax.numpy as jnp
>>> from gonuts import cards as C
>>> coll = jnp.zeros((2, C.NUM_KINDS), jnp.int32).at[0, C.GLAZED].set(2).at[1, C.PLAIN].set(1)
>>> scores(coll).tolist(), winners(coll).tolist()
([4, 4], [True, False])
"""

from __future__ import annotations

from typing import Final

import jax.numpy as jnp

from gonuts import cards as C  # noqa: N812 - kind indexes by name
from gonuts import scoring
from gonuts.batch.state import Array, K

# Scoring tables as arrays (read from gonuts.scoring, the one source of the numbers).
_FIXED: Final = tuple(scoring.FIXED_POINTS.get(k, 0) for k in range(K))
_HOLES: Final = scoring.SET_TABLES[C.DONUT_HOLES]
_JELLY: Final = scoring.SET_TABLES[C.JELLY_FILLED]
_BOSTON: Final = scoring.SET_TABLES[C.BOSTON_CREAM]


def _set_points(table: tuple[int, ...], count: Array) -> Array:
    return jnp.asarray(table, jnp.int32)[jnp.minimum(count, len(table) - 1)]


def scores(coll: Array) -> Array:
    """``[n, K]`` collections → ``[n]`` end-game scores (as :func:`gonuts.scoring.scores`)."""
    sizes = coll.sum(axis=1)
    plain = coll[:, C.PLAIN]
    most = plain.max()
    tied = (plain == most).sum()
    bonus = jnp.where(
        (most > 0) & (plain == most),
        jnp.where(tied == 1, scoring.PLAIN_MAJORITY_BONUS, scoring.PLAIN_TIE_BONUS),
        0,
    )
    total = plain + bonus + (coll * jnp.asarray(_FIXED, jnp.int32)).sum(axis=1)
    total += _set_points(_HOLES, coll[:, C.DONUT_HOLES])
    total += _set_points(_JELLY, coll[:, C.JELLY_FILLED])
    total += _set_points(_BOSTON, coll[:, C.BOSTON_CREAM])
    kinds = (coll > 0).sum(axis=1)
    total += jnp.where(
        kinds >= scoring.MAPLE_BAR_MIN_KINDS, scoring.MAPLE_BAR_POINTS * coll[:, C.MAPLE_BAR], 0
    )
    total += jnp.where(
        kinds <= scoring.MUCHO_MATCHA_MAX_KINDS,
        scoring.MUCHO_MATCHA_POINTS * coll[:, C.MUCHO_MATCHA],
        0,
    )
    total += jnp.where(
        sizes <= scoring.OLD_FASHIONED_MAX_CARDS,
        scoring.OLD_FASHIONED_POINTS * coll[:, C.OLD_FASHIONED],
        0,
    )
    total += jnp.where(
        sizes == sizes.min(), scoring.MAPLE_FROSTED_POINTS * coll[:, C.MAPLE_FROSTED], 0
    )
    negatives = coll[:, jnp.asarray(C.NEGATIVE_KINDS)].sum(axis=1)
    return total + coll[:, C.COFFEE] * negatives


def winners(coll: Array) -> Array:
    """``[n]`` bool: highest total, then most cards; still tied, all share the victory."""
    totals = scores(coll)
    sizes = coll.sum(axis=1)
    tied = totals == totals.max()
    most = jnp.where(tied, sizes, -1).max()
    return tied & (sizes == most)
