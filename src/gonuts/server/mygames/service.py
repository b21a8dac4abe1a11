"""My games: every unfinished table of a signed-in account or of a browser's saved seats,
whether it waits for that seat now, its deadline, the round (issue 27).

Whose turn it is comes from the game itself: a table this process holds live is read from
memory (and its real-time deadline with it); any other is rebuilt from its stored actions
once, then remembered by its action count (a changed pick rewrites an action but changes
nobody's turn: ``play/picks.py``), so the header's badge, asked every minute, costs a few
queries and no replay. A turn-based table's deadline is the stored one (``gn_deadlines``,
absolute UTC: any process, a restart); a real-time table's lives only in the memory of the
process that runs its clock, so another process says "waits for you" without one.

Nothing about another seat is told beyond what the table's public state shows: their names,
the round; never whether they must decide, never a token.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from gonuts.errors import RecordError
from gonuts.game import Game
from gonuts.record import apply_recorded
from gonuts.server.mygames.store import MyGamesStore, MyTable
from gonuts.server.play.protocol import TURN_BASED, LiveTable

log = logging.getLogger("gonuts.server.mygames")

MAX_TABLES: Final = 100
"""Tables one answer covers at most (an account's newest first, then the saved seats)."""
MAX_SAVED: Final = 50
"""Saved seats one request may send."""
CACHE_SIZE: Final = 2048
"""Rebuilt tables remembered (their round and seats to act, by action count)."""


@dataclass(frozen=True, slots=True)
class Turn:
    """Where a table's game stands: after ``version`` actions, the round and who must act."""

    version: int
    round: int
    to_act: tuple[int, ...]


def iso(moment: datetime) -> str:
    """Naive UTC as ISO 8601 with ``Z`` (the protocol's times)."""
    return moment.replace(tzinfo=None, microsecond=0).isoformat() + "Z"


class MyGames:
    """The listing behind ``/api/my-games``; ``live``: play's tables of this process."""

    def __init__(
        self,
        store: MyGamesStore,
        live: Mapping[str, LiveTable],
        *,
        wall: Callable[[], datetime] | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.live = live
        self.wall = wall or (lambda: datetime.now(UTC).replace(tzinfo=None))
        self.monotonic = monotonic
        self.max_tables = MAX_TABLES
        self.turns: OrderedDict[str, Turn] = OrderedDict()
        self.turns_lock = threading.Lock()
        """The cache is shared by the requests (answered in threads)."""
        self.rebuilt = 0
        """Games rebuilt from their actions so far (tests check the cache with it)."""

    def games(
        self, account_id: int | None, saved: Sequence[tuple[str, str]] = ()
    ) -> dict[str, Any]:
        """The answer of ``/api/my-games``: ``games`` (waiting first, by deadline), ``waiting``
        (how many wait for you), ``stale`` (saved seats that lead to no unfinished game)."""
        seats: dict[str, int] = {}
        if account_id is not None:
            for table_id, seat in self.store.account_seats(account_id, self.max_tables):
                seats.setdefault(table_id, seat)
        stale: list[str] = []
        if saved:
            found, stale = self.store.token_seats(saved[:MAX_SAVED])
            for table_id, seat in found:
                if len(seats) >= self.max_tables:
                    break
                seats.setdefault(table_id, seat)
        tables = self.store.tables(seats)
        deadlines = self.store.deadlines(seats)
        counts = self.store.action_counts(t for t in tables if not self.held(t))
        entries = []
        for table_id, seat in seats.items():
            table = tables.get(table_id)
            if table is None or table.status == "finished":
                continue
            entries.append(self.entry(table, seat, deadlines, counts.get(table_id, 0)))
        entries.sort(key=order)
        for e in entries:
            del e["_created"]
        return {
            "games": entries,
            "waiting": sum(1 for e in entries if e["waiting"]),
            "stale": stale,
        }

    def held(self, table_id: str) -> bool:
        """Whether this process holds the table's game live (then it is read from memory)."""
        live = self.live.get(table_id)
        return live is not None and live.game is not None

    def entry(
        self,
        table: MyTable,
        seat: int,
        deadlines: Mapping[tuple[str, int], datetime],
        count: int,
    ) -> dict[str, Any]:
        """One game as the page shows it, from ``seat``'s side."""
        live = self.live.get(table.id)
        replaced = {s.seat: s.replaced for s in table.seats}
        turn: Turn | None = None
        due: datetime | None = deadlines.get((table.id, seat))
        if live is not None and live.game is not None:
            game = live.game
            turn = Turn(live.version, game.round, game.to_act)
            replaced = {s.seat: s.replaced for s in live.seats}
            at = live.deadlines.get(seat)
            if due is None and at is not None:  # this process's real-time clock
                due = self.wall() + timedelta(seconds=max(0.0, at - self.monotonic()))
        elif table.status == "playing":
            turn = self.turn(table, count)
        mine = next((s for s in table.seats if s.seat == seat), None)
        waiting = (
            table.status == "playing"
            and turn is not None
            and seat in turn.to_act
            and not replaced.get(seat, False)
            and mine is not None
            and mine.kind == "human"
        ) or (table.status == "playing" and (table.id, seat) in deadlines)
        return {
            "table": table.id,
            "status": table.status,
            "name": mine.name if mine is not None else None,
            "seat": seat,
            "players": len(table.seats),
            "opponents": [s.name for s in table.seats if s.seat != seat and s.name is not None],
            "free_seats": sum(
                1 for s in table.seats if s.kind == "human" and s.name is None and s.seat != seat
            ),
            "round": turn.round if turn is not None else 0,
            "turn_based": table.clock is not None and table.clock >= TURN_BASED,
            "clock": table.clock,
            "variants": list(table.variants),
            "waiting": waiting,
            "deadline": iso(due) if waiting and due is not None else None,
            "url": f"/t/{table.id}",
            "_created": table.created_at,
        }

    def turn(self, table: MyTable, count: int) -> Turn | None:
        """The round and seats to act of a table not live here: remembered by action count,
        else rebuilt from its stored actions (None if they do not replay)."""
        with self.turns_lock:
            known = self.turns.get(table.id)
            if known is not None and known.version == count:
                self.turns.move_to_end(table.id)
                return known
        names = [s.name or f"Player {s.seat + 1}" for s in table.seats]
        try:
            game = Game.new(names, deck=table.deck, variants=table.variants, events=False)
            actions = self.store.table_actions(table.id)
            for i, (seat, notation) in enumerate(actions):
                apply_recorded(game, i, seat, notation)
        except (RecordError, ValueError) as exc:
            log.warning("my games: table %s does not replay: %s", table.id, exc)
            return None
        turn = Turn(len(actions), game.round, game.to_act)
        with self.turns_lock:
            self.rebuilt += 1
            self.turns[table.id] = turn
            self.turns.move_to_end(table.id)
            while len(self.turns) > CACHE_SIZE:
                self.turns.popitem(last=False)
        return turn


def order(entry: Mapping[str, Any]) -> tuple[int, str, int, float]:
    """Waiting first, the nearest deadline first (none after any); then games being played
    before tables still filling; newest first within each."""
    created: datetime = entry["_created"]
    stamp = -created.timestamp() if created is not None else 0.0
    if entry["waiting"]:
        deadline = entry["deadline"] or "~"  # ("~" sorts after every ISO time)
        return (0, deadline, 0, stamp)
    return (1, "", 0 if entry["status"] == "playing" else 1, stamp)
