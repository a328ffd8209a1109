"""Merging duplicate edges (znt/graph/resolve.py ``_replace_edges``) and bulk row inserts
(znt/index/store.py ``insert_rows``) on a real DuckDB index file.

The same files must always give the same rows: a scan of sympy gave a call both as
``ambiguous`` (the type flow's candidate) and as ``override`` (the stub rule), both 0.5,
and which label the merged edge kept changed from scan to scan with DuckDB's parallel
aggregate. Here the tied rows are inserted in both orders; the merged row must not depend
on the order.
"""

from __future__ import annotations

from pathlib import Path

from znt.graph import resolve
from znt.index import store

TIED = [
    ("a::f", "a::C.m", "call", 0.5, "ambiguous", "b.py", 7, 2),
    ("a::f", "a::C.m", "call", 0.5, "override", "a.py", 7, 4),
    ("a::f", "a::C.m", "call", 0.4, "unresolved", "c.py", 9, 1),
]


def _merged(folder: Path, rows: list[tuple[object, ...]]) -> list[tuple[object, ...]]:
    folder.mkdir()
    con = store.connect(folder / "index.duckdb", read_only=False)
    try:
        store.create_schema(con)
        con.execute("CREATE TEMP TABLE scope (path VARCHAR)")
        con.execute("CREATE TEMP TABLE new_edges AS SELECT * FROM edges WITH NO DATA")
        store.insert_rows(con, "new_edges", rows, store.TABLES["edges"])
        resolve._replace_edges(con)
        return con.execute("SELECT * FROM edges ORDER BY ALL").fetchall()
    finally:
        con.close()


def test_tied_duplicates_merge_to_the_same_row_in_any_order(tmp_path: Path) -> None:
    orders = [TIED, TIED[::-1], [TIED[1], TIED[2], TIED[0]], [TIED[0], TIED[2], TIED[1]]]
    got = [_merged(tmp_path / str(i), order) for i, order in enumerate(orders)]
    assert all(rows == got[0] for rows in got), got
    [(src, dst, kind, confidence, resolution, file, line, count)] = got[0]
    # The greatest confidence; of the tied resolutions the greatest by name; one of the
    # two files at the first line; every reference counted.
    assert (src, dst, kind, confidence, resolution, line, count) == (
        "a::f",
        "a::C.m",
        "call",
        0.5,
        "override",
        7,
        7,
    )
    assert file in ("a.py", "b.py")


def test_insert_rows_keeps_types_nulls_and_order(tmp_path: Path) -> None:
    rows = [
        ("x", None, "call", 1.0, None, "f.py", 1, 1),
        ("y", "z", "contains", 0.25, "contains", "g.py", None, 3),
    ]
    con = store.connect(tmp_path / "index.duckdb", read_only=False)
    try:
        store.create_schema(con)
        store.insert_rows(con, "edges", rows, store.TABLES["edges"])
        store.insert_rows(con, "edges", [], store.TABLES["edges"])  # nothing to insert
        got = con.execute("SELECT * FROM edges").fetchall()
        types = con.execute("SELECT typeof(confidence), typeof(line) FROM edges LIMIT 1").fetchone()
    finally:
        con.close()
    assert got == rows
    assert types == ("DOUBLE", "INTEGER")
