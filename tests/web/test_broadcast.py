"""Broadcasts: what every connection is sent equals what a fresh view of that moment gives; a
socket that does not read delays nobody (issue 17 item 3); table summaries are coalesced.

The broadcast builds the seats' views together and shares their public JSON
(``Game.views``, ``public_view_json``); this replays each received ``state`` message's version
from the stored actions and compares it with ``view_json`` of a view built from scratch, for
several seats, languages, a second socket of one seat and a spectator, with a bot acting
between the humans' moves.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

from gonuts.game import Game
from gonuts.server.play.live import LiveTable
from gonuts.server.play.messages import event_json, view_json
from gonuts.server.service import Service
from gonuts.server.store import TableStore
from gonuts.server.transport.conn import CLOSE_SLOW, Conn
from web.helpers import Inbox


def fresh_messages_agree(table: LiveTable, conn: Conn, inbox: Inbox) -> int:
    """Check every ``state`` in ``inbox`` against a view rebuilt at its version; how many."""
    assert table.game is not None
    taken = table.game.actions_taken()
    names = [s.name or f"Player {s.seat + 1}" for s in table.seats]
    events: list[dict[str, Any]] = []
    checked = 0
    for msg in inbox.messages:
        if msg["type"] != "state":
            continue
        game = Game.new(names, deck=table.deck)
        for seat, action in taken[: msg["version"]]:
            game.apply(seat, action)
        view = game.view(conn.seat) if conn.seat is not None else game.public_view()
        assert msg["view"] == json.loads(json.dumps(view_json(view, conn.lang))), msg["version"]
        if msg["full"]:
            events = []
        assert msg["events_from"] == len(events)
        events += msg["events"]
        expected = [event_json(e, view.players, conn.lang) for e in view.events]
        assert events == json.loads(json.dumps(expected)), msg["version"]
        checked += 1
    return checked


def test_broadcast_states_equal_fresh_views(db_url: str) -> None:
    async def main() -> None:
        svc = Service(TableStore(db_url), bot_delay=0)
        await svc.start()
        try:
            seats = [("human", None), ("human", None), ("human", None), ("bot", "easy")]
            table, _, _ = await svc.create_table(seats, "Ana", "en")
            await svc.join(table.id, "Ben")
            await svc.join(table.id, "Cy")
            inboxes: list[tuple[Conn, Inbox]] = []
            for seat, lang in [(0, "en"), (1, "es"), (2, "it"), (0, "it"), (None, "en")]:
                inbox = Inbox()
                conn = Conn(inbox, seat, lang)
                await svc.connect(table, conn)
                await svc.send_state(table, conn, full=True)
                inboxes.append((conn, inbox))
            rng = random.Random(5)
            for _ in range(2000):
                game = table.game
                assert game is not None
                if game.is_over:
                    break
                humans = [s for s in game.to_act if s != 3]
                if not humans:
                    await asyncio.sleep(0.01)  # the bot's turn
                    continue
                seat = rng.choice(humans)
                action = rng.choice(game.legal_actions(seat))
                await svc.act(table, seat, action.notation)
            assert table.game is not None and table.game.is_over
            for conn, inbox in inboxes:
                assert fresh_messages_agree(table, conn, inbox) > 20
        finally:
            await svc.close()

    asyncio.run(asyncio.wait_for(main(), 120))


class Stuck:
    """A socket whose client never reads: every send waits forever."""

    def __init__(self) -> None:
        self.closed: int | None = None
        self.sends = 0

    async def send_text(self, data: str) -> None:
        self.sends += 1
        await asyncio.Event().wait()

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed = code


class Broken:
    """A socket that is gone: every send fails."""

    async def send_text(self, data: str) -> None:
        raise ConnectionResetError("gone")

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        raise ConnectionResetError("gone")


def test_a_slow_socket_is_closed_and_delays_nobody(db_url: str) -> None:
    """One spectator that never reads and one that is gone: the players' moves are still
    broadcast at once, in order, and the slow one is closed (1013) once its queue is full."""

    async def main() -> None:
        svc = Service(TableStore(db_url), bot_delay=0)
        await svc.start()
        try:
            table, _, _ = await svc.create_table([("human", None), ("human", None)], "Ana", "en")
            await svc.join(table.id, "Ben")
            ana, ben, stuck = Inbox(), Inbox(), Stuck()
            conns = [Conn(ana, 0, "en"), Conn(ben, 1, "en"), Conn(stuck, None, "en")]
            conns[2].queue_bytes = 20_000
            conns.append(Conn(Broken(), None, "es"))
            for conn in conns:
                await svc.connect(table, conn)
                await svc.send_state(table, conn, full=True)
            rng = random.Random(3)
            moves = 0
            while moves < 60 and table.game is not None and not table.game.is_over:
                seat = rng.choice(table.game.to_act)
                action = rng.choice(table.game.legal_actions(seat))
                # (it used to wait for the stuck socket forever)
                await asyncio.wait_for(svc.act(table, seat, action.notation), 5)
                moves += 1
            for conn in conns[:2]:
                assert await conn.flush(5)
            assert stuck.closed == CLOSE_SLOW
            assert stuck.sends == 1  # it took the first message and never finished it
            assert conns[2].gone and conns[2].queued == 0  # its queue is given back
            assert conns[3].gone
            for inbox in (ana, ben):
                assert inbox.versions() == list(range(moves + 1))  # every state, in order
        finally:
            await svc.close()

    asyncio.run(asyncio.wait_for(main(), 60))


def test_summaries_are_coalesced_and_carry_the_latest(db_url: str) -> None:
    """A player's socket coming and going 100 times: a watcher gets a few summaries (at most
    one per 100 ms), not 200, and the last one says the player is gone."""

    async def main() -> None:
        svc = Service(TableStore(db_url), bot_delay=0)
        await svc.start()
        try:
            table, _, _ = await svc.create_table([("human", None), ("human", None)], "Ana", "en")
            await svc.join(table.id, "Ben")
            watcher = Inbox()
            await svc.connect(table, Conn(watcher, None, "en"))
            await asyncio.sleep(0.2)
            watcher.messages.clear()
            started = time.monotonic()
            for _ in range(100):
                conn = Conn(Inbox(), 1, "en")
                await svc.connect(table, conn)
                await svc.disconnect(table, conn)
            elapsed = time.monotonic() - started
            await asyncio.sleep(0.3)
            summaries = [m for m in watcher.messages if m["type"] == "table"]
            assert 1 <= len(summaries) <= elapsed / 0.1 + 3, (len(summaries), elapsed)
            assert summaries[-1]["table"]["seats"][1]["connected"] is False
            assert svc.summary_interval == 0.1  # (the default the bound above assumes)
        finally:
            await svc.close()

    asyncio.run(asyncio.wait_for(main(), 60))
