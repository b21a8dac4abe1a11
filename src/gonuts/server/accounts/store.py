"""Accounts' SQL: accounts, sign-in sessions, ratings and their history, the leaderboard,
a player's games."""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError

from gonuts.server.kernel.db import (
    AccountRow,
    AccountSessionRow,
    Database,
    FinishedRow,
    NotifySettingsRow,
    OutboxRow,
    PushSubscriptionRow,
    RatingRow,
    SeatRow,
    SecretRow,
    utcnow,
)


class AccountStore(Database):
    """Accounts, sessions and ratings in the server's database."""

    def create_account(
        self, name: str, name_key: str, password_hash: str, mu: float, sigma: float
    ) -> int | None:
        """A new account's id; None if the (folded) name is taken."""
        try:
            with self.sessions() as s, s.begin():
                row = AccountRow(
                    name=name,
                    name_key=name_key,
                    password_hash=password_hash,
                    mu=mu,
                    sigma=sigma,
                    games=0,
                    wins=0,
                )
                s.add(row)
                s.flush()
                return row.id
        except IntegrityError:
            return None

    def credentials(self, name_key: str) -> tuple[int, str] | None:
        """The account id and password hash of a (folded) name, or None."""
        with self.autocommit.connect() as c:
            row = c.execute(
                select(AccountRow.id, AccountRow.password_hash).where(
                    AccountRow.name_key == name_key
                )
            ).first()
        return None if row is None else (row.id, row.password_hash)

    def password_hash(self, account_id: int) -> str | None:
        with self.autocommit.connect() as c:
            found: str | None = c.scalar(
                select(AccountRow.password_hash).where(AccountRow.id == account_id)
            )
        return found

    def set_password_hash(self, account_id: int, password_hash: str) -> None:
        """Store a rehashed password (the hasher's parameters changed since it was made)."""
        with self.autocommit.connect() as c:
            c.execute(
                update(AccountRow)
                .where(AccountRow.id == account_id)
                .values(password_hash=password_hash)
            )

    def account(self, account_id: int) -> StoredAccount | None:
        with self.sessions() as s:
            row = s.get(AccountRow, account_id)
            return None if row is None else _account(row)

    def account_by_key(self, name_key: str) -> StoredAccount | None:
        with self.sessions() as s:
            row = s.scalars(select(AccountRow).where(AccountRow.name_key == name_key)).first()
            return None if row is None else _account(row)

    def create_session(self, token_hash: str, account_id: int, expires_at: datetime) -> None:
        """A signed-in browser; expired sessions are dropped on the way."""
        now = utcnow()
        with self.sessions() as s, s.begin():
            s.execute(delete(AccountSessionRow).where(AccountSessionRow.expires_at <= now))
            s.add(
                AccountSessionRow(
                    token_hash=token_hash,
                    account_id=account_id,
                    created_at=now,
                    expires_at=expires_at,
                )
            )

    def session_account(self, token_hash: str) -> StoredAccount | None:
        """The account of an unexpired session, or None."""
        with self.sessions() as s:
            row = s.scalars(
                select(AccountRow)
                .join(AccountSessionRow, AccountSessionRow.account_id == AccountRow.id)
                .where(
                    AccountSessionRow.token_hash == token_hash,
                    AccountSessionRow.expires_at > utcnow(),
                )
            ).first()
            return None if row is None else _account(row)

    def delete_session(self, token_hash: str) -> None:
        with self.autocommit.connect() as c:
            c.execute(delete(AccountSessionRow).where(AccountSessionRow.token_hash == token_hash))

    def delete_sessions(self, account_id: int, keep: str | None = None) -> int:
        """End the account's sessions but the one whose token hash is ``keep``; how many."""
        with self.autocommit.connect() as c:
            query = delete(AccountSessionRow).where(AccountSessionRow.account_id == account_id)
            if keep is not None:
                query = query.where(AccountSessionRow.token_hash != keep)
            return c.execute(query).rowcount

    def delete_account(self, account_id: int) -> bool:
        """Remove an account, its sessions, its rating history, its notification facts, settings
        and push subscriptions (its seats must have been unlinked first:
        ``gonuts.server.play.protocol.anonymise_account``). Whether it was there."""
        with self.sessions() as s, s.begin():
            s.execute(delete(AccountSessionRow).where(AccountSessionRow.account_id == account_id))
            s.execute(delete(RatingRow).where(RatingRow.account_id == account_id))
            s.execute(delete(OutboxRow).where(OutboxRow.account_id == account_id))  # its notes
            s.execute(
                delete(PushSubscriptionRow).where(PushSubscriptionRow.account_id == account_id)
            )
            s.execute(delete(NotifySettingsRow).where(NotifySettingsRow.account_id == account_id))
            gone = s.scalar(select(AccountRow.id).where(AccountRow.id == account_id))
            s.execute(delete(AccountRow).where(AccountRow.id == account_id))
            return gone is not None

    def notify_export(self, account_id: int) -> dict[str, object]:
        """The account's notification settings as its export shows them."""
        with self.sessions() as s:
            row = s.get(NotifySettingsRow, account_id)
            browsers = s.scalars(
                select(PushSubscriptionRow.created_at)
                .where(PushSubscriptionRow.account_id == account_id)
                .order_by(PushSubscriptionRow.id)
            ).all()
        return {
            "push": row.push if row is not None else True,
            "email": row.email if row is not None else False,
            "address": row.address if row is not None else None,
            "verified": row.verified if row is not None else False,
            "language": row.lang if row is not None else None,
            "push_subscriptions": [at.isoformat() + "Z" for at in browsers],
        }

    def secret(self, name: str) -> bytes:
        """The shared secret ``name`` (32 random bytes), made by whichever process asks first."""
        with self.autocommit.connect() as c:
            found = c.scalar(select(SecretRow.value).where(SecretRow.name == name))
        if found is None:
            try:
                with self.sessions() as s, s.begin():
                    s.add(SecretRow(name=name, value=secrets.token_hex(32)))
            except IntegrityError:
                pass  # another process made it first: theirs is the one
            with self.autocommit.connect() as c:
                found = c.scalar(select(SecretRow.value).where(SecretRow.name == name))
        assert found is not None
        return bytes.fromhex(found)

    def finished_game_ids(self, account_id: int, page: int = 200) -> Iterator[tuple[str, int]]:
        """Every finished game the account sat at (by game id) and its seat, read ``page``
        at a time (an export of any length in bounded memory)."""
        after = ""
        while True:
            with self.autocommit.connect() as c:
                rows = c.execute(
                    select(SeatRow.table_id, SeatRow.seat)
                    .join(FinishedRow, FinishedRow.table_id == SeatRow.table_id)
                    .where(SeatRow.account_id == account_id, SeatRow.table_id > after)
                    .order_by(SeatRow.table_id)
                    .limit(page)
                ).all()
            for r in rows:
                yield r.table_id, r.seat
            if len(rows) < page:
                return
            after = rows[-1].table_id

    def rate_game(self, table_id: str, ranks: Sequence[int], rater: Rater) -> bool:
        """Rate a finished game once: ``rater`` gets every seat (accounts with their ratings
        before) and the ranks, and returns each account's new (mu, sigma); they are stored
        with the history rows in one transaction. False (nothing done) if the game was rated
        already or has fewer than two accounts."""
        with self.sessions() as s, s.begin():
            done = s.scalar(select(RatingRow.table_id).where(RatingRow.table_id == table_id))
            seats = s.scalars(
                select(SeatRow).where(SeatRow.table_id == table_id).order_by(SeatRow.seat)
            ).all()
            ids = sorted({x.account_id for x in seats if x.account_id is not None})
            if done is not None or len(ids) < 2 or len(seats) != len(ranks):
                return False
            accounts = {
                a.id: a
                for a in s.scalars(
                    select(AccountRow)
                    .where(AccountRow.id.in_(ids))
                    .order_by(AccountRow.id)
                    .with_for_update()
                ).all()
            }
            rated = [
                RatedSeat(
                    x.seat,
                    x.kind,
                    x.level,
                    x.account_id,
                    accounts[x.account_id].mu if x.account_id is not None else None,
                    accounts[x.account_id].sigma if x.account_id is not None else None,
                )
                for x in seats
            ]
            new = rater(rated, ranks)
            now = utcnow()
            for x in rated:
                if x.account_id is None:
                    continue
                row = accounts[x.account_id]
                mu, sigma = new[x.account_id]
                s.add(
                    RatingRow(
                        account_id=row.id,
                        table_id=table_id,
                        seat=x.seat,
                        rank=ranks[x.seat],
                        mu_before=row.mu,
                        sigma_before=row.sigma,
                        mu=mu,
                        sigma=sigma,
                        rated_at=now,
                    )
                )
                row.mu, row.sigma = mu, sigma
                row.games += 1
                row.wins += ranks[x.seat] == 1
            return True

    def leaderboard(self, limit: int, offset: int) -> tuple[list[StoredAccount], int]:
        """Accounts with a rated game, best first (by mu − 3σ), ``limit`` from ``offset``; and
        how many there are."""
        with self.sessions() as s:
            rated = AccountRow.games > 0
            total = s.scalar(select(func.count()).select_from(AccountRow).where(rated)) or 0
            rows = s.scalars(
                select(AccountRow)
                .where(rated)
                .order_by((AccountRow.mu - 3 * AccountRow.sigma).desc(), AccountRow.name_key)
                .limit(limit)
                .offset(offset)
            ).all()
            return [_account(r) for r in rows], int(total)

    def rating_history(self, account_id: int, limit: int) -> list[RatingChange]:
        """The account's last ``limit`` rating changes, oldest first."""
        with self.sessions() as s:
            rows = s.scalars(
                select(RatingRow)
                .where(RatingRow.account_id == account_id)
                .order_by(RatingRow.rated_at.desc(), RatingRow.table_id)
                .limit(limit)
            ).all()
            return [
                RatingChange(
                    r.table_id, r.rated_at, r.rank, r.mu_before, r.sigma_before, r.mu, r.sigma
                )
                for r in reversed(rows)
            ]

    def account_games(self, account_id: int, limit: int) -> list[AccountGame]:
        """The account's last ``limit`` finished games (rated or not), newest first."""
        with self.autocommit.connect() as c:
            rows = c.execute(
                select(
                    FinishedRow.table_id,
                    FinishedRow.finished_at,
                    FinishedRow.players,
                    FinishedRow.scores,
                    FinishedRow.winners,
                    SeatRow.seat,
                    RatingRow.mu_before,
                    RatingRow.sigma_before,
                    RatingRow.mu,
                    RatingRow.sigma,
                )
                .join(SeatRow, SeatRow.table_id == FinishedRow.table_id)
                .outerjoin(
                    RatingRow,
                    (RatingRow.table_id == FinishedRow.table_id)
                    & (RatingRow.account_id == account_id),
                )
                .where(SeatRow.account_id == account_id)
                .order_by(FinishedRow.finished_at.desc(), FinishedRow.table_id)
                .limit(limit)
            ).all()
        return [
            AccountGame(
                id=r.table_id,
                finished_at=r.finished_at,
                players=json.loads(r.players),
                scores=json.loads(r.scores),
                winners=json.loads(r.winners),
                seat=r.seat,
                before=None if r.mu_before is None else (r.mu_before, r.sigma_before),
                after=None if r.mu is None else (r.mu, r.sigma),
            )
            for r in rows
        ]


