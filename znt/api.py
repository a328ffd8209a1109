"""The one public function layer. The CLI and the MCP server both call these functions and
only render what they return; nothing a front end shows is computed anywhere else.

Every function takes plain arguments, returns a JSON-ready ``dict`` (``schema_version``
included) and raises ``znt.errors.ZntError`` subclasses for anything the user can fix.
"""

from __future__ import annotations

import contextlib
import difflib
import fcntl
import os
from pathlib import Path
from typing import Any

from znt.errors import NotFound, UsageError
from znt.index import manifest as manifest_mod
from znt.project import Project, find_root, resolve_project

SCHEMA_VERSION = 1


def _doc(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"schema_version": SCHEMA_VERSION, "kind": kind, **body}


# -- scan --------------------------------------------------------------------------------


def scan(
    path: str | None = None,
    *,
    language: str | None = None,
    restart: bool = False,
    dry_run: bool = False,
    progress: Any = None,
    notice: Any = None,
) -> dict[str, Any]:
    """Index ``path`` (default: the current project) incrementally."""
    from znt.index.scan import Scanner

    project = resolve_project(path, exact=path is not None)
    scanner = Scanner(project, language=language, restart=restart, progress=progress, notice=notice)
    result = scanner.dry_run() if dry_run else scanner.run()
    return _doc("scan", result.to_dict())


# -- status ------------------------------------------------------------------------------


