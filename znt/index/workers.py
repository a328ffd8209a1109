"""Parse jobs in child processes that may crash or hang without taking the scan with them.

A grammar is C code fed with the repository's bytes: deep indentation segfaults the YAML
grammar, and a file can be built to make a parse or an extraction run for minutes. So no job
runs in the scanning process. Workers are forked (or started from a fork server where the
scanner has threads of its own: the MCP server) and receive a few jobs at a time; before each
job a worker says which one it starts, and after it, that it is done and how long its row
files (``store.CsvSink``) are. When a worker dies (a signal, an exit) or spends more than
``ZNT_PARSE_TIMEOUT`` seconds (default 60) on one file, the scanner kills it, cuts its row files
back to their length after its last finished job (no half-written row reaches the loader),
records that file as skipped with the reason, and hands the worker's other jobs to a new
worker. Workers ask the kernel to kill them when the scanner dies (``PR_SET_PDEATHSIG``), so a
SIGKILLed scan leaves no worker running.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

DEFAULT_TIMEOUT_S = 60.0
CHUNK = 8  # jobs handed to a worker at a time

Result = Any  # ParsedFile | tuple[str, None], from znt.index.parse


def parse_timeout() -> float:
    try:
        value = float(os.environ.get("ZNT_PARSE_TIMEOUT", "") or DEFAULT_TIMEOUT_S)
    except ValueError:
        value = DEFAULT_TIMEOUT_S
    return max(value, 0.1)


def _die_with_parent(parent: int) -> None:
    """Ask Linux to SIGKILL this process when its parent dies (no-op elsewhere). ``parent``
    is the scanner's pid when the scanner forked this worker itself (0 when a fork server
    did: that server is the parent, and it ends when the scanner does)."""
    with contextlib.suppress(Exception):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    if parent and os.getppid() != parent:  # the parent died before the request was made
        os._exit(1)


def _debug_hang(path: str) -> None:
    """``ZNT_DEBUG_PARSE_HANG=name`` makes the worker hang on files whose path ends with
    ``name``, for the tests of the timeout (a real grammar hang cannot be ordered)."""
    name = os.environ.get("ZNT_DEBUG_PARSE_HANG")
    if name and path.endswith(name):
        while True:
            time.sleep(3600)


# A worker's first garbage-collector generation is collected after this many objects
# (Python's default is 700). See ``_quiet_collector``.
GC_FIRST_THRESHOLD = 50_000


def _quiet_collector() -> None:
    """Make the cyclic garbage collector cheap in a worker. A parse allocates millions of
    short-lived objects (nodes, tuples, terms) that reference counting frees, and keeps
    caches that grow to hundreds of thousands of objects (``lexical._SOURCE_TERMS``,
    ``_IDENT_TERMS``); with Python's thresholds the collector ran ~5,800 times on half of
    the monorepo benchmark's files, 44 of them full collections that walked every cached
    object again: 2.1 of 30.6 s, 7% of the worker's CPU (0.6 of 8.7 s on half of sympy).
    What is inherited from the scanner is frozen (never walked; nor are its pages copied by
    the collector writing to them), and the first generation waits for
    ``GC_FIRST_THRESHOLD`` objects: 9 collections, 0.19 s. Cycles are still collected,
    later: a worker's garbage stays bounded."""
    gc.freeze()
    _gen0, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(GC_FIRST_THRESHOLD, max(gen1, 20), max(gen2, 100))


def _worker_main(
    conn: Any, parent: int, close_fds: tuple[int, ...], work: Callable[[Any], Any]
) -> None:
    _die_with_parent(parent)
    _quiet_collector()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the scanner's to handle
    for fd in close_fds:  # e.g. the scan lock: a worker must never hold it
        with contextlib.suppress(OSError):
            os.close(fd)
    while True:
        try:
            chunk = conn.recv()
        except (EOFError, OSError):
            return
        if chunk is None:
            return
        for index, job in chunk:
            conn.send(("start", index))
            _debug_hang(job.path)
            try:
                result, sizes = work(job)
            except OSError as exc:  # the rows cannot be written (a full disk): the scan stops
                conn.send(("fatal", index, exc.errno or 0, exc.strerror or str(exc)))
                return
            conn.send(("done", index, result, sizes))


@dataclass
class _Worker:
    process: Any
    conn: Any
    queue: deque[tuple[int, Any]] = field(default_factory=deque)
    current: int | None = None
    started: float = 0.0
    sizes: dict[str, int] = field(default_factory=dict)


def _context() -> Any:
    import multiprocessing as mp

    methods = mp.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return mp.get_context("fork")
    if "forkserver" in methods:
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(["znt.index.parse"])
        return ctx
    return mp.get_context("spawn")


