"""What the edges of other files read from a file: its interface, as one digest per file.

An incremental scan re-derives the edges of a changed file and, because their calls may
now resolve differently, those of every file that could see it (``resolve._set_scope``):
for a module the whole project imports, that is almost every file. But the edges of those
other files read only some of a file's rows: its path, folder, module name and language;
its symbols' names, kinds, owners and ids (and the signatures of the languages whose rules
read types from them); the order of its bases; what it returns, exports and declares, its
stub methods, its decorators and the wrappers its decorators return; its
import candidates (re-exports are followed through them); and its own ``inherits``,
``implements`` and ``imports`` edges (class hierarchies and include graphs). An edit that
leaves all of that as it was (a function's body, a comment, a docstring, code moved down a
few lines) cannot change another file's edges, so only the file's own edges are re-derived.

``digests`` reads the first part from the tables, before and after the file's rows are
replaced; ``resolve.rebuild_edges`` compares the file's own new edges of those kinds with
the old ones and, if they differ, widens the scope as for any other change. A rule in
``resolve`` that starts reading another column of another file's rows must be reflected
here, or an incremental scan would differ from a clean one (tests/test_incremental_*.py).

``digests`` also gives a second digest per file: of every row the resolver reads of the file
itself (``INPUT_TABLES``, all their columns but ``UNREAD_COLUMNS``). A file's edges are a
function of its own rows and of the rest of the index; when both digests of every changed
file are what they were (a comment or docstring edited in place, text appended after the
last line), no edge of the index can come out different and the scan derives none
(tests/test_unread_columns.py changes the unread columns of every fixture file and checks
that a full rebuild gives the same edges).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

# Reference kinds other files' edges read: bases (in order), returned functions, exported
# and declared names, stub methods, decorators, the wrappers decorators return and the
# objects a JavaScript function mixes into what it returns, and a JavaScript function's
# other names.
REF_KINDS = (
    "inherits",
    "implements",
    "returns",
    "exports",
    "declares",
    "abstract",
    "decorated",
    "wraps",
    "mixes",
    "aliases",
)


def _signature_languages() -> list[str]:
    """Languages whose rules read another file's signatures: declared results and field
    types (packages, method sets, chains of declared types: znt/graph/typechains.py),
    file-local definitions (includes)."""
    from znt.graph import resolve

    return sorted(
        set(resolve._package_scope_languages())
        | set(resolve._method_set_languages())
        | set(resolve._typed_member_languages())
        | set(resolve._include_languages())
    )


# The tables the resolver reads a file's own rows from, and their columns that no rule
# reads: what a line appended at the end, or an edited comment or docstring, changes of the
# rows (a symbol's end, its offset in bytes, its docstring and search card; the file's size,
# hash and line count).
INPUT_TABLES = ("files", "symbols", "refs", "imports", "import_candidates")
UNREAD_COLUMNS = {
    "files": ("size", "mtime_ns", "hash", "lines"),
    "symbols": ("end_line", "start_byte", "end_byte", "doc", "card"),
}


def _input_parts() -> str:
    """One ``(file, item)`` SELECT per input table: each row as JSON, its read columns."""
    from znt.index.store import TABLES

    parts = []
    for table in INPUT_TABLES:
        key = "path" if table == "files" else "file"
        skip = {key, *UNREAD_COLUMNS.get(table, ())}
        cols = ", ".join(f"t.{name}::VARCHAR" for name, _type in TABLES[table] if name not in skip)
        parts.append(
            f"SELECT t.{key} AS file, to_json(['{table}', {cols}]) AS item "
            f"FROM {table} t SEMI JOIN sel ON sel.path = t.{key}"
        )
    return "\n            UNION ALL\n            ".join(parts)


def digests(con: duckdb.DuckDBPyConnection, paths: Sequence[str]) -> dict[str, tuple[str, str]]:
    """Two digests of each of ``paths`` that the index holds: of its interface (what other
    files' edges read of it) and of its own rows as the resolver reads them."""
    if not paths:
        return {}
    signed = ", ".join(f"'{name}'" for name in _signature_languages()) or "''"
    kinds = ", ".join(f"'{k}'" for k in REF_KINDS)
    rows = con.execute(
        f"""
        WITH sel AS (SELECT DISTINCT unnest(?::VARCHAR[]) AS path),
        parts AS (
            SELECT f.path AS file,
                   to_json(['f', f.dir, f.language, f.module_name]) AS item
            FROM files f SEMI JOIN sel ON sel.path = f.path
            UNION ALL
            SELECT s.file, to_json(['s', s.id, s.name, s.qualified_name, s.type, s.kind,
                                    s.parent_id, s.language,
                                    CASE WHEN s.language IN ({signed}) THEN s.signature END])
            FROM symbols s SEMI JOIN sel ON sel.path = s.file
            UNION ALL
            SELECT r.file, to_json(['r', r.kind, r.src, r.expr, r.target, r.resolution,
                CASE WHEN r.kind IN ('inherits', 'implements') THEN (row_number() OVER (
                    PARTITION BY r.file, r.src, r.kind ORDER BY r.line, r.col))::VARCHAR END])
            FROM refs r SEMI JOIN sel ON sel.path = r.file
            WHERE r.kind IN ({kinds})
            UNION ALL
            SELECT c.file, to_json(['c', (dense_rank() OVER (
                       PARTITION BY c.file ORDER BY c.line))::VARCHAR,
                       c.local, c.prio::VARCHAR, c.path, c.mode, c.member])
            FROM import_candidates c SEMI JOIN sel ON sel.path = c.file
        ),
        inputs AS (
            {_input_parts()}
        ),
        a AS (
            SELECT file, md5(string_agg(item::VARCHAR, chr(10) ORDER BY item::VARCHAR)) AS d
            FROM parts GROUP BY file
        ),
        b AS (
            SELECT file, md5(string_agg(item::VARCHAR, chr(10) ORDER BY item::VARCHAR)) AS d
            FROM inputs GROUP BY file
        )
        SELECT a.file, a.d, b.d FROM a JOIN b USING (file)
        """,
        [list(paths)],
    ).fetchall()
    return {path: (interface, inputs) for path, interface, inputs in rows}
