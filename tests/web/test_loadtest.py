"""``gonuts loadtest``: a small smoke run (the real figures are in docs/loadtest.md)."""

from __future__ import annotations

import asyncio
import gc
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gonuts.cli import main
from gonuts.loadtest import Result, ServerProcess, group_sizes, is_loopback, percentile
from gonuts.loadtest.actbench import bench
from gonuts.loadtest.client import drive, fewer_gc_pauses, source_addresses
from gonuts.loadtest.launcher import ServerError, free_port
from web.procs import query

CLI = "import sys; from gonuts.cli import main; sys.exit(main(sys.argv[1:]))"


def test_helpers() -> None:
    assert group_sizes(8, 4) == [4, 4]
    assert group_sizes(5, 4) == [3, 2]
    assert group_sizes(1000, 4) == [4] * 250
    assert all(2 <= n <= 6 for k in range(2, 7) for c in range(2, 60) for n in group_sizes(c, k))
    assert sum(group_sizes(37, 6)) == 37
    assert percentile([], 99) == 0.0
    assert percentile([float(i) for i in range(1, 101)], 99) == 99.0
    assert percentile([float(i) for i in range(1, 101)], 50) == 50.0
    assert is_loopback("http://127.0.0.1:8000") and is_loopback("http://localhost:1")
    assert is_loopback("http://[::1]:8000") and is_loopback("http://127.3.2.1")
    assert not is_loopback("http://10.0.0.1:8000") and not is_loopback("http://example.com")
    assert source_addresses(1) == [None]
    many = source_addresses(300)
    assert many[:2] == ["127.0.0.2", "127.0.0.3"] and many[249:251] == ["127.0.0.251", "127.0.1.2"]
    assert len(set(many)) == 300 and all(is_loopback(f"http://{a}") for a in many)


def test_result_json_keys_and_summary() -> None:
    result = Result(
        clients=8,
        duration_s=5.04,
        games=2,
        games_per_min=23.8095,
        acts=240,
        p50_ms=1.234,
        p99_ms=9.876,
        max_ms=12.0,
        errors=1,
        error_codes={"timeout": 1},
        concurrent_max=8,
        concurrent_mean=7.96,
        server_cpu=None,
        client_cpu=0.123,
    )
    data = result.to_json()
    assert list(data)[:5] == ["clients", "games_per_min", "p50_ms", "p99_ms", "errors"]
    assert data["games_per_min"] == 23.81 and data["p99_ms"] == 9.88
    assert data["server_cpu"] is None and data["client_cpu"] == 0.12
    assert data["duration_s"] == 5.0 and data["concurrent_mean"] == 8.0
    text = result.summary()
    assert "games finished: 2 (23.8 per minute)" in text
    assert "latency move → ack: p50 1.2 ms, p99 9.9 ms, max 12.0 ms" in text
    assert "CPU: server n/a, players 12% of a core" in text


