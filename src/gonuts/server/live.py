"""The live tables one server process holds in memory, and the connections watching them.

Plain data with no I/O of its own: the service (:mod:`gonuts.server.service`) changes it, the
relay (:mod:`gonuts.server.relay`) fills in what other processes did, and the messages
(:mod:`gonuts.server.messages`) describe it to clients.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final, Protocol

import pydantic_core

from gonuts.bots import Bot
from gonuts.game import Game

log = logging.getLogger("gonuts.server")

REPLACEMENT_LEVEL: Final = "medium"
"""The level of the bot that plays for a player who left."""


def to_json(message: dict[str, Any]) -> str:
    """Compact JSON text, UTF-8 as is: the same as ``json.dumps(..., ensure_ascii=False,
    separators=(",", ":"))``, three times faster (pydantic's Rust encoder)."""
    return pydantic_core.to_json(message).decode("utf-8")


class Sender(Protocol):
    """A WebSocket as the service sees it (Starlette's, or a test's stand-in)."""

    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


@dataclass(eq=False)
class Conn:
    """One WebSocket connection: a seat (None for a spectator) and what it has been sent."""

    sender: Sender
    seat: int | None
    lang: str
    sent_events: int = 0
    send_lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def send(self, message: dict[str, Any]) -> None:
        text = to_json(message)
        async with self.send_lock:
            try:
                await self.sender.send_text(text)
            except Exception:  # a closed socket: its handler cleans up
                log.debug("send failed", exc_info=True)

    async def close(self, code: int, reason: str) -> None:
        """Close the socket (its handler then disconnects it from its table)."""
        async with self.send_lock:
            try:
                await self.sender.close(code, reason)
            except Exception:  # closed already
                log.debug("close failed", exc_info=True)


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


@dataclass
class Changes:
    """What catching a table up with the database changed."""

    state: bool = False
    """New actions (or the game started): send the new state."""
    table: bool = False
    """Seats, status or the next table changed: send the table summary."""


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
    idle_since: float | None = None
    """When the last connection left a finished table (for ``Service.evict_idle``)."""

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
