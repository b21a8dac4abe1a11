"""The table manager: lobby, seats, live games, bots, hints and broadcasting.

The database is the source of truth. Every accepted action is applied to a copy of the game,
committed, and only then made current, acknowledged and broadcast. A table's game is rebuilt
from its stored deck and actions when it is first needed (e.g. after a restart). Only
:class:`~gonuts.view.PlayerView`-derived JSON ever leaves this module.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import secrets
import time
import unicodedata
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final, Protocol

import pydantic_core
from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError

from gonuts.actions import Action, parse_action
from gonuts.bots import Bot, hint, make_bot
from gonuts.cards import KIND_IDS, MAX_PLAYERS, MIN_PLAYERS, canonical_deck
from gonuts.errors import (
    GameOverError,
    IllegalActionError,
    MalformedActionError,
    NotYourTurnError,
    RecordError,
)
from gonuts.game import Game
from gonuts.record import Record, apply_recorded
from gonuts.rng import seeded_shuffle
from gonuts.server import i18n
from gonuts.server.db import (
    ActionRow,
    FinishedRow,
    SeatRow,
    TableRow,
    current_revision,
    hash_token,
    head_revision,
    make_engine,
    make_sessionmaker,
    utcnow,
)
from gonuts.server.pubsub import Bus, catch_up
from gonuts.view import PlayerView

log = logging.getLogger("gonuts.server")

BOT_LEVELS: Final = ("easy", "medium", "hard")
REPLACEMENT_LEVEL: Final = "medium"
MAX_NAME: Final = 24


INSERT_ACTION: Final = insert(ActionRow)


def to_json(message: dict[str, Any]) -> str:
    """Compact JSON text, UTF-8 as is: the same as ``json.dumps(..., ensure_ascii=False,
    separators=(",", ":"))``, three times faster (pydantic's Rust encoder)."""
    return pydantic_core.to_json(message).decode("utf-8")


class ServiceError(Exception):
    """A refusal with a protocol error code (docs/protocol.md) and an optional detail."""

    def __init__(self, code: str, detail: str | None = None, status: int = 409) -> None:
        super().__init__(detail or code)
        self.code = code
        self.detail = detail
        self.status = status


class Sender(Protocol):
    async def send_text(self, data: str) -> None: ...


@dataclass(eq=False)
class Conn:
    """One WebSocket connection: a seat (None for a spectator) and what it has been sent."""

    sender: Sender
    seat: int | None
    lang: str
    sent_events: int = 0
    send_lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def send(self, message: dict[str, Any]) -> None:
        text = to_json(message)
        async with self.send_lock:
            try:
                await self.sender.send_text(text)
            except Exception:  # a closed socket: its handler cleans up
                log.debug("send failed", exc_info=True)


@dataclass
class Seat:
    seat: int
    kind: str
    level: str | None
    name: str | None
    token_hash: str | None
    hints: bool = False
    replaced: bool = False

    @property
    def taken(self) -> bool:
        return self.kind == "bot" or self.token_hash is not None

    @property
    def bot_level(self) -> str | None:
        """The level of the bot playing this seat now, or None for a human at the controls."""
        if self.kind == "bot":
            return self.level or REPLACEMENT_LEVEL
        return REPLACEMENT_LEVEL if self.replaced else None


@dataclass(eq=False)
class LiveTable:
    id: str
    created_at: datetime
    status: str
    deck: tuple[str, ...]
    seats: list[Seat]
    next_table: str | None = None
    game: Game | None = None
    conns: set[Conn] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    bot_task: asyncio.Task[None] | None = None
    replace_tasks: dict[int, asyncio.Task[None]] = field(default_factory=dict)
    bots: dict[int, Bot] = field(default_factory=dict)
    hinted: set[tuple[int, int]] = field(default_factory=set)
    remote: dict[str, tuple[frozenset[int], float]] = field(default_factory=dict)
    """Seats connected to other server processes: by process, (seats, expiry) (pubsub.py)."""
    acked: dict[tuple[int, str], tuple[str, int]] = field(default_factory=dict)
    """Client ids of the stored actions: (seat, id) -> (notation, version after it)."""
    idle_since: float | None = None
    """When the last connection left a finished table (for :meth:`Service.evict_idle`)."""

    _version_of: Game | None = field(default=None, repr=False)
    _version: int = field(default=0, repr=False)

    @property
    def version(self) -> int:
        """Actions taken so far; counted once per game object (a move replaces the game)."""
        game = self.game
        if game is None:
            return 0
        if game is not self._version_of:
            self._version_of, self._version = game, len(game.actions_taken())
        return self._version

    def connected(self, seat: int) -> bool:
        return any(c.seat == seat for c in self.conns) or any(
            seat in seats for seats, _ in self.remote.values()
        )


BotFactory = Callable[[str, int], Bot]


def _default_bot_factory(level: str, seed: int) -> Bot:
    return make_bot(level, seed)


def check_name(raw: str) -> str:
    name = " ".join(raw.split())
    if not 1 <= len(name) <= MAX_NAME:
        raise ServiceError("malformed", f"a name has 1 to {MAX_NAME} characters", 422)
    if any(unicodedata.category(ch).startswith("C") for ch in name):
        raise ServiceError("malformed", "a name cannot contain control characters", 422)
    return name


def _new_token() -> str:
    return secrets.token_urlsafe(24)


class Service:
    """Everything the HTTP and WebSocket handlers need; one per app."""

    def __init__(
        self,
        db_url: str,
        *,
        bot_delay: float = 0.5,
        replace_after: float = 120.0,
        hint_iterations: int = 300,
        bot_factory: BotFactory | None = None,
        keep_finished: float = 300.0,
    ) -> None:
        self.engine = make_engine(db_url)
        self.autocommit = self.engine.execution_options(isolation_level="AUTOCOMMIT")
        self.keep_finished = keep_finished
        self.sessions = make_sessionmaker(self.engine)
        self.bot_delay = bot_delay
        self.replace_after = replace_after
        self.hint_iterations = hint_iterations
        self.bot_factory = bot_factory or _default_bot_factory
        self.tables: dict[str, LiveTable] = {}
        self._load_lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[Any]] = set()
        self.bus: Bus | None = None
        self._sweeper: asyncio.Task[None] | None = None

    async def close(self) -> None:
        if self.bus is not None:
            await self.bus.close()
        if self._sweeper is not None:
            self._sweeper.cancel()
        for table in self.tables.values():
            for task in [table.bot_task, *table.replace_tasks.values()]:
                if task is not None:
                    task.cancel()
        for task in list(self._tasks):
            task.cancel()
        self.engine.dispose()

    def readiness(self) -> str | None:
        """Why this process cannot serve now (database unreachable, schema behind), or None."""
        try:
            have = current_revision(self.engine)
        except Exception as exc:  # any driver error means "not reachable"
            return f"database unreachable: {type(exc).__name__}"
        want = head_revision()
        if have != want:
            return f"schema at {have or 'nothing'}, not at the newest revision {want}"
        return None

    def _spawn(self, coro: Awaitable[Any]) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # -- loading ----------------------------------------------------------------------------------

    async def get(self, table_id: str) -> LiveTable:
        """The live table, rebuilt from the database if needed; ``unknown_table`` otherwise."""
        if self.bus is None and self.engine.dialect.name == "postgresql":
            self.bus = Bus(self)  # follow the other processes on this database (pubsub.py)
            self.bus.start()
        if self._sweeper is None:
            self._sweeper = asyncio.ensure_future(self._sweep())
        table = self.tables.get(table_id)
        if table is not None:
            return table
        async with self._load_lock:
            table = self.tables.get(table_id)
            if table is None:
                table = self._load(table_id)
                self.tables[table_id] = table
                if table.status == "playing":
                    self._watch_absent(table)
        if table.status == "playing":
            self._kick_bots(table)
        return table

    async def _sweep(self) -> None:
        """Forever: forget finished tables nobody has watched for ``keep_finished`` seconds.

        They stay in the database: :meth:`get` loads one again when it is asked for.
        """
        while True:
            await asyncio.sleep(max(0.05, min(self.keep_finished / 2, 30.0)))
            self.evict_idle()

    def evict_idle(self, now: float | None = None) -> list[str]:
        """Drop finished tables without connections since ``keep_finished`` seconds; their ids."""
        now = time.monotonic() if now is None else now
        gone = []
        for table in list(self.tables.values()):
            if table.status != "finished" or table.conns or table.lock.locked():
                table.idle_since = None
            elif table.idle_since is None:
                table.idle_since = now
            elif now - table.idle_since >= self.keep_finished:
                del self.tables[table.id]
                gone.append(table.id)
        return gone

    def _watch_absent(self, table: LiveTable) -> None:
        """After a restart nobody is connected: start the replacement clocks of human seats."""
        for s in table.seats:
            if s.kind == "human" and not s.replaced and s.seat not in table.replace_tasks:
                table.replace_tasks[s.seat] = self._spawn(self._replace_later(table, s.seat))

    def _load(self, table_id: str) -> LiveTable:
        if not isinstance(table_id, str) or len(table_id) > 32:
            raise ServiceError("unknown_table", None, 404)
        with self.sessions() as s:
            row = s.get(TableRow, table_id)
            if row is None:
                raise ServiceError("unknown_table", None, 404)
            seats = [
                Seat(r.seat, r.kind, r.level, r.name, r.token_hash, r.hints, r.replaced)
                for r in row.seats
            ]
            actions = s.scalars(
                select(ActionRow).where(ActionRow.table_id == table_id).order_by(ActionRow.seq)
            ).all()
            table = LiveTable(
                id=row.id,
                created_at=row.created_at,
                status=row.status,
                deck=tuple(json.loads(row.deck)),
                seats=seats,
                next_table=row.next_table,
            )
            if row.status != "open":
                game = self._new_game(table)
                for i, a in enumerate(actions):
                    apply_recorded(game, i, a.seat, a.notation)
                    if a.client_id is not None:
                        table.acked[(a.seat, a.client_id)] = (a.notation, i + 1)
                table.game = game
        self._make_bots(table)
        return table

    def _new_game(self, table: LiveTable) -> Game:
        names = [s.name or f"Player {s.seat + 1}" for s in table.seats]
        return Game.new(names, deck=table.deck)

    def _make_bots(self, table: LiveTable) -> None:
        for s in table.seats:
            level = s.bot_level
            if level is not None and s.seat not in table.bots:
                table.bots[s.seat] = self.bot_factory(level, secrets.randbits(32))

    # -- lobby ------------------------------------------------------------------------------------

    async def create_table(
        self, seats: Sequence[tuple[str, str | None]], name: str | None, lang: str
    ) -> tuple[LiveTable, int | None, str | None]:
        row, my_seat, token = self._new_table_row(seats, name, lang)
        with self.sessions() as s, s.begin():
            s.add(row)
        table = await self.get(row.id)
        await self._maybe_start(table)
        return table, my_seat, token

    @staticmethod
    def _new_table_row(
        seats: Sequence[tuple[str, str | None]], name: str | None, lang: str
    ) -> tuple[TableRow, int | None, str | None]:
        """A new table's row (with its seats and shuffled deck), the creator's seat and token."""
        n = len(seats)
        if not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise ServiceError("malformed", "a table has 2 to 6 seats", 422)
        for kind, level in seats:
            if kind == "bot" and level not in BOT_LEVELS:
                raise ServiceError("malformed", "a bot seat needs a level", 422)
        if name is not None:
            name = check_name(name)
        deck = tuple(KIND_IDS[k] for k in seeded_shuffle(canonical_deck(n), secrets.randbits(63)))
        table_id = secrets.token_urlsafe(8)
        seat_rows = []
        my_seat: int | None = None
        token: str | None = None
        for i, (kind, level) in enumerate(seats):
            row = SeatRow(seat=i, kind=kind, level=level if kind == "bot" else None)
            if kind == "bot":
                row.name = i18n.bot_name(i, level or REPLACEMENT_LEVEL, lang)
            elif name is not None and my_seat is None:
                my_seat, token = i, _new_token()
                row.name, row.token_hash, row.last_seen = name, hash_token(token), utcnow()
            seat_rows.append(row)
        table_row = TableRow(
            id=table_id, players=n, deck=json.dumps(list(deck)), status="open", seats=seat_rows
        )
        return table_row, my_seat, token

    async def join(self, table_id: str, name: str, seat: int | None = None) -> tuple[int, str]:
        """Take a free human seat (``seat`` if given and free, else the first)."""
        name = check_name(name)
        table = await self.get(table_id)
        async with table.lock:
            if self.bus is not None:
                catch_up(self, table)  # another process may have seated someone
            if table.status != "open":
                raise ServiceError("table_full", "the game has already started")
            free = [s for s in table.seats if s.kind == "human" and not s.taken]
            if not free:
                raise ServiceError("table_full")
            chosen = next((s for s in free if s.seat == seat), free[0])
            token = _new_token()
            with self.sessions() as s, s.begin():
                row = s.get(SeatRow, (table.id, chosen.seat), with_for_update=True)
                assert row is not None
                if row.token_hash is not None:  # taken just now through another process
                    raise ServiceError("table_full", "the seat was just taken; try again")
                row.name, row.token_hash, row.last_seen = name, hash_token(token), utcnow()
            chosen.name, chosen.token_hash = name, hash_token(token)
        await self.broadcast_table(table)
        await self._maybe_start(table)
        return chosen.seat, token

    def seat_for_token(self, table: LiveTable, token: str | None) -> int:
        """The seat ``token`` holds at ``table``; ``bad_token`` otherwise."""
        if token:
            digest = hash_token(token)
            for s in table.seats:
                if s.token_hash is not None and secrets.compare_digest(s.token_hash, digest):
                    return s.seat
        raise ServiceError("bad_token", None, 403)

    async def _maybe_start(self, table: LiveTable) -> None:
        async with table.lock:
            if (
                self.bus is not None
                and table.status == "open"
                and not all(s.taken for s in table.seats)
            ):
                # the last two seats may be taken at once on two processes: each looks at the
                # database after its own commit, so the later one sees both and starts
                catch_up(self, table)
            if table.status != "open" or not all(s.taken for s in table.seats):
                return
            with self.sessions() as s, s.begin():
                row = s.get(TableRow, table.id)
                assert row is not None
                row.status = "playing"
            table.status = "playing"
            table.game = self._new_game(table)
        await self.broadcast_table(table)
        await self.broadcast_state(table)
        self._kick_bots(table)

    async def again(self, table_id: str, token: str | None, lang: str) -> tuple[str, int, str]:
        """Play again: a new table with the same seats; the caller keeps their seat."""
        table = await self.get(table_id)
        seat = self.seat_for_token(table, token)
        if table.status != "finished" and self.bus is not None:
            async with table.lock:
                catch_up(self, table)  # the last move may have been made on another process
        if table.status != "finished":
            raise ServiceError("not_finished")
        me = table.seats[seat]
        created = False
        async with table.lock:
            if table.next_table is None:
                # one transaction, the finished table's row locked: two players asking at once,
                # even on two server processes, get one new table
                new, _, _ = self._new_table_row(
                    [(s.kind, s.level) for s in table.seats], None, lang
                )
                with self.sessions() as s, s.begin():
                    row = s.get(TableRow, table.id, with_for_update=True)
                    assert row is not None
                    if row.next_table is None:
                        s.add(new)
                        row.next_table = new.id
                        created = True
                    table.next_table = row.next_table
        next_id = table.next_table
        assert next_id is not None
        if created:
            await self._maybe_start(await self.get(next_id))
            message = {"type": "next_table", "table_id": next_id, "invite_url": f"/t/{next_id}"}
            for conn in list(table.conns):
                await conn.send(message)
        new_seat, new_token = await self.join(next_id, me.name or f"Player {seat + 1}", seat)
        return next_id, new_seat, new_token

    # -- connections ------------------------------------------------------------------------------

    async def connect(self, table: LiveTable, conn: Conn) -> None:
        table.conns.add(conn)
        if conn.seat is not None:
            task = table.replace_tasks.pop(conn.seat, None)
            if task is not None:
                task.cancel()
            seat = table.seats[conn.seat]
            self._touch_seat(table, conn.seat, replaced=False)
            if seat.replaced:
                seat.replaced = False
                table.bots.pop(conn.seat, None)
            if self.bus is not None:
                self.bus.announce(table)
        await self.broadcast_table(table, exclude=conn)

    async def disconnect(self, table: LiveTable, conn: Conn) -> None:
        table.conns.discard(conn)
        seat = conn.seat
        if seat is not None:
            self._touch_seat(table, seat)
            if (
                table.status == "playing"
                and table.seats[seat].kind == "human"
                and not table.connected(seat)
                and seat not in table.replace_tasks
            ):
                table.replace_tasks[seat] = self._spawn(self._replace_later(table, seat))
            if self.bus is not None:
                self.bus.announce(table)
        await self.broadcast_table(table)

    def _touch_seat(self, table: LiveTable, seat: int, **values: Any) -> None:
        """Note that ``seat`` was seen now (and set ``values``): one autocommitted UPDATE."""
        with self.autocommit.connect() as c:
            c.execute(
                update(SeatRow)
                .where(SeatRow.table_id == table.id, SeatRow.seat == seat)
                .values(last_seen=utcnow(), **values)
            )

    async def _replace_later(self, table: LiveTable, seat: int) -> None:
        await asyncio.sleep(self.replace_after)
        table.replace_tasks.pop(seat, None)
        if table.connected(seat) or table.status != "playing":
            return
        with self.sessions() as s, s.begin():
            row = s.get(SeatRow, (table.id, seat))
            assert row is not None
            row.replaced = True
        table.seats[seat].replaced = True
        self._make_bots(table)
        await self.broadcast_table(table)
        self._kick_bots(table)

    async def set_hints(self, table: LiveTable, conn: Conn, on: bool) -> None:
        if conn.seat is None:
            raise ServiceError("spectator")
        with self.sessions() as s, s.begin():
            row = s.get(SeatRow, (table.id, conn.seat))
            assert row is not None
            row.hints = on
        table.seats[conn.seat].hints = on
        if on:
            table.hinted.discard((conn.seat, table.version))
            self._schedule_hints(table)

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
        async with table.lock:
            version, replayed = self._apply_locked(table, seat, notation, client_id)
            if ack is not None:
                await ack(version)
        if replayed:
            return version, True
        await self.broadcast_state(table)
        if table.status == "finished":
            await self.broadcast_table(table)
        self._kick_bots(table)
        return version, False

    def _apply_locked(
        self, table: LiveTable, seat: int, notation: str, client_id: str | None = None
    ) -> tuple[int, bool]:
        if client_id is not None:
            done = table.acked.get((seat, client_id))
            if done is not None:
                if done[0] != notation:
                    used = f"id {client_id!r} was used for {done[0]!r}"
                    raise ServiceError("malformed", used, 422)
                return done[1], True
        try:
            action: Action = parse_action(notation)
        except MalformedActionError:
            raise ServiceError("bad_action", repr(notation)[:80], 422) from None
        try:
            trial = self._trial(table, seat, action, notation)
        except ServiceError:
            # several processes: this one may not have heard the latest actions yet
            if self.bus is None or not catch_up(self, table).state:
                raise
            self._spawn(self.broadcast_state(table))
            return self._apply_locked(table, seat, notation, client_id)
        game = table.game
        assert game is not None
        seq = len(game.actions_taken())
        try:
            self._commit_action(table, seq, seat, notation, trial, client_id=client_id)
        except IntegrityError:
            # another server process took action ``seq`` (or this id) first: catch up, try again
            if not catch_up(self, table).state:
                raise
            self._spawn(self.broadcast_state(table))
            return self._apply_locked(table, seat, notation, client_id)
        table.game = trial
        if client_id is not None:
            table.acked[(seat, client_id)] = (notation, seq + 1)
        if trial.is_over:
            table.status = "finished"
        return seq + 1, False

    @staticmethod
    def _trial(table: LiveTable, seat: int, action: Action, notation: str) -> Game:
        """A copy of the table's game with ``action`` applied; a refusal if it cannot be."""
        if table.status == "open" or table.game is None:
            raise ServiceError("not_started")
        trial = table.game.copy()
        try:
            trial.apply(seat, action)
        except GameOverError:
            raise ServiceError("game_over") from None
        except NotYourTurnError:
            raise ServiceError("not_your_turn") from None
        except IllegalActionError:
            raise ServiceError("illegal", notation) from None
        return trial

    def _commit_action(
        self,
        table: LiveTable,
        seq: int,
        seat: int,
        notation: str,
        trial: Game,
        *,
        client_id: str | None,
    ) -> None:
        values = {
            "table_id": table.id,
            "seq": seq,
            "seat": seat,
            "notation": notation,
            "client_id": client_id,
        }
        if not trial.is_over:
            # The hot path: one INSERT, atomic by itself, so autocommit: on PostgreSQL one round
            # trip instead of three (BEGIN, INSERT, COMMIT). Core, not the ORM's unit of work.
            with self.autocommit.connect() as c:
                c.execute(INSERT_ACTION, values)
            return
        with self.sessions() as s, s.begin():
            s.add(ActionRow(**values))
            if trial.is_over:
                row = s.get(TableRow, table.id)
                assert row is not None
                row.status = "finished"
                s.add(
                    FinishedRow(
                        table_id=table.id,
                        players=json.dumps(list(trial.players)),
                        scores=json.dumps(trial.scores()),
                        winners=json.dumps(list(trial.winner_seats)),
                        record=Record.from_game(trial).to_json(),
                    )
                )

    def _kick_bots(self, table: LiveTable) -> None:
        if table.status != "playing" or not table.bots:
            return  # (no bot at this table: no task to start and finish per move)
        if table.bot_task is None or table.bot_task.done():
            table.bot_task = asyncio.ensure_future(self._drive_bots(table))

    async def _drive_bots(self, table: LiveTable) -> None:
        while table.status == "playing" and table.game is not None:
            game = table.game
            turns = [
                (s, game.view(s))
                for s in game.to_act
                if table.seats[s].bot_level is not None and s in table.bots
            ]
            if not turns:
                return
            if self.bot_delay:
                await asyncio.sleep(self.bot_delay)
            for seat, view in turns:
                bot = table.bots[seat]
                try:
                    action = await asyncio.to_thread(bot.choose, view)
                except Exception:
                    log.exception("bot failed at table %s seat %s", table.id, seat)
                    return
                if table.seats[seat].bot_level is None:
                    continue  # the human came back while the bot was thinking
                try:
                    async with table.lock:
                        self._apply_locked(table, seat, action.notation)
                except ServiceError:
                    continue  # the position moved on meanwhile; look again
                await self.broadcast_state(table)
                if table.status == "finished":
                    await self.broadcast_table(table)

    def _schedule_hints(self, table: LiveTable) -> None:
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
        try:
            result = await asyncio.to_thread(
                hint, view, iterations=self.hint_iterations, seed=version
            )
        except ValueError:
            return
        if table.version != version:
            return
        data = result.to_dict()
        for conn in list(table.conns):
            if conn.seat != seat:
                continue
            actions = [
                {
                    **a,
                    "label": i18n.describe_action(
                        parse_action(a["action"]), view.players, conn.lang
                    ),
                }
                for a in data["actions"]
            ]
            await conn.send(
                {"type": "hint", "version": version, "hint": {**data, "actions": actions}}
            )

    # -- messages ---------------------------------------------------------------------------------

    def summary(self, table: LiveTable) -> dict[str, Any]:
        game = table.game
        over = game is not None and game.is_over
        return {
            "id": table.id,
            "status": table.status,
            "players": len(table.seats),
            "seats": [
                {
                    "seat": s.seat,
                    "kind": s.kind,
                    "level": s.level,
                    "name": s.name,
                    "taken": s.taken,
                    "connected": s.kind == "bot" or table.connected(s.seat),
                    "bot_playing": s.bot_level is not None,
                }
                for s in table.seats
            ],
            "invite_url": f"/t/{table.id}",
            "created_at": table.created_at.isoformat() + "Z",
            "version": table.version,
            "round": game.round if game is not None else 0,
            "scores": game.scores() if game is not None else [],
            "winners": list(game.winner_seats) if over and game is not None else [],
            "next_table": table.next_table,
        }

    def state_message(
        self,
        table: LiveTable,
        seat: int | None,
        lang: str,
        start: int,
        *,
        view: PlayerView | None = None,
        public: dict[str, Any] | None = None,
    ) -> tuple[dict[str, Any], int]:
        """The ``state`` message for ``seat`` with events from ``start``; and the new count.

        ``view``: that seat's view of the table's current game, if already built."""
        game = table.game
        if game is None:
            raise ServiceError("not_started")
        if view is None:
            view = game.view(seat) if seat is not None else game.public_view()
        events = view.events[start:]
        names = view.players
        msg = {
            "type": "state",
            "version": table.version,
            "full": start == 0,
            "view": view_json(view, lang, public),
            "events": [event_json(e, names, lang) for e in events],
            "events_from": start,
            "breakdown": breakdown_json(game) if game.is_over else None,
        }
        return msg, len(view.events)

    async def send_state(
        self,
        table: LiveTable,
        conn: Conn,
        *,
        full: bool = False,
        view: PlayerView | None = None,
        public: dict[str, Any] | None = None,
    ) -> None:
        if table.game is None:
            return
        if full:
            conn.sent_events = 0
        msg, count = self.state_message(
            table, conn.seat, conn.lang, conn.sent_events, view=view, public=public
        )
        conn.sent_events = count
        await conn.send(msg)

    async def broadcast_state(self, table: LiveTable) -> None:
        conns = list(table.conns)
        game = table.game
        if game is not None and conns:
            views = game.views({c.seat for c in conns})  # public parts built once
            public = public_view_json(next(iter(views.values())))
            for conn in conns:
                if table.game is game:
                    await self.send_state(table, conn, view=views[conn.seat], public=public)
                else:  # the game moved on while a send waited: build that seat's view afresh
                    await self.send_state(table, conn)
        self._schedule_hints(table)

    async def broadcast_table(self, table: LiveTable, exclude: Conn | None = None) -> None:
        msg = {"type": "table", "table": self.summary(table)}
        for conn in list(table.conns):
            if conn is not exclude:
                await conn.send(msg)

    # -- listings, records, replays ---------------------------------------------------------------

    async def list_tables(self, status: str | None) -> list[dict[str, Any]]:
        wanted = (status,) if status else ("open", "playing")
        with self.sessions() as s:
            ids = s.scalars(
                select(TableRow.id)
                .where(TableRow.status.in_(wanted))
                .order_by(TableRow.created_at.desc())
                .limit(100)
            ).all()
        return [self.summary(await self.get(i)) for i in ids]

    def list_games(self, limit: int, offset: int) -> list[dict[str, Any]]:
        with self.sessions() as s:
            rows = s.scalars(
                select(FinishedRow)
                .order_by(FinishedRow.finished_at.desc())
                .limit(limit)
                .offset(offset)
            ).all()
            return [
                {
                    "id": r.table_id,
                    "players": json.loads(r.players),
                    "scores": json.loads(r.scores),
                    "winners": json.loads(r.winners),
                    "finished_at": r.finished_at.isoformat() + "Z",
                }
                for r in rows
            ]

    def record_text(self, game_id: str) -> str:
        with self.sessions() as s:
            row = s.get(FinishedRow, game_id) if len(game_id) <= 32 else None
            if row is not None:
                return row.record
            if s.get(TableRow, game_id) is not None if len(game_id) <= 32 else False:
                raise ServiceError("not_finished")
        raise ServiceError("unknown_table", None, 404)


