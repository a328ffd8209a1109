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
* ``assigned`` - the callee was rewritten through what a name holds (``x = Cls(); x.m()``,
  ``f = g; f()``, ``self.x = Cls()``, an annotation ``x: Cls``; 0.8: flow-insensitive).
* ``self_method`` / ``super`` / ``inherited`` - a member found in a class's bases, in
  method resolution order (C3), from a ``self`` call, a ``super()`` call or ``Cls.m``
  (0.9 / 0.9 / 1.0).
* ``constructor`` - also: a call of a class calls its ``__init__`` (found through the bases).
* ``super`` also: a ``@reference.super`` call of any language (Java/Kotlin ``super.m()``, C#
  ``base.M()``, PHP ``parent::m()``), looked up after the enclosing class in its bases (0.9).
* ``method_set`` - ``implements`` for languages whose types implement interfaces by their
  methods (Go, ``IMPLEMENTS_BY_METHOD_SET``): same package, same names and results (0.9).
* ``assigned`` also: what an imported function returns (``a = f(); a()``), read from the
  ``returns`` rows of ``f``'s file (refs of kind ``returns``, never edges themselves: the
  functions each function returns, resolved in its own file); an outside or unknown
  function's result is an unresolved ``ext::f()``.
* ``import`` also: a name a file exports without defining it so (JavaScript/TypeScript): its
  ``exports`` rows (refs of kind ``exports``, never edges: ``export default f``) and its
  re-exports (imports whose local name is ``export <name>`` or ``export *``), followed a
  few files deep; a name two ``export *`` give is bound to neither.
* ``ambiguous`` - one of several values a name is bound to (0.5): every candidate is kept,
  none is guessed.
* ``receiver_name`` - (JavaScript, ``LanguageSpec.receiver_names``) a call on an untyped
  local whose name is the name of exactly one module-level object of the project that has
  member functions (``res.send()`` on a callback's ``res``, where ``lib/response.js`` says
  ``var res = ...; res.send = function``): that object's member (0.4). A reading of a
  naming convention, not of a type: kept below ``check``'s default confidence.
* ``unresolved`` / ``local`` - anything else: an external node with the name as written,
  confidence 0. Never bound to a project symbol that merely shares the name.

Type flow (bindings, bases, ``super()``) applies to the languages whose query names
bindings (``@binding``, see ``znt.index.extract``); the member lookup through bases is the
one rule computed in Python (a C3 linearisation over the ``inherits`` edges), on rows read
from these tables, so it stays a function of them like the SQL rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from typing import TYPE_CHECKING

from znt.index.store import RESOLVER_FACTS, TABLES, insert_rows, temp_table

if TYPE_CHECKING:
    import duckdb


def _in_list(names: Iterable[str]) -> str:
    """Names as a SQL list of string literals (language names, kinds, hints: never input)."""
    return ", ".join(f"'{name}'" for name in names)


# A reference through an import, as the name it asks for in the imported file: the
# import's member (``from m import Cls``) and the rest of the reference (``Cls.method``).
# Shared by the statements that resolve ``import``, ``returns`` and re-export targets.
IMPORTED_NAME = """SELECT ri.rid, t.target AS tfile, ri.hint,
                   CASE WHEN t.member IS NULL THEN ri.rest
                        WHEN ri.rest IS NULL THEN t.member
                        ELSE t.member || '.' || ri.rest END AS qname
            FROM ref_imports ri
            JOIN import_targets t ON t.file = ri.file AND t.local = ri.local"""

# The names asked of a package's ``__init__`` that no rule has bound yet (re-exports).
_INIT_WANTED = f"""{IMPORTED_NAME}
    ANTI JOIN ref_targets rt ON rt.rid = ri.rid
    WHERE (ri.hint IS NULL OR ri.hint IN ('assigned', 'assigned?'))
      AND ends_with(t.target, '__init__.py')"""

# The member a default import binds (``import X from``, ``require``; javascript.py).
_DEFAULT_MEMBER = "default"

CONFIDENCE = {
    "contains": 1.0,
    "same_scope": 1.0,
    "constructor": 1.0,
    "self_method": 0.9,
    "import": 1.0,
    "same_package": 1.0,
    "external": 1.0,
    "assigned": 0.8,
    "inherited": 1.0,
    "super": 0.9,
    "method_set": 0.9,
    "ambiguous": 0.5,
    "override": 0.5,
    "receiver_name": 0.4,
    "wrapper": 0.9,
    "wrapped": 0.9,
    "unresolved": 0.0,
    "local": 0.0,
}

# Hints ``znt.index.extract`` leaves in ``refs.resolution`` for a member to look up in a
# class and its bases (a trailing ``?``: one of several candidates).
_MEMBER_HINTS = ("member", "self", "super", "member?", "self?", "super?")
# A call through an import to outside the project is ``external``, except a method of an
# instance of an outside class (``s = socket.socket(); s.bind()``): its type is inferred.
_NOT_MEMBER = "(r.resolution IS NULL OR r.resolution IN ('assigned', 'assigned?'))"
# What an outside (or unknown) function returns is not known: unresolved, named ``f()``.
_RETURNS = "r.resolution IN ('returns', 'returns?')"
# A super call no base defines (the base is outside the project): ``ext::super.m``, never
# read through an import that shares the head of the class's qualified name.
_SUPER = "r.resolution IN ('super', 'super?')"
_HINT_RESOLUTION = {"member": "assigned", "self": "self_method", "super": "super", "": "inherited"}


# An edge's confidence and then its resolution's place by name, as one BIGINT for
# ``arg_max`` (a ``row(confidence, resolution)`` made the merge of sympy's edges take ~55 MB
# more): ties of confidence are broken the same way in every scan.
_RESOLUTION_RANK = (
    "round(confidence * 1000000)::BIGINT * 64 + coalesce(list_position(["
    + _in_list(sorted(CONFIDENCE))
    + "], resolution), 0)"
)
# The first line and then the file's hash, likewise (two files at one line: the same one
# chosen every time, not the first by name, which a ``row(line, file)`` cost ~35 MB for).
_FILE_RANK = "line::BIGINT * 4294967296 + (hash(file) % 4294967296)::BIGINT"


def _confidence_sql(column: str) -> str:
    cases = " ".join(f"WHEN '{k}' THEN {v}" for k, v in CONFIDENCE.items())
    return f"CASE {column} {cases} ELSE 1.0 END"


@cache
def _flow_languages() -> tuple[str, ...]:
    """Languages whose query names bindings: type flow and member lookup apply to them."""
    from znt.index.languages import all_languages, query_source

    return tuple(
        sorted(spec.name for spec in all_languages() if "@binding" in query_source(spec.name))
    )


@cache
def _constructor_methods() -> dict[str, str]:
    """Each language whose constructor is a method of the class, with that method's name
    (``__init__``, ``constructor``, ``__construct``, ``initialize``): a call of the class
    (``Foo()``, ``new Foo()``) also calls it. A language's first constructor name is the
    one the call runs (Python's ``__new__`` is left to its class)."""
    from znt.index.languages import all_languages

    return {
        spec.name: spec.constructor_names[0] for spec in all_languages() if spec.constructor_names
    }


_EDGE_KIND = "CASE r.kind WHEN 'inherits' THEN 'inherits' WHEN 'implements' THEN 'implements' ELSE 'call' END"

# Which project file(s) each import binds. ``module`` candidates name a module
# (``files.module_name`` of the same language), the others a path; suffix and package
# candidates must match exactly one file or they bind nothing.
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
    FROM c JOIN files f ON c.mode = 'dir' AND coalesce(f.dir, '') = coalesce(c.path, '')
    -- not the files a package import never sees (Go's ``_test.go``): ``dir_excludes``
    ANTI JOIN dir_excludes x ON x.language = f.language AND ends_with(f.path, x.suffix)
    UNION ALL
    SELECT c.file, c.line, c.local, c.prio, c.member, c.mode, f.path
    FROM c JOIN files src ON src.path = c.file
    JOIN files f ON c.mode = 'module' AND f.module_name = c.path AND f.language = src.language
    UNION ALL
    SELECT c.file, c.line, c.local, c.prio, c.member, c.mode, f.path
    FROM (SELECT * FROM c WHERE mode = 'suffix') c
    -- The names' last parts are equal first: a hash join, where the condition alone was a
    -- nested loop over every candidate and file (0.8 s against 0.02 s on the monorepo's
    -- 6,669 candidates and 10,486 files).
    JOIN files f ON split_part(f.path, '/', -1) = split_part(c.path, '/', -1)
     AND (f.path = c.path OR ends_with(f.path, '/' || c.path))
    UNION ALL
    -- ``via``: the path is a name another import of the same file binds to a project file
    -- by an exact path (Rust ``mod util;`` then ``use util::f;``); that file is the target.
    SELECT c.file, c.line, c.local, c.prio, c.member, c.mode, f.path
    FROM (SELECT * FROM c WHERE mode = 'via') c
    JOIN import_candidates d ON d.file = c.file AND d.local = c.path AND d.line <> c.line
     AND d.mode = 'exact' AND d.member IS NULL
    JOIN files f ON f.path = d.path
    UNION ALL
    -- ``symbol``: the files of the same language that define a type of that qualified name
    -- (a C# alias names a namespace-qualified type, whichever file holds it).
    SELECT DISTINCT c.file, c.line, c.local, c.prio, c.member, c.mode, s.file
    FROM (SELECT * FROM c WHERE mode = 'symbol') c
    JOIN files src ON src.path = c.file
    JOIN symbols s ON s.qualified_name = c.path AND s.language = src.language
     AND s.type = 'declaration'
    UNION ALL
    -- ``main``: a folder's ``package.json`` names its entry file (``"main": "lib/app.js"``,
    -- JavaScript's ``require('..')``), tried as written, then as ``.js`` and a folder's
    -- ``index.js``; the first that exists.
    SELECT * FROM (
        SELECT c.file, c.line, c.local, c.prio, c.member, c.mode, f.path
        FROM (SELECT *, left(path, length(path) - length('package.json')) AS dir
              FROM c WHERE mode = 'main') c
        JOIN symbols s ON s.file = c.path AND s.qualified_name = 'main'
        CROSS JOIN LATERAL (SELECT c.dir || rtrim(regexp_replace(regexp_extract(
            s.signature, ':[ \t]*"([^"]+)"[ \t]*$', 1), '^([.]/)+', ''), '/') AS entry) e
        JOIN files f ON e.entry <> c.dir
         AND f.path IN (e.entry, e.entry || '.js', e.entry || '/index.js')
        QUALIFY row_number() OVER (PARTITION BY c.file, c.line, c.local
                                   ORDER BY f.path <> e.entry, length(f.path)) = 1
    )
    UNION ALL
    -- ``package``: the files of the same language whose package declaration is the path
    -- and that define the member's head at their top level (a Kotlin top-level function:
    -- ``import com.acme.text.slugify``); like ``suffix``, it must be exactly one file.
    SELECT DISTINCT c.file, c.line, c.local, c.prio, c.member, c.mode, s.file
    FROM (SELECT * FROM c WHERE mode = 'package') c
    JOIN files src ON src.path = c.file
    JOIN symbols p ON p.kind = 'package' AND p.qualified_name = c.path
     AND p.language = src.language
    JOIN symbols s ON s.file = p.file AND s.parent_id = s.file
     AND s.qualified_name = split_part(c.member, '.', 1)
     AND s.type IN ('function', 'declaration', 'member')
),
best AS (
    SELECT *, count(*) OVER (PARTITION BY file, line, local, prio) AS n
    FROM m
    QUALIFY rank() OVER (PARTITION BY file, line, local ORDER BY prio) = 1
)
SELECT file, line, local, member, target FROM best
WHERE NOT (mode IN ('suffix', 'package') AND n > 1) AND target <> file
"""


@cache
def _dir_exclude_rows() -> tuple[tuple[str, str], ...]:
    """(language, file-name ending) pairs a ``dir`` import never binds: the module of a
    language in ``znt/index/lang/`` lists them in ``DIR_IMPORT_EXCLUDES`` (Go's ``_test.go``
    files are not part of the package another package imports)."""
    import importlib

    from znt.index.languages import all_languages

    return tuple(
        (spec.name, suffix)
        for spec in all_languages()
        for suffix in getattr(
            importlib.import_module(f"znt.index.lang.{spec.name}"), "DIR_IMPORT_EXCLUDES", ()
        )
    )


def _dir_excludes(con: duckdb.DuckDBPyConnection) -> None:
    """``dir_excludes``: the table ``_IMPORT_TARGETS`` reads ``_dir_exclude_rows`` from."""
    columns = (("language", "VARCHAR"), ("suffix", "VARCHAR"))
    temp_table(con, "dir_excludes", columns, _dir_exclude_rows())


def _package_scope_languages() -> list[str]:
    from znt.index.languages import all_languages

    return sorted(spec.name for spec in all_languages() if spec.package_scope)


# A file's package: its package declaration (Java, Kotlin), else its folder (Go).
_PACKAGE_KEYS = """
SELECT f.path, f.dir, f.module_name, f.language,
       coalesce('package:' || p.qualified_name, 'dir:' || coalesce(f.dir, '')) AS pkgkey
