"""Scan progress in the original's terms, kept in ``.znt/scan-progress.json`` while a scan runs.

Every scan of a project (``znt scan``, a git hook, the watcher, ``scan`` through MCP) reports
its progress here, so ``status`` can say what a running scan is doing whoever started it,
as the original daemon's ``scan_status`` does (reference §2.5). The scan calls a
``progress(phase, done, total)`` callback with its own step names; ``ProgressFile`` maps them
onto the original's phases, in the original's order:

=================  ========================================================================
original phase     what znt does then (its own step names)
=================  ========================================================================
``ast``            parse workers read, parse and extract the changed files (``ast``): the
                   original's separate ``extracting`` happens inside the same workers, so it
                   never shows on its own
``building_graph`` the write begins: rows, lexical terms, call/inherit edges resolved in SQL
                   (``persisting``, ``building_graph``)
``persisting_ast`` a first or full build checkpoints and publishes the new file (``indexing``)
``embedding``      texts sent to the embedding provider (``embedding``, texts done/total)
``completed``      manifest and log written (``completed``)
``error``          the scan raised (the message, without any key, is in ``last_error``)
=================  ========================================================================

``tagging`` and ``indexing`` never appear: znt has no tag pass, and its lexical index is
built during ``building_graph``. The phase never moves backwards and ``percent`` never
decreases (each phase owns a band of it). Writes are atomic (temporary file and rename) and
throttled to one every ``MIN_INTERVAL_S`` within a phase, so a hook's sub-second scan pays a
handful of small writes. Nothing here prints.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from znt.project import Project

if TYPE_CHECKING:
    from znt.results import ScanProgress


PROGRESS_FILE = "scan-progress.json"
MIN_INTERVAL_S = 0.2
PHASES = (
    "ast",
    "building_graph",
    "persisting_ast",
    "extracting",
    "tagging",
    "embedding",
    "indexing",
    "completed",
    "error",
)
# Each reported phase owns [start, end) of the percent; the work done inside it moves within.
_BANDS: dict[str, tuple[float, float]] = {
    "ast": (0.0, 60.0),
    "building_graph": (60.0, 75.0),
    "persisting_ast": (75.0, 80.0),
    "embedding": (80.0, 99.0),
    "completed": (100.0, 100.0),
}
_FROM_SCAN = {
    "ast": "ast",
    "persisting": "building_graph",
    "building_graph": "building_graph",
    "indexing": "persisting_ast",
    "embedding": "embedding",
    "completed": "completed",
}


def progress_path(project: Project) -> Path:
    return project.znt_dir / PROGRESS_FILE


class ProgressFile:
    """The ``progress`` callback of one scan: keeps the state and writes it out."""

    def __init__(
        self, project: Project, *, scan_id: str | None = None, language: str | None = None
    ) -> None:
        self.project = project
        self.path = progress_path(project)
        now = time.time()
        self.state: dict[str, Any] = {
            "scan_id": scan_id,
            "pid": os.getpid(),
            "status": "scanning",
            "path": str(project.root),
            "language": language or "auto",
            "phase": "ast",
            "percent": 0.0,
            "phase_done": 0,
            "phase_total": 0,
            "scanned_files": 0,
            "total_files": 0,
            "texts_embedded": 0,
            "texts_total": 0,
            "started_at": round(now, 3),
            "updated_at": round(now, 3),
            "completed_at": None,
            "last_error": None,
        }
        self._written = 0.0
        self._rank = 0
        self._write(force=True)  # at once: the lock is held from now on

    def __call__(self, step: str, done: int, total: int) -> None:
        phase = _FROM_SCAN.get(step)
        if phase is None:
            return
        rank = PHASES.index(phase)
        changed = rank > self._rank
        if rank < self._rank:  # a late event of an earlier step: counted, phase kept
            phase = PHASES[self._rank]
        self._rank = max(self._rank, rank)
        s = self.state
        s["phase"] = phase
        s["phase_done"], s["phase_total"] = int(done), int(total)
        if step == "ast":
            s["scanned_files"], s["total_files"] = int(done), int(total)
        elif step == "embedding":
            s["texts_embedded"], s["texts_total"] = int(done), int(total)
        lo, hi = _BANDS[phase]
        within = done / total if total > 0 and phase == _FROM_SCAN[step] else 0.0
        s["percent"] = round(max(s["percent"], lo + (hi - lo) * min(max(within, 0.0), 1.0)), 1)
        if phase == "completed":  # the work is done; ``finish`` ends the scan
            s["percent"] = 100.0
        self._write(force=changed)

    def finish(self, scan_id: str | None = None) -> None:
        """The scan returned: ``completed`` (a no-op scan reports no steps of its own)."""
        if scan_id:
            self.state["scan_id"] = scan_id
        self("completed", 1, 1)  # a no-op scan reports no steps of its own
        self.state.update(status="completed", completed_at=round(time.time(), 3))
        self._write(force=True)

    def failed(self, message: str) -> None:
        """The scan raised: ``error`` phase, the percent where it stopped."""
        self.state.update(
            status="error",
            phase="error",
            last_error=message,
            completed_at=round(time.time(), 3),
        )
        self._rank = PHASES.index("error")
        self._write(force=True)

    def _write(self, *, force: bool) -> None:
        now = time.monotonic()
        if not force and now - self._written < MIN_INTERVAL_S:
            return
        self._written = now
        self.state["updated_at"] = round(time.time(), 3)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        with contextlib.suppress(OSError):  # progress is a courtesy: never fails the scan
            tmp.write_text(json.dumps(self.state), encoding="utf-8")
            os.replace(tmp, self.path)


def starting(
    path: str, *, scan_id: str | None = None, started_at: float | None = None
) -> ScanProgress:
    """The progress of a scan that holds (or is about to take) the lock but has not written
    its own yet: the first phase at 0%."""
    return {
        "scan_id": scan_id,
        "status": "scanning",
        "path": path,
        "phase": "ast",
        "percent": 0.0,
        "phase_done": 0,
        "phase_total": 0,
        "scanned_files": 0,
        "total_files": 0,
        "texts_embedded": 0,
        "texts_total": 0,
        "started_at": round(started_at if started_at is not None else time.time(), 3),
        "completed_at": None,
        "last_error": None,
        "note": "starting: the scan has not reported yet",
    }


def read_progress(project: Project) -> ScanProgress | None:
    """The last scan's progress, or None. A scan whose process died before it finished (a
    kill, a crash) is reported as ``error`` with a ``last_error`` that says so."""
    try:
        data = json.loads(progress_path(project).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("pid"), int):
        return None
    if data.get("status") == "scanning" and data.get("phase") == "completed":
        # between the scan's last step and its final write (it is releasing the lock)
        data["status"] = "completed"
    elif data.get("status") == "scanning" and not pid_alive(data["pid"]):
        data.update(
            status="error",
            phase="error",
            last_error=f"the scan (pid {data['pid']}) ended before it finished",
        )
    return cast("ScanProgress", data)  # the file holds what ``ProgressFile`` wrote


def pid_alive(pid: int) -> bool:
    """Whether a process with ``pid`` exists (one we may not signal counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True