# -- JSON of views, events, breakdowns, replays ----------------------------------------------------


def action_json(action: Action, names: Sequence[str], lang: str) -> dict[str, Any]:
    """An action with its localized label (cached: actions are frozen values)."""
    return _action_json(action, tuple(names), lang)


@functools.lru_cache(maxsize=4096)
def _action_json(action: Action, names: tuple[str, ...], lang: str) -> dict[str, Any]:
    return {  # shared between messages: never mutated
        "action": action.notation,
        "verb": i18n.VERB_NAMES[action.verb],
        "position": action.position,
        "kind": action.kind,
        "seat": action.seat,
        "label": i18n.describe_action(action, names, lang),
    }


def public_view_json(view: PlayerView) -> dict[str, Any]:
    """The parts of :func:`view_json` that are the same for every seat (views built together
    by :meth:`Game.views` share them): build once, pass to :func:`view_json` for each seat."""
    return {
        "players": list(view.players),
        "row": list(view.row),
        "discard": list(view.discard),
        "collections": [dict(c) for c in view.collections],
        "scores": list(view.scores),
        "winners": list(view.winners),
        "waiting_for": list(view.waiting_for),
    }


def view_json(view: PlayerView, lang: str, public: dict[str, Any] | None = None) -> dict[str, Any]:
    """A :class:`PlayerView` as protocol JSON (events are sent separately).

    ``public``: :func:`public_view_json` of a view of the same position (shared, not copied)."""
    pub = public if public is not None else public_view_json(view)
    names = tuple(view.players)
    return {
        "seat": view.seat,
        "players": pub["players"],
        "round": view.round,
        "phase": view.phase.value,
        "over": view.over,
        "row": pub["row"],
        "deck_size": view.deck_size,
        "discard": pub["discard"],
        "collections": pub["collections"],
        "scores": pub["scores"],
        "winners": pub["winners"],
        "selections": list(view.selections),
        "waiting_for": pub["waiting_for"],
        "legal": [_action_json(a, names, lang) for a in view.legal],
        "power": view.power,
        "actor": view.actor,
        "resolving": view.resolving,
        "step": view.step,
        "drawn": list(view.drawn),
        "known_deck_top": view.known_deck_top,
        "my_pass": view.my_pass,
        "unseen": dict(view.unseen),
    }


