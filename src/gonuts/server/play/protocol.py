"""Play's public face: what the other features (lobby, games, accounts, and those to come)
may use of it, besides :class:`~gonuts.server.play.service.Service` itself.

A feature imports play's names from here or from ``play.service``, never from its other
modules (tests/test_architecture.py checks it): the live table model, the stored table the
lobby makes, the table summary and the view and event JSON a replay reuses, the clock's bounds.
"""

from __future__ import annotations

from gonuts.server.play.clock import MAX_CLOCK, MIN_CLOCK, TURN_BASED, default_clock
from gonuts.server.play.live import REPLACEMENT_LEVEL, LiveTable
from gonuts.server.play.messages import (
    BOT_LEVELS,
    BotLevel,
    TableSummary,
    breakdown_json,
    event_json,
    table_summary,
    view_json,
)
from gonuts.server.play.store import (
    StoredSeat,
    StoredTable,
    anonymise_account,
    scrub_finished,
    with_account,
)

__all__ = [
    "BOT_LEVELS",
    "MAX_CLOCK",
    "MIN_CLOCK",
    "REPLACEMENT_LEVEL",
    "TURN_BASED",
    "BotLevel",
    "LiveTable",
    "StoredSeat",
    "StoredTable",
    "TableSummary",
    "anonymise_account",
    "breakdown_json",
    "default_clock",
    "event_json",
    "scrub_finished",
    "table_summary",
    "view_json",
    "with_account",
]
