"""Database faults answered in the protocol's own format (issue 30, item 2): a SQLite file on a
full disk, read-only, or locked by another connection, and a PostgreSQL server stopped in the
middle of games. Every HTTP answer is JSON (``database_unavailable``, 503, ``Retry-After``), a
socket gets an ``error`` and stays open, ``/readyz`` says 503; no acknowledged move is lost and
none is acknowledged that was not stored; when the fault ends, play goes on.

The full disk is a 3 MB tmpfs and the read-only file a read-only bind mount (we run as root
here); where mounting is not permitted those tests skip, saying so."""

from __future__ import annotations

import asyncio
import errno
import http.client
import itertools
import json
import os
import random
import shutil
import sqlite3
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import IntegrityError, OperationalError
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from gonuts.server import create_app
from gonuts.server.kernel import db
from gonuts.server.kernel.limits import Limits
from web.helpers import auth, create, error_code, state
from web.procs import (
    Player,
    Server,
    check_stored_games,
    create_table,
    free_port,
    join_table,
    query,
    stored_games,
)

HUMAN = {"kind": "human"}
BOT = {"kind": "bot", "level": "easy"}
IDS = itertools.count()


def app_on(path: Path) -> Any:
    return create_app(f"sqlite:///{path}", bot_delay=0, limits=Limits.unlimited())


def unavailable(r: Any) -> None:
    """``r`` is the protocol's answer to a database that cannot serve."""
    assert r.status_code == 503, r.text
    assert r.headers["content-type"].startswith("application/json")
    assert error_code(r) == "database_unavailable"
    assert int(r.headers["retry-after"]) >= 1


def act(client: TestClient, table: str, token: str) -> tuple[str, Any]:
    """One legal move over HTTP with a fresh client id: (id, response)."""
    legal = state(client, table, token)["view"]["legal"]
    assert legal, "no legal move"
    id_ = f"f{next(IDS)}"
    r = client.post(
        f"/api/tables/{table}/actions",
        json={"action": legal[0]["action"], "id": id_},
        headers=auth(token),
    )
    return id_, r


def my_turn(client: TestClient, table: str, token: str) -> None:
    """Wait for the bot (bot_delay 0: a moment)."""
    for _ in range(500):
        if state(client, table, token)["view"]["legal"]:
            return
        time.sleep(0.01)
    raise AssertionError("the bot never moved")


def stored_ids(path: Path) -> set[str]:
    with sqlite3.connect(path) as c:
        return {r[0] for r in c.execute("SELECT client_id FROM gn_actions") if r[0]}


