"""Finished games' routes: the listing, a record file, its replay, and an uploaded record's
replay (CPU work in a bounded pool: 429 when full)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from gonuts.errors import RecordError
from gonuts.record import Record
from gonuts.server.games.messages import GameList, Replay, replay_data
from gonuts.server.games.service import Games
from gonuts.server.kernel.errors import ErrorCode, ServiceError
from gonuts.server.kernel.work import BoundedPool, check_record_names
from gonuts.server.transport.middleware import request_lang
from gonuts.server.transport.routes import api_router

E = ErrorCode


def games_router(finished: Games, replays: BoundedPool) -> APIRouter:
    """``/api/games``, ``/api/games/{id}/record``, ``/api/games/{id}/replay``, ``/api/replay``."""
    api = api_router()

    @api.get("/games", response_model=GameList)
    async def games(
        limit: Annotated[int, Query(ge=1, le=200)] = 50,
        offset: Annotated[int, Query(ge=0, le=1 << 31)] = 0,
    ) -> dict[str, Any]:
        return {"games": finished.list_games(limit, offset)}

    @api.get(
        "/games/{game_id}/record",
        response_class=Response,
        responses={200: {"content": {"application/json": {}}, "description": "gonuts-record/1"}},
    )
    async def record(game_id: str) -> Response:
        text = finished.record_text(game_id)
        return Response(
            text,
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="gonuts-{game_id}.json"'},
        )

    @api.get("/games/{game_id}/replay", response_model=Replay)
    async def game_replay(game_id: str, request: Request) -> dict[str, Any]:
        record = Record.from_json(finished.record_text(game_id))
        return await replays.run(replay_data, record, request_lang(request))

    @api.post(
        "/replay",
        response_model=Replay,
        # the body is a record file of any content type, read as is: described, not parsed
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": {"type": "object"}}},
            }
        },
    )
    async def upload_replay(request: Request) -> dict[str, Any]:
        body = await request.body()
        try:
            record = Record.from_json(body)
            check_record_names(record)
            return await replays.run(replay_data, record, request_lang(request))
        except RecordError as exc:
            raise ServiceError(E.BAD_RECORD, str(exc), 422) from None

    return api
