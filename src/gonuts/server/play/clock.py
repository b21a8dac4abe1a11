"""The turn clock: a deadline for every pending human decision, and a bot at the deadline.

A table made with a clock (``gn_tables.clock``, seconds per decision) gives each human seat
that must decide a deadline ``clock`` seconds after that decision became pending. A decision is
known by how many actions its seat has taken so far, so another seat's move in a simultaneous
phase does not restart anyone's countdown. At the deadline the ``medium`` bot decides for the
seat; the action is stored with the client id ``clock:<n>``, which tells every server process
(and this one after a restart) that it was a timeout, and which the database lets through
once: when several processes time the same decision out, exactly one action is stored. After
:data:`STRIKES` timeouts in a row the seat is marked ``replaced`` (the absent player's flag: a
bot plays it) until its player acts, says they are back, or connects again.

Whoever comes back is told which decisions were made for them (by the clock or by the bot that
replaced them): an ``away`` message on their socket. The service calls :meth:`TurnClock.sync`
before it sends a state, :meth:`TurnClock.arm` when it kicks the bots, :meth:`TurnClock.acted`
after a player's own action and :meth:`TurnClock.welcome` after a full state; the rest is here.
Deadlines live on the :class:`~gonuts.server.play.live.LiveTable` in this process's monotonic clock:
a restarted server gives every pending decision of a real-time table a fresh deadline; a
turn-based table's are kept in the database by the subclass in :mod:`gonuts.server.play.deadlines`
through the hooks :meth:`TurnClock.due_many` and :meth:`TurnClock.dropped` (docs/server.md).

Over 500 lines (about 540), on purpose: :class:`TurnClock`'s timers, strike counts and
announcements share one watch state per table; split, that state would travel between modules.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Protocol

from gonuts.actions import ACTIONS, Action, parse_action
from gonuts.game import Game
from gonuts.server.kernel import i18n
from gonuts.server.kernel.errors import ErrorCode, ServiceError
from gonuts.server.play import live
from gonuts.server.play.live import REPLACEMENT_LEVEL, LiveTable
from gonuts.server.play.store import ActionTakenError, PlayStore
from gonuts.server.transport.conn import Conn
from gonuts.view import PlayerView

log = logging.getLogger("gonuts.server.clock")

MIN_CLOCK: Final = 10
"""The shortest clock a table can be made with (seconds per decision)."""
MAX_CLOCK: Final = 604_800
"""The longest: seven days (a turn-based table, :data:`TURN_BASED`)."""
TURN_BASED: Final = 3600
"""A table whose clock is this long or more is turn-based: its deadlines are absolute times in
the database (``gn_deadlines``, :mod:`gonuts.server.play.deadlines`), not this process's."""
DEFAULT_CLOCK: Final = 60
"""The clock of a table made without saying, when two or more of its seats are human."""
STRIKES: Final = 3
"""Timeouts in a row after which a bot plays the seat until its player is back."""
CLOCK_ID: Final = live.CLOCK_ID
"""The prefix of the client ids of the actions the clock takes (refused from clients)."""
RETRY: Final = 1.0
"""Seconds before a timeout that could not be applied is tried again."""

By = Literal["clock", "bot"]


def benches(streak: int) -> bool:
    """Whether a seat's ``streak``-th timeout in a row hands it to a bot: the third, and again
    the sixth if its player said they were back but let the time run out three more times."""
    return streak > 0 and streak % STRIKES == 0


def default_clock(kinds: Sequence[str]) -> int | None:
    """The clock of a table made without one: none when at most one seat is human (nobody to
    wait for but yourself and bots), else :data:`DEFAULT_CLOCK`."""
    return DEFAULT_CLOCK if sum(k == "human" for k in kinds) >= 2 else None


def deadlines_json(table: LiveTable, now: float | None = None) -> dict[str, float]:
    """Seconds left to each human seat that must decide now, by seat (``{}``: no clock).

    A broadcast computes it once for all its sockets (``state_message(deadlines=...)``)."""
    deadlines = table.deadlines
    if not deadlines or table.clock is None or table.game is None:
        return {}
    now = time.monotonic() if now is None else now
    seats = table.seats
    return {
        str(seat): round(max(0.0, deadlines[seat] - now), 1)
        for seat in sorted(deadlines)
        if seats[seat].bot_level is None
    }


