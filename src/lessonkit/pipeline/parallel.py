"""A large course's lessons rendered over the machine's cores, in forked processes; a small course's in this one.

Forked children inherit the parent's memory: the state every job reads (the loaded lessons, the site's data, the lab
runner) is handed to them that way, as `shared`, and only each job and its result are pickled. A job's function is
called as fn(shared, job), with the results in the order of the jobs, as a serial loop would give them.

Jobs are dealt to the children by their estimated `cost` (the largest first, each to the child with the least so
far): lessons differ several-fold in what they cost to render, and a child dealt every large one finishes last.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Callable
from typing import Any

PARALLEL_FROM = 24  # jobs (lessons): below this a second process costs more than it saves
MAX_WORKERS = 8

# What forked children read: (fn, shared, done) of the call in progress, set just before the pool forks.
_forked: tuple[Callable[[Any, Any], Any], Any, Callable[[Any], None] | None] | None = None


def in_parallel(fn: Callable[[Any, Any], Any], shared: Any, jobs: list[Any],
                done: Callable[[Any], None] | None = None, cost: Callable[[Any], float] | None = None) -> list[Any]:
    """[fn(shared, job) for job in jobs], over the machine's cores for many jobs.

    `done(shared)` runs in each forked child after its chunk (to release what the child started); the caller runs
    it for the serial case. `cost(job)`: an estimate of what the job costs (None: all alike).
    """
    global _forked
    workers = min(os.cpu_count() or 1, MAX_WORKERS, len(jobs) // (PARALLEL_FROM // 2) or 1)
    if len(jobs) < PARALLEL_FROM or workers < 2 or "fork" not in mp.get_all_start_methods():
        return [fn(shared, job) for job in jobs]
    dealt = deal(len(jobs), workers, [cost(job) for job in jobs] if cost is not None else [1.0] * len(jobs))
    _forked = (fn, shared, done)
    try:
        with mp.get_context("fork").Pool(workers) as pool:
            results = pool.map(_run_chunk, [[jobs[n] for n in chunk] for chunk in dealt])
    finally:
        _forked = None
    merged: list[Any] = [None] * len(jobs)
    for chunk, done_chunk in zip(dealt, results, strict=True):
        for n, result in zip(chunk, done_chunk, strict=True):
            merged[n] = result
    return merged


def deal(count: int, workers: int, costs: list[float]) -> list[list[int]]:
    """The positions of `count` jobs dealt to `workers` children: the costliest first, each to the child with the
    least cost so far (the first such child on a tie); each child's positions in the jobs' own order."""
    loads = [0.0] * workers
    chunks: list[list[int]] = [[] for _ in range(workers)]
    for n in sorted(range(count), key=lambda n: -costs[n]):  # a stable sort: equal costs keep the jobs' order
        child = loads.index(min(loads))
        chunks[child].append(n)
        loads[child] += costs[n]
    return [sorted(chunk) for chunk in chunks]


def _run_chunk(chunk: list[Any]) -> list[Any]:
    """In a forked child: the call's fn over one chunk of jobs, then its `done`."""
    assert _forked is not None, "a forked child sees the call that forked it"
    fn, shared, done = _forked
    try:
        return [fn(shared, job) for job in chunk]
    finally:
        if done is not None:
            done(shared)