FROM files f
LEFT JOIN (SELECT file, min(qualified_name) AS qualified_name FROM symbols
           WHERE kind = 'package' GROUP BY file) p ON p.file = f.path
"""

# The same columns, no rows: the package keys of a scope without a package-scope language.
_NO_PACKAGE_KEYS = """
SELECT path, dir, module_name, language, NULL::VARCHAR AS pkgkey FROM files WHERE false
"""


def _set_scope(
    con: duckdb.DuckDBPyConnection, changed: Sequence[str] | None, quiet: Sequence[str] = ()
) -> None:
    """``scope``: the files whose outgoing edges are recomputed; the ``quiet`` files (see
    ``rebuild_edges``), whose keys are held out of ``changed_keys``, are in it alone."""
    _grow_from_changes(con, changed, quiet)
    if quiet:
        con.execute(
            "INSERT INTO scope SELECT unnest(?::VARCHAR[]) AS path EXCEPT SELECT path FROM scope",
            [list(quiet)],
        )


def _grow_from_changes(
    con: duckdb.DuckDBPyConnection, changed: Sequence[str] | None, quiet: Sequence[str] = ()
) -> None:
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
        UNION
        SELECT c.file FROM import_candidates c JOIN files f ON f.path = c.file
        SEMI JOIN changed_keys k ON k.language = f.language
        WHERE c.mode = 'symbol'
        UNION
        SELECT c.file FROM import_candidates c JOIN changed_keys k
          ON c.mode = 'package' AND k.pkgkey = 'package:' || c.path
        UNION
        -- a folder's entry file, named by its package.json (``main``): any file of the
        -- language, or that package.json, may be it
        SELECT c.file FROM import_candidates c JOIN files f ON f.path = c.file
        SEMI JOIN changed_keys k ON k.language = f.language OR k.path = c.path
        WHERE c.mode = 'main'
        """
    )
    _reexport_scope(con)
    _include_scope(con, changed_languages)
    _receiver_name_scope(con, changed_languages, quiet)
    flow = [name for name in _flow_languages() if name in changed_languages]
    if flow:
        # A call's target may be found in the bases of a class from another file (``self``
        # calls, instances, constructors), and those bases in yet another file; a name may
        # be re-exported by a package's ``__init__``; a decorated function may be a wrapper
        # another file's decorator returns (``_wrapper_edges``). So the importers of a file
        # in scope that defines a class with bases, or a function decorated by a name of its
        # own or imported by name (``@property`` is neither), or is an ``__init__``, are in
        # scope too, transitively: that covers every chain of imports a hierarchy,
        # re-export or decorator takes.
        in_list = _in_list(flow)
        _grow_scope(
            con,
            f"""
            SELECT c.file FROM chain
            JOIN files f ON f.path = chain.path AND f.language IN ({in_list})
            JOIN import_candidates c
              ON (c.mode = 'module' AND c.path = f.module_name)
              OR (c.mode = 'exact' AND c.path = f.path)
            WHERE ends_with(f.path, '__init__.py')
               OR EXISTS (SELECT 1 FROM refs r
                          WHERE r.file = f.path AND r.kind = 'inherits')
               OR EXISTS (SELECT 1 FROM refs r
                          WHERE r.file = f.path AND r.kind = 'decorated'
                            AND (r.target IS NOT NULL
                                 OR EXISTS (SELECT 1 FROM import_candidates d
                                            WHERE d.file = r.file AND d.local = r.expr
                                              AND d.mode = 'module'
                                              AND d.member IS NOT NULL)))
            """,
        )


def _grow_scope(con: duckdb.DuckDBPyConnection, steps: str) -> None:
    """``scope`` grown to a fixed point: ``steps`` (one-column SELECTs joined by UNION,
    which may read ``chain``, the paths found so far) add files until none is new."""
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE scope AS
        WITH RECURSIVE chain(path) AS (
            SELECT path FROM scope
            UNION
            {steps}
        )
        SELECT DISTINCT path FROM chain
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
    _remember_include_names(con)
    _remember_object_names(con, paths)


def rebuild_edges(
    con: duckdb.DuckDBPyConnection,
    changed: Sequence[str] | None = None,
    quiet: Sequence[str] = (),
) -> None:
    """Recompute edges: all of them (``changed=None``), or those that ``changed`` files
    (added, modified or deleted; ``remember_changed`` called before their rows changed)
    can affect. ``quiet`` are changed files whose interface (znt/graph/interface.py) is
    what it was: only their own edges are re-derived, unless their own ``inherits``,
    ``implements`` or ``imports`` edges come out different, which widens the scope as
    for any other change."""
    if changed is not None:
        con.execute("INSERT INTO changed_paths SELECT unnest(?)", [list(changed)])
        con.execute(
            f"""
            INSERT INTO changed_keys
            SELECT k.path, k.dir, k.module_name, k.language, k.pkgkey
            FROM ({_PACKAGE_KEYS}) k SEMI JOIN changed_paths c ON c.path = k.path
            """
        )
    quiet = sorted(set(quiet) & set(changed or ()))
    if quiet:
        _set_quiet(con, quiet)
    _set_scope(con, changed, quiet)
    _derive_edges(con)
    if quiet and _quiet_edges_changed(con):
        _set_quiet(con, [])  # their keys back: every file that can see them is rebuilt
        _set_scope(con, changed)
        _derive_edges(con)
    _replace_edges(con)


def _set_quiet(con: duckdb.DuckDBPyConnection, quiet: Sequence[str]) -> None:
    """Hold the keys (and the include names) of the ``quiet`` files out of the tables
    ``_set_scope`` grows the scope from (a copy of them in ``quiet_keys``, of all names in
    ``quiet_names``); with no files, put them back."""
    names = bool(_include_languages())  # ``changed_names`` exists (remember_changed)
    if not quiet:
        con.execute("INSERT INTO changed_keys SELECT * FROM quiet_keys")
        con.execute("DELETE FROM quiet")
        if names:
            con.execute("CREATE OR REPLACE TEMP TABLE changed_names AS SELECT * FROM quiet_names")
        return
    con.execute(
        "CREATE OR REPLACE TEMP TABLE quiet AS SELECT unnest(?::VARCHAR[]) AS path", [quiet]
    )
    con.execute(
        "CREATE OR REPLACE TEMP TABLE quiet_keys AS "
        "SELECT * FROM changed_keys SEMI JOIN quiet USING (path)"
    )
    con.execute("DELETE FROM changed_keys WHERE path IN (SELECT path FROM quiet)")
    if names:
        con.execute("CREATE OR REPLACE TEMP TABLE quiet_names AS SELECT * FROM changed_names")
        con.execute("DELETE FROM changed_names WHERE file IN (SELECT path FROM quiet)")


# Edge kinds of a file that other files' edges read (hierarchies, include graphs): part of a
# file's interface (znt/graph/interface.py, which imports this module, reads them here).
INTERFACE_EDGE_KINDS = ("inherits", "implements", "imports")


