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

``--browser`` plays in Debian's Chromium instead (Playwright, headless, the page as a person
gets it): the page clicks a card of the row, and the wait is measured inside the page, from
the click event to the first marker of another seat's pick drawn on the row (the reveal's
first step, ``views/reveal.js``), both by ``performance.now()``:

    PYTHONPATH=src python scripts/click_to_reveal.py --browser --players 4 6 --rounds 6
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


def start_server(workers: int, folder: Path) -> tuple[str, Any, threading.Thread]:
    """The app in a thread of this process; its address, the uvicorn server and its thread."""
    import uvicorn  # noqa: PLC0415 - only when the script starts its own server

    from gonuts.server.app import create_app  # noqa: PLC0415

    app = create_app(f"sqlite:///{folder / 'reveal.sqlite3'}", think_workers=workers)
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline:
            raise SystemExit("the server did not start")
        time.sleep(0.05)
    return f"http://127.0.0.1:{port}", server, thread


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


CLICK_WATCH = """
window.__waits = [];
window.__clickAt = null;
document.addEventListener("click", (e) => {
  const card = e.target instanceof Element && e.target.closest("[data-testid=row] button.card");
  if (card && !card.hasAttribute("data-change")) window.__clickAt = performance.now();
}, true);
new MutationObserver((records) => {
  if (window.__clickAt === null) return;
  for (const r of records) for (const n of r.addedNodes) {
    if (n instanceof Element && n.matches(".marker:not(.me)")) {
      window.__waits.push((performance.now() - window.__clickAt) / 1000);
      window.__clickAt = null;
      return;
    }
  }
}).observe(document, { childList: true, subtree: true });
"""
"""Times, in the page, each click on a row card until another seat's marker is drawn."""


def browser_waits(
    base: str, players: int, rounds: int, think: float, rng: random.Random
) -> list[float]:
    """Play in Chromium against ``players - 1`` hard bots until ``rounds`` reveals are timed."""
    from playwright.sync_api import Error as PlaywrightError  # noqa: PLC0415 - --browser only
    from playwright.sync_api import sync_playwright  # noqa: PLC0415

    seats = [{"kind": "human"}, *({"kind": "bot", "level": "hard"} for _ in range(players - 1))]
    picks = "[data-testid=row] button.card:enabled:not([data-change])"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--headless", "--no-sandbox", "--disable-gpu"],
        )
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.add_init_script(CLICK_WATCH)
        waits: list[float] = []
        while len(waits) < rounds:
            made = httpx.post(
                f"{base}/api/tables",
                json={"seats": seats, "name": "Timer", "clock": None},
                timeout=60,
                trust_env=False,
            ).json()
            table_id, token = made["table"]["id"], made["token"]
            if not page.url.startswith(base):
                page.goto(base)  # the origin, for its storage
            page.evaluate(  # the seat's credentials, as joining would store them
                "([k, v]) => localStorage.setItem(k, v)",
                [f"gonuts.seat.{table_id}", json.dumps({"seat": 0, "token": token})],
            )
            page.goto(f"{base}/t/{table_id}")
            deadline = time.monotonic() + 600
            while len(waits) < rounds and time.monotonic() < deadline:
                waits.extend(float(w) for w in page.evaluate("window.__waits.splice(0)"))
                if page.locator("[data-testid=end-screen]").count():
                    break
                try:
                    options = page.locator(
                        "dialog[open] .choice-list button, dialog[open] .opponent-list button"
                    )
                    if options.count():
                        options.first.click(timeout=2000)  # a power's decision: not timed
                        continue
                    cards = page.locator(picks)  # none once this round's pick is made
                    if count := cards.count():
                        time.sleep(think)  # a person looks at the row
                        cards.nth(rng.randrange(count)).click(timeout=2000)
                        continue
                except PlaywrightError:
                    pass  # the page redrew under us: look again
                time.sleep(0.02)
        browser.close()
    return waits[:rounds]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running server (default: start one here)")
    parser.add_argument("--players", type=int, nargs="+", default=[4, 6])
    parser.add_argument("--rounds", type=int, default=6, help="selections measured per size")
    parser.add_argument("--think", type=float, default=1.0, help="seconds before each pick")
    parser.add_argument("--workers", type=int, default=2, help="thinking processes (own server)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--browser", action="store_true", help="play in Chromium, timed inside the page"
    )
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as folder:
        server = thread = None
        base = args.url
        if base is None:
            base, server, thread = start_server(args.workers, Path(folder))
            time.sleep(3)  # the thinking processes start (they import the bots)
        try:
            for players in args.players:
                waits: list[float] = []
                while len(waits) < args.rounds:
                    left = args.rounds - len(waits)
                    more = (
                        browser_waits(base, players, left, args.think, rng)
                        if args.browser
                        else asyncio.run(one_game(base, players, left, args.think, rng))
                    )
                    if not more:
                        break
                    waits.extend(more)
                print(
                    f"{players} players (1 person, {players - 1} hard bots"
                    f"{', in Chromium' if args.browser else ''}): click -> reveal "
                    f"median {statistics.median(waits):.2f} s, max {max(waits):.2f} s "
                    f"over {len(waits)} rounds (think {args.think:g} s before each pick)",
                    flush=True,
                )
        finally:
            if server is not None and thread is not None:
                # Let the app shut down (its bots' decisions and thinking processes end) before
                # the interpreter does: a decision still in flight at exit would log a traceback.
                server.should_exit = True
                thread.join(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
