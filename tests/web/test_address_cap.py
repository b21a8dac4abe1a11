"""One address cannot fill the server (issue 30, item 3): 2,000 half-sent requests from one
address while another address's requests stay fast; the connections over the per-address cap
are answered 429 (JSON) and closed; a trusted proxy is not capped; the count goes down again
when the connections close. The flood and the other address's requests are processes of their
own (the flood at a lower priority, as an attacker on another machine), so that neither the
test's GIL nor the attacker's CPU is counted as the server's latency. Against a real
``gonuts serve`` (uvicorn and its protocol class): Linux routes all
of 127/8 to the loopback, so 127.0.0.2 and 127.0.0.3 are other clients."""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from gonuts.server.transport.http import TrustedProxies
from web.address_flood import answered, close_all, half_open, timed_request
from web.procs import Server, create_table, free_port

ATTACKER, PLAYER, PROXY = "127.0.0.1", "127.0.0.2", "127.0.0.3"
FLOOD = Path(__file__).with_name("address_flood.py")
CAP = 50
HALF_OPEN = 2000


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> object:
    tmp = tmp_path_factory.mktemp("cap")
    s = Server(
        f"sqlite:///{tmp / 'gonuts.sqlite3'}", free_port(), tmp / "serve.log",
        "--max-connections-per-address", str(CAP), "--header-timeout", "90",
        "--forwarded-allow-ips", PROXY, "--think-workers", "0",
    )  # fmt: skip
    s.start()
    yield s
    s.stop()


class Player:
    """The other address's requests, made and timed in a process of its own, so that the
    test's own flood cannot hold them back on the GIL and have that counted as the server's
    latency: ``least`` requests, and more until :meth:`times` closes its stdin."""

    def __init__(self, port: int, least: int) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(FLOOD), "player", str(port), PLAYER, str(least)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip

    def times(self) -> list[float]:
        """Milliseconds per request, once it has made at least ``least`` (it stops then)."""
        out, _ = self.proc.communicate(timeout=60)
        assert self.proc.returncode == 0, "the other address's requests failed"
        return [float(t) for t in out.split()]


def check_p99(times: list[float], when: str) -> None:
    p99 = statistics.quantiles(times, n=100)[98]
    median = statistics.median(times)
    print(f"another address {when}: p50 {median:.1f} ms, p99 {p99:.1f} ms ({len(times)})")
    assert p99 < 100, f"{when}: p99 {p99:.1f} ms (median {median:.1f} ms)"


def test_one_address_cannot_fill_the_server(server: Server) -> None:
    flooder = subprocess.Popen(
        [sys.executable, str(FLOOD), "flood", str(server.port), ATTACKER, str(HALF_OPEN),
         str(HALF_OPEN - CAP)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    during = Player(server.port, 200)  # (from before the flood until it is answered)
    try:
        assert flooder.stdout is not None
        line = flooder.stdout.readline()
        assert line, "the flood failed"
        flood = json.loads(line)
        check_p99(during.times(), "as the flood comes")
        # the address keeps its CAP connections (waiting for their headers); the rest are
        # told why, in the protocol's JSON, and closed
        assert flood["silent"] == CAP, flood
        assert flood["refused"] == HALF_OPEN - CAP, flood
        assert '"code":"rate_limited"' in flood["first_refused"]
        assert "retry-after: 1" in flood["first_refused"]
        # while the address holds its share, another is served at once (a new connection
        # each time)
        check_p99(Player(server.port, 200).times(), "while the flood is held")

        async def one_more() -> bytes:  # (and the attacker's own address is full)
            more = await half_open(server.port, ATTACKER, 1)
            try:
                return (await answered(more, 1, 10.0))[0]
            finally:
                close_all(more)

        assert asyncio.run(one_more()).startswith(b"HTTP/1.1 429")
    finally:
        if during.proc.poll() is None:  # (a failure before its figures were read)
            during.proc.kill()
        flooder.communicate(timeout=30)  # (closes its stdin: it closes its connections)
    # its connections closed, the address is served again
    for _ in range(100):
        time.sleep(0.05)
        try:
            timed_request(server.port, ATTACKER)
            return
        except AssertionError:
            continue
    raise AssertionError("the address stayed capped after its connections closed")


def test_a_trusted_proxy_is_not_capped(server: Server) -> None:
    async def scenario() -> None:
        conns = await half_open(server.port, PROXY, CAP * 2)
        try:
            replies = await answered(conns, 1, 1.0)
            assert replies == [b""] * (CAP * 2)  # every one waits for its headers
        finally:
            close_all(conns)

    asyncio.run(asyncio.wait_for(scenario(), 60))


def test_websockets_leave_the_http_count(server: Server) -> None:
    """More sockets than the HTTP cap from one address: each upgrade leaves the count (the
    app's own cap of 64 sockets per address applies to them)."""
    table, _, _ = create_table(
        server.http, [{"kind": "human"}, {"kind": "bot", "level": "easy"}], "A"
    )

    async def scenario() -> None:
        url = f"{server.ws}/ws/tables/{table}"
        sockets = [await connect(url, proxy=None) for _ in range(CAP + 10)]
        try:
            for ws in sockets:
                await ws.send(json.dumps({"type": "hello", "token": None, "lang": "en"}))
                assert json.loads(await ws.recv())["type"] == "welcome"
            await asyncio.to_thread(timed_request, server.port, ATTACKER)  # HTTP still served
        finally:
            for ws in sockets:
                await ws.close()

    asyncio.run(asyncio.wait_for(scenario(), 60))


@pytest.mark.parametrize(
    ("spec", "inside", "outside"),
    [
        ("127.0.0.3", ["127.0.0.3"], ["127.0.0.1", "junk"]),
        ("10.0.0.0/8, ::1", ["10.2.3.4", "::1"], ["11.0.0.1", "::2"]),
        ("*", ["1.2.3.4", "anything"], []),
        ("proxy.internal", ["proxy.internal"], ["10.0.0.1"]),
    ],
)
def test_trusted_proxies(spec: str, inside: list[str], outside: list[str]) -> None:
    trusted = TrustedProxies(spec)
    assert all(h in trusted for h in inside)
    assert not any(h in trusted for h in outside)
