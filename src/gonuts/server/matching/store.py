"""The "Play now" queue's SQL (``gn_play_now``, migration 0009) and the matcher's lock.

The queue lives in the database, so every server process on it sees every waiting client;
:meth:`QueueStore.matcher_lock` lets one matcher at a time take them (a PostgreSQL advisory
lock, held on one connection for a matching round; SQLite serves one process, whose own lock
is the service's).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from sqlalchemy import delete, func, select, text, update
from sqlalchemy.exc import IntegrityError

from gonuts.server.kernel.db import Database, PlayNowRow, utcnow

MATCHER_LOCK: Final = 0x676E706E
"""The advisory lock key of the matcher ("gnpn")."""


class AlreadyQueuedError(Exception):
    """This client already has a request in the queue."""


class QueueFullError(Exception):
    """The queue holds as many clients as it may."""


@dataclass(frozen=True, slots=True)
class Queued:
    id: int
    name: str
    lang: str
    counts: tuple[int, ...]
    account_id: int | None
    rating: float | None
    queued_at: datetime


@dataclass(frozen=True, slots=True)
class Assignment:
    id: int
    table_id: str
    seat: int
    token: str


class QueueStore(Database):
    """The clients waiting for "Play now", and where the matcher seated them."""

    def enqueue(  # noqa: PLR0917 - one row's columns
        self,
        client_keys: Sequence[str],
        name: str,
        lang: str,
        counts: tuple[int, ...],
        account_id: int | None,
        rating: float | None,
        max_size: int,
    ) -> int:
        """Queue a client under the first of ``client_keys`` not queued already (each key is
        unique: a client's keys bound its requests in the queue); its row's id.
        :class:`AlreadyQueuedError` if every key is taken, :class:`QueueFullError` beyond
        ``max_size`` waiting clients."""
        with self.sessions() as s:
            waiting = s.scalar(
                select(func.count()).select_from(PlayNowRow).where(PlayNowRow.table_id.is_(None))
            )
            if (waiting or 0) >= max_size:
                raise QueueFullError
            for key in client_keys:
                row = PlayNowRow(
                    client_key=key,
                    name=name,
                    lang=lang,
                    counts=",".join(map(str, counts)),
                    account_id=account_id,
                    rating=rating,
                    queued_at=utcnow(),
                )
                s.add(row)
                try:
                    s.commit()
                except IntegrityError:
                    s.rollback()
                    continue
                return row.id
            raise AlreadyQueuedError

    def waiting(self, limit: int) -> list[Queued]:
        """The clients not seated yet, longest waiting first."""
        with self.sessions() as s:
            rows = s.scalars(
                select(PlayNowRow)
                .where(PlayNowRow.table_id.is_(None))
                .order_by(PlayNowRow.queued_at, PlayNowRow.id)
                .limit(limit)
            ).all()
            return [
                Queued(
                    r.id,
                    r.name,
                    r.lang,
                    tuple(int(c) for c in r.counts.split(",")),
                    r.account_id,
                    r.rating,
                    r.queued_at,
                )
                for r in rows
            ]

    def assign(self, seated: list[Assignment]) -> bool:
        """Seat a group, all or none (one transaction): False if one of them left meanwhile."""
        with self.sessions() as s, s.begin():
            for a in seated:
                done = s.execute(
                    update(PlayNowRow)
                    .where(PlayNowRow.id == a.id, PlayNowRow.table_id.is_(None))
                    .values(table_id=a.table_id, seat=a.seat, token=a.token)
                )
                if done.rowcount != 1:  # type: ignore[attr-defined]
                    s.rollback()
                    return False
            return True

    def seated(self, row_id: int) -> tuple[str, int, str] | None:
        """(table, seat, token) once the matcher has seated the row's client, else None."""
        with self.sessions() as s:
            row = s.get(PlayNowRow, row_id)
            if row is None or row.table_id is None or row.seat is None or row.token is None:
                return None
            return row.table_id, row.seat, row.token

    def leave(self, row_id: int) -> None:
        """The client's row goes (it left, or it has read its seat)."""
        with self.autocommit.connect() as c:
            c.execute(delete(PlayNowRow).where(PlayNowRow.id == row_id))

    def unqueue_account(self, account_id: int) -> None:
        """A deleted account leaves the queue (its row names it)."""
        with self.autocommit.connect() as c:
            c.execute(delete(PlayNowRow).where(PlayNowRow.account_id == account_id))

    def gone(self, row_id: int) -> bool:
        """Whether the row is no longer in the queue (nor seated)."""
        with self.sessions() as s:
            return s.get(PlayNowRow, row_id) is None

    @contextmanager
    def matcher_lock(self) -> Iterator[bool]:
        """Whether this process may match now (PostgreSQL: an advisory lock, not waited for;
        held until the block ends)."""
        if self.dialect != "postgresql":
            yield True
            return
        with self.autocommit.connect() as c:
            got = bool(
                c.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": MATCHER_LOCK}).scalar()
            )
            try:
                yield got
            finally:
                if got:
                    c.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": MATCHER_LOCK})
