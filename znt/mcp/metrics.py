"""MCP usage metrics: one JSON line per tool call, and their summary for ``stats``.

The file is ``<project>/.znt/mcp-usage.jsonl`` (``ZNT_MCP_METRICS_FILE`` overrides it). Token
counts are the ``ceil(chars/4)`` estimate; the saving is a heuristic, as in the original:
the alternative is reading every file the answer touched whole, so
``saved = max(0, alternative - response)``. Writing is best effort: a failure is reported on
stderr and never fails the call. No SDK import here: ``znt stats`` reads this module too.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ENV_FILE = "ZNT_MCP_METRICS_FILE"
FILE_NAME = "mcp-usage.jsonl"
LAST_CALLS = 10
TOP_TOOLS = 5
# Summaries read at most this many trailing bytes: the file only grows.
MAX_READ_BYTES = 8 * 1024 * 1024


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def metrics_path(project_root: Path | None) -> Path | None:
    """Where the metrics go: the env override, else the project's ``.znt/`` when it exists
    (the server never creates an index folder just to log a call)."""
    override = os.environ.get(ENV_FILE)
    if override:
        return Path(override).expanduser()
    if project_root is None or not (project_root / ".znt").is_dir():
        return None
    return project_root / ".znt" / FILE_NAME


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
        path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line.encode("utf-8"))
        finally:
            os.close(fd)
        return True
    except OSError as exc:
        print(f"znt mcp: metrics not written to {path}: {exc}", file=sys.stderr)
        return False


def read(path: Path | None) -> list[dict[str, Any]]:
    if path is None:
        return []
    try:
        with open(path, "rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            fh.seek(max(0, size - MAX_READ_BYTES))
            data = fh.read()
    except OSError:
        return []
    lines = data.splitlines()
    if size > MAX_READ_BYTES and lines:
        lines = lines[1:]  # the first line may be cut
    out = []
    for line in lines:
        with contextlib.suppress(ValueError):
            rec = json.loads(line)
            if isinstance(rec, dict) and "tool" in rec:
                out.append(rec)
    return out


def _ratio(alternative: int, response: int) -> str | None:
    if response <= 0 or alternative <= 0:
        return None
    return f"{alternative / response:.1f}x"


def totals(records: list[dict[str, Any]]) -> dict[str, Any]:
    calls = len(records)
    response = sum(int(r.get("response_tokens") or 0) for r in records)
    alternative = sum(int(r.get("alternative_tokens") or 0) for r in records)
    saved = sum(int(r.get("saved_tokens") or 0) for r in records)
    ms = [float(r.get("execution_ms") or 0.0) for r in records]
    return {
        "calls": calls,
        "errors": sum(1 for r in records if r.get("is_error")),
        "response_tokens": response,
        "alternative_tokens": alternative,
        "saved_tokens": saved,
        "savings_ratio": _ratio(alternative, response),
        "avg_ms": round(sum(ms) / calls, 1) if calls else None,
    }


def summarize(
    path: Path | None,
    session_id: str | None = None,
    session_records: list[dict[str, Any]] | None = None,
    *,
    last: int = LAST_CALLS,
) -> dict[str, Any]:
    """Totals over the whole file, the same for this server's session (kept in memory, so
    it counts even when the file cannot be written), top tools, the last calls."""
    records = read(path)
    top = Counter(str(r["tool"]) for r in records).most_common(TOP_TOOLS)
    out: dict[str, Any] = {
        "metrics_file": str(path) if path else None,
        "token_estimate": "ceil(chars/4)",
        "savings_note": "heuristic: the touched files read whole minus the response",
        "total": totals(records),
        "sessions": len({r.get("session_id") for r in records}),
        "top_tools": [{"tool": t, "calls": n} for t, n in top],
        "last_calls": [
            {
                k: r.get(k)
                for k in ("at", "tool", "response_tokens", "execution_ms", "is_error", "error")
            }
            for r in records[-last:]
        ]
        if last
        else [],
    }
    if session_id is not None:
        out["session"] = {
            "session_id": session_id,
            **totals(session_records or []),
        }
    return out


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
