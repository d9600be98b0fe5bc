"""A large course's lessons loaded and rendered over the machine's cores, in forked processes; a small one in this one.

Forked children inherit the parent's memory: the state every job reads (the loaded lessons, the site's data, the lab
runner) is handed to them that way, as `shared`, and only each job and its result are pickled. A job's function is
called as fn(shared, job), in order, with the results in the order of the jobs, as a serial loop would give them.
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
                done: Callable[[Any], None] | None = None) -> list[Any]:
    """[fn(shared, job) for job in jobs], over the machine's cores for many jobs.

    `done(shared)` runs in each forked child after its chunk (to release what the child started); the caller runs
    it for the serial case.
    """
    global _forked
    workers = min(os.cpu_count() or 1, MAX_WORKERS, len(jobs) // (PARALLEL_FROM // 2) or 1)
    if len(jobs) < PARALLEL_FROM or workers < 2 or "fork" not in mp.get_all_start_methods():
        return [fn(shared, job) for job in jobs]
    chunks = [jobs[start::workers] for start in range(workers)]
    _forked = (fn, shared, done)
    try:
        with mp.get_context("fork").Pool(workers) as pool:
            results = pool.map(_run_chunk, chunks)
    finally:
        _forked = None
    merged: list[Any] = [None] * len(jobs)
    for start, chunk in enumerate(results):
        merged[start::workers] = chunk
    return merged


def _run_chunk(chunk: list[Any]) -> list[Any]:
    """In a forked child: the call's fn over one chunk of jobs, then its `done`."""
    assert _forked is not None, "a forked child sees the call that forked it"
    fn, shared, done = _forked
    try:
        return [fn(shared, job) for job in chunk]
    finally:
        if done is not None:
            done(shared)