def _quiet_edges_changed(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether a quiet file's own edges that other files read (``INTERFACE_EDGE_KINDS``)
    differ from those the index holds."""
    kinds = _in_list(INTERFACE_EDGE_KINDS)
    row = con.execute(
        f"""
        WITH old AS (
            SELECT src, dst, kind, resolution FROM edges
            WHERE file IN (SELECT path FROM quiet) AND kind IN ({kinds})
        ),
        new AS (
            SELECT src, dst, kind, arg_max(resolution, confidence) AS resolution
            FROM new_edges WHERE file IN (SELECT path FROM quiet) AND kind IN ({kinds})
            GROUP BY src, dst, kind
        )
        SELECT (SELECT count(*) FROM (SELECT * FROM old EXCEPT SELECT * FROM new))
             + (SELECT count(*) FROM (SELECT * FROM new EXCEPT SELECT * FROM old))
        """
    ).fetchone()
    return bool(row and row[0])


def _derive_edges(con: duckdb.DuckDBPyConnection) -> None:
    """The edges of the files in ``scope``, into ``new_edges``."""
    conf = CONFIDENCE
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
    _dir_excludes(con)
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
        "SELECT r.*, r.rowid AS rid FROM refs r SEMI JOIN scope ON scope.path = r.file "
        f"WHERE r.kind NOT IN ({RESOLVER_FACTS})"
    )

    # References resolved inside their file.
    con.execute(
        f"""
        INSERT INTO new_edges
        SELECT r.src, r.target, {_EDGE_KIND}, {_confidence_sql("r.resolution")},
               r.resolution, r.file, r.line, r.count
        FROM scoped_refs r WHERE r.target IS NOT NULL
        """
    )

    # References through imports: the longest imported name that prefixes the callee.
    con.execute(
        """
        CREATE OR REPLACE TEMP TABLE ref_imports AS
        SELECT r.rid, r.file, i.local, i.module, i.name, r.resolution AS hint,
               CASE WHEN r.expr = i.local THEN NULL
                    ELSE substr(r.expr, length(i.local) + 2) END AS rest,
               EXISTS (SELECT 1 FROM import_targets t
                       WHERE t.file = r.file AND t.local = i.local) AS internal
        FROM scoped_refs r
        JOIN imports i
          ON i.file = r.file
         AND split_part(i.local, '.', 1) = split_part(r.expr, '.', 1)
         AND (r.expr = i.local OR starts_with(r.expr, i.local || '.'))
        WHERE r.target IS NULL AND r.resolution IS DISTINCT FROM 'local'
        QUALIFY row_number() OVER (PARTITION BY r.rid ORDER BY length(i.local) DESC, i.line) = 1
        """
    )
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE ref_targets AS
        WITH wanted AS (
            {IMPORTED_NAME}
            WHERE ri.hint IS NULL OR ri.hint IN ('assigned', 'assigned?')
        )
        SELECT w.rid, s.id AS target,
               CASE WHEN w.hint = 'assigned?' THEN 'ambiguous' ELSE 'import' END AS resolution
        FROM wanted w
        JOIN symbols s ON s.file = w.tfile AND s.qualified_name = w.qname
        WHERE s.type IN ('function', 'declaration', 'member')
        QUALIFY row_number() OVER (PARTITION BY w.rid ORDER BY s.id) = 1
        """
    )
    # CommonJS: ``const m = require('./m'); m.run()`` where m.js has no default export
    # (no ``module.exports = ...`` row) but defines ``exports.run = ...``: the module
    # object's member is the file's top-level name.
    con.execute(
        f"""
        INSERT INTO ref_targets
        WITH wanted AS (
            {IMPORTED_NAME}
            ANTI JOIN ref_targets rt ON rt.rid = ri.rid
            WHERE (ri.hint IS NULL OR ri.hint IN ('assigned', 'assigned?'))
              AND t.member = '{_DEFAULT_MEMBER}' AND ri.rest IS NOT NULL
        )
        SELECT w.rid, min(s.id), 'import'
        FROM wanted w
        JOIN ref_imports ri ON ri.rid = w.rid
        JOIN symbols s ON s.file = w.tfile AND s.qualified_name = ri.rest
                      AND s.type IN ('function', 'declaration')
        ANTI JOIN (SELECT file FROM refs WHERE kind = 'exports' AND expr = '{_DEFAULT_MEMBER}') x
          ON x.file = w.tfile
        GROUP BY w.rid
        """
    )
    # What an imported function returns (``a = func(); a()``): the functions its file's
    # ``returns`` rows name; several of them are each a candidate.
    con.execute(
        f"""
        INSERT INTO ref_targets
        WITH wanted AS (
            {IMPORTED_NAME}
            WHERE ri.hint IN ('returns', 'returns?')
        ),
        fn AS (
            SELECT w.rid, w.hint, min(s.id) AS id
            FROM wanted w
            JOIN symbols s ON s.file = w.tfile AND s.qualified_name = w.qname
            WHERE s.type = 'function'
            GROUP BY w.rid, w.hint
        )
        SELECT fn.rid, r.target,
               CASE WHEN fn.hint = 'returns?' OR count(*) OVER (PARTITION BY fn.rid) > 1
                    THEN 'ambiguous' ELSE 'assigned' END
        FROM fn JOIN refs r ON r.src = fn.id AND r.kind = 'returns' AND r.target IS NOT NULL
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
        in_list = _in_list(packaged)
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
    flow = _flow_languages()
    if flow:
        # ``from m import *``: a name no other rule binds, defined at the top of exactly
        # one module imported that way.
        in_list = _in_list(flow)
        con.execute(
            f"""
            INSERT INTO ref_targets
            SELECT r.rid, any_value(s.id), 'import'
            FROM scoped_refs r
            JOIN files f ON f.path = r.file AND f.language IN ({in_list})
            JOIN import_targets t ON t.file = r.file AND t.local = '*'
            JOIN symbols s ON s.file = t.target AND s.qualified_name = r.expr
            ANTI JOIN ref_imports ri ON ri.rid = r.rid
            ANTI JOIN ref_targets rt ON rt.rid = r.rid
            WHERE r.target IS NULL
              AND (r.resolution IS NULL OR r.resolution IN ('assigned', 'assigned?'))
              AND s.type IN ('function', 'declaration')
            GROUP BY r.rid
            HAVING count(DISTINCT s.id) = 1
            """
        )
        # A name a package's ``__init__`` imports from one of its modules (a re-export):
        # one more step through that file's imports.
        con.execute(
            f"""
            INSERT INTO ref_targets
            WITH wanted AS ({_INIT_WANTED}),
            hop AS (
                SELECT w.rid, w.hint, w.tfile, c.member, c.path AS module,
                       CASE WHEN w.qname = c.local THEN NULL
                            ELSE substr(w.qname, length(c.local) + 2) END AS rest
                FROM wanted w
                JOIN import_candidates c ON c.file = w.tfile AND c.mode = 'module'
                 AND (w.qname = c.local OR starts_with(w.qname, c.local || '.'))
            )
            SELECT h.rid, min(s.id),
                   CASE WHEN any_value(h.hint) = 'assigned?' THEN 'ambiguous' ELSE 'import' END
            FROM hop h
            JOIN files src ON src.path = h.tfile
            JOIN files f ON f.module_name = h.module AND f.language = src.language
                        AND f.language IN ({in_list})
            JOIN symbols s ON s.file = f.path AND s.type IN ('function', 'declaration', 'member')
             AND s.qualified_name = CASE WHEN h.member IS NULL THEN h.rest
                                         WHEN h.rest IS NULL THEN h.member
                                         ELSE h.member || '.' || h.rest END
            GROUP BY h.rid
            """
        )
        # A name a package's ``__init__`` takes from one of its modules with ``from .m
        # import *`` (``httpx.Client``, ``httpx.get``): the module's top-level name.
        _star_exports(con, in_list)
        con.execute(
            f"""
            INSERT INTO ref_targets
            WITH wanted AS ({_INIT_WANTED})
            SELECT w.rid, min(s.id),
                   CASE WHEN any_value(w.hint) = 'assigned?' THEN 'ambiguous' ELSE 'import' END
            FROM wanted w
            JOIN star_exports x ON x.file = w.tfile AND x.name = split_part(w.qname, '.', 1)
            JOIN symbols s ON s.file = x.tfile AND s.qualified_name = w.qname
                          AND s.type IN ('function', 'declaration', 'member')
            GROUP BY w.rid
            """
        )
    else:
        con.execute(_NO_STAR_EXPORTS)
    _include_targets(con)
    _export_targets(con)
    _target_edges(con, "ref_targets")
    classes = _OneHierarchy(con)
    _member_targets(con, classes)
    _mixed_member_targets(con)
    _receiver_name_targets(con)

    # Everything else leaves the project: through an external import, or unresolved.
    con.execute(
        f"""
        INSERT INTO new_edges
        SELECT r.src,
               'ext::' || CASE WHEN {_RETURNS} THEN r.expr || '()'
                               WHEN {_SUPER} THEN 'super.' || regexp_extract(r.expr, '[^.]*$')
                               WHEN ri.internal = false
                               THEN concat_ws('.', ri.module, ri.name, ri.rest)
                               ELSE r.expr END,
               {_EDGE_KIND},
               CASE WHEN {_RETURNS} THEN 0.0
                    WHEN ri.internal = false AND {_NOT_MEMBER} THEN {conf["external"]}
                    WHEN ri.internal = false THEN {conf["assigned"]}
                    ELSE 0.0 END,
               CASE WHEN {_RETURNS} THEN 'unresolved'
                    WHEN ri.internal = false AND {_NOT_MEMBER} THEN 'external'
                    WHEN ri.internal = false THEN 'assigned'
                    WHEN r.resolution = 'local' THEN 'local'
                    ELSE 'unresolved' END,
               r.file, r.line, r.count
        FROM scoped_refs r
        LEFT JOIN ref_imports ri ON ri.rid = r.rid AND NOT coalesce({_SUPER}, false)
        ANTI JOIN ref_targets rt ON rt.rid = r.rid
        WHERE r.target IS NULL
        """
    )
    _constructor_edges(con, classes)
    _method_set_edges(con)
    _dispatch_edges(con)
    _override_edges(con, classes)
    _wrapper_edges(con)


# ``reach``: the files whose top-level names a package's ``__init__`` takes with ``from .m
# import *``, through up to four such packages (traverse.py names ``requests.get`` with it).
STAR_REACH = """WITH RECURSIVE star AS (
    SELECT c.file, t.path AS tfile, c.line
    FROM import_candidates c
    JOIN files src ON src.path = c.file AND src.language IN ({languages})
    JOIN files t ON t.module_name = c.path AND t.language = src.language
    WHERE c.local = '*' AND c.mode = 'module' AND ends_with(c.file, '__init__.py')
),
reach(file, tfile, line, depth) AS (
    SELECT file, tfile, line, 1 FROM star
    UNION
    SELECT r.file, s.tfile, r.line, r.depth + 1
    FROM reach r JOIN star s ON s.file = r.tfile
    WHERE r.depth < 4
)"""
# Of two star imports giving a name, the one imported last binds it (then the nearest).
STAR_ORDER = "r.line DESC, r.depth, r.tfile"

_NO_STAR_EXPORTS = (
    "CREATE OR REPLACE TEMP TABLE star_exports (file VARCHAR, name VARCHAR, tfile VARCHAR)"
)


def _star_exports(con: duckdb.DuckDBPyConnection, languages: str) -> None:
    """``star_exports``: the public top-level names (no leading ``_``) a package's
    ``__init__`` takes from its modules with ``from .m import *``, and the file each comes
    from, through up to four such packages (``httpx`` -> ``httpx._transports`` ->
    ``httpx._transports.mock``); of two modules giving a name, the one imported last, as
    Python binds it. ``__all__`` is not read: a name it leaves out is one no importer can
    use anyway."""
    con.execute(_NO_STAR_EXPORTS)
    con.execute(
        f"""
        INSERT INTO star_exports
        {STAR_REACH.format(languages=languages)}
        SELECT r.file, s.name, r.tfile
        FROM reach r
        JOIN symbols s ON s.file = r.tfile AND s.parent_id = r.tfile
        WHERE NOT starts_with(s.name, '_')
        QUALIFY row_number() OVER (PARTITION BY r.file, s.name ORDER BY {STAR_ORDER}) = 1
        """
    )


def _replace_edges(con: duckdb.DuckDBPyConnection) -> None:
    """Replace the scope's edges; merge duplicates (two references to the same target).

    Of duplicates as confident as each other (an ``ambiguous`` and an ``override`` edge,
    both 0.5), the resolution greatest by name is kept (``_RESOLUTION_RANK``), and of two
    files at one line always the same one (``_FILE_RANK``): DuckDB's parallel ``arg_max``
    picks any of tied rows, and the same files must always give the same rows (the
    incremental == clean property, benchmarks/index_diff.py)."""
    con.execute("DELETE FROM edges WHERE file IN (SELECT path FROM scope)")
    con.execute(
        f"""
        INSERT INTO edges
        SELECT src, dst, kind, max(confidence), arg_max(resolution, {_RESOLUTION_RANK}),
               arg_min(file, {_FILE_RANK}), min(line), sum(count)::INTEGER
        FROM new_edges GROUP BY src, dst, kind
        """
    )

    # External nodes: every edge target that is not a project symbol.
    for tmp in (
        "import_targets",
        "ref_imports",
        "ref_targets",
        "member_refs",
        "mixed_targets",
        "export_map",
        "new_edges",
        "scoped_refs",
        "package_keys",
        "scope",
        "changed_keys",
        "changed_paths",
        "quiet",
        "quiet_keys",
        "quiet_names",
    ):
        con.execute(f"DROP TABLE IF EXISTS {tmp}")


# -- exports and re-exports (JavaScript, TypeScript) -----------------------------------

# An import whose local name is ``export <name>`` (JS ``export { f as name } from './m'``)
# binds nothing in its file: the file re-exports, as ``<name>``, what the import names;
# ``export *`` re-exports every name of its target but ``default``. ``exports`` rows of a
# file (refs, never edges) name the symbol it exports under another name (``default``).
_REEXPORT = "export "

_EXPORT_MAP = f"""
CREATE OR REPLACE TEMP TABLE export_map AS
WITH c AS (
    SELECT * FROM import_candidates WHERE starts_with(local, '{_REEXPORT}') AND mode = 'exact'
),
best AS (
    SELECT c.file, c.local, c.member, f.path AS target FROM c JOIN files f ON f.path = c.path
    QUALIFY rank() OVER (PARTITION BY c.file, c.line, c.local ORDER BY c.prio) = 1
)
SELECT x.file, x.expr AS name, x.file AS tfile, s.qualified_name AS tname, false AS star
FROM refs x JOIN symbols s ON s.id = x.target
WHERE x.kind = 'exports'
UNION ALL
SELECT file, substr(local, {len(_REEXPORT) + 1}), target, member, local = '{_REEXPORT}*'
FROM best WHERE target <> file
"""


def _reexport_scope(con: duckdb.DuckDBPyConnection) -> None:
    """A call through a re-export depends on every file of the chain: the importers of a
    file in scope that re-exports (``export ... from``) are in scope too, transitively; so
    are those of a file with ``mixes`` facts (JavaScript ``mixin(app, proto)``)."""
    _grow_scope(
        con,
        f"""
        SELECT c.file FROM chain
        JOIN import_candidates c ON c.mode = 'exact' AND c.path = chain.path
        WHERE chain.path IN (
            SELECT file FROM import_candidates WHERE starts_with(local, '{_REEXPORT}')
            UNION ALL
            -- a file whose functions fill objects from other modules (``mixes``): a call
            -- of what such a function returns reads those modules too
            SELECT file FROM refs WHERE kind = 'mixes'
        )
        """,
    )


def _export_targets(con: duckdb.DuckDBPyConnection) -> None:
    """Names an import asks of a file that defines no symbol so named: through the file's
    ``exports`` rows (``import f from './m'`` with ``export default g``) and re-exports,
    up to four files deep. The shallowest answer wins, a named re-export before ``export *``;
    a name two ``export *`` give (ambiguous in the language) is bound to neither."""
    con.execute(_EXPORT_MAP)
    con.execute(
        f"""
        INSERT INTO ref_targets
        WITH RECURSIVE wanted AS (
            {IMPORTED_NAME}
            ANTI JOIN ref_targets rt ON rt.rid = ri.rid
            WHERE ri.hint IS NULL OR ri.hint IN ('assigned', 'assigned?')
        ),
        hop(rid, hint, tfile, qname, depth, star) AS (
            SELECT rid, hint, tfile, qname, 0, false FROM wanted
            WHERE qname IS NOT NULL AND tfile IN (SELECT file FROM export_map)
            UNION
            SELECT h.rid, h.hint, m.tfile,
                   CASE WHEN m.star THEN h.qname
                        WHEN h.qname = m.name THEN m.tname
                        WHEN m.tname IS NULL THEN substr(h.qname, length(m.name) + 2)
                        ELSE m.tname || substr(h.qname, length(m.name) + 1) END,
                   h.depth + 1, h.star OR m.star
            FROM hop h JOIN export_map m ON m.file = h.tfile
             AND CASE WHEN m.star THEN split_part(h.qname, '.', 1) <> 'default'
                      ELSE h.qname = m.name OR starts_with(h.qname, m.name || '.') END
            WHERE h.depth < 4 AND h.qname IS NOT NULL
        ),
        found AS (
            SELECT h.rid, h.hint, s.id FROM hop h
            JOIN symbols s ON s.file = h.tfile AND s.qualified_name = h.qname
            WHERE h.depth > 0 AND s.type IN ('function', 'declaration', 'member')
            QUALIFY rank() OVER (PARTITION BY h.rid ORDER BY h.depth, h.star) = 1
        )
        SELECT rid, min(id),
               CASE WHEN any_value(hint) = 'assigned?' THEN 'ambiguous' ELSE 'import' END
        FROM found GROUP BY rid HAVING count(DISTINCT id) = 1
        """
    )


# -- members through bases (type-flow languages) ----------------------------------------


# The named type a Go function's signature declares as its (first) result, after the last
# parameter list: ``func New() *Engine``, ``func Open() (*DB, error)`` and the named
# ``func Test() (c *Context, r *Engine)`` -> the type name.
_DECLARED_RESULT = r"\)\s*\(?\s*(?:[A-Za-z_]\w*\s+)?\*?\s*([A-Za-z_]\w*)\s*(,[^()]*\))?\s*$"


# The named type of a Go struct field's declaration (``engine *Engine`` -> ``Engine``).
_FIELD_TYPE = r"^[A-Za-z_]\w*\s+\*?([A-Za-z_]\w*)$"


def _member_targets(con: duckdb.DuckDBPyConnection, classes: _OneHierarchy) -> None:
    """Resolve ``Prefix.member`` callees whose prefix names a project class (through the
    file's own classes or its imports) to the first class in its method resolution order
    that defines ``member`` as a function; ``super`` hints start after the class itself.
    Those come from every language whose query names ``@reference.super`` calls (Java
    ``super.m()``, C# ``base.M()``, PHP ``parent::m()``), the other hints only from the
    type-flow languages."""
    flow = _flow_languages()
    if not flow:
        return
    in_list = _in_list(flow)
    hints = _in_list(_MEMBER_HINTS)
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE member_refs AS
        SELECT r.rid, r.file, coalesce(r.resolution, '') AS hint,
               regexp_extract(r.expr, '^(.*)\\.[^.]*$', 1) AS prefix,
               regexp_extract(r.expr, '[^.]*$') AS member
        FROM scoped_refs r
        JOIN files f ON f.path = r.file
         AND (f.language IN ({in_list}) OR r.resolution IN ('super', 'super?'))
        ANTI JOIN ref_targets rt ON rt.rid = r.rid
        WHERE r.target IS NULL AND contains(r.expr, '.')
          AND (r.resolution IS NULL OR r.resolution IN ({hints}))
        """
    )
    # The class each prefix names: a class of the same file, else through an import.
    package_languages = _package_scope_languages()
    packaged = _in_list(package_languages) or "''"
    # Every package rule (Go) starts from a reference whose own file is in a package-scope
    # language, and reads every file's package key several times over: without such a file
    # in scope, the keys are an empty relation and the rules cost nothing.
    keys = _PACKAGE_KEYS if _scope_has(con, package_languages) else _NO_PACKAGE_KEYS
    rows = con.execute(
        f"""
        WITH local_cls AS (
            SELECT m.rid, s.id AS cls FROM member_refs m
            JOIN symbols s ON s.file = m.file AND s.qualified_name = m.prefix
                          AND s.type = 'declaration'
        ),
        package_cls AS (
            -- Go: a type of the same package, declared in another of its files.
            SELECT m.rid, min(s.id) AS cls FROM member_refs m
            JOIN ({keys}) rf ON rf.path = m.file
            JOIN ({keys}) sf
              ON sf.pkgkey = rf.pkgkey AND sf.language = rf.language AND sf.path <> rf.path
            JOIN symbols s ON s.file = sf.path AND s.qualified_name = m.prefix
                          AND s.type = 'declaration'
            JOIN files f ON f.path = m.file AND f.language IN ({packaged})
            ANTI JOIN local_cls l ON l.rid = m.rid
            GROUP BY m.rid HAVING count(DISTINCT s.id) = 1
        ),
        via AS (
            SELECT m.rid, m.file, i.local,
                   CASE WHEN m.prefix = i.local THEN NULL
                        ELSE substr(m.prefix, length(i.local) + 2) END AS rest
            FROM member_refs m
            JOIN imports i ON i.file = m.file
             AND (m.prefix = i.local OR starts_with(m.prefix, i.local || '.'))
            ANTI JOIN local_cls l ON l.rid = m.rid
            ANTI JOIN package_cls p ON p.rid = m.rid
            QUALIFY row_number() OVER (PARTITION BY m.rid ORDER BY length(i.local) DESC) = 1
        ),
        import_cls AS (
            SELECT v.rid, min(s.id) AS cls FROM via v
            JOIN import_targets t ON t.file = v.file AND t.local = v.local
            JOIN symbols s ON s.file = t.target AND s.type = 'declaration'
             AND s.qualified_name = CASE WHEN t.member IS NULL THEN v.rest
                                         WHEN v.rest IS NULL THEN t.member
                                         ELSE t.member || '.' || v.rest END
            GROUP BY v.rid
        ),
        star_cls AS (
            -- ``httpx.Client`` where ``httpx/__init__.py`` has ``from ._client import *``.
            SELECT v.rid, min(s.id) AS cls FROM via v
            JOIN import_targets t ON t.file = v.file AND t.local = v.local
            JOIN star_exports x ON x.file = t.target
             AND x.name = split_part(CASE WHEN t.member IS NULL THEN v.rest
                                          WHEN v.rest IS NULL THEN t.member
                                          ELSE t.member || '.' || v.rest END, '.', 1)
            JOIN symbols s ON s.file = x.tfile AND s.type = 'declaration'
             AND s.qualified_name = CASE WHEN t.member IS NULL THEN v.rest
                                         WHEN v.rest IS NULL THEN t.member
                                         ELSE t.member || '.' || v.rest END
            ANTI JOIN import_cls i ON i.rid = v.rid
            GROUP BY v.rid
        ),
        export_cls AS (
            -- JavaScript: the import names a file's default export (``const Koa =
            -- require('..')``, ``module.exports = class Application``), which that file's
            -- ``exports`` rows or re-exports name (``export_map``), one or two files on.
            SELECT v.rid, min(s.id) AS cls FROM via v
            JOIN import_targets t ON t.file = v.file AND t.local = v.local
            JOIN export_map m ON m.file = t.target AND NOT m.star AND m.name = t.member
             AND m.tname IS NOT NULL
            LEFT JOIN export_map m2 ON m2.file = m.tfile AND m2.file <> m.file
             AND NOT m2.star AND m2.name = m.tname AND m2.tname IS NOT NULL
            JOIN symbols s ON s.file = coalesce(m2.tfile, m.tfile) AND s.type = 'declaration'
             AND s.qualified_name = concat_ws('.', coalesce(m2.tname, m.tname), v.rest)
            ANTI JOIN import_cls i ON i.rid = v.rid
            GROUP BY v.rid
        ),
        fn_named AS (
            -- Go: ``NewStore().Put``, ``s := store.NewStore(); s.Put()``: the prefix is a
            -- function of the package (or of an imported one) ...
            SELECT m.rid, s.file, s.signature FROM member_refs m
            JOIN ({keys}) rf ON rf.path = m.file
            JOIN ({keys}) sf ON sf.pkgkey = rf.pkgkey AND sf.language = rf.language
            JOIN symbols s ON s.file = sf.path AND s.qualified_name = m.prefix
                          AND s.type = 'function'
            WHERE rf.language IN ({packaged})
            UNION ALL
            SELECT v.rid, s.file, s.signature FROM via v
            JOIN files f ON f.path = v.file AND f.language IN ({packaged})
            JOIN import_targets t ON t.file = v.file AND t.local = v.local
            JOIN symbols s ON s.file = t.target AND s.type = 'function'
             AND s.qualified_name = CASE WHEN t.member IS NULL THEN v.rest
                                         WHEN v.rest IS NULL THEN t.member
                                         ELSE t.member || '.' || v.rest END
        ),
        result_cls AS (
            -- ... whose declared result (``*Store``, ``(*Store, error)``) is a type of the
            -- function's own package.
            SELECT x.rid, min(d.id) AS cls
            FROM fn_named x
            JOIN ({keys}) ff ON ff.path = x.file
            JOIN ({keys}) df ON df.pkgkey = ff.pkgkey AND df.language = ff.language
            JOIN symbols d ON d.file = df.path AND d.type = 'declaration'
             AND d.qualified_name = regexp_extract(x.signature, '{_DECLARED_RESULT}', 1)
            GROUP BY x.rid HAVING count(DISTINCT d.id) = 1
        ),
        field_cls AS (
            -- Go: ``c.engine.Run()`` with ``c`` a Context: the prefix is a field of a type
            -- of the package, whose declared type (``engine *Engine``) is one too.
            SELECT m.rid, min(d.id) AS cls
            FROM member_refs m
            JOIN ({keys}) rf ON rf.path = m.file
            JOIN ({keys}) sf ON sf.pkgkey = rf.pkgkey AND sf.language = rf.language
            JOIN symbols fs ON fs.file = sf.path AND fs.qualified_name = m.prefix
                           AND fs.type = 'member' AND fs.kind = 'field'
            JOIN ({keys}) df ON df.pkgkey = sf.pkgkey AND df.language = sf.language
            JOIN symbols d ON d.file = df.path AND d.type = 'declaration'
             AND d.qualified_name = regexp_extract(fs.signature, '{_FIELD_TYPE}', 1)
            WHERE rf.language IN ({packaged})
            GROUP BY m.rid HAVING count(DISTINCT d.id) = 1
        )
        SELECT m.rid, m.hint, m.member, c.cls
        FROM member_refs m
        JOIN (SELECT * FROM local_cls UNION ALL SELECT * FROM package_cls
              UNION ALL SELECT * FROM import_cls UNION ALL SELECT * FROM star_cls
              UNION ALL SELECT * FROM export_cls
              UNION ALL SELECT * FROM result_cls
              UNION ALL SELECT * FROM field_cls) c
          ON c.rid = m.rid
        """
    ).fetchall()
    rows.extend(_chain_rows(con, {r[0] for r in rows}))
    if not rows:
        return
    hierarchy = classes.get()
    hierarchy.prefetch({row[3] for row in rows})
    found = []
    for rid, hint, member, cls in rows:
        base = hint.rstrip("?")
        mro = hierarchy.mro(cls)
        if base == "super":
            mro = mro[1:]
        target = hierarchy.find(mro, member)
        if target is None:
            continue
        resolution = "ambiguous" if hint.endswith("?") else _HINT_RESOLUTION[base]
        found.append((rid, target, resolution))
    if not found:
        return
    con.execute(
        "INSERT INTO ref_targets SELECT unnest(?), unnest(?), unnest(?)",
        [[f[0] for f in found], [f[1] for f in found], [f[2] for f in found]],
    )
    con.execute(
        f"""
        INSERT INTO new_edges
        SELECT r.src, rt.target, {_EDGE_KIND}, {_confidence_sql("rt.resolution")},
               rt.resolution, r.file, r.line, r.count
        FROM ref_targets rt JOIN scoped_refs r ON r.rid = rt.rid
        WHERE rt.resolution IN ('assigned', 'self_method', 'super', 'inherited', 'ambiguous')
          AND rt.rid IN (SELECT unnest(?))
        """,
        [[f[0] for f in found]],
    )


# The file an import names (exact paths: JavaScript), for any file, not only those in scope:
# the ``mixes`` rule reads the imports of the file that defines a function called elsewhere.
_EXACT_IMPORTS = """
SELECT c.file, c.local, c.member, f.path AS target
FROM import_candidates c JOIN files f ON f.path = c.path
WHERE c.mode = 'exact' AND f.path <> c.file
QUALIFY rank() OVER (PARTITION BY c.file, c.line, c.local ORDER BY c.prio) = 1
"""


def _mixed_member_targets(con: duckdb.DuckDBPyConnection) -> None:
    """JavaScript: ``var app = express(); app.use()`` where the function ``express`` names
    (through an import and its default export) fills an object from module objects at run
    time (its ``mixes`` facts: ``mixin(app, proto)``, ``Object.assign``, ``Object.create``):
    ``use`` is the member function of the object ``proto``'s module exports (``var app =
    exports = module.exports = {}``; ``app.use = function``), when exactly one of the mixed
    objects defines it. Resolution ``assigned`` (0.8): the local the function returns is
    not checked to be the object it filled."""
    if not _flow_languages():
        return  # no member_refs: no member hint to follow
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE mixed_targets AS
        WITH fn AS (
            -- the function the prefix names: the import's member, or the default export
            -- of that file (one re-export on)
            SELECT m.rid, m.member, t.target AS file, t.member AS qname
            FROM member_refs m
            JOIN imports i ON i.file = m.file AND i.local = m.prefix
            JOIN import_targets t ON t.file = m.file AND t.local = i.local
            WHERE m.hint IN ('member', 'member?')
        ),
        hop AS (
            SELECT rid, member, file, qname FROM fn
            UNION ALL
            SELECT f.rid, f.member, x.tfile, x.tname FROM fn f
            JOIN export_map x ON x.file = f.file AND x.name = f.qname AND NOT x.star
            UNION ALL
            SELECT f.rid, f.member, y.tfile, y.tname FROM fn f
            JOIN export_map x ON x.file = f.file AND x.name = f.qname AND NOT x.star
            JOIN export_map y ON y.file = x.tfile AND y.name = x.tname AND NOT y.star
             AND y.file <> x.file
        ),
        func AS (
            SELECT DISTINCT h.rid, h.member, s.id, s.file FROM hop h
            JOIN symbols s ON s.file = h.file AND s.qualified_name = h.qname
             AND s.type = 'function'
        ),
        mixed AS (
            -- each object the function fills from: the module object of its import
            SELECT DISTINCT f.rid, f.member, x.tfile, x.tname FROM func f
            JOIN refs r ON r.src = f.id AND r.kind = 'mixes'
            JOIN ({_EXACT_IMPORTS}) i ON i.file = f.file AND i.local = r.expr
            JOIN export_map x ON x.file = i.target AND x.name = coalesce(i.member, 'default')
             AND NOT x.star AND x.tname IS NOT NULL
        )
        SELECT m.rid, min(s.id) AS target, 'assigned' AS resolution FROM mixed m
        JOIN symbols s ON s.file = m.tfile AND s.qualified_name = m.tname || '.' || m.member
         AND s.type = 'function'
        ANTI JOIN ref_targets rt ON rt.rid = m.rid
        GROUP BY m.rid HAVING count(DISTINCT s.id) = 1
        """
    )
    con.execute("INSERT INTO ref_targets SELECT * FROM mixed_targets")
    _target_edges(con, "mixed_targets")


@cache
def _receiver_name_languages() -> tuple[str, ...]:
    """Languages whose untyped locals may be read by their names
    (``LanguageSpec.receiver_names``: JavaScript)."""
    from znt.index.languages import all_languages

    return tuple(sorted(s.name for s in all_languages() if s.receiver_names))


# The module-level objects of the project that have member functions, by name: a variable
# ``res`` and the functions ``res.x`` of the same file (``var res = Object.create(...);
# res.send = function send() {}``), also under their aliases (``res.set = res.header =
# function``: ``aliases`` rows). ``{languages}``: the receiver-name languages.
_NAMED_OBJECTS = """
WITH members AS (
    SELECT id, file, qualified_name, name FROM symbols
    WHERE language IN ({languages}) AND type = 'function'
    UNION ALL
    SELECT target, file, expr, regexp_extract(expr, '[^.]*$') FROM refs WHERE kind = 'aliases'
)
SELECT m.id, m.file, m.qualified_name, o.qualified_name AS object FROM members m
JOIN symbols o ON o.file = m.file AND o.qualified_name = split_part(m.qualified_name, '.', 1)
 AND o.kind = 'variable' AND o.language IN ({languages})
WHERE m.qualified_name = o.qualified_name || '.' || m.name
"""


def _receiver_name_targets(con: duckdb.DuckDBPyConnection) -> None:
    """``receiver_name``: a call ``x.m()`` no rule bound, on a local or parameter ``x`` of
    unknown type (resolution ``local``), goes to the member ``m`` of the module-level object
    named ``x`` when exactly one file of the project has an object of that name with member
    functions, and it has ``m``. Express's handlers are written ``function (req, res) {
    res.send() }`` for the objects ``lib/request.js`` and ``lib/response.js`` define as
    ``req`` and ``res``; no declared type says so, the convention does (0.4)."""
    langs = _receiver_name_languages()
    if not _scope_has(con, langs):
        return
    in_list = _in_list(langs)
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE receiver_targets AS
        WITH objects AS ({_NAMED_OBJECTS.format(languages=in_list)}),
        unique_objects AS (
            SELECT object FROM objects GROUP BY object HAVING count(DISTINCT file) = 1
        ),
        wanted AS (
            SELECT r.rid, r.expr FROM scoped_refs r
            JOIN files f ON f.path = r.file AND f.language IN ({in_list})
            ANTI JOIN ref_targets rt ON rt.rid = r.rid
            WHERE r.target IS NULL AND r.resolution = 'local' AND r.kind = 'call'
              AND split_part(r.expr, '.', 1) IN (SELECT object FROM unique_objects)
        )
        SELECT w.rid, min(o.id) AS target, 'receiver_name' AS resolution
        FROM wanted w JOIN objects o ON o.qualified_name = w.expr
        GROUP BY w.rid HAVING count(DISTINCT o.id) = 1
        """
    )
    con.execute("INSERT INTO ref_targets SELECT * FROM receiver_targets")
    _target_edges(con, "receiver_targets")


