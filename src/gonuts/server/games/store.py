"""Finished games' SQL: the listing, a record, whether a table exists at all."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import exists, select

from gonuts.record import Record
from gonuts.server.kernel.db import MAX_ID, Database, FinishedRow, SeatRow, TableRow


@dataclass(frozen=True, slots=True)
class GameListing:
    id: str
    players: list[str]
    scores: list[int]
    winners: list[int]
    finished_at: datetime


class GamesStore(Database):
    """Finished games (written by play when a game ends: ``PlayStore.append_action``)."""

    def finished_games(
        self, limit: int, offset: int, hidden_levels: Sequence[str] = ()
    ) -> list[GameListing]:
        """Finished games, newest first; without those where a seat has one of
        ``hidden_levels`` (the tutorial's coach: a first-game guide is nobody's replay)."""
        query = select(FinishedRow)
        if hidden_levels:
            query = query.where(
                ~exists().where(
                    SeatRow.table_id == FinishedRow.table_id, SeatRow.level.in_(hidden_levels)
                )
            )
        with self.sessions() as s:
            rows = s.scalars(
                query.order_by(FinishedRow.finished_at.desc()).limit(limit).offset(offset)
            ).all()
            return [
                GameListing(
                    id=r.table_id,
                    players=json.loads(r.players),
                    scores=json.loads(r.scores),
                    winners=json.loads(r.winners),
                    finished_at=r.finished_at,
                )
                for r in rows
            ]

    def record(self, game_id: str) -> str | None:
        """The record of a finished game, or None (unknown, or not finished: :meth:`exists`)."""
        if len(game_id) > MAX_ID:
            return None
        with self.sessions() as s:
            row = s.get(FinishedRow, game_id)
            return row.record if row is not None else None

    def add_finished(self, table_id: str, record_text: str) -> None:
        """A finished game from its record, stored as play leaves one (its table row and its
        ``gn_finished`` row, no seats): for the tests and the review's timing script, which
        need finished games without playing them. The record must replay
        (:class:`~gonuts.record.RecordError` otherwise)."""
        record = Record.from_json(record_text)
        game = record.replay()
        with self.sessions.begin() as s:
            s.add(
                TableRow(
                    id=table_id,
                    status="finished",
                    players=len(record.players),
                    deck=json.dumps(list(record.initial_deck())),
                )
            )
            s.flush()
            s.add(
                FinishedRow(
                    table_id=table_id,
                    players=json.dumps(list(record.players)),
                    scores=json.dumps(list(game.scores())),
                    winners=json.dumps(list(game.winner_seats)),
                    record=record_text,
                )
            )

    def exists(self, table_id: str) -> bool:
        if len(table_id) > MAX_ID:
            return False
        with self.sessions() as s:
            return s.get(TableRow, table_id) is not None
