"""Derive the edges table from the per-file tables, in SQL.

Edges are a pure function of ``symbols``, ``refs``, ``imports``, ``import_candidates`` and
``files``, recomputed as a whole inside the scan's write transaction. That is what keeps an
incremental scan equal to a clean one: when ``b.py`` changes, the calls from ``a.py`` into
it are re-resolved without re-parsing ``a.py``.

Resolution rules and their confidence (docs/graph.md):

* ``contains`` - parent to child, from the file's own structure (1.0).
* ``same_scope`` / ``self_method`` / ``constructor`` - resolved inside the file by
  ``znt.index.extract`` (1.0 / 0.9 / 1.0; a ``self`` call may be overridden in a subclass).
* ``import`` - the callee's head is a name the file imports and the import resolves to a
  project file that defines the rest of the name (1.0).
* ``external`` - the head is an import of something outside the project: the edge goes to
  an external node named by the full dotted path (1.0 that it leaves the project).
* ``unresolved`` / ``local`` - anything else: an external node with the name as written,
  confidence 0. Never bound to a project symbol that merely shares the name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

CONFIDENCE = {
    "contains": 1.0,
    "same_scope": 1.0,
    "constructor": 1.0,
    "self_method": 0.9,
    "import": 1.0,
    "external": 1.0,
    "unresolved": 0.0,
    "local": 0.0,
}

_EDGE_KIND = "CASE r.kind WHEN 'inherits' THEN 'inherits' WHEN 'implements' THEN 'implements' ELSE 'call' END"


def rebuild_edges(con: duckdb.DuckDBPyConnection) -> None:
    conf = CONFIDENCE
    con.execute("DELETE FROM edges")
    con.execute("DELETE FROM symbols WHERE file IS NULL")

    # contains: straight from the parent links.
    con.execute(
        f"""
        INSERT INTO edges
        SELECT parent_id, id, 'contains', {conf["contains"]}, 'contains', file, start_line, 1
        FROM symbols WHERE parent_id IS NOT NULL
        """
    )

    # Which project file(s) each import binds. Exact and folder candidates join on equality;
    # suffix candidates (Java-style) must match exactly one file or they bind nothing.
    con.execute(
        """
        CREATE OR REPLACE TEMP TABLE import_targets AS
        WITH m AS (
            SELECT c.file, c.line, c.local, c.prio, c.member, c.mode, f.path AS target
            FROM import_candidates c JOIN files f ON c.mode = 'exact' AND f.path = c.path
            UNION ALL
            SELECT c.file, c.line, c.local, c.prio, c.member, c.mode, f.path
            FROM import_candidates c JOIN files f ON c.mode = 'dir' AND f.dir = c.path
            UNION ALL
            SELECT c.file, c.line, c.local, c.prio, c.member, c.mode, f.path
            FROM (SELECT * FROM import_candidates WHERE mode = 'suffix') c
            JOIN files f ON f.path = c.path OR ends_with(f.path, '/' || c.path)
        ),
        best AS (
            SELECT *, count(*) OVER (PARTITION BY file, line, local, prio) AS n
            FROM m
            QUALIFY rank() OVER (PARTITION BY file, line, local ORDER BY prio) = 1
        )
        SELECT file, line, local, member, target FROM best
        WHERE NOT (mode = 'suffix' AND n > 1) AND target <> file
        """
    )

    # imports: file -> project module, or file -> external dependency node.
    con.execute(
        f"""
        INSERT INTO edges
        SELECT i.file, coalesce(t.target, 'dep::' || i.module), 'imports',
               {conf["import"]}, CASE WHEN t.target IS NULL THEN 'external' ELSE 'import' END,
               i.file, min(i.line), count(*)
        FROM imports i
        LEFT JOIN (SELECT DISTINCT file, line, local, target FROM import_targets) t
          ON t.file = i.file AND t.line = i.line AND t.local = i.local
        GROUP BY ALL
        """
    )

    # References resolved inside their file.
    con.execute(
        f"""
        INSERT INTO edges
        SELECT r.src, r.target, {_EDGE_KIND},
               CASE r.resolution WHEN 'self_method' THEN {conf["self_method"]} ELSE 1.0 END,
               r.resolution, r.file, r.line, r.count
        FROM refs r WHERE r.target IS NOT NULL
        """
    )

    # References through imports: the longest imported name that prefixes the callee.
    con.execute(
        """
        CREATE OR REPLACE TEMP TABLE ref_imports AS
        SELECT r.rowid AS rid, i.local, i.module, i.name,
               CASE WHEN r.expr = i.local THEN NULL
                    ELSE substr(r.expr, length(i.local) + 2) END AS rest
        FROM refs r
        JOIN imports i
          ON i.file = r.file
         AND split_part(i.local, '.', 1) = split_part(r.expr, '.', 1)
         AND (r.expr = i.local OR starts_with(r.expr, i.local || '.'))
        WHERE r.target IS NULL AND r.resolution IS NULL
        QUALIFY row_number() OVER (PARTITION BY r.rowid ORDER BY length(i.local) DESC, i.line) = 1
        """
    )
    con.execute(
        """
        CREATE OR REPLACE TEMP TABLE ref_targets AS
        SELECT ri.rid, s.id AS target
        FROM ref_imports ri
        JOIN refs r ON r.rowid = ri.rid
        JOIN import_targets t ON t.file = r.file AND t.local = ri.local
        JOIN symbols s
          ON s.file = t.target
         AND s.qualified_name = CASE
               WHEN t.member IS NULL THEN ri.rest
               WHEN ri.rest IS NULL THEN t.member
               ELSE t.member || '.' || ri.rest END
        WHERE s.type IN ('function', 'declaration', 'member')
        QUALIFY row_number() OVER (PARTITION BY ri.rid ORDER BY s.id) = 1
        """
    )
    con.execute(
        f"""
        INSERT INTO edges
        SELECT r.src, rt.target, {_EDGE_KIND}, {conf["import"]}, 'import', r.file, r.line, r.count
        FROM ref_targets rt JOIN refs r ON r.rowid = rt.rid
        """
    )

    # Everything else leaves the project: through an external import, or unresolved.
    con.execute(
        f"""
        INSERT INTO edges
        SELECT r.src,
               'ext::' || CASE
                   WHEN ri.rid IS NOT NULL AND NOT EXISTS (
                        SELECT 1 FROM import_targets t WHERE t.file = r.file AND t.local = ri.local)
                   THEN concat_ws('.', ri.module, ri.name, ri.rest)
                   ELSE r.expr END,
               {_EDGE_KIND},
               CASE WHEN ri.rid IS NOT NULL AND NOT EXISTS (
                        SELECT 1 FROM import_targets t WHERE t.file = r.file AND t.local = ri.local)
                    THEN {conf["external"]} ELSE 0.0 END,
               CASE WHEN ri.rid IS NOT NULL AND NOT EXISTS (
                        SELECT 1 FROM import_targets t WHERE t.file = r.file AND t.local = ri.local)
                    THEN 'external' ELSE coalesce(r.resolution, 'unresolved') END,
               r.file, r.line, r.count
        FROM refs r
        LEFT JOIN ref_imports ri ON ri.rid = r.rowid
        LEFT JOIN ref_targets rt ON rt.rid = r.rowid
        WHERE r.target IS NULL AND rt.rid IS NULL
        """
    )

    # Merge duplicate edges (two references that resolve to the same target).
    con.execute(
        """
        CREATE OR REPLACE TEMP TABLE merged AS
        SELECT src, dst, kind, max(confidence) AS confidence,
               arg_max(resolution, confidence) AS resolution,
               arg_min(file, line) AS file, min(line) AS line, sum(count)::INTEGER AS count
        FROM edges GROUP BY src, dst, kind
        """
    )
    con.execute("DELETE FROM edges")
    con.execute("INSERT INTO edges SELECT * FROM merged ORDER BY src, kind, dst")

    # External nodes: every edge target that is not a project symbol.
    con.execute(
        """
        INSERT INTO symbols (id, name, qualified_name, type, kind, role)
        SELECT DISTINCT dst,
               regexp_extract(substr(dst, 6), '[^.]*$'),
               substr(dst, 6),
               CASE WHEN starts_with(dst, 'dep::') THEN 'dependency' ELSE 'function' END,
               CASE WHEN starts_with(dst, 'dep::') THEN 'dependency' ELSE 'external' END,
               'dependency'
        FROM edges
        WHERE starts_with(dst, 'ext::') OR starts_with(dst, 'dep::')
        """
    )
    for tmp in ("import_targets", "ref_imports", "ref_targets", "merged"):
        con.execute(f"DROP TABLE IF EXISTS {tmp}")