# The names of the objects with member functions (``res`` of ``res.send``) of the files in
# ``{files}`` (a table of paths), in the receiver-name ``{languages}``.
_OBJECT_NAMES = """
SELECT DISTINCT s.file, split_part(s.qualified_name, '.', 1) AS name FROM symbols s
SEMI JOIN {files} c ON c.path = s.file
WHERE s.language IN ({languages}) AND s.type = 'function' AND contains(s.qualified_name, '.')
"""


def _remember_object_names(con: duckdb.DuckDBPyConnection, paths: Sequence[str]) -> None:
    """The names of the objects with member functions that the changed files held before
    the change (``_receiver_name_scope``); nothing to read when none is in a language that
    reads receivers by name."""
    from znt.index.languages import language_for

    langs = _receiver_name_languages()
    if not any((spec := language_for(p)) is not None and spec.name in langs for p in paths):
        return
    names = _OBJECT_NAMES.format(files="changed_paths", languages=_in_list(langs))
    con.execute(f"CREATE OR REPLACE TEMP TABLE changed_objects AS {names}")


def _receiver_name_scope(
    con: duckdb.DuckDBPyConnection, changed_languages: set[str], quiet: Sequence[str]
) -> None:
    """Add to ``scope`` the files with an untyped call on a name that a changed file's
    object had before the change or has now: whether such a call binds, and to what,
    depends on every object of that name in the project. The ``quiet`` files' names are
    what they were (znt/graph/interface.py)."""
    langs = _receiver_name_languages()
    if not langs or not changed_languages & set(langs):
        return
    in_list = _in_list(langs)
    # None unless a file of these languages was about to change (remember_changed).
    con.execute("CREATE TEMP TABLE IF NOT EXISTS changed_objects (file VARCHAR, name VARCHAR)")
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE scope_objects AS
        SELECT name FROM changed_objects WHERE NOT list_contains(?::VARCHAR[], file)
        UNION
        SELECT name FROM ({_OBJECT_NAMES.format(files="changed_keys", languages=in_list)})
        """,
        [list(quiet)],
    )
    con.execute(
        f"""
        INSERT INTO scope
        SELECT DISTINCT r.file FROM refs r
        JOIN files f ON f.path = r.file AND f.language IN ({in_list})
        SEMI JOIN scope_objects n ON n.name = split_part(r.expr, '.', 1)
        WHERE r.target IS NULL AND r.resolution = 'local'
        EXCEPT SELECT path FROM scope
        """
    )


def _target_edges(con: duckdb.DuckDBPyConnection, table: str) -> None:
    """The edges of the references ``table`` (rid, target, resolution) resolves."""
    con.execute(
        f"""
        INSERT INTO new_edges
        SELECT r.src, rt.target, {_EDGE_KIND}, {_confidence_sql("rt.resolution")},
               rt.resolution, r.file, r.line, r.count
        FROM {table} rt JOIN scoped_refs r ON r.rid = rt.rid
        """
    )


@cache
def _typed_member_languages() -> tuple[str, ...]:
    """Languages whose syntax rules leave members of declared types to the resolver
    (``SyntaxRules.typed_members``: Go)."""
    from znt.index.languages import all_languages

    return tuple(sorted(s.name for s in all_languages() if s.syntax.typed_members))


def _chain_rows(
    con: duckdb.DuckDBPyConnection, matched: set[int]
) -> list[tuple[int, str, str, str]]:
    """(rid, hint, member, class) of the member calls no rule above matched whose prefix
    is a chain of declared types (``znt.graph.typechains``: ``Context.engine.pool``) or a
    package-level variable of a declared type (``JSON.Bind()``)."""
    langs = _typed_member_languages()
    if not langs:
        return []
    in_list = _in_list(langs)
    pending = con.execute(
        f"""
        SELECT m.rid, m.file, m.prefix, m.hint, m.member FROM member_refs m
        JOIN files f ON f.path = m.file AND f.language IN ({in_list})
        """
    ).fetchall()
    pending = [p for p in pending if p[0] not in matched]
    if not pending:
        return []
    from znt.graph.typechains import chain_classes

    extra = {p[0]: (p[3], p[4]) for p in pending}
    found = chain_classes(con, langs, [(p[0], p[1], p[2]) for p in pending])
    return [(rid, extra[rid][0], extra[rid][1], cls) for rid, cls in found]


@cache
def _method_set_languages() -> tuple[str, ...]:
    """Languages whose types implement an interface by having its methods (Go): their
    module in ``znt/index/lang/`` sets ``IMPLEMENTS_BY_METHOD_SET``."""
    import importlib

    from znt.index.languages import all_languages

    return tuple(
        sorted(
            spec.name
            for spec in all_languages()
            if getattr(
                importlib.import_module(f"znt.index.lang.{spec.name}"),
                "IMPLEMENTS_BY_METHOD_SET",
                False,
            )
        )
    )


# What a function's signature returns, as written without spaces: what follows its last
# parameter list (``Get(key string) (Item, bool)`` -> ``(Item,bool)``, ``Put(it Item)`` -> "").
_RESULT_SQL = (
    "regexp_replace(regexp_extract(m.signature, '\\)\\s*([^()]*|\\([^()]*\\))\\s*$', 1), "
    "'\\s+', '', 'g')"
)


def _method_set_edges(con: duckdb.DuckDBPyConnection) -> None:
    """``implements`` (``method_set``): a top-level type of a file in scope whose methods,
    in any file of its package, are named like every method of an interface of that
    package and return the same types (as written; parameters are not compared: 0.9); an
    interface that embeds others (its method
    set is more than its own methods) and one without methods are left out. The package
    bounds it: a changed file's package is in scope, so incremental equals clean."""
    langs = [name for name in _method_set_languages() if name in _package_scope_languages()]
    if not _scope_has(con, langs):
        return
    in_list = _in_list(langs)
    con.execute(
        f"""
        INSERT INTO new_edges
        WITH k AS (SELECT * FROM ({_PACKAGE_KEYS}) WHERE language IN ({in_list})),
        own AS (
            SELECT s.id, k.pkgkey, s.language, m.name AS method, {_RESULT_SQL} AS result
            FROM symbols s JOIN k ON k.path = s.file
            JOIN symbols m ON m.parent_id = s.id AND m.type = 'function'
            WHERE s.kind = 'interface'
        ),
        iface AS (
            -- An interface's own methods and those of the interfaces of its package it
            -- embeds; one embedded from elsewhere (``http.Handler``) is not known here, so
            -- its own methods decide.
            SELECT * FROM own
            UNION
            SELECT o.id, o.pkgkey, o.language, e.method, e.result
            FROM (SELECT s.id, k.pkgkey, s.language FROM symbols s JOIN k ON k.path = s.file
                  WHERE s.kind = 'interface') o
            JOIN refs r ON r.src = o.id AND r.kind = 'inherits'
            JOIN symbols es ON es.kind = 'interface' AND es.qualified_name = r.expr
            JOIN k ek ON ek.path = es.file AND ek.pkgkey = o.pkgkey
            JOIN own e ON e.id = es.id
        ),
        need AS (SELECT id, count(DISTINCT method) AS n FROM iface GROUP BY id),
        typ AS (
            SELECT s.id, s.name, s.file, s.start_line, k.pkgkey, s.language
            FROM symbols s JOIN k ON k.path = s.file
            SEMI JOIN scope ON scope.path = s.file
            WHERE s.type = 'declaration' AND s.kind <> 'interface' AND s.qualified_name = s.name
        ),
        meth AS (
            SELECT t.id AS tid, m.name AS method, {_RESULT_SQL} AS result
            FROM typ t JOIN k ON k.pkgkey = t.pkgkey AND k.language = t.language
            JOIN symbols m ON m.file = k.path AND m.type = 'function'
             AND m.qualified_name = t.name || '.' || m.name
        )
        SELECT t.id, i.id, 'implements', {CONFIDENCE["method_set"]}, 'method_set',
               t.file, t.start_line, 1
        FROM typ t
        JOIN iface i ON i.pkgkey = t.pkgkey AND i.language = t.language
        JOIN meth m ON m.tid = t.id AND m.method = i.method AND m.result = i.result
        JOIN need n ON n.id = i.id
        GROUP BY t.id, i.id, t.file, t.start_line, n.n
        HAVING count(DISTINCT m.method) = n.n
        """
    )


