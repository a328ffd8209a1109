"""Work trees for the retrieval benchmark: one per repository, moved from commit to commit.

SWE-bench instances of one repository are indexed at many base commits (sympy: 77). Checking
out each commit into ONE work tree, in commit-date order, keeps the diffs small, so ``znt scan``
re-indexes only the files that changed and unchanged symbols keep their embeddings. A fresh
tree per instance would re-embed all of sympy 77 times.

The tree is a ``git clone --shared`` of a bare mirror (it borrows the mirror's objects and has
its own index, so the mirror is never written). Mirror snapshots may lack blobs of 4 MiB or
more; when ``git checkout`` fails on one, the tree is filled file by file and the missing big
files are left out (they are data, never the gold files of an issue).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

# Kept by ``git clean``: znt's index lives inside the tree it indexes.
KEEP = (".znt",)


def _git(tree: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(tree), *args], capture_output=True, text=True, check=check
    )


def mirror_path(mirrors: Path, repo: str) -> Path:
    """The bare mirror of ``owner/name`` as the fetch tool lays it out (``owner+name/repo``),
    or ``mirrors/name`` / ``mirrors/owner+name`` when they were made by hand."""
    owner_name = repo.replace("/", "+")
    for cand in (mirrors / owner_name / "repo", mirrors / owner_name, mirrors / repo.split("/")[1]):
        if (cand / "objects").is_dir() or (cand / ".git").is_dir():
            return cand
    raise FileNotFoundError(f"no mirror of {repo} under {mirrors}")


def commit_time(mirror: Path, commit: str) -> int:
    out = subprocess.run(
        ["git", "--git-dir", str(mirror), "log", "-1", "--format=%ct", commit],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(out.stdout.strip())


def ensure_tree(mirror: Path, tree: Path) -> None:
    """Clone ``mirror`` into ``tree`` (no checkout) unless it is already a clone."""
    if (tree / ".git").is_dir():
        return
    tree.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["git", "clone", "-q", "--shared", "--no-checkout", str(mirror), str(tree)],
        check=True,
        capture_output=True,
    )


def _checkout_file_by_file(tree: Path, commit: str) -> list[str]:
    """Fill the tree from ``commit`` when some blobs are absent; returns the missing paths."""
    _git(tree, "read-tree", commit)
    listing = _git(tree, "ls-tree", "-r", "-z", commit).stdout
    missing: list[str] = []
    for entry in listing.split("\0"):
        if not entry:
            continue
        meta, path = entry.split("\t", 1)
        _mode, kind, sha = meta.split()
        if kind != "blob":
            continue
        if _git(tree, "cat-file", "-e", sha, check=False).returncode != 0:
            missing.append(path)
    present = [
        e.split("\t", 1)[1] for e in listing.split("\0") if e and e.split("\t", 1)[1] not in missing
    ]
    # checkout-index overwrites only what differs from the index's stat data after -u.
    _git(tree, "update-index", "-q", "--refresh", check=False)
    for i in range(0, len(present), 500):
        _git(tree, "checkout-index", "-f", "-q", "--", *present[i : i + 500], check=False)
    _git(tree, "update-ref", "--no-deref", "HEAD", commit)
    return missing


def move_tree(tree: Path, commit: str) -> list[str]:
    """Make ``tree`` hold exactly ``commit`` (plus ``.znt``); returns paths that could not be
    checked out because the snapshot lacks their blobs."""
    missing: list[str] = []
    done = _git(tree, "checkout", "-q", "-f", "--detach", commit, check=False)
    if done.returncode != 0:
        missing = _checkout_file_by_file(tree, commit)
    clean = ["clean", "-q", "-ffdx"]
    for keep in KEEP:
        clean += ["-e", keep]
    _git(tree, *clean)
    return missing


def git_describe(folder: Path) -> str:
    """The short commit of the checkout at ``folder``, marked when it has local changes."""
    out = subprocess.run(
        ["git", "-C", str(folder), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    if out.returncode != 0:
        return "unknown"
    dirty = subprocess.run(
        ["git", "-C", str(folder), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    return out.stdout.strip() + (" (with uncommitted changes)" if dirty else "")