@dataclass(frozen=True, slots=True)
class StoredAccount:
    id: int
    name: str
    mu: float
    sigma: float
    games: int
    wins: int
    created_at: datetime


def _account(row: AccountRow) -> StoredAccount:
    return StoredAccount(row.id, row.name, row.mu, row.sigma, row.games, row.wins, row.created_at)


@dataclass(frozen=True, slots=True)
class RatedSeat:
    """A seat of a game being rated: an account's rating before it, or a guest's or bot's."""

    seat: int
    kind: str
    level: str | None
    account_id: int | None
    mu: float | None
    sigma: float | None


Rater = Callable[[Sequence[RatedSeat], Sequence[int]], dict[int, tuple[float, float]]]
"""Seats and their ranks → each account's new (mu, sigma):
:func:`gonuts.server.accounts.ratings.rate`."""


@dataclass(frozen=True, slots=True)
class RatingChange:
    table_id: str
    rated_at: datetime
    rank: int
    mu_before: float
    sigma_before: float
    mu: float
    sigma: float


@dataclass(frozen=True, slots=True)
class AccountGame:
    id: str
    finished_at: datetime
    players: list[str]
    scores: list[int]
    winners: list[int]
    seat: int
    before: tuple[float, float] | None
    """(mu, sigma) before the game, if it was rated."""
    after: tuple[float, float] | None
