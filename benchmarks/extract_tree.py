"""Extract a git revision's files into a folder, skipping blobs the repository lacks.

``git archive`` stops at the first missing object; a partial (blob-filtered or truncated)
clone or snapshot still has most files, and a benchmark tree only needs those. This lists the
revision with ``git ls-tree -r`` and reads each blob through one ``git cat-file --batch``
process, writing regular files (with their executable bit) and symlinks; submodules are
skipped, and so is every blob that is missing, and the count of both is printed.

    python benchmarks/extract_tree.py GIT_DIR REVISION DEST

DEST must not exist or be empty (use ``--force`` to delete it first).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path


def _git(git_dir: str, *args: str) -> list[str]:
    return ["git", f"--git-dir={git_dir}", *args]


def list_tree(git_dir: str, revision: str) -> list[tuple[str, str, str, str]]:
    """(mode, type, oid, path) of every entry under ``revision``, recursively."""
    out = subprocess.run(
        [*_git(git_dir, "ls-tree", "-r", "-z", "--full-tree", revision)],
        check=True,
        capture_output=True,
    ).stdout
    entries = []
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        mode, kind, oid = meta.decode().split(" ")
        entries.append((mode, kind, oid, os.fsdecode(path)))
    return entries


def extract(git_dir: str, revision: str, dest: Path) -> tuple[int, list[str], int]:
    """Write the revision's files under ``dest``: (written, missing paths, submodules)."""
    entries = list_tree(git_dir, revision)
    written = 0
    missing: list[str] = []
    submodules = 0
    proc = subprocess.Popen(
        _git(git_dir, "cat-file", "--batch"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        for mode, kind, oid, path in entries:
            if kind != "blob":
                submodules += 1
                continue
            proc.stdin.write(oid.encode() + b"\n")
            proc.stdin.flush()
            header = proc.stdout.readline().split()
            if len(header) < 3 or header[1] != b"blob":
                missing.append(path)  # "<oid> missing" (or not a blob at all)
                continue
            size = int(header[2])
            data = proc.stdout.read(size)
            proc.stdout.read(1)  # the newline after each object
            target = dest / path
            target.parent.mkdir(parents=True, exist_ok=True)
            if mode == "120000":
                os.symlink(os.fsdecode(data), target)
            else:
                target.write_bytes(data)
                if mode == "100755":
                    target.chmod(0o755)
            written += 1
    finally:
        proc.stdin.close()
        proc.wait()
    return written, missing, submodules


def empty_folder(dest: Path, force: bool) -> bool:
    """Make ``dest`` an empty folder, deleting what it holds only when ``force``; False (and
    a message) when it holds something and ``force`` is off."""
    if dest.exists() and any(dest.iterdir()):
        if not force:
            print(f"{dest} exists and is not empty (use --force to replace it)", file=sys.stderr)
            return False
        shutil.rmtree(dest)
    dest.mkdir(parents=True, exist_ok=True)
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("git_dir", help="a git directory (bare repositories too)")
    ap.add_argument("revision", help="a commit, branch or tag, e.g. HEAD")
    ap.add_argument("dest", type=Path, help="the folder to create")
    ap.add_argument("--force", action="store_true", help="delete DEST first if it exists")
    ap.add_argument("-v", "--verbose", action="store_true", help="list the skipped paths")
    args = ap.parse_args(argv)

    dest: Path = args.dest
    if not empty_folder(dest, args.force):
        return 2
    commit = subprocess.run(
        _git(args.git_dir, "rev-parse", "--verify", f"{args.revision}^{{commit}}"),
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    written, missing, submodules = extract(args.git_dir, commit, dest)
    print(f"extracted {written} files of {commit} into {dest}")
    print(f"skipped {len(missing)} missing blobs, {submodules} submodules")
    if args.verbose:
        for path in missing:
            print(f"  missing: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
