"""Slow clients (issue 17 item 5): connections that never finish their headers are closed, and
connections beyond the cap are refused, while a normal request still answers quickly. Runs a
real ``gonuts serve`` on loopback (uvicorn's protocol is what is under test)."""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from gonuts.loadtest.launcher import ServerProcess
from web.test_serve import free_port

PARTIAL = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "


@contextmanager
def server(tmp_path: Path, *flags: str) -> Iterator[int]:
    """``gonuts serve`` with ``flags`` on a free loopback port, stopped on exit. (These tests
    hold many sockets from one address: the per-address cap is test_address_cap.py's.)"""
    db = f"sqlite:///{tmp_path / 'slow.sqlite3'}"
    flags = ("--max-connections-per-address", "0", *flags)
    proc = ServerProcess.gonuts_serve(db, free_port(), tmp_path / "serve.log", *flags)
    assert proc.env is not None
    proc.env["GONUTS_LOG_LEVEL"] = "warning"
    proc.start(timeout=60)
    try:
        yield proc.port
    finally:
        proc.stop()


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


def read_response(s: socket.socket, wait: float) -> tuple[bytes, bool]:
    """What the server sends within ``wait`` seconds, and whether it then closed."""
    s.settimeout(wait)
    got = b""
    end = time.monotonic() + wait
    try:
        while time.monotonic() < end:
            chunk = s.recv(65536)
            if not chunk:
                return got, True
            got += chunk
    except (ConnectionResetError, BrokenPipeError):
        return got, True
    except TimeoutError:
        pass
    return got, False


def body_head(path: str, length: int | None) -> bytes:
    size = f"Content-Length: {length}" if length is not None else "Transfer-Encoding: chunked"
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"{size}\r\n\r\n"
    ).encode("ascii")


def test_a_dribbled_body_gets_408_and_the_connection_closed(tmp_path: Path) -> None:
    """Headers, then a body a byte at a time (or never): 408 and closed after the body
    timeout, while the server answers others at once."""
    with server(tmp_path, "--body-timeout", "2", "--header-timeout", "60") as port:
        held = []
        for i in range(30):
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            s.sendall(body_head("/api/tables", 200) + (b"{" if i % 2 else b""))
            held.append(s)
        try:
            started = time.monotonic()
            for _ in range(3):  # dribble: a byte now and then, far from the whole body
                time.sleep(0.5)
                for s in held[::2]:
                    # (cut off already, if the machine is slow to run this)
                    with contextlib.suppress(ConnectionResetError, BrokenPipeError):
                        s.sendall(b" ")
                assert quick_request(port) < 5.0
            answers = [read_response(s, max(0.5, started + 12 - time.monotonic())) for s in held]
            assert all(closed for _, closed in answers), "a slow body still open after 12 s"
            assert all(got.startswith(b"HTTP/1.1 408 ") for got, _ in answers), answers[0]
            assert b'"http_error"' in answers[0][0]
            assert quick_request(port) < 5.0
        finally:
            for s in held:
                s.close()


def test_an_oversized_body_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """A declared 50 MB upload: 413 at once, without waiting for (or reading) the body, and the
    connection is closed rather than left to swallow the rest. Likewise a chunked body once it
    passes the limit."""
    with server(tmp_path, "--header-timeout", "60") as port:
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        c = socket.create_connection(("127.0.0.1", port), timeout=10)
        try:
            s.sendall(body_head("/api/replay", 50_000_000) + b'{"format": ')
            got, closed = read_response(s, 5.0)
            assert got.startswith(b"HTTP/1.1 413 "), got[:100]
            assert closed
            c.sendall(body_head("/api/replay", None))
            chunk = b"x" * 65536
            sent = 0
            try:
                while sent < 4 << 20:
                    c.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    sent += len(chunk)
            except (ConnectionResetError, BrokenPipeError):
                pass  # closed on us: what we want
            got, closed = read_response(c, 5.0)
            assert got.startswith(b"HTTP/1.1 413 ") or got == b"", got[:100]
            assert closed
            assert sent < 4 << 20 or got.startswith(b"HTTP/1.1 413 ")
        finally:
            s.close()
            c.close()
