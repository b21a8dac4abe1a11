"""Slow clients (issue 17 item 5): connections that never finish their headers are closed, and
connections beyond the cap are refused, while a normal request still answers quickly. Runs a
real ``gonuts serve`` on loopback (uvicorn's protocol is what is under test)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from web.test_serve import free_port

PARTIAL = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "


@contextmanager
def server(tmp_path: Path, *flags: str) -> Iterator[int]:
    port = free_port()
    db = f"sqlite:///{tmp_path / 'slow.sqlite3'}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "gonuts", "serve", "--port", str(port), "--db", db, *flags],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "GONUTS_LOG_LEVEL": "warning"},
    )
    try:
        end = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert proc.poll() is None, "the server did not start"
            assert time.monotonic() < end, "the server did not answer in 60 s"
            time.sleep(0.2)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def slow_sockets(port: int, n: int) -> list[socket.socket]:
    out = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(PARTIAL)
        out.append(s)
    return out


def closed_by_server(s: socket.socket, wait: float) -> bool:
    s.settimeout(wait)
    try:
        return s.recv(1024) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def quick_request(port: int) -> float:
    started = time.monotonic()
    r = httpx.get(f"http://127.0.0.1:{port}/api/config", timeout=20)
    assert r.status_code == 200
    return time.monotonic() - started


def test_unfinished_headers_are_closed_and_others_still_served(tmp_path: Path) -> None:
    with server(tmp_path, "--header-timeout", "2") as port:
        held = slow_sockets(port, 200)
        try:
            assert quick_request(port) < 5.0  # generous: the machine is shared
            time.sleep(2.0)
            deadline = time.monotonic() + 15
            still_open = [
                s for s in held if not closed_by_server(s, max(0.01, deadline - time.monotonic()))
            ]
            assert still_open == [], f"{len(still_open)} of 200 still open"
            assert quick_request(port) < 5.0
        finally:
            for s in held:
                s.close()


def test_connections_beyond_the_cap_are_refused(tmp_path: Path) -> None:
    with server(tmp_path, "--header-timeout", "60", "--max-connections", "50") as port:
        held = slow_sockets(port, 120)
        try:
            time.sleep(1.0)
            refused = sum(closed_by_server(s, 0.05) for s in held)
            assert refused >= 60  # ~70 over the cap; none would be closed before 60 s otherwise
        finally:
            for s in held:
                s.close()
        # once they are gone, the server takes requests again
        end = time.monotonic() + 20
        while True:
            try:
                assert quick_request(port) < 5.0
                break
            except (httpx.HTTPError, AssertionError):
                assert time.monotonic() < end
                time.sleep(0.2)
