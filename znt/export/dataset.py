"""Several exported repositories read as one index.

``open_dataset(DIR)`` returns an in-memory DuckDB connection whose views have the names and
columns of one project's index (docs/data-model.md) over the Parquet files of every chosen
repository's newest export (znt/export/parquet.py). The search ranking and the graph walk then
answer across repositories with the very code that answers for one project:

* a project node's id and a file's path get the repository in front (``sympy/sympy/core/
  basic.py::Basic``), so ids stay unique and ``--path 'sympy/**'`` picks one repository;
* a lexical document's integer key is mixed with a hash of its repository, so two repositories
  with the same path and name keep two documents; document frequencies are counted over all
  chosen repositories, so BM25 scores are comparable between them;
* an edge to ``dep::M`` or ``ext::M.N`` that names a module or symbol defined by exactly one
  other chosen repository is linked to it (resolution ``cross_repository``), so a graph walk
  crosses from an application into the libraries it imports.

Only the exports listed in ``repositories`` are read, from an explicit file list (no globbing,
so a half-written export or a stray file is never picked up).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from znt.errors import IndexMissing, NotFound, UsageError
from znt.export.parquet import COLUMNS, DATA_FILE, REPOSITORIES, check_name, partition


@dataclass(frozen=True)
class Export:
    repository: str
    commit: str
    exported_at: str
    embed_model: str | None
    embed_dim: int | None


# Types of the index tables (store.TABLES, and its ``lex_postings`` view), for the views of
# a table no chosen export has.
def _types(table: str) -> dict[str, str]:
    from znt.index.store import LEX_POSTINGS_COLUMNS, TABLES

    if table == "embeddings":
        return {"hash": "VARCHAR", "vec": "FLOAT[]"}
    if table == "lex_postings":
        return dict(LEX_POSTINGS_COLUMNS)
    return dict(TABLES[table])


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _node(column: str) -> str:
    """A node id with its repository in front; external nodes are shared by all."""
    return (
        f"CASE WHEN starts_with({column}, 'ext::') OR starts_with({column}, 'dep::') "
        f"THEN {column} ELSE repository || '/' || {column} END"
    )


_PATH = "repository || '/' || {c}"
_SID = "xor(sid, (hash(repository) >> 1)::BIGINT)"

# Each view's column expressions over the exported rows (the rest are taken as they are).
REWRITE: dict[str, dict[str, str]] = {
    "files": {
        "path": _PATH.format(c="path"),
        "dir": "repository || CASE WHEN coalesce(dir, '') = '' THEN '' ELSE '/' || dir END",
    },
    "symbols": {
        "id": _node("id"),
        "file": _PATH.format(c="file"),
        "parent_id": _node("parent_id"),
        "card": "json_merge_patch(card, json_object('file', repository || '/' || file, "
        "'repository', repository))",
    },
    "edges": {"src": _node("src"), "dst": _node("dst"), "file": _PATH.format(c="file")},
    "lex_docs": {"file": _PATH.format(c="file"), "sym": _node("sym"), "sid": _SID},
    "lex_postings": {"file": _PATH.format(c="file"), "sid": _SID},
    "embed_docs": {"file": _PATH.format(c="file"), "sym": _node("sym")},
}


def exports(folder: Path) -> list[Export]:
    """Every export recorded in the dataset, newest first."""
    from znt.index.engine import duckdb

    record = folder / REPOSITORIES
    files = sorted(record.glob(f"repository=*/commit=*/{DATA_FILE}")) if record.is_dir() else []
    if not files:
        return []
    con = duckdb.connect(":memory:")
    try:
        rows = con.execute(
            "SELECT repository, commit, exported_at::VARCHAR, embed_model, embed_dim "
            f"FROM read_parquet([{', '.join(_quote(str(f)) for f in files)}], "
            "hive_partitioning = true, hive_types = {'repository': VARCHAR, 'commit': VARCHAR}) "
            "ORDER BY exported_at DESC, repository, commit"
        ).fetchall()
    finally:
        con.close()
    return [Export(r[0], r[1], r[2], r[3], r[4]) for r in rows]


def choose(
    folder: Path, repositories: Sequence[str] | None = None, commits: dict[str, str] | None = None
) -> list[Export]:
    """The export to read for each repository: its newest, or the commit asked for."""
    found = exports(folder)
    if not found:
        raise IndexMissing(
            f"no exported repositories in {folder}; run `znt export --parquet {folder}` first",
            path=str(folder),
        )
    wanted = list(dict.fromkeys(repositories or [e.repository for e in found]))
    commits = commits or {}
    chosen = []
    for name in wanted:
        check_name(name, "repository")
        mine = [e for e in found if e.repository == name]
        if name in commits:
            mine = [e for e in mine if e.commit == commits[name]]
        if not mine:
            known = sorted({e.repository for e in found})
            raise NotFound(
                f"repository {name!r} is not exported in {folder}"
                + (f" at commit {commits[name]}" if name in commits else ""),
                suggestions=known[:20],
            )
        chosen.append(mine[0])
    return sorted(chosen, key=lambda e: e.repository)


def open_dataset(
    folder: Path,
    repositories: Sequence[str] | None = None,
    *,
    commits: dict[str, str] | None = None,
    link: bool = True,
) -> Any:
    """An in-memory DuckDB connection with the index's views over the chosen exports.

    ``link`` adds the cross-repository edges (it reads every edge once, at open)."""
    from znt.index.engine import duckdb
    from znt.index.store import SCHEMA_VERSION

    folder = folder.absolute()
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder", path=str(folder))
    chosen = choose(folder, repositories, commits)
    con = duckdb.connect(":memory:")
    con.execute("SET threads TO 2")
    for table in COLUMNS:
        present = [
            p
            for e in chosen
            if (p := partition(folder, table, e.repository, e.commit) / DATA_FILE).is_file()
        ]
        name = "exported_edges" if table == "edges" and link else table
        con.execute(f"CREATE VIEW {name} AS {_select(table, present, chosen)}")
    if link:
        _link(con)
    _derived_views(con)
    con.execute("CREATE TABLE meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
    meta = {
        "schema_version": str(SCHEMA_VERSION),
        "repositories": ",".join(e.repository for e in chosen),
        "index_commit": ",".join(f"{e.repository}@{e.commit}" for e in chosen),
        "last_scan_at": "",
    }
    models = {(e.embed_model, e.embed_dim) for e in chosen if e.embed_model}
    if len(models) == 1:
        model, dim = next(iter(models))
        meta.update({"embed_model": str(model), "embed_dim": str(dim)})
    con.execute("INSERT INTO meta SELECT unnest(?), unnest(?)", [list(meta), list(meta.values())])
    return con


def _select(table: str, files: list[Path], chosen: list[Export]) -> str:
    types = _types(table)
    rewrite = REWRITE.get(table, {})
    if not files:
        cols = ", ".join(f"NULL::{types[c]} AS {c}" for c in COLUMNS[table])
        return f"SELECT {cols} LIMIT 0"
    exprs = []
    for c in COLUMNS[table]:
        expr = rewrite.get(c, f'"{c}"')
        if table == "embeddings" and c == "vec":
            dims = {e.embed_dim for e in chosen if e.embed_dim}
            # One model for all: fixed-size arrays, as the index holds them (cosine needs it).
            expr = f"vec::FLOAT[{int(next(iter(dims)))}]" if len(dims) == 1 else "vec"
        exprs.append(f"{expr} AS {c}")
    source = (
        f"read_parquet([{', '.join(_quote(str(f)) for f in files)}], hive_partitioning = true, "
        "hive_types = {'repository': VARCHAR, 'commit': VARCHAR})"
    )
    cols = ", ".join(exprs)
    if table == "embeddings":  # the same text embedded in two repositories: one vector
        return f"SELECT DISTINCT ON (hash) {cols} FROM {source}"
    return f"SELECT {cols}, repository FROM {source}"


def _link(con: Any) -> None:
    """``edges``: the exported edges, with ``dep::``/``ext::`` targets that exactly one other
    chosen repository defines pointed at that repository's node."""
    con.execute(
        """
        CREATE TEMP TABLE cross_links AS
        WITH wanted AS (
            SELECT DISTINCT dst, repository FROM exported_edges
            WHERE starts_with(dst, 'dep::') OR starts_with(dst, 'ext::')
        ),
        defined AS (
            SELECT CASE WHEN s.kind = 'module' THEN 'dep::' || f.module_name
                        ELSE 'ext::' || f.module_name || '.' || s.qualified_name END AS ext,
                   s.id, s.repository
            FROM symbols s JOIN files f ON f.path = s.file AND f.repository = s.repository
            WHERE coalesce(f.module_name, '') <> ''
              AND (s.kind = 'module' OR s.type IN ('function', 'declaration'))
        ),
        unique_defs AS (
            SELECT ext, any_value(id) AS id, any_value(repository) AS repository
            FROM defined WHERE ext IN (SELECT dst FROM wanted)
            GROUP BY ext HAVING count(*) = 1
        )
        SELECT w.dst, w.repository AS from_repository, u.id
        FROM wanted w JOIN unique_defs u ON u.ext = w.dst AND u.repository <> w.repository
        """
    )
    con.execute(
        """
        CREATE VIEW edges AS
        SELECT e.src, coalesce(l.id, e.dst) AS dst, e.kind, e.confidence,
               CASE WHEN l.id IS NULL THEN e.resolution ELSE 'cross_repository' END AS resolution,
               e.file, e.line, e.count, e.repository
        FROM exported_edges e
        LEFT JOIN cross_links l ON l.dst = e.dst AND l.from_repository = e.repository
        """
    )


