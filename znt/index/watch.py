"""``znt scan --watch``: keep the index fresh while files change.

Polling, not OS file events (docs/decisions/0009-watch.md): every ``interval`` seconds the
project is walked with the scan's own ignore rules and each file's (size, mtime) compared
with the walk that triggered the last scan. A difference starts a quiet period: the walk is
repeated every ``quiet`` seconds until two walks agree (an editor's save, a ``git
checkout`` of many files, a formatter run all settle first), then one incremental scan runs.

The index file is opened only inside that scan (DuckDB's lock is exclusive across
processes, DESIGN §8), so searches, hooks and the MCP server work between scans.

While it runs, ``.znt/watch.json`` holds the watcher's pid, start time and a heartbeat;
``znt status`` reads it to show the original's ``Monitoring`` state, and ignores a file whose
pid is dead (left by a killed watcher). SIGINT and SIGTERM stop the loop: an idle watcher
returns at once; a scan in progress is abandoned, which leaves the previous index (a scan is
crash-safe at any point, docs/decisions/0002-index-concurrency.md). Nothing here prints.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

from znt.errors import Busy
from znt.project import Project

STATE_FILE = "watch.json"
DEFAULT_INTERVAL = 1.0
DEFAULT_QUIET = 0.3
HEARTBEAT_EVERY = 5.0

Snapshot = dict[str, tuple[int, int]]


class Stopped(BaseException):
    """Raised by the signal handler to unwind the loop (a BaseException, like
    KeyboardInterrupt, so no ``except Exception`` in a scan swallows it)."""


def state_path(project: Project) -> Path:
    return project.znt_dir / STATE_FILE


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def read_state(project: Project) -> dict[str, Any] | None:
    """The watcher's state file with ``alive`` (its pid runs) added, or None without one."""
    try:
        data = json.loads(state_path(project).read_text(encoding="utf-8"))
        pid = int(data["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    data["alive"] = _alive(pid)
    if not data["alive"]:
        data["stale"] = True
    return data


def _write_state(project: Project, data: dict[str, Any]) -> None:
    path = state_path(project)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data), encoding="utf-8")
    os.replace(tmp, path)


def snapshot(project: Project) -> Snapshot:
    """(size, mtime_ns) of every file the scan would index (same walk, same ignore rules)."""
    from znt.index.walk import walk
    from znt.settings import load_settings

    found = walk(project.root, load_settings(project.root))
    return {p: (e.size, e.mtime_ns) for p, e in found.files.items()}


class Watcher:
    """The loop; ``scan`` runs one incremental scan and returns its result document."""

    def __init__(
        self,
        project: Project,
        scan: Callable[[], dict[str, Any]],
        *,
        interval: float = DEFAULT_INTERVAL,
        quiet: float = DEFAULT_QUIET,
        on_scan: Callable[[dict[str, Any]], None] | None = None,
        on_error: Callable[[Exception], None] | None = None,
    ) -> None:
        self.project = project
        self.scan = scan
        self.interval = max(0.05, interval)
        self.quiet = max(0.05, quiet)
        self.on_scan = on_scan or (lambda _d: None)
        self.on_error = on_error or (lambda _e: None)
        self.scans = 0
        self._state: dict[str, Any] = {}
        self._beat = 0.0

    def _heartbeat(self, force: bool = False) -> None:
        now = time.time()
        if force or now - self._beat >= HEARTBEAT_EVERY:
            self._beat = now
            self._state["heartbeat_at"] = round(now, 3)
            self._state["scans"] = self.scans
            with contextlib.suppress(OSError):
                _write_state(self.project, self._state)

    def _run_scan(self) -> None:
        try:
            doc = self.scan()
        except Exception as exc:  # a failed scan is reported; the watcher keeps watching
            self.on_error(exc)
            return
        self.scans += 1
        self._state["last_scan_at"] = round(time.time(), 3)
        self._heartbeat(force=True)
        self.on_scan(doc)

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
        }
        try:
            self._heartbeat(force=True)
            base = snapshot(self.project)
            self._run_scan()  # catch up with whatever changed while nobody watched
            while True:
                time.sleep(self.interval)
                self._heartbeat()
                current = snapshot(self.project)
                if current == base:
                    continue
                while True:  # debounce: wait until two walks agree
                    time.sleep(self.quiet)
                    settled = snapshot(self.project)
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
