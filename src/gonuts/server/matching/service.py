"""Play now (issue 26, item 2): queue a client, seat it at a new table with others from the
queue, and answer once it is seated.

The queue is the database's (``gn_play_now``), shared by every server process. While a
process has a client waiting, it runs matching rounds every :attr:`Matcher.poll` seconds; a
round runs only under the matcher lock (:meth:`~gonuts.server.matching.store.QueueStore.
matcher_lock`: a PostgreSQL advisory lock), so one matcher at a time takes the queue, whichever
process it is on. :func:`plan` (pure) makes the tables:

* oldest first, each waiting client takes the largest of its acceptable counts for which
  enough others (who accept that count too) are waiting;
* two accounts sit together only if their ratings are within both of their windows, which
  widen with the time waited (:func:`window`); guests have no rating and sit with anyone;
* a client that has waited :attr:`Matcher.wait` seconds is seated at once with whoever fits,
  bots in the empty seats (the count that seats the most people).

A round stores each table, then seats its group in one transaction (none of them if one left
meanwhile, and the table is dropped), then starts it. Each waiting request polls its own row
and answers ``{"table", "seat", "token"}`` as ``/join`` does; a request whose client went away
(or that fails) deletes its row: it has left the queue.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from gonuts.cards import MAX_PLAYERS, MIN_PLAYERS
from gonuts.server.kernel.db import hash_token, utcnow
from gonuts.server.kernel.errors import ErrorCode, ServiceError
from gonuts.server.lobby.protocol import check_name, new_table, new_token
from gonuts.server.lobby.service import Lobby
from gonuts.server.matching.store import (
    AlreadyQueuedError,
    Assignment,
    Queued,
    QueueFullError,
    QueueStore,
)
from gonuts.server.play.protocol import LiveTable, StoredSeat, default_clock

log = logging.getLogger("gonuts.server.matching")
E = ErrorCode
BASE_WINDOW: Final = 100.0
"""Rating points (the displayed scale) two accounts may differ by at once."""
WIDEN: Final = 10.0
"""Rating points the window widens by per second waited."""
RATING_SCALE: Final = 40.0
"""Displayed points per openskill ``mu`` (as the accounts' displayed rating)."""
BOT_LEVEL: Final = "medium"
"""The level of the bots in the empty seats of a table that could not fill."""
PER_ADDRESS: Final = 3
"""Requests one address may have in the queue at once (people behind one NAT; an account
has one)."""
GRACE: Final = 15.0
"""Seconds past the wait a request keeps looking for its seat before giving up."""


def window(waited: float) -> float:
    """How far apart (displayed points) a client that has waited ``waited`` s accepts."""
    return BASE_WINDOW + WIDEN * max(0.0, waited)


def rating_of(mu: float) -> float:
    return RATING_SCALE * mu


def check_counts(players: int | Sequence[int]) -> tuple[int, ...]:
    """The acceptable player counts, sorted, each 2 to 6; ``malformed`` otherwise."""
    counts = (players,) if isinstance(players, int) else tuple(players)
    if not counts or any(not MIN_PLAYERS <= n <= MAX_PLAYERS for n in counts):
        raise ServiceError(E.MALFORMED, f"players: {MIN_PLAYERS} to {MAX_PLAYERS}", 422)
    return tuple(sorted(set(counts)))


@dataclass(frozen=True, slots=True)
class Group:
    """One table to make: its players' queue rows (in seat order) and its size."""

    members: tuple[int, ...]
    players: int


def plan(waiting: Sequence[Queued], now: datetime, wait: float) -> list[Group]:
    """The tables to make now of ``waiting`` (longest waiting first); see the module."""
    waited = {q.id: (now - q.queued_at).total_seconds() for q in waiting}

    def fits(a: Queued, b: Queued) -> bool:
        if a.rating is None or b.rating is None:
            return True
        return abs(a.rating - b.rating) <= min(window(waited[a.id]), window(waited[b.id]))

    used: set[int] = set()
    groups: list[Group] = []
    for first in waiting:
        if first.id in used:
            continue
        best: list[Queued] = []
        best_n = 0
        for n in sorted(first.counts, reverse=True):
            chosen = [first]
            for other in waiting:
                if len(chosen) == n:
                    break
                if other.id in used or other is first or n not in other.counts:
                    continue
                if all(fits(other, c) for c in chosen):
                    chosen.append(other)
            if len(chosen) == n:
                best, best_n = chosen, n
                break
            if waited[first.id] >= wait and len(chosen) >= len(best):
                best, best_n = chosen, n  # (the most people; then, of equals, the smaller)
        if best and (len(best) == best_n or waited[first.id] >= wait):
            groups.append(Group(tuple(q.id for q in best), best_n))
            used.update(q.id for q in best)
    return groups


class Matcher:
    """The "Play now" queue of one server process's lobby."""

    def __init__(
        self,
        lobby: Lobby,
        store: QueueStore,
        *,
        wait: float = 30.0,
        max_queue: int = 500,
        poll: float = 0.2,
    ) -> None:
        self.lobby = lobby
        self.store = store
        self.wait = wait
        """Seconds a client waits for others before bots fill its table."""
        self.max_queue = max_queue
        """Clients the queue holds (all processes together); ``queue_full`` beyond."""
        self.poll = poll
        self._waiters = 0
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()

    async def play_now(
        self,
        client_keys: str | Sequence[str],
        name: str,
        lang: str,
        players: int | Sequence[int],
        *,
        account_id: int | None = None,
        mu: float | None = None,
        gone: Callable[[], Awaitable[bool]] | None = None,
    ) -> tuple[LiveTable, int, str]:
        """Queue the client (one request per key of ``client_keys``: an account has one, an
        address :data:`PER_ADDRESS`), wait until it is seated; its table, seat and token.
        ``gone``: whether the client has gone away (it leaves the queue, and
        ``ServiceError(http_error, 499)`` is raised)."""
        name = check_name(name)
        counts = check_counts(players)
        rating = rating_of(mu) if mu is not None else None
        try:
            keys = (client_keys,) if isinstance(client_keys, str) else tuple(client_keys)
            row = self.store.enqueue(keys, name, lang, counts, account_id, rating, self.max_queue)
        except AlreadyQueuedError:
            raise ServiceError(E.ALREADY_QUEUED, None, 409) from None
        except QueueFullError:
            raise ServiceError(E.QUEUE_FULL, f"at most {self.max_queue} waiting", 503) from None
        self._waiters += 1
        self._ensure_running()
        try:
            return await self._await_seat(row, gone)
        finally:
            self._waiters -= 1
            self.store.leave(row)  # seated and read, gone, or failed: out of the queue

    async def _await_seat(
        self, row: int, gone: Callable[[], Awaitable[bool]] | None
    ) -> tuple[LiveTable, int, str]:
        deadline = time.monotonic() + self.wait + GRACE
        while True:
            seated = self.store.seated(row)
            if seated is not None:
                table_id, seat, token = seated
                return await self.lobby.play.get(table_id), seat, token
            if gone is not None and await gone():
                raise ServiceError(E.HTTP_ERROR, "the client went away", 499)
            if time.monotonic() > deadline or self.store.gone(row):
                raise ServiceError(E.QUEUE_FULL, "no table could be made; try again", 503)
            await asyncio.sleep(self.poll)

    def _ensure_running(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        """Matching rounds while this process has a client waiting."""
        while self._waiters > 0:
            try:
                await self.round()
            except Exception:  # a round that failed is tried again; the requests time out
                log.exception("matching failed")
            await asyncio.sleep(self.poll)

    async def round(self) -> int:
        """One matching round (if this process holds the matcher lock): the tables made."""
        async with self._lock:
            with self.store.matcher_lock() as mine:
                if not mine:
                    return 0
                waiting = self.store.waiting(self.max_queue)
                by_id = {q.id: q for q in waiting}
                made = 0
                for group in plan(waiting, utcnow(), self.wait):
                    made += await self._seat([by_id[i] for i in group.members], group.players)
                return made

    async def _seat(self, members: list[Queued], players: int) -> int:
        """Make one table for ``members`` (bots in the other seats) and start it; 1 if made."""
        seats = [("human", None)] * len(members) + [("bot", BOT_LEVEL)] * (players - len(members))
        stored, _, _ = new_table(seats, None, members[0].lang)
        tokens = [new_token() for _ in members]
        made = list(stored.seats)
        for i, (q, token) in enumerate(zip(members, tokens, strict=True)):
            made[i] = StoredSeat(
                i, "human", None, q.name, hash_token(token), account_id=q.account_id
            )
        kinds = [kind for kind, _ in seats]
        stored = dataclasses.replace(stored, seats=tuple(made), clock=default_clock(kinds))
        self.lobby.store.create(stored)
        self.lobby.rooms.create_room(stored.id, None, True)  # nobody's host: it starts at once
        assignments = [
            Assignment(q.id, stored.id, i, t)
            for i, (q, t) in enumerate(zip(members, tokens, strict=True))
        ]
        if not self.store.assign(assignments):  # one of them left: the others wait on
            self.lobby.rooms.cancel(stored.id)
            return 0
        table = await self.lobby.play.get(stored.id)
        await self.lobby.play.start_if_full(table)
        return 1

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
