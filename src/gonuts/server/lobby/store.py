"""The lobby's SQL: a table's waiting room (its host and whether chat is on) and the host's
changes to a seat before the game starts.

Tables and seats are play's rows (:mod:`gonuts.server.play.store`); the host's steps change a
seat of an *open* table only (``status = 'open'`` in every statement, so a game that has just
started on another process is never touched), and cancelling deletes an open table outright.
"""

from __future__ import annotations

from sqlalchemy import delete, select, update

from gonuts.server.kernel.db import ChatRow, Database, RoomRow, SeatRow, TableRow


class RoomStore(Database):
    """Waiting rooms: hosts, chat settings, and the host's seat changes."""

    def create_room(self, table_id: str, host_seat: int | None, chat: bool) -> None:
        with self.sessions() as s, s.begin():
            s.add(RoomRow(table_id=table_id, host_seat=host_seat, chat=chat))

    def room(self, table_id: str) -> tuple[int | None, bool]:
        """(host seat, chat on) of a table; (None, True) for a table without a room row."""
        with self.sessions() as s:
            row = s.get(RoomRow, table_id)
            return (None, True) if row is None else (row.host_seat, row.chat)

    def set_seat(
        self,
        table_id: str,
        seat: int,
        *,
        kind: str,
        level: str | None,
        name: str | None,
    ) -> bool:
        """Make a seat of an open table a bot (``level``, ``name``) or a free human seat; its
        player (if any) loses it. False if the table is no longer open."""
        with self.sessions() as s, s.begin():
            table = s.get(TableRow, table_id, with_for_update=True)
            if table is None or table.status != "open":
                return False
            s.execute(
                update(SeatRow)
                .where(SeatRow.table_id == table_id, SeatRow.seat == seat)
                .values(
                    kind=kind,
                    level=level,
                    name=name,
                    token_hash=None,
                    account_id=None,
                    last_seen=None,
                    replaced=False,
                    hints=False,
                )
            )
            return True

    def seat_kinds(self, table_id: str) -> list[tuple[str, str | None]] | None:
        """(kind, level) of each seat, in order (what play's catch-up does not copy)."""
        with self.sessions() as s:
            rows = s.execute(
                select(SeatRow.kind, SeatRow.level)
                .where(SeatRow.table_id == table_id)
                .order_by(SeatRow.seat)
            ).all()
            return [(str(k), lv) for k, lv in rows] or None

    def cancel(self, table_id: str) -> bool:
        """Delete an open table, its seats, room and chat; False if it is not open any more."""
        with self.sessions() as s, s.begin():
            table = s.get(TableRow, table_id, with_for_update=True)
            if table is None or table.status != "open":
                return False
            s.execute(delete(ChatRow).where(ChatRow.table_id == table_id))
            s.execute(delete(RoomRow).where(RoomRow.table_id == table_id))
            s.execute(delete(SeatRow).where(SeatRow.table_id == table_id))
            s.execute(delete(TableRow).where(TableRow.id == table_id))
            return True
