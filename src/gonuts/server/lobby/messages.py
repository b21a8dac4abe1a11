"""The lobby's wire: the bodies of creating and joining a table, and what they answer."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from gonuts.server.play.protocol import MAX_CLOCK, MIN_CLOCK, BotLevel, TableSummary
from gonuts.server.transport.wire import Out, Strict


class SeatSpec(Strict):
    kind: Literal["human", "bot"]
    level: BotLevel | None = None


class CreateTable(Strict):
    seats: list[SeatSpec] = Field(min_length=2, max_length=6)
    name: str | None = Field(default=None, max_length=200)
    variants: list[Annotated[str, Field(max_length=40)]] = Field(default_factory=list, max_length=8)
    """House rules (RULES.md "Variants"); checked by
    :func:`~gonuts.server.lobby.rules.new_table`."""
    clock: int | None = Field(default=None, ge=MIN_CLOCK, le=MAX_CLOCK)
    """Seconds per decision (the turn clock), null for none; absent: the default
    (:func:`gonuts.server.play.clock.default_clock`)."""
    chat: bool = True
    """Whether the table's players may chat (the host may turn it off)."""


class CreateTutorial(Strict):
    """``POST /api/tutorial``: the player's name at the guide's table."""

    name: str = Field(max_length=200)


class JoinTable(Strict):
    name: str = Field(max_length=200)


class Seated(Out):
    """A table and the caller's seat at it (``seat``/``token`` null: created as a watcher)."""

    table: TableSummary
    seat: int | None
    token: str | None


class TableList(Out):
    tables: list[TableSummary]


class SetSeat(Strict):
    """The host's ``POST /api/tables/{id}/seats/{seat}``: a bot of ``level``, or a free seat
    for a person (a guest sitting there loses it)."""

    kind: Literal["human", "bot"]
    level: BotLevel | None = None


class StartNow(Strict):
    """The host's ``POST /api/tables/{id}/start``: bots of ``level`` in the empty seats."""

    level: BotLevel | None = None


class Cancelled(Out):
    cancelled: bool


class Room(Out):
    """``GET /api/tables/{id}/room``: the waiting room's host (a seat; null: nobody's, e.g.
    "Play now" tables) and whether the table's chat is on."""

    host_seat: int | None
    chat: bool
