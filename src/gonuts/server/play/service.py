"""Play's service: which tables are live, presence, moves, bots, hints and broadcasts.

The database is the source of truth (:class:`~gonuts.server.play.store.PlayStore`). Every accepted
action is applied to a copy of the game, stored, and only then made current, acknowledged and
broadcast. A table's game is rebuilt from its stored deck and actions when it is first needed
(e.g. after a restart). Other server processes on the same database are heard through a
:class:`~gonuts.server.kernel.relay.Relay`. Only :class:`~gonuts.view.PlayerView`-derived JSON
(:mod:`gonuts.server.play.messages`) ever leaves this module.

Over 500 lines (about 900), on purpose: every path that changes a live table — loading and
catching up, presence, moves and changed picks, bots, hints, broadcasts — takes that table's
lock, and keeping them in one class keeps that discipline in one place. The lobby's steps
(:mod:`gonuts.server.lobby.service`), storage, relay, messages, the clock and the socket are
their own modules.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from gonuts.actions import Action, parse_action
from gonuts.bots import Bot, make_bot
from gonuts.errors import GameOverError, IllegalActionError, MalformedActionError, NotYourTurnError
from gonuts.game import Game
from gonuts.record import Record, apply_recorded
from gonuts.server.kernel.db import hash_token
from gonuts.server.kernel.errors import DatabaseUnavailableError, ErrorCode, ServiceError
from gonuts.server.kernel.limits import BucketMap
from gonuts.server.kernel.metrics import Metrics
from gonuts.server.kernel.relay import Changes, Relay, relay_for
from gonuts.server.kernel.thinking import HintUnavailableError, Thinker
from gonuts.server.lobby.protocol import TUTORIAL_LEVEL, TutorialBot
from gonuts.server.play import picks
from gonuts.server.play.clock import CLOCK_ID, deadlines_json
from gonuts.server.play.deadlines import DurableClock, idle_turn_based, turn_based
from gonuts.server.play.live import REPLACEMENT_LEVEL, LiveTable, Seat
from gonuts.server.play.messages import (
    hint_message,
    public_view_json,
    state_message,
    table_summary,
)
from gonuts.server.play.presence import Presence
from gonuts.server.play.store import (
    ActionTakenError,
    FinishedGame,
    PlayStore,
    StoredAction,
)
from gonuts.server.transport.conn import Conn, to_json
from gonuts.server.transport.wire import error_message
from gonuts.view import PlayerView

log = logging.getLogger("gonuts.server")

E = ErrorCode

BotFactory = Callable[[str, int], Bot]
FinishedHook = Callable[[str, Game], object]
"""(table id, the finished game): what another feature does when a game ends."""
RatingLookup = Callable[[str, int], "dict[str, int | None] | None"]
"""(table id, seat) -> ``{"rating", "change"}`` of the account sitting there, or None."""


def _default_bot_factory(level: str, seed: int) -> Bot:
    return make_bot(level, seed)


class Service:
    """Everything the HTTP and WebSocket handlers need; one per app.

    ``start`` (in the app's lifespan) starts the relay and the sweeper of finished tables;
    ``close`` stops everything.
    """

    def __init__(
        self,
        store: PlayStore,
        *,
        relay: Relay[LiveTable] | None = None,
        metrics: Metrics | None = None,
        bot_delay: float = 0.5,
        replace_after: float = 120.0,
        hint_iterations: int = 300,
        bot_factory: BotFactory | None = None,
        keep_finished: float = 300.0,
        think_workers: int = 0,
        think_ray: str | None = None,
        thinker: Thinker | None = None,
        hint_toggles: tuple[float, int] | None = (0.5, 5),
        clock_scale: float = 1.0,
        on_finished: Sequence[FinishedHook] = (),
    ) -> None:
        self.store = store
        self.on_finished: list[FinishedHook] = list(on_finished)
        """Called (synchronously, after the commit) with each game that has just finished:
        the accounts feature rates it (:mod:`gonuts.server.service` wires it)."""
        self.relay: Relay[LiveTable] = relay if relay is not None else relay_for(store)
        self.presence = Presence(store, self.relay)
        """Seats seen and sockets changed, written in batches (:mod:`.presence`)."""
        self.metrics = metrics or Metrics()
        self.metrics.watch(self.tables_by_status)
        self.keep_finished = keep_finished
        self.bot_delay = bot_delay
        self.replace_after = replace_after
        self.hint_iterations = hint_iterations
        self.bot_factory = bot_factory or _default_bot_factory
        self._tables: dict[str, LiveTable] = {}
        self._load_lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._sweeper: asyncio.Task[None] | None = None
        self._stores = 0
        """Actions being stored right now (a graceful shutdown waits for them)."""
        self.thinker = thinker or Thinker(think_workers, metrics=self.metrics, ray=think_ray)
        """Bot decisions and hints run here: worker processes (``think_workers``; 0: threads
        of this process) or a Ray cluster (``think_ray``: its address, empty for a local one),
        fairly queued and bounded (:mod:`gonuts.server.kernel.thinking`)."""
        self.hint_toggles = BucketMap(*hint_toggles) if hint_toggles is not None else None
        """Hint toggles per seat (all its sockets): ``hint_toggles`` is (rate per second,
        burst), 5 per 10 s by default; None: unlimited."""
        self.clock = DurableClock(self, scale=clock_scale)
        """Turn clocks (:mod:`~.clock`, turn-based ones in the database: :mod:`~.deadlines`)."""
        self.rating_of: RatingLookup | None = None
        """The seated account's rating (and this game's change of it) that each ``state``
        carries: the accounts feature's, set by the wiring (:mod:`gonuts.server.service`)."""
        self.summary_interval = 0.1
        self.summary_per_socket = 0.001
        self.spectator_state_ttl = 0.1
        """Coalesced table summaries: at most one per table per interval, or per this much
        per socket on a big table (1 s at 1,000 sockets): :meth:`summary_soon`."""

    @property
    def tables(self) -> Mapping[str, LiveTable]:
        """The live tables of this process, by id."""
        return self._tables

    def tables_by_status(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for table in self._tables.values():
            counts[table.status] = counts.get(table.status, 0) + 1
        return counts

    async def start(self) -> None:
        """Follow the other processes (if any) and forget idle finished tables, from now on."""
        if self._sweeper is None:
            self._sweeper = asyncio.ensure_future(self._sweep())
        self.store.checkpoint_in_background()  # (SQLite: not in a move's commit)
        await self.relay.start(self)

    async def drain(self, timeout: float = 10.0) -> None:
        """Wait (at most ``timeout`` s) until no action is half stored: for a clean shutdown."""
        end = time.monotonic() + timeout
        while time.monotonic() < end and (
            self._stores or any(t.lock.locked() for t in self._tables.values())
        ):
            await asyncio.sleep(0.01)

    async def close(self) -> None:
        self.presence.flush()
        await self.relay.close()
        if self._sweeper is not None:
            self._sweeper.cancel()
        for table in self._tables.values():
            if table.summary_due is not None:
                table.summary_due.cancel()
            for task in [table.bot_task, *table.replace_tasks.values()]:
                if task is not None:
                    task.cancel()
        for task in list(self._tasks):
            task.cancel()
        self.clock.close()
        self.store.close()

    def readiness(self) -> str | None:
        """Why this process cannot serve now (database unreachable, schema behind), or None."""
        return self.store.readiness()

    def _spawn(self, coro: Awaitable[Any]) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # -- loading ----------------------------------------------------------------------------------

    async def get(self, table_id: str) -> LiveTable:
        """The live table, rebuilt from the database if needed; ``unknown_table`` otherwise."""
        table = self._tables.get(table_id)
        if table is not None:
            return table
        async with self._load_lock:
            table = self._tables.get(table_id)
            if table is None:
                table = self._load(table_id)
                self._tables[table_id] = table
                if table.status == "playing":
                    self._watch_absent(table)
        if table.status == "playing":
            self.kick_bots(table)
        return table

    async def _sweep(self) -> None:
        """Forever: forget finished tables nobody has watched for ``keep_finished`` seconds.

        They stay in the database: :meth:`get` loads one again when it is asked for.
        """
        while True:
            await asyncio.sleep(max(0.05, min(self.keep_finished / 2, 30.0)))
            self.evict_idle()

    def evict_idle(self, now: float | None = None) -> list[str]:
        """Drop finished tables (and turn-based ones nobody is at, their deadlines being in the
        database) without connections since ``keep_finished`` seconds; their ids."""
        now = time.monotonic() if now is None else now
        gone = []
        for table in list(self._tables.values()):
            idle = table.status == "finished" or idle_turn_based(table)
            if not idle or table.conns or table.lock.locked():
                table.idle_since = None
            elif table.idle_since is None:
                table.idle_since = now
            elif now - table.idle_since >= self.keep_finished:
                self.clock.forget(self._tables.pop(table.id))
                gone.append(table.id)
        return gone

    def _watch_absent(self, table: LiveTable) -> None:
        """After a restart nobody is connected: start the replacement clocks of human seats."""
        for s in table.seats:
            self._clock_if_absent(table, s)

    def _load(self, table_id: str) -> LiveTable:
        stored = self.store.load(table_id) if isinstance(table_id, str) else None
        if stored is None:
            raise ServiceError(E.UNKNOWN_TABLE, None, 404)
        assert stored.created_at is not None
        table = LiveTable(
            id=stored.id,
            created_at=stored.created_at,
            status=stored.status,
            deck=stored.deck,
            seats=[
                Seat(s.seat, s.kind, s.level, s.name, s.token_hash, s.hints, s.replaced)
                for s in stored.seats
            ],
            next_table=stored.next_table,
            variants=stored.variants,
            clock=stored.clock,
        )
        if stored.status != "open":
            game = table.new_game()
            self._replay(table, game, self.store.actions_since(table_id, 0))
            table.game = game
        self.make_bots(table)
        return table

    @staticmethod
    def _replay(table: LiveTable, game: Game, actions: Sequence[StoredAction]) -> None:
        """Apply stored actions to ``game``, remember their client ids and follow the
        pending secret choices (``table.pending``)."""
        for a in actions:
            before = picks.events_count(game)
            apply_recorded(game, a.seq, a.seat, a.notation)
            table.pending = picks.track(table.pending, game, before, a)
            if a.client_id is not None:
                table.remember(a.seat, a.client_id, a.notation, a.seq + 1)

    def _changed_elsewhere(self, table: LiveTable) -> bool:
        """Whether another process changed a pending choice of ``table`` in the database;
        if so the game is rebuilt from the stored actions (the caller holds the lock)."""
        if not table.pending or table.game is None:
            return False
        mine = {a.seq: a for a in table.pending.values()}
        stored = self.store.actions_since(table.id, min(mine))
        if all(mine.get(a.seq, a) == a for a in stored):
            return False
        table.pending, table.acked, table.clocked = {}, {}, {}
        game = table.new_game()
        everything = self.store.actions_since(table.id, 0)
        self._replay(table, game, everything)
        table.advance(game, len(everything))
        return True

    def catch_up(self, table: LiveTable) -> Changes:
        """Bring ``table`` up to the database: seats, status, next table, new actions.

        Synchronous; the caller holds ``table.lock`` (or runs between two awaits). The relay
        calls it when another process changed the table.
        """
        changes = Changes()
        stored = self.store.load(table.id)
        if stored is None:
            return changes
        for r in stored.seats:
            seat = table.seats[r.seat]
            have = (r.name, r.token_hash, r.hints, r.replaced)
            if have != (seat.name, seat.token_hash, seat.hints, seat.replaced):
                seat.name, seat.token_hash, seat.hints, seat.replaced = have
                changes.table = True
        actions = self.store.actions_since(table.id, table.version)
        if stored.next_table != table.next_table:
            table.next_table = stored.next_table
            changes.table = True
        if stored.status != "open" and table.game is None:
            table.game = table.new_game()
            changes.state = True
        if self._changed_elsewhere(table):
            changes.state = True
            actions = self.store.actions_since(table.id, table.version)
        if actions and table.game is not None:
            game = table.game.copy()
            self._replay(table, game, actions)
            table.game = game
            changes.state = True
        if stored.status != table.status:
            table.status = stored.status
            changes.table = True
        for s in table.seats:
            if s.bot_level is None:
                table.bots.pop(s.seat, None)
        self.make_bots(table)
        return changes

    def make_bots(self, table: LiveTable) -> None:
        """A bot for every seat a bot plays now (bot seats, replaced players) that has none."""
        for s in table.seats:
            level = s.bot_level
            if level is not None and s.seat not in table.bots:
                seed = secrets.randbits(32)
                table.bots[s.seat] = (
                    TutorialBot(seed) if level == TUTORIAL_LEVEL else self.bot_factory(level, seed)
                )

    def seat_for_token(self, table: LiveTable, token: str | None) -> int:
        """The seat ``token`` holds at ``table``; ``bad_token`` otherwise."""
        seat = self.held_seat(table, token)
        if seat is None:
            raise ServiceError(E.BAD_TOKEN, None, 403)
        return seat

    @staticmethod
    def held_seat(table: LiveTable, token: str | None) -> int | None:
        """The seat ``token`` holds at ``table``, or None."""
        if token:
            digest = hash_token(token)
            for s in table.seats:
                if s.token_hash is not None and secrets.compare_digest(s.token_hash, digest):
                    return s.seat
        return None

    async def start_if_full(self, table: LiveTable) -> None:
        """Start the game of an open table whose seats are all taken (the lobby calls it after
        creating a table or seating someone); tell its sockets and wake its bots."""
        async with table.lock:
            if table.status == "open" and not all(s.taken for s in table.seats):
                # the last two seats may be taken at once on two processes: each looks at the
                # database after its own commit, so the later one sees both and starts
                self.relay.refresh(table)
            if table.status != "open" or not all(s.taken for s in table.seats):
                return
            self.store.start(table.id)
            table.status = "playing"
            table.game = table.new_game()
        await self.broadcast_table(table)
        await self.broadcast_state(table)
        self.kick_bots(table)

    # -- presence ---------------------------------------------------------------------------------

    async def connect(self, table: LiveTable, conn: Conn) -> None:
        table.conns.add(conn)
        self.metrics.open_sockets.inc()
        if conn.seat is not None:
            task = table.replace_tasks.pop(conn.seat, None)
            if task is not None:
                task.cancel()
            seat = table.seats[conn.seat]
            if seat.replaced:  # (back after a bot played for them: cleared at once)
                self.store.update_seat(table.id, conn.seat, seen=True, replaced=False)
                seat.replaced = False
                table.bots.pop(conn.seat, None)
            self.presence.seen(table, conn.seat, back=True)
        self.summary_soon(table)

    async def disconnect(self, table: LiveTable, conn: Conn) -> None:
        table.conns.discard(conn)
        self.metrics.open_sockets.dec()
        seat = conn.seat
        if seat is not None:
            self.presence.seen(table, seat, back=False)
            self._clock_if_absent(table, table.seats[seat])
        self.summary_soon(table)

    def _clock_if_absent(self, table: LiveTable, s: Seat) -> None:
        """A human connected nowhere during a real-time game: start their replacement clock."""
        if (
            table.status == "playing"
            and not turn_based(table.clock)
            and s.kind == "human"
            and not s.replaced
            and not table.connected(s.seat)
            and s.seat not in table.replace_tasks
        ):
            table.replace_tasks[s.seat] = self._spawn(self._replace_later(table, s.seat))
            table.replace_at[s.seat] = time.monotonic() + self.replace_after

    def presence_changed(self, table: LiveTable, before: list[bool]) -> None:
        """Other processes' sockets came or went (the relay heard): stop or start replacement
        clocks, and tell this process's clients if anyone's connection changed."""
        for s in table.seats:
            task = table.replace_tasks.get(s.seat)
            if table.connected(s.seat) and task is not None:  # back, on another process
                table.replace_tasks.pop(s.seat).cancel()
            else:
                self._clock_if_absent(table, s)
        if before != table.connected_seats():
            self.summary_soon(table)

    async def _replace_later(self, table: LiveTable, seat: int) -> None:
        await asyncio.sleep(self.replace_after)
        table.replace_tasks.pop(seat, None)
        if table.connected(seat) or table.status != "playing":
            return
        self.store.update_seat(table.id, seat, replaced=True)
        table.seats[seat].replaced = True
        self.make_bots(table)
        await self.broadcast_table(table)
        self.kick_bots(table)

    async def set_hints(self, table: LiveTable, conn: Conn, on: bool) -> None:
        """Hints on or off for ``conn``'s seat; ``rate_limited`` beyond the seat's toggles
        (all its sockets together), and then nothing is written."""
        if conn.seat is None:
            raise ServiceError(E.SPECTATOR)
        if self.hint_toggles is not None and self.hint_toggles.take(f"{table.id}:{conn.seat}"):
            rate, burst = self.hint_toggles.rate, self.hint_toggles.burst
            detail = f"at most {burst:g} hint toggles per {burst / rate:g} s"
            raise ServiceError(E.RATE_LIMITED, detail)
        if table.seats[conn.seat].hints != on:  # a repeated toggle writes nothing
            self.store.update_seat(table.id, conn.seat, hints=on)
            table.seats[conn.seat].hints = on
        if on:
            # the hint of this version is computed once and shared: a toggle never re-arms it
            done = table.hint_results.get((conn.seat, table.version))
            game = table.game
            if done is not None and game is not None:
                await conn.send(hint_message(table.version, done, game.view(conn.seat), conn.lang))
            self.schedule_hints(table)

    # -- playing ----------------------------------------------------------------------------------

    async def act(
        self,
        table: LiveTable,
        seat: int,
        notation: str,
        ack: Callable[[int], Awaitable[None]] | None = None,
        *,
        client_id: str | None = None,
    ) -> tuple[int, bool]:
        """Apply ``notation`` for ``seat``, commit it, ``ack`` it, broadcast: (version, replayed).

        With a ``client_id``, the action is applied at most once: a replay of an id already
        stored for the seat (by this process or another, before a restart or after) is
        acknowledged again with its original version and changes nothing; the same id with
        another action is ``malformed``.
        """
        started = time.perf_counter()
        if client_id is not None and client_id.startswith(CLOCK_ID):
            raise ServiceError(E.MALFORMED, f"ids starting with {CLOCK_ID!r} are the server's", 422)
        async with table.lock:
            version, replayed = self.apply_locked(table, seat, notation, client_id)
            if ack is not None:
                await ack(version)
        if replayed:
            return version, True
        await self.clock.acted(table, seat)  # a bot no longer plays for them, if one did
        self.metrics.moves.labels("player").inc()
        self.metrics.move_latency.observe(time.perf_counter() - started)
        await self.broadcast_state(table)
        if table.status == "finished":
            await self.broadcast_table(table)
        self.kick_bots(table)
        return version, False

    def apply_locked(
        self, table: LiveTable, seat: int, notation: str, client_id: str | None = None
    ) -> tuple[int, bool]:
        """Apply, store and make current ``notation`` for ``seat``: (version, replayed). The
        caller holds ``table.lock`` (players through :meth:`act`, bots, the turn clock); a
        refusal is a :class:`ServiceError`. Nothing is broadcast here."""
        replayed = acked_version(table, seat, notation, client_id)
        if replayed is not None:
            return replayed, True
        action = parsed_action(notation)
        try:
            trial = self._trial(table, seat, action, notation)
        except ServiceError:
            # several processes: this one may not have heard the latest actions yet
            if not self.relay.refresh(table).state:
                raise
            self._spawn(self.broadcast_state(table))
            return self.apply_locked(table, seat, notation, client_id)
        seq = table.version
        stored = StoredAction(seq, seat, notation, client_id)
        pending = picks.track(table.pending, trial, picks.events_count(table.game), stored)
        # an action closing a simultaneous phase is built on the others' pending choices
        expect = picks.expected(table.pending, seat) if not pending else ()
        finished = None
        if trial.is_over:
            finished = FinishedGame(
                tuple(trial.players),
                tuple(trial.scores()),
                tuple(trial.winner_seats),
                Record.from_game(trial).to_json(),
            )
        self._stores += 1
        try:
            self.store.append_action(table.id, stored, finished, expect)
        except ActionTakenError:
            # another server process took action ``seq`` (or this id) first: catch up, try again
            if not self.catch_up(table).state:
                raise
            self._spawn(self.broadcast_state(table))
            return self.apply_locked(table, seat, notation, client_id)
        finally:
            self._stores -= 1
        table.advance(trial, seq + 1)
        table.pending = pending
        if client_id is not None:
            table.remember(seat, client_id, notation, seq + 1)
        if trial.is_over:
            table.status = "finished"
            for finished_hook in self.on_finished:
                finished_hook(table.id, trial)
        return seq + 1, False

    async def change(
        self,
        table: LiveTable,
        seat: int,
        notation: str,
        ack: Callable[[int], Awaitable[None]] | None = None,
        *,
        client_id: str | None = None,
    ) -> int:
        """Replace ``seat``'s secret choice (a pick, a Cinnamon Twist pass) before the reveal:
        commit, ``ack``, and send the new state to that seat's own sockets only (nobody else
        learns of it); the version. ``pick_final`` once the last seat has chosen."""
        if client_id is not None and client_id.startswith(CLOCK_ID):
            raise ServiceError(E.MALFORMED, f"ids starting with {CLOCK_ID!r} are the server's", 422)
        async with table.lock:
            version, replayed = self.change_locked(table, seat, notation, client_id)
            if ack is not None:
                await ack(version)
        if not replayed:
            self.metrics.moves.labels("change").inc()
            for conn in list(table.conns):
                if conn.seat == seat:
                    self._push_state(table, conn, deadlines=deadlines_json(table))
        return version

    def change_locked(
        self, table: LiveTable, seat: int, notation: str, client_id: str | None = None
    ) -> tuple[int, bool]:
        """Rewrite ``seat``'s pending choice as ``notation`` (the caller holds the lock):
        (version, replayed). Stored first (the action keeps its number), then made current."""
        replayed = acked_version(table, seat, notation, client_id)
        if replayed is not None:
            return replayed, True
        action = parsed_action(notation)
        game = table.game
        if table.status == "open" or game is None:
            raise ServiceError(E.NOT_STARTED)
        old = table.pending.get(seat)
        if old is None:
            if self.relay.refresh(table).state:  # another process may be ahead of this one
                return self.change_locked(table, seat, notation, client_id)
            raise ServiceError(E.GAME_OVER if game.is_over else E.PICK_FINAL)
        if action not in picks.options(game, seat, table.pending):
            raise ServiceError(E.ILLEGAL, notation)
        version = table.version
        new = StoredAction(old.seq, seat, notation, client_id)
        if notation == old.notation and client_id == old.client_id:
            return version, False
        trial = picks.replaced(table.new_game(), game, old.seq, notation)
        self._stores += 1
        try:
            self.store.replace_action(table.id, new, version)
        except ActionTakenError:
            if not self.catch_up(table).state:
                raise ServiceError(E.PICK_FINAL) from None
            self._spawn(self.broadcast_state(table))
            return self.change_locked(table, seat, notation, client_id)
        finally:
            self._stores -= 1
        table.advance(trial, version)
        table.pending = {**table.pending, seat: new}
        if old.client_id is not None:
            table.acked.pop((seat, old.client_id), None)
        if client_id is not None:
            table.remember(seat, client_id, notation, version)
        return version, False

    @staticmethod
    def _trial(table: LiveTable, seat: int, action: Action, notation: str) -> Game:
        """A copy of the table's game with ``action`` applied; a refusal if it cannot be."""
        if table.status == "open" or table.game is None:
            raise ServiceError(E.NOT_STARTED)
        trial = table.game.copy()
        try:
            trial.apply(seat, action)
        except GameOverError:
            raise ServiceError(E.GAME_OVER) from None
        except NotYourTurnError:
            raise ServiceError(E.NOT_YOUR_TURN) from None
        except IllegalActionError:
            raise ServiceError(E.ILLEGAL, notation) from None
        return trial

    def kick_bots(self, table: LiveTable) -> None:
        """Let the bots of ``table`` move if it is their turn (one task per table at a time)."""
        self.clock.arm(table)  # (and give the humans to move their deadlines)
        if table.status != "playing" or not table.bots:
            return  # (no bot at this table: no task to start and finish per move)
        if not self.clock.drives(table):
            return  # (a turn-based table another process drives: its bots move there)
        if table.bot_task is None or table.bot_task.done():
            table.bot_task = asyncio.ensure_future(self._drive_bots(table))

    async def bot_decision(self, table: LiveTable, level: str, view: PlayerView) -> Action:
        """A ``level`` bot's decision at ``view`` for the turn clock: in the thinker's workers,
        or here for bots of the caller's own making."""
        if self.bot_factory is _default_bot_factory:
            return await self.thinker.decide(table.id, level, view)
        bot = self.bot_factory(level, secrets.randbits(32))
        return await asyncio.to_thread(bot.choose, view)

    async def _drive_bots(self, table: LiveTable) -> None:
        """While bots are to act: every bot that must decide now thinks at once (a round's
        selections: all of them, from the moment the round starts, each on a thinking worker
        of its own if there are enough), and each decision is applied as soon as it is made,
        but not before ``bot_delay`` since they started (bots never answer instantly)."""
        while table.status == "playing" and table.game is not None:
            game = table.game
            turns = [
                (s, game.view(s))
                for s in game.to_act
                if table.seats[s].bot_level is not None and s in table.bots
            ]
            if not turns:
                return
            ready_at = time.monotonic() + self.bot_delay
            thinking = [asyncio.ensure_future(self._bot_decision(table, s, v)) for s, v in turns]
            try:
                for next_done in asyncio.as_completed(thinking):
                    decided = await next_done
                    if decided is None:
                        continue
                    seat, action = decided
                    wait = ready_at - time.monotonic()
                    if wait > 0:
                        await asyncio.sleep(wait)
                    if table.seats[seat].bot_level is None:
                        continue  # the human came back while the bot was thinking
                    try:
                        async with table.lock:
                            self.apply_locked(table, seat, action.notation)
                    except DatabaseUnavailableError as exc:  # not stored: think again, later
                        await asyncio.sleep(exc.retry_after / 5)
                        continue
                    except ServiceError:
                        continue  # the position moved on meanwhile; look again
                    self.metrics.moves.labels("bot").inc()
                    await self.broadcast_state(table)
                    if table.status == "finished":
                        await self.broadcast_table(table)
            finally:
                for task in thinking:
                    task.cancel()
            if not any(t.done() and not t.cancelled() and t.result() for t in thinking):
                return  # every bot failed or left: nothing moved, do not spin

    async def _bot_decision(
        self, table: LiveTable, seat: int, view: PlayerView
    ) -> tuple[int, Action] | None:
        """One bot's decision at ``view`` (None: it failed, or its human came back)."""
        bot = table.bots.get(seat)
        if bot is None or table.seats[seat].bot_level is None:
            return None
        level = table.seats[seat].bot_level or REPLACEMENT_LEVEL
        started = time.perf_counter()
        try:
            if self.bot_factory is _default_bot_factory and level != TUTORIAL_LEVEL:
                # a worker decides (the tutorial's coach is scripted: here)
                action = await self.thinker.decide(table.id, level, view)
            else:  # bots of the caller's own making think here
                action = await asyncio.to_thread(bot.choose, view)
        except Exception:
            log.exception("bot failed at table %s seat %s", table.id, seat)
            return None
        self.metrics.bot_think.labels(level).observe(time.perf_counter() - started)
        return seat, action

    def schedule_hints(self, table: LiveTable) -> None:
        """Start computing a hint for each connected seat with hints on that must decide."""
        game = table.game
        if game is None or table.status != "playing":
            return
        version = table.version
        for seat in game.to_act:
            s = table.seats[seat]
            if not s.hints or s.bot_level is not None or (seat, version) in table.hinted:
                continue
            if not table.connected(seat):
                continue
            table.hinted.add((seat, version))
            self._spawn(self._send_hint(table, seat, version, game.view(seat)))

    async def _send_hint(self, table: LiveTable, seat: int, version: int, view: PlayerView) -> None:
        try:  # in the thinker's fair, bounded queue; dropped there once the version moved on
            data = await self.thinker.hint(
                table.id,
                view,
                self.hint_iterations,
                version,
                stale=lambda: table.version != version,
            )
        except HintUnavailableError as exc:
            table.hinted.discard((seat, version))  # asking again later may find room
            for conn in list(table.conns):
                if conn.seat == seat:
                    detail = f"hint unavailable: {exc}; try again later"
                    await conn.send(error_message(E.RATE_LIMITED, conn.lang, detail))
            return
        if data is None or table.version != version:
            return
        for key in [k for k in table.hint_results if k[1] != version]:
            del table.hint_results[key]
        table.hint_results[(seat, version)] = data
        for conn in list(table.conns):
            if conn.seat == seat:
                await conn.send(hint_message(version, data, view, conn.lang))

    # -- telling the clients ----------------------------------------------------------------------

    async def send_state(
        self,
        table: LiveTable,
        conn: Conn,
        *,
        full: bool = False,
        view: PlayerView | None = None,
        public: dict[str, Any] | None = None,
    ) -> None:
        """Queue ``conn``'s state (its new events only, unless ``full``); never waits.

        Spectators arriving at once (a crowd) share one full state per language: built once
        per version and at most every ``spectator_state_ttl`` s (its clock figures are that
        fresh)."""
        self.clock.arm(table)
        made = None
        if full and conn.seat is None and view is None:
            now = time.monotonic()
            version, at = table.spectator_states_at
            if version != table.version or now - at > self.spectator_state_ttl:
                table.spectator_states.clear()
                table.spectator_states_at = (table.version, now)
            made = table.spectator_states
        if conn.seat is not None:
            self.look_up_rating(table, conn.seat)
        self._push_state(table, conn, full=full, view=view, public=public, made=made)
        if full:  # a player back at the table hears what was decided for them meanwhile
            await self.clock.welcome(table, conn)

    @staticmethod
    def _push_state(
        table: LiveTable,
        conn: Conn,
        *,
        full: bool = False,
        view: PlayerView | None = None,
        public: dict[str, Any] | None = None,
        made: dict[tuple[int | None, str, int], tuple[str, int]] | None = None,
        deadlines: dict[str, float] | None = None,
    ) -> None:
        """``made``: the texts built so far in one broadcast, by (seat, language, events
        already sent): a thousand spectators of one table share one message."""
        if table.game is None:
            return
        if full:
            conn.sent_events = 0
        key = (conn.seat, conn.lang, conn.sent_events)
        done = made.get(key) if made is not None else None
        if done is None:
            msg, count = state_message(
                table,
                conn.seat,
                conn.lang,
                conn.sent_events,
                view=view,
                public=public,
                deadlines=deadlines,
            )
            done = (to_json(msg), count)
            if made is not None:
                made[key] = done
        conn.sent_events = done[1]
        conn.push(done[0])

    def look_up_rating(self, table: LiveTable, seat: int) -> None:
        """Fill ``table.ratings`` for ``seat`` if it is not known yet: once while the game
        runs, once when it is over (until its rating change is there: rated just after the
        commit, perhaps by another process)."""
        if self.rating_of is None:
            return
        over = table.status == "finished"
        if (seat, over) in table.ratings:
            return
        try:
            found = self.rating_of(table.id, seat)
        except Exception:  # a rating is a nicety: never worth a player's state
            log.exception("rating lookup failed at table %s seat %s", table.id, seat)
            found = None
        if over and found is not None and found.get("change") is None:
            table.ratings[(seat, False)] = found  # not rated (yet): shown, asked again later
            return
        table.ratings[(seat, over)] = found

    async def broadcast_state(self, table: LiveTable) -> None:
        """Queue the new state on every socket of ``table`` (each has its own writer: this
        never waits for a client)."""
        await self.clock.sync(table)  # timeouts to announce, deadlines to arm
        conns = list(table.conns)
        game = table.game
        if game is not None and conns:
            views = game.views({c.seat for c in conns})  # public parts built once
            public = public_view_json(next(iter(views.values())))
            made: dict[tuple[int | None, str, int], tuple[str, int]] = {}
            deadlines = deadlines_json(table)  # (once: the same figures for every socket)
            for seat in {c.seat for c in conns if c.seat is not None}:
                self.look_up_rating(table, seat)
            for conn in conns:
                view = views[conn.seat]
                self._push_state(
                    table, conn, view=view, public=public, made=made, deadlines=deadlines
                )
        self.schedule_hints(table)

    async def broadcast_table(self, table: LiveTable, exclude: Conn | None = None) -> None:
        """Queue the table summary on every socket of ``table`` now (a seat, the status or the
        next table changed); it stands for a coalesced one that was due."""
        if table.summary_due is not None:
            table.summary_due.cancel()
            table.summary_due = None
        self._push_summary(table, exclude)

    def summary_soon(self, table: LiveTable) -> None:
        """Send the table summary soon, coalesced (sockets coming and going): at most one per
        table every ``summary_interval`` s, or every ``summary_per_socket`` s per socket on a
        big table, carrying the latest. A thousand spectators arriving used to send a million
        summaries one after another (issue 17)."""
        if table.summary_due is not None:
            return
        interval = max(self.summary_interval, self.summary_per_socket * len(table.conns))
        delay = max(0.0, table.summary_sent + interval - time.monotonic())
        loop = asyncio.get_running_loop()
        table.summary_due = loop.call_later(delay, self._summary_now, table)

    def _summary_now(self, table: LiveTable) -> None:
        table.summary_due = None
        self._push_summary(table)

    @staticmethod
    def _push_summary(table: LiveTable, exclude: Conn | None = None) -> None:
        """The summary, serialized once, to every socket that has not already got this very
        text (a new socket's ``welcome`` carries it)."""
        table.summary_sent = time.monotonic()
        text = to_json({"type": "table", "table": table_summary(table)})
        for conn in list(table.conns):
            if conn is not exclude and conn.last_summary != text:
                conn.last_summary = text
                conn.push(text)

    async def close_sockets(self, code: int, reason: str) -> None:
        """Ask every socket of this process to close (a shutdown): what is queued and
        ``reason`` are sent first; all at once, so one that does not read delays nobody."""
        conns = [c for t in list(self._tables.values()) for c in list(t.conns)]
        await asyncio.gather(*(c.close(code, reason) for c in conns))


def acked_version(table: LiveTable, seat: int, notation: str, client_id: str | None) -> int | None:
    """The version at which ``seat``'s ``client_id`` was acknowledged, if it was (the same
    message sent again after a lost answer: answered again, never applied twice); ``malformed``
    if that id was used for another action."""
    if client_id is None:
        return None
    done = table.acked.get((seat, client_id))
    if done is None:
        return None
    if done[0] != notation:
        raise ServiceError(E.MALFORMED, f"id {client_id!r} was used for {done[0]!r}", 422)
    return done[1]


def parsed_action(notation: str) -> Action:
    """RECORD.md notation as an action; ``bad_action`` (422) for anything else."""
    try:
        return parse_action(notation)
    except MalformedActionError:
        raise ServiceError(E.BAD_ACTION, repr(notation)[:80], 422) from None
