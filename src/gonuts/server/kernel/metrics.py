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
    """The gonuts series: live tables, open sockets, moves, move-to-ack latency, errors, bots,
    and the thinking workers' queue."""

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
        self.think_queue = Gauge(
            "gonuts_think_queue_depth",
            "Bot decisions and hints waiting for a thinking worker, by kind",
            ["kind"],
            registry=r,
        )
        self.think_busy = Gauge(
            "gonuts_think_busy_workers", "Thinking workers computing right now", registry=r
        )
        self.think_workers = Gauge(
            "gonuts_think_workers",
            "Thinking workers: processes, or threads when run in-process",
            registry=r,
        )
        self.think_wait = Histogram(
            "gonuts_think_wait_seconds", "Time a decision or hint waited for a worker, by kind",
            ["kind"], buckets=THINK_BUCKETS, registry=r,
        )  # fmt: skip
        self.think_dropped = Counter(
            "gonuts_think_dropped",
            "Hint requests refused because the queue was full",
            registry=r,
        )
        self.think_failures = Counter(
            "gonuts_think_failures",
            "Decisions or hints a worker failed (crashed, raised, timed out), by kind",
            ["kind"],
            registry=r,
        )

    def watch(self, tables_by_status: Callable[[], dict[str, int]]) -> None:
        """Read the live tables from ``tables_by_status`` whenever the metrics are scraped."""

        def reader(status: str) -> Callable[[], float]:
            return lambda: float(tables_by_status().get(status, 0))

        for status in ("open", "playing", "finished"):
            self.live_tables.labels(status).set_function(reader(status))

    def watch_thinking(
        self, depth: Callable[[str], int], busy: Callable[[], int], workers: int
    ) -> None:
        """Read the thinking queue (:mod:`gonuts.server.kernel.thinking`) whenever scraped."""

        def reader(kind: str) -> Callable[[], float]:
            return lambda: float(depth(kind))

        for kind in ("bot", "hint"):
            self.think_queue.labels(kind).set_function(reader(kind))
        self.think_busy.set_function(lambda: float(busy()))
        self.think_workers.set(workers)

    def error(self, code: str) -> None:
        self.errors.labels(str(code)).inc()

    def render(self) -> bytes:
        """The text exposition format."""
        return generate_latest(self.registry)