def _constructor_edges(con: duckdb.DuckDBPyConnection, classes: _OneHierarchy) -> None:
    """A call of a class also calls its constructor method (its own or a base's), for
    languages whose constructor is a method of the class (``_constructor_methods``)."""
    methods = _constructor_methods()
    if not methods:
        return
    in_list = _in_list(sorted(methods))
    rows = con.execute(
        f"""
        SELECT e.src, e.dst, s.language, e.file, e.line, e.count, e.resolution
        FROM new_edges e
        JOIN symbols s ON s.id = e.dst AND s.type = 'declaration' AND s.language IN ({in_list})
        WHERE e.kind = 'call'
        """
    ).fetchall()
    if not rows:
        return
    hierarchy = classes.get()
    hierarchy.prefetch({row[1] for row in rows})
    out = []
    found: dict[str, str | None] = {}  # a class is called from many places (sympy: 46 k calls)
    for src, cls, language, file, line, count, resolution in rows:
        if cls in found:
            init = found[cls]
        else:
            init = found[cls] = hierarchy.find(hierarchy.mro(cls), methods[language])
        if init is not None:
            res = "ambiguous" if resolution == "ambiguous" else "constructor"
            out.append((src, init, "call", CONFIDENCE[res], res, file, line, count))
    insert_rows(con, "new_edges", out, TABLES["edges"])


