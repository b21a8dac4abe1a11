"""The image's smoke client (scripts/smoke-image.sh runs it in a container of the image itself,
which has gonuts' web extra): a client of a running server over HTTP and the WebSocket only.

    python smoke-game.py play http://127.0.0.1:PORT   # a whole game against two bots
    python smoke-game.py hold http://127.0.0.1:PORT   # a socket held open until the server
                                                      # closes it; exit 0 for close code 1012

``play`` prints ``table ID`` and ends 0 once the game is over, its record is served and holds
every action the table's version counts.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from gonuts.loadtest.client import Player, create_table

GAME_TIMEOUT = 180.0


async def play(base: str) -> int:
    async with httpx.AsyncClient(base_url=base, timeout=30, trust_env=False) as http:
        seats = [
            {"kind": "human"},
            {"kind": "bot", "level": "easy"},
            {"kind": "bot", "level": "easy"},
        ]
        table_id, seat, token = await create_table(http, seats, "Smoke")
        print(f"table {table_id}: seat {seat} against two easy bots", flush=True)
        ws_base = "ws" + base.removeprefix("http")
        player = Player([ws_base], table_id, token, random.Random(1), seat=seat)
        over = await player.play(deadline=time.monotonic() + GAME_TIMEOUT)
        if not over or player.final is None:
            print("the game did not end", flush=True)
            return 1
        version = int(player.final["version"])
        view = player.final["view"]
        record = await http.get(f"/api/games/{table_id}/record")
        if record.status_code != 200:
            print(f"GET /api/games/{table_id}/record: {record.status_code} {record.text[:200]}")
            return 1
        actions = record.json()["actions"]
        print(
            f"game over after {version} actions ({len(player.acked)} acknowledged to this "
            f"player), scores {view.get('scores')}, record with {len(actions)} actions",
            flush=True,
        )
        errors = sum(player.stats.errors.values())
        if len(actions) != version or not player.acked or errors:
            print(f"mismatch or errors: {player.stats.error_samples}", flush=True)
            return 1
        print(f"table {table_id}", flush=True)
        return 0


async def hold(base: str) -> int:
    async with httpx.AsyncClient(base_url=base, timeout=30, trust_env=False) as http:
        seats = [{"kind": "human"}, {"kind": "bot", "level": "easy"}]
        table_id, _seat, token = await create_table(http, seats, "Holder")
    url = "ws" + base.removeprefix("http") + f"/ws/tables/{table_id}"
    async with connect(url, proxy=None) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        while json.loads(await ws.recv()).get("type") != "state":
            pass
        print(f"connected to table {table_id}", flush=True)
        try:
            async with asyncio.timeout(120):
                while True:
                    await ws.recv()  # states, deadlines: no moves are made
        except ConnectionClosed as exc:
            code = exc.rcvd.code if exc.rcvd is not None else None
            print(f"closed by the server with code {code}", flush=True)
            return 0 if code == 1012 else 1
        except TimeoutError:
            print("the server did not close the socket within 120 s", flush=True)
            return 1


if __name__ == "__main__":
    mode, base = sys.argv[1], sys.argv[2].rstrip("/")
    sys.exit(asyncio.run({"play": play, "hold": hold}[mode](base)))
