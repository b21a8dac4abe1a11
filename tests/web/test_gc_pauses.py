"""The serving process's garbage-collector pauses stay short (issue 17, "figures not worse").

The longest wait of ``gonuts loadtest`` (~150 ms, once per 90 s run, at 1,000 players) was a
middle-generation collection of the server: it walked everything promoted since the last
one, 170,000-240,000 objects. These tests pin the two causes: what the message caches keep
(objects every older collection walks) and the collector's thresholds in a serving process."""

from __future__ import annotations

import asyncio
import gc
import json
import random
import subprocess
import sys
from pathlib import Path

from gonuts.game import Game
from gonuts.server.play import messages
from gonuts.server.service import Service
from gonuts.server.store import TableStore
from gonuts.server.transport.conn import Conn


class Sink:
    """A socket that takes every message at once."""

    async def send_text(self, data: str) -> None:
        pass

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        pass


def played(seed: int, moves: int) -> Game:
    rng = random.Random(seed)
    game = Game.new(["Ana", "Ben", "Cid", "Dee"], seed=seed)
    for _ in range(moves):
        if game.is_over:
            break
        seat = rng.choice(game.to_act)
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    return game


def test_a_cached_event_is_one_object_for_the_collector() -> None:
    """A cached event's JSON holds the event's own tuples (no lists) and no (value, size)
    pair: once collected, only its key is left for the collector to walk. It was four
    objects an entry before, 48,000 objects for a full cache."""
    cache = messages._event_json.cache
    cache.clear()
    game = played(7, 60)
    names = ["Ana", "Ben", "Cid", "Dee"]
    first = [messages.event_json(e, names, "en") for e in game.event_log]
    assert len(cache) > 20
    gc.collect()
    held = list(cache._entries.values())
    assert all(not gc.is_tracked(value) for value in held)
    assert not any(isinstance(v, list) for value in held for v in value.values())
    # the same JSON as before, and the same object on a hit
    assert [json.loads(json.dumps(j)) for j in first] == [
        {**e.to_json(), "text": j["text"]} for e, j in zip(game.event_log, first, strict=True)
    ]
    assert messages.event_json(game.event_log[0], names, "en") is first[0]


async def tracked_growth_per_move(db: Path, tables: int, rounds: int) -> float:
    """GC-tracked objects left on the heap per move, ``rounds`` moves at ``tables`` tables
    of four humans with a socket per seat (as ``python -m gonuts.loadtest.actbench``)."""
    svc = Service(TableStore(f"sqlite:///{db}"), bot_delay=0)
    await svc.start()
    try:
        live = []
        for _ in range(tables):
            table, _, _ = await svc.create_table([("human", None)] * 4, "Ana", "en")
            for name in ("Ben", "Cid", "Dee"):
                await svc.join(table.id, name)
            for seat in range(4):
                conn = Conn(Sink(), seat, "en")
                await svc.connect(table, conn)
                await svc.send_state(table, conn, full=True)
            live.append(table)
        gc.collect()
        before = len(gc.get_objects())
        rng, moves = random.Random(1), 0
        for r in range(rounds):
            for i, table in enumerate(live):
                game = table.game
                if game is None or game.is_over:
                    continue
                seat = rng.choice(game.to_act)
                action = rng.choice(game.legal_actions(seat))
                await svc.act(table, seat, action.notation, client_id=f"{r}-{i}")
                moves += 1
        gc.collect()
        return (len(gc.get_objects()) - before) / moves
    finally:
        await svc.close()


def test_a_move_leaves_few_objects_for_the_collector(tmp_path: Path) -> None:
    """What a move leaves on the heap (the game's new events, the cached messages) is walked
    by every older collection until it dies: about 4 objects a move now, 7.4 before the
    cached events were made flat (0.2.0: 5.6) in this 640-move run."""
    messages._event_json.cache_clear()
    messages._action_json.cache_clear()
    per_move = asyncio.run(tracked_growth_per_move(tmp_path / "gc.sqlite3", 16, 40))
    assert 0 < per_move < 5.5, per_move


PROBE = """
import gc, json, sys
from gonuts.server.app import tune_gc_for_serving
tune_gc_for_serving()
walked, full = [], []
def watch(phase, info):
    if phase == "start" and info["generation"] == 1:
        walked.append(len(gc.get_objects(0)) + len(gc.get_objects(1)))
    if phase == "start" and info["generation"] == 2:
        full.append(1)
gc.callbacks.append(watch)
# a server's heap growing (connections and games that stay), and cycles that soon go
alive = []
for i in range(300_000):
    node = {"i": i, "peers": []}
    alive.append(node)
    loop = {"i": i, "peers": []}
    loop["peers"].append(loop)
gc.callbacks.remove(watch)
print(json.dumps({"walked": walked, "full": len(full), "threshold": gc.get_threshold()}))
"""


def test_the_serving_collector_walks_few_objects_at_a_time() -> None:
    """With the thresholds of ``tune_gc_for_serving`` a middle-generation collection walks
    about two young generations' worth of objects (with CPython's ``gen1`` of 10: twelve,
    240,000 at ``gen0=20,000``), and a growing heap brings no full collection.
    In a child process: the tuning freezes the heap and changes the thresholds for good."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, check=True
    )
    result = json.loads(done.stdout)
    gen0 = result["threshold"][0]
    assert len(result["walked"]) >= 5, result
    assert max(result["walked"]) <= 2.2 * gen0, result
    assert result["full"] == 0, result
