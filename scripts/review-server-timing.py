"""How long the server takes to review a finished game, seen from the browser (issue 29 item 4).

Starts ``gonuts serve`` (bots thinking in worker processes, as by default; reviews in a worker
process of their own) on a fresh SQLite file holding the finished games of the given records,
then for each game in turn: ``POST /api/games/{id}/review``, polls ``GET`` every 0.2 s until the
review is done, and prints the wall seconds from the request to the answer with the review,
beside the server's own log line ("review of … by … in … s").

    python scripts/review-server-timing.py tests/records/complete-4p.json \\
        tests/records/complete-2p.json tests/records/complete-6p.json \\
        [--review-bot neural-mixed:128]
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from pathlib import Path

import httpx

from gonuts.loadtest.launcher import ServerProcess, free_port
from gonuts.record import Record
from gonuts.server.store import TableStore


def add_finished(db_url: str, table_id: str, text: str) -> int:
    """A finished game as play leaves one (its table and its record): its player count."""
    store = TableStore(db_url)
    try:
        store.add_finished(table_id, text)
    finally:
        store.close()
    return len(Record.from_json(text).players)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", nargs="+", type=Path)
    parser.add_argument("--review-bot", default=None, help="the server's analyser (its default)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gonuts-review-timing-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'review.sqlite3'}"
        games = {
            f"g{i}": add_finished(url, f"g{i}", path.read_text(encoding="utf-8"))
            for i, path in enumerate(args.records)
        }
        extra = ["--review-bot", args.review_bot] if args.review_bot else []
        log = Path(tmp) / "server.log"
        server = ServerProcess.gonuts_serve(url, free_port(), log, *extra)
        server.start()
        try:
            with httpx.Client(base_url=server.http, timeout=30) as http:
                for game_id, players in games.items():
                    began = time.monotonic()
                    started = http.post(f"/api/games/{game_id}/review").json()
                    while True:
                        answer = http.get(f"/api/games/{game_id}/review").json()
                        if answer["status"] == "done":
                            break
                        if answer["status"] not in ("running", "queued"):
                            raise SystemExit(f"{game_id}: {answer}")
                        time.sleep(0.2)
                    took = time.monotonic() - began
                    print(
                        f"{players} players: reviewed by the server ({started['analyser']}) in "
                        f"{took:.1f} s wall, request to answer"
                    )
        finally:
            server.stop()
        for line in log.read_text(errors="replace").splitlines():
            if re.search(r"review of \S+ by", line):
                print("  server log:", line.split(" ", 3)[-1])


if __name__ == "__main__":
    main()
