"""A one-file edit on a large generated tree recomputes only what the edit can change.

The tree: one hub module that every fifth module imports, and chains of modules that import
their predecessor; a module whose successor imports the hub instead is imported by nobody (a
leaf). After a full scan, editing a leaf must re-parse that file alone, replace only its rows,
refresh only its terms and re-derive only its own outgoing edges; adding a function to the
hub must re-derive the edges of the hub and of its importers, and nothing else; changing a
function's body (what no other file reads: znt/graph/interface.py) only the hub's own. The scan's own
functions are watched (they run for real; the spies only record their arguments and the
``scope`` table the resolver builds), and the edges afterwards equal a clean scan's."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import LEX_TERMS_SORTED, query

MODULES = 600
HUB_EVERY = 5  # modules 0, 5, 10 ... import the hub


def _write_tree(root: Path) -> None:
    pkg = root / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "hub.py").write_text(
        '"""The module everyone needs."""\n\n\ndef helper(x):\n    return x + 1\n'
    )
    for i in range(MODULES):
        if i % HUB_EVERY == 0:
            body = f"from pkg.hub import helper\n\n\ndef f_{i}(x):\n    return helper(x)\n"
        else:
            body = (
                f"from pkg.mod_{i - 1} import f_{i - 1}\n\n\n"
                f"def f_{i}(x):\n    return f_{i - 1}(x) * {i}\n"
            )
        (pkg / f"mod_{i}.py").write_text(body)
    # Written a minute ago: a file modified within the clock's resolution of a scan is
    # re-read by the next one (scan.RACY_NS), which is right, but not what this test is about.
    past = time.time() - 60
    for path in pkg.iterdir():
        os.utime(path, (past, past))


def _importers_of(i: int | None) -> set[str]:
    """The modules that import module ``i`` (the hub when ``i`` is None)."""
    if i is None:
        return {f"pkg/mod_{j}.py" for j in range(0, MODULES, HUB_EVERY)}
    j = i + 1
    return {f"pkg/mod_{j}.py"} if j < MODULES and j % HUB_EVERY else set()


class Spy:
    """Records what the scan's steps were asked to do, then lets them do it."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from znt.graph import resolve
        from znt.index import lexical, store
        from znt.pipeline import scan

        self.calls: dict[str, list[Any]] = {}
        self.scopes: list[set[str]] = []
        for module, name in (
            (store, "delete_files"),
            (lexical, "refresh_terms"),
            (scan, "parse_files"),
        ):
            self._wrap(monkeypatch, module, name)
        set_scope = resolve._set_scope

        def recording_scope(con: Any, *args: Any) -> None:
            set_scope(con, *args)
            self.scopes.append({r[0] for r in con.execute("SELECT path FROM scope").fetchall()})

        monkeypatch.setattr(resolve, "_set_scope", recording_scope)

    def _wrap(self, monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> None:
        real = getattr(module, name)

        def recording(*args: Any, **kwargs: Any) -> Any:
            if name == "parse_files":  # the jobs the scan hands to its parse workers
                self.calls.setdefault(name, []).extend(job.path for job in args[0])
            else:
                self.calls.setdefault(name, []).append(args[1:])
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, recording)


@pytest.fixture(scope="module")
def scanned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from znt import api

    root = tmp_path_factory.mktemp("big") / "tree"
    _write_tree(root)
    api.scan(str(root))
    return root


def _edges(root: Path) -> set[tuple[Any, ...]]:
    return set(query(root, "SELECT src, dst, kind, resolution, file FROM edges"))


# Edits: one that adds a function (other files may now see it), and one that changes a
# function's body (a call added) and adds a comment (nothing another file reads of it
# changes).
ADD = "adds"
BODY = "body"


def _edited(original: str, edit: str) -> str:
    if edit == ADD:
        return original + "\n\ndef added(y):\n    return y\n"
    # A call added: the file's own edges change (a body that changes no reference, and so
    # no edge, derives none: test_an_edit_no_edge_reads_derives_no_edge).
    body = original.replace("return x + 1", "return abs(x) + 2").replace("(x) * ", "(abs(x)) + ")
    assert body != original
    return body + "# a comment that says nothing\n"


