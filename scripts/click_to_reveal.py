"""Click → reveal with hard bots (issue 25, item 4): how long a player waits, from the moment
their pick is sent to the ``state`` that reveals the round, at tables of one person and hard
bots; median and max per table size.

    PYTHONPATH=src python scripts/click_to_reveal.py --players 4 6 --rounds 6 --workers 2
    PYTHONPATH=src python scripts/click_to_reveal.py --url http://127.0.0.1:8000 --players 6

Without ``--url`` it starts the server in this process (``create_app`` under uvicorn on a free
loopback port, a temporary SQLite file, ``--workers`` thinking processes, the default bot
delay). The player is a script over the HTTP API and the WebSocket, as a browser is: it waits
``--think`` seconds after a round is shown before it picks (a person reads the row; the bots
may think meanwhile), answers a power's decision at once with its first option (not
measured), and measures only the select phase's click → reveal.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_server(workers: int, folder: Path) -> tuple[str, Any]:
    """The app in a thread of this process; its address and the uvicorn server."""
    import uvicorn  # noqa: PLC0415 - only when the script starts its own server

    from gonuts.server.app import create_app  # noqa: PLC0415

    app = create_app(f"sqlite:///{folder / 'reveal.sqlite3'}", think_workers=workers)
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    threading.Thread(target=server.run, daemon=True).start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline:
            raise SystemExit("the server did not start")
        time.sleep(0.05)
    return f"http://127.0.0.1:{port}", server


async def one_game(
    base: str, players: int, rounds: int, think: float, rng: random.Random
) -> list[float]:
    """Play up to ``rounds`` selections against ``players - 1`` hard bots: each wait."""
    seats = [{"kind": "human"}, *({"kind": "bot", "level": "hard"} for _ in range(players - 1))]
    async with httpx.AsyncClient(base_url=base, timeout=60, trust_env=False) as http:
        r = await http.post("/api/tables", json={"seats": seats, "name": "Timer", "clock": None})
        r.raise_for_status()
        made = r.json()
    table_id, token = made["table"]["id"], made["token"]
    waits: list[float] = []
    sent_at: float | None = None
    picked_round = -1
    counter = 0
    url = "ws" + base.removeprefix("http") + f"/ws/tables/{table_id}"
    async with connect(url, max_size=None) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        while len(waits) < rounds:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 120))
            if msg["type"] != "state":
                continue
            if sent_at is not None and any(
                e["type"] == "selections_revealed" for e in msg["events"]
            ):
                waits.append(time.perf_counter() - sent_at)
                sent_at = None
            view = msg["view"]
            if view["over"]:
                break
            legal = view["legal"]
            if not legal:
                continue
            counter += 1
            if view["phase"] == "select":
                if view["round"] == picked_round:
                    continue
                picked_round = view["round"]
                await asyncio.sleep(think)  # a person looks at the row
                action = rng.choice(legal)["action"]
                sent_at = time.perf_counter()
            else:
                action = legal[0]["action"]
            await ws.send(json.dumps({"type": "act", "action": action, "id": f"t{counter}"}))
    return waits


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running server (default: start one here)")
    parser.add_argument("--players", type=int, nargs="+", default=[4, 6])
    parser.add_argument("--rounds", type=int, default=6, help="selections measured per size")
    parser.add_argument("--think", type=float, default=1.0, help="seconds before each pick")
    parser.add_argument("--workers", type=int, default=2, help="thinking processes (own server)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as folder:
        server = None
        base = args.url
        if base is None:
            base, server = start_server(args.workers, Path(folder))
            time.sleep(3)  # the thinking processes start (they import the bots)
        try:
            for players in args.players:
                waits: list[float] = []
                while len(waits) < args.rounds:
                    more = asyncio.run(
                        one_game(base, players, args.rounds - len(waits), args.think, rng)
                    )
                    if not more:
                        break
                    waits.extend(more)
                print(
                    f"{players} players (1 person, {players - 1} hard bots): click -> reveal "
                    f"median {statistics.median(waits):.2f} s, max {max(waits):.2f} s "
                    f"over {len(waits)} rounds (think {args.think:g} s before each pick)",
                    flush=True,
                )
        finally:
            if server is not None:
                server.should_exit = True
    return 0


if __name__ == "__main__":
    sys.exit(main())
