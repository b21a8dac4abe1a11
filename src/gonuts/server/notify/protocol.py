"""Notifications' public face: what a notification says (:class:`Note`) and what delivers it
(:class:`Channel`).

Play decides *when* a player is to be told (a turn-based decision pending for their seat, a
game ended) and keeps each such fact once in an outbox, so that two processes or a restart
never tell it twice; a dispatcher groups what is due for one account into one :class:`Note`
(a digest when several games wait) and hands it to every :class:`Channel`. The channels (Web
Push, e-mail) decide for themselves whether the account wants them and how to say it in the
account's language. They are plug-ins: the dispatcher knows only this protocol.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol

NoteKind = Literal["turn", "digest", "ended"]
"""``turn``: one game waits for the player; ``digest``: several do; ``ended``: a game is over."""


@dataclass(frozen=True, slots=True)
class NoteTable:
    """One game a note is about."""

    table_id: str
    name: str
    """The table's name as the lobby shows it."""
    url: str
    """The table's path on the site (``/t/<id>``); a channel makes it absolute."""
    round: int
    deadline: datetime | None
    """When the clock decides for the player (UTC, aware); ``None`` for an ended game."""
    rank: int | None = None
    """The player's final place (1 = won) in an ended game; ``None`` otherwise."""
    players: int = 0
    """How many seats the table has."""


@dataclass(frozen=True, slots=True)
class Note:
    """What one account is told at once: one game (``turn``/``ended``) or several (``digest``)."""

    account_id: int
    kind: NoteKind
    tables: tuple[NoteTable, ...]


class Channel(Protocol):
    """A way of telling a player (Web Push, e-mail). ``send`` returns whether this channel
    delivered the note (``False``: the account does not use it, or delivery failed — already
    logged); it never raises for a failed delivery, so one broken channel cannot stop the
    others."""

    name: str

    async def send(self, note: Note) -> bool: ...
