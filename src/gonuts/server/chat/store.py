"""The chat's SQL: a table's lines (``gn_chat``, migration 0009) and whether its chat is on
(the waiting room's ``gn_rooms`` row, written when the table is made)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, update

from gonuts.server.kernel.db import MAX_ID, ChatRow, Database, RoomRow, SeatRow, utcnow


@dataclass(frozen=True, slots=True)
class ChatLine:
    id: int
    seat: int
    name: str
    kind: str
    """``text`` or ``reaction``."""
    text: str
    """The line, or the reaction's id."""
    at: datetime


class ChatStore(Database):
    """A table's chat lines, oldest first."""

    def add_chat(self, table_id: str, seat: int, name: str, kind: str, text: str) -> ChatLine:
        """Store one line (one autocommitted INSERT): it is kept with the table."""
        now = utcnow()
        with self.sessions() as s, s.begin():
            row = ChatRow(table_id=table_id, seat=seat, name=name, kind=kind, text=text)
            row.created_at = now
            s.add(row)
            s.flush()
            return ChatLine(row.id, seat, name, kind, text, now)

    def rename_speakers(self, table_ids: Sequence[str], placeholder: str) -> int:
        """At these tables, the lines of every seat now named ``placeholder`` (a deleted
        account's, renamed by play) take that name too: a chat line keeps its sender's name
        as it was said. How many lines changed."""
        if not table_ids:
            return 0
        with self.sessions() as s, s.begin():
            seats = s.execute(
                select(SeatRow.table_id, SeatRow.seat).where(
                    SeatRow.table_id.in_(list(table_ids)), SeatRow.name == placeholder
                )
            ).all()
            changed = 0
            for table_id, seat in seats:
                result = s.execute(
                    update(ChatRow)
                    .where(ChatRow.table_id == table_id, ChatRow.seat == seat)
                    .values(name=placeholder)
                )
                changed += int(getattr(result, "rowcount", 0) or 0)
            return changed

    def chat_lines(self, table_id: str, limit: int) -> list[ChatLine]:
        """The last ``limit`` lines of a table, oldest first."""
        if len(table_id) > MAX_ID:
            return []
        with self.sessions() as s:
            rows = s.scalars(
                select(ChatRow)
                .where(ChatRow.table_id == table_id)
                .order_by(ChatRow.id.desc())
                .limit(limit)
            ).all()
            return [
                ChatLine(r.id, r.seat, r.name, r.kind, r.text, r.created_at) for r in reversed(rows)
            ]

    def chat_line(self, line_id: int) -> tuple[str, ChatLine] | None:
        """One line by id and its table (another process said it)."""
        with self.sessions() as s:
            r = s.get(ChatRow, line_id)
            if r is None:
                return None
            return r.table_id, ChatLine(r.id, r.seat, r.name, r.kind, r.text, r.created_at)

    def chat_enabled(self, table_id: str) -> bool:
        """Whether the table's players may chat (on unless its host turned it off)."""
        if len(table_id) > MAX_ID:
            return True
        with self.sessions() as s:
            row = s.get(RoomRow, table_id)
            return True if row is None else bool(row.chat)
