"""Input that kills or hangs a scan, leftovers of killed scans, and damaged indexes (issue 14).

One bad file must cost that file, never the scan: a file that crashes the real YAML grammar
(deep indentation segfaults it), a parse that never ends, a scan killed with SIGKILL or
stopped by a full disk, an index file damaged on disk.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.conftest import run_znt
from tests.mcp_lines import ask

# 400 levels of indentation (~80 KB): tree-sitter-yaml overflows its stack and segfaults.
DEEP_YAML = "".join(" " * i + f"k{i}:\n" for i in range(400))


def _project(tmp_path: Path, files: int = 3) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    for i in range(files):
        (root / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    return root


def _scan(root: Path, *args: str, env: dict[str, str] | None = None) -> dict:
    r = run_znt("scan", "--format", "json", *args, str(root), env=env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _paths(root: Path) -> set[str]:
    r = run_znt("sql", "-C", str(root), "--format", "json", "SELECT path FROM files")
    assert r.returncode == 0, r.stderr
    return {row[0] for row in json.loads(r.stdout)["rows"]}


@pytest.mark.parametrize("files", [3, 60], ids=["serial", "parallel"])
def test_a_file_that_crashes_the_grammar_costs_that_file(tmp_path: Path, files: int) -> None:
    root = _project(tmp_path, files)
    (root / "deep.yaml").write_text(DEEP_YAML)
    for attempt in range(2):  # a later scan is not stuck on it either
        doc = _scan(root, *(["--restart"] if attempt else []))
        problems = {p["path"]: p["message"] for p in doc["problems"]}
        assert "crashed" in problems.get("deep.yaml", ""), problems
        assert {f"m{i}.py" for i in range(files)} <= _paths(root)
    logs = run_znt("logs", "-C", str(root))
    assert "deep.yaml" in logs.stdout and "crashed" in logs.stdout


@pytest.mark.parametrize("files", [3, 60], ids=["serial", "parallel"])
def test_a_parse_that_hangs_costs_that_file(tmp_path: Path, files: int) -> None:
    root = _project(tmp_path, files)
    (root / "slow.py").write_text("def slow():\n    pass\n")
    env = {"ZNT_DEBUG_PARSE_HANG": "slow.py", "ZNT_PARSE_TIMEOUT": "3"}
    started = time.monotonic()
    doc = _scan(root, env=env)
    assert time.monotonic() - started < 60
    problems = {p["path"]: p["message"] for p in doc["problems"]}
    assert "did not finish" in problems.get("slow.py", ""), problems
    assert {f"m{i}.py" for i in range(files)} <= _paths(root)


def test_a_crash_during_a_rescan_costs_that_file(tmp_path: Path) -> None:
    """An incremental scan whose worker crashes on one changed file replaces the worker
    and indexes the other changed files (the first scans above are full ones)."""
    root = _project(tmp_path, 3)
    _scan(root)
    (root / "deep.yaml").write_text(DEEP_YAML)  # the biggest file: parsed first, crashes
    (root / "m1.py").write_text("def g1():\n    return 5\n")
    doc = _scan(root)
    assert doc["mode"] == "incremental"
    problems = {p["path"]: p["message"] for p in doc["problems"]}
    assert "crashed" in problems.get("deep.yaml", ""), problems
    r = run_znt("sql", "-C", str(root), "--format", "json", "SELECT name FROM symbols")
    assert r.returncode == 0, r.stderr
    names = {row[0] for row in json.loads(r.stdout)["rows"]}
    assert "g1" in names and "f1" not in names


def _marked_processes(mark: str) -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                if f"ZNT_TEST_MARK={mark}".encode() in fh.read():
                    pids.append(int(entry))
        except OSError:
            continue
    return pids


def _wait_for(path: Path, proc: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert proc.poll() is None, "scan ended before the pause"
        assert time.monotonic() < deadline, f"no {path.name}"
        time.sleep(0.02)


def test_sigkill_of_a_parallel_scan_leaves_no_worker_running(tmp_path: Path) -> None:
    root = _project(tmp_path, 120)
    mark = uuid.uuid4().hex
    env = {
        **os.environ,
        "ZNT_TEST_MARK": mark,
        "ZNT_DEBUG_PARSE_HANG": "m7.py",
        "ZNT_PARSE_TIMEOUT": "120",
        "ZNT_WORKERS": "2",
    }
    env.pop("ZNT_PROJECT_ROOT", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "znt", "scan", str(root)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while len(_marked_processes(mark)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(_marked_processes(mark)) >= 2, "no worker started"
    time.sleep(0.5)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while _marked_processes(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _marked_processes(mark) == []


@pytest.mark.parametrize("phase", ["parsed", "before_publish"])
def test_leftovers_of_killed_scans_are_removed(tmp_path: Path, phase: str) -> None:
    root = _project(tmp_path, 5)
    for round_ in range(3):
        env = {**os.environ, "ZNT_DEBUG_PAUSE": f"{phase}:30"}
        env.pop("ZNT_PROJECT_ROOT", None)
        (root / ".znt" / f"paused-{phase}").unlink(missing_ok=True)
        proc = subprocess.Popen(
            [sys.executable, "-m", "znt", "scan", "--restart", str(root)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait_for(root / ".znt" / f"paused-{phase}", proc)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        (root / f"new{round_}.py").write_text("def g():\n    pass\n")
    names = os.listdir(root / ".znt")
    assert any(_leftover(root, n) for n in names), names
    doc = _scan(root)
    assert doc["files_total"] == 8
    left = [n for n in os.listdir(root / ".znt") if _leftover(root, n)]
    assert left == []


def _leftover(root: Path, name: str) -> bool:
    """A killed scan's row folder or index being built (not the progress file)."""
    return name.startswith("index.building") or (
        name.startswith("scan-") and (root / ".znt" / name).is_dir()
    )


