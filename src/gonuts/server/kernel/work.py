"""CPU work off the event loop, bounded: replays are built in a few threads, and a client that
asks for more than the pool and its short queue can hold is told to come back (429) instead of
piling up work (and memory) the server would spend minutes on."""

from __future__ import annotations

import asyncio
import logging
import unicodedata
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Final, TypeVar

from gonuts.errors import RecordError
from gonuts.record import Record
from gonuts.server.kernel.errors import ErrorCode, ServiceError

T = TypeVar("T")
MAX_NAME: Final = 24
"""The lobby's limit on a player's name (:func:`gonuts.server.lobby.rules.check_name`)."""


def check_record_names(record: Record) -> None:
    """Refuse (``RecordError``) a record whose player names the lobby would not accept.

    Every step of a replay repeats the names, so an unbounded name multiplies a small upload
    into a huge answer; a lone surrogate cannot even be encoded into the answer.
    """
    for i, name in enumerate(record.players):
        if not 1 <= len(name) <= MAX_NAME or not name.strip():
            raise RecordError(f"player {i}: a name has 1 to {MAX_NAME} characters")
        if any(unicodedata.category(ch).startswith("C") for ch in name):
            raise RecordError(f"player {i}: a name cannot contain control characters")


class BoundedPool:
    """``workers`` threads for CPU work, and at most ``queue`` more calls waiting for one."""

    def __init__(self, workers: int, queue: int, name: str = "gonuts-work") -> None:
        if workers < 1 or queue < 0:
            raise ValueError("a pool needs at least one worker and a queue of 0 or more")
        self.executor = ThreadPoolExecutor(workers, thread_name_prefix=name)
        self.capacity = workers + queue
        self.busy = 0

    async def run(self, fn: Callable[..., T], *args: object) -> T:
        """``fn(*args)`` in a worker thread; 429 ``rate_limited`` if the pool is full."""
        if self.busy >= self.capacity:
            raise ServiceError(ErrorCode.RATE_LIMITED, "the server is busy; try again", 429)
        self.busy += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self.executor, fn, *args)
        finally:
            self.busy -= 1

    def close(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)


__all__ = ["BoundedPool", "check_record_names"]


class Periodic:
    """A pass run every ``every`` seconds in the background until :meth:`close` (the deadline
    sweeper, the notification dispatcher): a failed pass is logged and the next one tries
    again (a database away for a while stops nothing for good). Subclasses define ``_pass``."""

    every: float
    what = "a periodic pass"
    log: logging.Logger = logging.getLogger("gonuts.server")
    _task: asyncio.Task[None] | None = None

    async def _pass(self) -> object:
        raise NotImplementedError

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.ensure_future(self._run())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _run(self) -> None:
        while True:
            try:
                await self._pass()
            except asyncio.CancelledError:
                raise
            except Exception:  # (the database away: the next pass tries again)
                self.log.exception("%s failed", self.what)
            await asyncio.sleep(self.every)
