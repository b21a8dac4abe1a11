"""Bots and hints in worker processes, fairly queued (issue 17 item 8;
gonuts.server.kernel.thinking).

The pool decides legal moves; a killed worker is replaced and its decision retried; a failing
worker falls back to the cheap bot; the queue is bounded (hints refused, bots wait) and fair (one
table's flood does not starve another); the metrics show the queue. The worker-process tests
start real processes ("spawn"), a few seconds each on a loaded machine.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from gonuts import Game
from gonuts.cli.serve import SettingError, resolve
from gonuts.server.kernel import thinking
from gonuts.server.kernel.metrics import Metrics
from gonuts.server.kernel.thinking import HintUnavailableError, Job, Thinker, workers_from_env
from gonuts.view import PlayerView
from web.helpers import AppFactory, create, wait_until

LIMIT = 60.0
"""Seconds any one of these tests may take (a hang fails instead of blocking the suite)."""


def views(n: int = 4) -> list[PlayerView]:
    """Views with a decision to take, from a few positions of a seeded game."""
    game = Game.new(4, seed=7)
    out: list[PlayerView] = []
    while len(out) < n and not game.is_over:
        seat = game.to_act[0]
        view = game.view(seat)
        out.append(view)
        game.apply(seat, view.legal[len(out) % len(view.legal)])
    return out


def run(coro: Any, limit: float = LIMIT) -> Any:
    async def bounded() -> Any:
        async with asyncio.timeout(limit):
            return await coro

    return asyncio.run(bounded())


# -- worker processes ------------------------------------------------------------------------------


def test_workers_decide_legal_moves_and_give_hints() -> None:
    async def go() -> None:
        t = Thinker(1)
        try:
            await t.start()
            for level in ("easy", "medium", "mcts:30"):
                for v in views():
                    assert await t.decide("t1", level, v) in v.legal
            v = views(1)[0]
            h = await t.hint("t1", v, 30, seed=1)
            assert h is not None
            assert h["recommended"] in {a.notation for a in v.legal}
            assert t.pool_starts == 1
        finally:
            t.close()

    run(go())


def test_a_killed_worker_is_replaced_and_the_decision_retried() -> None:
    async def go() -> None:
        t = Thinker(1)
        try:
            await t.start()
            loop = asyncio.get_running_loop()
            pid = await loop.run_in_executor(t.executor, os.getpid)
            assert pid != os.getpid()
            v = views(1)[0]
            # a decision of half a second is under way when its worker is killed
            decision = asyncio.ensure_future(t.decide("t1", "mcts:0.5s", v))
            await asyncio.sleep(0.2)
            os.kill(pid, signal.SIGKILL)
            assert await decision in v.legal
            assert t.pool_starts == 2  # a new pool, and the decision made there
            assert t.metrics.think_failures.labels("bot")._value.get() == 0
            new_pid = await loop.run_in_executor(t.executor, os.getpid)
            assert new_pid != pid
            assert await t.decide("t1", "medium", v) in v.legal
        finally:
            t.close()

    run(go())


SERVER = """
import asyncio, os, sys
from gonuts.server.kernel.thinking import Thinker

async def main():
    t = Thinker(1)
    await t.start()
    pid = await asyncio.get_running_loop().run_in_executor(t.executor, os.getpid)
    print(pid, flush=True)
    await asyncio.sleep(600)

if __name__ == "__main__":
    asyncio.run(main())
