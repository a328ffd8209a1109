"""A rescan replaces a changed file's rows only in the tables where they changed.

Each parse worker stores a digest of the file's rows per table (``files.rows_digest``); a
rescan compares the stored digests with the new ones and leaves the tables where every
changed file's rows are the same alone: neither deleted nor loaded again. A comment appended
to a module changes its symbols (the module's last line) and postings (the comment's words),
not its references or imports. The index afterwards must be what a clean scan gives, and a
table whose rows did change (a call added: ``refs``) must be replaced."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from tests.test_incremental_property import snapshot
from znt import api
from znt.index import store

SHAPES = '''"""Shapes and their areas."""
import math
from pkg.units import scale


def area(r):
    return scale(math.pi * r * r)
'''
UNITS = """def scale(x):
    return x * 2
"""


def _tree(root: Path) -> Path:
    pkg = root / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "shapes.py").write_text(SHAPES)
    (pkg / "units.py").write_text(UNITS)
    past = time.time() - 60  # not within the clock's resolution of the scan (scan.RACY_NS)
    for path in pkg.iterdir():
        os.utime(path, (past, past))
    return root


@pytest.fixture
def kept(monkeypatch: pytest.MonkeyPatch) -> list[set[str]]:
    """The tables each rescan told ``store.load_csv_folder`` to leave alone."""
    calls: list[set[str]] = []
    real = store.load_csv_folder

    def recording(con: Any, folder: Path, skip: Any = (), parallel: bool = False) -> dict[str, str]:
        calls.append(set(skip))
        return real(con, folder, skip, parallel)

    monkeypatch.setattr(store, "load_csv_folder", recording)
    return calls


def _clean(root: Path, tmp_path: Path) -> dict[str, list[tuple]]:
    copy = tmp_path / "clean"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".znt"))
    api.scan(str(copy))
    return snapshot(copy)


def test_comment_leaves_references_and_imports_alone(tmp_path: Path, kept: list[set[str]]) -> None:
    root = _tree(tmp_path / "tree")
    api.scan(str(root))
    assert kept == [set()]  # the first scan builds everything
    shapes = root / "pkg" / "shapes.py"
    shapes.write_text(SHAPES + "# a note about circles\n")
    api.scan(str(root))
    assert {"refs", "imports", "import_candidates"} <= kept[-1]
    assert not {"symbols", "lex_postings"} & kept[-1]  # the module's end and its words moved
    assert snapshot(root) == _clean(root, tmp_path)


def test_changed_references_are_replaced(tmp_path: Path, kept: list[set[str]]) -> None:
    root = _tree(tmp_path / "tree")
    api.scan(str(root))
    before = [r for r in snapshot(root)["refs"] if "pkg/shapes.py" in r]
    shapes = root / "pkg" / "shapes.py"
    shapes.write_text(SHAPES.replace("scale(math.pi * r * r)", "scale(scale(math.pi) * r * r)"))
    api.scan(str(root))
    assert "refs" not in kept[-1]
    after = snapshot(root)
    assert after == _clean(root, tmp_path)
    assert [r for r in after["refs"] if "pkg/shapes.py" in r] != before  # two calls now


def test_a_deleted_file_replaces_every_table(tmp_path: Path, kept: list[set[str]]) -> None:
    root = _tree(tmp_path / "tree")
    api.scan(str(root))
    (root / "pkg" / "units.py").unlink()
    api.scan(str(root))
    assert kept[-1] == set()
    assert snapshot(root) == _clean(root, tmp_path)


def test_same_row_tables() -> None:
    a = store.rows_digest({"symbols": "s\r\n", "refs": "r\r\n"})
    b = store.rows_digest({"symbols": "s2\r\n", "refs": "r\r\n"})
    tables = set(store.ROW_DIGEST_TABLES)
    assert store.same_row_tables([(a, a)]) == tables
    assert store.same_row_tables([(a, b)]) == tables - {"symbols"}
    assert store.same_row_tables([(a, a), (a, b)]) == tables - {"symbols"}
    assert store.same_row_tables([(None, a)]) == set()  # nothing stored: replace all
    assert store.same_row_tables([(a, None)]) == set()
    assert store.same_row_tables([("short", a)]) == set()
