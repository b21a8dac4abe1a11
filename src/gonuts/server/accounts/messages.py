"""Accounts' wire: the request and response bodies of ``/api/account…``, ``/api/leaderboard``
and ``/api/players/…`` (docs/protocol.md, "Accounts")."""

from __future__ import annotations

from pydantic import Field

from gonuts.server.transport.wire import Out, Strict


class Credentials(Strict):
    name: str = Field(max_length=200)
    password: str = Field(max_length=1024)
    """8 to 256 characters (longer: ``malformed``)."""


class AccountInfo(Out):
    name: str
    rating: int
    """The displayed rating: 1000 + 40 × (mu − 3σ); 1000 for a new account."""
    games: int
    """Rated games played."""
    wins: int


class NewPassword(Strict):
    password: str = Field(max_length=1024)
    """The current password."""
    new_password: str = Field(max_length=1024)
    """8 to 256 characters."""


class Password(Strict):
    password: str = Field(max_length=1024)


class SessionsEnded(Out):
    ended: int
    """Sessions ended (for a new password: the account's other sessions)."""


class Me(Out):
    """The signed-in account, or null for a guest."""

    account: AccountInfo | None


class Leaderboard(Out):
    players: list[AccountInfo]
    """Accounts with a rated game, best first."""
    total: int
    limit: int
    offset: int


class RatingPoint(Out):
    game_id: str
    at: str
    rank: int
    rating: int
    """The displayed rating after this game."""
    change: int


class ProfileGame(Out):
    id: str
    finished_at: str
    players: list[str]
    scores: list[int]
    winners: list[int]
    seat: int
    rating_change: int | None
    """Null for an unrated game (fewer than two accounts at the table)."""
    replay_url: str


class Profile(Out):
    name: str
    rating: int
    games: int
    wins: int
    member_since: str
    history: list[RatingPoint]
    """The last 200 rating changes, oldest first."""
    recent_games: list[ProfileGame]
    """The last 20 finished games, rated or not, newest first."""


__all__ = [
    "AccountInfo",
    "Credentials",
    "Leaderboard",
    "Me",
    "NewPassword",
    "Password",
    "Profile",
    "ProfileGame",
    "RatingPoint",
    "SessionsEnded",
]
