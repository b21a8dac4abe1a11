"""What every connection is sent equals what a fresh view of that moment gives.

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
from typing import Any

from gonuts.game import Game
from gonuts.server.live import Conn, LiveTable
from gonuts.server.messages import event_json, view_json
from gonuts.server.service import Service
from gonuts.server.store import TableStore
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
