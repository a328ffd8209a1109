"""``znt scan --watch``: keep the index fresh while files change.

Polling, not OS file events (docs/decisions/0009-watch.md): every ``interval`` seconds the
project is walked with the scan's own ignore rules and each file's (size, mtime) compared
with the walk that triggered the last scan. A difference starts a quiet period: the walk is
repeated every ``quiet`` seconds until two walks agree (an editor's save, a ``git
checkout`` of many files, a formatter run all settle first), then one incremental scan runs.

The index file is opened only inside that scan (DuckDB's lock is exclusive across
processes, DESIGN §8), so searches, hooks and the MCP server work between scans.

While it runs, ``.znt/watch.json`` holds the watcher's pid, start time, a heartbeat, when it
last saw a change and what its last re-index did (or why it failed); ``znt status`` reads it
to show the original's ``Monitoring`` state, and ignores a file whose pid is dead (left by a
killed watcher). SIGINT and SIGTERM stop the loop: an idle watcher returns at once; a scan in
progress is abandoned, which leaves the previous index (a scan is crash-safe at any point,
docs/decisions/0002-index-concurrency.md). A watcher started by ``znt mcp`` is also given the
server's pid (``ZNT_WATCH_PARENT_PID``) and stops by itself when that process is gone, so a
killed server leaves no watcher behind. Nothing here prints.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from znt.errors import Busy
from znt.index.progress import pid_alive as _alive
from znt.project import Project

if TYPE_CHECKING:
    from znt.index.walk import WalkCache

STATE_FILE = "watch.json"
PARENT_ENV = "ZNT_WATCH_PARENT_PID"
DEFAULT_INTERVAL = 1.0
DEFAULT_QUIET = 0.3
HEARTBEAT_EVERY = 5.0

Snapshot = dict[str, tuple[int, int]]


class Stopped(BaseException):
    """Raised by the signal handler to unwind the loop (a BaseException, like
    KeyboardInterrupt, so no ``except Exception`` in a scan swallows it)."""


def state_path(project: Project) -> Path:
    return project.znt_dir / STATE_FILE


def read_state(project: Project) -> dict[str, Any] | None:
    """The watcher's state file with ``alive`` (its pid runs) added, or None without one."""
    try:
        from znt.fsguard import read_regular

        data = json.loads(read_regular(state_path(project)).decode("utf-8"))
        pid = int(data["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    data["alive"] = _alive(pid)
    if not data["alive"]:
        data["stale"] = True
    return data


def _write_state(project: Project, data: dict[str, Any]) -> None:
    from znt.fsguard import write_private

    path = state_path(project)
    write_private(path.parent, path.name, json.dumps(data).encode("utf-8"))


def snapshot(project: Project, cache: WalkCache | None = None) -> Snapshot:
    """(size, mtime_ns) of every file the scan would index (same walk, same ignore rules);
    ``cache`` keeps the folder listings from one poll to the next (index/walk.py)."""
    from znt.index.walk import walk
    from znt.settings import load_settings

    found = walk(project.root, load_settings(project.root), cache=cache)
    return {p: (e.size, e.mtime_ns) for p, e in found.files.items()}


class Watcher:
    """The loop; ``scan`` runs one incremental scan and returns its result document."""

    def __init__(
        self,
        project: Project,
        scan: Callable[[], Mapping[str, Any]],
        *,
        interval: float = DEFAULT_INTERVAL,
        quiet: float = DEFAULT_QUIET,
        on_scan: Callable[[Mapping[str, Any]], None] | None = None,
        on_error: Callable[[Exception], None] | None = None,
        parent_pid: int | None = None,
    ) -> None:
        self.project = project
        self.scan = scan
        self.interval = max(0.05, interval)
        self.quiet = max(0.05, quiet)
        self.on_scan = on_scan or (lambda _d: None)
        self.on_error = on_error or (lambda _e: None)
        self.scans = 0
        self.parent_pid = parent_pid if parent_pid is not None else _parent_from_env()
        self._state: dict[str, Any] = {}
        self._beat = 0.0
        from znt.index.walk import WalkCache

        self._walk_cache = WalkCache("", 0)

    def _heartbeat(self, force: bool = False) -> None:
        now = time.time()
        if force or now - self._beat >= HEARTBEAT_EVERY:
            self._beat = now
            self._state["heartbeat_at"] = round(now, 3)
            self._state["scans"] = self.scans
            with contextlib.suppress(OSError):
                _write_state(self.project, self._state)

    def _run_scan(self) -> None:
        started = round(time.time(), 3)
        try:
            doc = self.scan()
        except Exception as exc:  # a failed scan is reported; the watcher keeps watching
            self._state["last_error"] = {
                "at": round(time.time(), 3),
                "message": getattr(exc, "message", None) or type(exc).__name__,
            }
            self._heartbeat(force=True)
            self.on_error(exc)
            return
        self.scans += 1
        if doc.get("mode") not in (None, "noop") and self._state.get("last_change_at") is None:
            # the catch-up scan found what changed while nobody watched
            self._state["last_change_at"] = started
        self._state["last_scan_at"] = round(time.time(), 3)
        self._state["last_scan"] = _summary(doc)
        self._state.pop("last_error", None)
        self._heartbeat(force=True)
        self.on_scan(doc)

    def _orphaned(self) -> bool:
        """True once the process that asked for this watcher (``parent_pid``) is gone."""
        return self.parent_pid is not None and (
            os.getppid() != self.parent_pid or not _alive(self.parent_pid)
        )

    def run(self) -> int:
        """Watch until SIGINT/SIGTERM; returns the number of scans run."""
        self.project.ensure_dir()
        other = read_state(self.project)
        if other and other.get("alive") and int(other["pid"]) != os.getpid():
            raise Busy(
                f"another watcher (pid {other['pid']}) is already monitoring {self.project.root}"
            )

        def stop(_signum: int, _frame: FrameType | None) -> None:
            raise Stopped

        previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
        self._state = {
            "pid": os.getpid(),
            "started_at": round(time.time(), 3),
            "interval": self.interval,
            "quiet": self.quiet,
            "parent_pid": self.parent_pid,
            "last_change_at": None,
        }
        try:
            self._heartbeat(force=True)
            base = snapshot(self.project, self._walk_cache)
            self._run_scan()  # catch up with whatever changed while nobody watched
            while not self._orphaned():
                time.sleep(self.interval)
                self._heartbeat()
                current = snapshot(self.project, self._walk_cache)
                if current == base:
                    continue
                self._state["last_change_at"] = round(time.time(), 3)
                self._heartbeat(force=True)
                while True:  # debounce: wait until two walks agree
                    time.sleep(self.quiet)
                    settled = snapshot(self.project, self._walk_cache)
                    if settled == current:
                        break
                    current = settled
                base = current
                self._run_scan()
        except (Stopped, KeyboardInterrupt):
            pass
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            state = read_state(self.project)
            if state is not None and int(state.get("pid", -1)) == os.getpid():
                with contextlib.suppress(OSError):
                    state_path(self.project).unlink()
        return self.scans


def _parent_from_env() -> int | None:
    raw = os.environ.get(PARENT_ENV, "")
    try:
        pid = int(raw)
    except ValueError:
        return None
    return pid if pid > 1 else None


def _summary(doc: Mapping[str, Any]) -> dict[str, Any]:
    """What ``status`` shows of the last re-index: its counts and how long the index file was
    held for writing (the ``persisting`` phase; parsing and embedding happen before)."""
    keys = ("mode", "files_parsed", "files_deleted", "files_total", "symbols", "duration_ms")
    out = {k: doc.get(k) for k in keys}
    phases = doc.get("phases_ms") or {}
    out["write_ms"] = phases.get("persisting")
    return out
