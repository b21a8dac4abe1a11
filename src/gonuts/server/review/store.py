"""Reviews' SQL: one review per finished game and analyser (``gn_reviews``)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from sqlalchemy import delete
from sqlalchemy.exc import IntegrityError

from gonuts.server.kernel.db import MAX_ID, Database, ReviewRow


def record_sha(record_text: str) -> str:
    return hashlib.sha256(record_text.encode("utf-8")).hexdigest()


class ReviewStore(Database):
    """The reviews computed so far (the JSON text of ``gonuts review --json``)."""

    def review(self, game_id: str, analyser: str, record_text: str) -> str | None:
        """The stored review of this record by ``analyser``, or None (none yet, or one of
        another record under the same id: never served)."""
        if len(game_id) > MAX_ID:
            return None
        with self.sessions() as s:
            row = s.get(ReviewRow, (game_id, analyser))
            if row is None or row.record_sha != record_sha(record_text):
                return None
            return row.review

    def save_review(self, game_id: str, analyser: str, record_text: str, review: str) -> None:
        """Keep a review; another process that stored the same one first wins (same result:
        the review is deterministic)."""
        try:
            with self.sessions.begin() as s:
                s.add(
                    ReviewRow(
                        table_id=game_id,
                        analyser=analyser,
                        record_sha=record_sha(record_text),
                        review=review,
                    )
                )
        except IntegrityError:
            pass

    def forget(self, game_ids: Sequence[str]) -> int:
        """Drop every review of these games (a deleted account's: a review names the players,
        and the renamed record would never match it again). How many were dropped."""
        if not game_ids:
            return 0
        with self.sessions.begin() as s:
            result = s.execute(delete(ReviewRow).where(ReviewRow.table_id.in_(list(game_ids))))
            return int(getattr(result, "rowcount", 0) or 0)

    def review_count(self) -> int:
        """How many reviews are stored (tests, metrics)."""
        with self.sessions() as s:
            return s.query(ReviewRow).count()
