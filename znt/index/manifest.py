"""A small JSON mirror of the ``files`` table, for the paths that must not open DuckDB.

A rescan that finds nothing changed (the common case in a git hook) and ``znt status``'s
staleness check only need each file's size and mtime. Reading them from this file skips
importing and opening DuckDB. The manifest is deleted before every index write and written
again after the commit, both carrying the same ``generation``; if a crash lands between the
two, there is no manifest and the next command falls back to the index itself.

Two lines of JSON: the head (generation, fingerprint, the last scan), then the files, so
that the freshness block every answer carries reads the head alone.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def content_hash(data: bytes) -> str:
    """The hash a file's content is known by (``files.hash``, the manifest's fourth field).
    Here rather than with the parser: a rescan whose changed mtimes hide the same bytes
    checks them without loading the parse stage."""
    from hashlib import blake2b  # scan-time only: the read paths load this module too

    return blake2b(data, digest_size=16).hexdigest()


@dataclass
class Manifest:
    generation: str
    fingerprint: str
    # path -> (size, mtime_ns, status, content hash)
    files: dict[str, tuple[int, int, str, str]] = field(default_factory=dict)
    last_scan: dict[str, Any] = field(default_factory=dict)
    # The files line as read (``load``) or to be written as is (``save``): a no-op rescan
    # records the same files again, and encoding 10,000 entries was a tenth of one.
    raw_files: bytes | None = field(default=None, repr=False, compare=False)


def load(path: Path) -> Manifest | None:
    from znt.fsguard import read_regular

    try:
        data = read_regular(path)
        head = _head(data)
        # A manifest of an earlier version is one line, its files inside the head.
        raw = None if "files" in head else data.partition(b"\n")[2]
        files = head["files"] if raw is None else json.loads(raw)
        return Manifest(
            generation=head["generation"],
            fingerprint=head["fingerprint"],
            files={k: (int(v[0]), int(v[1]), str(v[2]), str(v[3])) for k, v in files.items()},
            last_scan=head.get("last_scan", {}),
            raw_files=raw,
        )
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None


def _head(data: bytes) -> dict[str, Any]:
    """The manifest's first line parsed: generation, fingerprint and the last scan. The
    files are the second line, which ``last_scan`` never parses (on sympy, 1,641 entries:
    most of what reading the last scan cost a one-shot command)."""
    head = json.loads(data.partition(b"\n")[0].decode("utf-8"))
    if not isinstance(head, dict):
        raise TypeError("not a manifest")
    return head


_last_scans: dict[Path, tuple[tuple[int, int, int], dict[str, Any]]] = {}


def last_scan(path: Path) -> dict[str, Any] | None:
    """The manifest's ``last_scan``, parsed again only when the file changed. ``save``
    replaces the file as a whole, so inode, size and mtime tell; a long-lived process then
    pays a ``stat`` for the freshness block of each answer instead of parsing every file's
    entry (1,320 of them on sympy)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    key = (st.st_ino, st.st_size, st.st_mtime_ns)
    hit = _last_scans.get(path)
    if hit is None or hit[0] != key:
        from znt.fsguard import read_regular

        try:
            last = _head(read_regular(path)).get("last_scan", {})
            if not isinstance(last, dict):
                return None
        except (OSError, ValueError, TypeError):
            return None
        hit = _last_scans[path] = (key, last)
    return dict(hit[1])


def save(path: Path, manifest: Manifest) -> None:
    from znt.fsguard import write_private

    head = {
        "generation": manifest.generation,
        "fingerprint": manifest.fingerprint,
        "last_scan": manifest.last_scan,
    }
    if manifest.raw_files is not None:
        files = manifest.raw_files
    else:
        entries = {k: list(v) for k, v in manifest.files.items()}
        files = json.dumps(entries, separators=(",", ":")).encode()
    head_line = json.dumps(head, separators=(",", ":")).encode()
    write_private(path.parent, path.name, head_line + b"\n" + files)


def invalidate(path: Path) -> None:
    from znt.fsguard import remove_private

    remove_private(path.parent, path.name)
