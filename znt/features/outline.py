"""``znt outline``: a file's top-level symbols in line order."""

from __future__ import annotations

from typing import Any

from znt.errors import NotFound
from znt.features.paths import close_paths, relative_path
from znt.features.status import freshness
from znt.project import Project


def outline(project: Project, file: str, *, code: bool) -> dict[str, Any]:
    """The file's top-level non-member symbols in line order (the original's file outline)."""
    from znt.index import store

    rel = relative_path(project, file)
    with store.open_index(project.index_path, read_only=True) as con:
        frow = con.execute(
            "SELECT path, language, size, mtime_ns, lines, status FROM files WHERE path = ?", [rel]
        ).fetchone()
        if frow is None:
            paths = [r[0] for r in con.execute("SELECT path FROM files").fetchall()]
            raise NotFound(
                f"file not found in the index: {rel}",
                file_path=rel,
                suggestions=close_paths(rel, paths),
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
    from znt.formats import text

    body: dict[str, Any] = {
        "file": rel,
        "language": frow[1],
        "lines": frow[4],
        "total_symbols": len(symbols),
        "symbols": symbols,
        "file_changed_since_scan": stale,
        "freshness": freshness(project, check_files=False),
    }
    # the original's field: the outline as text, what its MCP server returns raw
    body["formatted_text"] = text.outline(body)
    return body
