"""The dispatcher: the outbox's facts, grouped per account into one :class:`Note`, to every channel.

Every process runs one (started with the app). Every ``every`` seconds it claims (once across
processes: :mod:`gonuts.server.notify.outbox`) the facts that are ``grouping`` seconds old at
least, so that a burst (a round's decisions in several games) becomes one digest, of accounts
told nothing for ``quiet`` seconds (:data:`QUIET`, ten minutes: never more than one note per
account per ten minutes). A ``turn`` fact whose decision is already made by then (its deadline
row gone or moved on) is skipped: no stale notification. Per account the rest is one note:
``turn`` (one game waits), ``ended`` (one game is over) or ``digest`` (several). Each note goes
to every :class:`~gonuts.server.notify.protocol.Channel`; with none, the facts are still marked
sent. A fact is claimed before it is sent: a process stopping in between loses it rather than
sending it twice (at most once, by design).

``journal`` (``GONUTS_NOTIFY_LOG``, for tests) appends a JSON line per note with the facts it
told and those it skipped, so a test of several processes can count them.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Final

from gonuts.server.kernel.db import Database, utcnow
from gonuts.server.kernel.work import Periodic
from gonuts.server.notify.outbox import Fact, Outbox
from gonuts.server.notify.protocol import Channel, Note, NoteKind, NoteTable

log = logging.getLogger("gonuts.server.notify")

EVERY: Final = 2.0
"""Seconds between two passes (real time; the time factor divides it, down to ``FLOOR``)."""
FLOOR: Final = 0.25
GROUPING: Final = 5.0
"""Seconds a fact waits before it is told, so that facts arriving together are told together."""
QUIET: Final = 600.0
"""Seconds after a note before the same account is told anything again (N = 10 minutes)."""
ACCOUNTS: Final = 200
"""Accounts told per pass (the next pass takes the rest)."""


def aware(at: datetime) -> datetime:
    return at.replace(tzinfo=UTC)


def rank(scores: Sequence[int], seat: int) -> int | None:
    """1 + how many seats scored more than ``seat`` (ties share a place)."""
    if not 0 <= seat < len(scores):
        return None
    return 1 + sum(s > scores[seat] for s in scores)


class Dispatcher(Periodic):
    """One process's dispatcher (``start`` with the app, ``close`` at shutdown)."""

    what = "the notification dispatch"

    def __init__(
        self,
        db: Database,
        channels: Sequence[Channel],
        *,
        factor: float = 1.0,
        every: float = EVERY,
        grouping: float = GROUPING,
        quiet: float = QUIET,
        accounts: int = ACCOUNTS,
        journal: Path | None = None,
    ) -> None:
        self.outbox = Outbox(db)
        self.channels = list(channels)
        self.every = max(FLOOR, every / factor)
        self.grouping = grouping / factor
        self.quiet = quiet / factor
        self.accounts = accounts
        self.journal = journal
        self.sent = 0
        """Notes handed to the channels (every channel, once each)."""
        self.skipped = 0
        """``turn`` facts dropped as already decided."""

    async def _pass(self) -> object:
        return await self.dispatch()

    async def dispatch(self, now: datetime | None = None) -> list[Note]:
        """One pass: claim, group, send; the notes sent."""
        now = utcnow() if now is None else now
        settled = now - timedelta(seconds=self.grouping)
        quiet = now - timedelta(seconds=self.quiet)
        facts = self.outbox.claim(now, settled, quiet, self.accounts)
        if not facts:
            return []
        waiting = self.outbox.waiting(facts)
        ended = self.outbox.finished(sorted({f.table_id for f in facts if f.kind == "ended"}))
        by_account: dict[int, list[Fact]] = {}
        for f in facts:
            by_account.setdefault(f.account_id, []).append(f)
        notes = []
        for account_id, mine in by_account.items():
            told: list[Fact] = []
            skipped: list[Fact] = []
            tables: list[NoteTable] = []
            for f in mine:
                table = self._table(f, waiting, ended)
                if table is None:
                    skipped.append(f)
                    continue
                told.append(f)
                if table not in tables:
                    tables.append(table)
            self.skipped += len(skipped)
            note = None
            if tables:
                one: NoteKind = "ended" if tables[0].deadline is None else "turn"
                kind: NoteKind = "digest" if len(tables) > 1 else one
                note = Note(account_id, kind, tuple(tables))
                notes.append(note)
            self._write(note, account_id, told, skipped)
        # every note decided and written down before the first await: a shutdown cancelling
        # this pass can cut a delivery short, never leave a claimed fact unaccounted for
        self._prepare([note.account_id for note in notes])
        for note in notes:
            await self._send(note)
        return notes

    @staticmethod
    def _table(
        f: Fact,
        waiting: dict[tuple[str, int, int], Any],
        ended: dict[str, tuple[str, int, list[int]]],
    ) -> NoteTable | None:
        url = f"/t/{f.table_id}"
        if f.kind == "turn":
            w = waiting.get((f.table_id, f.seat, f.decision))
            if w is None:
                return None  # decided already: nothing to tell
            return NoteTable(f.table_id, w.name, url, f.round, aware(w.due_at), players=w.players)
        found = ended.get(f.table_id)
        if found is None:
            return None
        name, players, scores = found
        return NoteTable(f.table_id, name, url, f.round, None, rank(scores, f.seat), players)

    def _prepare(self, account_ids: list[int]) -> None:
        """Let each channel that can look up the pass's accounts at once (``prepare``, an
        optional method: one query per pass instead of one or two per note)."""
        if not account_ids:
            return
        for channel in self.channels:
            prepare = getattr(channel, "prepare", None)
            if prepare is None:
                continue
            try:
                prepare(account_ids)
            except Exception:  # (each note then looks its account up by itself)
                log.exception("notification channel %s failed", getattr(channel, "name", "?"))

    async def _send(self, note: Note) -> None:
        for channel in self.channels:
            try:
                await channel.send(note)
            except Exception:  # (a channel should not raise; one that does stops no other)
                log.exception("notification channel %s failed", getattr(channel, "name", "?"))
        self.sent += 1

    def _write(
        self, note: Note | None, account_id: int, told: list[Fact], skipped: list[Fact]
    ) -> None:
        if self.journal is None:
            return
        line: dict[str, Any] = {
            "pid": os.getpid(),
            "at": utcnow().isoformat() + "Z",
            "account_id": account_id,
            "kind": note.kind if note is not None else None,
            "tables": [
                {
                    "table_id": t.table_id,
                    "name": t.name,
                    "deadline": t.deadline.isoformat() if t.deadline else None,
                    "rank": t.rank,
                }
                for t in (note.tables if note is not None else ())
            ],
            "facts": [[f.table_id, f.seat, f.decision, f.kind] for f in told],
            "skipped": [[f.table_id, f.seat, f.decision, f.kind] for f in skipped],
        }
        with self.journal.open("a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")
