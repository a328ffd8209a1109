"""The scan: incremental updates, ignore rules, dry runs, rebuilds and schema versions."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from tests.conftest import query, run_znt
from znt import api


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def bump(path: Path) -> None:
    """Move the mtime clearly forward (some file systems have coarse clocks)."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))


def test_incremental_parses_only_what_changed(tmp_path):
    write(tmp_path, "a.py", "def a():\n    return b()\n\nfrom b import b\n")
    write(tmp_path, "b.py", "def b():\n    return 1\n")
    write(tmp_path, "c.py", "X = 1\n")
    first = api.scan(str(tmp_path))
    assert (first["mode"], first["files_parsed"]) == ("full", 3)

    time.sleep(0.01)
    write(tmp_path, "b.py", "def b():\n    return 2\n\ndef b2():\n    pass\n")
    bump(tmp_path / "b.py")
    second = api.scan(str(tmp_path))
    assert (second["mode"], second["files_parsed"], second["files_unchanged"]) == (
        "incremental",
        1,
        2,
    )
    assert ("b.py::b2",) in query(tmp_path, "SELECT id FROM symbols WHERE file = 'b.py'")
    # a.py was not re-parsed, but its call into b.py is still resolved.
    assert query(tmp_path, "SELECT dst FROM edges WHERE src = 'a.py::a' AND kind = 'call'") == [
        ("b.py::b",)
    ]

    third = api.scan(str(tmp_path))
    assert third["mode"] == "noop"


def test_touch_without_change_does_not_reparse(tmp_path):
    write(tmp_path, "a.py", "def a():\n    pass\n")
    api.scan(str(tmp_path))
    bump(tmp_path / "a.py")
    res = api.scan(str(tmp_path))
    assert res["files_parsed"] == 0
    assert api.scan(str(tmp_path))["mode"] == "noop"
    # the new mtime was recorded: the index is not reported older than the tree
    assert api.status(str(tmp_path))["freshness"]["stale"] is False


def test_deleted_and_renamed_files_leave_nothing_behind(tmp_path):
    write(tmp_path, "pkg/old.py", "def f():\n    pass\n")
    write(tmp_path, "main.py", "from pkg.old import f\n\ndef main():\n    f()\n")
    write(tmp_path, "gone.py", "def g():\n    pass\n")
    api.scan(str(tmp_path))
    (tmp_path / "gone.py").unlink()
    (tmp_path / "pkg/old.py").rename(tmp_path / "pkg/new.py")
    res = api.scan(str(tmp_path))
    assert res["files_deleted"] == 2
    for table, col in (
        ("files", "path"),
        ("symbols", "file"),
        ("refs", "file"),
        ("imports", "file"),
        ("edges", "file"),
    ):
        rows = query(
            tmp_path, f"SELECT count(*) FROM {table} WHERE {col} IN ('gone.py', 'pkg/old.py')"
        )
        assert rows == [(0,)], table
    assert query(
        tmp_path, "SELECT count(*) FROM edges WHERE dst LIKE 'pkg/old.py%' OR src LIKE 'gone.py%'"
    ) == [(0,)]
    # main.py's import now points nowhere in the project: an external dependency.
    assert ("main.py", "dep::pkg.old") in set(
        query(tmp_path, "SELECT src, dst FROM edges WHERE kind = 'imports'")
    )


def test_ignore_rules_nested_defaults_and_config(tmp_path):
    write(tmp_path, ".gitignore", "*.gen.py\n/generated/\n")
    write(tmp_path, "sub/.gitignore", "local.py\n!keep.gen.py\n")
    write(tmp_path, ".zntignore", "scratch/\n")
    write(tmp_path, "znt.yaml", "exclude:\n  - 'legacy/**'\n")
    for rel in (
        "app.py",
        "x.gen.py",
        "generated/a.py",
        "sub/local.py",
        "sub/keep.gen.py",
        "sub/ok.py",
        "node_modules/lib/index.js",
        "vendor/x.go",
        "scratch/tmp.py",
        "legacy/old.py",
        "web/app.min.js",
        "web/app.js",
    ):
        write(tmp_path, rel, "x = 1\n")
    dry = api.scan(str(tmp_path), dry_run=True)
    assert not (tmp_path / ".znt" / "index.duckdb").exists()  # a dry run indexes nothing
    api.scan(str(tmp_path))
    indexed = {r[0] for r in query(tmp_path, "SELECT path FROM files")}
    assert indexed == {"app.py", "sub/keep.gen.py", "sub/ok.py", "web/app.js", "znt.yaml"}
    assert dry["files_total"] == len(indexed)
    sources = {x["source"] for x in dry["dry_run"]["ignored"]}
    assert {".gitignore", "sub/.gitignore", ".zntignore", "znt.yaml", "default"} <= sources


