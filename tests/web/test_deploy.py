"""docs/deploy.md's nginx configuration, as written there, in front of two ``gonuts serve``
processes on one PostgreSQL database: a two-player game played through it to the end.

Needs nginx (Debian: ``apt-get install nginx-light``) and ``$GONUTS_TEST_PG_URL``; skipped,
saying so, without either.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect

DEPLOY_MD = Path(__file__).resolve().parents[2] / "docs" / "deploy.md"


def nginx_binary() -> str:
    found = shutil.which("nginx", path=f"{os.environ.get('PATH', '')}:/usr/sbin:/usr/local/sbin")
    if found is None:
        pytest.skip("nginx is not installed (apt-get install nginx-light)")
    return found


def documented_config() -> str:
    """The one ```nginx block of docs/deploy.md."""
    blocks = re.findall(r"```nginx\n(.*?)```", DEPLOY_MD.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 1, "docs/deploy.md should hold exactly one nginx block"
    return str(blocks[0])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_http(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    for _ in range(600):
        assert proc.poll() is None, log.read_text()[-3000:]
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise AssertionError(f"{url} did not answer: {log.read_text()[-3000:]}")


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


class Deployment:
    def __init__(self, front: int, backends: list[int], logs: list[Path]) -> None:
        self.front, self.backends, self.logs = front, backends, logs

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.front}"


@pytest.fixture
def deployment(pg_url: str, tmp_path: Path) -> Iterator[Deployment]:
    nginx = nginx_binary()
    backends = [free_port(), free_port()]
    front = free_port()
    site = documented_config()
    for documented, port in zip(("127.0.0.1:8001", "127.0.0.1:8002"), backends, strict=True):
        assert documented in site
        site = site.replace(documented, f"127.0.0.1:{port}")
    assert "listen 80;" in site
    site = site.replace("listen 80;", f"listen 127.0.0.1:{front};")
    temp = "".join(
        f"{kind}_temp_path {tmp_path / kind};\n"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        f"daemon off;\nworker_processes 1;\npid {tmp_path / 'nginx.pid'};\n"
        f"error_log {tmp_path / 'nginx-error.log'} info;\n"
        + ("user root;\n" if os.geteuid() == 0 else "")
        + "events { worker_connections 256; }\n"
        f"http {{\naccess_log {tmp_path / 'nginx-access.log'};\n{temp}{site}\n}}\n"
    )
    procs: list[subprocess.Popen[bytes]] = []
    logs = [tmp_path / f"serve-{port}.log" for port in backends]
    try:
        for port, log in zip(backends, logs, strict=True):
            env = {
                **os.environ,
                "GONUTS_DB_URL": pg_url,
                "GONUTS_PORT": str(port),
                "GONUTS_BOT_DELAY": "0",
                "GONUTS_ACCESS_LOG": "1",
                "GONUTS_LOG_JSON": "1",
                "GONUTS_FORWARDED_ALLOW_IPS": "127.0.0.1",  # nginx, as docs/deploy.md says
            }
            with log.open("wb") as out:
                procs.append(
                    subprocess.Popen(
                        [sys.executable, "-m", "gonuts", "serve"], stdout=out, stderr=out, env=env
                    )
                )
        for port, log, proc in zip(backends, logs, procs, strict=True):
            wait_http(f"http://127.0.0.1:{port}/readyz", proc, log)
        nginx_log = tmp_path / "nginx-error.log"
        nginx_log.touch()
        with (tmp_path / "nginx.out").open("wb") as out:
            procs.append(
                subprocess.Popen(
                    [nginx, "-p", str(tmp_path), "-c", str(conf), "-e", str(nginx_log)],
                    stdout=out,
                    stderr=out,
                )
            )
        wait_http(f"http://127.0.0.1:{front}/healthz", procs[-1], nginx_log)
        yield Deployment(front, backends, logs)
    finally:
        for proc in reversed(procs):
            stop(proc)


async def play(
    url: str, token: str, rng: random.Random, connected: asyncio.Event, go: asyncio.Event
) -> int:
    """One player: says hello, waits for ``go``, then random legal moves, one in flight at a
    time, until the end; returns the final version."""
    async with connect(url) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        connected.set()
        await go.wait()  # a quick game could end before the sockets are counted
        pending: str | None = None
        acked = -1
        acted_at: int | None = None
        while True:
            msg: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 30))
            if msg["type"] == "ack":
                pending, acked = None, msg["version"]
            elif msg["type"] == "error":
                assert msg.get("id") == pending, msg
                pending = None
            elif msg["type"] == "state":
                view = msg["view"]
                if view["over"]:
                    return int(msg["version"])
                version = msg["version"]
                if view["legal"] and pending is None and version != acted_at and version >= acked:
                    acted_at, pending = version, f"n{version}"
                    action = rng.choice(view["legal"])["action"]
                    await ws.send(json.dumps({"type": "act", "action": action, "id": pending}))


def metric(base: str, name: str) -> float:
    for line in httpx.get(f"{base}/metrics").text.splitlines():
        if line.startswith(name + " "):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"no {name}")


def test_a_game_through_the_documented_nginx(deployment: Deployment) -> None:
    base = deployment.http
    r = httpx.post(
        f"{base}/api/tables",
        json={"seats": [{"kind": "human"}, {"kind": "human"}], "name": "Ana"},
        headers={"X-Forwarded-For": "203.0.113.7"},
    )
    assert r.status_code == 201, r.text
    tid, ana = r.json()["table"]["id"], r.json()["token"]
    r = httpx.post(f"{base}/api/tables/{tid}/join", json={"name": "Ben"})
    assert r.status_code == 200, r.text
    ben = r.json()["token"]
    url = f"ws://127.0.0.1:{deployment.front}/ws/tables/{tid}"

    async def main() -> tuple[int, int]:
        first, second, go = asyncio.Event(), asyncio.Event(), asyncio.Event()
        one = asyncio.ensure_future(play(url, ana, random.Random(1), first, go))
        await first.wait()
        two = asyncio.ensure_future(play(url, ben, random.Random(2), second, go))
        await second.wait()
        # round robin: the two sockets opened one after the other are on different processes
        for _ in range(100):
            sockets = [
                metric(f"http://127.0.0.1:{p}", "gonuts_open_sockets") for p in deployment.backends
            ]
            if sockets == [1, 1]:
                break
            await asyncio.sleep(0.1)
        assert sockets == [1, 1], sockets
        go.set()
        return await asyncio.wait_for(asyncio.gather(one, two), 120)

    versions = asyncio.run(asyncio.wait_for(main(), 180))
    assert versions[0] == versions[1] > 10
    final = httpx.get(f"{base}/api/tables/{tid}").json()
    assert final["status"] == "finished" and final["version"] == versions[0]
    # the processes saw the player's address through nginx's X-Forwarded-For
    access = [
        json.loads(line)
        for log in deployment.logs
        for line in log.read_text().splitlines()
        if line.startswith("{") and '"gonuts.access"' in line
    ]
    creator = [a for a in access if a["method"] == "POST" and a["path"] == "/api/tables"]
    assert [a["client"] for a in creator] == ["203.0.113.7"], creator
