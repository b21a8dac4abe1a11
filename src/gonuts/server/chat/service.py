"""Table chat (issue 26, item 3): who may speak, what a line may be, how fast, who hears it.

Seated players say one line (at most :data:`~gonuts.server.chat.messages.MAX_TEXT`
characters, no line breaks or control characters) or a quick reaction; everyone at the table,
spectators too, is sent it with the sender's seat and name; it is stored with the table
(``gn_chat``) and read back by ``GET /api/tables/{id}/chat`` (the live page and the replay).
Two token buckets bound it: one per socket, one per seat (all its sockets together). The host
may turn chat off when making the table (``chat_off``). The server never makes markup of a line:
it is JSON text, and the browser shows it as text.

On PostgreSQL with several processes, a stored line is announced with ``NOTIFY`` on
:data:`CHANNEL`; every other process reads it back and tells its own sockets at that table.
The same channel carries the waiting room's steps (``{"room": 1}``) to :attr:`Chat.room_hooks`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import unicodedata
from collections.abc import Awaitable, Callable
from typing import Any, Final

import psycopg
from sqlalchemy import text as sql

from gonuts.server.chat.messages import MAX_TEXT, line_json
from gonuts.server.chat.store import ChatStore
from gonuts.server.kernel import i18n
from gonuts.server.kernel.errors import ErrorCode, ServiceError
from gonuts.server.kernel.limits import BucketMap
from gonuts.server.play.protocol import LiveTable
from gonuts.server.play.service import Service as Play
from gonuts.server.transport.conn import Conn, to_json

log = logging.getLogger("gonuts.server.chat")
E = ErrorCode
CHANNEL: Final = "gonuts_chat"
"""The PostgreSQL channel of new chat lines (``{"o": origin, "t": table, "id": line}``)."""
HISTORY: Final = 200
"""Lines a table's chat log answers (its last ones)."""
BREAKS: Final = frozenset("\u2028\u2029\x85")
BIDI: Final = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Direction overrides and isolates: they could make a line look like another's words."""


def check_text(raw: str) -> str:
    """``raw`` as one chat line: trimmed, 1 to :data:`MAX_TEXT` characters, one line, no
    control characters; ``malformed`` otherwise."""
    line = raw.strip()
    if not line:
        raise ServiceError(E.MALFORMED, "say something", 422)
    if len(line) > MAX_TEXT:
        raise ServiceError(E.MALFORMED, f"at most {MAX_TEXT} characters", 422)
    if any(ch in BREAKS or ch in BIDI or unicodedata.category(ch) == "Cc" for ch in line):
        raise ServiceError(E.MALFORMED, "one line, without control characters", 422)
    return line


def notice_text(key: str, params: dict[str, Any], lang: str) -> str:
    """A system notice (``chat`` of the server's catalogue) in ``lang``; names in ``params``
    are shown as the reader would name them (a bot's in their language)."""
    table: dict[str, str] = i18n.server_texts(lang).get("chat", {})
    template = table.get(key) or i18n.server_texts(i18n.DEFAULT_LANG)["chat"][key]
    shown = {
        k: i18n.display_name(v, lang) if k == "name" and isinstance(v, str) else v
        for k, v in params.items()
    }
    return template.format(**shown)


