"""A full build loads the staged tables two at a time (``store.load_csv_folder(parallel=True)``):
the rows must be those of one load after another, and a failing load must surface as the
error it is, not as a half-built index that looks complete."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from znt.graph.interface import row_digests
from znt.index import store
from znt.index.parse import ParseJob, close_sinks, parse_one

SOURCES = {
    "pkg/shapes.py": "class Shape:\n    def area(self):\n        return 0\n",
    "pkg/circle.py": (
        "from pkg.shapes import Shape\n\n\nclass Circle(Shape):\n"
        '    """A round shape."""\n\n    def area(self):\n        return 3.14 * self.r**2\n'
    ),
    "main.go": "package main\n\nfunc main() { helper() }\n\nfunc helper() {}\n",
    "lib/util.rb": "module Util\n  def self.twice(x)\n    x * 2\n  end\nend\n",
}


def _staged(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    for rel, text in SOURCES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    sink = tmp_path / "staged"
    sink.mkdir()
    languages = {".py": "python", ".go": "go", ".rb": "ruby"}
    for rel in SOURCES:
        language = languages[Path(rel).suffix]
        job = ParseJob(rel, str(root / rel), language, None, sink=str(sink))
        assert parse_one(job, row_digests) is not None
    close_sinks(str(sink))
    return sink


def _tables(path: Path) -> dict[str, list[tuple[object, ...]]]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return {
            t: sorted(con.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in store.TABLES
        }
    finally:
        con.close()


def _load(sink: Path, target: Path, parallel: bool) -> dict[str, str]:
    con = store.connect(target, read_only=False)
    try:
        store.create_schema(con)
        return store.load_csv_folder(con, sink, parallel=parallel)
    finally:
        con.close()


def test_parallel_load_gives_the_rows_of_a_sequential_one(tmp_path: Path) -> None:
    sink = _staged(tmp_path)
    one = _load(sink, tmp_path / "one.duckdb", parallel=False)
    two = _load(sink, tmp_path / "two.duckdb", parallel=True)
    assert one == two
    assert {"files", "symbols", "lex_docs", "lex_postings"} <= set(two)
    sequential, parallel = _tables(tmp_path / "one.duckdb"), _tables(tmp_path / "two.duckdb")
    assert len(parallel["symbols"]) >= 8 and len(parallel["lex_docs"]) >= 8
    assert parallel == sequential


def test_a_failing_parallel_load_raises_its_own_error(tmp_path: Path) -> None:
    sink = _staged(tmp_path)
    # A row with one field too many: the strict CSV reader refuses the table.
    with open(next(sink.glob("refs-*.csv")), "a", encoding="utf-8") as fh:
        fh.write("a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t,u,v,w,x,y,z\r\n")
    with pytest.raises(duckdb.Error, match=r"(?i)csv|column"):
        _load(sink, tmp_path / "bad.duckdb", parallel=True)
