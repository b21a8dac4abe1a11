"""House-rule variants (RULES.md "Variants (house rules)"): their names and how to check them.

The publisher's texts read two ways in a few places; the default game is this project's
reading, and each other reading is a named variant a game may switch on (several at once).
The powers in :mod:`gonuts.powers` read ``state.config.variants``; everything else (records,
command lines, servers) checks names here, so an unknown name is one clear error everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from gonuts.errors import GonutsError

SPRINKLED_ANY_CARD: Final = "sprinkled_any_card"
"""Sprinkled: the card given may be any card you own, this Sprinkled included."""
MILK_ANY_THREE: Final = "milk_any_three"
"""Milk: the three cards discarded may include this Milk (as the second or third)."""
TWIST_PASS_ANY: Final = "twist_pass_any"
"""Cinnamon Twist: its taker may pass this Twist; discarded only if someone has no card."""

VARIANTS: Final[tuple[str, ...]] = (SPRINKLED_ANY_CARD, MILK_ANY_THREE, TWIST_PASS_ANY)
"""Every variant name, in the order of RULES.md (also the order records list them in)."""


class UnknownVariantError(GonutsError, ValueError):
    """A variant name that RULES.md does not define."""


def check_variants(names: Iterable[str]) -> frozenset[str]:
    """The set of ``names``, after checking each is a variant (:class:`UnknownVariantError`)."""
    if isinstance(names, str):  # a lone name would otherwise be read letter by letter
        names = (names,)
    chosen = frozenset(names)
    unknown = sorted(n for n in chosen if n not in VARIANTS)
    if unknown:
        raise UnknownVariantError(
            f"unknown variant {unknown[0]!r} (variants: {', '.join(VARIANTS)})"
        )
    return chosen


def ordered(variants: Iterable[str]) -> tuple[str, ...]:
    """``variants`` in the canonical order of :data:`VARIANTS` (for records and display)."""
    chosen = set(variants)
    return tuple(v for v in VARIANTS if v in chosen)
