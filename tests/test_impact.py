"""``znt impact``: a git fixture with a call chain leaf <- middle <- top <- main and a test
calling middle; changes made with real git (working tree, staged, against a REF, whole
files, added and deleted files) are mapped onto the real index."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_znt
from znt import api
from znt.errors import NotFound, UsageError

CORE = """\
def leaf(x):
    return x + 1


def middle(x):
    return leaf(x) * 2


def top(x):
    return middle(x) - 3


def unrelated():
    return 0
"""

CLI = """\
from app.core import top


def main():
    return top(1)
"""

TEST = """\
from app.core import middle


def test_middle():
    assert middle(1) == 4
"""


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def make_repo(root: Path) -> Path:
    (root / "app").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "core.py").write_text(CORE)
    (root / "app" / "cli.py").write_text(CLI)
    (root / "tests" / "test_core.py").write_text(TEST)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "test@example.com")
    git(root, "config", "user.name", "Test")
    git(root, "config", "commit.gpgsign", "false")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    api.scan(str(root), no_embed=True)
    return root


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def names(items: list[dict]) -> dict[str, int]:
    return {n["qualified_name"]: n["distance"] for n in items}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "proj")


def test_leaf_change_reports_callers_to_depth_and_the_test(repo: Path) -> None:
    edit(repo / "app" / "core.py", "return x + 1", "return x + 2")
    api.scan(str(repo), no_embed=True)
    doc = api.impact(project_path=str(repo))
    assert doc["kind"] == "impact" and doc["schema_version"] == 1
    assert [f["path"] for f in doc["files"]] == ["app/core.py"]
    assert names(doc["changed"]) == {"leaf": 0}
    assert doc["changed"][0]["changed_lines"] == [[2, 2]]
    assert names(doc["callers"]) == {"middle": 1, "top": 2, "test_middle": 2, "main": 3}
    assert [t["qualified_name"] for t in doc["tests"]] == ["test_middle"]
    by = {n["qualified_name"]: n for n in doc["callers"]}
    assert by["main"]["via"] == "app/core.py::top"
    assert doc["lower_bound"] is True and doc["completeness"]["complete"] is False
    assert any("dynamic calls" in r for r in doc["completeness"]["reasons"])
    assert doc["freshness"]["stale_files"] == []

    shallow = api.impact(depth=1, project_path=str(repo))
    assert names(shallow["callers"]) == {"middle": 1}
    assert shallow["tests"] == []
    two = api.impact(depth=2, project_path=str(repo))
    assert names(two["callers"]) == {"middle": 1, "top": 2, "test_middle": 2}


def test_change_inside_a_function_touches_only_it(repo: Path) -> None:
    edit(repo / "app" / "core.py", "return 0", "return 1")
    api.scan(str(repo), no_embed=True)
    doc = api.impact(project_path=str(repo))
    assert names(doc["changed"]) == {"unrelated": 0}
    assert doc["callers"] == [] and doc["tests"] == []


def test_staged_reports_only_what_is_staged(repo: Path) -> None:
    edit(repo / "app" / "core.py", "return x + 1", "return x + 2")
    git(repo, "add", "app/core.py")
    edit(repo / "app" / "cli.py", "top(1)", "top(2)")  # unstaged: not part of --staged
    api.scan(str(repo), no_embed=True)
    staged = api.impact(staged=True, project_path=str(repo))
    assert staged["mode"] == "staged"
    assert [f["path"] for f in staged["files"]] == ["app/core.py"]
    assert names(staged["changed"]) == {"leaf": 0}
    both = api.impact(project_path=str(repo))  # working tree vs HEAD sees both
    assert names(both["changed"]) == {"leaf": 0, "main": 0}


def test_diff_against_a_ref(repo: Path) -> None:
    base = git(repo, "rev-parse", "HEAD").strip()
    edit(repo / "app" / "core.py", "return middle(x) - 3", "return middle(x) - 4")
    git(repo, "commit", "-qam", "top")
    api.scan(str(repo), no_embed=True)
    assert api.impact(project_path=str(repo))["files"] == []  # clean against HEAD
    doc = api.impact(diff=base, project_path=str(repo))
    assert doc["mode"] == "diff" and doc["ref"] == base
    assert names(doc["changed"]) == {"top": 0}
    assert names(doc["callers"]) == {"main": 1}
    with pytest.raises(NotFound):
        api.impact(diff="no-such-ref", project_path=str(repo))


def test_paths_are_whole_files(repo: Path) -> None:
    doc = api.impact(paths=[str(repo / "app" / "cli.py")], project_path=str(repo))
    assert doc["mode"] == "paths"
    assert names(doc["changed"]) == {"main": 0}
    assert doc["callers"] == []
    doc = api.impact(paths=["app/core.py"], depth=1, project_path=str(repo))
    assert set(names(doc["changed"])) == {"leaf", "middle", "top", "unrelated"}
    assert {n["qualified_name"] for n in doc["callers"]} == {"test_middle", "main"}
    with pytest.raises(NotFound):
        api.impact(paths=["app/nope.py"], project_path=str(repo))


def test_added_and_deleted_files(repo: Path) -> None:
    (repo / "app" / "extra.py").write_text(
        "from app.core import leaf\n\n\ndef extra():\n    return leaf(0)\n"
    )
    (repo / "tests" / "test_core.py").unlink()
    git(repo, "add", "-A")
    api.scan(str(repo), no_embed=True)
    doc = api.impact(staged=True, project_path=str(repo))
    status = {f["path"]: f["status"] for f in doc["files"]}
    assert status == {"app/extra.py": "added", "tests/test_core.py": "deleted"}
    assert names(doc["changed"]) == {"extra": 0}
    assert any("deleted file" in w for w in doc["warnings"])


def test_stale_index_is_reported(repo: Path) -> None:
    edit(repo / "app" / "core.py", "return x + 1", "return x + 2")
    doc = api.impact(project_path=str(repo))  # not rescanned
    assert doc["freshness"]["stale_files"] == ["app/core.py"]
    assert doc["files"][0]["index_stale"] is True
    assert any("stale" in w for w in doc["warnings"])


def test_usage_errors(repo: Path, tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        api.impact(staged=True, diff="HEAD", project_path=str(repo))
    with pytest.raises(UsageError):
        api.impact(depth=-1, project_path=str(repo))
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "m.py").write_text("def f():\n    return 1\n")
    api.scan(str(plain), no_embed=True)
    r = run_znt("impact", "--staged", cwd=plain)
    assert r.returncode == 2 and "not in a git work tree" in r.stderr
    r = run_znt("impact", "m.py", "--format", "json", cwd=plain)  # PATHs need no git
    assert r.returncode == 0, r.stderr
    assert [n["qualified_name"] for n in json.loads(r.stdout)["changed"]] == ["f"]


def test_cli_formats(repo: Path) -> None:
    edit(repo / "app" / "core.py", "return x + 1", "return x + 2")
    assert run_znt("scan", "--no-embed", "-q", cwd=repo).returncode == 0
    r = run_znt("impact", cwd=repo)
    assert r.returncode == 0, r.stderr
    assert "Changed symbols (1):" in r.stdout and "leaf" in r.stdout
    assert "Tests among them (1):" in r.stdout and "test_middle" in r.stdout
    assert "lower bound" in r.stdout
    r = run_znt("impact", "--depth", "1", "--format", "mermaid", cwd=repo)
    assert r.returncode == 0
    assert r.stdout.startswith("flowchart LR") and "-->|call|" in r.stdout
    r = run_znt("impact", "--staged", "--diff", "HEAD", cwd=repo)
    assert r.returncode == 2


def test_renamed_file_counts_as_changed_throughout(repo: Path) -> None:
    git(repo, "mv", "app/cli.py", "app/entry point.py")
    api.scan(str(repo), no_embed=True)
    doc = api.impact(staged=True, project_path=str(repo))
    (f,) = doc["files"]
    assert (f["status"], f["path"], f["old_path"]) == (
        "renamed",
        "app/entry point.py",
        "app/cli.py",
    )
    assert names(doc["changed"]) == {"main": 0}
    assert doc["changed"][0]["file"] == "app/entry point.py"
