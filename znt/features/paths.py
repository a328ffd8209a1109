"""Paths as the user gives them and as the index names them."""

from __future__ import annotations

from pathlib import Path

from znt.errors import UsageError
from znt.project import Project


def relative_path(project: Project, file: str) -> str:
    """A user-given path as the index names it (relative to the root, forward slashes).

    Absolute paths and paths relative to the current directory are accepted when they lie
    inside the project; anything that escapes it is refused."""
    p = Path(file).expanduser()
    candidates = [p] if p.is_absolute() else [Path.cwd() / p, project.root / p]
    for cand in candidates:
        try:
            resolved = cand.resolve()
        except OSError:
            continue
        try:
            rel = resolved.relative_to(project.root)
        except ValueError:
            continue
        if cand.exists() or cand is candidates[-1]:
            return rel.as_posix()
    raise UsageError(f"{file} is outside the project {project.root}")


def close_paths(rel: str, paths: list[str], n: int = 5) -> list[str]:
    base = rel.rsplit("/", 1)[-1]
    same_name = [p for p in paths if p.rsplit("/", 1)[-1] == base]
    import difflib

    close = difflib.get_close_matches(rel, paths, n=n, cutoff=0.5)
    out: list[str] = []
    for p in [*same_name, *close]:
        if p not in out:
            out.append(p)
    return out[:n]
