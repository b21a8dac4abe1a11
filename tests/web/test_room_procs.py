"""The host's waiting room and the chat on two ``gonuts serve`` processes and one PostgreSQL
database: the host acts on one process, the guests' sockets are on the other, and they follow
live (a chat line each way, a bot put in a seat, a guest removed, the table cancelled), and the
other process's summary agrees."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

from web.procs import Server, create_table, free_port, join_table


async def until(ws: ClientConnection, kind: str) -> dict[str, Any]:
    while True:
        msg: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if msg["type"] == kind:
            return msg


async def scenario(one: Server, two: Server) -> None:
    seats = [{"kind": "human"}] * 5
    tid, _, host = create_table(one.http, seats, "Ana")
    _, ben = join_table(two.http, tid, "Ben")
    _, cy = join_table(two.http, tid, "Cy")
    auth = {"Authorization": f"Bearer {host}"}
    async with (
        connect(f"{two.ws}/ws/tables/{tid}") as ben_ws,
        connect(f"{two.ws}/ws/tables/{tid}") as cy_ws,
        httpx.AsyncClient(timeout=10) as http,
    ):
        for ws, token in ((ben_ws, ben), (cy_ws, cy)):
            await ws.send(json.dumps({"type": "hello", "token": token, "lang": "en"}))
            assert (await until(ws, "welcome"))["seat"] in (1, 2)
        # a chat line said on process one reaches the sockets on process two
        async with connect(f"{one.ws}/ws/tables/{tid}") as ana_ws:
            await ana_ws.send(json.dumps({"type": "hello", "token": host, "lang": "en"}))
            await until(ana_ws, "welcome")
            await ana_ws.send(json.dumps({"type": "chat", "text": "hello from one"}))
            heard = await until(ben_ws, "chat")
            assert (heard["name"], heard["text"]) == ("Ana", "hello from one")
            assert (await until(ana_ws, "chat"))["text"] == "hello from one"  # (her own)
            await ben_ws.send(json.dumps({"type": "chat", "reaction": "hi"}))
            assert (await until(ana_ws, "chat"))["reaction"] == "hi"
        r = await http.post(f"{one.http}/api/tables/{tid}/seats/3/remove", headers=auth)
        assert r.status_code == 409  # nobody sits there
        # a bot in seat 4, on process one: process two's sockets and summary follow
        r = await http.post(
            f"{one.http}/api/tables/{tid}/seats/3",
            json={"kind": "bot", "level": "easy"},
            headers=auth,
        )
        assert r.status_code == 200, r.text
        notice = await until(ben_ws, "chat_notice")
        assert notice["key"] == "bot"
        for _ in range(50):
            summary = (await http.get(f"{two.http}/api/tables/{tid}")).json()
            if summary["seats"][3]["kind"] == "bot":
                break
            await asyncio.sleep(0.1)
        assert (summary["seats"][3]["kind"], summary["seats"][3]["level"]) == ("bot", "easy"), (
            summary
        )
        # Cy is removed on process one: their socket on process two is told and closed
        r = await http.post(f"{one.http}/api/tables/{tid}/seats/2/remove", headers=auth)
        assert r.status_code == 200, r.text
        assert (await until(cy_ws, "removed"))["seat"] == 2
        # cancelled on process one: Ben's socket on process two is told
        r = await http.post(f"{one.http}/api/tables/{tid}/cancel", headers=auth)
        assert r.status_code == 200, r.text
        assert (await until(ben_ws, "cancelled"))["table_id"] == tid


def test_waiting_room_on_two_processes(pg_url: str, tmp_path: Path) -> None:
    opts = ("--bot-delay", "3600", "--replace-after", "600")
    one = Server(pg_url, free_port(), tmp_path / "one.log", *opts)
    two = Server(pg_url, free_port(), tmp_path / "two.log", *opts)
    one.start()
    try:
        two.start()
        asyncio.run(asyncio.wait_for(scenario(one, two), 60))
    finally:
        one.stop()
        two.stop()
