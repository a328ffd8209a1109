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
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

from znt.project import mcp_metrics_path


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
    from znt.fsguard import open_private

    try:
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        fd = open_private(path.parent, path.name, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            os.write(fd, line.encode("utf-8"))
        finally:
            os.close(fd)
        return True
    except OSError as exc:
        print(f"znt mcp: metrics not written to {path}: {exc}", file=sys.stderr)
        return False


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
