"""Reviews' routes: ask for a finished game's review, and follow it (``/api/games/{id}/review``)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from gonuts.server.review.messages import ReviewState
from gonuts.server.review.service import Reviews
from gonuts.server.transport.routes import api_router
from gonuts.server.transport.wire import ErrorBody

RESPONSES: dict[int | str, dict[str, Any]] = {
    202: {"model": ReviewState, "description": "running: poll the GET until it is done"},
    503: {"model": ErrorBody, "description": "review_busy, review_unavailable"},
}


def _reply(state: dict[str, Any]) -> JSONResponse:
    """200 with the review (or ``none`` / ``failed``), 202 while it runs."""
    body = ReviewState.model_validate(state).model_dump(mode="json")
    return JSONResponse(body, status_code=202 if state["status"] == "running" else 200)


def review_router(reviews: Reviews) -> APIRouter:
    """``POST /api/games/{id}/review`` (start it) and ``GET`` (how it stands)."""
    api = api_router()

    @api.get("/games/{game_id}/review", response_model=ReviewState, responses=RESPONSES)
    async def review_state(game_id: str) -> JSONResponse:
        return _reply(reviews.state(game_id))

    @api.post("/games/{game_id}/review", response_model=ReviewState, responses=RESPONSES)
    async def review_request(game_id: str) -> JSONResponse:
        return _reply(reviews.request(game_id))

    return api
