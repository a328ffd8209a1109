"""Scan progress in the original's phases (znt/index/progress.py): the scan's own step names
mapped in the original's order, a percent that never decreases, counts of files and texts,
the error phase, and a scan whose process died reported as such."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from znt.index import progress
from znt.project import Project


def read(project: Project) -> dict:
    data = progress.read_progress(project)
    assert data is not None
    return data


def test_steps_map_to_the_original_phases_in_order_and_percent_never_decreases(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setattr(progress, "MIN_INTERVAL_S", 0.0)  # write every event
    project = Project(tmp_path)
    project.ensure_dir()
    p = progress.ProgressFile(project, scan_id="scan_1")
    seen = []
    events = [
        ("ast", 0, 0),
        ("ast", 3, 10),
        ("ast", 10, 10),
        ("persisting", 0, 1),
        ("building_graph", 1, 1),
        ("indexing", 0, 1),
        ("ast", 10, 10),  # a late event of an earlier step: the phase does not go back
        ("embedding", 0, 40),
        ("embedding", 20, 40),
        ("embedding", 40, 40),
        ("completed", 1, 1),
    ]
    for step, done, total in events:
        p(step, done, total)
        seen.append(read(project))
    # the last step is written as phase completed while the scan still holds its lock (read
    # as completed); finish, after the lock, makes it final
    assert json.loads(progress.progress_path(project).read_text())["status"] == "scanning"
    assert seen[-1]["status"] == "completed"
    p.finish("scan_2")
    seen.append(read(project))
    phases = [s["phase"] for s in seen]
    order = [progress.PHASES.index(ph) for ph in phases]
    assert order == sorted(order)
    assert list(dict.fromkeys(phases)) == [
        "ast",
        "building_graph",
        "persisting_ast",
        "embedding",
        "completed",
    ]
    percents = [s["percent"] for s in seen]
    assert percents == sorted(percents) and percents[0] == 0.0 and percents[-1] == 100.0
    assert 0 < seen[1]["percent"] < seen[2]["percent"] <= 60.0  # files move the ast band
    last = seen[-1]
    assert last["status"] == "completed" and last["completed_at"] is not None
    assert (last["scanned_files"], last["total_files"]) == (10, 10)
    assert (last["texts_embedded"], last["texts_total"]) == (40, 40)
    assert seen[8]["phase_done"] == 20 and seen[8]["phase_total"] == 40
    assert last["scan_id"] == "scan_2" and last["path"] == str(tmp_path)


def test_writes_within_a_phase_are_throttled_but_phase_changes_are_not(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.ensure_dir()
    p = progress.ProgressFile(project)
    p("ast", 1, 100)
    for i in range(2, 100):
        p("ast", i, 100)  # within MIN_INTERVAL_S of each other: not all written
    assert read(project)["scanned_files"] < 99
    p("persisting", 0, 1)  # a new phase is always written
    assert read(project)["phase"] == "building_graph"


def test_error_phase_and_a_scan_that_died(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.ensure_dir()
    p = progress.ProgressFile(project)
    p("ast", 5, 10)
    p.failed("the provider went away")
    data = read(project)
    assert data["status"] == data["phase"] == "error"
    assert data["last_error"] == "the provider went away" and data["percent"] == 30.0

    # a scan killed mid-way leaves "scanning" behind: reported as an error, not as running
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; from znt.index.progress import ProgressFile;"
            "from znt.project import Project; ProgressFile(Project(Path(sys.argv[1])))('ast', 1, 9)",
            str(tmp_path),
        ],
        check=True,
    )
    assert child.returncode == 0
    raw = json.loads(progress.progress_path(project).read_text())
    assert raw["status"] == "scanning"
    data = read(project)
    assert data["status"] == "error" and "ended before it finished" in data["last_error"]


def test_no_file_or_a_broken_one_is_no_progress(tmp_path: Path) -> None:
    project = Project(tmp_path)
    assert progress.read_progress(project) is None
    project.ensure_dir()
    progress.progress_path(project).write_text("{not json")
    assert progress.read_progress(project) is None


def test_status_keeps_a_finishing_scans_end_while_it_still_holds_the_lock(tmp_path: Path) -> None:
    """Between its ``completed`` step and its release of the lock a scan removes its row
    folder; ``status`` then sees the lock held and the progress ``completed``. That is this
    scan's end (no ``completed_at`` yet), not a previous scan's: the phase stays
    ``completed`` (an MCP client polling ``status`` saw ``ast`` again there). A previous
    scan's end under a new scan's lock is that new scan starting."""
    from znt.features.status import _progress

    project = Project(tmp_path)
    project.ensure_dir()
    p = progress.ProgressFile(project, scan_id="scan_1")
    p("ast", 1, 1)
    p("embedding", 4, 4)
    p("completed", 1, 1)  # Scanner._finish's last step, inside the lock
    shown = _progress(project, "Scanning")
    assert shown is not None and shown["phase"] == "completed", shown
    p.finish("scan_1")  # after the release: a previous scan's end from now on
    shown = _progress(project, "Scanning")  # a new scan took the lock, not yet reporting
    assert shown is not None and (shown["phase"], shown["percent"]) == ("ast", 0.0), shown
    assert _progress(project, "Idle") == read(project)
