"""MCP usage metrics: one JSON line per tool call, and their summary for ``stats``.

The file is ``<project>/.znt/mcp-usage.jsonl`` (``ZNT_MCP_METRICS_FILE`` overrides it). Token
counts are the ``ceil(chars/4)`` estimate; the saving is a heuristic, as in the original:
the alternative is reading every file the answer touched whole, so
``saved = max(0, alternative - response)``. Writing is best effort: a failure is reported on
stderr and never fails the call. The summary ``stats`` shows is read by
znt/features/usage.py; where the file is, znt/project.py says for both.
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import stat
import sys
import time
from pathlib import Path
from typing import Any

from znt.project import INDEX_DIR, MCP_METRICS_ENV, mcp_metrics_path


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def metrics_path(project_root: Path | None) -> Path | None:
    """Where the metrics go (znt/project.py: the env override, else ``.znt/``)."""
    return mcp_metrics_path(project_root)


def file_tokens(root: Path, files: list[str]) -> int:
    """The alternative cost: the touched files read whole (size in bytes ~ characters)."""
    total = 0
    for rel in files:
        with contextlib.suppress(OSError):
            total += math.ceil((root / rel).stat().st_size / 4)
    return total


def append(path: Path | None, record: dict[str, Any]) -> bool:
    """Append one record; False (and a line on stderr) when it could not be written."""
    if path is None:
        return False
    try:
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        fd = _open_for_append(path)
        try:
            os.write(fd, line.encode("utf-8"))
        finally:
            os.close(fd)
        return True
    except OSError as exc:
        print(f"znt mcp: metrics not written to {path}: {exc}", file=sys.stderr)
        return False


def _open_for_append(path: Path) -> int:
    """Inside ``.znt/`` the file is znt's own: opened without following a link, a foreign
    entry under its name replaced (znt/fsguard.py). A path the user named with
    ``ZNT_MCP_METRICS_FILE`` is theirs: whatever is there is never removed, and anything but
    a regular file (a folder, a FIFO) is an error, so the call goes on unlogged."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
    if path.parent.name == INDEX_DIR and not os.environ.get(MCP_METRICS_ENV):
        from znt.fsguard import open_private

        return open_private(path.parent, path.name, flags)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, flags | os.O_NONBLOCK, 0o644)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise IsADirectoryError(errno.EISDIR, "not a regular file", str(path))
    os.set_blocking(fd, True)
    return fd


def record(
    *,
    session_id: str,
    tool: str,
    response_tokens: int,
    execution_ms: float,
    alternative_tokens: int,
    files: int,
    is_error: bool,
    error: str | None,
) -> dict[str, Any]:
    return {
        "at": round(time.time(), 3),
        "session_id": session_id,
        "tool": tool,
        "response_tokens": response_tokens,
        "execution_ms": round(execution_ms, 2),
        "files_touched": files,
        "alternative_tokens": alternative_tokens,
        "saved_tokens": max(0, alternative_tokens - response_tokens) if alternative_tokens else 0,
        "is_error": is_error,
        "error": error,
    }
