"""The per-move path stays cheap (issue 17, "figures not worse"): a socket that takes the
bytes is written to in the step that queued them (no task per message), a socket that makes
the writer wait gets one task that drains everything queued meanwhile, and the turn clock
looks only at the new move, never the whole game, and re-arms only the seat that moved."""

from __future__ import annotations

import asyncio
import contextlib
import random
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from gonuts.game import Game
from gonuts.server.play.live import LiveTable
from gonuts.server.service import Service
from gonuts.server.store import TableStore
from gonuts.server.transport.conn import Conn
from web.helpers import Inbox

FOUR_HUMANS: list[tuple[str, str | None]] = [("human", None)] * 4


class Gate:
    """A socket that makes its first send wait until :attr:`open` is set."""

    def __init__(self) -> None:
        self.open = asyncio.Event()
        self.started: list[str] = []
        self.done: list[str] = []

    async def send_text(self, data: str) -> None:
        self.started.append(data)
        await self.open.wait()
        self.done.append(data)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        pass


class Refuses:
    async def send_text(self, data: str) -> None:
        raise ConnectionResetError("gone")

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        pass


def test_a_socket_that_takes_the_bytes_is_written_to_at_once() -> None:
    async def main() -> None:
        inbox = Inbox()
        conn = Conn(inbox, 0, "en")
        tasks = len(asyncio.all_tasks())
        for i in range(5):
            conn.push(f'{{"type":"pong","i":{i}}}')
            # sent before push returned, and no task was made for it
            assert [m["i"] for m in inbox.messages] == list(range(i + 1))
            assert len(asyncio.all_tasks()) == tasks
        assert conn.queued == 0
        assert await conn.flush(1)
        gone = Conn(Refuses(), 1, "en")
        gone.push('{"type":"pong"}')
        assert gone.gone and gone.queued == 0  # a failed send is seen at once too
        gone.push('{"type":"pong"}')  # and nothing more is queued
        assert gone.queued == 0

    asyncio.run(main())


def test_a_socket_that_waits_gets_one_task_that_drains_the_queue_in_order() -> None:
    async def main() -> None:
        gate = Gate()
        conn = Conn(gate, 0, "en")
        tasks = len(asyncio.all_tasks())
        texts = [f'{{"n":{i}}}' for i in range(6)]
        conn.push(texts[0])
        assert gate.started == texts[:1] and gate.done == []  # started at once, now waiting
        assert len(asyncio.all_tasks()) == tasks + 1
        for text in texts[1:]:
            conn.push(text)
        assert len(asyncio.all_tasks()) == tasks + 1  # the same writer takes the others
        assert conn.queued == sum(len(t) for t in texts[1:])
        assert not await conn.flush(0.05)  # still waiting for the socket
        gate.open.set()
        assert await conn.flush(1)
        assert gate.done == texts and conn.queued == 0
        await asyncio.sleep(0)
        assert len(asyncio.all_tasks()) == tasks
        conn.push(texts[0])  # the socket takes bytes again: written at once, no task
        assert gate.done == [*texts, texts[0]]
        assert len(asyncio.all_tasks()) == tasks

    asyncio.run(main())


def test_a_waiting_writer_still_closes_a_socket_that_does_not_keep_up() -> None:
    async def main() -> None:
        gate = Gate()
        conn = Conn(gate, 0, "en", queue_bytes=100)
        conn.push("x" * 60)  # taken by the socket, which then waits
        conn.push("y" * 60)
        assert not conn.gone and conn.queued == 60
        conn.push("z" * 60)  # 120 bytes waiting: too slow
        assert conn.gone and conn.queued == 0

    asyncio.run(main())


def play(svc: Service, table: LiveTable, moves: int, seed: int) -> Any:
    async def go() -> int:
        rng = random.Random(seed)
        done = 0
        while done < moves and table.game is not None and not table.game.is_over:
            seat = rng.choice(table.game.to_act)
            action = rng.choice(table.game.legal_actions(seat))
            await svc.act(table, seat, action.notation, client_id=f"s{seed}m{done}")
            done += 1
        return done

    return go()


