"""``POST /api/play-now``: wait in the queue, answer the seat (as ``/join`` does)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from gonuts.server.accounts.protocol import CurrentAccount
from gonuts.server.kernel.errors import ErrorCode, ServiceError
from gonuts.server.lobby.protocol import Seated
from gonuts.server.matching.messages import PlayNow
from gonuts.server.matching.service import PER_ADDRESS, Matcher
from gonuts.server.play.protocol import table_summary
from gonuts.server.transport.middleware import client_key, request_lang
from gonuts.server.transport.routes import api_router

E = ErrorCode


def matching_router(matcher: Matcher) -> APIRouter:
    api = api_router()

    @api.post("/play-now", response_model=Seated)
    async def play_now(body: PlayNow, request: Request, account: CurrentAccount) -> dict[str, Any]:
        """Queue for a new table of ``players`` (a count or a list of them) and answer once
        seated: with others from the queue, or after the wait with bots in the empty seats.
        One request at a time per account (guests: three per address); leaving (closing the
        request) leaves the queue."""
        if account is None and body.name is None:
            raise ServiceError(E.MALFORMED, "name: a guest needs a name", 422)
        if account is not None:
            keys = [f"a:{account.id}"]
        else:
            address = client_key(request)[:60]
            keys = [f"h:{address}:{i}" for i in range(PER_ADDRESS)]
        table, seat, token = await matcher.play_now(
            keys,
            account.name if account is not None else str(body.name),
            request_lang(request),
            body.players,
            account_id=account.id if account is not None else None,
            mu=account.mu if account is not None else None,
            gone=request.is_disconnected,
        )
        return {"table": table_summary(table), "seat": seat, "token": token}

    return api