@pytest.mark.parametrize(
    ("edited", "edit", "importers"),
    [
        ("pkg/mod_4.py", ADD, _importers_of(4)),  # a leaf: mod_5 imports the hub instead
        ("pkg/mod_7.py", ADD, _importers_of(7)),  # in a chain: mod_8 imports it
        ("pkg/hub.py", ADD, _importers_of(None)),  # the hub: 120 importers
        ("pkg/hub.py", BODY, set()),  # its interface unchanged: the hub alone
        ("pkg/mod_7.py", BODY, set()),
    ],
)
def test_one_file_edit_recomputes_only_what_can_change(
    scanned: Path,
    edited: str,
    edit: str,
    importers: set[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    from znt import api

    path = scanned / edited
    original = path.read_text()
    spy = Spy(monkeypatch)
    try:
        path.write_text(_edited(original, edit))
        past = time.time() - 30  # not racy either (see _write_tree)
        os.utime(path, (past, past))
        result = api.scan(str(scanned))
        assert result["mode"] == "incremental" and result["files_parsed"] == 1
        # Read and parsed: that file only.
        assert spy.calls.get("parse_files") == [edited], spy.calls
        # Its rows, and only its rows, replaced; only its terms' lists rebuilt.
        assert spy.calls["delete_files"] == [([edited],)]
        assert spy.calls["refresh_terms"] == [([edited],)]
        # Edges re-derived for the file and the files that import it, nothing else.
        assert spy.scopes == [{edited} | importers]
        assert len(importers) < MODULES // 4
        added = query(scanned, "SELECT count(*) FROM symbols WHERE name = 'added'")
        assert added == [(1 if edit == ADD else 0,)]

        # What the rescan left equals a clean scan of the same tree.
        monkeypatch.undo()
        clean = tmp_path / "clean"
        shutil.copytree(scanned, clean, ignore=shutil.ignore_patterns(".znt"))
        api.scan(str(clean))
        assert _edges(scanned) == _edges(clean)
    finally:
        _restore(scanned, path, original, monkeypatch)


def _restore(scanned: Path, path: Path, original: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Put the edited file back as it was (older than the racy window) and rescan, so the
    module-scoped tree serves the next test as it found it."""
    from znt import api

    path.write_text(original)
    past = time.time() - 20
    os.utime(path, (past, past))
    monkeypatch.undo()
    api.scan(str(scanned))


def _rows(root: Path, table: str) -> list[tuple[Any, ...]]:
    """A table's rows in a stable order (a file's mtime is the copy's own)."""
    if table == "lex_terms":
        return sorted(query(root, LEX_TERMS_SORTED), key=repr)
    columns = "* EXCLUDE (mtime_ns)" if table == "files" else "*"
    return sorted(query(root, f"SELECT {columns} FROM {table}"), key=repr)


@pytest.mark.parametrize("edited", ["pkg/mod_4.py", "pkg/hub.py", "pkg/mod_7.py"])
def test_an_edit_no_edge_reads_derives_no_edge(
    scanned: Path, edited: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A comment appended after the last line, and a docstring reworded in place, change
    the file's rows only in columns no rule reads (znt/graph/interface.py): the file is
    parsed again and its rows and terms replaced, but no edge is derived, and the index
    still equals a clean scan's."""
    from znt import api
    from znt.graph import resolve

    path = scanned / edited
    original = path.read_text()
    spy = Spy(monkeypatch)
    rebuilt: list[object] = []
    rebuild = resolve.rebuild_edges
    monkeypatch.setattr(
        resolve, "rebuild_edges", lambda *a, **k: rebuilt.append(a[1:]) or rebuild(*a, **k)
    )
    try:
        text = original.replace("The module everyone needs.", "The module all others need.")
        path.write_text(text + "# a comment after the last line\n")
        past = time.time() - 30
        os.utime(path, (past, past))
        result = api.scan(str(scanned))
        assert result["mode"] == "incremental" and result["files_parsed"] == 1
        assert spy.calls["delete_files"] == [([edited],)]
        assert spy.calls["refresh_terms"] == [([edited],)]
        assert rebuilt == [] and spy.scopes == []

        monkeypatch.undo()
        clean = tmp_path / "clean"
        shutil.copytree(scanned, clean, ignore=shutil.ignore_patterns(".znt"))
        api.scan(str(clean))
        assert _edges(scanned) == _edges(clean)
        for table in ("files", "symbols", "refs", "lex_postings", "lex_terms"):
            assert _rows(scanned, table) == _rows(clean, table), table
    finally:
        _restore(scanned, path, original, monkeypatch)