def _damage(index: Path, how: str) -> None:
    size = index.stat().st_size
    if how == "truncated":
        with open(index, "r+b") as fh:
            fh.truncate(size // 3)
    elif how == "zeroed":
        with open(index, "r+b") as fh:
            fh.write(b"\0" * size)
    elif how == "garbage":
        with open(index, "r+b") as fh:
            for offset in range(4096, size, 8192):
                fh.seek(offset)
                fh.write(os.urandom(2048))
    elif how == "folder":
        index.unlink()
        index.mkdir()
        (index / "x").write_text("x")


@pytest.mark.parametrize("how", ["truncated", "zeroed", "garbage", "folder"])
def test_a_damaged_index_is_named_and_rebuilt(tmp_path: Path, how: str) -> None:
    root = _project(tmp_path, 40)
    _scan(root)
    _damage(root / ".znt" / "index.duckdb", how)
    r = run_znt("search", "-C", str(root), "f1")
    assert r.returncode == 3, (r.returncode, r.stderr)
    assert "damaged" in r.stderr and "znt scan" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and "IOException" not in r.stderr
    r = run_znt("status", str(root), "--format", "json")
    assert "damaged" in r.stdout + r.stderr
    doc = _scan(root)
    assert doc["mode"] == "full", doc
    r = run_znt("search", "-C", str(root), "f1")
    assert r.returncode == 0, r.stderr


def test_mcp_status_on_a_damaged_index_says_so(tmp_path: Path) -> None:
    root = _project(tmp_path, 5)
    _scan(root)
    _damage(root / ".znt" / "index.duckdb", "zeroed")
    answers = ask(root, [("status", {}), ("search", {"query": "f1"})])
    for answer in answers:
        text = json.dumps(answer["result"])
        assert "internal_error" not in text and "damaged" in text, text


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small tmpfs needs root")
def test_a_full_disk_fails_the_scan_cleanly_and_the_next_one_works(tmp_path: Path) -> None:
    mnt = tmp_path / "small"
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(mnt)])
    if r.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        root = mnt / "proj"
        root.mkdir()
        for i in range(80):
            body = "".join(f"def f{i}_{j}(a, b):\n    return a + b + {j}\n\n" for j in range(10))
            (root / f"m{i}.py").write_text(body)
        filler = mnt / "filler"
        with open(filler, "wb") as fh:
            try:
                while True:
                    fh.write(b"\0" * 65536)
            except OSError:
                pass
        os.truncate(filler, max(0, filler.stat().st_size - 600_000))
        r = run_znt("scan", str(root))
        assert r.returncode == 5, (r.returncode, r.stderr)
        assert "Traceback" not in r.stderr and "space" in r.stderr.lower(), r.stderr
        left = [n for n in os.listdir(root / ".znt") if _leftover(root, n)]
        assert left == []
        filler.unlink()
        doc = _scan(root)
        assert doc["files_total"] == 80
        assert "f3_5" in run_znt("search", "-C", str(root), "f3_5").stdout
    finally:
        subprocess.run(["umount", "-l", str(mnt)])
        shutil.rmtree(mnt, ignore_errors=True)
