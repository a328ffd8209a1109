"""Build a monorepo benchmark tree from several git repositories (issue 17).

Each repository's revision is extracted into ``OUT/<name>/`` (``extract_tree.extract``: blobs
a snapshot lacks are skipped), and the result is summed up: files, bytes and lines, and how
many of each znt indexes. The tree is a benchmark input, never committed: it holds other
projects' source.

    python benchmarks/monorepo.py OUT /work/.mirror/sympy+sympy/repo \\
        /work/.mirror/hashicorp+terraform/repo /work/.mirror/rails+rails/repo \\
        /work/.mirror/git+git/repo /work/.mirror/prometheus+prometheus/repo

A repository is named by its mirror folder (``owner+name`` -> ``name``) unless given as
``NAME=GIT_DIR``. ``--lines N`` stops adding repositories once the tree holds N lines.
Then ``benchmarks/scan.py OUT --targets monorepo`` measures it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from benchmarks.extract_tree import empty_folder, extract


def repository_name(git_dir: Path) -> str:
    """``/work/.mirror/owner+name/repo`` -> ``name``; a plain ``name.git`` -> ``name``."""
    folder = git_dir.parent if git_dir.name in ("repo", ".git") else git_dir
    return folder.name.split("+")[-1].removesuffix(".git")


def count_lines(root: Path) -> tuple[int, int, int]:
    """(files, bytes, lines) of the regular files under ``root``."""
    files = size = lines = 0
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            files += 1
            size += len(data)
            lines += data.count(b"\n")
    return files, size, lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("out", type=Path, help="the folder to create")
    ap.add_argument("repos", nargs="+", help="git directories ([NAME=]GIT_DIR), bare or not")
    ap.add_argument("--revision", default="HEAD", help="the revision of each (default HEAD)")
    ap.add_argument("--lines", type=int, help="stop once the tree holds this many lines")
    ap.add_argument("--force", action="store_true", help="delete OUT first if it exists")
    args = ap.parse_args(argv)

    out: Path = args.out
    if not empty_folder(out, args.force):
        return 2
    total_lines = 0
    for spec in args.repos:
        name, _, git_dir = spec.rpartition("=")
        git = Path(git_dir)
        name = name or repository_name(git)
        commit = subprocess.run(
            ["git", f"--git-dir={git}", "rev-parse", "--verify", f"{args.revision}^{{commit}}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        dest = out / name
        written, missing, submodules = extract(str(git), commit, dest)
        files, size, lines = count_lines(dest)
        total_lines += lines
        print(
            f"{name}: {commit[:10]}, {written} files ({len(missing)} missing blobs, "
            f"{submodules} submodules skipped), {size / 1e6:.1f} MB, {lines:,} lines",
            flush=True,
        )
        if args.lines and total_lines >= args.lines:
            break
    files, size, lines = count_lines(out)
    print(f"total: {files} files, {size / 1e6:.1f} MB, {lines:,} lines in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
