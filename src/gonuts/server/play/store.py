"""Play's SQL: tables, seats and actions (and which account sits where).

:class:`PlayStore` is what the play service (:mod:`gonuts.server.play.service`) reads and
writes; it speaks in plain values (:class:`StoredTable`, :class:`StoredAction`), never ORM rows,
so the service does not know SQL and a test or another backend can stand in for it. The schema
and its migrations are :mod:`gonuts.server.kernel.db`; the other features' SQL is in their own
``store.py``, and :class:`gonuts.server.store.TableStore` is all of them on one database. The
methods are synchronous and short (one or two round trips); the service calls them between
awaits, holding a table's lock where order matters.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final, Literal

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from gonuts.record import Record
from gonuts.server.kernel.db import (
    MAX_ID,
    ActionRow,
    Database,
    FinishedRow,
    SeatRow,
    TableRow,
    utcnow,
)

Status = Literal["open", "playing", "finished"]
INSERT_ACTION: Final = insert(ActionRow)


@dataclass(frozen=True, slots=True)
class StoredSeat:
    seat: int
    kind: str
    """``human`` or ``bot``."""
    level: str | None = None
    name: str | None = None
    token_hash: str | None = None
    hints: bool = False
    replaced: bool = False
    account_id: int | None = None
    """The signed-in player's account (None: a guest or a bot)."""


@dataclass(frozen=True, slots=True)
class StoredTable:
    id: str
    status: str
    deck: tuple[str, ...]
    """The shuffled deck, top first (kind ids): secret, never sent to a client."""
    seats: tuple[StoredSeat, ...]
    created_at: datetime | None = None
    next_table: str | None = None
    variants: tuple[str, ...] = ()
    """House rules in canonical order (the ``variants`` column holds them comma-separated)."""
    clock: int | None = None
    """Seconds per pending human decision (the turn clock); None: no clock."""


