"""The live tables one server process holds in memory: seats, the game, the sockets watching.

The model of a table (its sockets are :class:`~gonuts.server.transport.conn.Conn`, whose I/O
is the transport's): the service (:mod:`gonuts.server.play.service`) changes it, the
relay (:mod:`gonuts.server.kernel.relay`) fills in what other processes did, and the messages
(:mod:`gonuts.server.play.messages`) describe it to clients.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

from gonuts.bots import Bot
from gonuts.game import Game
from gonuts.server.play.store import StoredAction
from gonuts.server.transport.conn import Conn

REPLACEMENT_LEVEL: Final = "medium"
"""The level of the bot that plays for a player who left."""
CLOCK_ID: Final = "clock:"
"""The prefix of the client ids of the actions the turn clock takes (refused from clients)."""


@dataclass
class Seat:
    seat: int
    kind: str
    level: str | None
    name: str | None
    token_hash: str | None
    hints: bool = False
    replaced: bool = False

    @property
    def taken(self) -> bool:
        return self.kind == "bot" or self.token_hash is not None

    @property
    def bot_level(self) -> str | None:
        """The level of the bot playing this seat now, or None for a human at the controls."""
        if self.kind == "bot":
            return self.level or REPLACEMENT_LEVEL
        return REPLACEMENT_LEVEL if self.replaced else None


@dataclass(eq=False)
class LiveTable:
    id: str
    created_at: datetime
    status: str
    deck: tuple[str, ...]
    seats: list[Seat]
    next_table: str | None = None
    variants: tuple[str, ...] = ()
    """House rules (RULES.md "Variants") in canonical order; () for the default game."""
    clock: int | None = None
    """Seconds per pending human decision (the turn clock, :mod:`gonuts.server.play.clock`)."""
    deadlines: dict[int, float] = field(default_factory=dict)
    """When each human seat that must decide runs out of time (monotonic clock)."""
    deadlines_at: dict[int, datetime] = field(default_factory=dict)
    """The same as absolute times (naive UTC), for a turn-based table (``play/deadlines.py``)."""
    replace_at: dict[int, float] = field(default_factory=dict)
    """When an absent player's seat is due to be played by a bot (monotonic clock)."""
    game: Game | None = None
    conns: set[Conn] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    bot_task: asyncio.Task[None] | None = None
    replace_tasks: dict[int, asyncio.Task[None]] = field(default_factory=dict)
    bots: dict[int, Bot] = field(default_factory=dict)
    hinted: set[tuple[int, int]] = field(default_factory=set)
    """(seat, version) pairs whose hint is computed or being computed: one search each."""
    hint_results: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)
    """The finished hints of the current version, for a seat that turns hints on again."""
    remote: dict[str, tuple[frozenset[int], float]] = field(default_factory=dict)
    """Seats connected to other server processes: by process, (seats, expiry) (relay.py)."""
    acked: dict[tuple[int, str], tuple[str, int]] = field(default_factory=dict)
    """Client ids of the stored actions: (seat, id) -> (notation, version after it)."""
    pending: dict[int, StoredAction] = field(default_factory=dict)
    """The open secret choices of the current simultaneous phase, by seat: their stored
    actions, which a seat may still replace until the last one has chosen (``play/picks.py``)."""
    ratings: dict[tuple[int, bool], dict[str, int | None] | None] = field(default_factory=dict)
    """The seated accounts' ratings for the ``state`` messages, by (seat, game over): looked
    up once per seat, and once more when the game is over (``Service.rating_of``)."""
    clocked: dict[int, int] = field(default_factory=dict)
    """The versions reached by the turn clock's actions (ids ``clock:<n>``), and whose
    decision each was: kept with ``acked`` so the clock never scans all the ids per move."""
    idle_since: float | None = None
    """When the last connection left a finished table (for ``Service.evict_idle``)."""
    summary_due: asyncio.TimerHandle | None = None
    """A coalesced table summary waiting to go out (``Service.summary_soon``)."""
    summary_sent: float = float("-inf")
    """When the last table summary went out (monotonic clock)."""
    spectator_states: dict[tuple[int | None, str, int], tuple[str, int]] = field(
        default_factory=dict
    )
    """Full states built for arriving spectators, shared by those arriving together
    (``Service.send_state``), with the version and the time they were built at."""
    spectator_states_at: tuple[int, float] = (-1, 0.0)

    _version_of: Game | None = field(default=None, repr=False)
    _version: int = field(default=0, repr=False)

    @property
    def version(self) -> int:
        """Actions taken so far; counted once per game object (a move replaces the game)."""
        game = self.game
        if game is None:
            return 0
        if game is not self._version_of:
            self._version_of, self._version = game, len(game.actions_taken())
        return self._version

    def advance(self, game: Game, version: int) -> None:
        """Make ``game`` current, ``version`` being its number of actions (the caller knows
        it: one more than before a move), so that nobody has to count them."""
        self.game = game
        self._version_of, self._version = game, version

    def remember(self, seat: int, client_id: str, notation: str, version: int) -> None:
        """Note a stored action's client id (``version``: the table's version after it)."""
        self.acked[(seat, client_id)] = (notation, version)
        if client_id.startswith(CLOCK_ID):
            self.clocked[version] = seat

    def connected(self, seat: int) -> bool:
        return any(c.seat == seat for c in self.conns) or any(
            seat in seats for seats, _ in self.remote.values()
        )

    def connected_seats(self) -> list[bool]:
        return [self.connected(s.seat) for s in self.seats]

    def new_game(self) -> Game:
        """The game at its start: the seats' names and the stored deck."""
        names = [s.name or f"Player {s.seat + 1}" for s in self.seats]
        return Game.new(names, deck=self.deck, variants=self.variants)
