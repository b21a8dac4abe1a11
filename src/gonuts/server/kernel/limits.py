"""Limits that keep one hostile or buggy client from hurting the others.

* message and body sizes (WebSocket frames, JSON bodies, record uploads);
* a token bucket per WebSocket connection (excess messages are refused with ``rate_limited``;
  a connection that keeps going is closed with 1008) and one per client address for the
  HTTP API (``429 rate_limited``);
* open tables per client: tables created by one address that have not finished yet, counting
  "play again" tables (``429 too_many_tables``);
* WebSockets per client address: open at once, and handshakes per second (refused with 1008);
  spectators per table; bytes queued for one socket (a slow consumer is closed with 1013).

(Replayed ``act`` messages need no limit: their ids are stored with the actions, see
:meth:`gonuts.server.play.service.Service.act`.)

:class:`Limits` is what ``create_app(limits=...)`` takes; every field has a sane default and
``None`` switches a limit off.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

MIN_MESSAGE: Final = 256


@dataclass(frozen=True)
class Limits:
    """Every limit of the web app; ``None`` means unlimited."""

    max_message: int = 4096
    """Bytes in one WebSocket text frame."""
    max_json_body: int = 4096
    """Bytes in one JSON request body."""
    max_record: int = 1 << 20
    """Bytes in one uploaded game record."""
    ws_rate: float | None = 20.0
    """Messages per second one WebSocket connection may send, on average."""
    ws_burst: int = 40
    """How many messages a connection may send at once before ``ws_rate`` applies."""
    ws_strikes: int = 20
    """Refused-for-rate messages after which the connection is closed (1008)."""
    http_rate: float | None = 20.0
    """``/api`` requests per second per client address, on average."""
    http_burst: int = 100
    max_open_tables: int | None = 20
    """Tables one client address may have created that are not finished yet."""
    hello_timeout: float | None = 30.0
    """Seconds a new WebSocket has to send ``hello``."""
    max_sockets_per_address: int | None = 64
    """WebSockets one client address may hold open at once (more are refused: 1008)."""
    ws_connect_rate: float | None = 5.0
    """WebSocket handshakes per second per client address, on average (more are refused:
    1008 before the socket opens, like ``http_rate`` for requests)."""
    ws_connect_burst: int = 64
    """Handshakes one address may make at once before ``ws_connect_rate`` applies."""
    ws_send_queue: int = 256 * 1024
    """Bytes waiting to be sent to one socket; beyond, it is closed as too slow (1013)."""
    max_spectators: int | None = 200
    """Spectators' sockets on one table (this process); more get ``table_full`` and 1008."""
    replay_workers: int = 2
    """Threads that build replays (off the event loop)."""
    replay_queue: int = 8
    """Replay builds that may wait for a thread; beyond that, 429 ``rate_limited``."""

    def __post_init__(self) -> None:
        for name in ("max_message", "max_json_body", "max_record"):
            if getattr(self, name) < MIN_MESSAGE:
                raise ValueError(f"{name} must be at least {MIN_MESSAGE} bytes")
        if min(self.ws_burst, self.http_burst, self.ws_strikes, self.ws_connect_burst) < 1:
            raise ValueError("bursts and strikes must be positive")
        if self.replay_workers < 1 or self.replay_queue < 0:
            raise ValueError("replay_workers must be positive and replay_queue not negative")
        if self.ws_send_queue < MIN_MESSAGE:
            raise ValueError(f"ws_send_queue must be at least {MIN_MESSAGE} bytes")

    @classmethod
    def unlimited(cls) -> Limits:
        """No rate, table, per-address socket or spectator limits (sizes stay): for load
        tests on a trusted loopback."""
        return cls(
            ws_rate=None,
            http_rate=None,
            max_open_tables=None,
            max_sockets_per_address=None,
            ws_connect_rate=None,
            max_spectators=None,
        )


Clock = Callable[[], float]


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up; one token per message."""

    __slots__ = ("burst", "clock", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: int, clock: Clock = time.monotonic) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.clock = clock
        self.stamp = clock()

    def take(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def wait_time(self) -> float:
        """Seconds until the next token."""
        return max(0.0, (1.0 - self.tokens) / self.rate)


class BucketMap:
    """One :class:`TokenBucket` per key (client address), forgetting the idle ones."""

    def __init__(
        self, rate: float, burst: int, clock: Clock = time.monotonic, size: int = 10_000
    ) -> None:
        self.rate, self.burst, self.clock, self.size = rate, burst, clock, size
        self.buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def take(self, key: str) -> TokenBucket | None:
        """None if ``key`` may go on, else its (empty) bucket."""
        bucket = self.buckets.pop(key, None)
        if bucket is None:
            bucket = TokenBucket(self.rate, self.burst, self.clock)
        self.buckets[key] = bucket
        while len(self.buckets) > self.size:
            self.buckets.popitem(last=False)  # the longest idle: full again anyway
        return None if bucket.take() else bucket


class TableQuota:
    """Unfinished tables per client key, with slots reserved while a creation is under way."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.tables: dict[str, set[str]] = {}
        self.pending: dict[str, int] = {}

    def reserve(self, key: str, unfinished: Callable[[str], bool]) -> bool:
        """Take a slot for ``key``; False if it has ``limit`` unfinished tables already."""
        if self.limit is None:
            return True
        mine = self.tables.get(key, set())
        mine = {t for t in mine if unfinished(t)}
        if mine:
            self.tables[key] = mine
        else:
            self.tables.pop(key, None)
        if len(mine) + self.pending.get(key, 0) >= self.limit:
            return False
        self.pending[key] = self.pending.get(key, 0) + 1
        return True

    def settle(self, key: str, table_id: str | None) -> None:
        """End a reservation: the table made (None if the creation failed)."""
        if self.limit is None:
            return
        left = self.pending.get(key, 1) - 1
        if left > 0:
            self.pending[key] = left
        else:
            self.pending.pop(key, None)
        if table_id is not None:
            self.tables.setdefault(key, set()).add(table_id)


__all__ = ["BucketMap", "Limits", "TableQuota", "TokenBucket"]
