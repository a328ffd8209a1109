"""``znt hook install/uninstall`` on a real git repository: the hooks keep the index fresh
through a commit and a branch checkout, chain the user's own hook (which still runs), are
idempotent, and uninstall leaves the user's hook as it was. Scans run in the background as
they do for users, so the test polls the index (generous timeout, no fixed sleeps)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import run_znt
from tests.test_impact import edit, git, make_repo
from znt import api, hooks
from znt.project import Project

USER_HOOK = '#!/bin/sh\necho "user $0 $*" >> "{marker}"\n'


def wait_for(what: str, probe: Callable[[], bool], timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if probe():
                return
        except Exception:  # the index may be mid-publish; ask again
            pass
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout}s waiting for: {what}")


def outline_names(root: Path, file: str) -> set[str]:
    return {s["qualified_name"] for s in api.outline(file, project_path=str(root))["symbols"]}


def indexed_files(root: Path) -> set[str]:
    from tests.conftest import query

    return {r[0] for r in query(root, "SELECT path FROM files")}


def hooks_dir(root: Path) -> Path:
    """The repository's hooks folder (git answers relative to ``root``)."""
    found = (root / git(root, "rev-parse", "--git-path", "hooks").strip()).resolve()
    assert found.is_relative_to(root.resolve())  # never the hooks of the repo running the tests
    return found


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "proj")


