"""``znt export --parquet DIR``: an index's tables as a Parquet dataset.

One index is one repository at one commit. Its rows go to
``DIR/<table>/repository=<name>/commit=<commit>/data.parquet`` (Hive-style partitions, which
DuckDB, Spark, Trino, Athena and pandas all discover), so thousands of repositories and their
history live side by side and a reader prunes whole folders by repository or commit. The
columns are the index's own (docs/data-model.md), unprefixed: ids are unique within one
partition, and a reader that joins across repositories joins on the partition columns too.

Writing is all or nothing per (repository, commit): every table is written to a staging folder
first, then moved into place, and the row of ``repositories`` comes last. Readers take only the
exports listed there (znt/export/dataset.py), so a crash mid-way leaves the previous export of
that commit or none, never half of one. Exporting the same commit again replaces it.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import re
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from znt.errors import UsageError

if TYPE_CHECKING:
    from znt.results import ExportBody


EXPORT_SCHEMA_VERSION = 1

# What each table exports: the index table's columns, in order.
# docs/export.md documents every column; tests/test_export.py holds the two together.
COLUMNS: dict[str, tuple[str, ...]] = {
    "files": (
        "path",
        "dir",
        "language",
        "size",
        "mtime_ns",
        "hash",
        "lines",
        "status",
        "error",
        "module_name",
    ),
    "symbols": (
        "id",
        "file",
        "name",
        "qualified_name",
        "type",
        "kind",
        "parent_id",
        "start_line",
        "end_line",
        "start_byte",
        "end_byte",
        "signature",
        "doc",
        "role",
        "language",
        "card",
    ),
    "edges": ("src", "dst", "kind", "confidence", "resolution", "file", "line", "count"),
    "lex_docs": ("file", "sym", "sid", "dl", "role", "type", "kind"),
    "lex_postings": ("file", "sid", "term", "wtf"),
    "embed_docs": ("file", "sym", "part", "text_hash", "text"),
    "embeddings": ("hash", "vec"),
}
# Sort orders: postings by term, so that a reader looking up a few terms skips whole row
# groups by their min/max statistics; the rest by their natural key.
ORDER = {
    "files": "path",
    "symbols": "id",
    "edges": "src, dst, kind",
    "lex_docs": "sid",
    "lex_postings": "term, sid",
    "embed_docs": "sym, part",
    "embeddings": "hash",
}
# The commit record, one row per export, written last (see the module docstring).
REPOSITORIES = "repositories"
REPOSITORY_COLUMNS = (
    "exported_at",
    "export_schema",
    "index_schema",
    "znt_version",
    "last_scan_at",
    "embed_model",
    "embed_dim",
    "files",
    "symbols",
    "edges",
    "vectors",
)
DATA_FILE = "data.parquet"
# A partition value is a folder name: letters, digits and ``._-``, as git refs and most
# repository hosts allow, so no reader has to unescape it. ``/`` in ``owner/name`` is asked
# to be written as ``owner.name`` or ``owner--name``.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")


@dataclass
class ExportReport:
    folder: str
    repository: str
    commit: str
    rows: dict[str, int] = field(default_factory=dict)
    bytes: int = 0
    replaced: bool = False

    def to_dict(self) -> ExportBody:
        """The export document's body: the fields are its keys (znt/results.py
        ``ExportBody``; tests/test_architecture.py holds the two to the same names)."""
        return cast("ExportBody", dict(self.__dict__))


def check_name(value: str, what: str) -> str:
    if not _NAME.fullmatch(value or "") or value in (".", ".."):
        raise UsageError(
            f"{what} {value!r} cannot name a partition folder: use letters, digits, '.', '_' "
            "and '-' (e.g. owner.name for owner/name)",
            **{what: value},
        )
    return value


def default_repository(root: Path) -> str:
    """The project folder's name, with anything a partition value cannot hold replaced."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", root.name).strip("-.") or "repository"
    return name[:200]


def partition(folder: Path, table: str, repository: str, commit: str) -> Path:
    return folder / table / f"repository={repository}" / f"commit={commit}"


