"""Reviews of finished games: :func:`gonuts.review.review_record` run in the background, bounded,
its progress kept for the client to poll, its result cached in the database.

* One review per game and analyser: the first request starts it, later ones (from any tab)
  see the same job's progress, and once done every request is answered from the database.
* Bounded: at most ``workers`` reviews run (threads of a pool of their own, so the replays'
  and the bots' pools never wait for one) and ``queue`` more wait; a request beyond that is
  refused with 503 ``review_busy`` (the client says so and may try again). The analyser's
  budget is the server's (``Settings.review_bot``), never the client's.
* A review whose client stopped asking for ``abandon_after`` seconds is cancelled (the
  library checks ``cancelled()`` before each decision), and so is every review at shutdown.
* Only a finished game can be reviewed (``not_finished`` otherwise): its picks are public by
  then, though each decision is still judged on what its seat knew (docs/review.md).
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from gonuts.record import Record
from gonuts.server.games.service import Games
from gonuts.server.kernel.errors import ErrorCode, ServiceError
from gonuts.server.review.store import ReviewStore

log = logging.getLogger("gonuts.server")
E = ErrorCode

DEFAULT_REVIEW_BOT: Final = "neural:32"
"""The server's analyser: a quarter of the CLI's default budget (``neural:128``), about 4 s
of CPU for a 4-player game (docs/review.md, "In the browser")."""
SEED: Final = 0
Status = Literal["none", "running", "done", "failed"]


@dataclass(eq=False)
class ReviewJob:
    """One review being computed: its progress (written by the worker thread)."""

    done: int = 0
    total: int = 0
    failed: bool = False
    finished: bool = False
    seen: float = field(default_factory=time.monotonic)
    """When a client last asked about it (a review nobody asks about is cancelled)."""
    task: asyncio.Future[None] | None = None


def reviews_available() -> bool:
    """Whether the analyser can run here (it needs NumPy: the ``research`` extra)."""
    return importlib.util.find_spec("numpy") is not None


class Reviews:
    """Reviews of finished games for the browser (``/api/games/{id}/review``)."""

    def __init__(
        self,
        store: ReviewStore,
        games: Games,
        *,
        analyser: str = DEFAULT_REVIEW_BOT,
        workers: int = 1,
        queue: int = 2,
        abandon_after: float = 60.0,
    ) -> None:
        if workers < 1 or queue < 0:
            raise ValueError("reviews need at least one worker and a queue of 0 or more")
        self.store = store
        self.games = games
        self.analyser = analyser
        self.key = f"{analyser}/{SEED}"
        """The cache key of this server's reviews: the analyser and its seed."""
        self.capacity = workers + queue
        self.workers = workers
        self.abandon_after = abandon_after
        self.jobs: dict[str, ReviewJob] = {}
        self.closing = threading.Event()
        self.executor: ThreadPoolExecutor | None = None

    # -- what the routes ask -----------------------------------------------------------------

    def state(self, game_id: str) -> dict[str, Any]:
        """The review of a finished game as it stands: ``done`` (from the database), ``running``
        with its progress, ``failed``, or ``none`` (never asked for)."""
        record_text = self.games.record_text(game_id)  # not_finished / unknown_table
        job = self.jobs.get(game_id)
        if job is not None and not job.finished:
            job.seen = time.monotonic()
            return self._answer("running", job)
        stored = self.store.review(game_id, self.key, record_text)
        if stored is not None:
            return self._answer("done", None, json.loads(stored))
        if job is not None and job.failed:
            return self._answer("failed", job)
        return self._answer("none", None)

    def request(self, game_id: str) -> dict[str, Any]:
        """Start the review of a finished game unless it is done or running; its state.

        503 ``review_busy`` when the pool and its queue are full, 503 ``review_unavailable``
        when this server cannot review (no NumPy)."""
        answer = self.state(game_id)
        if answer["status"] in ("running", "done"):
            return answer
        if not reviews_available():
            raise ServiceError(E.REVIEW_UNAVAILABLE, None, 503)
        if sum(not j.finished for j in self.jobs.values()) >= self.capacity:
            raise ServiceError(E.REVIEW_BUSY, None, 503)
        record_text = self.games.record_text(game_id)
        job = self.jobs[game_id] = ReviewJob()
        loop = asyncio.get_running_loop()
        job.task = loop.run_in_executor(self._pool(), self._run, game_id, record_text, job)
        job.task.add_done_callback(lambda _f: self._forget(game_id, job))
        return self._answer("running", job)

    def busy(self) -> int:
        """Reviews running or waiting."""
        return sum(not j.finished for j in self.jobs.values())

    def close(self) -> None:
        """Cancel every review (each stops before its next decision) and stop the pool."""
        self.closing.set()
        if self.executor is not None:
            self.executor.shutdown(wait=False, cancel_futures=True)
            self.executor = None

    # -- in a worker thread ------------------------------------------------------------------

    def _pool(self) -> ThreadPoolExecutor:
        if self.executor is None:
            self.closing.clear()
            self.executor = ThreadPoolExecutor(self.workers, thread_name_prefix="gonuts-review")
        return self.executor

    def _run(self, game_id: str, record_text: str, job: ReviewJob) -> None:
        # here, not at the top: the analyser needs NumPy, which a web-only install lacks
        from gonuts.review import (  # noqa: PLC0415
            ReviewCancelledError,
            parse_analyser,
            review_record,
        )

        def progress(done: int, total: int) -> None:
            job.done, job.total = done, total

        def cancelled() -> bool:
            return self.closing.is_set() or time.monotonic() - job.seen > self.abandon_after

        started = time.perf_counter()
        try:
            review = review_record(
                Record.from_json(record_text),
                analyser=parse_analyser(self.analyser),
                seed=SEED,
                progress=progress,
                cancelled=cancelled,
            )
        except ReviewCancelledError:
            log.info("review of %s cancelled after %d of %d", game_id, job.done, job.total)
            return
        except Exception as exc:  # a stored record the analyser cannot read: say so once
            job.failed = True
            log.warning("review of %s failed (%s: %s)", game_id, type(exc).__name__, exc)
            return
        self.store.save_review(game_id, self.key, record_text, json.dumps(review.to_dict()))
        took = time.perf_counter() - started
        log.info("review of %s by %s in %.1f s", game_id, self.analyser, took)

    def _forget(self, game_id: str, job: ReviewJob) -> None:
        """The job ended (done, cancelled or failed): its slot is free; a failure stays to be
        told once, a success is in the database."""
        job.finished = True
        if not job.failed and self.jobs.get(game_id) is job:
            del self.jobs[game_id]

    def _answer(
        self, status: Status, job: ReviewJob | None, review: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        return {
            "status": status,
            "analyser": self.analyser,
            "done": job.done if job is not None else 0,
            "total": job.total if job is not None else 0,
            "review": review,
        }


__all__ = ["DEFAULT_REVIEW_BOT", "ReviewJob", "Reviews", "reviews_available"]