def test_dry_run_counts(tmp_path):
    write(tmp_path, "a.py", "x = 1\n")
    write(tmp_path, "lib/b.py", "y = 2\n")
    write(tmp_path, "lib/c.go", "package lib\n")
    write(tmp_path, "big.py", "#" * 2_000_000)
    proc = run_znt("scan", str(tmp_path), "--dry-run", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    d = doc["dry_run"]
    assert doc["mode"] == "dry_run" and doc["files_total"] == 3
    assert {x["language"]: x["files"] for x in d["languages"]} == {"python": 2, "go": 1}
    assert {x["folder"]: x["files"] for x in d["top_folders"]} == {".": 1, "lib": 2}
    assert [x["path"] for x in d["skipped"]] == ["big.py"]
    assert d["would_parse"] == 3 and d["estimated_seconds"] > 0
    assert not (tmp_path / ".znt" / "index.duckdb").exists()
    text = run_znt("scan", str(tmp_path), "--dry-run").stdout
    assert "Would index 3 files" in text and "python" in text


def test_restart_rebuilds_and_starts_a_new_log_stream(tmp_path):
    write(tmp_path, "a.py", "def a():\n    pass\n")
    api.scan(str(tmp_path))
    stream = api.logs(project_path=str(tmp_path))["stream_id"]
    res = api.scan(str(tmp_path), restart=True)
    assert res["mode"] == "full" and res["reason"] == "restart requested"
    assert api.logs(project_path=str(tmp_path))["stream_id"] != stream


def test_index_from_another_schema_is_never_misread(tmp_path):
    import duckdb

    write(tmp_path, "a.py", "def a():\n    pass\n")
    api.scan(str(tmp_path))
    # What another znt version leaves behind: its schema version and its own fingerprint.
    con = duckdb.connect(str(tmp_path / ".znt" / "index.duckdb"))
    con.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
    con.execute("UPDATE meta SET value = 'other-version' WHERE key = 'fingerprint'")
    con.close()
    manifest = tmp_path / ".znt" / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"fingerprint":"', '"fingerprint":"other-'))
    proc = run_znt("-C", str(tmp_path), "outline", "a.py")
    assert proc.returncode == 3
    assert "schema version 999" in proc.stderr and "--restart" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = run_znt("scan", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "rebuilding" in proc.stderr or "from scratch" in proc.stderr
    assert run_znt("-C", str(tmp_path), "outline", "a.py").returncode == 0


def test_every_module_is_classified_as_deciding_rows_or_only_reading(tmp_path, monkeypatch):
    """A new module under znt/index or znt/graph must be put in one list: a row source forces
    a rebuild when it changes, a read-side module does not."""
    from znt.index.languages import LANG_DIR
    from znt.pipeline import scan as scan_mod
    from znt.settings import load_settings

    package = LANG_DIR.parent.parent
    modules = {
        p.relative_to(package).as_posix()
        for folder in ("index", "graph", "pipeline")
        for p in (package / folder).rglob("*.py")
        if p.parent != LANG_DIR and "__pycache__" not in p.parts
    }
    rows, reads = set(scan_mod.ROW_SOURCE_MODULES), set(scan_mod.READ_SIDE_MODULES)
    assert not rows & reads
    assert modules == rows | reads, sorted(modules ^ (rows | reads))

    # A row source's content is in the fingerprint, a read-side module's is not.
    settings = load_settings(tmp_path)
    base = scan_mod.fingerprint(settings)
    fake = tmp_path / "pkg"
    for rel in sorted(rows) + sorted(reads):
        (fake / rel).parent.mkdir(parents=True, exist_ok=True)
        (fake / rel).write_bytes((package / rel).read_bytes())
    (fake / "index" / "lang").symlink_to(LANG_DIR)
    monkeypatch.setattr(scan_mod, "LANG_DIR", fake / "index" / "lang")
    assert scan_mod.fingerprint(settings) == base
    (fake / "index" / "readcopy.py").write_text("# edited\n")
    assert scan_mod.fingerprint(settings) == base
    (fake / "graph" / "resolve.py").write_text("# edited\n")
    assert scan_mod.fingerprint(settings) != base


def test_git_commit_is_recorded(tmp_path):
    import subprocess

    write(tmp_path, "a.py", "def a():\n    pass\n")
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "add", "a.py"], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "commit", "-qm", "x"], check=True, env=env)
    head = subprocess.run(
        ["git", "-C", str(tmp_path), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    res = api.scan(str(tmp_path))
    assert res["index_commit"] == head
    st = api.status(str(tmp_path))
    assert st["freshness"]["index_commit"] == head and st["freshness"]["commit_changed"] is False


def test_manifest_head_is_read_without_its_files(tmp_path):
    """The freshness block of every answer reads the manifest's first line only (the last
    scan); the files line is for rescans and status. A manifest of the earlier one-line form
    still reads whole."""
    from znt.index import manifest as manifest_mod

    write(tmp_path, "a.py", "def a():\n    pass\n")
    api.scan(str(tmp_path))
    path = tmp_path / ".znt" / "manifest.json"
    head, files = path.read_bytes().split(b"\n")
    assert json.loads(files) == {"a.py": json.loads(files)["a.py"]}
    last = json.loads(head)["last_scan"]
    assert last["files"] == 1 and "files" not in json.loads(head)
    manifest = manifest_mod.load(path)
    assert manifest is not None and list(manifest.files) == ["a.py"]

    # A broken files line costs the rescan its shortcut, never the last scan's record.
    path.write_bytes(head + b"\n{not json")
    assert manifest_mod.load(path) is None
    assert manifest_mod.last_scan(path) == last
    found = api.search("a", mode="lexical", project_path=str(tmp_path))
    assert found["freshness"]["last_scan_at"] == last["at"]

    one_line = {**json.loads(head), "files": json.loads(files)}
    path.write_text(json.dumps(one_line))
    again = manifest_mod.load(path)
    assert again is not None and list(again.files) == ["a.py"]
    assert manifest_mod.last_scan(path) == last


def test_noop_writes_the_manifest_files_back_as_read(tmp_path, monkeypatch):
    """A no-op rescan records its scan in the manifest's head and writes the files line back
    as it read it, without encoding it; a file whose mtime alone changed gets its new one."""
    from znt.index import manifest as manifest_mod

    write(tmp_path, "a.py", "def a():\n    pass\n")
    write(tmp_path, "b.py", "def b():\n    pass\n")
    past = time.time() - 60
    for name in ("a.py", "b.py"):
        os.utime(tmp_path / name, (past, past))
    api.scan(str(tmp_path))
    path = tmp_path / ".znt" / "manifest.json"
    head, files = path.read_bytes().split(b"\n")
    encoded: list[object] = []
    real_dumps = manifest_mod.json.dumps

    def watching(obj, *args, **kwargs):
        if isinstance(obj, dict) and "a.py" in obj:
            encoded.append(obj)
        return real_dumps(obj, *args, **kwargs)

    monkeypatch.setattr(manifest_mod.json, "dumps", watching)
    assert api.scan(str(tmp_path))["mode"] == "noop"
    head2, files2 = path.read_bytes().split(b"\n")
    assert files2 == files and head2 != head
    assert encoded == []  # the files line was not encoded again

    os.utime(tmp_path / "b.py", (past + 1, past + 1))
    assert api.scan(str(tmp_path))["mode"] == "noop"
    assert len(encoded) == 1
    manifest = manifest_mod.load(path)
    assert manifest is not None
    assert manifest.files["b.py"][1] == (tmp_path / "b.py").stat().st_mtime_ns
    assert manifest.files["a.py"] == tuple(json.loads(files)["a.py"])