def latest_actions(game: Game, n: int) -> list[tuple[int, Action]]:
    """The last ``n`` actions of ``game`` as (seat, action), oldest first: a walk back along
    the state's shared history, so looking at one new move costs one step, not the game."""
    out: list[tuple[int, Action]] = []
    node = game.state.history
    while node is not None and len(out) < n:
        node, seat, action_id = node
        out.append((seat, ACTIONS[action_id]))
    out.reverse()
    return out


def replace_in(table: LiveTable, seat: int, now: float | None = None) -> float | None:
    """Seconds until a bot replaces ``seat``'s absent player, or None (no countdown)."""
    at = table.replace_at.get(seat)
    if at is None or seat not in table.replace_tasks or table.seats[seat].replaced:
        return None
    now = time.monotonic() if now is None else now
    return round(max(0.0, at - now), 1)


class ClockHub(Protocol):
    """What the clock needs of the service (it imports nothing of it)."""

    store: PlayStore

    async def bot_decision(self, table: LiveTable, level: str, view: PlayerView) -> Action: ...

    def apply_locked(
        self, table: LiveTable, seat: int, notation: str, client_id: str | None = None
    ) -> tuple[int, bool]: ...

    def make_bots(self, table: LiveTable) -> None: ...

    async def broadcast_state(self, table: LiveTable) -> None: ...

    async def broadcast_table(self, table: LiveTable, exclude: Conn | None = None) -> None: ...

    def kick_bots(self, table: LiveTable) -> None: ...


@dataclass(frozen=True, slots=True)
class Decision:
    """A decision made for a human seat: by the clock (a timeout) or by the bot replacing it."""

    version: int
    """The table's version once it was taken."""
    seat: int
    notation: str
    by: By


@dataclass
class _Watch:
    """One table's clock state in this process."""

    keys: dict[int, int] = field(default_factory=dict)
    """The decision each deadline is for: its seat's action count then."""
    seen: int | None = None
    """The version whose actions have been looked at (None: not yet)."""
    counts: list[int] = field(default_factory=list)
    """Actions taken so far by each seat: the key of each seat's pending decision."""
    counted: int = -1
    """The version ``counts`` is of; a newer one adds only the new actions."""
    armed: tuple[int, str, tuple[int, ...]] | None = None
    """What the deadlines were last armed for: (version, status, the seats to time);
    :meth:`TurnClock.arm` with the same has nothing to do."""
    game: Game | None = None
    to_act: tuple[int, ...] = ()
    """``game.to_act`` of the game last armed for (computed once per game object)."""
    behalf: dict[int, list[Decision]] = field(default_factory=dict)
    """Decisions made for each seat since its player last decided (told when they are back)."""
    handle: asyncio.TimerHandle | None = None
    due: float | None = None
    busy: set[int] = field(default_factory=set)
    """Seats whose timeout is being decided right now."""


