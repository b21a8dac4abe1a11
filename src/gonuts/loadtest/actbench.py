"""``python -m gonuts.loadtest.actbench``: the server's CPU per move, in one process.

Tables of four humans, each seat with a socket that takes every message at once, and random
moves round-robin over the tables through ``Service.act`` (store, acknowledge, broadcast, the
turn clock): microseconds per move, and how many of them went into storing the action. No
network and no players' process, so it isolates what the server does per move from the
noise of a full ``gonuts loadtest``; pin it (``taskset -c 0``) and run it a few times.

It only uses the service's long-standing API, so an older commit's server can be measured
with the same file: ``PYTHONPATH=OLD/src python src/gonuts/loadtest/actbench.py`` (tables
without a clock there: that server had none).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import inspect
import json
import random
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gonuts.server.service import Service
from gonuts.server.store import TableStore
from gonuts.server.transport.conn import Conn


class Sink:
    """A socket that takes every message at once (a fast client)."""

    async def send_text(self, data: str) -> None:
        pass

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        pass


async def bench(tables: int, rounds: int, clock: int | None, seed: int = 1) -> dict[str, Any]:
    """``rounds`` moves at each of ``tables`` tables (fewer where a game ends first)."""
    with tempfile.TemporaryDirectory() as tmp:
        svc = Service(TableStore(f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"), bot_delay=0)
        await svc.start()
        try:
            has_clock = "clock" in inspect.signature(svc.create_table).parameters
            kw: dict[str, Any] = {"clock": clock} if has_clock else {}
            live = []
            for _ in range(tables):
                table, _, _ = await svc.create_table([("human", None)] * 4, "Ana", "en", **kw)
                for name in ("Ben", "Cid", "Dee"):
                    await svc.join(table.id, name)
                for seat in range(4):
                    conn = Conn(Sink(), seat, "en")
                    await svc.connect(table, conn)
                    await svc.send_state(table, conn, full=True)
                live.append(table)
            gc.collect()
            gc.freeze()  # (as the server does: tune_gc_for_serving)
            rng = random.Random(seed)
            store_s = 0.0
            append = svc.store.append_action

            def timed(*args: Any, **kwargs: Any) -> None:
                nonlocal store_s
                started = time.perf_counter()
                append(*args, **kwargs)
                store_s += time.perf_counter() - started

            svc.store.append_action = timed  # type: ignore[method-assign]
            moves, wall0, cpu0 = 0, time.perf_counter(), time.process_time()
            for r in range(rounds):
                for i, table in enumerate(live):
                    game = table.game
                    if game is None or game.is_over:
                        continue
                    seat = rng.choice(game.to_act)
                    action = rng.choice(game.legal_actions(seat))
                    await svc.act(table, seat, action.notation, client_id=f"{r}-{i}")
                    moves += 1
                await asyncio.sleep(0)
            wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        finally:
            await svc.close()
            gc.unfreeze()
    return {
        "clock": clock if has_clock else None,
        "moves": moves,
        "us_per_move": round(1e6 * wall / max(1, moves), 1),
        "cpu_us_per_move": round(1e6 * cpu / max(1, moves), 1),
        "store_us_per_move": round(1e6 * store_s / max(1, moves), 1),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m gonuts.loadtest.actbench")
    parser.add_argument("--tables", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=60, help="moves per table (default 60)")
    parser.add_argument("--clock", type=int, default=60, help="seconds; 0: none (default 60)")
    args = parser.parse_args(argv)
    result = asyncio.run(bench(args.tables, args.rounds, args.clock or None))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
