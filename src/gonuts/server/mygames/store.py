"""My games' SQL: the unfinished tables where an account, or a saved seat token, sits; those
tables' seats, stored deadlines and actions, in plain values.

Reads only, a few round trips per request whatever the number of tables (``IN`` lists bounded
by the service's caps); play writes these rows (``play/store.py``), the turn clock writes
``gn_deadlines``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select

from gonuts.server.kernel.db import (
    MAX_ID,
    ActionRow,
    Database,
    DeadlineRow,
    SeatRow,
    TableRow,
    hash_token,
)

UNFINISHED = ("open", "playing")


@dataclass(frozen=True, slots=True)
class MySeat:
    """A seat of a table (public parts only: never its token)."""

    seat: int
    kind: str
    name: str | None
    replaced: bool
    account_id: int | None


@dataclass(frozen=True, slots=True)
class MyTable:
    id: str
    status: str
    created_at: datetime
    clock: int | None
    variants: tuple[str, ...]
    deck: tuple[str, ...]
    """The stored deck (secret: only to rebuild the game here, never sent)."""
    seats: tuple[MySeat, ...]


class MyGamesStore(Database):
    """Which unfinished tables are whose, and what is needed to say whether they wait."""

    def account_seats(self, account_id: int, limit: int) -> list[tuple[str, int]]:
        """(table, seat) of the account's unfinished tables, newest first, at most ``limit``."""
        with self.autocommit.connect() as c:
            rows = c.execute(
                select(SeatRow.table_id, SeatRow.seat)
                .join(TableRow, TableRow.id == SeatRow.table_id)
                .where(SeatRow.account_id == account_id, TableRow.status.in_(UNFINISHED))
                .order_by(TableRow.created_at.desc(), TableRow.id)
                .limit(limit)
            ).all()
        return [(r.table_id, r.seat) for r in rows]

    def token_seats(
        self, pairs: Sequence[tuple[str, str]]
    ) -> tuple[list[tuple[str, int]], list[str]]:
        """The saved seats ``(table, token)`` that hold a seat at an unfinished table, as
        (table, seat), and the tables of the others (finished, unknown, or a token that
        holds no seat there: ``stale``). A forged token matches nothing."""
        wanted = {(t, hash_token(tok)) for t, tok in pairs if len(t) <= MAX_ID}
        if not wanted:
            return [], sorted({t for t, _ in pairs})
        with self.autocommit.connect() as c:
            rows = c.execute(
                select(SeatRow.table_id, SeatRow.seat, SeatRow.token_hash, TableRow.status)
                .join(TableRow, TableRow.id == SeatRow.table_id)
                .where(
                    SeatRow.table_id.in_({t for t, _ in wanted}),
                    SeatRow.token_hash.in_({h for _, h in wanted}),
                )
            ).all()
        found = [
            (r.table_id, r.seat, r.status)
            for r in rows
            if (r.table_id, r.token_hash) in wanted  # (both in their lists, not as a pair)
        ]
        seats = [(t, s) for t, s, status in found if status in UNFINISHED]
        live = {t for t, _ in seats}
        stale = sorted({t for t, _ in pairs} - live)
        return seats, stale

    def tables(self, ids: Iterable[str]) -> dict[str, MyTable]:
        """The tables ``ids`` with their seats, by id (unknown ids are left out)."""
        wanted = sorted(set(ids))
        if not wanted:
            return {}
        with self.autocommit.connect() as c:
            tables = c.execute(select(TableRow).where(TableRow.id.in_(wanted))).all()
            seats = c.execute(
                select(SeatRow).where(SeatRow.table_id.in_(wanted)).order_by(SeatRow.seat)
            ).all()
        by_table: dict[str, list[MySeat]] = {}
        for r in seats:
            by_table.setdefault(r.table_id, []).append(
                MySeat(r.seat, r.kind, r.name, bool(r.replaced), r.account_id)
            )
        return {
            r.id: MyTable(
                id=r.id,
                status=r.status,
                created_at=r.created_at,
                clock=r.clock,
                variants=tuple(v for v in (r.variants or "").split(",") if v),
                deck=tuple(json.loads(r.deck)),
                seats=tuple(by_table.get(r.id, ())),
            )
            for r in tables
        }

    def deadlines(self, ids: Iterable[str]) -> dict[tuple[str, int], datetime]:
        """The stored deadlines (naive UTC) of the tables ``ids``, by (table, seat)."""
        wanted = sorted(set(ids))
        if not wanted:
            return {}
        with self.autocommit.connect() as c:
            rows = c.execute(
                select(DeadlineRow.table_id, DeadlineRow.seat, DeadlineRow.due_at).where(
                    DeadlineRow.table_id.in_(wanted)
                )
            ).all()
        return {(r.table_id, r.seat): r.due_at for r in rows}

    def action_counts(self, ids: Iterable[str]) -> dict[str, int]:
        """How many actions each of the tables ``ids`` has stored (0 for none)."""
        wanted = sorted(set(ids))
        if not wanted:
            return {}
        with self.autocommit.connect() as c:
            rows = c.execute(
                select(ActionRow.table_id, func.count())
                .where(ActionRow.table_id.in_(wanted))
                .group_by(ActionRow.table_id)
            ).all()
        counts = dict.fromkeys(wanted, 0)
        counts.update({r[0]: int(r[1]) for r in rows})
        return counts

    def table_actions(self, table_id: str) -> list[tuple[int, str]]:
        """A table's stored actions in order, as (seat, notation)."""
        with self.autocommit.connect() as c:
            rows = c.execute(
                select(ActionRow.seat, ActionRow.notation)
                .where(ActionRow.table_id == table_id)
                .order_by(ActionRow.seq)
            ).all()
        return [(r.seat, r.notation) for r in rows]