def _scanning(project: Project) -> bool:
    """True while another process holds the scan lock (the original's ``Scanning`` state)."""
    try:
        fd = os.open(project.scan_lock_path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def freshness(project: Project, *, check_files: bool) -> dict[str, Any]:
    """How fresh the index is: the last scan, the commit it saw, and (with ``check_files``)
    how many files changed since. Uses the manifest and ``stat`` only: no hashing."""
    from znt.gitinfo import head_commit

    man = manifest_mod.load(project.manifest_path)
    last = man.last_scan if man else {}
    head = head_commit(project.root)
    out: dict[str, Any] = {
        "last_scan_at": last.get("at"),
        "index_commit": last.get("index_commit"),
        "head_commit": head,
        "commit_changed": bool(
            head and last.get("index_commit") and head != last.get("index_commit")
        ),
    }
    if check_files and man is not None:
        from znt.index.walk import walk
        from znt.settings import load_settings

        found = walk(project.root, load_settings(project.root))
        changed = sum(
            1
            for p, e in found.files.items()
            if p in man.files and man.files[p][:2] != (e.size, e.mtime_ns)
        )
        added = sum(1 for p in found.files if p not in man.files)
        deleted = sum(1 for p in man.files if p not in found.files)
        out.update(
            {
                "files_changed": changed,
                "files_added": added,
                "files_deleted": deleted,
                "stale": bool(changed or added or deleted),
            }
        )
    elif check_files:
        out["stale"] = None
    return out


def status(path: str | None = None) -> dict[str, Any]:
    """Coverage of ``path`` by an index, the index's counts, its last scan and staleness."""
    requested = Path(path or os.environ.get("ZNT_PROJECT_ROOT") or os.getcwd()).expanduser()
    if not requested.exists():
        raise UsageError(f"path does not exist: {requested}")
    requested = requested.resolve()
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
    if index_exists:
        from znt.index import store

        with store.open_index(project.index_path, read_only=True) as con:
            files_row = con.execute("SELECT count(*) FROM files").fetchone()
            stats["files"] = int(files_row[0]) if files_row else 0
            for typ, n in con.execute(
                "SELECT type, count(*) FROM symbols GROUP BY type "
                "UNION ALL SELECT 'dependency', count(*) FROM externals WHERE type = 'dependency'"
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
    man = manifest_mod.load(project.manifest_path)
    body: dict[str, Any] = {
        "requested_path": str(requested),
        "project_root": str(project.root) if root else None,
        "coverage": coverage,
        "has_index": index_exists and stats["files"] > 0,
        "status": "Scanning" if root and _scanning(project) else "Idle",
        "stats": stats,
        "scan": man.last_scan if man else {},
        "freshness": freshness(project, check_files=True) if index_exists else None,
    }
    return _doc("status", body)


# -- outline -----------------------------------------------------------------------------


def _project_for_read(project_path: str | None) -> Project:
    project = resolve_project(project_path)
    if not project.index_path.exists():
        from znt.errors import IndexMissing

        raise IndexMissing(f"no index for {project.root}; run `znt scan` first")
    return project


def _relative_path(project: Project, file: str) -> str:
    """A user-given path as the index names it (relative to the root, forward slashes).

    Absolute paths and paths relative to the current directory are accepted when they lie
    inside the project; anything that escapes it is refused."""
    p = Path(file).expanduser()
    candidates = [p] if p.is_absolute() else [Path.cwd() / p, project.root / p]
    for cand in candidates:
        try:
            resolved = cand.resolve()
        except OSError:
            continue
        try:
            rel = resolved.relative_to(project.root)
        except ValueError:
            continue
        if cand.exists() or cand is candidates[-1]:
            return rel.as_posix()
    raise UsageError(f"{file} is outside the project {project.root}")


def outline(file: str, *, code: bool = False, project_path: str | None = None) -> dict[str, Any]:
    """The file's top-level non-member symbols in line order (the original's file outline)."""
    from znt.index import store

    project = _project_for_read(project_path)
    rel = _relative_path(project, file)
    with store.open_index(project.index_path, read_only=True) as con:
        frow = con.execute(
            "SELECT path, language, size, mtime_ns, lines, status FROM files WHERE path = ?", [rel]
        ).fetchone()
        if frow is None:
            paths = [r[0] for r in con.execute("SELECT path FROM files").fetchall()]
            raise NotFound(
                f"file not found in the index: {rel}",
                file_path=rel,
                suggestions=_close_paths(rel, paths),
            )
        rows = con.execute(
            """
            SELECT id, name, qualified_name, type, kind, role, start_line, end_line,
                   start_byte, end_byte, signature, doc
            FROM symbols
            WHERE file = ? AND parent_id = ? AND type <> 'member'
            ORDER BY start_line, start_byte
            """,
            [rel, rel],
        ).fetchall()
    symbols = []
    source: bytes | None = None
    if code:
        try:
            source = (project.root / rel).read_bytes()
        except OSError:
            source = None
    for r in rows:
        item: dict[str, Any] = {
            "id": r[0],
            "name": r[1],
            "qualified_name": r[2],
            "type": r[3],
            "kind": r[4],
            "role": r[5],
            "start_line": r[6],
            "end_line": r[7],
            "signature": r[10] or "",
            "doc": r[11] or "",
        }
        if code and source is not None:
            item["code"] = source[r[8] : r[9]].decode("utf-8", "replace")
        symbols.append(item)
    try:
        st = (project.root / rel).stat()
        stale = (st.st_size, st.st_mtime_ns) != (frow[2], frow[3])
    except OSError:
        stale = True
    return _doc(
        "outline",
        {
            "file": rel,
            "language": frow[1],
            "lines": frow[4],
            "total_symbols": len(symbols),
            "symbols": symbols,
            "file_changed_since_scan": stale,
            "freshness": freshness(project, check_files=False),
        },
    )


def _close_paths(rel: str, paths: list[str], n: int = 5) -> list[str]:
    base = rel.rsplit("/", 1)[-1]
    same_name = [p for p in paths if p.rsplit("/", 1)[-1] == base]
    close = difflib.get_close_matches(rel, paths, n=n, cutoff=0.5)
    out: list[str] = []
    for p in [*same_name, *close]:
        if p not in out:
            out.append(p)
    return out[:n]


# -- stats -------------------------------------------------------------------------------


def stats(*, project_path: str | None = None) -> dict[str, Any]:
    """Counts by type, kind, language, edge kind and resolution; index size on disk."""
    from znt.index import store

    project = _project_for_read(project_path)

    def grouped(con: Any, sql: str) -> dict[str, int]:
        return {str(k): int(v) for k, v in con.execute(sql).fetchall()}

    with store.open_index(project.index_path, read_only=True) as con:
        body = {
            "files": {
                "total": sum(
                    grouped(con, "SELECT language, count(*) FROM files GROUP BY 1").values()
                ),
                "by_language": grouped(
                    con, "SELECT language, count(*) FROM files GROUP BY 1 ORDER BY 2 DESC"
                ),
                "by_status": grouped(
                    con, "SELECT status, count(*) FROM files GROUP BY 1 ORDER BY 2 DESC"
                ),
                "lines": int(
                    (con.execute("SELECT coalesce(sum(lines), 0) FROM files").fetchone() or [0])[0]
                ),
            },
            "symbols": {
                "total": int((con.execute("SELECT count(*) FROM symbols").fetchone() or [0])[0]),
                "by_type": grouped(
                    con,
                    "SELECT type, count(*) FROM symbols GROUP BY 1 ORDER BY 2 DESC",
                ),
                "by_kind": grouped(
                    con,
                    "SELECT kind, count(*) FROM symbols GROUP BY 1 ORDER BY 2 DESC",
                ),
                "by_language": grouped(
                    con,
                    "SELECT language, count(*) FROM symbols GROUP BY 1 ORDER BY 2 DESC",
                ),
                "by_role": grouped(
                    con,
                    "SELECT role, count(*) FROM symbols GROUP BY 1 ORDER BY 2 DESC",
                ),
                "external": int(
                    (con.execute("SELECT count(*) FROM externals").fetchone() or [0])[0]
                ),
            },
            "edges": {
                "total": int((con.execute("SELECT count(*) FROM edges").fetchone() or [0])[0]),
                "by_kind": grouped(
                    con, "SELECT kind, count(*) FROM edges GROUP BY 1 ORDER BY 2 DESC"
                ),
                "by_resolution": grouped(
                    con, "SELECT resolution, count(*) FROM edges GROUP BY 1 ORDER BY 2 DESC"
                ),
            },
            "references": {
                "total": int((con.execute("SELECT count(*) FROM refs").fetchone() or [0])[0]),
            },
        }
    size = 0
    for p in (project.index_path, project.index_path.with_name("index.duckdb.wal")):
        with contextlib.suppress(OSError):
            size += p.stat().st_size
    body["index"] = {"path": str(project.index_path), "bytes": size}
    body["freshness"] = freshness(project, check_files=False)
    return _doc("stats", body)


# -- logs --------------------------------------------------------------------------------


def logs(
    *, stream_id: str | None = None, after_id: int | None = None, project_path: str | None = None
) -> dict[str, Any]:
    """The last 100 scan log entries, with the original's ``stream_id``/``after_id`` cursor."""
    from znt.index.log import ScanLog

    if (stream_id is None) != (after_id is None):
        raise UsageError("stream_id and after_id must be given together")
    if after_id is not None and not (0 <= after_id <= 9007199254740991):
        raise UsageError("after_id must be an integer between 0 and 9007199254740991")
    project = resolve_project(project_path)
    return _doc("logs", ScanLog(project.log_path).read(stream_id, after_id))
