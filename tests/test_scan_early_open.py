"""A small rescan opens the index while its worker parses; a big one after the parse.

Opening the index for writing is about 25 ms of a one-file rescan, and the scanner has
nothing else to do while its one worker parses (``Scanner._open_early``). A rescan of more
files opens it only once every file is parsed, so that readers are not locked out for the
length of a long parse. Real scans of a real project; only the order of two calls is
recorded."""

from __future__ import annotations

from pathlib import Path

import pytest

from znt.index import store
from znt.pipeline import scan as scan_mod
from znt.project import Project


def _project(root: Path, files: int) -> None:
    root.mkdir()
    for i in range(files):
        (root / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")


def _edit_and_rescan(
    root: Path, edited: int, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[str], scan_mod.ScanResult]:
    for i in range(edited):
        (root / f"m{i}.py").write_text(f"def g{i}():\n    return f{i + 1}()\n")
    events: list[str] = []
    connect, collect = store.connect, scan_mod.Scanner._collect

    def recorded_connect(*args: object, **kwargs: object) -> object:
        if kwargs.get("read_only") is False:
            events.append("open for writing")
        return connect(*args, **kwargs)  # type: ignore[arg-type]

    def recorded_collect(self: scan_mod.Scanner, *args: object) -> None:
        events.append("parsed")
        collect(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "connect", recorded_connect)
    monkeypatch.setattr(scan_mod.Scanner, "_collect", recorded_collect)
    result = scan_mod.Scanner(Project(root)).run()
    return events, result


def _names(root: Path) -> set[str]:
    with store.open_index(Project(root).index_path) as con:
        return {row[0] for row in con.execute("SELECT name FROM symbols").fetchall()}


def test_a_one_file_rescan_opens_the_index_during_the_parse(tmp_path, monkeypatch):
    root = tmp_path / "p"
    _project(root, 3)
    scan_mod.Scanner(Project(root)).run()
    events, result = _edit_and_rescan(root, 1, monkeypatch)
    assert result.mode == "incremental" and result.files_parsed == 1
    assert events == ["open for writing", "parsed"]
    assert "g0" in _names(root) and "f0" not in _names(root)


def test_a_bigger_rescan_opens_the_index_after_the_parse(tmp_path, monkeypatch):
    edited = scan_mod.EARLY_OPEN_MAX + 1
    root = tmp_path / "p"
    _project(root, edited + 2)
    scan_mod.Scanner(Project(root)).run()
    events, result = _edit_and_rescan(root, edited, monkeypatch)
    assert result.mode == "incremental" and result.files_parsed == edited
    assert events == ["parsed"] * edited + ["open for writing"]
    assert {f"g{i}" for i in range(edited)} <= _names(root)
