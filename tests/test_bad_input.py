"""Bad input (DESIGN §8): the scan goes on, counts and logs each problem, exits 0, and
indexes every good file."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, query, run_znt


def build_tree(root: Path) -> dict[str, str]:
    """A tree with one of each problem; returns {path: expected warning fragment}."""
    root.mkdir(parents=True, exist_ok=True)
    good = {
        "good.py": "def ok():\n    return 1\n",
        "my file.py": "def spaced():\n    return ok()\n",
        "données/ñandú.py": "def ñ():\n    return 2\n",
        "web/app.js": "export function run() { return 1; }\n",
    }
    for rel, text in good.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    problems = {}
    (root / "binary.py").write_bytes(b"\x7fELF\x00\x01\x02" + bytes(range(256)) * 10)
    problems["binary.py"] = "binary"
    (root / "latin1.py").write_bytes("def caf\xe9():\n    return 'd\xe9j\xe0'\n".encode("latin-1"))
    problems["latin1.py"] = "invalid UTF-8"
    (root / "huge.min.js.js").write_text("var a=1;" * 1_300_000)  # 10 MB on one line
    problems["huge.min.js.js"] = "larger than"
    (root / "dense.js").write_text("var x=" + "1+" * 150_000 + "1;\n")  # a 300 kB line
    problems["dense.js"] = "minified"
    (root / "broken.py").write_text("def broken(:\n    return\n\ndef fine():\n    pass\n")
    problems["broken.py"] = "syntax errors"
    (root / "loop_a").symlink_to(root / "loop_b")
    (root / "loop_b").symlink_to(root / "loop_a")
    problems["loop_a"] = "symlink loop"
    problems["loop_b"] = "symlink loop"
    locked = root / "locked"
    locked.mkdir()
    (locked / "secret.py").write_text("def hidden():\n    pass\n")
    locked.chmod(0)
    problems["locked"] = "cannot read folder"
    return problems


def _as_unprivileged(cmd: list[str]) -> list[str]:
    """Root reads folders whatever their mode, so the scan runs as ``nobody`` under root."""
    if os.geteuid() != 0:
        return cmd
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: cannot make a folder unreadable")
    return [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups", *cmd]


def test_bad_inputs_are_counted_logged_and_skipped(tmp_path):
    import tempfile

    # Under /tmp directly: pytest's own folders are private to root.
    base = Path(tempfile.mkdtemp(prefix="znt-bad-"))
    base.chmod(0o777)
    root = base / "tree"
    problems = build_tree(root)
    if os.geteuid() == 0:
        for dirpath, dirnames, filenames in os.walk(root):
            for name in dirnames + filenames:
                p = Path(dirpath) / name
                if not p.is_symlink() and p.name != "locked":
                    p.chmod(0o777 if p.is_dir() else 0o666)
        root.chmod(0o777)
    env = {**os.environ, "PYTHONPATH": str(REPO), "HOME": str(base)}
    proc = subprocess.run(
        _as_unprivileged([sys.executable, "-m", "znt", "scan", str(root), "--format", "json"]),
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=base,
    )
    (root / "locked").chmod(0o755)
    try:
        _check(root, problems, proc)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _check(root: Path, problems: dict[str, str], proc: subprocess.CompletedProcess[str]) -> None:
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    doc = json.loads(proc.stdout)
    reported = {p["path"]: p["message"] for p in doc["problems"]}
    for path, fragment in problems.items():
        assert path in reported, (path, reported)
        assert fragment in reported[path], (path, reported[path])
    assert doc["warnings"] == len(problems)
    # Every good file, and the good parts of the imperfect ones, are indexed.
    files = {r[0]: r[1] for r in query(root, "SELECT path, status FROM files")}
    for rel in ("good.py", "my file.py", "données/ñandú.py", "web/app.js"):
        assert files[rel] == "ok", rel
    assert files["broken.py"] == "parse_error"
    # Bytes that are not UTF-8 may confuse the grammar, but the file is indexed.
    assert files["latin1.py"] in ("ok", "parse_error")
    names = {r[0] for r in query(root, "SELECT qualified_name FROM symbols")}
    assert {"ok", "spaced", "ñ", "run", "fine"} <= names
    assert "hidden" not in names
    # Each problem is in the log too.
    logs = json.loads(run_znt("logs", "--format", "json", cwd=root).stdout)["entries"]
    logged = "\n".join(e["message"] for e in logs)
    for path in problems:
        assert path in logged, path
    # The non-ASCII and spaced names answer queries.
    out = run_znt("-C", str(root), "outline", "données/ñandú.py")
    assert out.returncode == 0 and "ñ" in out.stdout
    assert run_znt("-C", str(root), "outline", "my file.py").returncode == 0


def test_file_deleted_during_the_scan(tmp_path):
    import time

    for i in range(5):
        (tmp_path / f"m{i}.py").write_text(f"def f{i}():\n    pass\n")
    # The scan pauses between listing the files and reading them; m3.py goes meanwhile.
    proc = subprocess.Popen(
        [sys.executable, "-m", "znt", "scan", str(tmp_path), "--format", "json"],
        env={**os.environ, "ZNT_DEBUG_PAUSE": "walked:1.5"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    marker = tmp_path / ".znt" / "paused-walked"
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.02)
    (tmp_path / "m3.py").unlink()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    doc = json.loads(out)
    assert {"path": "m3.py", "message": "deleted during the scan"} in doc["problems"]
    assert doc["warnings"] == 1
    paths = {r[0] for r in query(tmp_path, "SELECT path FROM files")}
    assert paths == {"m0.py", "m1.py", "m2.py", "m4.py"}
