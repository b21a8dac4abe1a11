"""How an action id splits into its parts: the one decoder of both engines.

Every decision phase offers its choices (``stop`` apart) in one block of the action ids of
:mod:`gonuts.actions`: a choice is ``CHOICE_BASE[phase] + seat * NUM_KINDS + part``, where
``part`` is a card kind, or a row position (0-based) for ``pick``/``discard P``, and ``seat``
is the absolute seat a verb names (0 for the verbs that name none). :mod:`gonuts.powers`
decodes a seated choice with ``seat_kind``, :func:`split`'s arithmetic on plain ints (a C call
when compiled; tests check they agree); :mod:`gonuts.batch` lays out its compact choice
slots from :data:`CHOICE_BASE` and decodes a power's choice with the same :func:`split`, on
plain ints or JAX arrays alike.

>>> from gonuts.actions import parse_action
>>> from gonuts.cards import GLAZED
>>> action = parse_action("take glazed from 2")
>>> seat, kind = split(action.id, CHOICE_BASE[Phase.BEAR_CLAW])
>>> (seat, kind == GLAZED)
(2, True)
>>> split(parse_action("discard 3").id, CHOICE_BASE[Phase.FRENCH_CRULLER])
(0, 2)
"""

from __future__ import annotations

from typing import Final, Protocol, Self, TypeVar

from gonuts import actions as A  # noqa: N812 - the action-id table, read like a namespace
from gonuts.cards import NUM_KINDS
from gonuts.state import Phase

CHOICE_BASE: Final[dict[Phase, int]] = {
    Phase.SELECT: A.PICK_BASE,
    Phase.FRENCH_CRULLER: A.DISCARD_POSITION_BASE,
    Phase.DOUBLE_CHOCOLATE: A.KEEP_BASE,
    Phase.RED_VELVET: A.TAKE_BASE,
    Phase.SPRINKLED: A.GIVE_BASE,
    Phase.BEAR_CLAW: A.TAKE_FROM_BASE,
    Phase.CINNAMON_TWIST: A.PASS_BASE,
    Phase.DAY_OLD: A.TAKE_BASE,
    Phase.MILK: A.DISCARD_BASE,
    Phase.RASPBERRY_FROSTED: A.DISCARD_BASE,
    Phase.STRAWBERRY_GLAZED: A.DISCARD_FROM_BASE,
}
"""The id of each decision phase's first choice (``stop`` is :data:`gonuts.actions.STOP_ID`)."""


class _Integer(Protocol):
    """An int, or an integer array (JAX, NumPy): what :func:`split` computes with."""

    def __sub__(self, other: int, /) -> Self: ...
    def __divmod__(self, other: int, /) -> tuple[Self, Self]: ...


_I = TypeVar("_I", bound=_Integer)


def split(action_id: _I, base: int) -> tuple[_I, _I]:
    """``(seat, part)`` of a choice in the block starting at ``base`` (see the module)."""
    return divmod(action_id - base, NUM_KINDS)