class Chat:
    """The chat of one play service's tables."""

    def __init__(
        self,
        play: Play,
        store: ChatStore,
        *,
        socket_rate: tuple[float, int] = (1.0, 5),
        seat_rate: tuple[float, int] = (0.5, 8),
    ) -> None:
        self.play = play
        self.store = store
        self.per_socket = BucketMap(*socket_rate)
        """Lines per second and burst of one socket."""
        self.per_seat = BucketMap(*seat_rate)
        """Lines per second and burst of one seat, all its sockets together."""
        self.room_hooks: list[Callable[[str, str | None, dict[str, Any]], Awaitable[None]]] = []
        """Called with a table's id and the notice (key, parameters) when another process's
        host changed its waiting room."""
        self._hooks: set[asyncio.Task[None]] = set()
        self._listener: asyncio.Task[None] | None = None
        self.listening = asyncio.Event()
        """Set while another process's lines can be heard (PostgreSQL; tests wait for it)."""

    # -- speaking -------------------------------------------------------------------------------

    async def say(
        self, table: LiveTable, conn: Conn, text: str | None, reaction: str | None
    ) -> dict[str, Any]:
        """Store and tell ``conn``'s line (or reaction) at ``table``; its ``chat`` message."""
        seat = conn.seat
        if seat is None:
            raise ServiceError(E.SPECTATOR)
        if (text is None) == (reaction is None):
            raise ServiceError(E.MALFORMED, "send text or a reaction", 422)
        line = check_text(text) if text is not None else str(reaction)
        if not self.store.chat_enabled(table.id):
            raise ServiceError(E.CHAT_OFF)
        for buckets, key in (
            (self.per_socket, f"{id(conn)}"),
            (self.per_seat, f"{table.id}:{seat}"),
        ):
            if buckets.take(key) is not None:
                detail = f"at most {buckets.burst} lines per {buckets.burst / buckets.rate:g} s"
                raise ServiceError(E.RATE_LIMITED, detail)
        name = table.seats[seat].name or f"Player {seat + 1}"
        stored = self.store.add_chat(
            table.id, seat, name, "text" if text is not None else "reaction", line
        )
        message = {"type": "chat", **line_json(stored)}
        self.tell(table, message)
        self.announce(table.id, stored.id)
        return message

    @staticmethod
    def tell(table: LiveTable, message: dict[str, Any]) -> None:
        """Queue ``message`` on every socket of the table (serialized once; never waits)."""
        data = to_json(message)
        for conn in list(table.conns):
            conn.push(data)

    async def notice(self, table: LiveTable, key: str, params: dict[str, Any]) -> None:
        """A system notice (what the host did) to everyone at the table, in each one's language
        (not stored: the replay shows what players said)."""
        for conn in list(table.conns):
            await conn.send(
                {"type": "chat_notice", "key": key, "text": notice_text(key, params, conn.lang)}
            )

    def log(self, table_id: str) -> dict[str, Any]:
        """:class:`~gonuts.server.chat.messages.ChatLog` of a table."""
        lines = self.store.chat_lines(table_id, HISTORY)
        return {
            "enabled": self.store.chat_enabled(table_id),
            "messages": [line_json(x) for x in lines],
        }

    # -- other processes (PostgreSQL) -------------------------------------------------------------

    def announce(self, table_id: str, line_id: int) -> None:
        self._notify({"o": self.store.origin, "t": table_id, "id": line_id})

    def announce_room(self, table_id: str, key: str | None, params: dict[str, Any]) -> None:
        """Tell the other processes that a host changed this table's waiting room (and the
        notice to show: ``key``, ``params``)."""
        self._notify({"o": self.store.origin, "t": table_id, "room": key, "p": params})

    def _notify(self, data: dict[str, Any]) -> None:
        if self.store.dialect != "postgresql":
            return
        payload = json.dumps(data)
        try:
            with self.store.autocommit.connect() as c:
                c.execute(sql("SELECT pg_notify(:c, :p)"), {"c": CHANNEL, "p": payload})
        except Exception:
            log.warning("announcing a chat line failed", exc_info=True)

    def heard(self, payload: str) -> None:
        """Another process stored a line: tell this process's sockets at its table."""
        try:
            data = json.loads(payload)
            origin, table_id = str(data["o"]), str(data["t"])
            line_id = int(data["id"]) if "room" not in data else 0
        except (ValueError, KeyError, TypeError):
            return
        if origin == self.store.origin or table_id not in self.play.tables:
            return
        if "room" in data:
            key = data["room"] if isinstance(data["room"], str) else None
            params = data.get("p") if isinstance(data.get("p"), dict) else {}
            for hook in self.room_hooks:
                task = asyncio.ensure_future(hook(table_id, key, params))
                self._hooks.add(task)
                task.add_done_callback(self._hooks.discard)
            return
        found = self.store.chat_line(line_id)
        if found is None or found[0] != table_id:  # (channels are the whole database's)
            return
        table = self.play.tables.get(found[0])
        if table is not None:
            self.tell(table, {"type": "chat", **line_json(found[1])})

    async def start(self) -> None:
        if self.store.dialect == "postgresql" and self._listener is None:
            self._listener = asyncio.ensure_future(self._listen())

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            await asyncio.gather(self._listener, return_exceptions=True)
            self._listener = None

    async def _listen(self) -> None:
        delay = 0.1
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(
                    self.store.libpq_url, autocommit=True, application_name="gonuts:chat"
                )
                async with conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self.listening.set()
                    delay = 0.1
                    async for note in conn.notifies():
                        self.heard(note.payload)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("listening for chat failed; retrying", exc_info=True)
            self.listening.clear()
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)