@contextmanager
def mounted(*args: str) -> Iterator[None]:
    """``mount ARGS`` for the block (skips the test where mounting is not permitted)."""
    target = args[-1]
    done = subprocess.run(["mount", *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount here ({done.stderr.strip() or done.returncode}): not tested")
    try:
        yield
    finally:
        subprocess.run(["umount", "-l", target], capture_output=True, check=False)


def fill(folder: Path) -> Path:
    """Write a file in ``folder`` until its disk is full; the file."""
    filler = folder / "filler"
    chunk = b"\0" * 65536
    with filler.open("wb", buffering=0) as out:
        try:
            while True:
                out.write(chunk)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc
    with filler.open("ab", buffering=0) as out:  # the last few bytes too
        try:
            while True:
                out.write(b"\0" * 512)
        except OSError:
            pass
    return filler


def test_sqlite_on_a_full_disk(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    with mounted("-t", "tmpfs", "-o", "size=3m", "tmpfs", str(disk)):
        path = disk / "gonuts.sqlite3"
        with TestClient(app_on(path)) as client:
            made = create(client, [HUMAN, BOT])
            table, token = made["table"]["id"], made["token"]
            assert client.get("/readyz").status_code == 200
            acked, refused = [], []
            id_, r = act(client, table, token)
            assert r.status_code == 200, r.text
            acked.append(id_)
            filler = fill(disk)
            r = client.get("/readyz")
            assert r.status_code == 503 and "full" in r.json()["reason"], r.text
            # moves until the database says no (some may still fit in the write-ahead log)
            for _ in range(200):
                my_turn(client, table, token)
                id_, r = act(client, table, token)
                if r.status_code == 200:
                    acked.append(id_)
                    continue
                unavailable(r)
                assert "full" in r.json()["error"]["message"]
                refused.append(id_)
                if len(refused) >= 3:
                    break
            assert refused, "the full disk never refused a move"
            unavailable(client.post("/api/tables", json={"seats": [HUMAN, BOT]}))
            assert client.get(f"/api/tables/{table}").status_code == 200  # reads go on
            filler.unlink()
            assert client.get("/readyz").status_code == 200
            my_turn(client, table, token)
            id_, r = act(client, table, token)
            assert r.status_code == 200, r.text
            acked.append(id_)
        stored = stored_ids(path)
        assert set(acked) <= stored  # none acknowledged is lost
        assert not set(refused) & stored  # none refused was stored
        with sqlite3.connect(path) as c:
            assert c.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_sqlite_read_only(tmp_path: Path) -> None:
    real, view = tmp_path / "real", tmp_path / "view"
    real.mkdir()
    view.mkdir()
    with TestClient(app_on(real / "gonuts.sqlite3")) as client:
        made = create(client, [HUMAN, BOT])
        table, token = made["table"]["id"], made["token"]
        assert act(client, table, token)[1].status_code == 200
    # (a connection of another process keeps the write-ahead log's files: without them SQLite
    # cannot even read a WAL database on a read-only mount)
    keeper = sqlite3.connect(real / "gonuts.sqlite3")
    keeper.execute("SELECT 1 FROM gn_tables").fetchall()
    with (
        keeper,
        mounted("--bind", str(real), str(view)),
        mounted("-o", "remount,ro,bind", str(view)),
        TestClient(app_on(view / "gonuts.sqlite3")) as client,
    ):
        r = client.get("/readyz")
        assert r.status_code == 503 and "read-only" in r.json()["reason"], r.text
        assert client.get(f"/api/tables/{table}").status_code == 200  # reads go on
        my_turn(client, table, token)
        id_, r = act(client, table, token)
        unavailable(r)
        assert "read-only" in r.json()["error"]["message"]
        unavailable(client.post("/api/tables", json={"seats": [HUMAN, BOT]}))
        with client.websocket_connect(f"/ws/tables/{table}") as ws:
            ws.send_json({"type": "hello", "token": token, "lang": "en"})
            first = ws.receive_json()
            if first["type"] == "error":  # joining wrote (the seat's presence): 1013
                assert first["code"] == "database_unavailable"
                with pytest.raises(WebSocketDisconnect) as closed:
                    ws.receive_json()
                assert closed.value.code == 1013
            else:
                assert first["type"] == "welcome"
                legal = ws.receive_json()["view"]["legal"]
                ws.send_json({"type": "act", "action": legal[0]["action"], "id": "ro1"})
                msg = ws.receive_json()
                while msg["type"] != "error":
                    msg = ws.receive_json()
                assert (msg["code"], msg["id"]) == ("database_unavailable", "ro1")
                ws.send_json({"type": "ping"})
                assert ws.receive_json()["type"] == "pong"  # still open
    keeper.close()
    assert id_ not in stored_ids(real / "gonuts.sqlite3")


def test_sqlite_locked_by_another_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(db, "SQLITE_BUSY_TIMEOUT", 0.2)
    path = tmp_path / "gonuts.sqlite3"
    with TestClient(app_on(path)) as client:
        made = create(client, [HUMAN, BOT])
        table, token = made["table"]["id"], made["token"]
        with client.websocket_connect(f"/ws/tables/{table}") as ws:
            ws.send_json({"type": "hello", "token": token, "lang": "en"})
            assert ws.receive_json()["type"] == "welcome"
            legal = ws.receive_json()["view"]["legal"]
            locker = sqlite3.connect(path, isolation_level=None)
            locker.execute("BEGIN EXCLUSIVE")  # (a backup, the sqlite3 shell)
            try:
                r = client.get("/readyz")
                assert r.status_code == 503 and "locked" in r.json()["reason"], r.text
                id_, r = act(client, table, token)
                unavailable(r)
                assert "locked" in r.json()["error"]["message"]
                ws.send_json({"type": "act", "action": legal[0]["action"], "id": "l1"})
                msg = ws.receive_json()
                assert (msg["type"], msg["code"], msg["id"]) == (
                    "error",
                    "database_unavailable",
                    "l1",
                ), msg
            finally:
                locker.execute("ROLLBACK")
                locker.close()
            assert client.get("/readyz").status_code == 200
            ws.send_json({"type": "act", "action": legal[0]["action"], "id": "l2"})
            msg = ws.receive_json()
            assert (msg["type"], msg["id"]) == ("ack", "l2"), msg
    stored = stored_ids(path)
    assert "l2" in stored and not {"l1", id_} & stored


def test_no_space_reason_is_unavailable_but_a_constraint_is_not() -> None:
    full = OperationalError("INSERT", {}, sqlite3.OperationalError("database or disk is full"))
    assert db.unavailable_reason(full) == "database disk full"
    taken = IntegrityError("INSERT", {}, sqlite3.IntegrityError("UNIQUE constraint failed"))
    assert db.unavailable_reason(taken) is None
    assert db.unavailable_reason(ValueError("x")) is None


if os.geteuid() != 0:  # (a read-only bind mount needs root; chmod would not stop root anyway)
    test_sqlite_read_only = pytest.mark.skip("needs root to mount read-only")(test_sqlite_read_only)


# -- PostgreSQL stopped mid-game (a throwaway cluster of our own, never the shared one) ------------


class Cluster:
    """A PostgreSQL cluster of this test's own on a free port: ``initdb`` + ``pg_ctl`` as the
    ``postgres`` user, with the binaries scripts/start-postgres.sh installs."""

    def __init__(self) -> None:
        versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
        if not versions or os.geteuid() != 0:
            pytest.skip("needs root and Debian's PostgreSQL (scripts/start-postgres.sh)")
        self.bin = versions[-1].parent
        self.dir = Path(tempfile.mkdtemp(prefix="gonuts-faults-pg-"))
        self.dir.chmod(0o755)
        shutil.chown(self.dir, "postgres", "postgres")
        self.port = free_port()
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"
        self.pg("initdb", "-D", str(self.dir / "data"), "-A", "trust", "-U", "postgres")

    def pg(self, tool: str, *args: str) -> None:
        done = subprocess.run(
            ["runuser", "-u", "postgres", "--", str(self.bin / tool), *args],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
        assert done.returncode == 0, f"{tool}: {done.stdout}{done.stderr}"

    def start(self) -> None:
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1"
        data, log = str(self.dir / "data"), str(self.dir / "log")
        self.pg("pg_ctl", "-D", data, "-o", options, "-l", log, "-w", "start")

    def stop(self) -> None:
        self.pg("pg_ctl", "-D", str(self.dir / "data"), "-m", "fast", "-w", "stop")

    def remove(self) -> None:
        subprocess.run(
            ["runuser", "-u", "postgres", "--", str(self.bin / "pg_ctl"), "-D",
             str(self.dir / "data"), "-m", "immediate", "stop"],
            capture_output=True,
            check=False,
        )  # fmt: skip
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    c = Cluster()
    try:
        c.start()
        yield c
    finally:
        c.remove()


def keep_alive_get(
    conn: http.client.HTTPConnection,
    path: str,
    body: dict[str, Any] | None = None,
    token: str | None = None,
) -> tuple[int, dict[str, str], str]:
    """One request on ``conn`` (a POST of ``body`` if given), which must stay the same TCP
    connection (no reset, no close)."""
    sock = conn.sock
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    if body is None:
        conn.request("GET", path, headers=headers)
    else:
        data = json.dumps(body)
        headers["Content-Type"] = "application/json"
        conn.request("POST", path, body=data, headers=headers)
    r = conn.getresponse()
    text_ = r.read().decode()
    assert sock is None or conn.sock is sock, "the server closed the keep-alive connection"
    assert (r.getheader("connection") or "").lower() != "close"
    return r.status, {k.lower(): v for k, v in r.getheaders()}, text_


def test_postgresql_stopped_mid_game(cluster: Cluster, tmp_path: Path) -> None:
    server = Server(
        cluster.url, free_port(), tmp_path / "serve.log",
        "--bot-delay", "0.01", "--replace-after", "600", "--think-workers", "0",
        "--keep-alive", "120",
    )  # fmt: skip
    # (a long keep-alive: stopping the cluster can take more than uvicorn's default 5 s idle
    # limit on a loaded machine, and that close is not what this test is about)
    server.start()
    try:
        asyncio.run(asyncio.wait_for(play_through_an_outage(server, cluster), 90))
    finally:
        server.stop()
    log = (tmp_path / "serve.log").read_text(errors="replace")
    assert "Exception in ASGI application" not in log, log[-3000:]  # (no bare 500s)


async def play_through_an_outage(server: Server, cluster: Cluster) -> None:
    rng = random.Random(7)
    players: list[Player] = []
    for n, seats in enumerate([[HUMAN, HUMAN], [HUMAN, BOT, BOT]]):
        table_id, seat, token = create_table(server.http, seats, f"P{n}")
        joined = [(seat, token)]
        if seats.count(HUMAN) == 2:
            joined.append(join_table(server.http, table_id, f"Q{n}"))
        players += [
            Player([server.ws], table_id, s, t, random.Random(rng.random()), think=0.02)
            for s, t in joined
        ]
    table_ids = sorted({p.table_id for p in players})
    deadline = time.monotonic() + 80
    tasks = [asyncio.create_task(p.run(deadline)) for p in players]
    while min(sum(1 for _ in p.acked) for p in players) < 2:
        assert not any(t.done() for t in tasks)
        await asyncio.sleep(0.02)
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    assert keep_alive_get(conn, "/api/tables")[0] == 200
    await asyncio.to_thread(cluster.stop)
    stopped = time.monotonic()
    # every answer is the protocol's, on the same keep-alive connection
    live = f"/api/tables/{table_ids[0]}/state"
    assert (await asyncio.to_thread(keep_alive_get, conn, live))[0] == 200  # (from memory)
    for path in ("/api/tables", "/api/leaderboard", "/api/games", "/readyz", "/api/tables/nosuch"):
        status, headers, body = await asyncio.to_thread(keep_alive_get, conn, path)
        assert status == 503, (path, status, body)
        assert headers["content-type"].startswith("application/json"), (path, headers)
        if path != "/readyz":
            assert '"database_unavailable"' in body and int(headers["retry-after"]) >= 1
    await asyncio.sleep(max(0.0, 1.5 - (time.monotonic() - stopped)))  # moves are refused
    await asyncio.to_thread(cluster.start)
    await asyncio.gather(*tasks)
    assert (await asyncio.to_thread(keep_alive_get, conn, "/readyz"))[0] == 200
    conn.close()

    url = cluster.url
    rows, records = stored_games(url)
    check_stored_games(rows, records, players)  # every acknowledged move is stored
    refused = [(p, i) for p in players for i, code in p.refused if code == "database_unavailable"]
    assert refused, "no move was tried while the database was down"
    stored = {(str(t), int(s), str(c)) for t, s, c in query(
        url, "SELECT table_id, seat, client_id FROM gn_actions WHERE client_id IS NOT NULL"
    )}  # fmt: skip
    assert not [i for p, i in refused if (p.table_id, p.seat, i) in stored]
    assert all(p.final is not None for p in players)


def test_a_real_server_on_a_full_disk_answers_json_on_one_connection(tmp_path: Path) -> None:
    """The hostile test's case: ``gonuts serve`` (uvicorn) on a full 3 MB tmpfs. Every answer
    on one keep-alive connection is 200 or the protocol's 503; none is a bare 500 or a reset."""
    disk = tmp_path / "disk"
    disk.mkdir()
    with mounted("-t", "tmpfs", "-o", "size=3m", "tmpfs", str(disk)):
        path = disk / "gonuts.sqlite3"
        server = Server(
            f"sqlite:///{path}", free_port(), tmp_path / "serve.log",
            "--bot-delay", "0", "--think-workers", "0", "--keep-alive", "120",
        )  # fmt: skip
        server.start()
        try:
            table, _, token = create_table(server.http, [HUMAN, BOT], "Ana")
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)
            fill(disk)
            assert keep_alive_get(conn, "/readyz")[0] == 503
            acked, refused = [], []
            for n in range(120):
                status, _, text_ = keep_alive_get(conn, f"/api/tables/{table}/state", None, token)
                assert status == 200, text_
                legal = json.loads(text_)["view"]["legal"]
                if not legal:
                    time.sleep(0.02)  # the bot's turn
                    continue
                move = {"action": legal[0]["action"], "id": f"d{n}"}
                status, headers, text_ = keep_alive_get(
                    conn, f"/api/tables/{table}/actions", move, token
                )
                if status == 200:
                    acked.append(move["id"])
                    continue
                assert status == 503, text_
                assert headers["content-type"].startswith("application/json")
                assert '"database_unavailable"' in text_ and int(headers["retry-after"]) >= 1
                refused.append(move["id"])
                if len(refused) >= 5:
                    break
            assert refused, "the full disk never refused a move"
            conn.close()
        finally:
            server.stop()
        log = (tmp_path / "serve.log").read_text(errors="replace")
        assert "Exception in ASGI application" not in log, log[-3000:]
        stored = stored_ids(path)
        assert set(acked) <= stored and not set(refused) & stored
