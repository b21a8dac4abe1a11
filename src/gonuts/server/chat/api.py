"""The chat's route (``GET /api/tables/{id}/chat``: the log, live and in the replay) and its
socket message (``chat``), registered on the table socket's dispatcher by the wiring."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from fastapi import APIRouter

from gonuts.server.chat.messages import ChatLog, ChatSay
from gonuts.server.chat.service import Chat
from gonuts.server.kernel.errors import ErrorCode, ServiceError
from gonuts.server.play.protocol import LiveTable
from gonuts.server.transport.conn import Conn
from gonuts.server.transport.routes import api_router


class ChatSocket(Protocol):
    """What the chat needs of a table socket (play's ``TableSocket`` is one)."""

    conn: Conn

    @property
    def joined(self) -> LiveTable: ...

    async def error(
        self, code: ErrorCode, detail: str | None = None, id_: str | None = None
    ) -> None: ...


def chat_handler(chat: Chat) -> Callable[[ChatSocket, ChatSay], Awaitable[None]]:
    """The ``chat`` message's handler: refusals become ``error`` messages on that socket."""

    async def on_chat(s: ChatSocket, msg: ChatSay) -> None:
        try:
            await chat.say(s.joined, s.conn, msg.text, msg.reaction)
        except ServiceError as exc:
            await s.error(exc.code, exc.detail)

    return on_chat


def chat_router(chat: Chat) -> APIRouter:
    api = api_router()

    @api.get("/tables/{table_id}/chat", response_model=ChatLog)
    async def chat_log(table_id: str) -> dict[str, Any]:
        """Whether the table's chat is on and its last lines, oldest first (public, as
        watching the table is)."""
        if chat.play.store.load(table_id) is None:
            raise ServiceError(ErrorCode.UNKNOWN_TABLE, None, 404)
        return chat.log(table_id)

    return api