class TurnClock:
    """The turn clocks of one server process (one per :class:`~gonuts.server.play.service.Service`).

    ``scale`` multiplies every clock (tests shorten it; the API's minimum stays 10 s).
    """

    def __init__(self, hub: ClockHub, *, scale: float = 1.0) -> None:
        self.hub = hub
        self.scale = scale
        self._watches: weakref.WeakKeyDictionary[LiveTable, _Watch] = weakref.WeakKeyDictionary()
        self._tasks: set[asyncio.Task[None]] = set()

    def seconds(self, table: LiveTable) -> float:
        return (table.clock or 0) * self.scale

    def _watch(self, table: LiveTable) -> _Watch:
        st = self._watches.get(table)
        if st is None:
            st = self._watches[table] = _Watch()
        return st

    def forget(self, table: LiveTable) -> None:
        """``table`` leaves this process's memory: its timer stops (its deadlines do not)."""
        st = self._watches.pop(table, None)
        if st is not None and st.handle is not None:
            st.handle.cancel()

    def close(self) -> None:
        for st in list(self._watches.values()):
            if st.handle is not None:
                st.handle.cancel()
        for task in list(self._tasks):
            task.cancel()

    # -- deadlines --------------------------------------------------------------------------------

    def arm(self, table: LiveTable) -> None:
        """Give each human seat that must decide now a deadline (keeping running ones), drop
        the others, and set the timer for the earliest. Idempotent and cheap."""
        game = table.game
        if table.clock is None:
            if table.deadlines:  # (a table's clock never changes: this is for safety)
                table.deadlines.clear()
            return  # no clock, nothing to time: no per-state work at all
        st = self._watch(table)
        if game is None or table.status != "playing" or game.is_over:
            if table.deadlines or st.keys:
                self.dropped(table, None, None)
            table.deadlines.clear()
            st.keys.clear()
            st.armed = None
            self._schedule(table, st)
            return
        if st.game is not game:  # (a move replaces the game object)
            st.game, st.to_act = game, game.to_act
        seats = table.seats
        pending = tuple(s for s in st.to_act if seats[s].bot_level is None)
        version = table.version
        armed = (version, table.status, pending)
        if armed == st.armed and len(table.deadlines) == len(pending):
            return  # the same decisions as last time: their deadlines stand
        for seat in [s for s in table.deadlines if s not in pending]:
            del table.deadlines[seat]
            self.dropped(table, seat, st.keys.pop(seat, None))
        if pending:
            counts = self._counts(st, game, version)
            fresh = {
                seat: counts[seat]
                for seat in pending
                if st.keys.get(seat) != counts[seat] or seat not in table.deadlines
            }
            if fresh:  # (all at once: one write for a round's four picks)
                for seat, at in self.due_many(table, fresh, time.monotonic()).items():
                    table.deadlines[seat] = at
                    st.keys[seat] = fresh[seat]
        st.armed = armed
        self._schedule(table, st)

    def due_many(self, table: LiveTable, keys: Mapping[int, int], now: float) -> dict[int, float]:
        """When each seat's decision (``keys``: seat -> decision key), pending from ``now``
        on, runs out (monotonic), by seat."""
        return dict.fromkeys(keys, now + self.seconds(table))

    def dropped(self, table: LiveTable, seat: int | None, key: int | None) -> None:
        """``seat``'s decision ``key`` is no longer pending (None: no decision of the table is,
        the game is over). Nothing to do for deadlines kept in memory."""

    def drives(self, table: LiveTable) -> bool:
        """Whether this process times ``table``'s decisions out (and moves its bots): every
        process holding a real-time table does (the database stores one action); a turn-based
        one has a single driver (:mod:`~gonuts.server.play.deadlines`)."""
        return True

    @staticmethod
    def _counts(st: _Watch, game: Game, version: int) -> list[int]:
        """Actions taken per seat at ``version`` (each decision's key): the new actions added
        to the last count, or all of them counted afresh (the first time, or a shorter game)."""
        if st.counted != version:
            if 0 <= st.counted < version and len(st.counts) == game.state.n:
                new = latest_actions(game, version - st.counted)
            else:
                st.counts = [0] * game.state.n
                new = game.actions_taken()
            counts = st.counts
            for seat, _ in new:
                counts[seat] += 1
            st.counted = version
        return st.counts

    def _schedule(self, table: LiveTable, st: _Watch) -> None:
        """Set the timer for the earliest deadline (of the seats not being timed out now).

        A timer that goes off no later is kept (a move usually pushes the earliest deadline
        back: no cancel and new timer per move); going off early, it only sets the next one."""
        busy = st.busy
        due = min((at for seat, at in table.deadlines.items() if seat not in busy), default=None)
        if due is not None and not self.drives(table):
            due = None  # another process runs this table's clock
        if st.handle is not None:
            if due is not None and st.due is not None and st.due <= due:
                return
            st.handle.cancel()
            st.handle = None
        elif due is None and st.due is None:
            return
        st.due = due
        if due is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # (no loop: nothing can time out yet; the next call arms it)
            st.due = None
            return
        st.handle = loop.call_later(max(0.0, due - time.monotonic()), self._fire, table)

    def _fire(self, table: LiveTable) -> None:
        st = self._watch(table)
        st.handle, st.due = None, None
        now = time.monotonic()
        for seat, at in list(table.deadlines.items()):
            if at <= now + 0.001 and seat not in st.busy:
                st.busy.add(seat)
                task = asyncio.ensure_future(self._timeout(table, seat, st.keys[seat]))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
        self._schedule(table, st)

    def _still_due(self, table: LiveTable, seat: int, key: int) -> bool:
        self.arm(table)
        return seat in table.deadlines and self._watch(table).keys.get(seat) == key

    async def _timeout(self, table: LiveTable, seat: int, key: int) -> None:
        """The deadline of ``seat``'s decision ``key`` passed: the medium bot decides."""
        st = self._watch(table)
        try:
            for _ in range(3):
                game = table.game
                if game is None or not self._still_due(table, seat, key) or not self.drives(table):
                    return
                try:
                    action = await self.hub.bot_decision(table, REPLACEMENT_LEVEL, game.view(seat))
                except Exception:
                    log.exception("the clock's bot failed at table %s seat %s", table.id, seat)
                    break
                async with table.lock:
                    if not self._still_due(table, seat, key):
                        return
                    try:
                        _, replayed = self.hub.apply_locked(
                            table, seat, action.notation, f"{CLOCK_ID}{key}"
                        )
                    except (ServiceError, ActionTakenError):
                        continue  # the position moved on meanwhile: look again
                    if replayed:
                        return  # another server process timed this decision out first
                    benched = benches(self.streak(table, seat))
                    if benched and not table.seats[seat].replaced:
                        self.hub.store.update_seat(table.id, seat, replaced=True)
                        table.seats[seat].replaced = True
                        self.hub.make_bots(table)
                await self.hub.broadcast_state(table)
                if benched or table.status == "finished":
                    await self.hub.broadcast_table(table)
                self.hub.kick_bots(table)
                return
            if seat in table.deadlines:  # could not decide: try again in a moment
                table.deadlines[seat] = time.monotonic() + RETRY
        finally:
            st.busy.discard(seat)
            st.armed = None  # (a retry's deadline, or no longer busy: schedule afresh)
            self.arm(table)

    def streak(self, table: LiveTable, seat: int, upto: int | None = None) -> int:
        """How many of ``seat``'s latest decisions in a row the clock made (among the first
        ``upto`` actions, if given)."""
        game = table.game
        if game is None:
            return 0
        clocked = self._clocked(table)
        n = 0
        actions = game.actions_taken()[:upto]
        for i, (s, _) in reversed(list(enumerate(actions))):
            if s != seat:
                continue
            if clocked.get(i + 1) != seat:
                break
            n += 1
        return n

    @staticmethod
    def _clocked(table: LiveTable) -> dict[int, int]:
        """The versions reached by the clock's actions, and whose decision each was (kept by
        :meth:`~gonuts.server.play.live.LiveTable.remember` as the actions are stored or read)."""
        return table.clocked

    # -- what happened, told ----------------------------------------------------------------------

    async def sync(self, table: LiveTable) -> None:
        """Before a state goes out: announce the timeouts among the new actions (whichever
        process took them), note the decisions made for absent players, arm the deadlines."""
        for decision in self._scan(table):
            await self._announce(table, decision)
        self.arm(table)

    def _scan(self, table: LiveTable) -> list[Decision]:
        st = self._watch(table)
        game = table.game
        if game is None:
            return []
        version = table.version
        if st.seen is None or version < st.seen:
            # first look (a table loaded, perhaps after a restart): what the clock decided for
            # each seat at the end of the game so far is still to be told
            st.seen = version
            clocked = self._clocked(table)
            actions = game.actions_taken()
            for seat in range(len(table.seats)):
                run = [
                    Decision(i + 1, seat, a.notation, "clock")
                    for i, (s, a) in enumerate(actions)
                    if s == seat
                ]
                trail = []
                for d in reversed(run):
                    if clocked.get(d.version) != seat:
                        break
                    trail.append(d)
                if trail:
                    st.behalf[seat] = trail[::-1]
            return []
        if version == st.seen:
            return []
        clocked = self._clocked(table)
        news: list[Decision] = []
        # only the actions since the last look (usually one), walked back from the latest
        for i, (seat, action) in enumerate(latest_actions(game, version - st.seen), st.seen):
            s = table.seats[seat]
            if s.kind != "human":
                continue
            if clocked.get(i + 1) == seat:
                by: By = "clock"
            elif s.replaced:
                by = "bot"
            else:  # the player decided: they are back (told where they are connected)
                st.behalf.pop(seat, None)
                continue
            decision = Decision(i + 1, seat, action.notation, by)
            st.behalf.setdefault(seat, []).append(decision)
            if by == "clock":
                news.append(decision)
        st.seen = version
        return news

    async def _announce(self, table: LiveTable, d: Decision) -> None:
        """Tell every socket that time ran out for ``d.seat`` (its action only to that seat:
        a pick is secret until the reveal)."""
        game = table.game
        names = list(game.players) if game is not None else [s.name or "" for s in table.seats]
        benched = benches(self.streak(table, d.seat, d.version))
        for conn in list(table.conns):
            mine = conn.seat == d.seat
            text = self._text(table, d, names, conn.lang, mine=mine, benched=benched)
            label = i18n.describe_action(parse_action(d.notation), names, conn.lang)
            await conn.send(
                {
                    "type": "timeout",
                    "seat": d.seat,
                    "version": d.version,
                    "action": d.notation if mine else None,
                    "label": label if mine else None,
                    "bot_playing": table.seats[d.seat].bot_level is not None,
                    "text": text,
                }
            )

    @staticmethod
    def _text(
        table: LiveTable,
        d: Decision,
        names: Sequence[str],
        lang: str,
        *,
        mine: bool,
        benched: bool,
    ) -> str:
        words = i18n.messages(lang)
        name = names[d.seat] if d.seat < len(names) else ""
        if mine:
            if benched:
                return words["clock.bot_plays_you"]
            label = i18n.describe_action(parse_action(d.notation), names, lang)
            return words["clock.timeout_you"].format(action=label)
        return words["clock.bot_plays" if benched else "clock.timeout"].format(name=name)

    # -- coming back ------------------------------------------------------------------------------

    async def acted(self, table: LiveTable, seat: int) -> None:
        """``seat``'s player decided by themselves (or said they are back): a bot no longer
        plays for them, and they are told what was decided for them meanwhile."""
        s = table.seats[seat]
        came_back = s.kind == "human" and s.replaced
        if came_back:
            self.hub.store.update_seat(table.id, seat, replaced=False)
            s.replaced = False
            table.bots.pop(seat, None)
        await self._tell(table, seat)
        if came_back:
            await self.hub.broadcast_table(table)
            await self.hub.broadcast_state(table)  # (with the seat's new deadline)

    async def back(self, table: LiveTable, conn: Conn) -> None:
        """The ``back`` message: "I'm back", take my seat back from the bot."""
        if conn.seat is None:
            raise ServiceError(ErrorCode.SPECTATOR)
        await self.acted(table, conn.seat)

    async def welcome(self, table: LiveTable, conn: Conn) -> None:
        """After a full state to ``conn``: if its seat had decisions made for it, say which."""
        if conn.seat is not None:
            await self._tell(table, conn.seat, only=conn)

    async def _tell(self, table: LiveTable, seat: int, only: Conn | None = None) -> None:
        st = self._watch(table)
        if st.seen is None:  # a table just loaded: rebuild what there is to tell
            self._scan(table)
        decisions = st.behalf.pop(seat, [])
        if not decisions:
            return
        game = table.game
        names = list(game.players) if game is not None else [s.name or "" for s in table.seats]
        for conn in [only] if only is not None else list(table.conns):
            if conn.seat == seat:
                await conn.send(away_message(seat, decisions, names, conn.lang))


def away_message(
    seat: int, decisions: Sequence[Decision], names: Sequence[str], lang: str
) -> dict[str, Any]:
    """The ``away`` message: the decisions made for ``seat`` while its player was away."""
    words = i18n.messages(lang)
    n = len(decisions)
    key = "clock.away_one" if i18n.plural_category(n, lang) == "one" else "clock.away_other"
    return {
        "type": "away",
        "seat": seat,
        "text": words[key].format(n=n),
        "decisions": [
            {
                "version": d.version,
                "action": d.notation,
                "label": i18n.describe_action(parse_action(d.notation), names, lang),
                "by": d.by,
            }
            for d in decisions
        ],
    }
