"""Everything an app is built from, in one object (``gonuts serve``'s options and the tests'
shortcuts): :class:`Settings`."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from gonuts.server.kernel.limits import Limits
from gonuts.server.review.service import DEFAULT_REVIEW_BOT
from gonuts.server.transport.pages import STATIC_DIR


def default_db_url() -> str:
    return "sqlite:///gonuts.sqlite3"


def default_play_now_wait() -> float:
    """``GONUTS_PLAY_NOW_WAIT`` (seconds, default 30): how long "Play now" waits for people
    before bots fill the empty seats."""
    raw = os.environ.get("GONUTS_PLAY_NOW_WAIT", "").strip()
    try:
        return max(0.0, float(raw)) if raw else 30.0
    except ValueError:
        return 30.0


def default_time_factor() -> float:
    """``GONUTS_TIME_FACTOR`` (TEST ONLY, default 1): how many times faster the turn clocks,
    the deadline sweeper and the notification dispatcher run (3600: an hour a second). Refused
    unless ``GONUTS_TEST=1``: a production server with it would time every player out."""
    raw = os.environ.get("GONUTS_TIME_FACTOR", "").strip()
    if not raw:
        return 1.0
    if os.environ.get("GONUTS_TEST") != "1":
        raise SystemExit("GONUTS_TIME_FACTOR is for tests only: set GONUTS_TEST=1 to use it")
    try:
        factor = float(raw)
    except ValueError:
        raise SystemExit(f"GONUTS_TIME_FACTOR={raw!r} is not a number") from None
    if not factor > 0:
        raise SystemExit(f"GONUTS_TIME_FACTOR={raw!r} must be positive")
    logging.getLogger("gonuts.server").warning(
        "TEST ONLY: GONUTS_TIME_FACTOR=%g, time runs %g times faster for the turn clocks, "
        "the deadline sweeper and the notifications",
        factor,
        factor,
    )
    return factor


def default_notify_log() -> Path | None:
    """``GONUTS_NOTIFY_LOG`` (TEST ONLY): a file every notification is appended to as a JSON
    line, with the facts it told (the soak test counts them)."""
    raw = os.environ.get("GONUTS_NOTIFY_LOG", "").strip()
    return Path(raw) if raw else None


@dataclass(frozen=True)
class Settings:
    """One server process's settings (docs/server.md, "Options")."""

    db_url: str = field(default_factory=default_db_url)
    bot_delay: float = 0.5
    """Seconds a bot waits before it moves (0 in tests)."""
    replace_after: float = 120.0
    """Seconds a player may be away from a game before a bot plays for them."""
    hint_iterations: int = 300
    keep_finished: float = 300.0
    """A finished table nobody watched for this long leaves memory (not the database)."""
    static_dir: Path = STATIC_DIR
    limits: Limits = field(default_factory=Limits)
    """What one client may do (sizes, rates, open tables): :class:`Limits`."""
    shutdown_grace: float = 10.0
    """At shutdown, moves being stored get this long to finish."""
    think_workers: int = 0
    """Bots and hints think in this many worker processes (0: two threads of this process)."""
    think_ray: str | None = None
    """Or on the Ray cluster at this address (empty: a local one)."""
    clock_scale: float = 1.0
    """Multiplies every table's turn clock (tests shorten it)."""
    review_bot: str = DEFAULT_REVIEW_BOT
    """The analyser of finished games' reviews (docs/review.md, "In the browser")."""
    play_now_wait: float = field(default_factory=default_play_now_wait)
    """Seconds "Play now" waits for people before bots fill the table."""
    time_factor: float = field(default_factory=default_time_factor)
    """TEST ONLY: time runs this many times faster for clocks, sweeper and dispatcher."""
    notify_log: Path | None = field(default_factory=default_notify_log)
    """TEST ONLY: every notification appended to this file as a JSON line."""