def _dispatch_edges(con: duckdb.DuckDBPyConnection) -> None:
    """Go: a call bound to an interface's method (``r.Get()`` with ``r Reader``) may run
    the method of each project type that ``implements`` the interface (``method_set``
    edges): one ``ambiguous`` edge (0.5) to each, beside the certain edge to the interface
    method. The implementing type's method may be declared in any file of its package."""
    if not _scope_has(con, _method_set_languages()):
        return  # the calls are those of files in scope
    langs = _in_list(_method_set_languages())
    con.execute(
        f"""
        INSERT INTO new_edges
        WITH impl AS (
            SELECT src, dst FROM new_edges WHERE kind = 'implements'
            UNION
            SELECT src, dst FROM edges
            WHERE kind = 'implements' AND file NOT IN (SELECT path FROM scope)
        ),
        keys AS ({_PACKAGE_KEYS})
        SELECT e.src, min(m.id), 'call', {CONFIDENCE["ambiguous"]}, 'ambiguous',
               e.file, min(e.line), sum(e.count)
        FROM new_edges e
        JOIN symbols im ON im.id = e.dst AND im.type = 'function'
        JOIN symbols iface ON iface.id = im.parent_id AND iface.kind = 'interface'
        JOIN keys ik ON ik.path = iface.file AND ik.language IN ({langs})
        JOIN impl ON impl.dst = iface.id
        JOIN symbols t ON t.id = impl.src
        JOIN keys tk ON tk.path = t.file
        JOIN keys mk ON mk.pkgkey = tk.pkgkey AND mk.language = tk.language
        JOIN symbols m ON m.file = mk.path AND m.type = 'function' AND m.kind = 'method'
                      AND m.qualified_name = t.qualified_name || '.' || im.name
        WHERE e.kind = 'call'
        GROUP BY e.src, t.id, e.file, im.name
        """
    )


# Resolutions of a call bound through its receiver's class (not ``super()``, not an
# explicit ``Base.m(self)``): what runs is the method of the instance's own class.
_RECEIVER_BOUND = ("self_method", "self", "assigned", "inherited", "ambiguous")


@cache
def _stub_languages() -> tuple[str, ...]:
    """Languages whose syntax marks stub methods (``abstract`` rows): Python."""
    from znt.index.languages import all_languages
    from znt.index.syntax import SyntaxRules

    return tuple(
        sorted(
            spec.name
            for spec in all_languages()
            if spec.syntax is not None and type(spec.syntax).is_stub is not SyntaxRules.is_stub
        )
    )


