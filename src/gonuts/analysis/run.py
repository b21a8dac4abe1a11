"""Run chunks of games here, in worker processes or on a Ray cluster, and merge their tallies.

The tallies are merged in chunk order whatever order the chunks finish in, so a seed gives the
same numbers with one job, many jobs or Ray.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from gonuts.analysis.simulate import Tally, Task, run_task
from gonuts.bots.arena import ray_map, worker_context

Progress = Callable[[int], None]
"""Called with the number of games each finished chunk played."""


def _local(tasks: Sequence[Task], jobs: int) -> Iterator[tuple[Task, Tally]]:
    if jobs <= 1:
        for task in tasks:
            yield run_task(task)
        return
    ctx = worker_context()
    with ctx.Pool(jobs) as pool:
        yield from pool.imap_unordered(run_task, tasks)


def _ray(tasks: Sequence[Task], address: str) -> Iterator[tuple[Task, Tally]]:
    """The arena's approach: one remote call per chunk, results as they finish."""
    return ray_map(run_task, [(task,) for task in tasks], address)


def run_tasks(
    tasks: Sequence[Task],
    *,
    jobs: int = 1,
    ray_address: str | None = None,
    progress: Progress | None = None,
) -> dict[tuple[int, tuple[str, ...]], Tally]:
    """Play every task; one merged tally per (player count, variants)."""
    source = _ray(tasks, ray_address) if ray_address is not None else _local(tasks, jobs)
    finished: dict[Task, Tally] = {}
    for task, tally in source:
        finished[task] = tally
        if progress is not None:
            progress(task.count)
    merged: dict[tuple[int, tuple[str, ...]], Tally] = {}
    for task in tasks:  # merge in chunk order: the result does not depend on finishing order
        key = (task.players, task.variants)
        if key not in merged:
            merged[key] = Tally(task.players)
        merged[key].merge(finished[task])
    return merged
