"""The summary of ``znt mcp``'s usage metrics that ``stats`` shows (the server writes them:
znt/mcp/metrics.py; one JSON line per tool call in ``<project>/.znt/mcp-usage.jsonl``, or
``ZNT_MCP_METRICS_FILE``). Token counts are the ``ceil(chars/4)`` estimate; the saving is a
heuristic: the files the answer touched read whole, minus the response.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from znt.results import McpUsage


LAST_CALLS = 10
TOP_TOOLS = 5
# Summaries read at most this many trailing bytes: the file only grows.
MAX_READ_BYTES = 8 * 1024 * 1024


def _no_follow(path: str, flags: int) -> int:
    """Open without following a link: a repository can ship .znt/mcp-usage.jsonl as one."""
    return os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC)


def read(path: Path | None) -> list[dict[str, Any]]:
    if path is None:
        return []
    try:
        with open(path, "rb", opener=_no_follow) as fh:
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


def totals(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
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
    session_records: Sequence[Mapping[str, Any]] | None = None,
    *,
    last: int = LAST_CALLS,
) -> McpUsage:
    """Totals over the whole file, the same for this server's session (kept in memory, so
    it counts even when the file cannot be written), top tools, the last calls."""
    records = read(path)
    top = Counter(str(r["tool"]) for r in records).most_common(TOP_TOOLS)
    out: McpUsage = {
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
