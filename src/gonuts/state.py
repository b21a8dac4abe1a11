"""The compact game state: plain lists of small ints, cheap to copy.

Search copies states millions of times, so the state is a handful of flat ``list[int]`` fields
(card kinds are indexes into :data:`gonuts.cards.KINDS`) and copying is a few list slices.
Configuration that never changes during a game (seat names, the deck as dealt) lives in a
shared immutable :class:`GameConfig`. The rules that change a state are in :mod:`gonuts.rules`;
the friendly API on top is :class:`gonuts.game.Game`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final, NamedTuple

from gonuts.cards import NUM_KINDS
from gonuts.events import Event
from gonuts.native import COMPILED

K: Final = NUM_KINDS


class History(NamedTuple):
    """A recorded action and the one before it: a linked list, so copying a state shares its
    history instead of copying it. A tuple: ``previous, player, action_id = node``."""

    previous: History | None
    player: int
    action_id: int


class Phase(Enum):
    """What the game is waiting for."""

    # Members are singletons compared by identity: hash them by identity too (C speed; the
    # default hashes the name in Python, and the rules look powers up by phase).
    __hash__ = object.__hash__

    SELECT = "select"
    """Every player secretly picks a row position."""
    FRENCH_CRULLER = "french_cruller"
    DOUBLE_CHOCOLATE = "double_chocolate"
    RED_VELVET = "red_velvet"
    SPRINKLED = "sprinkled"
    BEAR_CLAW = "bear_claw"
    CINNAMON_TWIST = "cinnamon_twist"
    """Every player (with a real choice) secretly picks a card to pass left."""
    DAY_OLD = "day_old"
    MILK = "milk"
    RASPBERRY_FROSTED = "raspberry_frosted"
    STRAWBERRY_GLAZED = "strawberry_glazed"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class GameConfig:
    """What is fixed for a whole game; shared by every copy of its states."""

    players: tuple[str, ...]
    initial_deck: tuple[int, ...]
    """The deck as shuffled, top card first (so a record can be written from any state)."""
    variants: frozenset[str] = frozenset()
    """House-rule variants in play (:mod:`gonuts.variants`); empty for the default game."""

    @property
    def num_players(self) -> int:
        return len(self.players)


class GameState:
    """Everything about a game in progress, as plain data (see module docstring)."""

    __slots__ = (
        "actor",
        "coll",
        "config",
        "deck",
        "discard",
        "events",
        "history",
        "known",
        "n",
        "passes",
        "phase",
        "picks",
        "pos",
        "round",
        "row",
        "step",
        "winners",
    )

    config: GameConfig
    n: int
    """Number of players."""
    deck: list[int]
    """The deck, bottom card first: the top card is ``deck[-1]``."""
    row: list[int]
    """Row positions 0 … n (shown 1-based); ``-1`` where empty."""
    discard: list[int]
    """The discard pile, bottom first: the top card is ``discard[-1]``."""
    coll: list[int]
    """Collections, flat: ``coll[player * K + kind]`` is a count."""
    round: int
    picks: list[int]
    """Each player's selection this round (0-based position), ``-1`` until chosen."""
    phase: Phase
    pos: int
    """The row position being resolved (0-based) while powers are pending."""
    actor: int
    """The player whose power is being resolved (and who decides, in one-player phases)."""
    step: int
    """Progress inside a multi-step power (Day-Old takes, Milk discards)."""
    passes: list[int]
    """Cinnamon Twist: kind each player passes, ``-1`` until chosen."""
    known: dict[int, tuple[int, int]]
    """Private deck knowledge: player → (deck length L, kind) meaning ``deck[L-1]`` is kind."""
    winners: tuple[int, ...]
    events: list[Event] | None
    """The event log, or None when not kept (search copies)."""
    history: History | None

    def __init__(
        self,
        config: GameConfig,
        *,
        deck: list[int],
        row: list[int],
        discard: list[int] | None = None,
        coll: list[int] | None = None,
        round: int = 1,
        picks: list[int] | None = None,
        phase: Phase = Phase.SELECT,
        pos: int = 0,
        actor: int = -1,
        step: int = 0,
        passes: list[int] | None = None,
        known: dict[int, tuple[int, int]] | None = None,
        winners: tuple[int, ...] = (),
        events: list[Event] | None = None,
        history: History | None = None,
    ) -> None:
        """The one way to build a state from its parts (setup, determinization, environments).

        Omitted fields take their value at the start of a round of selection: empty discard and
        collections, no picks, nothing known. Lists passed in become the state's own (not copied).
        :meth:`copy` does not come through here: it is the search hot path.
        """
        n = config.num_players
        self.config = config
        self.n = n
        self.deck = deck
        self.row = row
        self.discard = [] if discard is None else discard
        self.coll = [0] * (n * K) if coll is None else coll
        self.round = round
        self.picks = [-1] * n if picks is None else picks
        self.phase = phase
        self.pos = pos
        self.actor = actor
        self.step = step
        self.passes = [] if passes is None else passes
        self.known = {} if known is None else known
        self.winners = winners
        self.events = events
        self.history = history
        if len(row) != n + 1 or len(self.coll) != n * K or len(self.picks) != n:
            raise ValueError(
                f"a {n}-player state needs {n + 1} row positions, {n} picks "
                f"and {n * K} collection counts"
            )

    def copy(self, *, events: bool = True) -> GameState:
        """An independent copy. ``events=False`` drops the event log (much cheaper for search)."""
        if COMPILED:  # the constructor is a direct C call there (and __new__ would run it)
            return GameState(
                self.config,
                deck=self.deck[:],
                row=self.row[:],
                discard=self.discard[:],
                coll=self.coll[:],
                round=self.round,
                picks=self.picks[:],
                phase=self.phase,
                pos=self.pos,
                actor=self.actor,
                step=self.step,
                passes=self.passes[:],
                known=dict(self.known) if self.known else {},
                winners=self.winners,
                events=self.events[:] if (events and self.events is not None) else None,
                history=self.history,
            )
        c = object.__new__(GameState)  # interpreted: skipping __init__ is much cheaper
        c.config = self.config
        c.n = self.n
        c.deck = self.deck[:]
        c.row = self.row[:]
        c.discard = self.discard[:]
        c.coll = self.coll[:]
        c.round = self.round
        c.picks = self.picks[:]
        c.phase = self.phase
        c.pos = self.pos
        c.actor = self.actor
        c.step = self.step
        c.passes = self.passes[:]
        c.known = dict(self.known) if self.known else {}
        c.winners = self.winners
        c.events = self.events[:] if (events and self.events is not None) else None
        c.history = self.history
        return c

    def __eq__(self, other: object) -> bool:
        """The same position (what :mod:`gonuts.position` writes): players, variants and every
        field the rules read; the event log, the history and the deck as dealt do not count."""
        if not isinstance(other, GameState):
            return NotImplemented
        return (
            self.config.players == other.config.players
            and self.config.variants == other.config.variants
            and self.round == other.round
            and self.phase is other.phase
            and (self.pos, self.actor, self.step) == (other.pos, other.actor, other.step)
            and (self.row, self.deck, self.discard) == (other.row, other.deck, other.discard)
            and (self.coll, self.picks, self.passes) == (other.coll, other.picks, other.passes)
            and (self.known, self.winners) == (other.known, other.winners)
        )

    __hash__ = None  # type: ignore[assignment]  # mutable: equal states may change apart

    # -- small queries used by the rules, scoring and views -----------------------------------

    def count(self, player: int, kind: int) -> int:
        return self.coll[player * K + kind]

    def collection_counts(self, player: int) -> list[int]:
        """Counts of each kind in ``player``'s collection (a new list)."""
        return self.coll[player * K : player * K + K]

    def cards_owned(self, player: int) -> int:
        return sum(self.coll[player * K : player * K + K])

    def kinds_in_discard(self) -> list[int]:
        """Distinct kinds in the discard pile, ascending."""
        return sorted(set(self.discard))
