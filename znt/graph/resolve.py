"""Derive the edges table from the per-file tables, in SQL.

Edges are a pure function of ``symbols``, ``refs``, ``imports``, ``import_candidates`` and
``files``. After a change, only the edges that can differ are recomputed: those that start
in a changed file, and those of every file with an import that could point at a changed
file (its calls into that file may now resolve differently). That keeps a one-file rescan
cheap and an incremental scan equal to a clean one.

Resolution rules and their confidence (docs/languages.md, "Call resolution"):

* ``contains`` - parent to child, from the file's own structure (1.0).
* ``same_scope`` / ``self_method`` / ``constructor`` - resolved inside the file by
  ``znt.index.extract`` (1.0 / 0.9 / 1.0; a ``self`` call may be overridden in a subclass).
* ``import`` - the callee's head is a name the file imports and the import resolves to a
  project file that defines the rest of the name (1.0).
* ``same_package`` - Go/Java/Kotlin: the name is defined at the top level of exactly one
  other file of the same package (package declaration, else folder) and language (1.0).
* ``external`` - the head is an import of something outside the project: the edge goes to
  an external node named by the full dotted path (1.0 that it leaves the project).
* ``unresolved`` / ``local`` - anything else: an external node with the name as written,
  confidence 0. Never bound to a project symbol that merely shares the name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

CONFIDENCE = {
    "contains": 1.0,
    "same_scope": 1.0,
    "constructor": 1.0,
    "self_method": 0.9,
    "import": 1.0,
    "same_package": 1.0,
    "external": 1.0,
    "unresolved": 0.0,
    "local": 0.0,
}

_EDGE_KIND = "CASE r.kind WHEN 'inherits' THEN 'inherits' WHEN 'implements' THEN 'implements' ELSE 'call' END"

# Which project file(s) each import binds. ``module`` candidates name a module
# (``files.module_name`` of the same language), the others a path; suffix candidates must
# match exactly one file or they bind nothing.
_IMPORT_TARGETS = """
CREATE OR REPLACE TEMP TABLE import_targets AS
WITH c AS (
    SELECT c.* FROM import_candidates c SEMI JOIN scope s ON s.path = c.file
),
m AS (
    SELECT c.file, c.line, c.local, c.prio, c.member, c.mode, f.path AS target
    FROM c JOIN files f ON c.mode = 'exact' AND f.path = c.path
    UNION ALL
    SELECT c.file, c.line, c.local, c.prio, c.member, c.mode, f.path
    FROM c JOIN files f ON c.mode = 'dir' AND f.dir = c.path
    UNION ALL
    SELECT c.file, c.line, c.local, c.prio, c.member, c.mode, f.path
    FROM c JOIN files src ON src.path = c.file
    JOIN files f ON c.mode = 'module' AND f.module_name = c.path AND f.language = src.language
    UNION ALL
    SELECT c.file, c.line, c.local, c.prio, c.member, c.mode, f.path
    FROM (SELECT * FROM c WHERE mode = 'suffix') c
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


def _package_scope_languages() -> list[str]:
    from znt.index.languages import all_languages

    return sorted(spec.name for spec in all_languages() if spec.package_scope)


# A file's package: its package declaration (Java, Kotlin), else its folder (Go).
_PACKAGE_KEYS = """
SELECT f.path, f.dir, f.module_name, f.language,
       coalesce('package:' || p.qualified_name, 'dir:' || f.dir) AS pkgkey
FROM files f
LEFT JOIN (SELECT file, min(qualified_name) AS qualified_name FROM symbols
           WHERE kind = 'package' GROUP BY file) p ON p.file = f.path
"""


def _set_scope(con: duckdb.DuckDBPyConnection, changed: Sequence[str] | None) -> None:
    """``scope``: the files whose outgoing edges are recomputed."""
    if changed is None:
        con.execute("CREATE OR REPLACE TEMP TABLE scope AS SELECT path FROM files")
        return
    # Files of the same package see each other's names: only for languages with packages.
    changed_languages = {
        r[0] for r in con.execute("SELECT DISTINCT language FROM changed_keys").fetchall()
    }
    packaged = [name for name in _package_scope_languages() if name in changed_languages]
    same_package = (
        f"""
        UNION
        SELECT k2.path FROM ({_PACKAGE_KEYS}) k2 SEMI JOIN changed_keys k
          ON k.language = k2.language AND k.pkgkey = k2.pkgkey"""
        if packaged
        else ""
    )
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE scope AS
        SELECT path FROM changed_keys{same_package}
        UNION
        SELECT c.file FROM import_candidates c JOIN changed_keys k
          ON c.path = k.path AND c.mode IN ('exact', 'suffix')
        UNION
        SELECT c.file FROM import_candidates c JOIN changed_keys k
          ON c.path = k.dir AND c.mode = 'dir'
        UNION
        SELECT c.file FROM import_candidates c JOIN changed_keys k
          ON c.path = k.module_name AND c.mode = 'module'
        UNION
        SELECT c.file FROM (SELECT * FROM import_candidates WHERE mode = 'suffix') c
        JOIN changed_keys k ON ends_with(k.path, '/' || c.path)
        """
    )


def remember_changed(con: duckdb.DuckDBPyConnection, paths: Sequence[str]) -> None:
    """Record the keys (path, folder, module name) of files about to change, before their
    rows are replaced; ``rebuild_edges`` also adds the keys of their new rows."""
    con.execute(
        "CREATE OR REPLACE TEMP TABLE changed_keys "
        "(path VARCHAR, dir VARCHAR, module_name VARCHAR, language VARCHAR, pkgkey VARCHAR)"
    )
    con.execute("CREATE OR REPLACE TEMP TABLE changed_paths (path VARCHAR)")
    con.execute("INSERT INTO changed_paths SELECT unnest(?)", [list(paths)])
    con.execute(
        f"""
        INSERT INTO changed_keys
        SELECT k.path, k.dir, k.module_name, k.language, k.pkgkey
            FROM ({_PACKAGE_KEYS}) k SEMI JOIN changed_paths c ON c.path = k.path
        """
    )


def rebuild_edges(con: duckdb.DuckDBPyConnection, changed: Sequence[str] | None = None) -> None:
    """Recompute edges: all of them (``changed=None``), or those that ``changed`` files
    (added, modified or deleted; ``remember_changed`` called before their rows changed)
    can affect."""
    conf = CONFIDENCE
    if changed is not None:
        con.execute("INSERT INTO changed_paths SELECT unnest(?)", [list(changed)])
        con.execute(
            f"""
            INSERT INTO changed_keys
            SELECT k.path, k.dir, k.module_name, k.language, k.pkgkey
            FROM ({_PACKAGE_KEYS}) k SEMI JOIN changed_paths c ON c.path = k.path
            """
        )
    _set_scope(con, changed)
    con.execute("CREATE OR REPLACE TEMP TABLE new_edges AS SELECT * FROM edges WITH NO DATA")

    # contains: straight from the parent links.
    con.execute(
        f"""
        INSERT INTO new_edges
        SELECT parent_id, id, 'contains', {conf["contains"]}, 'contains', file, start_line, 1
        FROM symbols s SEMI JOIN scope ON scope.path = s.file
        WHERE parent_id IS NOT NULL
        """
    )
    con.execute(_IMPORT_TARGETS)

    # imports: file -> project module, or file -> external dependency node.
    con.execute(
        f"""
        INSERT INTO new_edges
        SELECT i.file, coalesce(t.target, 'dep::' || i.module), 'imports',
               {conf["import"]}, CASE WHEN t.target IS NULL THEN 'external' ELSE 'import' END,
               i.file, min(i.line), count(*)
        FROM (SELECT * FROM imports i SEMI JOIN scope ON scope.path = i.file) i
        LEFT JOIN (SELECT DISTINCT file, line, local, target FROM import_targets) t
          ON t.file = i.file AND t.line = i.line AND t.local = i.local
        GROUP BY ALL
        """
    )

    con.execute(
        "CREATE OR REPLACE TEMP TABLE scoped_refs AS "
        "SELECT r.*, r.rowid AS rid FROM refs r SEMI JOIN scope ON scope.path = r.file"
    )

    # References resolved inside their file.
    con.execute(
        f"""
        INSERT INTO new_edges
        SELECT r.src, r.target, {_EDGE_KIND},
               CASE r.resolution WHEN 'self_method' THEN {conf["self_method"]} ELSE 1.0 END,
               r.resolution, r.file, r.line, r.count
        FROM scoped_refs r WHERE r.target IS NOT NULL
        """
    )

    # References through imports: the longest imported name that prefixes the callee.
    con.execute(
        """
        CREATE OR REPLACE TEMP TABLE ref_imports AS
        SELECT r.rid, r.file, i.local, i.module, i.name,
               CASE WHEN r.expr = i.local THEN NULL
                    ELSE substr(r.expr, length(i.local) + 2) END AS rest,
               EXISTS (SELECT 1 FROM import_targets t
                       WHERE t.file = r.file AND t.local = i.local) AS internal
        FROM scoped_refs r
        JOIN imports i
          ON i.file = r.file
         AND split_part(i.local, '.', 1) = split_part(r.expr, '.', 1)
         AND (r.expr = i.local OR starts_with(r.expr, i.local || '.'))
        WHERE r.target IS NULL AND r.resolution IS NULL
        QUALIFY row_number() OVER (PARTITION BY r.rid ORDER BY length(i.local) DESC, i.line) = 1
        """
    )
    con.execute(
        """
        CREATE OR REPLACE TEMP TABLE ref_targets AS
        WITH wanted AS (
            SELECT ri.rid, t.target AS tfile,
                   CASE WHEN t.member IS NULL THEN ri.rest
                        WHEN ri.rest IS NULL THEN t.member
                        ELSE t.member || '.' || ri.rest END AS qname
            FROM ref_imports ri
            JOIN import_targets t ON t.file = ri.file AND t.local = ri.local
        )
        SELECT w.rid, s.id AS target, 'import' AS resolution
        FROM wanted w
        JOIN symbols s ON s.file = w.tfile AND s.qualified_name = w.qname
        WHERE s.type IN ('function', 'declaration', 'member')
        QUALIFY row_number() OVER (PARTITION BY w.rid ORDER BY s.id) = 1
        """
    )
    # Languages with packages (Go, Java, Kotlin): a name defined at the top level of exactly
    # one other file of the same package - the same package declaration, or for files
    # without one (Go) the same folder - and language.
    packaged = _package_scope_languages()
    in_scope = {
        row[0]
        for row in con.execute(
            "SELECT DISTINCT f.language FROM files f SEMI JOIN scope ON scope.path = f.path"
        ).fetchall()
    }
    packaged = [name for name in packaged if name in in_scope]
    if packaged:
        in_list = ", ".join(f"'{name}'" for name in packaged)
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE package_keys AS SELECT * FROM ({_PACKAGE_KEYS}) "
            f"WHERE language IN ({in_list})"
        )
        con.execute(
            """
            INSERT INTO ref_targets
            SELECT r.rid, any_value(s.id), 'same_package'
            FROM scoped_refs r
            JOIN package_keys rf ON rf.path = r.file
            JOIN package_keys sf
              ON sf.pkgkey = rf.pkgkey AND sf.language = rf.language AND sf.path <> rf.path
            JOIN symbols s ON s.file = sf.path AND s.qualified_name = r.expr
            ANTI JOIN ref_imports ri ON ri.rid = r.rid
            WHERE r.target IS NULL AND r.resolution IS NULL
              AND s.type IN ('function', 'declaration', 'member')
            GROUP BY r.rid
            HAVING count(DISTINCT s.id) = 1
            """
        )
    con.execute(
        f"""
        INSERT INTO new_edges
        SELECT r.src, rt.target, {_EDGE_KIND}, {conf["import"]}, rt.resolution, r.file, r.line, r.count
        FROM ref_targets rt JOIN scoped_refs r ON r.rid = rt.rid
        """
    )

    # Everything else leaves the project: through an external import, or unresolved.
    con.execute(
        f"""
        INSERT INTO new_edges
        SELECT r.src,
               'ext::' || CASE WHEN ri.internal = false
                               THEN concat_ws('.', ri.module, ri.name, ri.rest)
                               ELSE r.expr END,
               {_EDGE_KIND},
               CASE WHEN ri.internal = false THEN {conf["external"]} ELSE 0.0 END,
               CASE WHEN ri.internal = false THEN 'external'
                    ELSE coalesce(r.resolution, 'unresolved') END,
               r.file, r.line, r.count
        FROM scoped_refs r
        LEFT JOIN ref_imports ri ON ri.rid = r.rid
        ANTI JOIN ref_targets rt ON rt.rid = r.rid
        WHERE r.target IS NULL
        """
    )

    # Replace the scope's edges; merge duplicates (two references to the same target).
    con.execute("DELETE FROM edges WHERE file IN (SELECT path FROM scope)")
    con.execute(
        """
        INSERT INTO edges
        SELECT src, dst, kind, max(confidence), arg_max(resolution, confidence),
               arg_min(file, line), min(line), sum(count)::INTEGER
        FROM new_edges GROUP BY src, dst, kind
        """
    )

    # External nodes: every edge target that is not a project symbol.
    for tmp in (
        "import_targets",
        "ref_imports",
        "ref_targets",
        "new_edges",
        "scoped_refs",
        "package_keys",
        "scope",
        "changed_keys",
        "changed_paths",
    ):
        con.execute(f"DROP TABLE IF EXISTS {tmp}")
