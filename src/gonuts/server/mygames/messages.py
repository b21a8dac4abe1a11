"""My games' wire: the saved seats a browser sends, the listing it gets back."""

from __future__ import annotations

from typing import Annotated, Final, Literal

from pydantic import Field

from gonuts.server.mygames.service import MAX_SAVED
from gonuts.server.transport.wire import Out, Strict

ID_PATTERN: Final = r"^[A-Za-z0-9_-]+$"
"""Table ids and seat tokens are URL-safe base64 (``secrets.token_urlsafe``): nothing else can
match, and nothing else reaches the SQL (PostgreSQL refuses a NUL in a string, for one)."""


class SavedSeat(Strict):
    """One seat the browser holds: its table and its token (as ``localStorage`` keeps them)."""

    table: Annotated[str, Field(min_length=1, max_length=32, pattern=ID_PATTERN)]
    token: Annotated[str, Field(min_length=1, max_length=64, pattern=ID_PATTERN)]


class SavedSeats(Strict):
    """``POST /api/my-games``: the browser's saved seats (at most :data:`MAX_SAVED`)."""

    seats: list[SavedSeat] = Field(default_factory=list, max_length=MAX_SAVED)


class MyGame(Out):
    table: str
    status: Literal["open", "playing"]
    name: str | None
    """Your name at this table."""
    seat: int
    players: int
    opponents: list[str]
    """The other seats' names (bots too), in seat order; free seats are counted apart."""
    free_seats: int
    round: int
    """0 while the table is filling."""
    turn_based: bool
    clock: int | None
    variants: list[str]
    waiting: bool
    """Your seat must decide now."""
    deadline: str | None
    """When the clock decides for you (ISO UTC), if known: see docs/protocol.md."""
    url: str


class MyGames(Out):
    games: list[MyGame]
    waiting: int
    """How many of ``games`` wait for you (the header's badge)."""
    stale: list[str]
    """Saved seats' tables that lead to no unfinished game of yours (finished, unknown, a
    token that holds no seat there): the browser may stop sending them."""