@dataclass(frozen=True, slots=True)
class StoredAction:
    seq: int
    """0 for a game's first action."""
    seat: int
    notation: str
    client_id: str | None = None


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """What is kept of a finished game for the replay list: the record is the whole game."""

    players: tuple[str, ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    record: str


class ActionTakenError(Exception):
    """Another writer stored this action number (or this client id) first."""


class PlayStore(Database):
    """Tables, seats and actions (and who sits where) in one SQL database."""

    # -- tables and seats -------------------------------------------------------------------------

    def create(self, table: StoredTable) -> None:
        """Store a new table and its seats (a seat with a token counts as seen now)."""
        with self.sessions() as s, s.begin():
            s.add(self._row(table))

    def create_next(self, table_id: str, new: StoredTable) -> tuple[str, bool]:
        """Store ``new`` as the table after ``table_id`` unless one is already there.

        One transaction with the finished table's row locked, so two players asking at once,
        even through two server processes, get one new table. (The next table's id, made now.)
        """
        with self.sessions() as s, s.begin():
            row = s.get(TableRow, table_id, with_for_update=True)
            if row is None:
                raise KeyError(table_id)
            if row.next_table is not None:
                return row.next_table, False
            s.add(self._row(new))
            row.next_table = new.id
            return new.id, True

    @staticmethod
    def _row(table: StoredTable) -> TableRow:
        now = utcnow()
        seats = [
            SeatRow(
                seat=x.seat,
                kind=x.kind,
                level=x.level,
                name=x.name,
                token_hash=x.token_hash,
                hints=x.hints,
                replaced=x.replaced,
                last_seen=now if x.token_hash is not None else None,
                account_id=x.account_id,
            )
            for x in table.seats
        ]
        return TableRow(
            id=table.id,
            players=len(seats),
            deck=json.dumps(list(table.deck)),
            status=table.status,
            seats=seats,
            variants=",".join(table.variants),
            clock=table.clock,
        )

    def load(self, table_id: str) -> StoredTable | None:
        """A table and its seats (without its actions: :meth:`actions_since`), or None."""
        if len(table_id) > MAX_ID:
            return None
        with self.sessions() as s:
            row = s.get(TableRow, table_id)
            if row is None:
                return None
            return StoredTable(
                id=row.id,
                status=row.status,
                deck=tuple(json.loads(row.deck)),
                seats=tuple(
                    StoredSeat(r.seat, r.kind, r.level, r.name, r.token_hash, r.hints, r.replaced)
                    for r in row.seats
                ),
                created_at=row.created_at,
                next_table=row.next_table,
                variants=tuple(v for v in (row.variants or "").split(",") if v),
                clock=row.clock,
            )

    def take_seat(
        self, table_id: str, seat: int, name: str, token_hash: str, account_id: int | None = None
    ) -> bool:
        """Give a free seat to a player (signed in: ``account_id``); False if someone took it
        first (another process)."""
        with self.sessions() as s, s.begin():
            row = s.get(SeatRow, (table_id, seat), with_for_update=True)
            if row is None or row.token_hash is not None:
                return False
            row.name, row.token_hash, row.last_seen = name, token_hash, utcnow()
            row.account_id = account_id
            return True

    def update_seat(
        self,
        table_id: str,
        seat: int,
        *,
        seen: bool = False,
        replaced: bool | None = None,
        hints: bool | None = None,
    ) -> None:
        """Set the seat's flags given (and, if ``seen``, that its player was seen now): one
        autocommitted UPDATE."""
        values: dict[str, object] = {"last_seen": utcnow()} if seen else {}
        if replaced is not None:
            values["replaced"] = replaced
        if hints is not None:
            values["hints"] = hints
        with self.autocommit.connect() as c:
            c.execute(
                update(SeatRow)
                .where(SeatRow.table_id == table_id, SeatRow.seat == seat)
                .values(**values)
            )

    def mark_seen(self, seats: dict[tuple[str, int], bool]) -> None:
        """Many seats seen now, in one transaction (:mod:`gonuts.server.play.presence`):
        ``{(table, seat): back}``, ``back`` also clearing the seat's ``replaced`` flag."""
        now = utcnow()
        by_back: dict[bool, list[dict[str, object]]] = {False: [], True: []}
        for (table_id, seat), back in seats.items():
            by_back[back].append({"t": table_id, "s": seat, "now": now})
        where = (SeatRow.table_id == bindparam("t"), SeatRow.seat == bindparam("s"))
        with self.autocommit.begin() as c:
            for back, params in by_back.items():
                if params:
                    values: dict[str, object] = {"last_seen": bindparam("now")}
                    if back:
                        values["replaced"] = False
                    c.execute(update(SeatRow).where(*where).values(**values), params)

    def start(self, table_id: str) -> None:
        """Every seat is taken: the game is on."""
        with self.autocommit.connect() as c:
            c.execute(update(TableRow).where(TableRow.id == table_id).values(status="playing"))

    # -- actions ----------------------------------------------------------------------------------

    def actions_since(self, table_id: str, seq: int = 0) -> list[StoredAction]:
        """The table's actions from number ``seq`` on, in order: for loading (0) and for
        catching up with what other processes stored (the version this process has)."""
        with self.autocommit.connect() as c:
            rows = c.execute(
                select(ActionRow.seq, ActionRow.seat, ActionRow.notation, ActionRow.client_id)
                .where(ActionRow.table_id == table_id, ActionRow.seq >= seq)
                .order_by(ActionRow.seq)
            ).all()
        return [StoredAction(r.seq, r.seat, r.notation, r.client_id) for r in rows]

    def append_action(
        self,
        table_id: str,
        action: StoredAction,
        finished: FinishedGame | None = None,
        expect: Sequence[StoredAction] = (),
    ) -> None:
        """Store action number ``action.seq``; with ``finished``, the game's end with it.

        ``expect``: the stored actions it is built on (the other seats' pending choices, when it
        closes a simultaneous phase): with the table's row locked, as :meth:`replace_action`
        locks it, they are checked to be still stored so (another process may have changed
        one meanwhile). Raises :class:`ActionTakenError` if that number or that client id is
        already stored, or an expected action differs.
        """
        values = {
            "table_id": table_id,
            "seq": action.seq,
            "seat": action.seat,
            "notation": action.notation,
            "client_id": action.client_id,
        }
        try:
            if finished is None and not expect:
                # The hot path: one INSERT, atomic by itself, so autocommit: on PostgreSQL one
                # round trip instead of three (BEGIN, INSERT, COMMIT). Core, not the ORM.
                with self.autocommit.connect() as c:
                    c.execute(INSERT_ACTION, values)
                return
            with self.sessions() as s, s.begin():
                if expect:
                    s.get(TableRow, table_id, with_for_update=True)
                    if self._stored(s, table_id, expect) != list(expect):
                        raise ActionTakenError(f"{table_id}: a pending choice changed")
                s.add(ActionRow(**values))
                s.flush()  # the action first: a conflict is reported as such
                if finished is None:
                    return
                row = s.get(TableRow, table_id)
                assert row is not None
                row.status = "finished"
                s.add(
                    FinishedRow(
                        table_id=table_id,
                        players=json.dumps(list(finished.players)),
                        scores=json.dumps(list(finished.scores)),
                        winners=json.dumps(list(finished.winners)),
                        record=finished.record,
                    )
                )
        except IntegrityError:
            raise ActionTakenError(f"{table_id} #{action.seq}") from None

    @staticmethod
    def _stored(s: Session, table_id: str, actions: Sequence[StoredAction]) -> list[StoredAction]:
        """The stored actions with the numbers of ``actions``, in their order."""
        rows = s.execute(
            select(ActionRow.seq, ActionRow.seat, ActionRow.notation, ActionRow.client_id).where(
                ActionRow.table_id == table_id, ActionRow.seq.in_([a.seq for a in actions])
            )
        ).all()
        by_seq = {r.seq: StoredAction(r.seq, r.seat, r.notation, r.client_id) for r in rows}
        return [by_seq[a.seq] for a in actions if a.seq in by_seq]

    def replace_action(self, table_id: str, action: StoredAction, version: int) -> None:
        """Rewrite stored action number ``action.seq`` (a pending choice changed before the
        reveal: the record keeps only the final one), unless the table has moved on from
        ``version`` actions: :class:`ActionTakenError` then (or if the client id is taken).

        One transaction with the table's row locked, as a phase-closing :meth:`append_action`
        locks it: of a change and the reveal, whichever commits second sees the first.
        """
        try:
            with self.sessions() as s, s.begin():
                s.get(TableRow, table_id, with_for_update=True)
                later = s.scalar(
                    select(ActionRow.seq)
                    .where(ActionRow.table_id == table_id, ActionRow.seq >= version)
                    .limit(1)
                )
                if later is not None:
                    raise ActionTakenError(f"{table_id} #{later}: the table moved on")
                done = s.execute(
                    update(ActionRow)
                    .where(
                        ActionRow.table_id == table_id,
                        ActionRow.seq == action.seq,
                        ActionRow.seat == action.seat,
                    )
                    .values(notation=action.notation, client_id=action.client_id)
                )
                if done.rowcount != 1:  # type: ignore[attr-defined]
                    raise ActionTakenError(f"{table_id} #{action.seq}: not this seat's")
        except IntegrityError:
            raise ActionTakenError(f"{table_id} #{action.seq}: client id taken") from None

    # -- listings ---------------------------------------------------------------------------------

    def table_ids(self, statuses: Sequence[str], limit: int = 100, offset: int = 0) -> list[str]:
        """Tables with one of these statuses, newest first, ``limit`` from ``offset`` on."""
        with self.autocommit.connect() as c:
            return list(
                c.scalars(
                    select(TableRow.id)
                    .where(TableRow.status.in_(statuses))
                    .order_by(TableRow.created_at.desc(), TableRow.id)
                    .limit(limit)
                    .offset(offset)
                ).all()
            )

    def account_seat(self, table_id: str, account_id: int) -> int | None:
        """The seat ``account_id`` holds at ``table_id``, or None."""
        with self.autocommit.connect() as c:
            seat: int | None = c.scalar(
                select(SeatRow.seat).where(
                    SeatRow.table_id == table_id, SeatRow.account_id == account_id
                )
            )
        return seat

    def seat_account(self, table_id: str, seat: int) -> int | None:
        """The account sitting at a seat, or None (a guest, a bot, a free seat)."""
        with self.autocommit.connect() as c:
            account: int | None = c.scalar(
                select(SeatRow.account_id).where(SeatRow.table_id == table_id, SeatRow.seat == seat)
            )
        return account


def with_account(table: StoredTable, seat: int, account_id: int) -> StoredTable:
    """``table`` with ``seat`` linked to a signed-in player's account (a table being made)."""
    seats = tuple(
        dataclasses.replace(x, account_id=account_id) if x.seat == seat else x for x in table.seats
    )
    return dataclasses.replace(table, seats=seats)


def anonymise_account(store: PlayStore, account_id: int, placeholder: str) -> list[str]:
    """Unlink a deleted account from every seat it held: the seat's name becomes
    ``placeholder``, and so does that seat's name in the table's finished game (its listing's
    players and its record; the moves stay). The ids of the tables it sat at, so live copies
    can catch up. One transaction; the account itself is the accounts feature's to delete."""
    with store.sessions() as s, s.begin():
        rows = s.scalars(select(SeatRow).where(SeatRow.account_id == account_id)).all()
        seats: dict[str, list[int]] = {}
        for row in rows:
            row.name, row.account_id = placeholder, None
            seats.setdefault(row.table_id, []).append(row.seat)
        for table_id, mine in seats.items():
            finished = s.get(FinishedRow, table_id)
            if finished is not None:
                _rename_finished(finished, mine, placeholder)
    return sorted(seats)


def scrub_finished(store: PlayStore, table_id: str, placeholder: str) -> bool:
    """A game that finished after a seated account was deleted (its live copy still had the
    old name): the seats named ``placeholder`` take it in the finished game too. Whether
    anything changed."""
    with store.sessions() as s, s.begin():
        finished = s.get(FinishedRow, table_id)
        if finished is None:
            return False
        mine = list(
            s.scalars(
                select(SeatRow.seat).where(
                    SeatRow.table_id == table_id, SeatRow.name == placeholder
                )
            )
        )
        return bool(mine) and _rename_finished(finished, mine, placeholder)


def _rename_finished(row: FinishedRow, seats: Sequence[int], placeholder: str) -> bool:
    record = Record.from_json(row.record)
    players = list(record.players)
    listed = json.loads(row.players)
    for seat in seats:
        if 0 <= seat < len(players):
            players[seat] = placeholder
        if 0 <= seat < len(listed):
            listed[seat] = placeholder
    if tuple(players) == record.players and listed == json.loads(row.players):
        return False
    row.record = dataclasses.replace(record, players=tuple(players)).to_json()
    row.players = json.dumps(listed)
    return True
