"""The rough edges a newcomer hit (issue 18), one test each, through the real command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_znt
from tests.embed_server import EmbedServer
from tests.test_cli import run_in_pty
from tests.test_embed_scan import use_provider
from znt.formats import text as text_fmt


def scanned(root: Path, files: dict[str, str], *args: str) -> Path:
    for rel, body in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(body)
    done = run_znt("scan", "--no-embed", *args, str(root))
    assert done.returncode == 0, done.stderr
    return root


def test_a_mistyped_symbol_gets_the_nearest_names_by_edit_distance(tmp_path: Path) -> None:
    """``ServHTTP`` is one edit from ``ServeHTTP``; the alphabetical neighbours (and names
    sharing its first letters) are further away and come after it, or not at all."""
    scanned(
        tmp_path,
        {
            "server.py": (
                "class Engine:\n    def ServeHTTP(self, w, r):\n        return w\n\n\n"
                "def Serv():\n    return 1\n\n\ndef ServAlpha():\n    return 2\n\n\n"
                "def ServHandler():\n    return 3\n"
            )
        },
    )
    proc = run_znt("graph", "ServHTTP", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 4
    suggestions = json.loads(proc.stdout)["error"]["suggestions"]
    assert suggestions[0] == "Engine.ServeHTTP"
    text = run_znt("graph", "ServHTTP", cwd=tmp_path)
    assert "did you mean:\n    Engine.ServeHTTP" in text.stderr


def test_unknown_type_or_role_exits_2_with_the_list_and_compact_changes_the_text(
    tmp_path: Path,
) -> None:
    scanned(tmp_path, {"a.py": "class OrderService:\n    def place(self):\n        return 1\n"})
    bad_type = run_znt("search", "order", "--type", "klass", cwd=tmp_path)
    assert bad_type.returncode == 2 and "unknown type 'klass'" in bad_type.stderr
    assert "declaration" in bad_type.stderr and "method" in bad_type.stderr
    bad_role = run_znt("search", "order", "--role", "servise", cwd=tmp_path)
    assert bad_role.returncode == 2 and "controller" in bad_role.stderr
    assert "Traceback" not in bad_type.stderr + bad_role.stderr
    good = run_znt("search", "order", "--type", "class", "--role", "service", cwd=tmp_path)
    assert good.returncode == 0
    full = run_znt("search", "order", "--mode", "lexical", cwd=tmp_path).stdout.splitlines()
    compact = run_znt(
        "search", "order", "--mode", "lexical", "--compact", cwd=tmp_path
    ).stdout.splitlines()
    assert compact != full and len(compact) < len(full)
    assert compact[0].startswith("1. ") and "a.py:1" in compact[0]


def test_dry_run_counts_texts_to_embed_and_estimates_time_from_the_measured_rate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "p"
    root.mkdir()
    body = "\n\n".join(f"def handler_{i}(x):\n    return x + {i}\n" for i in range(40))
    (root / "handlers.py").write_text(body)
    with EmbedServer(dim=8) as server:
        use_provider(monkeypatch, tmp_path, server.url)
        first = run_znt("scan", str(root))
        assert first.returncode == 0, first.stderr
        assert first.stdout.splitlines()[-1].startswith("Embedded 41 texts with ollama:test-embed")
        (root / "more.py").write_text(
            "\n\n".join(f"def extra_{i}(x):\n    return x * {i}\n" for i in range(10))
        )
        dry = run_znt("scan", "--dry-run", str(root), "--format", "json")
    emb = json.loads(dry.stdout)["dry_run"]["embeddings"]
    assert emb["status"] == "estimate" and emb["rate_source"] == "last scan"
    assert 5 <= emb["texts"] <= 40 and emb["texts_per_second"] > 0
    assert emb["seconds"] == round(emb["texts"] / emb["texts_per_second"], 1)
    line = text_fmt.dry_run(json.loads(dry.stdout)).splitlines()[-1]
    assert f"{emb['texts']} texts to embed" in line and "measured in the last scan" in line


def test_a_big_folder_outside_any_repository_is_not_indexed_without_asking(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    for i in range(30):
        (home / f"d{i % 3}").mkdir(parents=True, exist_ok=True)
        (home / f"d{i % 3}" / f"f{i}.py").write_text(f"x{i} = {i}\n")
    env = {"ZNT_SCAN_CONFIRM_FILES": "20"}
    piped = run_znt("scan", str(home), env=env)
    assert piped.returncode == 2 and "--yes" in piped.stderr
    assert not (home / ".znt" / "index.duckdb").exists()
    code, _, screen = run_in_pty(["scan", str(home)], env, typed=b"n\n", cwd=tmp_path)
    assert code == 1 and "Index it anyway?" in screen
    assert not (home / ".znt" / "index.duckdb").exists()
    yes = run_znt("scan", "--yes", "--no-embed", str(home), env=env)
    assert yes.returncode == 0 and yes.stdout.startswith("Indexed 30 files")
    # A repository, or a folder already indexed, is scanned without a question.
    assert run_znt("scan", "--no-embed", str(home), env=env).returncode == 0
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    for i in range(30):
        (repo / f"f{i}.py").write_text(f"y{i} = {i}\n")
    assert run_znt("scan", "--no-embed", str(repo), env=env).returncode == 0


def test_singular_forms_embedding_state_dated_logs_and_the_embedding_line(
    tmp_path: Path,
) -> None:
    scanned(tmp_path, {"a.py": "def f():\n    return g()\n\n\ndef g():\n    return 1\n"})
    again = run_znt("scan", "--no-embed", "--restart", str(tmp_path))
    assert again.stdout.startswith("Indexed 1 file (full)") and "; 0 warnings;" in again.stdout
    path = run_znt("graph", "f", "--to", "g", cwd=tmp_path).stdout
    assert "1 edge, 1 shortest path over" in path
    status = run_znt("status", str(tmp_path)).stdout
    assert "Embedded:  no (lexical search and the graph only" in status
    assert "Counts:    1 file, 0 declarations, 2 functions" in status
    logs = run_znt("logs", cwd=tmp_path).stdout.splitlines()
    assert logs and all(line[:4].isdigit() and line[4] == "-" and line[7] == "-" for line in logs)
    # The last line of a scan says what embedding did and how long it took.
    doc = json.loads(run_znt("scan", "--no-embed", str(tmp_path), "--format", "json").stdout)
    doc["embeddings"] = {
        "status": "completed",
        "embedded": 10,
        "seconds": 2.5,
        "model_key": "local:m",
    }
    assert (
        text_fmt.scan(doc).splitlines()[-1]
        == "Embedded 10 texts with local:m in 2.50s, 4.0 texts/s"
    )
    broken = scanned(tmp_path / "b", {"x.py": "def broken(:\n    pass\n"})
    out = run_znt("scan", "--no-embed", "--restart", str(broken)).stdout
    assert "; 1 warning;" in out


def test_snippet_language_defaults_to_the_projects_main_language(tmp_path: Path) -> None:
    scanned(
        tmp_path,
        {
            "src/a.js": "export function fetchUser(id) {\n  return lookup(id);\n}\n",
            "src/b.js": "export function lookup(id) {\n  return id;\n}\n",
            "tool.py": "def helper():\n    return 1\n",
        },
    )
    snippet = "function getUser(id) {\n  return lookup(id);\n}\n"
    proc = subprocess.run(
        [sys.executable, "-m", "znt", "similar", "--snippet", "-", "--format", "json"],
        input=snippet,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "ZNT_PROJECT_ROOT"},
    )
    assert proc.returncode in (0, 1), proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["target"]["language"] == "javascript"
    assert any("main language" in w for w in doc["warnings"])
    explicit = run_znt("similar", "--snippet", str(tmp_path / "tool.py"), "--format", "json")
    assert explicit.returncode in (0, 1, 3)


JSONC = '{\n  // the benchmark matrix\n  "version": 1,\n  "project": "demo",\n}\n'
SQLITE = (
    "DROP TABLE IF EXISTS user;\n\n"
    "CREATE TABLE user (\n  id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
    "  name TEXT UNIQUE NOT NULL\n);\n"
)
GNU_MAKE = (
    "SPHINXOPTS ?=\nifeq ($(OS),Windows_NT)\n  RM = del\nelse\n  RM = rm -f\nendif\n\n"
    "define HELP\nusage: make html\nendef\n\nhtml:\n\t@echo $(SPHINXOPTS)\n"
)


def test_valid_files_a_grammar_cannot_read_are_named_as_its_limit_and_stay_stable(
    tmp_path: Path,
) -> None:
    files = {"asv.conf.json": JSONC, "schema.sql": SQLITE, "doc/Makefile": GNU_MAKE}
    first = scanned(tmp_path, files)
    doc = json.loads(
        run_znt("scan", "--no-embed", "--restart", str(first), "--format", "json").stdout
    )
    first_problems = {p["path"]: p["message"] for p in doc["problems"]}
    for path, message in first_problems.items():
        assert "syntax errors" not in message and "grammar could not read part" in message, path
    assert "JSON with comments" in first_problems.get("asv.conf.json", "JSON with comments")
    # The same files scanned again (nothing changed, then one other file changed): the
    # same warnings, neither vanishing nor new.
    noop = json.loads(run_znt("scan", "--no-embed", str(first), "--format", "json").stdout)
    assert noop["mode"] == "noop"
    assert {p["path"]: p["message"] for p in noop["problems"]} == first_problems
    (first / "other.py").write_text("z = 1\n")
    incr = json.loads(run_znt("scan", "--no-embed", str(first), "--format", "json").stdout)
    assert incr["mode"] == "incremental"
    assert {p["path"]: p["message"] for p in incr["problems"]} == first_problems


def test_a_script_can_tell_lexical_found_nothing_and_vectors_answered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/search.md: ``mode`` is what was asked, ``answered_by`` what answered."""
    root = tmp_path / "p"
    root.mkdir()
    (root / "h.py").write_text("def handler(request):\n    '''Handle a request.'''\n    return 1\n")
    with EmbedServer(dim=8) as server:
        use_provider(monkeypatch, tmp_path, server.url)
        assert run_znt("scan", str(root)).returncode == 0
        proc = run_znt("search", "zzqqxxyy", "--mode", "lexical", "--format", "json", cwd=root)
    doc = json.loads(proc.stdout)
    assert proc.returncode == 0 and doc["results"]
    assert doc["mode"] == "lexical" and doc["answered_by"] == "vector"
    assert "lexical search found nothing; answered by vector search" in proc.stderr


