"""Monitoring in ``znt mcp``: after a scan, a supervised ``znt scan --watch`` child keeps the
index fresh while the agent works (docs/decisions/0017-mcp-monitoring.md).

The watcher is the CLI's own (``znt/index/watch.py``: polling with the scan's ignore rules,
debounced, incremental scans that parse first and hold the index for writing only for the
final transaction). The server runs it as a child process rather than a thread for the
reason a scan is one (decision 0007): a re-index opens the index read-write, which must not
happen next to the server's read-only handles in one process.

Unlike the first scan, the watcher belongs to the server: ``Supervisor.close`` stops it
(SIGTERM, then SIGKILL after a grace period) when the server ends, and the child is given
the server's pid (``ZNT_WATCH_PARENT_PID``) so that it also stops by itself within one poll
interval if the server is killed. A watcher that dies on its own is restarted a few times
with a pause; one that finds another process already watching the project (exit 5) leaves
the job to that process and is tried again later.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from znt.mcp.background import STDERR_TAIL, ScanJobs, spawn_znt

PARENT_ENV = "ZNT_WATCH_PARENT_PID"  # read by znt/index/watch.py in the child
TICK_S = 0.2
RETRY_S = 5.0
RETRY_ELSEWHERE_S = 30.0
MAX_RESTARTS = 5
STOP_GRACE_S = 10.0
EXIT_BUSY = 5


@dataclass
class Watcher:
    """One ``znt scan --watch`` child of this server."""

    root: Path
    process: subprocess.Popen[bytes]
    stderr_path: Path
    started_at: float = field(default_factory=time.time)

    def running(self) -> bool:
        return self.process.poll() is None

    def stderr_tail(self) -> str:
        with contextlib.suppress(OSError):
            return self.stderr_path.read_text("utf-8", "replace")[-STDERR_TAIL:]
        return ""

    def stop(self, grace: float = STOP_GRACE_S) -> int | None:
        """SIGTERM (the watcher stops at once when idle, abandons a scan otherwise), then
        SIGKILL after ``grace`` seconds; the child is always reaped."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    self.process.kill()
                self.process.wait()
        with contextlib.suppress(OSError):
            self.stderr_path.unlink()
        return self.process.returncode


def start_watcher(root: Path, language: str | None) -> Watcher:
    """``znt scan --watch -q ROOT`` in its own session (a Ctrl-C meant for the client's
    terminal does not reach it); the server stops it (``close``) or it notices that the
    server is gone (``PARENT_ENV``)."""
    env = {**os.environ, PARENT_ENV: str(os.getpid())}
    process, stderr = spawn_znt(["scan", "--watch", "-q"], root, language, "watch", env)
    return Watcher(root, process, stderr)


class Supervisor:
    """Starts, watches and stops this server's watcher; the ``status`` tool reads ``state``.

    ``want(root)`` asks for ``root`` to be monitored once no scan of this server is running
    (a scan that failed is not followed by monitoring: the agent sees the failure first).
    The loop runs in a daemon thread and touches only processes and this object's fields."""

    def __init__(self, jobs: ScanJobs, *, enabled: bool = True) -> None:
        self.jobs = jobs
        self.enabled = enabled
        self.root: Path | None = None
        self.language: str | None = None
        self.watcher: Watcher | None = None
        self.restarts = 0
        self.last_exit: dict[str, Any] | None = None
        self.elsewhere = False  # another process watches root (our child exited 5)
        self._next_try = 0.0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def want(self, root: Path, language: str | None = None) -> None:
        if not self.enabled:
            return
        with self._lock:
            if self.root != root or self.language != language:
                self._stop_watcher()
                self.root, self.language = root, language
                self.restarts, self.last_exit, self.elsewhere = 0, None, False
                self._next_try = 0.0
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="znt-monitor", daemon=True)
                self._thread.start()
        self.tick()

    def _loop(self) -> None:
        while not self._stop.wait(TICK_S):
            self.tick()

    def tick(self) -> None:
        """Start the watcher when it is due; note how a previous one ended."""
        with self._lock:
            if self._stop.is_set() or self.root is None:
                return
            w = self.watcher
            if w is not None and w.running():
                return
            if w is not None:  # ended without being asked
                code = w.process.returncode
                self.elsewhere = code == EXIT_BUSY
                self.last_exit = {
                    "exit_code": code,
                    "at": round(time.time(), 3),
                    "stderr_tail": w.stderr_tail() or None,
                }
                w.stop()
                self.watcher = None
                if not self.elsewhere:
                    self.restarts += 1
                pause = RETRY_ELSEWHERE_S if self.elsewhere else RETRY_S
                self._next_try = time.monotonic() + pause
            if self.restarts > MAX_RESTARTS or time.monotonic() < self._next_try:
                return
            job = self.jobs.last()
            if job is not None and job.root == self.root and job.running():
                return  # monitoring follows the scan
            if (
                job is not None
                and job.root == self.root
                and job.process.returncode not in (0, None)
            ):
                return  # a failed scan: not followed by monitoring until the next scan
            self.watcher = start_watcher(self.root, self.language)

    def state(self) -> dict[str, Any]:
        """What ``status`` shows under ``monitoring`` (the watcher's own file adds the last
        change seen and the last re-index)."""
        with self._lock:
            w = self.watcher
            active = w is not None and w.running()
            return {
                "enabled": self.enabled,
                "project_root": str(self.root) if self.root else None,
                "active": active,
                "pid": w.process.pid if w is not None and active else None,
                "since": round(w.started_at, 3) if w is not None and active else None,
                "watched_elsewhere": self.elsewhere,
                "restarts": self.restarts,
                "last_exit": self.last_exit,
            }

    def active_for(self, root: Path) -> bool:
        with self._lock:
            w = self.watcher
            return self.root == root and w is not None and w.running()

    def _stop_watcher(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher = None

    def close(self) -> None:
        """Stop the loop and the watcher (the server is ending); waits for both."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)
        with self._lock:
            self._stop_watcher()
