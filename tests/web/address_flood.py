"""Half-open HTTP connections from one address, for the per-address cap test
(tests/web/test_address_cap.py), usable in-process or as a process of its own.

As a process (``python address_flood.py flood PORT SOURCE COUNT EXPECT``) it runs at a lower
priority (``nice`` 5): on a two-core test machine the attacker would otherwise take the
server's CPU, which an attacker on another machine cannot. It opens ``COUNT`` connections
from ``SOURCE``, each with a request that is never finished, waits until ``EXPECT`` of them
have been answered, prints what they were sent as one JSON line, holds them open until its
stdin ends, then closes them. ``python address_flood.py player PORT SOURCE LEAST`` is the other
address: at normal priority, it times requests (at least ``LEAST``, and more until its stdin
ends) and prints their milliseconds. Only the standard library: it runs without the test's
imports.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import select
import sys
import time

HALF_REQUEST = b"GET /api/tables HTTP/1.1\r\nHost: x\r\nX-Slow: "
"""Headers never finished (the header timeout would close it after 90 s)."""

Conns = list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]


async def half_open(port: int, source: str, count: int) -> Conns:
    """``count`` connections from ``source``, each with a request that is never finished."""
    gate = asyncio.Semaphore(200)

    async def one() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        async with gate:
            reader, writer = await asyncio.open_connection(
                "127.0.0.1", port, local_addr=(source, 0)
            )
            writer.write(HALF_REQUEST)
            await writer.drain()
            return reader, writer

    return list(await asyncio.gather(*(one() for _ in range(count))))


async def answered(conns: Conns, expect: int, wait: float) -> list[bytes]:
    """What each connection was sent (b"" if nothing): once ``expect`` of them have been
    answered (or after ``wait`` seconds: a loaded machine accepts 2,000 sockets slowly), and a
    moment more for any answer beyond those."""

    async def read(reader: asyncio.StreamReader) -> bytes:
        try:
            return await reader.read(4096)
        except ConnectionError:
            return b"reset"  # (counted as neither)

    tasks = [asyncio.ensure_future(read(r)) for r, _ in conns]
    end = time.monotonic() + wait
    while sum(t.done() for t in tasks) < expect and time.monotonic() < end:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)
    out = [t.result() if t.done() else b"" for t in tasks]
    for t in tasks:
        t.cancel()
    return out


def timed_request(port: int, source: str) -> float:
    """Milliseconds for one request on a new connection from ``source``."""
    started = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    try:
        conn.request("GET", "/healthz")
        r = conn.getresponse()
        r.read()
        assert r.status == 200, r.status
    finally:
        conn.close()
    return (time.perf_counter() - started) * 1000


def player(port: int, source: str, least: int) -> None:
    """Print the milliseconds of ``least`` requests from ``source``, and more until stdin ends."""
    times: list[float] = []
    while len(times) < least or not select.select([sys.stdin], [], [], 0)[0]:
        times.append(timed_request(port, source))
    print(" ".join(f"{t:.3f}" for t in times))


def close_all(conns: Conns) -> None:
    for _, writer in conns:
        writer.close()


async def main(port: int, source: str, count: int, expect: int) -> None:
    conns = await half_open(port, source, count)
    replies = await answered(conns, expect, 40.0)
    refused = [r for r in replies if r.startswith(b"HTTP/1.1 429")]
    print(
        json.dumps(
            {
                "refused": len(refused),
                "silent": sum(not r for r in replies),
                "first_refused": refused[0].decode("latin-1") if refused else None,
                "first": replies[0][:200].decode("latin-1"),
            }
        ),
        flush=True,
    )
    await asyncio.to_thread(sys.stdin.read)  # (held until the test closes our stdin)
    close_all(conns)
    await asyncio.sleep(0.1)


if __name__ == "__main__":
    role, port, source, *counts = sys.argv[1:]
    if role == "player":
        player(int(port), source, int(counts[0]))
    else:
        os.nice(5)
        asyncio.run(main(int(port), source, int(counts[0]), int(counts[1])))
