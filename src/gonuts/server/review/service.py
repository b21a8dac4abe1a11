"""Reviews of finished games: :func:`gonuts.review.review_record` run in the background, bounded,
its progress kept for the client to poll, its result cached in the database.

* One review per game and analyser: the first request starts it, later ones (from any tab)
  see the same job's progress, and once done every request is answered from the database.
* Bounded: at most ``workers`` reviews run and ``queue`` more wait; a request beyond that is
  refused with 503 ``review_busy`` (the client says so and may try again). The analyser and
  its budget are the server's (``Settings.review_bot``), never the client's.
* Where: with ``processes`` (what ``gonuts serve`` does whenever bots think in processes) in
  worker processes of a pool of their own, started at the first review ("spawn", as the
  bots' :class:`~gonuts.server.kernel.thinking.Thinker`): a review holds the GIL for seconds,
  which in a thread of the server would slow every request. Without (tests, tiny installs), in
  threads. Progress comes back through a queue, and a stop through a shared flag per job.
* A review whose client stopped asking for ``abandon_after`` seconds is cancelled (the library
  checks ``cancelled()`` before each decision), and so is every review at shutdown.
* Only a finished game can be reviewed (``not_finished`` otherwise): its picks are public by
  then, though each decision is still judged on what its seat knew (docs/review.md).
"""

from __future__ import annotations

import asyncio
import importlib.util
import itertools
import json
import logging
import multiprocessing
import os
import queue as queues
import threading
import time
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Protocol

from gonuts.record import Record
from gonuts.server.games.service import Games
from gonuts.server.kernel.errors import ErrorCode, ServiceError
from gonuts.server.review.store import ReviewStore

log = logging.getLogger("gonuts.server")
E = ErrorCode

DEFAULT_REVIEW_BOT: Final = "neural-mixed:128"
"""The server's analyser: the CLI's judge at a quarter of its budget (``neural-mixed:512``),
about 5 s of CPU for a 4-player game and 12 s for a 6-player one (docs/review.md, "In the
browser"); a review is computed once per game and kept, so a player never sees two."""
SEED: Final = 0
FLAGS: Final = 64
"""Shared stop flags, one per job number modulo this (far more than reviews at once)."""
Status = Literal["none", "running", "done", "failed"]


# -- what a worker does ------------------------------------------------------------------------


class Channel(Protocol):
    """How a running review reports progress and learns that it should stop."""

    def progress(self, job: int, done: int, total: int) -> None: ...

    def cancelled(self, job: int) -> bool: ...


class ProcessChannel:
    """A worker process's channel: progress into a queue the server reads, stops from an
    array of job numbers the server writes (and one event for all at shutdown)."""

    def __init__(self, progress: Any, stop: Any, closing: Any) -> None:
        self.queue, self.stop, self.closing = progress, stop, closing

    def progress(self, job: int, done: int, total: int) -> None:
        self.queue.put((job, done, total))

    def cancelled(self, job: int) -> bool:
        return bool(self.closing.is_set() or self.stop[job % FLAGS] == job)


WORKER_CHANNEL: list[ProcessChannel] = []
"""In a review process: its channel (set once by :func:`start_worker`)."""


def start_worker(progress: Any, stop: Any, closing: Any) -> None:
    """A review process's initializer: its channel, and exit when the server dies."""
    WORKER_CHANNEL.append(ProcessChannel(progress, stop, closing))
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="gonuts-parent-watch", daemon=True).start()


def run_review(
    job: int, record_text: str, analyser: str, seed: int, channel: Channel | None = None
) -> str | None:
    """The review's JSON text, or None when it was stopped (in a worker thread or process)."""
    # here, not at the top: the analyser needs NumPy, which a web-only install lacks
    from gonuts.review import ReviewCancelledError, parse_analyser, review_record  # noqa: PLC0415

    link: Channel = channel if channel is not None else WORKER_CHANNEL[0]
    try:
        review = review_record(
            Record.from_json(record_text),
            analyser=parse_analyser(analyser),
            seed=seed,
            progress=lambda done, total: link.progress(job, done, total),
            cancelled=lambda: link.cancelled(job),
        )
    except ReviewCancelledError:
        return None
    return json.dumps(review.to_dict())


# -- the server's side ---------------------------------------------------------------------------


