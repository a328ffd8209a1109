"""Attacks a cloned repository can carry against the files outside it (issue 14).

Each test builds the hostile repository itself and runs the real command line on it; the
victim is a folder beside the project that stands for the rest of the user's disk. The
guarantees are listed in docs/security.md.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import run_znt
from tests.mcp_lines import ask

# Every name znt writes (or lets DuckDB write) inside .znt/ (docs/security.md).
ZNT_NAMES = (
    "index.duckdb",
    "index.duckdb.wal",
    "index.duckdb.tmp",
    "scan.lock",
    "log.jsonl",
    "log.tmp",
    "manifest.json",
    ".gitignore",
    "mcp-usage.jsonl",
    "watch.json",
    "hook-pending.lock",
    "baselines",
)


def _tree_hashes(folder: Path) -> dict[str, str]:
    """Every file below ``folder`` (links not followed) with a hash of its bytes."""
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in filenames + dirnames:
            path = Path(dirpath) / name
            rel = str(path.relative_to(folder))
            if path.is_symlink():
                out[rel] = "link:" + os.readlink(path)
            elif path.is_file():
                out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
            elif path.is_dir():
                out[rel] = "dir"
    return out


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "app.py").write_text(
        "def handler(x):\n    return helper(x)\n\n\ndef helper(x):\n    return x + 1\n"
    )
    return root


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim"
    victim.mkdir()
    for name in ZNT_NAMES:
        (victim / name).write_text(f"precious {name}\n")
    (victim / "dir").mkdir()
    return victim


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def test_shipped_znt_folder_with_symlinks_writes_nothing_outside(tmp_path: Path) -> None:
    """Must-show 2: the repository ships .znt/ with a symlink under every name znt writes
    there, to files (and a folder) outside the project; scan, logs, sql, mcp and hook
    install leave every file outside the project unchanged."""
    root = _project(tmp_path)
    victim = _victim(tmp_path)
    znt_dir = root / ".znt"
    znt_dir.mkdir()
    for name in ZNT_NAMES:
        target = victim / ("dir" if name in ("index.duckdb.tmp", "baselines") else name)
        (znt_dir / name).symlink_to(target)
    for pid in range(2, 400):  # the names a scan's temporary files take, for likely pids
        (znt_dir / f"index.building-{pid}.duckdb").symlink_to(victim / "index.duckdb")
    _git(root, "init", "-q")
    before = _tree_hashes(victim)

    steps = [
        ("scan", str(root)),
        ("scan", "--restart", str(root)),
        ("logs", "-C", str(root)),
        ("sql", "-C", str(root), "SELECT count(*) FROM symbols"),
        ("search", "-C", str(root), "--code", "handler"),
        ("hook", "install", "-C", str(root)),
    ]
    for args in steps:
        r = run_znt(*args, cwd=root)
        assert r.returncode in (0, 1), (args, r.stdout, r.stderr)
        assert "precious" not in r.stdout + r.stderr, args
    answers = ask(root, [("search", {"query": "handler", "include_code": True}), ("logs", {})])
    assert all("result" in a for a in answers), answers
    assert "precious" not in json.dumps(answers)
    assert _tree_hashes(victim) == before
    # znt answered from a real index in a real folder
    assert (znt_dir / "index.duckdb").is_file()
    assert not (znt_dir / "index.duckdb").is_symlink()


def test_znt_folder_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    """A committed ``.znt`` that is itself a link to a folder outside: znt refuses to write
    there (exit 2, one line saying why) instead of writing through it."""
    root = _project(tmp_path)
    victim = _victim(tmp_path)
    (root / ".znt").symlink_to(victim)
    before = _tree_hashes(victim)
    r = run_znt("scan", str(root), cwd=root)
    assert r.returncode == 2, r.stderr
    assert ".znt" in r.stderr and "link" in r.stderr
    assert "Traceback" not in r.stderr
    assert _tree_hashes(victim) == before


def test_source_swapped_for_symlink_is_not_read_at_answer_time(tmp_path: Path) -> None:
    """``search --code`` reads the source of its results at answer time: a file swapped for
    a link to a file outside since the scan is not read through the link."""
    root = _project(tmp_path)
    secret = tmp_path / "outside-secret.py"
    secret.write_text("TOP_SECRET_CONTENT = 1\n" * 10)
    assert run_znt("scan", str(root)).returncode == 0
    app = root / "pkg" / "app.py"
    app.unlink()
    app.symlink_to(secret)
    r = run_znt("search", "-C", str(root), "--code", "--format", "json", "handler")
    assert "TOP_SECRET_CONTENT" not in r.stdout + r.stderr
    folder = root / "pkg"
    folder.rename(root / "pkg-moved")
    (root / "pkg").symlink_to(tmp_path)  # a folder on the path swapped for a link
    (tmp_path / "app.py").write_text("TOP_SECRET_CONTENT = 2\n" * 10)
    r = run_znt("search", "-C", str(root), "--code", "--format", "json", "handler")
    assert "TOP_SECRET_CONTENT" not in r.stdout + r.stderr


def test_committed_index_cannot_point_code_reads_outside(tmp_path: Path) -> None:
    """A committed index whose ``files`` rows name paths outside the project (``../``):
    answers never read those paths."""
    import duckdb

    root = _project(tmp_path)
    secret = tmp_path / "outside.py"
    secret.write_text("def handler(x):\n    OUTSIDE_SECRET = 42\n" * 5)
    assert run_znt("scan", str(root)).returncode == 0
    con = duckdb.connect(str(root / ".znt" / "index.duckdb"))
    for table in ("symbols", "refs", "lex_docs", "embed_docs"):  # lex_postings: a view
        con.execute(f"UPDATE {table} SET file = '../outside.py' WHERE file = 'pkg/app.py'")
    con.execute("UPDATE symbols SET card = replace(card, 'pkg/app.py', '../outside.py')")
    con.execute("UPDATE files SET path = '../outside.py' WHERE path = 'pkg/app.py'")
    con.close()
    (root / ".znt" / "manifest.json").unlink()
    r = run_znt("search", "-C", str(root), "--code", "--format", "json", "handler")
    assert "../outside.py" in r.stdout, r.stdout + r.stderr  # the crafted rows are answered
    assert "OUTSIDE_SECRET" not in r.stdout + r.stderr
    r = run_znt("outline", "-C", str(root), "--code", "../outside.py")
    assert "OUTSIDE_SECRET" not in r.stdout + r.stderr


def _scan_with_swap(tmp_path: Path, swap: Callable[[Path], None]) -> tuple[Path, dict]:
    """Scan a project of four files, running ``swap(m1.py)`` while the scan is paused
    between its walk and its reads; returns the root and the scan's JSON."""
    root = _project(tmp_path)
    for i in range(3):
        (root / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "znt", "scan", "--format", "json", str(root)],
        env={**os.environ, "ZNT_DEBUG_PAUSE": "walked:2"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    marker = root / ".znt" / "paused-walked"
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert proc.poll() is None and time.monotonic() < deadline, "the scan did not pause"
        time.sleep(0.02)
    (root / "m1.py").unlink()
    swap(root / "m1.py")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    return root, json.loads(out)


def test_file_swapped_for_fifo_during_scan_costs_that_file(tmp_path: Path) -> None:
    """A file swapped for a FIFO between the walk and the read neither hangs the scan nor
    is indexed; the other files are."""
    root, doc = _scan_with_swap(tmp_path, os.mkfifo)
    problems = {p["path"]: p["message"] for p in doc["problems"]}
    assert "m1.py" in problems, problems
    r = run_znt(
        "sql",
        "-C",
        str(root),
        "--format",
        "json",
        "SELECT path FROM files WHERE status <> 'skipped'",
    )
    paths = {row[0] for row in json.loads(r.stdout)["rows"]}
    assert {"m0.py", "m2.py", "pkg/app.py"} <= paths and "m1.py" not in paths


def test_file_swapped_for_symlink_during_scan_is_not_indexed(tmp_path: Path) -> None:
    """The walk does not follow links; a file swapped for one after the walk is not read
    through it either."""
    outside = tmp_path / "outside.py"
    outside.write_text("def outside_function_secret():\n    pass\n")
    root, _doc = _scan_with_swap(tmp_path, lambda p: p.symlink_to(outside))
    r = run_znt("sql", "-C", str(root), "SELECT name FROM symbols")
    assert "outside_function_secret" not in r.stdout


@pytest.mark.parametrize("kind", ["fifo", "link to a fifo"])
def test_a_scan_lock_that_is_a_fifo_does_not_hang_status(tmp_path: Path, kind: str) -> None:
    """An indexed repository (or an archive of one) whose ``.znt/scan.lock`` is a FIFO, or a
    link to one: ``status`` (CLI and MCP) opened the lock to ask whether a scan holds it and
    waited for a writer for ever."""
    root = _project(tmp_path)
    assert run_znt("scan", "--no-embed", str(root)).returncode == 0
    lock = root / ".znt" / "scan.lock"
    lock.unlink()
    if kind == "fifo":
        os.mkfifo(lock)
    else:
        os.mkfifo(tmp_path / "elsewhere")
        lock.symlink_to(tmp_path / "elsewhere")
    r = run_znt("status", "-C", str(root), "--format", "json", timeout=30)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["status"] == "Idle"
    answers = ask(root, [("status", {})])
    assert "Idle" in json.dumps(answers), answers


def test_znt_yaml_symlink_is_not_read(tmp_path: Path) -> None:
    """A ``znt.yaml`` that links to another file: not read, and no line of the target
    appears in the error."""
    root = _project(tmp_path)
    secret = tmp_path / "secret.txt"
    secret.write_text("password: hunter2-very-secret\n: : :\n")
    (root / "znt.yaml").symlink_to(secret)
    r = run_znt("scan", str(root))
    assert "hunter2" not in r.stdout + r.stderr
    assert r.returncode == 2, r.stderr
    assert "znt.yaml" in r.stderr and "Traceback" not in r.stderr
    r = run_znt("check", "-C", str(root))
    assert "hunter2" not in r.stdout + r.stderr


def test_non_utf8_file_name_costs_that_file(tmp_path: Path) -> None:
    """One file name that is not valid UTF-8 is skipped with a warning; the scan indexes
    the rest."""
    root = _project(tmp_path)
    bad = os.path.join(os.fsencode(root), b"bad\xff\xfename.py")
    with open(bad, "wb") as fh:
        fh.write(b"def in_bad_file():\n    pass\n")
    bad_dir = os.path.join(os.fsencode(root), b"dir\xff")
    os.mkdir(bad_dir)
    with open(os.path.join(bad_dir, b"inner.py"), "wb") as fh:
        fh.write(b"def in_bad_dir():\n    pass\n")
    r = run_znt("scan", "--format", "json", str(root))
    assert r.returncode == 0, r.stderr
    import json

    doc = json.loads(r.stdout)
    assert doc["files_total"] == 1
    assert any("UTF-8" in p["message"] for p in doc["problems"]), doc["problems"]
    r = run_znt("sql", "-C", str(root), "SELECT name FROM symbols")
    assert "handler" in r.stdout


@pytest.mark.parametrize("name", ["esc\x1b[31mred.py", "new\nline.py"])
def test_control_characters_in_names_are_escaped_in_text_output(tmp_path: Path, name: str) -> None:
    """File names holding ESC or a newline are shown escaped in text output."""
    root = _project(tmp_path)
    (root / name).write_text("def odd_function():\n    return 1\n")
    r = run_znt("scan", str(root))
    assert r.returncode == 0, r.stderr
    for args in (("search", "odd_function"), ("outline", name), ("stats",)):
        r = run_znt(*args, "-C", str(root))
        assert "\x1b" not in r.stdout + r.stderr, args
        if args[0] == "search":
            assert name not in r.stdout  # the raw newline would forge a line
            assert name.encode("unicode_escape").decode() in r.stdout