"""


def test_workers_exit_when_the_server_is_killed(tmp_path: Path) -> None:
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    server = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        worker = int(server.stdout.readline())
        assert Path(f"/proc/{worker}").exists()
    finally:
        server.kill()  # SIGKILL: no shutdown code runs
        server.wait(10)
    wait_until(
        lambda: not Path(f"/proc/{worker}").exists(), timeout=15, message="the worker to exit"
    )


def test_a_ray_cluster_decides_legal_moves_and_gives_hints() -> None:
    """On a local Ray instance (the ray extra is installed by make test)."""

    async def go() -> None:
        t = Thinker(1, ray="")
        try:
            await t.start()
            assert t.ray == "" and t.slots == 1  # not fallen back to threads
            for v in views(2):
                assert await t.decide("t1", "mcts:20", v) in v.legal
            v = views(1)[0]
            h = await t.hint("t1", v, 20, seed=1)
            assert h is not None and h["recommended"] in {a.notation for a in v.legal}
            assert t.metrics.think_failures.labels("bot")._value.get() == 0
        finally:
            t.close()

    run(go(), limit=240)


def test_serve_settings_for_thinking() -> None:
    args = argparse.Namespace()
    assert resolve(args, {})["think"] is None  # processes
    assert resolve(args, {})["think_workers"] == max(1, (os.cpu_count() or 1) - 1)
    assert resolve(args, {"GONUTS_THINK": "ray"})["think"] == ""  # a local Ray
    assert resolve(args, {"GONUTS_THINK": "ray:10.0.0.1:6379"})["think"] == "10.0.0.1:6379"
    assert resolve(argparse.Namespace(think_workers="0"), {})["think_workers"] == 0
    with pytest.raises(SettingError, match="GONUTS_THINK="):
        resolve(args, {"GONUTS_THINK": "gpu"})
    with pytest.raises(SettingError, match="--think-workers="):
        resolve(argparse.Namespace(think_workers="-2"), {})


def test_workers_from_env() -> None:
    assert workers_from_env({"GONUTS_THINK_WORKERS": "3"}) == 3
    assert workers_from_env({"GONUTS_THINK_WORKERS": "0"}) == 0
    assert workers_from_env({}) == max(1, (os.cpu_count() or 1) - 1)
    with pytest.raises(ValueError, match="GONUTS_THINK_WORKERS"):
        workers_from_env({"GONUTS_THINK_WORKERS": "-1"})


# -- failures, in threads --------------------------------------------------------------------------


def test_a_failing_worker_falls_back_to_the_cheap_bot(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    calls: list[str] = []

    def broken(job: Job) -> Any:
        calls.append(job.level)
        raise BrokenProcessPool("a worker died")

    monkeypatch.setattr(thinking, "think", broken)

    async def go() -> None:
        t = Thinker(0)
        try:
            v = views(1)[0]
            with caplog.at_level(logging.WARNING, logger="gonuts.server"):
                assert await t.decide("t1", "hard", v) in v.legal
            with pytest.raises(HintUnavailableError):
                await t.hint("t1", v, 30, seed=1)
            assert t.metrics.think_failures.labels("bot")._value.get() == 1
        finally:
            t.close()

    run(go())
    assert calls[:2] == ["hard", "hard"]  # tried once more, then the fallback decided
    failed = [r for r in caplog.records if "decides instead" in r.getMessage()]
    assert len(failed) == 1  # one line per failed decision, no traceback
    assert all("\n" not in r.getMessage() and r.exc_info is None for r in caplog.records)


# -- the queue, in threads with a gate -------------------------------------------------------------


class Gate:
    """A stand-in for :func:`thinking.think` that records the order jobs start in and holds
    them until opened."""

    def __init__(self) -> None:
        self.opened = threading.Event()
        self.started: list[tuple[str, int]] = []
        self.lock = threading.Lock()

    def __call__(self, job: Job) -> Any:
        with self.lock:
            self.started.append((job.kind, job.seed))
        if not self.opened.wait(LIMIT):
            raise TimeoutError("the gate was never opened")
        return job.view.legal[0].notation if job.kind == "bot" else {"seed": job.seed}


async def until(check: Any, what: str) -> None:
    end = time.monotonic() + 10
    while not check():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.005)


def test_the_queue_is_bounded_and_fair(monkeypatch: pytest.MonkeyPatch) -> None:
    gate = Gate()
    monkeypatch.setattr(thinking, "think", gate)
    metrics = Metrics()

    async def go() -> None:
        t = Thinker(0, queue=8, metrics=metrics)  # two threads, eight jobs may wait
        v = views(1)[0]
        try:
            # table A floods: 2 start, 8 wait, the other 10 are refused at once
            flood = [asyncio.ensure_future(t.hint("A", v, 10, seed=i)) for i in range(20)]
            await until(lambda: len(gate.started) == 2, "two jobs to start")
            await asyncio.sleep(0.05)
            refused = [f for f in flood if f.done()]
            assert len(refused) == 10
            assert all(isinstance(f.exception(), HintUnavailableError) for f in refused)
            assert t.depth() == 8 and t.busy == 2
            text = metrics.render().decode()
            assert 'gonuts_think_queue_depth{kind="hint"} 8.0' in text
            assert "gonuts_think_busy_workers 2.0" in text
            assert "gonuts_think_dropped_total 10.0" in text
            # table B asks for a hint: refused too (the queue is full) ...
            with pytest.raises(HintUnavailableError):
                await t.hint("B", v, 10, seed=100)
            # ... but a bot decision is never refused: it waits for room
            bot = asyncio.ensure_future(t.decide("C", "medium", v, seed=200))
            await asyncio.sleep(0.05)
            assert not bot.done() and t.depth() == 8
            gate.opened.set()
            assert await bot in v.legal
            done = await asyncio.gather(*(f for f in flood if f not in refused))
            assert sorted(d["seed"] for d in done if d is not None) == list(range(10))
            assert t.depth() == 0
        finally:
            t.close()

    run(go())
    # C's decision entered the queue as soon as there was room (the two jobs that freed the
    # threads took two of A's) and went next, not after A's backlog of eight
    order = [seed for _, seed in gate.started]
    assert order.index(200) <= 4, order


def test_one_tables_flood_does_not_starve_another(monkeypatch: pytest.MonkeyPatch) -> None:
    gate = Gate()
    monkeypatch.setattr(thinking, "think", gate)

    async def go() -> None:
        t = Thinker(0, queue=32)
        v = views(1)[0]
        try:
            a = [asyncio.ensure_future(t.hint("A", v, 10, seed=i)) for i in range(12)]
            await until(lambda: len(gate.started) == 2, "two jobs to start")
            b = [asyncio.ensure_future(t.hint("B", v, 10, seed=100 + i)) for i in range(2)]
            c = asyncio.ensure_future(t.decide("C", "medium", v, seed=300))
            await asyncio.sleep(0.05)
            gate.opened.set()
            await asyncio.gather(*a, *b, c)
        finally:
            t.close()

    run(go())
    order = [seed for _, seed in gate.started]
    # after the two that started at once, the tables (and the kinds) take turns: B and C go
    # long before A's ten other requests are done
    assert order.index(300) <= 3, order
    assert order.index(100) <= 4 and order.index(101) <= 7, order
    assert sorted(order) == sorted([*range(12), 100, 101, 300])


def test_stale_hints_are_dropped_before_a_worker_takes_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gate = Gate()
    monkeypatch.setattr(thinking, "think", gate)

    async def go() -> None:
        t = Thinker(0)
        v = views(1)[0]
        moved_on = False
        try:
            running = [asyncio.ensure_future(t.hint("A", v, 10, seed=i)) for i in range(2)]
            await until(lambda: len(gate.started) == 2, "two jobs to start")
            old = asyncio.ensure_future(t.hint("A", v, 10, seed=9, stale=lambda: moved_on))
            await asyncio.sleep(0.02)
            moved_on = True
            gate.opened.set()
            assert await old is None
            await asyncio.gather(*running)
        finally:
            t.close()

    run(go())
    assert 9 not in [seed for _, seed in gate.started]


# -- in the server ---------------------------------------------------------------------------------


def test_all_bot_tables_play_in_worker_processes(make_app: AppFactory) -> None:
    with TestClient(make_app(think_workers=1)) as c:
        tables = [
            create(c, [{"kind": "bot", "level": level}] * 3, name=None)["table"]["id"]
            for level in ("easy", "medium")
        ]

        def finished() -> bool:
            return all(c.get(f"/api/tables/{t}").json()["status"] == "finished" for t in tables)

        wait_until(finished, timeout=LIMIT, message="the bot tables to finish")
        text = c.get("/metrics").text
    assert "gonuts_think_workers 1.0" in text
    assert 'gonuts_think_queue_depth{kind="bot"} 0.0' in text
    done = [
        line for line in text.splitlines() if line.startswith("gonuts_think_wait_seconds_count")
    ]
    assert done and all(float(line.split()[-1]) >= 0 for line in done)
    assert any('kind="bot"' in line and float(line.split()[-1]) > 10 for line in done), done


def test_a_closed_thinker_starts_again_on_another_loop() -> None:
    """An app's lifespan may run twice (two test clients): the thinker works both times."""
    t = Thinker(0)
    v = views(1)[0]

    async def once() -> None:
        await t.start()
        try:
            assert await t.decide("t1", "medium", v) in v.legal
            assert await t.hint("t1", v, 10, seed=1) is not None
        finally:
            t.close()

    run(once())
    run(once())
    assert t.metrics.think_failures.labels("bot")._value.get() == 0
