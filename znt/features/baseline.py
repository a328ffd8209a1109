"""The baseline of ``znt check --baseline REF``: an index of REF's tree, built once in a
temporary git worktree and kept as a snapshot under ``.znt/baselines/``."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from znt.errors import UsageError
from znt.project import Project, resolve_project


def _git(root: Path, *args: str) -> str:
    import subprocess

    try:
        proc = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "GIT_TERMINAL_PROMPT": "0"},
        )
    except FileNotFoundError:
        raise UsageError("--baseline needs git on PATH") from None
    if proc.returncode != 0:
        raise UsageError(
            f"git {' '.join(args)} failed: {proc.stderr.strip() or proc.stdout.strip()}"
        )
    return proc.stdout.strip()


def baseline_index(project: Project, ref: str) -> tuple[str, Path, bool]:
    """An index of ``ref``'s tree: the snapshot ``.znt/baselines/<commit>-s<schema>-<version>
    .duckdb`` when one exists, else a scan (no embeddings) of a temporary ``git worktree``
    of that commit, kept as the snapshot for the next run. Returns (commit, path, reused)."""
    import shutil
    import tempfile

    from znt import __version__
    from znt.errors import IndexIncompatible
    from znt.index import store
    from znt.pipeline.scan import Scanner

    if ref.startswith("-"):
        raise UsageError(f"not a git ref: {ref}")
    try:
        commit = _git(project.root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    except UsageError:
        raise UsageError(f"--baseline: unknown git ref {ref!r}", ref=ref) from None
    top = Path(_git(project.root, "rev-parse", "--show-toplevel")).resolve()
    sub = project.root.relative_to(top) if project.root != top else Path()
    folder = project.znt_dir / "baselines"
    snapshot = folder / f"{commit}-s{store.SCHEMA_VERSION}-{__version__}.duckdb"
    if snapshot.is_file():
        try:
            with store.open_index(snapshot, read_only=True):
                return commit, snapshot, True
        except IndexIncompatible:
            snapshot.unlink(missing_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="znt-baseline-"))
    tree = tmp / "tree"
    try:
        _git(project.root, "worktree", "add", "--detach", "--quiet", str(tree), commit)
        try:
            target = tree / sub
            if not target.is_dir():
                raise UsageError(f"{sub.as_posix()} does not exist at {ref}")
            Scanner(resolve_project(str(target), exact=True)).run()  # no embeddings
            folder.mkdir(parents=True, exist_ok=True)
            part = snapshot.with_suffix(f".{os.getpid()}.tmp")
            shutil.copyfile(target / ".znt" / "index.duckdb", part)
            os.replace(part, snapshot)  # atomic: a concurrent check sees all or nothing
        finally:
            with contextlib.suppress(UsageError):
                _git(project.root, "worktree", "remove", "--force", str(tree))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        with contextlib.suppress(UsageError):
            _git(project.root, "worktree", "prune")
    return commit, snapshot, False