def _derived_views(con: Any) -> None:
    """``externals``, ``nodes`` and ``lex_terms`` as the index defines them (store.py,
    lexical.py), over the views."""
    from znt.index.lexical import TERM_LISTS_SQL
    from znt.index.store import EXTERNALS_SQL, NODES_SQL

    con.execute(f"CREATE VIEW externals AS {EXTERNALS_SQL}")
    con.execute(f"CREATE VIEW nodes AS {NODES_SQL}")
    con.execute(f"CREATE VIEW lex_terms AS {TERM_LISTS_SQL}")


@dataclass(frozen=True)
class DatasetQuery:
    """Which exported repositories a search or graph reads (``znt search --dataset``)."""

    folder: Path
    repositories: tuple[str, ...] = ()

    def describe(self, con: Any) -> dict[str, Any]:
        """The answer's ``freshness`` for a dataset: which export of each repository."""
        rows = dict(con.execute("SELECT key, value FROM meta").fetchall())
        return {
            "dataset": str(self.folder),
            "exports": [e for e in (rows.get("index_commit") or "").split(",") if e],
        }


@contextlib.contextmanager
def reading(query: DatasetQuery) -> Iterator[Any]:
    """``open_dataset`` for one answer, closed afterwards."""
    con = open_dataset(query.folder, list(query.repositories) or None)
    try:
        yield con
    finally:
        con.close()