def event_json(event: Any, names: Sequence[str], lang: str) -> dict[str, Any]:
    """``event.to_json()`` with its localized ``text`` (cached: events are frozen values)."""
    return _event_json(event, tuple(names), lang)


@functools.lru_cache(maxsize=4096)
def _event_json(event: Any, names: tuple[str, ...], lang: str) -> dict[str, Any]:
    out: dict[str, Any] = event.to_json()
    out["text"] = i18n.describe_event(event, names, lang)
    return out  # shared between messages: never mutated


def breakdown_json(game: Game) -> list[dict[str, Any]]:
    winners = set(game.winner_seats)
    return [
        {
            "player": b.player,
            "total": b.total,
            "cards": b.cards,
            "kinds": b.kinds,
            "winner": b.player in winners,
            "lines": [
                {"kind": ln.kind, "count": ln.count, "points": ln.points, "reason": ln.reason}
                for ln in b.lines
            ],
        }
        for b in game.score_breakdown()
    ]


def replay_data(record: Record, lang: str) -> dict[str, Any]:
    """Public views step by step through ``record`` (see docs/protocol.md, REPLAY)."""
    try:
        game = Game.new(record.players, deck=record.initial_deck())
    except ValueError as exc:
        raise RecordError(str(exc)) from None
    names = record.players
    view = game.public_view()
    steps: list[dict[str, Any]] = [
        {
            "index": 0,
            "actor": None,
            "action": None,
            "label": None,
            "view": view_json(view, lang),
            "events": [event_json(e, names, lang) for e in view.events],
        }
    ]
    seen = len(view.events)
    for i, recorded in enumerate(record.actions):
        apply_recorded(game, i, recorded.player, recorded.action)
        view = game.public_view()
        action = parse_action(recorded.action)
        steps.append(
            {
                "index": i + 1,
                "actor": recorded.player,
                "action": recorded.action,
                "label": f"{names[recorded.player]}: {i18n.describe_action(action, names, lang)}",
                "view": view_json(view, lang),
                "events": [event_json(e, names, lang) for e in view.events[seen:]],
            }
        )
        seen = len(view.events)
    return {
        "players": list(names),
        "steps": steps,
        "breakdown": breakdown_json(game) if game.is_over else None,
        "record": record.to_dict(),
    }


__all__ = [
    "BOT_LEVELS",
    "Conn",
    "LiveTable",
    "Service",
    "ServiceError",
    "check_name",
    "replay_data",
    "view_json",
]