@dataclass(eq=False)
class ReviewJob:
    """One review being computed: its progress (written from the worker's reports)."""

    id: int
    done: int = 0
    total: int = 0
    failed: bool = False
    finished: bool = False
    stop: bool = False
    seen: float = field(default_factory=time.monotonic)
    """When a client last asked about it (a review nobody asks about is stopped)."""
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
        processes: bool = False,
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
        self.processes = processes
        self.abandon_after = abandon_after
        self.jobs: dict[str, ReviewJob] = {}
        self.by_id: dict[int, ReviewJob] = {}
        self.numbers = itertools.count(1)
        self.executor: Executor | None = None
        self.closing = threading.Event()
        self.shared: tuple[Any, Any, Any] | None = None
        """Process mode: the progress queue, the stop flags, the shutdown event."""
        self.reader: threading.Thread | None = None

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

        503 ``review_busy`` when the workers and the queue are full, 503
        ``review_unavailable`` when this server cannot review (no NumPy)."""
        answer = self.state(game_id)
        if answer["status"] in ("running", "done"):
            return answer
        if not reviews_available():
            raise ServiceError(E.REVIEW_UNAVAILABLE, None, 503)
        if self.busy() >= self.capacity:
            raise ServiceError(E.REVIEW_BUSY, None, 503)
        record_text = self.games.record_text(game_id)
        job = ReviewJob(next(self.numbers))
        self.jobs[game_id] = self.by_id[job.id] = job
        job.task = asyncio.ensure_future(self._compute(game_id, record_text, job))
        return self._answer("running", job)

    def busy(self) -> int:
        """Reviews running or waiting."""
        return sum(not j.finished for j in self.jobs.values())

    def close(self) -> None:
        """Stop every review (each before its next decision) and the workers."""
        self.closing.set()
        if self.shared is not None:
            self.shared[2].set()
            self.shared[0].put(None)  # the reader stops
        if self.executor is not None:
            self.executor.shutdown(wait=False, cancel_futures=True)
            self.executor = None
        self.shared = None
        self.reader = None

    # -- running one ---------------------------------------------------------------------------

    async def _compute(self, game_id: str, record_text: str, job: ReviewJob) -> None:
        loop = asyncio.get_running_loop()
        started = time.perf_counter()
        executor = self._pool()
        channel = None if self.processes else ThreadChannel(self)
        try:
            result = await loop.run_in_executor(
                executor, run_review, job.id, record_text, self.analyser, SEED, channel
            )
        except BrokenProcessPool:  # a worker died: a new pool for the next review
            job.failed = True
            log.warning("a review worker died reviewing %s; starting a new pool", game_id)
            if self.executor is executor:
                self.close()
                self.closing.clear()
        except Exception as exc:  # a stored record the analyser cannot read: say so once
            job.failed = True
            log.warning("review of %s failed (%s: %s)", game_id, type(exc).__name__, exc)
        else:
            if result is None:
                log.info("review of %s stopped after %d of %d", game_id, job.done, job.total)
            else:
                await asyncio.to_thread(
                    self.store.save_review, game_id, self.key, record_text, result
                )
                took = time.perf_counter() - started
                log.info("review of %s by %s in %.1f s", game_id, self.analyser, took)
        finally:
            self._forget(game_id, job)

    def _forget(self, game_id: str, job: ReviewJob) -> None:
        """The job ended (done, stopped or failed): its slot is free; a failure stays to be
        told once, a success is in the database."""
        job.finished = True
        self.by_id.pop(job.id, None)
        if not job.failed and self.jobs.get(game_id) is job:
            del self.jobs[game_id]

    def report(self, job_id: int, done: int, total: int) -> bool:
        """A worker's progress (from any thread); whether that review should stop (nobody
        asked about it for :attr:`abandon_after` seconds, or the server is closing)."""
        job = self.by_id.get(job_id)
        if job is None:
            return True
        job.done, job.total = done, total
        if time.monotonic() - job.seen > self.abandon_after:
            job.stop = True
            if self.shared is not None:
                self.shared[1][job_id % FLAGS] = job_id
        return job.stop or self.closing.is_set()

    def _pool(self) -> Executor:
        if self.executor is None:
            self.closing.clear()
            if self.processes:
                context = multiprocessing.get_context("spawn")
                progress, stop, closing = (
                    context.Queue(),
                    context.Array("q", FLAGS),
                    context.Event(),
                )
                self.shared = (progress, stop, closing)
                self.executor = ProcessPoolExecutor(
                    self.workers,
                    mp_context=context,
                    initializer=start_worker,
                    initargs=(progress, stop, closing),
                )
                self.reader = threading.Thread(
                    target=self._read, args=(progress,), name="gonuts-review-progress", daemon=True
                )
                self.reader.start()
            else:
                self.executor = ThreadPoolExecutor(self.workers, thread_name_prefix="gonuts-review")
        return self.executor

    def _read(self, progress: Any) -> None:
        """Process mode: the workers' progress reports, until :meth:`close`."""
        while True:
            try:
                item = progress.get(timeout=5.0)
            except queues.Empty:
                if self.closing.is_set():
                    return
                continue
            except (EOFError, OSError):
                return
            if item is None:
                return
            self.report(*item)

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


class ThreadChannel:
    """A worker thread's channel: straight to the server's jobs."""

    def __init__(self, reviews: Reviews) -> None:
        self.reviews = reviews

    def progress(self, job: int, done: int, total: int) -> None:
        self.reviews.report(job, done, total)

    def cancelled(self, job: int) -> bool:
        found = self.reviews.by_id.get(job)
        return found is None or found.stop or self.reviews.closing.is_set()


__all__ = [
    "DEFAULT_REVIEW_BOT",
    "ReviewJob",
    "Reviews",
    "reviews_available",
    "run_review",
]
