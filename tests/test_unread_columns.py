"""The columns ``znt/graph/interface.py`` calls unread are read by no rule that derives edges.

A rescan derives no edge when every changed file's rows are what they were but for those
columns (a comment appended, a docstring edited in place): that is right only while the
edges of the index are a function of the other columns. So the fixture projects of every
language are scanned, each unread column of every row is changed, and a full
``rebuild_edges`` must give the very edges it gave before. A column the rules do read
(a symbol's first line, which edges carry) changes them: the control that the check can
fail."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import copy_fixture

# How each unread column is changed: every value made different from what it was.
CHANGES = {
    ("files", "size"): "size + 17",
    ("files", "mtime_ns"): "mtime_ns + 1000",
    ("files", "hash"): "'changed-' || coalesce(hash, '')",
    ("files", "lines"): "lines + 3",
    ("files", "interface_digest"): "'changed-' || coalesce(interface_digest, '')",
    ("files", "inputs_digest"): "'changed-' || coalesce(inputs_digest, '')",
    ("files", "rows_digest"): "'changed-' || coalesce(rows_digest, '')",
    ("symbols", "end_line"): "end_line + 5",
    ("symbols", "start_byte"): "start_byte + 40",
    ("symbols", "end_byte"): "end_byte + 40",
    ("symbols", "doc"): "'changed ' || coalesce(doc, '')",
    ("symbols", "card"): "'{}'",
}


@pytest.fixture(scope="module")
def lang_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from znt import api

    project = copy_fixture("lang", tmp_path_factory.mktemp("unread"))
    api.scan(str(project))
    return project / ".znt" / "index.duckdb"


def _edges_after(index: Path, tmp_path: Path, updates: list[tuple[str, str, str]]) -> list[Any]:
    """The edges a full rebuild gives on a copy of ``index`` after ``updates``."""
    import shutil

    from znt.graph.resolve import rebuild_edges
    from znt.index import store

    tmp_path.mkdir(parents=True, exist_ok=True)
    copy = tmp_path / "index.duckdb"
    shutil.copy(index, copy)
    con = store.connect(copy, read_only=False)
    try:
        for table, column, expression in updates:
            con.execute(f"UPDATE {table} SET {column} = {expression}")
        rebuild_edges(con)
        return sorted(con.execute("SELECT * FROM edges").fetchall(), key=repr)
    finally:
        con.close()


def test_the_list_is_the_one_the_scan_uses() -> None:
    from znt.graph.interface import UNREAD_COLUMNS

    assert {(t, c) for t, cols in UNREAD_COLUMNS.items() for c in cols} == set(CHANGES)


def test_unread_columns_change_no_edge(lang_index: Path, tmp_path: Path) -> None:
    before = _edges_after(lang_index, tmp_path / "a", [])
    assert len(before) > 500  # every language's fixtures, resolved
    updates = [(t, c, e) for (t, c), e in CHANGES.items()]
    assert _edges_after(lang_index, tmp_path / "b", updates) == before


def test_a_read_column_changes_edges(lang_index: Path, tmp_path: Path) -> None:
    """The control: edges carry a symbol's first line (``contains``), so moving every
    symbol down changes them, and the comparison above would have seen it."""
    before = _edges_after(lang_index, tmp_path / "a", [])
    after = _edges_after(lang_index, tmp_path / "b", [("symbols", "start_line", "start_line + 5")])
    assert after != before


def _worker_rows() -> list[dict[str, list[Any]]]:
    """Every fixture file's rows as its parse worker hands them to the digest."""
    import tempfile

    from tests.conftest import FIXTURES
    from znt.index.languages import language_for
    from znt.index.parse import ParseJob, close_sinks, parse_one

    captured: list[dict[str, list[Any]]] = []

    def capture(rows: Any) -> tuple[str, str]:
        captured.append({table: [tuple(r) for r in rs] for table, rs in rows.items()})
        return ("", "")

    root = FIXTURES / "lang"
    with tempfile.TemporaryDirectory() as sink:
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            spec = language_for(str(path))
            if spec is not None:
                rel = str(path.relative_to(root))
                parse_one(ParseJob(rel, str(path), spec.name, None, sink), capture)
        close_sinks(sink)
    return [rows for rows in captured if rows.get("symbols")]


def _changed(rows: dict[str, list[Any]], table: str, column: str) -> dict[str, list[Any]]:
    """``rows`` with ``column`` of every ``table`` row set to a value it did not hold."""
    from znt.index.store import TABLES

    at = [name for name, _type in TABLES[table]].index(column)

    def other(value: Any) -> Any:
        return value + 7 if isinstance(value, int) else f"changed {value}"

    out = dict(rows)
    out[table] = [(*r[:at], other(r[at]), *r[at + 1 :]) for r in rows.get(table, [])]
    return out


def test_worker_digests_see_read_columns_only() -> None:
    """The digests a parse worker stores with a file (``interface.row_digests``) stay as
    they were when only unread columns change, and move when a read column does: the
    inputs digest with a symbol's first line, both with a symbol's name."""
    from znt.graph.interface import row_digests

    files = _worker_rows()
    assert len(files) > 20  # every language's fixtures
    for rows in files:
        digests = row_digests(rows)
        assert row_digests(rows) == digests  # a function of the rows
        for table, column in CHANGES:
            # Not in a worker's row: the digests themselves, and the card the load builds
            # (store.STAGED_COLUMNS).
            if column not in ("interface_digest", "inputs_digest", "rows_digest", "card"):
                assert row_digests(_changed(rows, table, column)) == digests, (table, column)
        moved = row_digests(_changed(rows, "symbols", "start_line"))
        assert moved[0] == digests[0] and moved[1] != digests[1]
        renamed = row_digests(_changed(rows, "symbols", "name"))
        assert renamed[0] != digests[0] and renamed[1] != digests[1]