@pytest.mark.parametrize("clock", [60, None])
def test_a_move_never_walks_the_whole_game(
    db_url: str, monkeypatch: pytest.MonkeyPatch, clock: int | None
) -> None:
    """With sockets on every seat and a spectator, 40 moves: the clock, the version and the
    broadcast look at the new move only (``Game.actions_taken`` is the whole history)."""

    async def main() -> None:
        svc = Service(TableStore(db_url), bot_delay=0)
        await svc.start()
        try:
            table, _, _ = await svc.create_table(FOUR_HUMANS, "Ana", "en", clock=clock)
            for name in ("Ben", "Cid", "Dee"):
                await svc.join(table.id, name)
            inboxes = [Inbox() for _ in range(5)]
            for seat, inbox in enumerate(inboxes):
                conn = Conn(inbox, seat if seat < 4 else None, "en")
                await svc.connect(table, conn)
                await svc.send_state(table, conn, full=True)
            assert await play(svc, table, 3, seed=1) == 3  # (the first look may walk it)
            walks = 0
            whole = Game.actions_taken

            def counted(game: Game) -> Any:
                nonlocal walks
                walks += 1
                return whole(game)

            monkeypatch.setattr(Game, "actions_taken", counted)
            moved = await play(svc, table, 40, seed=2)
            assert moved == 40 and walks == 0
            monkeypatch.undo()
            for inbox in inboxes:  # and every socket got every state, in order
                assert inbox.versions() == list(range(moved + 4))
            if clock is not None:
                assert table.game is not None
                assert set(table.deadlines) == set(table.game.to_act)
            else:
                assert table.deadlines == {}
        finally:
            await svc.close()

    asyncio.run(asyncio.wait_for(main(), 60))


def test_only_the_seat_that_moved_is_rearmed_and_the_timer_is_kept(db_url: str) -> None:
    """Everyone picks at once: each pick drops the picker's deadline and leaves the others'
    exactly as they were; the timer set for the earliest is neither cancelled nor re-made."""

    async def main() -> None:
        svc = Service(TableStore(db_url), bot_delay=0)
        await svc.start()
        try:
            table, _, _ = await svc.create_table(FOUR_HUMANS, "Ana", "en", clock=60)
            for name in ("Ben", "Cid", "Dee"):
                await svc.join(table.id, name)
            assert table.game is not None
            assert sorted(table.game.to_act) == [0, 1, 2, 3]  # the first pick: all at once
            before = dict(table.deadlines)
            timer = svc.clock._watch(table).handle
            assert set(before) == {0, 1, 2, 3} and timer is not None
            for n, seat in enumerate((2, 0, 3), 1):
                await asyncio.sleep(0.01)
                await svc.act(table, seat, "pick 1" if seat != 0 else "pick 2")
                left = [s for s in (0, 1, 2, 3) if s not in (2, 0, 3)[:n]]
                assert table.deadlines == {s: before[s] for s in left}
                assert svc.clock._watch(table).handle is timer  # no new timer per move
        finally:
            await svc.close()

    asyncio.run(asyncio.wait_for(main(), 60))


def test_sqlite_checkpoints_run_in_a_thread_not_in_a_moves_commit(tmp_path: Path) -> None:
    """A serving store's connections never checkpoint (a commit past 1,000 WAL pages used to
    copy and sync them on the event loop); its thread does, and stops with the store."""
    path = tmp_path / "wal.sqlite3"
    store = TableStore(f"sqlite:///{path}")
    store.checkpoint_in_background(every=0.05)
    try:
        with store.engine.connect() as c:
            assert c.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == 0

        async def tables() -> None:
            svc = Service(store, bot_delay=0)
            for _ in range(5):
                await svc.create_table(FOUR_HUMANS, "Ana", "en")

        asyncio.run(tables())
        # the database file itself (immutable: the WAL ignored) soon holds the new tables
        raw = f"file:{path}?mode=ro&immutable=1"
        deadline = time.monotonic() + 10
        while True:
            with contextlib.closing(sqlite3.connect(raw, uri=True)) as db:
                if db.execute("SELECT count(*) FROM gn_tables").fetchone()[0] == 5:
                    break
            assert time.monotonic() < deadline, "no checkpoint ran"
            time.sleep(0.05)
        thread = store._checkpointer
        assert thread is not None and thread.is_alive()
    finally:
        store.close()
    assert not thread.is_alive()