class Pool:
    """``size`` workers that run ``work(job)`` (a module-level function, as a child process
    gets it: ``parse.parse_in_worker``, which returns the job's result and its row files'
    sizes) and yield each job's result as it comes; a job whose worker crashed or hung
    yields the ``failed(job, reason)`` result instead."""

    def __init__(
        self,
        size: int,
        failed: Callable[[Any, str], Result],
        close_fds: tuple[int, ...] = (),
        *,
        work: Callable[[Any], tuple[Result, dict[str, int]]],
        on_lost: Callable[[], None] | None = None,
    ) -> None:
        self.size = max(1, size)
        self.work = work
        self.on_lost = on_lost
        self.failed = failed
        self.close_fds = close_fds
        self.timeout = parse_timeout()
        self.ctx = _context()
        self.workers: list[_Worker] = []
        self._idle_deaths = 0

    def _spawn(self) -> _Worker:
        parent_conn, child_conn = self.ctx.Pipe()
        forked = self.ctx.get_start_method() == "fork"
        proc = self.ctx.Process(
            target=_worker_main,
            args=(child_conn, os.getpid() if forked else 0, self.close_fds, self.work),
            daemon=True,
            name="znt-parse",
        )
        proc.start()
        child_conn.close()
        worker = _Worker(proc, parent_conn)
        self.workers.append(worker)
        return worker

    def _feed(self, worker: _Worker, pending: deque[tuple[int, Any]]) -> None:
        if worker.queue or not pending:
            return
        chunk = [pending.popleft() for _ in range(min(CHUNK, len(pending)))]
        worker.queue.extend(chunk)
        # A worker that died since is found by the wait below (EOF): its queue goes back.
        with contextlib.suppress(OSError):
            worker.conn.send(chunk)

    def _retire(self, worker: _Worker) -> None:
        with contextlib.suppress(Exception):
            worker.conn.close()
        if worker.process.is_alive():
            with contextlib.suppress(Exception):
                worker.process.kill()
        worker.process.join(5)
        self.workers.remove(worker)

    def _lost(self, worker: _Worker, reason: str, pending: deque[tuple[int, Any]]) -> Result:
        """The worker died or was killed during its current job: cut its row files back,
        give its other jobs back, and say what happened to the current one. ``on_lost``
        runs first: what the caller started in ``meanwhile`` that must not be in this
        process when a replacement is forked (the scanner's early index connection, whose
        DuckDB threads a fork would copy in whatever state they are)."""
        if self.on_lost is not None:
            self.on_lost()
        self._retire(worker)
        _truncate(worker.process.pid, worker.sizes, self._folders)
        index = worker.current
        if index is None:
            # It died between files: nothing to blame; but workers that cannot even start
            # must not be replaced forever.
            self._idle_deaths += 1
            if self._idle_deaths > 4 * self.size:
                raise OSError(f"parse workers keep ending before any file ({reason})")
        waiting = [item for item in worker.queue if item[0] != index]
        pending.extendleft(reversed(waiting))
        job = self._jobs[index] if index is not None else None
        return self.failed(job, reason) if job is not None else None

    def run(
        self, jobs: list[Any], meanwhile: Callable[[], object] | None = None
    ) -> Iterator[Result]:
        """Yield each job's result as it comes. ``meanwhile`` is called once, when the first
        workers have their jobs: work of the caller's that can overlap the parse (on a
        one-file rescan the parse and the import of the writer's modules take about as long
        as each other). Threads it starts must be gone once ``on_lost`` has run: a worker
        that replaces a dead one is forked from this process."""
        from multiprocessing.connection import wait

        self._jobs = dict(enumerate(jobs))
        self._folders = {j.sink for j in jobs if j.sink}
        pending: deque[tuple[int, Any]] = deque(self._jobs.items())
        remaining = len(jobs)
        try:
            while remaining:
                while len(self.workers) < min(self.size, remaining):
                    self._spawn()
                for worker in self.workers:
                    self._feed(worker, pending)
                busy = [w for w in self.workers if w.queue]
                if not busy:  # pragma: no cover - every remaining job is queued somewhere
                    break
                if meanwhile is not None:
                    meanwhile()
                    meanwhile = None
                now = time.monotonic()
                deadlines = [w.started + self.timeout - now for w in busy if w.current is not None]
                wait_s = max(0.05, min(deadlines)) if deadlines else self.timeout
                ready = wait([w.conn for w in busy], timeout=wait_s)
                for worker in list(busy):
                    if worker.conn in ready:
                        try:
                            msg = worker.conn.recv()
                        except (EOFError, OSError):
                            code = worker.process.exitcode
                            worker.process.join(1)
                            code = worker.process.exitcode if code is None else code
                            res = self._lost(worker, _crash_reason(code), pending)
                            if res is not None:
                                remaining -= 1
                                yield res
                            continue
                        if msg[0] == "start":
                            worker.current, worker.started = msg[1], time.monotonic()
                            continue
                        if msg[0] == "fatal":
                            _tag, index, code, text = msg
                            raise OSError(code, f"{text} (writing the rows of {jobs[index].path})")
                        _tag, index, res, sizes = msg
                        self._idle_deaths = 0
                        worker.sizes.update(sizes)
                        worker.current = None
                        if worker.queue and worker.queue[0][0] == index:
                            worker.queue.popleft()
                        else:
                            worker.queue = deque(i for i in worker.queue if i[0] != index)
                        remaining -= 1
                        yield res
                    elif (
                        worker.current is not None
                        and time.monotonic() - worker.started > self.timeout
                    ):
                        res = self._lost(
                            worker,
                            f"the parser did not finish within {self.timeout:g}s "
                            "(ZNT_PARSE_TIMEOUT); file skipped",
                            pending,
                        )
                        if res is not None:
                            remaining -= 1
                            yield res
        finally:
            for worker in list(self.workers):
                with contextlib.suppress(Exception):
                    worker.conn.send(None)
            for worker in list(self.workers):
                worker.process.join(2)
                self._retire(worker)


def _crash_reason(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"the parser crashed on this file ({name}); file skipped"
    return f"the parser process ended on this file (exit {code}); file skipped"


def _truncate(pid: int | None, sizes: dict[str, int], folders: set[str]) -> None:
    """Cut the row files of worker ``pid`` back to their sizes after its last finished job
    (files it never finished a job in are emptied)."""
    if pid is None:
        return
    suffix = f"-{pid}.csv"
    for folder in folders:
        try:
            names = [n for n in os.listdir(folder) if n.endswith(suffix)]
        except OSError:
            continue
        for name in names:
            path = os.path.join(folder, name)
            with contextlib.suppress(OSError):
                os.truncate(path, sizes.get(path, 0))
