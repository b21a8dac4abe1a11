"""How long one autocommitted statement holds the caller on PostgreSQL, with and without
waiting for the disk: ``Database.bookkeeping`` (``synchronous_commit = off``) against
``Database.autocommit``, interleaved, on a fresh schema of the test database::

    GONUTS_TEST_PG_URL=$(scripts/start-postgres.sh) python scripts/commit-latency.py

Each round times 300 upserts of a ``gn_processes`` row (a heartbeat) on each engine.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from gonuts.server.store import TableStore
from web.conftest import fresh_pg_schema

UPSERT = (
    "INSERT INTO gn_processes (origin, until) VALUES (%(o)s, now()) "
    "ON CONFLICT (origin) DO UPDATE SET until = now()"
)


def main(rounds: int = 6, statements: int = 300) -> None:
    with fresh_pg_schema() as url:
        store = TableStore(url)
        try:
            ms: dict[str, list[float]] = {"bookkeeping": [], "autocommit": []}
            for _ in range(rounds):
                for name, times in ms.items():
                    engine = getattr(store, name)
                    start = time.perf_counter()
                    for i in range(statements):
                        with engine.connect() as c:
                            c.exec_driver_sql(UPSERT, {"o": f"bench{i % 7}"})
                    times.append((time.perf_counter() - start) / statements * 1e3)
            for name, times in ms.items():
                rounded = ", ".join(f"{t:.2f}" for t in times)
                print(f"{name}: median {statistics.median(times):.2f} ms a statement ({rounded})")
        finally:
            store.close()


if __name__ == "__main__":
    main()
