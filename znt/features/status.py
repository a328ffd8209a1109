"""``znt status`` and the freshness every answer carries: is a scan running, is a watcher
keeping the index fresh, and how old is the index against the working tree and HEAD."""

from __future__ import annotations

import fcntl
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from znt.index import manifest as manifest_mod
from znt.index.progress import read_progress, starting
from znt.project import Project, find_root

if TYPE_CHECKING:
    from znt.results import Freshness, ProviderChoice, ScanProgress, StatusBody


def scanning(project: Project) -> bool:
    """True while another process holds the scan lock (the original's ``Scanning`` state).

    The lock is opened without following a link and without blocking: a repository may ship
    a ``.znt/scan.lock`` that is a FIFO or a link to one, which a plain open would wait on
    for ever. Only a regular file can be znt's lock."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(project.scan_lock_path, flags)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def watch_state(project: Project) -> dict[str, Any] | None:
    """The ``znt scan --watch`` process of this project, if one is alive (its pid file in
    ``.znt/``; a file left by a dead process is reported stale and ignored)."""
    from znt.index.watch import read_state

    return read_state(project)


def status_state(project: Project, root: Path | None) -> str:
    """The original's states: ``Scanning`` while a scan holds the lock, ``Monitoring`` while
    a live watcher keeps the index fresh, ``Idle`` otherwise."""
    if root is None:
        return "Idle"
    if scanning(project):
        return "Scanning"
    state = watch_state(project)
    return "Monitoring" if state and state.get("alive") else "Idle"


def freshness(
    project: Project, *, check_files: bool, manifest: manifest_mod.Manifest | None = None
) -> Freshness:
    """How fresh the index is: the last scan, the commit it saw, and (with ``check_files``)
    how many files changed since. Uses the manifest (``manifest``, when the caller has read
    it: a big tree's is megabytes of JSON) and ``stat`` only: no hashing."""
    from znt.gitinfo import head_commit

    man = (manifest or manifest_mod.load(project.manifest_path)) if check_files else None
    last = (man.last_scan if man else None) or manifest_mod.last_scan(project.manifest_path) or {}
    head = head_commit(project.root)
    out: Freshness = {
        "last_scan_at": last.get("at"),
        "index_commit": last.get("index_commit"),
        "head_commit": head,
        "commit_changed": bool(
            head and last.get("index_commit") and head != last.get("index_commit")
        ),
    }
    if check_files and man is not None:
        from znt.index.walk import load_cache, walk
        from znt.settings import load_settings

        # The last scan's folder listings, read but never written here (status only reads).
        found = walk(
            project.root, load_settings(project.root), cache=load_cache(project.walk_cache_path)
        )
        changed = sum(
            1
            for p, e in found.files.items()
            if p in man.files and man.files[p][:2] != (e.size, e.mtime_ns)
        )
        added = sum(1 for p in found.files if p not in man.files)
        deleted = sum(1 for p in man.files if p not in found.files)
        out["files_changed"] = changed
        out["files_added"] = added
        out["files_deleted"] = deleted
        out["stale"] = bool(changed or added or deleted)
    elif check_files:
        out["stale"] = None
    return out


def status(requested: Path) -> StatusBody:
    """Coverage of the resolved path ``requested`` by an index, the index's counts, its last
    scan and staleness."""
    root = find_root(requested)
    project = Project(root or requested)
    coverage = "none" if root is None else ("exact" if root == requested else "ancestor")
    stats = {
        "files": 0,
        "declarations": 0,
        "functions": 0,
        "members": 0,
        "dependencies": 0,
        "edges": 0,
    }
    index_exists = project.index_path.exists()
    embeddings: dict[str, Any] | None = None
    if index_exists:
        from znt.index import store

        with store.open_index(project.index_path, read_only=True) as con:
            files_row = con.execute("SELECT count(*) FROM files").fetchone()
            stats["files"] = int(files_row[0]) if files_row else 0
            for typ, n in con.execute(
                # The ``externals`` view's dependencies are its distinct ``dep::`` ids.
                "SELECT type, count(*) FROM symbols GROUP BY type "
                "UNION ALL SELECT 'dependency', count(DISTINCT dst) FROM edges "
                "WHERE starts_with(dst, 'dep::')"
            ).fetchall():
                key = {
                    "declaration": "declarations",
                    "function": "functions",
                    "member": "members",
                    "dependency": "dependencies",
                }.get(typ)
                if key:
                    stats[key] = int(n)
            edges_row = con.execute("SELECT count(*) FROM edges").fetchone()
            stats["edges"] = int(edges_row[0]) if edges_row else 0
            embeddings = _embedding_state(con)
    man = manifest_mod.load(project.manifest_path)
    state = status_state(project, root)
    body: StatusBody = {
        "requested_path": str(requested),
        "project_root": str(project.root) if root else None,
        "coverage": coverage,
        "has_index": index_exists and stats["files"] > 0,
        "status": state,
        "watch": watch_state(project) if root else None,
        "stats": stats,
        "scan": man.last_scan if man else {},
        "freshness": (freshness(project, check_files=True, manifest=man) if index_exists else None),
        "provider": _provider_choice(),
        # the running or last scan in the original's ScanProgress shape (any process's)
        "progress": _progress(project, state) if root else None,
        "embeddings": embeddings,
    }
    return body


def _progress(project: Project, state: str) -> ScanProgress | None:
    """``read_progress``, kept in step with the lock: while a scan holds it but has not yet
    written its own progress, the first phase at 0% (not the previous scan's end). A scan
    that has reported ``completed`` still holds the lock while it removes its row folder
    and releases it (``read_progress`` shows it ``completed``; its final write, with
    ``completed_at``, comes after the release): that one is the scan's own end, not a
    previous scan's, and the phase must not go back to ``ast``."""
    progress = read_progress(project)
    if state != "Scanning":
        return progress
    if progress is not None and (
        progress.get("status") == "scanning"
        or (progress.get("phase") == "completed" and progress.get("completed_at") is None)
    ):
        return progress
    return starting(str(project.root))


def _embedding_state(con: Any) -> dict[str, Any]:
    """Which model embedded the index and how many of its texts have a vector."""
    from znt.index import store
    from znt.index.embed.stage import has_embeddings

    meta = store.get_meta(con)
    row = con.execute("SELECT count(DISTINCT text_hash) FROM embed_docs").fetchone()
    texts = int(row[0]) if row else 0
    embedded = 0
    if meta.get("embed_model") and has_embeddings(con):
        row = con.execute("SELECT count(*) FROM embeddings").fetchone()
        embedded = int(row[0]) if row else 0
    return {"model": meta.get("embed_model") or None, "texts": texts, "embedded": embedded}


def _provider_choice() -> ProviderChoice:
    """What the next scan embeds with; imported here, not at the top, so that the freshness
    every answer carries does not load the provider configuration."""
    from znt.features.setup import provider_choice

    return provider_choice()
