"""The outbox's SQL: the facts play stored (``gn_outbox``), claimed once across processes.

Play writes the facts (a turn-based decision pending for an account's seat, a game ended; one
row each, the unique index making a second insert a no-op). The dispatcher
(:mod:`gonuts.server.notify.dispatch`) claims the settled ones of the accounts it may tell now
with one ``UPDATE … SET sent_at = now WHERE sent_at IS NULL … RETURNING``: a row is claimed by
one process only (on PostgreSQL the second UPDATE waits for the first's row locks and then no
longer matches), so a fact is sent at most once however many processes dispatch.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import and_, exists, func, select, tuple_, update
from sqlalchemy.orm import aliased

from gonuts.server.kernel.db import (
    Database,
    DeadlineRow,
    FinishedRow,
    OutboxRow,
    SeatRow,
    TableRow,
)


@dataclass(frozen=True, slots=True)
class Fact:
    """One claimed outbox row."""

    id: int
    account_id: int
    table_id: str
    seat: int
    decision: int
    kind: str
    """``turn`` or ``ended``."""
    round: int = 0
    """The game's round when the fact was stored (0: not known)."""


@dataclass(frozen=True, slots=True)
class Waiting:
    """What a ``turn`` fact's table looks like now (None from :meth:`Outbox.waiting`: decided)."""

    due_at: datetime
    name: str
    players: int


class Outbox:
    """``gn_outbox`` for the dispatcher."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def claim(self, now: datetime, settled: datetime, quiet: datetime, limit: int) -> list[Fact]:
        """Mark sent, and return, the unsent facts created by ``settled`` (the grouping delay
        has passed) of at most ``limit`` accounts that were told nothing since ``quiet`` (the
        rate limit), all of each such account's at once (a digest)."""
        recent = aliased(OutboxRow)
        told = exists().where(recent.account_id == OutboxRow.account_id, recent.sent_at > quiet)
        with self.db.autocommit.connect() as c:
            accounts = list(
                c.scalars(
                    select(OutboxRow.account_id)
                    .where(OutboxRow.sent_at.is_(None), OutboxRow.created_at <= settled)
                    .where(~told)
                    .group_by(OutboxRow.account_id)
                    .order_by(func.min(OutboxRow.created_at))
                    .limit(limit)
                )
            )
            if not accounts:
                return []
            rows = c.execute(
                update(OutboxRow)
                .where(
                    OutboxRow.sent_at.is_(None),
                    OutboxRow.account_id.in_(accounts),
                    OutboxRow.created_at <= settled,
                    ~told,
                )
                .values(sent_at=now)
                .returning(
                    OutboxRow.id,
                    OutboxRow.account_id,
                    OutboxRow.table_id,
                    OutboxRow.seat,
                    OutboxRow.decision,
                    OutboxRow.kind,
                    OutboxRow.round,
                )
            ).all()
        return sorted(
            (
                Fact(r.id, r.account_id, r.table_id, r.seat, r.decision, r.kind, r.round)
                for r in rows
            ),
            key=lambda f: f.id,
        )

    def waiting(self, facts: Sequence[Fact]) -> dict[tuple[str, int, int], Waiting]:
        """The ``turn`` facts still pending (their deadline row is there, for that decision),
        by (table, seat, decision), with the deadline and the table's name and size."""
        keys = {(f.table_id, f.seat, f.decision) for f in facts if f.kind == "turn"}
        if not keys:
            return {}
        host = aliased(SeatRow)
        with self.db.autocommit.connect() as c:
            rows = c.execute(
                select(
                    DeadlineRow.table_id,
                    DeadlineRow.seat,
                    DeadlineRow.decision,
                    DeadlineRow.due_at,
                    host.name,
                    TableRow.players,
                )
                .join(TableRow, TableRow.id == DeadlineRow.table_id)
                .join(host, and_(host.table_id == DeadlineRow.table_id, host.seat == 0))
                .where(
                    tuple_(DeadlineRow.table_id, DeadlineRow.seat, DeadlineRow.decision).in_(
                        list(keys)
                    )
                )
            ).all()
        return {
            (r.table_id, r.seat, r.decision): Waiting(r.due_at, r.name or "", r.players)
            for r in rows
        }

    def finished(self, table_ids: Sequence[str]) -> dict[str, tuple[str, int, list[int]]]:
        """Each finished table's name (its host's), size and scores by seat."""
        if not table_ids:
            return {}
        with self.db.autocommit.connect() as c:
            rows = c.execute(
                select(TableRow.id, SeatRow.name, TableRow.players, FinishedRow.scores)
                .join(SeatRow, and_(SeatRow.table_id == TableRow.id, SeatRow.seat == 0))
                .outerjoin(FinishedRow, FinishedRow.table_id == TableRow.id)
                .where(TableRow.id.in_(list(table_ids)))
            ).all()
        return {r.id: (r.name or "", r.players, json.loads(r.scores or "[]")) for r in rows}

    def unsent(self) -> int:
        """How many facts wait (metrics, tests)."""
        with self.db.autocommit.connect() as c:
            return int(c.scalar(select(func.count()).where(OutboxRow.sent_at.is_(None))) or 0)


__all__ = ["Fact", "Outbox", "Waiting"]
