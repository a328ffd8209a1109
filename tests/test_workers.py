"""The parse pool's ``meanwhile`` hook: the caller's own work overlaps the workers' parse.

Real worker processes (forked, as a scan forks them); the work is a small module-level
function so that the test is about the pool, not about a grammar."""

from __future__ import annotations

import multiprocessing as mp
import os
from dataclasses import dataclass
from typing import Any

import pytest

from znt.index import workers


@dataclass(frozen=True)
class Job:
    n: int
    path: str = "job"
    sink: str = ""  # no row files: the pool cuts nothing back after a crash


def _double(job: Job) -> tuple[int, dict[str, int]]:
    if job.n < 0:
        os._exit(3)  # a worker that dies on this job, as a crashing grammar would
    return job.n * 2, {}


def _failed(job: Job, reason: str) -> tuple[str, int]:
    return ("failed", job.n)


def _jobs(*ns: int) -> list[Job]:
    return [Job(n) for n in ns]


@pytest.fixture(autouse=True)
def forked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workers, "_context", lambda: mp.get_context("fork"))


def test_meanwhile_runs_once_while_the_workers_hold_their_jobs() -> None:
    pool = workers.Pool(1, _failed, work=_double)
    events: list[Any] = []

    def meanwhile() -> None:
        alive = [w.process.is_alive() for w in pool.workers]
        queued = sum(len(w.queue) for w in pool.workers)
        events.append(("meanwhile", alive, queued))

    for res in pool.run(_jobs(1, 2, 3), meanwhile):
        events.append(res)
    assert events[0] == ("meanwhile", [True], 3)
    assert sorted(events[1:]) == [2, 4, 6]
    assert [e for e in events if isinstance(e, tuple)] == [events[0]]


def test_a_worker_that_dies_after_meanwhile_is_replaced_and_the_rest_finish() -> None:
    pool = workers.Pool(1, _failed, work=_double)
    calls: list[int] = []
    results = list(pool.run(_jobs(5, -1, 7), lambda: calls.append(1)))
    assert calls == [1]
    assert sorted(results, key=str) == sorted([10, ("failed", -1), 14], key=str)


def test_without_meanwhile_the_pool_behaves_as_before() -> None:
    pool = workers.Pool(2, _failed, work=_double)
    assert sorted(pool.run(_jobs(*range(20)))) == [2 * i for i in range(20)]


def test_on_lost_runs_before_a_replacement_worker_is_forked() -> None:
    """The scanner opens the index (DuckDB's threads) in ``meanwhile`` on a small rescan;
    ``on_lost`` must close it before a worker is forked to replace a dead one."""
    events: list[str] = []
    pool = workers.Pool(1, _failed, work=_double, on_lost=lambda: events.append("lost"))
    spawn = pool._spawn

    def recorded_spawn() -> Any:
        events.append("spawn")
        return spawn()

    pool._spawn = recorded_spawn  # type: ignore[method-assign]
    results = list(pool.run(_jobs(5, -1, 7), lambda: events.append("meanwhile")))
    assert sorted(results, key=str) == sorted([10, ("failed", -1), 14], key=str)
    assert events == ["spawn", "meanwhile", "lost", "spawn"]


def _collector_settings(job: Job) -> tuple[tuple[int, int], dict[str, int]]:
    import gc

    return (gc.get_threshold()[0], gc.get_freeze_count()), {}


def test_a_worker_collects_garbage_rarely_and_never_walks_what_it_inherited() -> None:
    """The collector's default thresholds cost a parse worker ~7% of its CPU
    (``workers._quiet_collector``)."""
    pool = workers.Pool(1, _failed, work=_collector_settings)
    [(threshold, frozen)] = list(pool.run(_jobs(1)))
    assert threshold == workers.GC_FIRST_THRESHOLD
    assert frozen > 1000  # the modules and objects forked from this process
