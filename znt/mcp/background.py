"""``scan`` through MCP: a detached ``znt scan`` subprocess (docs/decisions/0007).

``api.scan`` is synchronous, takes the project's scan lock, starts forkserver workers and
opens the index read-write at the end; in the server's own process that would put a
read-write DuckDB handle next to the read-only ones of concurrent queries (DuckDB refuses
two configurations of one file in one process) and tie a long scan to the server's life. A
child process is what the CLI's ``znt scan`` already is: the same locks, the same crash
safety, its own memory, and it finishes even when the client disconnects. It never gets
``--restart``: MCP cannot delete an index.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

STDERR_TAIL = 2000


@dataclass
class ScanJob:
    scan_id: str
    root: Path
    process: subprocess.Popen[bytes]
    stderr_path: Path
    started_at: float = field(default_factory=time.time)
    finished_at: float | None = None
    stderr_tail: str = ""

    def running(self) -> bool:
        return self.process.poll() is None

    def state(self) -> dict[str, Any]:
        code = self.process.poll()
        if code is not None and self.finished_at is None:
            self.finished_at = time.time()
            with contextlib.suppress(OSError):
                self.stderr_tail = self.stderr_path.read_text("utf-8", "replace")[-STDERR_TAIL:]
            with contextlib.suppress(OSError):
                self.stderr_path.unlink()
        out: dict[str, Any] = {
            "scan_id": self.scan_id,
            "project_root": str(self.root),
            "state": "running" if code is None else ("completed" if code == 0 else "failed"),
            "exit_code": code,
            "started_at": round(self.started_at, 3),
            "finished_at": round(self.finished_at, 3) if self.finished_at else None,
        }
        if code not in (None, 0) and self.stderr_tail:
            out["stderr_tail"] = self.stderr_tail
        return out


class ScanJobs:
    """The scans this server started (the last one is reported by ``status``)."""

    def __init__(self) -> None:
        self.jobs: list[ScanJob] = []

    def running(self) -> ScanJob | None:
        return next((j for j in reversed(self.jobs) if j.running()), None)

    def last(self) -> ScanJob | None:
        return self.jobs[-1] if self.jobs else None

    def start(self, root: Path, language: str | None) -> ScanJob:
        scan_id = f"scan_{os.getpid()}_{time.time_ns()}"
        # its own session: it survives the server and its client (decision 0007)
        process, stderr = spawn_znt(["scan", "-q"], root, language, "scan")
        job = ScanJob(scan_id, root, process, stderr)
        self.jobs.append(job)
        return job


def spawn_znt(
    args: list[str],
    root: Path,
    language: str | None,
    label: str,
    env: dict[str, str] | None = None,
) -> tuple[subprocess.Popen[bytes], Path]:
    """``znt ARGS ROOT [--language L]`` as a child in its own session, with stdin and stdout
    on /dev/null (never the MCP server's protocol stream) and stderr in a temporary file,
    whose path is returned with the process."""
    fd, name = tempfile.mkstemp(prefix=f"znt-mcp-{label}-", suffix=".log")
    cmd = [sys.executable, "-m", "znt", *args, str(root)]
    if language and language != "auto":
        cmd += ["--language", language]
    try:
        process = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=fd,
            cwd=str(root),
            env=env,
            start_new_session=True,
        )
    finally:
        os.close(fd)
    return process, Path(name)