def export_index(
    index_path: Path,
    folder: Path,
    *,
    repository: str,
    commit: str | None = None,
) -> ExportReport:
    """Write the index at ``index_path`` into the dataset ``folder`` as ``repository`` at
    ``commit`` (default: the commit the index was scanned at, else its scan generation)."""
    from znt.index import store

    check_name(repository, "repository")
    folder = folder.absolute()
    _refuse_links(folder)
    con = store.connect(index_path, read_only=True)
    try:
        store.check_schema(con)
        meta = store.get_meta(con)
        commit = check_name(commit or _index_commit(meta), "commit")
        folder.mkdir(parents=True, exist_ok=True)
        staging = folder / f".staging-{uuid.uuid4().hex}"
        staging.mkdir()
        try:
            report = ExportReport(str(folder), repository, commit)
            tables = [t for t in COLUMNS if t != "embeddings" or _has_table(con, t)]
            for table in tables:
                target = partition(staging, table, repository, commit) / DATA_FILE
                target.parent.mkdir(parents=True)
                cols = ", ".join(f'"{c}"' for c in COLUMNS[table])
                _copy(con, f"SELECT {cols} FROM {table} ORDER BY {ORDER[table]}", target)
                report.rows[table] = _count(con, f"SELECT count(*) FROM {table}")
            record = partition(staging, REPOSITORIES, repository, commit) / DATA_FILE
            record.parent.mkdir(parents=True)
            _copy(con, _record_sql(meta, report), record)
            report.replaced = _publish(staging, folder, [*tables, REPOSITORIES], repository, commit)
            report.bytes = sum(
                (partition(folder, t, repository, commit) / DATA_FILE).stat().st_size
                for t in [*tables, REPOSITORIES]
            )
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    finally:
        con.close()
    return report


def _index_commit(meta: dict[str, str]) -> str:
    commit = meta.get("index_commit") or ""
    if commit:
        return commit
    # Not a git checkout: the scan's generation names this state of the tree.
    return "scan-" + (meta.get("generation") or "unknown")[:16]


def _refuse_links(folder: Path) -> None:
    """The dataset's own folders must be folders: a symbolic link planted at
    ``DIR/symbols`` would send the rows somewhere else."""
    for path in [folder, *(folder / t for t in [*COLUMNS, REPOSITORIES])]:
        if path.is_symlink():
            raise UsageError(f"{path} is a symbolic link; refusing to write through it")
        if path.exists() and not path.is_dir():
            raise UsageError(f"{path} exists and is not a folder")


def _has_table(con: Any, name: str) -> bool:
    row = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE table_name = ? "
        "AND database_name = current_database()",
        [name],
    ).fetchone()
    return bool(row and row[0])


def _count(con: Any, sql: str) -> int:
    row = con.execute(sql).fetchone()
    return int(row[0]) if row else 0


def _quote(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def _copy(con: Any, select: str, target: Path) -> None:
    # ROW_GROUP_SIZE: small enough that a reader of a few terms skips most of the postings.
    con.execute(
        f"COPY ({select}) TO {_quote(target)} "
        "(FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 65536)"
    )


def _record_sql(meta: dict[str, str], report: ExportReport) -> str:
    from znt import __version__

    def lit(value: str | None) -> str:
        return "NULL" if value is None else "'" + value.replace("'", "''") + "'"

    now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")
    dim = meta.get("embed_dim")
    has_vectors = "embeddings" in report.rows
    values = [
        f"TIMESTAMP '{now}'",
        str(EXPORT_SCHEMA_VERSION),
        lit(meta.get("schema_version")),
        lit(__version__),
        lit(meta.get("last_scan_at")),
        lit(meta.get("embed_model") if has_vectors else None),
        (str(int(dim)) if dim and has_vectors else "NULL") + "::INTEGER",
        *(f"{report.rows.get(t, 0)}::BIGINT" for t in ("files", "symbols", "edges")),
        f"{report.rows.get('embeddings', 0)}::BIGINT",
    ]
    return "SELECT " + ", ".join(
        f"{v} AS {c}" for v, c in zip(values, REPOSITORY_COLUMNS, strict=True)
    )


def _publish(staging: Path, folder: Path, tables: list[str], repository: str, commit: str) -> bool:
    """Move each staged partition into place, the commit record last. Returns whether an
    earlier export of the same commit was replaced."""
    record = partition(folder, REPOSITORIES, repository, commit)
    replaced = record.exists()
    # The old record goes first: until the new one lands, readers see no export of this
    # commit rather than a mix of old and new tables.
    _replace(None, record)
    for table in [*COLUMNS, REPOSITORIES]:
        target = partition(folder, table, repository, commit)
        staged = partition(staging, table, repository, commit)
        _replace(staged if table in tables else None, target)
    return replaced


def _replace(staged: Path | None, target: Path) -> None:
    if target.exists():
        trash = target.with_name(f".old-{uuid.uuid4().hex}")
        os.replace(target, trash)
        shutil.rmtree(trash, ignore_errors=True)
    if staged is not None:
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staged, target)
    else:
        with contextlib.suppress(OSError):
            target.parent.rmdir()  # an emptied repository= folder