def test_check_without_a_znt_yaml_runs_the_default_rules(tmp_path: Path) -> None:
    scanned(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg import b\n\n\ndef fa():\n    return b.fb()\n",
            "pkg/b.py": "from pkg import a\n\n\ndef fb():\n    return a.fa()\n",
        },
    )
    proc = run_znt("check", "--format", "json", cwd=tmp_path)
    doc = json.loads(proc.stdout)
    assert doc["default_rules"] is True and doc["rules_file"] == "(default rules)"
    assert [r["id"] for r in doc["rules"]] == ["no-import-cycles"]
    assert proc.returncode == 1 and doc["violations"][0]["rule"] == "no-import-cycles"
    text = run_znt("check", cwd=tmp_path).stdout
    assert "the default rules ran" in text
    # A check: section replaces the default set.
    (tmp_path / "znt.yaml").write_text(
        "check:\n  rules:\n    - id: fan\n      type: max_fan_out\n      max: 50\n"
    )
    own = json.loads(run_znt("check", "--format", "json", cwd=tmp_path).stdout)
    assert own["default_rules"] is False and [r["id"] for r in own["rules"]] == ["fan"]


def test_impact_on_a_path_that_does_not_exist_exits_4(tmp_path: Path) -> None:
    scanned(tmp_path, {"a.py": "def f():\n    return 1\n"})
    for missing in ("nope.py", "sub/", str(tmp_path / "gone.py"), "/nonexistent/x.py"):
        proc = run_znt("impact", missing, cwd=tmp_path)
        assert proc.returncode == 4, (missing, proc.stderr)
        assert "Traceback" not in proc.stderr
