"""``znt scan --watch`` as a real subprocess: edits, additions and deletions reach the index
(``outline``/``status`` show them) while it runs, ``status`` says Monitoring, and SIGINT or
SIGTERM stop it with exit 0, no traceback, the lock released and the pid file gone.
Timeouts are generous and only bound the polling; nothing asserts on time."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import run_znt
from znt import api
from znt.errors import NotFound
from znt.index import watch
from znt.project import Project


def wait_for(what: str, probe: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if probe():
                return
        except NotFound:
            pass
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout}s waiting for: {what}")


def make_project(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "a.py").write_text("def alpha():\n    return 1\n")
    (root / "b.py").write_text("from a import alpha\n\n\ndef beta():\n    return alpha()\n")
    (root / ".gitignore").write_text("ignored/\n")
    api.scan(str(root), no_embed=True)
    return root


def start_watch(root: Path) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != "ZNT_PROJECT_ROOT"}
    env["ZNT_WATCH_INTERVAL"] = "0.2"
    env["ZNT_WATCH_QUIET"] = "0.2"
    return subprocess.Popen(
        [sys.executable, "-m", "znt", "scan", "--watch", "--no-embed", "--format", "json"],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def names(root: Path, file: str) -> set[str]:
    return {s["qualified_name"] for s in api.outline(file, project_path=str(root))["symbols"]}


def files(root: Path) -> set[str]:
    """Indexed paths, read the way znt reads (waiting while the watcher's scan writes)."""
    from znt.index import store

    with store.open_index(root / ".znt" / "index.duckdb", read_only=True) as con:
        return {r[0] for r in con.execute("SELECT path FROM files").fetchall()}


def stop(proc: subprocess.Popen[str], sig: int) -> tuple[int, str, str]:
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "proj")


def test_watch_follows_edits_additions_deletions_and_stops_on_sigint(project: Path) -> None:
    proc = start_watch(project)
    try:
        wait_for(
            "status to show Monitoring",
            lambda: (
                api.status(str(project))["status"] in ("Monitoring", "Scanning")
                and (api.status(str(project))["watch"] or {}).get("pid") == proc.pid
            ),
        )
        state = api.status(str(project))["watch"]
        assert state["alive"] is True

        # edit
        (project / "a.py").write_text(
            "def alpha():\n    return 1\n\n\ndef gamma():\n    return 3\n"
        )
        wait_for("outline to show the edit", lambda: "gamma" in names(project, "a.py"))
        # add
        (project / "c.py").write_text("def delta():\n    return 4\n")
        wait_for("the added file", lambda: names(project, "c.py") == {"delta"})
        # delete
        (project / "b.py").unlink()
        wait_for("the deleted file to leave the index", lambda: "b.py" not in files(project))
        # ignored files stay out of the index
        (project / "ignored").mkdir()
        (project / "ignored" / "x.py").write_text("def hidden():\n    pass\n")
        (project / "d.py").write_text("def epsilon():\n    return 5\n")
        wait_for("the file after the ignored one", lambda: names(project, "d.py") == {"epsilon"})
        assert not any(f.startswith("ignored/") for f in files(project))

        wait_for(
            "status to settle on Monitoring, fresh",
            lambda: (
                api.status(str(project))["status"] == "Monitoring"
                and api.status(str(project))["freshness"]["stale"] is False
            ),
        )
    finally:
        code, out, err = stop(proc, signal.SIGINT)
    assert code == 0, err
    assert "Traceback" not in err
    scans = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert scans and all(d["kind"] == "scan" for d in scans)
    assert {d["mode"] for d in scans} >= {"incremental"}
    assert not watch.state_path(Project(project)).exists()
    after = api.status(str(project))
    assert after["status"] == "Idle" and after["watch"] is None
    # The scan lock was released: a normal scan runs at once.
    r = run_znt("scan", "--no-embed", "-q", "--format", "json", cwd=project, timeout=60)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["mode"] == "noop"


def test_sigterm_a_second_watcher_and_a_stale_pid_file(project: Path) -> None:
    proc = start_watch(project)
    try:
        wait_for(
            "the watcher's pid file",
            lambda: (watch.read_state(Project(project)) or {}).get("pid") == proc.pid,
        )
        second = run_znt("scan", "--watch", "--no-embed", cwd=project, timeout=60)
        assert second.returncode == 5 and "already monitoring" in second.stderr
    finally:
        code, _out, err = stop(proc, signal.SIGTERM)
    assert code == 0, err
    assert "Traceback" not in err
    assert not watch.state_path(Project(project)).exists()

    # A pid file left by a killed watcher: status ignores it.
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    watch.state_path(Project(project)).write_text(json.dumps({"pid": dead.pid}))
    doc = api.status(str(project))
    assert doc["status"] == "Idle"
    assert doc["watch"]["alive"] is False and doc["watch"]["stale"] is True


def test_watch_flags_are_checked(project: Path) -> None:
    r = run_znt("scan", "--watch", "--dry-run", cwd=project)
    assert r.returncode == 2
    env = {"ZNT_WATCH_INTERVAL": "soon"}
    r = run_znt("scan", "--watch", cwd=project, env=env)
    assert r.returncode == 2 and "ZNT_WATCH_INTERVAL" in r.stderr
