"""The load test's figures: percentiles, the result and its JSON keys, the printed summary."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank ``q``-th percentile (0.0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))
    return ordered[k]


@dataclass(frozen=True)
class Result:
    """One load run's figures (docs/loadtest.md explains each)."""

    clients: int
    duration_s: float
    games: int
    games_per_min: float
    acts: int
    p50_ms: float
    p99_ms: float
    max_ms: float
    errors: int
    error_codes: dict[str, int]
    concurrent_max: int
    concurrent_mean: float
    server_cpu: float | None = None
    """CPU time of the started server / wall time (1.0 = one core busy); None for --url."""
    client_cpu: float = 0.0
    reconnects: int = 0
    """Connections that dropped and came back (players with ``--reconnect``)."""
    reconnect_p50_s: float = 0.0
    reconnect_max_s: float = 0.0
    """From a dropped connection to the first ``state`` on the next one."""
    unreconnected: int = 0
    """Players still without a connection when the run ended."""
    reconnect_failures: dict[str, int] | None = None
    """Dropped connections and failed attempts to connect again, by reason."""

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` document (its keys are a documented interface)."""
        return {
            "clients": self.clients,
            "games_per_min": round(self.games_per_min, 2),
            "p50_ms": round(self.p50_ms, 2),
            "p99_ms": round(self.p99_ms, 2),
            "errors": self.errors,
            "duration_s": round(self.duration_s, 1),
            "games": self.games,
            "acts": self.acts,
            "max_ms": round(self.max_ms, 2),
            "error_codes": self.error_codes,
            "concurrent_max": self.concurrent_max,
            "concurrent_mean": round(self.concurrent_mean, 1),
            "server_cpu": None if self.server_cpu is None else round(self.server_cpu, 2),
            "client_cpu": round(self.client_cpu, 2),
            "reconnects": self.reconnects,
            "reconnect_p50_s": round(self.reconnect_p50_s, 3),
            "reconnect_max_s": round(self.reconnect_max_s, 3),
            "unreconnected": self.unreconnected,
            "reconnect_failures": self.reconnect_failures or {},
        }

    def summary(self, errors: Counter[str] | None = None) -> str:
        """The lines ``gonuts loadtest`` prints at the end."""
        return (
            f"players: {self.clients} (concurrent: max {self.concurrent_max}, "
            f"mean {self.concurrent_mean:.0f})\n"
            f"games finished: {self.games} ({self.games_per_min:.1f} per minute)\n"
            f"moves acknowledged: {self.acts} ({self.acts / self.duration_s:.0f}/s)\n"
            f"latency move → ack: p50 {self.p50_ms:.1f} ms, p99 {self.p99_ms:.1f} ms, "
            f"max {self.max_ms:.1f} ms\n"
            f"errors: {self.errors} {dict(errors) if errors else ''}\n"
            f"CPU: server {cores(self.server_cpu)}, players {cores(self.client_cpu)}"
            + (
                f"\nreconnections: {self.reconnects} (p50 {self.reconnect_p50_s:.2f} s, max "
                f"{self.reconnect_max_s:.2f} s), {self.unreconnected} players not back at the end"
                if self.reconnects or self.unreconnected
                else ""
            )
        )


def cores(share: float | None) -> str:
    return "n/a" if share is None else f"{share * 100:.0f}% of a core"


def progress_line(
    stats_connected: int, games: int, acts: int, recent_ms: list[float], errors: int
) -> str:
    """The live line next to the progress bar."""
    return (
        f"players {stats_connected:>5} · games {games:>4} · acts {acts:>6} · "
        f"p99 {percentile(recent_ms, 99):6.1f} ms · errors {errors}"
    )
