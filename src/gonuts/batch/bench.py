"""``gonuts bench --batch``: random games per second through :mod:`gonuts.batch` on a device.

:func:`bench_batch` compiles :func:`gonuts.batch.play.random_games` once and plays whole
batches with it; the result is the ``--json`` object:

>>> device_for("cpu").platform
'cpu'
>>> r = BatchBenchResult("cpu", 3, 4096, 8192, 2.0, 500_000, 5.0)
>>> r.games_per_s, r.to_json()["decisions_per_s"]
(4096.0, 250000.0)
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import jax

from gonuts.batch.play import random_games

DEFAULT_BATCH = {"cpu": 4096, "gpu": 65536}


class NoDeviceError(Exception):
    """The requested device kind is not available to JAX."""


@dataclass(frozen=True)
class BatchBenchResult:
    """One measurement; the fields are the ``--json`` object of the issue's contract."""

    device: str
    players: int
    batch_size: int
    games: int
    seconds: float
    decisions: int
    compile_seconds: float

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds

    @property
    def decisions_per_s(self) -> float:
        return self.decisions / self.seconds

    def to_json(self) -> dict[str, object]:
        return {
            "device": self.device,
            "players": self.players,
            "batch_size": self.batch_size,
            "games": self.games,
            "seconds": self.seconds,
            "games_per_s": self.games_per_s,
            "decisions_per_s": self.decisions_per_s,
            "compile_seconds": self.compile_seconds,
        }


def device_for(kind: str) -> jax.Device:
    """The first JAX device of ``kind`` (``cpu`` or ``gpu``)."""
    try:
        devices = jax.devices(kind)
    except RuntimeError:
        devices = []
    if not devices:
        seen = ", ".join(sorted({d.platform for d in jax.devices()}))
        raise NoDeviceError(f"no {kind} device (JAX sees: {seen})")
    return devices[0]


def bench_batch(
    players: int, batch_size: int, seconds: float, device: str = "cpu", seed: int = 0
) -> BatchBenchResult:
    """Compile the random-play program, then run whole batches of games for ``seconds``.

    Each batch deals ``batch_size`` new random games and plays all of them to the end on the
    device (the uniformly random policy runs there too); compile time is measured apart.
    """
    dev = device_for(device)
    with jax.default_device(dev):
        key = jax.random.key(seed)
        start = time.perf_counter()
        program = random_games.lower(players, key, batch_size).compile()
        compile_seconds = time.perf_counter() - start
        games = decisions = 0
        i = 0
        start = time.perf_counter()
        while True:
            i += 1
            _, taken, _ = program(jax.random.key(seed + i))
            decisions += int(taken)  # waits for the batch
            games += batch_size
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
    return BatchBenchResult(
        device=dev.platform
        if dev.device_kind == dev.platform
        else f"{dev.platform} ({dev.device_kind})",
        players=players,
        batch_size=batch_size,
        games=games,
        seconds=elapsed,
        decisions=decisions,
        compile_seconds=compile_seconds,
    )