def _override_edges(con: duckdb.DuckDBPyConnection, classes: _OneHierarchy) -> None:
    """A call bound through its receiver to a stub method (an ``abstract`` row: a body of
    ``...``, ``pass`` or ``raise NotImplementedError``) runs an override whenever the
    instance is of a subclass that defines one: where the stub's own file defines such
    subclasses, the edge to the stub is replaced by one ``override`` edge (0.5) to each
    override (``JSONProvider.dump`` -> ``DefaultJSONProvider.dumps``), but for a ``self``
    call from a method the subclass overrides itself. The stub's body calls nothing, so no
    path through it is lost. Overrides in other
    files are not looked for, so the edge depends only on the stub's file, as every member
    edge does (docs/decisions/0022-stub-methods-bind-to-overrides.md)."""
    if not _scope_has(con, _stub_languages()):
        return  # the calls are those of files in scope
    marks = _in_list(_RECEIVER_BOUND)
    rows = con.execute(
        f"""
        SELECT DISTINCT e.src, e.dst, e.file, e.line, e.count, s.file, s.name, s.parent_id,
               e.resolution IN ('self_method', 'self'), cs.name, cs.parent_id
        FROM new_edges e
        JOIN refs a ON a.kind = 'abstract' AND a.src = e.dst
        JOIN symbols s ON s.id = e.dst AND s.parent_id IS NOT NULL
        LEFT JOIN symbols cs ON cs.id = e.src
        WHERE e.kind = 'call' AND e.resolution IN ({marks})
        """
    ).fetchall()
    if not rows:
        return
    files = sorted({r[5] for r in rows})
    methods: dict[tuple[str, str], list[tuple[str, str]]] = {}  # (file, name) -> class, id
    for cls, file, name, mid in con.execute(
        """
        SELECT m.parent_id, m.file, m.name, m.id FROM symbols m
        JOIN symbols c ON c.id = m.parent_id AND c.type = 'declaration'
        WHERE m.type = 'function' AND m.file IN (SELECT unnest(?::VARCHAR[]))
          AND m.id NOT IN (SELECT src FROM refs WHERE kind = 'abstract')
        """,
        [files],
    ).fetchall():
        methods.setdefault((file, name), []).append((cls, mid))
    hierarchy = classes.get()
    gone: set[tuple[str, str]] = set()
    added: list[tuple[str, str, str, int, int]] = []
    for src, dst, file, line, count, stub_file, name, owner, on_self, caller, home in rows:
        overrides = sorted(
            mid
            for cls, mid in methods.get((stub_file, name), [])
            if cls != owner
            and owner in hierarchy.mro(cls)
            # ``self.m()`` in a method the subclass overrides never runs with its instances
            and not (on_self and home and hierarchy.find(hierarchy.mro(cls), caller) != src)
        )
        if not overrides:
            continue
        gone.add((src, dst))
        added.extend((src, mid, file, line, count) for mid in overrides)
    if not gone:
        return
    temp_table(con, "stub_calls", (("src", "VARCHAR"), ("dst", "VARCHAR")), sorted(gone))
    con.execute(
        "DELETE FROM new_edges USING stub_calls g "
        "WHERE new_edges.kind = 'call' AND new_edges.src = g.src AND new_edges.dst = g.dst"
    )
    con.execute("DROP TABLE stub_calls")
    conf = CONFIDENCE["override"]
    insert_rows(
        con,
        "new_edges",
        [
            (src, mid, "call", conf, "override", file, line, count)
            for src, mid, file, line, count in added
        ],
        TABLES["edges"],
    )


def _wrapper_edges(con: duckdb.DuckDBPyConnection) -> None:
    """A function decorated by a decorator of the project that returns a wrapper (a
    ``wraps`` row: a function nested in the decorator that calls its first parameter) is,
    once decorated, that wrapper: a call of it calls the wrapper (``wrapper``), and the
    wrapper calls it (``wrapped``, an edge of the decorated function's file, where the
    decoration happens). The edge to the function itself stays, as a reader of the call
    expects. The decorator is the function's only decorator, named plainly and defined in
    its file or imported by name from another (``from .scaffold import setupmethod``);
    stacked decorators, factories (``@retry(3)``) and decorators reached through a module
    (``@mod.dec``) are left to the file's own type flow. The type flow of one file binds a
    decorator of that file already; this rule adds the decorators of other files and
    the calls of decorated methods through their receiver (``self.add_url_rule()``)."""
    if not _scope_has(con, _flow_languages()):
        return
    con.execute(
        """
        CREATE OR REPLACE TEMP TABLE wrapped AS
        WITH wanted AS (
            SELECT path AS file FROM scope
            UNION
            SELECT s.file FROM symbols s SEMI JOIN new_edges e
              ON e.dst = s.id AND e.kind = 'call'
        ),
        deco AS (
            SELECT r.file, r.src AS fn, r.expr, r.target,
                   count(*) OVER (PARTITION BY r.src) AS n
            FROM refs r SEMI JOIN wanted w ON w.file = r.file
            WHERE r.kind = 'decorated'
        ),
        named AS (
            SELECT fn, file, target AS dec FROM deco WHERE n = 1 AND target IS NOT NULL
            UNION ALL
            SELECT d.fn, d.file, s.id
            FROM deco d
            JOIN files df ON df.path = d.file
            JOIN import_candidates c
              ON c.file = d.file AND c.local = d.expr AND c.mode = 'module'
             AND c.member IS NOT NULL
            JOIN files f ON f.module_name = c.path AND f.language = df.language
            JOIN symbols s ON s.file = f.path AND s.qualified_name = c.member
                          AND s.type = 'function'
            WHERE d.n = 1 AND d.target IS NULL
            QUALIFY row_number() OVER (PARTITION BY d.fn ORDER BY c.prio, s.id) = 1
        )
        SELECT DISTINCT n.fn, n.file, w.target AS wrapper
        FROM named n JOIN refs w ON w.kind = 'wraps' AND w.src = n.dec
        """
    )
    con.execute(
        f"""
        INSERT INTO new_edges
        SELECT e.src, w.wrapper, 'call', least(e.confidence, {CONFIDENCE["wrapper"]}),
               'wrapper', e.file, e.line, e.count
        FROM new_edges e JOIN wrapped w ON w.fn = e.dst
        WHERE e.kind = 'call' AND e.src <> w.wrapper
        """
    )
    con.execute(
        f"""
        INSERT INTO new_edges
        SELECT w.wrapper, w.fn, 'call', {CONFIDENCE["wrapped"]}, 'wrapped', w.file,
               s.start_line, 1
        FROM wrapped w JOIN symbols s ON s.id = w.fn
        SEMI JOIN scope ON scope.path = w.file
        """
    )


def _scope_has(con: duckdb.DuckDBPyConnection, languages: Iterable[str]) -> bool:
    """Whether a file in ``scope`` is in one of ``languages``: the rules of a language no
    file in scope has are skipped (their queries join whole tables; on a one-file rescan of
    a Python project, the Go and C rules cost more than the file's own edges)."""
    wanted = sorted(languages)
    if not wanted:
        return False
    row = con.execute(
        "SELECT 1 FROM files f SEMI JOIN scope s ON s.path = f.path "
        "WHERE f.language IN (SELECT unnest(?::VARCHAR[])) LIMIT 1",
        [wanted],
    ).fetchone()
    return row is not None


# Above this many classes, ``_Hierarchy.prefetch`` reads every class's members at once.
PREFETCH_ALL = 5000


class _OneHierarchy:
    """The class hierarchy of one edge rebuild, read when its member or constructor rule
    first needs it and shared by both (reading it costs a scan of ``edges``). It leaves
    out bases outside the project (``ext::``), which define no member and are derived
    after the member rule runs: so what it holds does not depend on which rule read it
    first, nor on whether a class's file is in scope."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        self._hierarchy: _Hierarchy | None = None

    def get(self) -> _Hierarchy:
        if self._hierarchy is None:
            self._hierarchy = _Hierarchy(self.con)
        return self._hierarchy


class _Hierarchy:
    """Classes, their bases in order and their methods, read from the tables: ``inherits``
    edges of the files being rebuilt come from ``new_edges``, the others from ``edges``;
    the order of bases from the position of their ``inherits`` references."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        rows = con.execute(
            """
            WITH e AS (
                SELECT src, dst FROM new_edges WHERE kind = 'inherits'
                UNION
                SELECT src, dst FROM edges
                WHERE kind = 'inherits' AND file NOT IN (SELECT path FROM scope)
            )
            SELECT e.src, e.dst, coalesce(d.name, regexp_extract(e.dst, '[^.:]*$')) AS name
            FROM e LEFT JOIN symbols d ON d.id = e.dst
            WHERE NOT starts_with(e.dst, 'ext::')
            """
        ).fetchall()
        refs = con.execute(
            "SELECT src, expr, line, col FROM refs WHERE kind = 'inherits' ORDER BY line, col"
        ).fetchall()
        order: dict[str, list[str]] = {}
        for src, expr, _line, _col in refs:
            order.setdefault(src, []).append(expr.rsplit(".", 1)[-1])
        bases: dict[str, list[tuple[int, str]]] = {}
        for src, dst, name in rows:
            names = order.get(src, [])
            pos = names.index(name) if name in names else len(names)
            bases.setdefault(src, []).append((pos, dst))
        self.bases = {k: [d for _p, d in sorted(v)] for k, v in bases.items()}
        self._mro: dict[str, list[str]] = {}
        self._methods: dict[str, dict[str, tuple[str, str]]] = {}
        self._declared: dict[str, tuple[str, str]] = {}  # Go type id -> package, name
        self._package_methods: dict[tuple[str, str], str] = {}  # (package, Type.m) -> id
        self._loaded = False  # every class's members
        self._fetched: set[str] = set()  # the classes whose members ``prefetch`` loaded

    def prefetch(self, classes: set[str]) -> None:
        """Load the members of ``classes`` (every class of their MROs) for ``find``; an
        edge rebuild of a few files reads the members of the classes its references reach
        instead of every class of the project (on sympy ~55 k rows, ~1 s of a one-file
        rescan)."""
        if self._loaded:
            return
        wanted = {c for cls in classes for c in self.mro(cls)} - self._fetched
        if len(wanted) > PREFETCH_ALL:
            self._load_members()
        elif wanted:
            self._fetched |= wanted
            self._load_members(sorted(wanted))

    def _load_members(self, classes: list[str] | None = None) -> None:
        """The members of ``classes`` (None: of every class), in one query. Reading them
        class by class cost one query per class: on a sympy rescan 31,460 queries and ~96 s
        of the edge rebuild (docs/benchmarks/retrieval.md, the scan profile); one grouped
        scan of ``symbols`` takes well under a second."""
        if classes is None:
            self._loaded = True
        only = "" if classes is None else "AND parent_id IN (SELECT unnest(?::VARCHAR[]))"
        params = [] if classes is None else [classes]
        for parent, name, sid, typ in self.con.execute(
            "SELECT parent_id, name, min(id), min(type) FROM symbols "
            f"WHERE parent_id IS NOT NULL {only} GROUP BY parent_id, name",
            params,
        ).fetchall():
            self._methods.setdefault(parent, {})[name] = (sid, typ)
        # Go: a method may be declared in another file of its type's package (its parent
        # there is that file): found by the qualified name ``Type.method`` in the package.
        langs = _in_list(_method_set_languages())
        if not langs:
            return
        if classes is not None and not self._any_in_languages(classes, langs):
            return  # no class of those languages: the package query below finds nothing
        types = "" if classes is None else "WHERE id IN (SELECT unnest(?::VARCHAR[]))"
        for kind, key, qname, sid in self.con.execute(
            f"""
            WITH k AS (SELECT * FROM ({_PACKAGE_KEYS}) WHERE language IN ({langs})),
            t AS (
                SELECT * FROM (
                    SELECT k.pkgkey, s.qualified_name, min(s.id) AS id
                    FROM symbols s JOIN k ON k.path = s.file
                    WHERE s.type = 'declaration' GROUP BY ALL
                ) {types}
            )
            SELECT 'declaration', pkgkey, qualified_name, id FROM t
            UNION ALL
            SELECT 'function', k.pkgkey, s.qualified_name, min(s.id)
            FROM symbols s JOIN k ON k.path = s.file
            WHERE s.type = 'function' AND s.kind = 'method'
              AND k.pkgkey IN (SELECT pkgkey FROM t)
            GROUP BY ALL
            """,
            params,
        ).fetchall():
            if kind == "declaration":
                self._declared[sid] = (key, qname)
            else:
                self._package_methods[(key, qname)] = sid

    def _any_in_languages(self, classes: list[str], langs: str) -> bool:
        """Whether one of ``classes`` is declared in a file of ``langs`` (an SQL list)."""
        row = self.con.execute(
            f"""
            SELECT 1 FROM symbols s JOIN files f ON f.path = s.file
            WHERE s.id IN (SELECT unnest(?::VARCHAR[])) AND f.language IN ({langs}) LIMIT 1
            """,
            [classes],
        ).fetchone()
        return row is not None

    def mro(self, cls: str) -> list[str]:
        """C3 linearisation; a hierarchy C3 rejects (or a cycle) falls back to depth-first
        order without repeats."""
        hit = self._mro.get(cls)
        if hit is not None:
            return hit
        self._mro[cls] = [cls]  # a cycle ends here
        seqs = [self.mro(b) for b in self.bases.get(cls, [])]
        seqs.append(list(self.bases.get(cls, [])))
        result = [cls]
        seqs = [list(s) for s in seqs if s]
        while seqs:
            for seq in seqs:
                head = seq[0]
                if not any(head in s[1:] for s in seqs):
                    break
            else:
                result = [cls]
                for b in self.bases.get(cls, []):
                    result += [c for c in self.mro(b) if c not in result]
                break
            result.append(head)
            seqs = [[c for c in s if c != head] for s in seqs]
            seqs = [s for s in seqs if s]
        self._mro[cls] = result
        return result

    def find(self, mro: list[str], member: str) -> str | None:
        """The first class in ``mro`` that defines ``member``: its id when it is a
        function, ``None`` when it is a field (not a call target) or nobody defines it."""
        if not self._loaded and not self._fetched.issuperset(mro):
            self.prefetch(set(mro))
        for c in mro:
            hit = self._methods.get(c, {}).get(member)
            if hit is not None:
                return hit[0] if hit[1] == "function" else None
            declared = self._declared.get(c)
            if declared is not None:
                sid = self._package_methods.get((declared[0], f"{declared[1]}.{member}"))
                if sid is not None:
                    return sid
        return None


