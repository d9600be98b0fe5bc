"""lessonkit.pipeline.parallel: jobs dealt to forked children by their cost, results in the jobs' order."""

from __future__ import annotations

import os

import pytest

from lessonkit.pipeline import parallel


def test_the_costliest_jobs_are_dealt_first_each_to_the_least_loaded_child() -> None:
    # One large lesson among small ones: it gets a child of its own until the others catch up.
    assert parallel.deal(6, 2, [1, 1, 9, 1, 1, 1]) == [[2], [0, 1, 3, 4, 5]]
    # Every fourth lesson twice the size of the rest (a stride would give one child all the large ones).
    costs = [2 if n % 4 == 2 else 1 for n in range(8)]
    chunks = parallel.deal(8, 2, costs)
    assert [sum(costs[n] for n in chunk) for chunk in chunks] == [5, 5]
    assert sorted(n for chunk in chunks for n in chunk) == list(range(8))
    assert all(chunk == sorted(chunk) for chunk in chunks)  # each child runs its jobs in the jobs' own order


def test_equal_costs_keep_the_jobs_order_and_fill_every_child() -> None:
    assert parallel.deal(5, 2, [1.0] * 5) == [[0, 2, 4], [1, 3]]
    assert parallel.deal(2, 3, [1.0, 1.0]) == [[0], [1], []]


def _square_in_child(shared: int, job: int) -> tuple[int, int]:
    return job * job + shared, os.getpid()


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: the jobs run in this process")
def test_results_come_back_in_the_jobs_order_whatever_child_ran_them() -> None:
    jobs = list(range(parallel.PARALLEL_FROM * 2))
    results = parallel.in_parallel(_square_in_child, 1, jobs, cost=lambda job: 100 if job % 5 == 0 else 1)
    assert [value for value, _ in results] == [job * job + 1 for job in jobs]
    assert os.getpid() not in {pid for _, pid in results}  # forked children ran them (either may run both chunks)
