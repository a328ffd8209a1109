"""``znt outline``: a file's top-level symbols in line order."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from znt.errors import NotFound
from znt.features.paths import close_paths, relative_path
from znt.features.status import freshness
from znt.project import Project

if TYPE_CHECKING:
    from znt.results import OutlineBody


# Languages whose methods are top-level declarations of the file (Go's ``func (r *T) M()``):
# the default outline lists them beside the types, as the original's did.
_TOP_LEVEL_METHODS = ("go",)


def outline(project: Project, file: str, *, code: bool, members: bool = False) -> OutlineBody:
    """The file's top-level non-member symbols in line order (the original's file outline;
    Go methods count as top level), or with ``members`` every symbol of the file, nested
    ones too (each with its ``parent_id`` and ``depth``)."""
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
        top_level_methods = frow[1] in _TOP_LEVEL_METHODS
        rows = con.execute(
            """
            SELECT s.id, s.name, s.qualified_name, s.type, s.kind, s.role, s.start_line,
                   s.end_line, s.start_byte, s.end_byte, s.signature, s.doc, s.parent_id
            FROM symbols s LEFT JOIN symbols p ON p.id = s.parent_id
            WHERE s.file = ? AND s.id <> s.file
              AND (? OR (s.parent_id = s.file AND s.type <> 'member')
                   OR (? AND s.type = 'function' AND s.kind = 'method'
                       AND p.parent_id = s.file AND p.kind <> 'interface'))
            ORDER BY s.start_line, s.start_byte
            """,
            [rel, members, top_level_methods],
        ).fetchall()
    symbols = []
    source: bytes | None = None
    if code:
        from znt.features.source import read_text

        source = read_text(project, rel)
    depth: dict[str, int] = {}
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
        if members:
            parent = r[12] if r[12] != rel else None
            item["parent_id"] = parent
            item["depth"] = depth.get(parent, -1) + 1 if parent else 0
            depth[r[0]] = item["depth"]
        if code and source is not None:
            item["code"] = source[r[8] : r[9]].decode("utf-8", "replace")
        symbols.append(item)
    try:
        st = (project.root / rel).stat()
        stale = (st.st_size, st.st_mtime_ns) != (frow[2], frow[3])
    except OSError:
        stale = True
    from znt.formats import text

    body: OutlineBody = {
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
