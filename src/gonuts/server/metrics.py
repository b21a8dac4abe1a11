"""Prometheus metrics of one server process, served at ``GET /metrics`` (docs/deploy.md).

Each app has its own registry (several apps live in one test process); the service and the
socket layer report through :class:`Metrics`' methods, and the gauges read the live state when
scraped.
"""

from __future__ import annotations

from collections.abc import Callable

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

CONTENT_TYPE = CONTENT_TYPE_LATEST

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
THINK_BUCKETS = (0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class Metrics:
    """The gonuts series: live tables, open sockets, moves, move-to-ack latency, errors, bots."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.live_tables = Gauge(
            "gonuts_live_tables",
            "Tables in this process's memory, by status",
            ["status"],
            registry=r,
        )
        self.open_sockets = Gauge(
            "gonuts_open_sockets", "WebSocket connections open on this process", registry=r
        )
        self.moves = Counter(
            "gonuts_moves", "Actions stored by this process (rate() gives moves per second)",
            ["by"], registry=r,
        )  # fmt: skip
        self.move_latency = Histogram(
            "gonuts_move_ack_seconds",
            "From a player's action arriving to its acknowledgement (stored and committed)",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.errors = Counter(
            "gonuts_errors", "Refusals sent to clients, by error code", ["code"], registry=r
        )
        self.bot_think = Histogram(
            "gonuts_bot_think_seconds", "Time a bot took to choose an action, by level",
            ["level"], buckets=THINK_BUCKETS, registry=r,
        )  # fmt: skip

    def watch(self, tables_by_status: Callable[[], dict[str, int]]) -> None:
        """Read the live tables from ``tables_by_status`` whenever the metrics are scraped."""

        def reader(status: str) -> Callable[[], float]:
            return lambda: float(tables_by_status().get(status, 0))

        for status in ("open", "playing", "finished"):
            self.live_tables.labels(status).set_function(reader(status))

    def error(self, code: str) -> None:
        self.errors.labels(str(code)).inc()

    def render(self) -> bytes:
        """The text exposition format."""
        return generate_latest(self.registry)
