"""Reviews' wire: the state of a game's review (docs/protocol.md, "Game review")."""

from __future__ import annotations

from typing import Any, Literal

from gonuts.server.transport.wire import Out


class ReviewState(Out):
    """``none`` (never asked for), ``running`` (``done`` of ``total`` decisions judged),
    ``done`` (``review`` is ``gonuts review --json``'s JSON) or ``failed``."""

    status: Literal["none", "running", "done", "failed"]
    analyser: str
    """The server's analyser, e.g. ``neural:32``."""
    done: int
    total: int
    review: dict[str, Any] | None
