"""The scan log: an append-only JSONL file in ``.znt/`` read with the original's cursor.

There is no daemon to keep a ring buffer in memory, so the buffer is the tail of a file:
``znt logs`` shows the last 100 entries. Each entry has an ``id`` monotonic within a
``stream_id``; the stream is created with the index and replaced by ``scan --restart``, so a
cursor from before a rebuild is recognised as stale (``truncated: true``).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from znt.results import LogsBody


RING = 100
_TRIM_AT = 2000  # rewrite the file down to the ring once it grows past this many lines


def _read_lines(path: Path) -> list[dict[str, Any]]:
    from znt.fsguard import read_regular

    try:
        raw = read_regular(path).decode("utf-8", "replace").splitlines()
    except OSError:  # missing, or not a file znt wrote (a link, a FIFO)
        return []
    out = []
    for line in raw:
        with contextlib.suppress(ValueError):
            out.append(json.loads(line))
    return out


def _tail(fd: int) -> tuple[dict[str, Any] | None, int]:
    """The last entry of the log and (roughly, from the file size) how many lines it has,
    without reading the whole file: every scan appends, so this runs on every scan."""
    size = os.fstat(fd).st_size
    if size == 0:
        return None, 0
    chunk = min(size, 8192)
    data = os.pread(fd, chunk, size - chunk)
    for line in reversed(data.splitlines()):
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            return entry, size // max(len(line) + 1, 1)
    return None, 0


class ScanLog:
    def __init__(self, path: Path) -> None:
        self.path = path

    def reset(self) -> None:
        """Start a new stream (the index was rebuilt from scratch)."""
        from znt.fsguard import remove_private

        remove_private(self.path.parent, self.path.name)

    def write(self, entries: list[tuple[str, str]]) -> None:
        """Append ``(level, message)`` entries under an exclusive lock. Messages are redacted
        here (znt/redact.py), so no key reaches the file whoever wrote the message; the file
        is opened without following a link (znt/fsguard.py)."""
        if not entries:
            return
        from znt.fsguard import open_private, write_private
        from znt.redact import redact

        entries = [(level, redact(message)) for level, message in entries]
        fd = open_private(self.path.parent, self.path.name, os.O_RDWR | os.O_CREAT | os.O_APPEND)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            last, count = _tail(fd)
            if last is not None:
                stream = last.get("stream_id")
                next_id = int(last.get("id", 0)) + 1
            else:
                stream = f"stream_{os.getpid()}_{time.time_ns()}_{uuid.uuid4().hex[:6]}"
                next_id = 1
            now = time.time()
            lines = []
            for level, message in entries:
                lines.append(
                    json.dumps(
                        {
                            "id": next_id,
                            "stream_id": stream,
                            "level": level,
                            "message": message,
                            "ts": round(now, 3),
                            "time": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now)),
                        },
                        ensure_ascii=False,
                    )
                )
                next_id += 1
            if count + len(lines) > _TRIM_AT:
                existing = _read_lines(self.path)
                keep = [json.dumps(e, ensure_ascii=False) for e in existing[-RING:]] + lines
                data = ("\n".join(keep) + "\n").encode("utf-8")
                write_private(self.path.parent, self.path.name, data)
            else:
                os.write(fd, ("\n".join(lines) + "\n").encode("utf-8"))
        finally:
            os.close(fd)

    def read(self, stream_id: str | None = None, after_id: int | None = None) -> LogsBody:
        """Entries in the original's cursor semantics (reference §2.10)."""
        entries = _read_lines(self.path)
        stream = entries[-1]["stream_id"] if entries else None
        ring = entries[-RING:]
        next_cursor = int(ring[-1]["id"]) if ring else 0
        public: list[dict[str, Any]] = [
            {k: e[k] for k in ("id", "message", "level", "time") if k in e} for e in ring
        ]
        if stream_id is None and after_id is None:
            return {
                "stream_id": stream,
                "entries": public,
                "next_cursor": next_cursor,
                "truncated": False,
            }
        oldest = int(ring[0]["id"]) if ring else 1
        if (
            stream_id != stream
            or after_id is None
            or after_id > next_cursor
            or (after_id < oldest - 1)
        ):
            return {
                "stream_id": stream,
                "entries": public,
                "next_cursor": next_cursor,
                "truncated": True,
            }
        newer = [e for e in public if int(e["id"]) > after_id]
        return {
            "stream_id": stream,
            "entries": newer,
            "next_cursor": next_cursor,
            "truncated": False,
        }
