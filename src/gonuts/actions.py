"""Actions: the decisions players take, as interned value objects, ids and RECORD.md notation.

Every possible action of any game (2–6 players) has one small integer id, so the action space
is fixed (521 ids): selections, French Cruller discards, ``stop``, and each power's choices by
card kind and, where it names one, by absolute seat. The engine works on ids; the public API
hands out :class:`Action` objects, which are interned — there is exactly one object per id, so
comparing and hashing them is cheap, and they print as the notation of ``RECORD.md``.
"""

from __future__ import annotations

from enum import Enum
from typing import Final

from gonuts.cards import KIND_IDS, MAX_PLAYERS, NUM_KINDS
from gonuts.errors import MalformedActionError

MAX_POSITIONS: Final = MAX_PLAYERS + 1


class Verb(Enum):
    """What an action does; the value is the notation's first word(s) pattern."""

    PICK = "pick P"
    DISCARD_POSITION = "discard P"
    STOP = "stop"
    KEEP = "keep KIND"
    TAKE = "take KIND"
    TAKE_FROM = "take KIND from S"
    GIVE = "give KIND to S"
    PASS = "pass KIND"
    DISCARD = "discard KIND"
    DISCARD_FROM = "discard KIND from S"


# Id layout. Positions are 0-based here (notation is 1-based); seats are absolute.
PICK_BASE: Final = 0
DISCARD_POSITION_BASE: Final = PICK_BASE + MAX_POSITIONS
STOP_ID: Final = DISCARD_POSITION_BASE + MAX_POSITIONS
KEEP_BASE: Final = STOP_ID + 1
TAKE_BASE: Final = KEEP_BASE + NUM_KINDS
TAKE_FROM_BASE: Final = TAKE_BASE + NUM_KINDS
GIVE_BASE: Final = TAKE_FROM_BASE + MAX_PLAYERS * NUM_KINDS
PASS_BASE: Final = GIVE_BASE + MAX_PLAYERS * NUM_KINDS
DISCARD_BASE: Final = PASS_BASE + NUM_KINDS
DISCARD_FROM_BASE: Final = DISCARD_BASE + NUM_KINDS
NUM_ACTIONS: Final = DISCARD_FROM_BASE + MAX_PLAYERS * NUM_KINDS


class Action:
    """One decision, e.g. ``pick 2`` or ``take glazed from 1``. Interned: use :func:`action`."""

    __slots__ = ("id", "kind", "notation", "position", "seat", "verb")

    id: int
    verb: Verb
    position: int | None
    """Row position, 1-based (``pick``, French Cruller ``discard``)."""
    kind: str | None
    """Card kind id (every verb that names a card)."""
    seat: int | None
    """Seat index of the other player (``take … from``, ``give … to``, ``discard … from``)."""
    notation: str

    def __init__(
        self, id_: int, verb: Verb, position: int | None, kind: str | None, seat: int | None
    ) -> None:
        self.id = id_
        self.verb = verb
        self.position = position
        self.kind = kind
        self.seat = seat
        self.notation = _notation(verb, position, kind, seat)

    def __str__(self) -> str:
        return self.notation

    def __repr__(self) -> str:
        return f"Action({self.notation!r})"

    def __lt__(self, other: Action) -> bool:
        return self.notation < other.notation

    def __reduce__(self) -> tuple[object, tuple[int]]:
        # Unpickling yields the interned object, so identity comparison keeps working.
        return (action_from_id, (self.id,))

    @staticmethod
    def parse(text: str) -> Action:
        """The action written ``text`` in RECORD.md notation (strict: exact spelling)."""
        return parse_action(text)


def _notation(verb: Verb, position: int | None, kind: str | None, seat: int | None) -> str:
    if verb is Verb.PICK:
        return f"pick {position}"
    if verb is Verb.DISCARD_POSITION:
        return f"discard {position}"
    if verb is Verb.STOP:
        return "stop"
    if verb is Verb.KEEP:
        return f"keep {kind}"
    if verb is Verb.TAKE:
        return f"take {kind}"
    if verb is Verb.TAKE_FROM:
        return f"take {kind} from {seat}"
    if verb is Verb.GIVE:
        return f"give {kind} to {seat}"
    if verb is Verb.PASS:
        return f"pass {kind}"
    if verb is Verb.DISCARD:
        return f"discard {kind}"
    return f"discard {kind} from {seat}"


def _build() -> tuple[Action, ...]:
    table: list[Action] = []

    def add(verb: Verb, position: int | None, kind: str | None, seat: int | None) -> None:
        table.append(Action(len(table), verb, position, kind, seat))

    for p in range(MAX_POSITIONS):
        add(Verb.PICK, p + 1, None, None)
    for p in range(MAX_POSITIONS):
        add(Verb.DISCARD_POSITION, p + 1, None, None)
    add(Verb.STOP, None, None, None)
    for verb in (Verb.KEEP, Verb.TAKE):
        for k in KIND_IDS:
            add(verb, None, k, None)
    for verb in (Verb.TAKE_FROM, Verb.GIVE):
        for s in range(MAX_PLAYERS):
            for k in KIND_IDS:
                add(verb, None, k, s)
    for verb in (Verb.PASS, Verb.DISCARD):
        for k in KIND_IDS:
            add(verb, None, k, None)
    for s in range(MAX_PLAYERS):
        for k in KIND_IDS:
            add(Verb.DISCARD_FROM, None, k, s)
    return tuple(table)


ACTIONS: Final[tuple[Action, ...]] = _build()
"""Every action, indexed by id."""
assert len(ACTIONS) == NUM_ACTIONS

_BY_NOTATION: Final[dict[str, Action]] = {a.notation: a for a in ACTIONS}


def action_from_id(action_id: int) -> Action:
    return ACTIONS[action_id]


def parse_action(text: object) -> Action:
    """Strictly parse RECORD.md notation; :class:`MalformedActionError` for anything else
    (a non-string too: records and clients send JSON, so the type is checked here).

    The notation is finite, so strict parsing is an exact lookup: a string that is not the
    spelling of some action (extra spaces, unknown kind, position 8, seat 6, …) is malformed.
    Whether the action is *legal* is the game's question, not the parser's.
    """
    found = _BY_NOTATION.get(text) if isinstance(text, str) else None
    if found is None:
        raise MalformedActionError(f"malformed action {text!r}")
    return found


def pick_id(position0: int) -> int:
    return PICK_BASE + position0


def take_from_id(kind: int, seat: int) -> int:
    return TAKE_FROM_BASE + seat * NUM_KINDS + kind


def give_id(kind: int, seat: int) -> int:
    return GIVE_BASE + seat * NUM_KINDS + kind


def discard_from_id(kind: int, seat: int) -> int:
    return DISCARD_FROM_BASE + seat * NUM_KINDS + kind