def test_hooks_follow_commit_and_checkout_and_chain_the_user_hook(
    repo: Path, tmp_path: Path
) -> None:
    # A branch to check out later, made before anything is installed.
    git(repo, "branch", "feature")
    git(repo, "switch", "-q", "feature")
    (repo / "app" / "feature.py").write_text("def feat():\n    return 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "feature")
    git(repo, "switch", "-q", "main")
    api.scan(str(repo), no_embed=True)
    assert "app/feature.py" not in indexed_files(repo)

    # The user's own post-commit hook, which must keep running.
    marker = tmp_path / "user-hook-ran"
    hdir = hooks_dir(repo)
    hdir.mkdir(parents=True, exist_ok=True)
    user_hook = hdir / "post-commit"
    user_text = USER_HOOK.format(marker=marker)
    user_hook.write_text(user_text)
    user_hook.chmod(0o755)

    r = run_znt("hook", "install", "--format", "json", cwd=repo)
    assert r.returncode == 0, r.stderr
    first = {h["hook"]: h for h in json.loads(r.stdout)["hooks"]}
    assert set(first) == {"post-checkout", "post-merge", "post-commit"}
    assert first["post-commit"]["action"] == "installed, chaining the existing hook"
    scripts = {n: (hdir / n).read_text() for n in first}
    # Installing twice is installing once: same scripts, the user hook chained once.
    r = run_znt("hook", "install", cwd=repo)
    assert r.returncode == 0, r.stderr
    assert {n: (hdir / n).read_text() for n in first} == scripts
    assert (hdir / "post-commit.znt-chained").read_text() == user_text
    assert not (hdir / "post-commit.znt-chained.znt-chained").exists()
    assert sorted(p.name for p in hdir.iterdir() if "znt" in p.name) == ["post-commit.znt-chained"]
    assert all(os.stat(hdir / n).st_mode & stat.S_IXUSR for n in first)

    # Commit a change: post-commit scans it in the background.
    edit(
        repo / "app" / "core.py",
        "def unrelated():",
        "def added_later():\n    return 5\n\n\ndef unrelated():",
    )
    git(repo, "commit", "-qam", "add a function")
    head = git(repo, "rev-parse", "HEAD").strip()
    wait_for(
        "the index to hold the committed function",
        lambda: (
            "added_later" in outline_names(repo, "app/core.py")
            and api.status(str(repo))["freshness"]["index_commit"] == head
        ),
    )
    assert marker.read_text().startswith("user ")  # the user's hook ran too

    # Check out the other branch: post-checkout follows it.
    git(repo, "checkout", "-q", "feature")
    feature_head = git(repo, "rev-parse", "HEAD").strip()
    wait_for(
        "the index to follow the checkout",
        lambda: (
            "feat" in outline_names(repo, "app/feature.py")
            and "added_later" not in outline_names(repo, "app/core.py")
            and api.status(str(repo))["freshness"]["index_commit"] == feature_head
        ),
    )
    status = api.status(str(repo))
    assert status["freshness"]["stale"] is False

    # Uninstall removes our part only: the user's hook is back, byte for byte.
    r = run_znt("hook", "uninstall", "--format", "json", cwd=repo)
    assert r.returncode == 0, r.stderr
    assert user_hook.read_text() == user_text
    assert os.stat(user_hook).st_mode & stat.S_IXUSR
    assert not (hdir / "post-commit.znt-chained").exists()
    assert not (hdir / "post-checkout").exists() and not (hdir / "post-merge").exists()
    before = marker.read_text()
    edit(repo / "app" / "feature.py", "return 1", "return 2")
    git(repo, "commit", "-qam", "after uninstall")
    assert marker.read_text().count("user ") == before.count("user ") + 1


def test_pre_commit_check_blocks_only_on_violations(repo: Path) -> None:
    (repo / "znt.yaml").write_text(
        "check:\n  rules:\n    - id: core-not-cli\n      type: forbidden\n"
        '      from: ["app/core.py"]\n      to: ["app/cli.py"]\n'
    )
    git(repo, "add", "znt.yaml")
    git(repo, "commit", "-qm", "rules")
    api.scan(str(repo), no_embed=True)
    r = run_znt("hook", "install", "--pre-commit", "--check", "--format", "json", cwd=repo)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert [h["hook"] for h in doc["hooks"]] == ["pre-commit"] and doc["check"] is True

    # A clean change commits.
    edit(repo / "app" / "core.py", "return 0", "return 1")
    ok = subprocess.run(
        ["git", "commit", "-qam", "clean"], cwd=repo, capture_output=True, text=True
    )
    assert ok.returncode == 0, ok.stderr
    # A change that breaks the rule is blocked, and says why.
    edit(repo / "app" / "core.py", "def leaf(x):", "from app.cli import main\n\n\ndef leaf(x):")
    edit(repo / "app" / "core.py", "return 1\n", "return main()\n")
    bad = subprocess.run(["git", "commit", "-qam", "bad"], cwd=repo, capture_output=True, text=True)
    assert bad.returncode != 0
    assert "core-not-cli" in bad.stdout + bad.stderr
    assert "commit blocked" in bad.stderr
    # A znt failure never blocks: ZNT_HOOKS=0 skips, and a broken interpreter path is skipped.
    env = {**os.environ, "ZNT_HOOKS": "0"}
    skipped = subprocess.run(
        ["git", "commit", "-qam", "skip"], cwd=repo, capture_output=True, text=True, env=env
    )
    assert skipped.returncode == 0, skipped.stderr


def test_hook_failure_of_znt_does_not_block(repo: Path) -> None:
    r = run_znt("hook", "install", "--pre-commit", "--check", cwd=repo)
    assert r.returncode == 0, r.stderr
    # A broken znt.yaml: `znt check` exits 2 (a usage error, not violations); the commit
    # goes through with a note.
    (repo / "znt.yaml").write_text("check: [1]\n")
    edit(repo / "app" / "core.py", "return 0", "return 1")
    ok = subprocess.run(["git", "commit", "-qam", "x"], cwd=repo, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert "not blocking the commit" in ok.stderr


def test_core_hooks_path_and_user_pre_commit_failure(repo: Path, tmp_path: Path) -> None:
    git(repo, "config", "core.hooksPath", ".githooks")
    (repo / ".githooks").mkdir()
    user = repo / ".githooks" / "pre-commit"
    user.write_text("#!/bin/sh\necho 'user hook says no' >&2\nexit 3\n")
    user.chmod(0o755)
    result = hooks.install(Project(repo), ["pre-commit"])
    assert Path(result["hooks_dir"]) == (repo / ".githooks").resolve()
    assert hooks.is_ours(repo / ".githooks" / "pre-commit")
    edit(repo / "app" / "core.py", "return 0", "return 1")
    no = subprocess.run(["git", "commit", "-qam", "x"], cwd=repo, capture_output=True, text=True)
    assert no.returncode != 0 and "user hook says no" in no.stderr  # the user's veto stands
    state = hooks.installed(Project(repo))
    assert {h["hook"]: h["installed"] for h in state["hooks"]}["pre-commit"] is True
    hooks.uninstall(Project(repo))
    assert user.read_text().endswith("exit 3\n")


def test_install_outside_git_is_a_usage_error(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "m.py").write_text("x = 1\n")
    api.scan(str(plain), no_embed=True)
    r = run_znt("hook", "install", cwd=plain)
    assert r.returncode == 2 and "not in a git work tree" in r.stderr


def test_hook_scans_coalesce_while_one_waits(repo: Path) -> None:
    """A burst of hooks (a rebase) leaves one scan waiting, not one per commit."""
    import fcntl

    project = Project(repo)
    edit(repo / "app" / "core.py", "return 0", "return 7")
    env = {k: v for k, v in os.environ.items() if k != "ZNT_PROJECT_ROOT"}
    cmd = [sys.executable, "-m", "znt", "hook", "scan", "--format", "json"]
    with open(project.scan_lock_path, "a+") as held:  # a scan is running
        fcntl.flock(held, fcntl.LOCK_EX)
        first = subprocess.Popen(cmd, cwd=repo, env=env, stdout=subprocess.PIPE, text=True)
        pending = project.znt_dir / hooks.PENDING_LOCK

        def first_is_pending() -> bool:
            with open(pending, "a+") as fh:
                try:
                    fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    return True
                fcntl.flock(fh, fcntl.LOCK_UN)
                return False

        wait_for("the first hook scan to wait for the lock", first_is_pending)
        second = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=60)
        assert second.returncode == 0 and second.stdout == ""
        assert "already pending" in second.stderr
        assert first.poll() is None  # still waiting
    out, _ = first.communicate(timeout=120)
    assert first.returncode == 0
    assert json.loads(out)["mode"] == "incremental"
    assert "unrelated" in outline_names(repo, "app/core.py")


def test_background_hook_does_not_hold_gits_pipes(repo: Path) -> None:
    """git and GUI clients read a hook's output until EOF: the background scan must not keep
    the hook's stdout/stderr open. With the scan lock held, the scan cannot finish, so the
    hook returning at all (captured output, as git runs it) proves it."""
    import fcntl

    hooks.install(Project(repo), ["post-commit"])
    hook = hooks_dir(repo) / "post-commit"
    with open(Project(repo).scan_lock_path, "a+") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        done = subprocess.run([str(hook)], cwd=repo, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0
    wait_for(
        "the background scan to finish once the lock is free",
        lambda: api.status(str(repo))["status"] == "Idle" and not _pending(Project(repo)),
    )


def _pending(project: Project) -> bool:
    import fcntl

    path = project.znt_dir / hooks.PENDING_LOCK
    if not path.exists():
        return False
    with open(path, "a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(fh, fcntl.LOCK_UN)
        return False
