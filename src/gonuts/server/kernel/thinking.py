"""Bot decisions and hints off the server's interpreter: worker processes and a fair queue.

A search holds the GIL, so bots thinking in threads of the server process slowed every
request and got a sliver of a core each (docs/server.md, "Bots and hints"). A
:class:`Thinker` runs them in a pool of worker processes (``concurrent.futures``, started with
"spawn": never fork a process that has a running event loop and threads), or, with
``workers=0``, in a few threads of this process (tests, tiny installs).

* What crosses to a worker is small and picklable: a :class:`Job` (the seat's
  :class:`~gonuts.view.PlayerView`, the bot level, a seed, a budget). The worker builds the bot
  afresh for each decision (cheap: a bot keeps nothing but a seeded RNG) and answers the
  action's notation or the hint's JSON-ready dict.
* The queue is fair and bounded. Jobs wait per table (its key) and tables take turns
  (round-robin), so one table's flood of requests cannot starve another table; when both bot
  decisions and hints wait, the two kinds take turns too. At most ``queue`` jobs wait: a new
  hint request beyond that is refused (:class:`HintUnavailableError`), a bot decision waits
  for room (at most one per bot of a table: a table's bots think at once, issue 25), so the
  queue never grows without bound.
* A crashed worker (``BrokenProcessPool``) is replaced and the job tried once more. A job that
  fails anyway, raises or overruns ``timeout`` is logged in one line; a bot decision then falls
  back to the cheap ``fallback`` bot in this process, so a table never gets stuck. A worker
  exits by itself when the server process dies.
* Optionally the jobs run as tasks of a Ray cluster instead (:class:`RayExecutor`), through
  the same queue.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import multiprocessing
import os
import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing.reduction import ForkingPickler
from types import MappingProxyType
from typing import Any, Final, Literal, TypeVar

from gonuts.actions import Action, parse_action
from gonuts.bots import hint, make_bot
from gonuts.server.kernel.metrics import Metrics
from gonuts.view import PlayerView

log = logging.getLogger("gonuts.server")

WORKERS_ENV: Final = "GONUTS_THINK_WORKERS"
IN_PROCESS_THREADS: Final = 2
"""Threads that think when ``workers`` is 0."""
FALLBACK_LEVEL: Final = "medium"
"""The bot that decides when the workers cannot (greedy: a few milliseconds)."""

T = TypeVar("T")
Kind = Literal["bot", "hint"]
KINDS: Final[tuple[Kind, ...]] = ("bot", "hint")


def default_workers() -> int:
    """One worker per core but one (left to the server's event loop), at least one."""
    return max(1, (os.cpu_count() or 1) - 1)


def workers_from_env(environ: Mapping[str, str] = os.environ) -> int:
    """``$GONUTS_THINK_WORKERS`` (0: threads in-process), else :func:`default_workers`.

    ``ValueError`` naming the variable when it is not a whole number ≥ 0."""
    raw = environ.get(WORKERS_ENV, "").strip()
    if not raw:
        return default_workers()
    if not raw.isdigit():
        raise ValueError(f"{WORKERS_ENV}={raw!r} is not a whole number ≥ 0 (0: in-process)")
    return int(raw)


# -- what a worker does ----------------------------------------------------------------------------


def _mapping(items: dict[str, int]) -> MappingProxyType[str, int]:
    return MappingProxyType(items)


def _reduce_mapping(proxy: MappingProxyType[str, int]) -> tuple[Any, tuple[dict[str, int]]]:
    return _mapping, (dict(proxy),)


# A view's collections are read-only mappings, which pickle cannot copy by itself; teach the
# pickler of multiprocessing (only that one) to send them as plain dicts.
ForkingPickler.register(MappingProxyType, _reduce_mapping)


@dataclass(frozen=True, slots=True)
class Job:
    """One decision or hint, as sent to a worker."""

    kind: Kind
    view: PlayerView
    seed: int
    level: str = FALLBACK_LEVEL
    """The bot (a :func:`~gonuts.bots.make_bot` name) of a decision."""
    iterations: int = 300
    """The search budget of a hint."""


def think(job: Job) -> Any:
    """In a worker: the chosen action's notation, or the hint as a dict (None: no decision)."""
    if job.kind == "bot":
        return make_bot(job.level, job.seed).choose(job.view).notation
    try:
        return hint(job.view, iterations=job.iterations, seed=job.seed).to_dict()
    except ValueError:  # the seat has no decision to take (the game moved on)
        return None


PARENT_POLL: Final = 1.0
"""Seconds between a worker's looks at whether the server that started it is still there."""


def _exit_with_parent() -> None:
    """A worker's initializer: exit when the server process dies (even by SIGKILL), instead
    of waiting forever, orphaned, for jobs (its queue's pipe never reports the end)."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL)
        os._exit(0)

    threading.Thread(target=watch, name="gonuts-parent-watch", daemon=True).start()


def _ready() -> int:
    """A no-op that makes a worker start and import the bots before the first real job."""
    return os.getpid()


class RayExecutor(Executor):
    """Jobs as tasks of a Ray cluster (the optional extra ``gonuts[ray]``), for installs whose
    bots need more cores than one machine has. ``address`` names the cluster; empty starts a
    local one (shut down again at :meth:`shutdown`). Every node needs gonuts installed."""

    def __init__(self, address: str) -> None:
        ray: Any = importlib.import_module("ray")
        self.ray = ray
        self.started = not ray.is_initialized()
        if self.started:
            if address:
                ray.init(address=address, log_to_driver=False)
            else:
                ray.init(log_to_driver=False, include_dashboard=False)
        self.remote: dict[Callable[..., Any], Any] = {}

    def cpus(self) -> int:
        """The cluster's CPUs: jobs worth sending at once."""
        return max(1, int(self.ray.cluster_resources().get("CPU", 1)))

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        remote = self.remote.get(fn)
        if remote is None:
            remote = self.remote[fn] = self.ray.remote(fn)
        future: Future[T] = remote.remote(*args, **kwargs).future()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if self.started:
            self.ray.shutdown()
            self.started = False


# -- the queue -------------------------------------------------------------------------------------


class HintUnavailableError(Exception):
    """No hint now: the queue is full, or the worker failed; the client may ask again later."""


@dataclass(eq=False)
class _Pending:
    job: Job
    key: str
    future: asyncio.Future[Any]
    stale: Callable[[], bool] | None
    queued: float = field(default_factory=time.perf_counter)


class Thinker:
    """Worker processes (or threads) for bot decisions and hints, behind a fair bounded queue.

    ``workers``: processes (0: :data:`IN_PROCESS_THREADS` threads of this process);
    ``queue``: jobs that may wait (default 4 per worker, at least 16); ``timeout``: seconds a
    job may take before its table stops waiting for it. ``ray``: think on a Ray cluster
    instead (its address; empty: a local one), ``workers`` jobs at once (0: one per CPU of the
    cluster).
    """

    def __init__(
        self,
        workers: int = 0,
        *,
        queue: int | None = None,
        metrics: Metrics | None = None,
        timeout: float = 60.0,
        fallback: str = FALLBACK_LEVEL,
        ray: str | None = None,
    ) -> None:
        if workers < 0:
            raise ValueError("workers must be 0 (threads in-process) or more")
        self.workers = workers
        self.ray = ray
        self.slots = workers or IN_PROCESS_THREADS
        self.queue = queue
        self.capacity = queue if queue is not None else max(16, 4 * self.slots)
        if self.capacity < 1:
            raise ValueError("the queue must hold at least one job")
        self.timeout = timeout
        self.fallback = fallback
        self.metrics = metrics or Metrics()
        self.metrics.watch_thinking(
            lambda k: self._waiting.get(k, 0), lambda: self.busy, self.slots
        )
        self.busy = 0
        self.pool_starts = 0
        """Pools started so far (more than one: a crashed pool was replaced)."""
        self._rings: dict[Kind, OrderedDict[str, deque[_Pending]]] = {
            k: OrderedDict() for k in KINDS
        }
        self._waiting: dict[str, int] = {k: 0 for k in KINDS}
        self._turn = 0
        self._room = asyncio.Event()
        self._executor: Executor | None = None
        self._closed = False
        self._jobs: set[asyncio.Task[None]] = set()
        self._warming: asyncio.Task[None] | None = None

    # -- the pool ----------------------------------------------------------------------------------

    def _new_executor(self) -> Executor:
        self.pool_starts += 1
        if self.ray is not None:
            return RayExecutor(self.ray)
        if self.workers == 0:
            return ThreadPoolExecutor(self.slots, thread_name_prefix="gonuts-think")
        context = multiprocessing.get_context("spawn")
        return ProcessPoolExecutor(self.workers, mp_context=context, initializer=_exit_with_parent)

    @property
    def executor(self) -> Executor:
        if self._executor is None:
            self._executor = self._new_executor()
        return self._executor

    async def start(self) -> None:
        """Start the workers now, in the background (each imports the bots, a second or more),
        rather than at the first decision; the server answers meanwhile. A closed thinker
        starts again (an app's lifespan may run more than once)."""
        self._closed = False
        self._room = asyncio.Event()  # (of this event loop)
        if self.ray is not None and self._executor is None:
            await self._start_ray()
        elif self.workers and self._warming is None:
            self._warming = asyncio.ensure_future(self._warm())

    async def _warm(self) -> None:
        loop = asyncio.get_running_loop()
        executor = self.executor
        try:
            await asyncio.gather(
                *(loop.run_in_executor(executor, _ready) for _ in range(self.workers))
            )
        except BrokenProcessPool:
            # e.g. a main script without ``if __name__ == "__main__":``, which every spawned
            # process runs again: think in threads rather than not at all
            log.error("the thinking processes could not start; thinking in threads instead")
            executor.shutdown(wait=False, cancel_futures=True)
            self.workers, self.slots, self._executor = 0, IN_PROCESS_THREADS, None
            self.metrics.think_workers.set(self.slots)

    async def _start_ray(self) -> None:
        """Connect to the Ray cluster (in a thread: it takes seconds); threads if it fails."""
        try:
            executor = await asyncio.to_thread(self._new_executor)
        except Exception as exc:  # no ray installed, no cluster at that address, ...
            log.error("Ray could not start (%s); thinking in threads instead", _why(exc))
            self.ray, self.workers, self.slots = None, 0, IN_PROCESS_THREADS
        else:
            self._executor = executor
            if not self.workers and isinstance(executor, RayExecutor):
                self.slots = executor.cpus()
                if self.queue is None:
                    self.capacity = max(16, 4 * self.slots)
        self.metrics.think_workers.set(self.slots)

    def close(self) -> None:
        """Stop the workers; jobs still waiting are cancelled."""
        self._closed = True
        self._room.set()  # bot moves waiting for room stop waiting (and fall back)
        if self._warming is not None:
            self._warming.cancel()
            self._warming = None
        for ring in self._rings.values():
            for jobs in ring.values():
                for p in jobs:
                    p.future.cancel()
            ring.clear()
        self._waiting = {k: 0 for k in KINDS}
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    def _replace(self, broken: Executor) -> None:
        """A worker died: a new pool for the next jobs (once, however many jobs noticed)."""
        if self._executor is broken:
            log.warning("a thinking worker died; starting a new pool")
            broken.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    # -- the queue ---------------------------------------------------------------------------------

    def depth(self, kind: Kind | None = None) -> int:
        """Jobs waiting (not yet running), of one kind or all."""
        return self._waiting[kind] if kind is not None else sum(self._waiting.values())

    def _enqueue(self, p: _Pending) -> None:
        ring = self._rings[p.job.kind]
        ring.setdefault(p.key, deque()).append(p)
        self._waiting[p.job.kind] += 1
        self._pump()

    def _next(self) -> _Pending | None:
        """The next job: tables in turn within a kind, the kinds in turn when both wait."""
        ready = [k for k in KINDS if self._rings[k]]
        if not ready:
            return None
        kind = ready[self._turn % len(ready)]
        self._turn += 1
        ring = self._rings[kind]
        key, jobs = next(iter(ring.items()))
        p = jobs.popleft()
        del ring[key]
        if jobs:
            ring[key] = jobs  # back of the line: the other tables go first
        self._waiting[kind] -= 1
        return p

    def _pump(self) -> None:
        """Start waiting jobs while workers are free."""
        while self.busy < self.slots and not self._closed:
            p = self._next()
            if p is None:
                break
            self._room.set()
            if p.future.cancelled():
                continue
            if p.stale is not None and p.stale():
                p.future.set_result(None)
                continue
            self.busy += 1
            self.metrics.think_wait.labels(p.job.kind).observe(time.perf_counter() - p.queued)
            task = asyncio.ensure_future(self._run(p))
            self._jobs.add(task)
            task.add_done_callback(self._jobs.discard)

    async def _run(self, p: _Pending) -> None:
        try:
            result = await self._compute(p.job)
        except asyncio.CancelledError:
            p.future.cancel()
            raise
        except Exception as exc:  # handed to the waiting table
            if not p.future.done():
                p.future.set_exception(exc)
        else:
            if not p.future.done():
                p.future.set_result(result)
        finally:
            self.busy -= 1
            self._pump()

    async def _compute(self, job: Job) -> Any:
        """``think(job)`` on a worker; a broken pool is replaced and the job sent once more."""
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            executor = self.executor
            try:
                async with asyncio.timeout(self.timeout):
                    return await loop.run_in_executor(executor, think, job)
            except BrokenProcessPool:
                self._replace(executor)
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    async def _submit(self, key: str, job: Job, stale: Callable[[], bool] | None) -> Any:
        if self._closed:
            raise RuntimeError("the thinker is closed")
        p = _Pending(job, key, asyncio.get_running_loop().create_future(), stale)
        self._enqueue(p)
        return await p.future

    # -- what the service asks ---------------------------------------------------------------

    async def decide(
        self, key: str, level: str, view: PlayerView, seed: int | None = None
    ) -> Action:
        """The action of the ``level`` bot at ``view``'s seat, decided by a worker.

        ``key`` is the table: tables take turns. Waits for room in the queue; if the worker
        fails, the :attr:`fallback` bot decides here instead (never raises for that).
        """
        while self.depth() >= self.capacity and not self._closed:
            self._room.clear()
            await self._room.wait()
        seed = secrets.randbits(32) if seed is None else seed
        try:
            notation = await self._submit(key, Job("bot", view, seed, level), None)
            return parse_action(str(notation))
        except Exception as exc:
            self.metrics.think_failures.labels("bot").inc()
            log.warning(
                "bot %s at table %s seat %s failed (%s); the %s bot decides instead",
                level,
                key,
                view.seat,
                _why(exc),
                self.fallback,
            )
            return await asyncio.to_thread(make_bot(self.fallback, seed).choose, view)

    async def hint(
        self,
        key: str,
        view: PlayerView,
        iterations: int,
        seed: int,
        stale: Callable[[], bool] | None = None,
    ) -> dict[str, Any] | None:
        """The hint for ``view``'s seat (``Hint.to_dict()``), or None if ``stale()`` became
        true before a worker took it. :class:`HintUnavailableError` when the queue is full or the
        worker failed."""
        if self.depth() >= self.capacity:
            self.metrics.think_dropped.inc()
            raise HintUnavailableError("the server is busy")
        try:
            result = await self._submit(key, Job("hint", view, seed, iterations=iterations), stale)
        except Exception as exc:
            self.metrics.think_failures.labels("hint").inc()
            log.warning("hint at table %s seat %s failed (%s)", key, view.seat, _why(exc))
            raise HintUnavailableError("the hint failed") from None
        return result if isinstance(result, dict) else None


def _why(exc: BaseException) -> str:
    text = str(exc).splitlines()[0][:120] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


__all__ = [
    "WORKERS_ENV",
    "HintUnavailableError",
    "Job",
    "Thinker",
    "default_workers",
    "think",
    "workers_from_env",
]