# -- includes (C, C++) -----------------------------------------------------------------

# An ``#include "x.h"`` of a project file is a wildcard import of what x.h declares
# (``declares`` rows: prototypes) or defines, and of what x.h includes, transitively. A
# bare name no other rule binds, whose head the file's include closure (the file itself
# included) declares or defines, binds to the one project definition of that name in the
# languages of the rule; a file-local definition (C ``static``) counts only inside that
# closure. Inside a method the name may be a member of its class or a base: a name any
# class of those languages has as a member is never bound there; nor is one an enclosing
# namespace or class of the caller has too (``n::g`` for ``g()`` inside ``namespace n``).
_INCLUDE_REF_KINDS = "('call', 'new', 'inherits')"


@cache
def _include_languages() -> dict[str, str]:
    """Languages whose ``#include`` makes visible what the included file declares: their
    module in ``znt/index/lang/`` sets ``INCLUDE_VISIBLE`` and, as ``FILE_LOCAL``, the
    signature prefix of a definition no other file sees (``static ``)."""
    import importlib

    from znt.index.languages import all_languages

    out: dict[str, str] = {}
    for spec in all_languages():
        mod = importlib.import_module(f"znt.index.lang.{spec.name}")
        if getattr(mod, "INCLUDE_VISIBLE", False):
            out[spec.name] = getattr(mod, "FILE_LOCAL", "")
    return out


def _include_in_list() -> str:
    return _in_list(sorted(_include_languages()))


def _remember_include_names(con: duckdb.DuckDBPyConnection) -> None:
    """The names (simple and qualified) the changed files defined before the change: a
    name that goes or comes anywhere can make a call through an include bind or stop
    binding (it is bound only when one file defines it)."""
    if not _include_languages():
        return
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE changed_names AS
        SELECT DISTINCT s.file, unnest([s.name, s.qualified_name]) AS name FROM symbols s
        SEMI JOIN changed_paths c ON c.path = s.file
        WHERE s.language IN ({_include_in_list()})
        """
    )


def _include_scope(con: duckdb.DuckDBPyConnection, changed_languages: set[str]) -> None:
    """Add to ``scope`` the files whose calls through includes may now read differently:
    the files that include a file in scope, transitively (the include graph of the files
    outside scope is the ``imports`` edges already stored), and those calling a name a
    changed file defined before or defines now."""
    langs = _include_languages()
    if not langs or not changed_languages & set(langs):
        con.execute("DROP TABLE IF EXISTS changed_names")
        return
    in_list = _include_in_list()
    con.execute("CREATE TEMP TABLE IF NOT EXISTS changed_names (file VARCHAR, name VARCHAR)")
    con.execute(
        f"""
        INSERT INTO changed_names
        SELECT DISTINCT s.file, unnest([s.name, s.qualified_name]) FROM symbols s
        SEMI JOIN changed_keys c ON c.path = s.file
        WHERE s.language IN ({in_list})
        """
    )
    _grow_scope(
        con,
        f"""
        SELECT r.file FROM refs r JOIN files f ON f.path = r.file AND f.language IN ({in_list})
        SEMI JOIN changed_names n ON n.name = r.expr
        WHERE r.target IS NULL AND r.kind IN {_INCLUDE_REF_KINDS}
        UNION
        SELECT r.file FROM refs r JOIN files f ON f.path = r.file AND f.language IN ({in_list})
        SEMI JOIN changed_names n ON n.name = split_part(r.expr, '.', 1)
        WHERE r.target IS NULL AND r.kind IN {_INCLUDE_REF_KINDS}
        UNION
        SELECT e.src FROM chain
        JOIN edges e ON e.kind = 'imports' AND e.dst = chain.path AND e.resolution = 'import'
        JOIN files f ON f.path = e.src AND f.language IN ({in_list})
        """,
    )
    con.execute("DROP TABLE IF EXISTS changed_names")


def _include_targets(con: duckdb.DuckDBPyConnection) -> None:
    """``import`` through ``#include``: see the comment above ``_INCLUDE_REF_KINDS``."""
    langs = _include_languages()
    if not _scope_has(con, langs):
        return  # the references are those of files in scope
    in_list = _include_in_list()
    file_local = " OR ".join(
        f"(d.language = '{name}' AND d.kind = 'function' AND starts_with(d.signature, '{prefix}'))"
        for name, prefix in sorted(langs.items())
        if prefix
    )
    con.execute(
        f"""
        INSERT INTO ref_targets
        WITH RECURSIVE wanted AS (
            SELECT r.rid, r.file, r.src, r.expr, split_part(r.expr, '.', 1) AS head
            FROM scoped_refs r JOIN files f ON f.path = r.file AND f.language IN ({in_list})
            ANTI JOIN ref_targets rt ON rt.rid = r.rid
            ANTI JOIN ref_imports ri ON ri.rid = r.rid
            WHERE r.target IS NULL AND r.resolution IS NULL AND r.kind IN {_INCLUDE_REF_KINDS}
        ),
        graph AS (
            SELECT e.src AS file, e.dst AS header FROM new_edges e
            WHERE e.kind = 'imports' AND e.resolution = 'import'
            UNION
            SELECT e.src, e.dst FROM edges e
            WHERE e.kind = 'imports' AND e.resolution = 'import'
              AND e.src NOT IN (SELECT path FROM scope)
        ),
        seen(file, header) AS (
            SELECT DISTINCT file, file FROM wanted
            UNION
            SELECT s.file, g.header FROM seen s JOIN graph g ON g.file = s.header
        ),
        names AS (
            SELECT file, qualified_name AS name FROM symbols
            WHERE language IN ({in_list}) AND kind <> 'module'
              AND type IN ('function', 'declaration', 'namespace')
            UNION ALL
            SELECT file, expr FROM refs WHERE kind = 'declares'
        ),
        visible AS (
            SELECT w.* FROM wanted w
            SEMI JOIN (
                SELECT c.file, n.name FROM seen c JOIN names n ON n.file = c.header
            ) v ON v.file = w.file AND v.name = w.head
            UNION
            SELECT w.* FROM wanted w
            SEMI JOIN (
                SELECT c.file, n.name FROM seen c JOIN names n ON n.file = c.header
            ) v ON v.file = w.file AND v.name = w.expr
        ),
        members AS (
            SELECT DISTINCT m.name FROM symbols m
            JOIN symbols p ON p.id = m.parent_id AND p.type = 'declaration'
            WHERE m.language IN ({in_list}) AND m.name IN (SELECT head FROM visible)
        ),
        shadowed AS (
            -- a name an enclosing namespace or class of the caller has too (``n::g`` for a
            -- ``g()`` inside ``namespace n``): the inner one may be meant.
            SELECT DISTINCT v.rid FROM visible v
            JOIN symbols src ON src.id = v.src AND contains(src.qualified_name, '.')
            JOIN (
                SELECT name AS last, qualified_name AS qname FROM symbols
                WHERE language IN ({in_list}) AND kind <> 'module'
                UNION ALL
                SELECT regexp_extract(expr, '[^.]*$'), expr FROM refs WHERE kind = 'declares'
            ) x ON x.last = regexp_extract(v.expr, '[^.]*$')
            WHERE x.qname <> v.expr AND ends_with(x.qname, '.' || v.expr)
              AND starts_with(src.qualified_name || '.',
                              left(x.qname, length(x.qname) - length(v.expr)))
        ),
        found AS (
            SELECT v.rid, d.id, d.file FROM visible v
            JOIN symbols d ON d.qualified_name = v.expr AND d.language IN ({in_list})
             AND d.type IN ('function', 'declaration')
            LEFT JOIN seen c ON c.file = v.file AND c.header = d.file
            LEFT JOIN symbols src ON src.id = v.src
            WHERE (c.header IS NOT NULL OR NOT ({file_local or "false"}))
              AND NOT (coalesce(src.kind IN ('method', 'constructor'), false)
                       AND v.head IN (SELECT name FROM members))
              AND v.rid NOT IN (SELECT rid FROM shadowed)
        )
        SELECT rid, min(id), 'import' FROM found
        GROUP BY rid HAVING count(DISTINCT file) = 1
        """
    )
