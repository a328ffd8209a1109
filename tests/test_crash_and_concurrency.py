"""Crash safety and concurrent use (DESIGN §8): a scan killed at any point leaves an index
that answers, and readers and a second scan wait for a writer instead of failing."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import query, run_znt

TABLES = ("files", "symbols", "refs", "imports", "import_candidates", "edges")


def make_tree(root: Path, n: int = 60, seed: int = 1) -> None:
    rng = random.Random(seed)
    for i in range(n):
        pkg = root / f"pkg{i % 5}"
        pkg.mkdir(parents=True, exist_ok=True)
        (pkg / "__init__.py").write_text("")
        other = f"pkg{(i + 1) % 5}.mod{(i + 1) % n}"
        body = [f"from {other} import f{(i + 1) % n}", "", f"class C{i}:"]
        for m in range(rng.randint(1, 4)):
            body += [f"    def m{m}(self):", f"        return self.m{max(m - 1, 0)}()", ""]
        body += [f"def f{i}():", f"    return f{(i + 1) % n}() + C{i}().m0()", ""]
        (pkg / f"mod{i}.py").write_text("\n".join(body))


def snapshot(root: Path) -> dict[str, list[tuple]]:
    """Everything the index holds, order-independent (file times excluded)."""
    out = {}
    for table in TABLES:
        cols = "path, language, size, hash, lines, status" if table == "files" else "*"
        out[table] = sorted(query(root, f"SELECT {cols} FROM {table}"), key=repr)
    return out


def start_scan(root: Path, *args: str, pause: str | None = None) -> subprocess.Popen[str]:
    env = {**os.environ}
    if pause:
        env["ZNT_DEBUG_PAUSE"] = pause
    return subprocess.Popen(
        [sys.executable, "-m", "znt", "scan", str(root), "-q", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(path: Path, proc: subprocess.Popen[str], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if proc.poll() is not None:
            raise AssertionError(f"scan ended before pausing: {proc.communicate()}")
        if time.monotonic() > deadline:
            raise AssertionError(f"scan never reached {path.name}")
        time.sleep(0.02)


def clean_copy_snapshot(root: Path, tmp: Path) -> dict[str, list[tuple]]:
    import shutil

    clean = tmp / "clean"
    shutil.copytree(root, clean, ignore=shutil.ignore_patterns(".znt"))
    proc = run_znt("scan", str(clean))
    assert proc.returncode == 0, proc.stderr
    return snapshot(clean)


def assert_answers(root: Path) -> None:
    status = run_znt("status", str(root), "--format", "json")
    assert status.returncode == 0, status.stderr
    outline = run_znt("-C", str(root), "outline", "pkg0/mod0.py")
    assert outline.returncode == 0, outline.stderr
    assert outline.stdout.startswith("[file_outline] pkg0/mod0.py")


@pytest.mark.parametrize("phase", ["walked", "parsed", "before_commit"])
def test_sigkill_during_incremental_scan(tmp_path, phase):
    root = tmp_path / "p"
    make_tree(root)
    assert run_znt("scan", str(root)).returncode == 0
    before = snapshot(root)
    # Change a third of the files, then kill the rescan at the phase boundary.
    for i in range(0, 60, 3):
        f = root / f"pkg{i % 5}" / f"mod{i}.py"
        f.write_text(f.read_text() + f"\ndef extra{i}():\n    return f{i}()\n")
    proc = start_scan(root, pause=f"{phase}:30")
    wait_for(root / ".znt" / f"paused-{phase}", proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    (root / ".znt" / f"paused-{phase}").unlink()
    # The killed scan committed nothing: the index still holds the previous state.
    assert snapshot(root) == before
    assert_answers(root)
    assert run_znt("scan", str(root)).returncode == 0
    assert snapshot(root) == clean_copy_snapshot(root, tmp_path)


@pytest.mark.parametrize("phase", ["parsed", "before_publish"])
def test_sigkill_during_rebuild(tmp_path, phase):
    root = tmp_path / "p"
    make_tree(root)
    assert run_znt("scan", str(root)).returncode == 0
    before = snapshot(root)
    proc = start_scan(root, "--restart", pause=f"{phase}:30")
    wait_for(root / ".znt" / f"paused-{phase}", proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert snapshot(root) == before
    assert_answers(root)
    assert run_znt("scan", str(root)).returncode == 0
    assert snapshot(root) == clean_copy_snapshot(root, tmp_path)


def test_sigkill_at_random_moments(tmp_path):
    root = tmp_path / "p"
    make_tree(root, n=150, seed=7)
    rng = random.Random(3)
    for attempt in range(4):
        if attempt % 2:
            for i in rng.sample(range(150), 20):
                f = root / f"pkg{i % 5}" / f"mod{i}.py"
                f.write_text(f.read_text() + f"\n# edit {attempt}\n")
        proc = start_scan(root, *(["--restart"] if attempt == 2 else []))
        time.sleep(rng.uniform(0.2, 2.5))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        if (root / ".znt" / "index.duckdb").exists():
            assert run_znt("status", str(root), "--format", "json").returncode == 0
    assert run_znt("scan", str(root)).returncode == 0
    assert_answers(root)
    assert snapshot(root) == clean_copy_snapshot(root, tmp_path)


def test_readers_wait_for_a_writing_scan(tmp_path):
    root = tmp_path / "p"
    make_tree(root)
    assert run_znt("scan", str(root)).returncode == 0
    f = root / "pkg0" / "mod0.py"
    f.write_text(f.read_text() + "\ndef added():\n    pass\n")
    # The scan holds the index open for writing for 3 s inside its transaction.
    proc = start_scan(root, pause="before_commit:3")
    wait_for(root / ".znt" / "paused-before_commit", proc)
    t0 = time.monotonic()
    outline = run_znt("-C", str(root), "outline", "pkg0/mod0.py")
    status = run_znt("status", str(root), "--format", "json")
    assert outline.returncode == 0, outline.stderr
    assert status.returncode == 0, status.stderr
    assert "lock" not in outline.stderr.lower() + status.stderr.lower()
    assert time.monotonic() - t0 > 1.0  # they waited for the writer...
    assert "added" in outline.stdout  # ...and saw its result
    assert proc.wait() == 0


def test_second_scan_waits_for_the_first(tmp_path):
    root = tmp_path / "p"
    make_tree(root)
    first = start_scan(root, pause="parsed:2")
    wait_for(root / ".znt" / "paused-parsed", first)
    second = run_znt("scan", str(root), "--format", "json")
    assert first.wait() == 0, first.communicate()
    assert second.returncode == 0, second.stderr
    assert "waiting" in second.stderr
    assert json.loads(second.stdout)["mode"] == "noop"


def test_scan_status_is_reported_while_scanning(tmp_path):
    root = tmp_path / "p"
    make_tree(root, n=10)
    assert run_znt("scan", str(root)).returncode == 0
    proc = start_scan(root, "--restart", pause="parsed:3")
    wait_for(root / ".znt" / "paused-parsed", proc)
    doc = json.loads(run_znt("status", str(root), "--format", "json").stdout)
    assert doc["status"] == "Scanning"
    assert proc.wait() == 0
    assert json.loads(run_znt("status", str(root), "--format", "json").stdout)["status"] == "Idle"