def test_launcher_reports_a_server_that_exits(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    command = [sys.executable, "-c", "print('no database here'); raise SystemExit(3)"]
    server = ServerProcess(command, free_port(), log)
    with pytest.raises(ServerError, match="the server exited: no database here"):
        server.start(timeout=20)
    server.stop()  # nothing left to stop
    assert server.proc is None


@pytest.mark.parametrize(
    "args",
    [
        ["--clients", "1"],
        ["--duration", "0"],
        ["--seats", "7"],
        ["--url", "http://192.168.1.5:8000"],
        ["--url", "ws://127.0.0.1:8000"],
        ["--addresses", "0"],
    ],
)
def test_refuses_bad_arguments(args: list[str]) -> None:
    assert main(["loadtest", "--quiet", *args]) == 2


def stored_actions(db_url: str) -> dict[tuple[str, int], tuple[int, str]]:
    rows = query(db_url, "SELECT table_id, seq, seat, notation FROM gn_actions")
    return {(str(t), int(q)): (int(s), str(n)) for t, q, s, n in rows}


def test_smoke_run(tmp_path: Path, db_url: str) -> None:
    out, acks = tmp_path / "load.json", tmp_path / "acks.jsonl"
    done = subprocess.run(
        [sys.executable, "-c", CLI, "loadtest", "--clients", "8", "--duration", "5",
         "--think", "0.05", "--ramp", "0.5", "--json", str(out), "--db", db_url,
         "--addresses", "2", "--acks", str(acks)],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr + done.stdout
    data = json.loads(out.read_text())
    assert {"clients", "games_per_min", "p50_ms", "p99_ms", "errors"} <= set(data)
    assert data["clients"] == 8 and data["errors"] == 0, data
    assert data["acts"] > 20 and 0 < data["p50_ms"] <= data["p99_ms"]
    assert data["concurrent_max"] == 8
    assert "latency move → ack" in done.stdout
    # every acknowledged move, one JSON line each, is the stored action at seq = version - 1
    moves = [json.loads(line) for line in acks.read_text().splitlines()]
    assert len(moves) == data["acts"]
    stored = stored_actions(db_url)
    assert all(stored[(t, v - 1)] == (seat, a) for t, seat, v, a in moves), moves[:5]
    assert data["reconnects"] == 0 and data["unreconnected"] == 0


def test_players_reconnect_after_a_kill_and_every_acknowledged_move_is_stored(
    tmp_path: Path,
) -> None:
    """``drive(reconnect=True)``: the server is killed (SIGKILL) mid-run and started again on
    the same port; every player comes back, each gap is measured, and every move acknowledged
    before or after is in the database. (SQLite only: scripts/scaleout.py does the same on
    PostgreSQL with two processes behind nginx.)"""
    db_url = f"sqlite:///{tmp_path / 'kill.sqlite3'}"
    server = ServerProcess.load_target(db_url, free_port(), tmp_path / "server.log")
    server.start()

    async def run() -> tuple[Result, list[tuple[str, int, int, str]]]:
        load = asyncio.ensure_future(
            drive(server.http, 8, 20.0, think=0.2, ramp=0.5, reconnect=True, record_acks=True,
                  addresses=2)
        )  # fmt: skip
        await asyncio.sleep(2.5)  # the first games under way (about 25 moves a player)
        assert not load.done()
        await asyncio.to_thread(server.kill)
        await asyncio.sleep(0.5)
        restarted = time.monotonic()
        await asyncio.to_thread(server.start)
        restart_s.append(time.monotonic() - restarted)
        result, stats = await load
        assert stats.acked_moves is not None
        return result, stats.acked_moves

    restart_s: list[float] = []
    try:
        result, moves = asyncio.run(run())
    finally:
        server.stop()
    # all eight were connected when it was killed
    assert result.reconnects >= 8, (result, f"restarted in {restart_s} s")
    assert result.unreconnected == 0
    assert 0.5 <= result.reconnect_max_s < 30, result
    assert result.reconnect_p50_s <= result.reconnect_max_s
    assert len(moves) == result.acts > 0
    stored = stored_actions(db_url)
    missing = [m for m in moves if stored.get((m[0], m[2] - 1)) != (m[1], m[3])]
    assert missing == [], missing[:5]


def test_the_players_collector_is_tuned_for_the_run_and_restored() -> None:
    """``drive`` tunes the players' garbage collector like the server's, and puts it back."""
    before, frozen = gc.get_threshold(), gc.get_freeze_count()
    with fewer_gc_pauses(gen0=12_345) as settle:
        assert gc.get_threshold() == (12_345, *before[1:])
        kept = [[i] for i in range(100)]  # long-lived objects of the run
        settle()
        assert gc.get_freeze_count() >= len(kept)
    assert gc.get_threshold() == before
    if frozen == 0:
        assert gc.get_freeze_count() == 0


@pytest.mark.parametrize("clock", [60, None])
def test_the_per_move_benchmark_runs(clock: int | None) -> None:
    """``python -m gonuts.loadtest.actbench`` (docs/loadtest.md), a tiny run."""
    result = asyncio.run(bench(tables=2, rounds=3, clock=clock))
    assert result["moves"] == 6 and result["clock"] == clock
    assert 0 < result["store_us_per_move"] < result["us_per_move"]
