"""The wire of ``POST /api/play-now``: the body (it answers the lobby's ``Seated``)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from gonuts.server.transport.wire import Strict

Count = Annotated[int, Field(ge=2, le=6)]


class PlayNow(Strict):
    """``{"players": 4, "name": "Ana"}`` or ``{"players": [3, 4], …}``; ``name`` is the
    account's when signed in (as for ``/join``)."""

    players: Count | Annotated[list[Count], Field(min_length=1, max_length=5)]
    name: str | None = Field(default=None, max_length=200)
