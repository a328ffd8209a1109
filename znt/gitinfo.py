"""The commit a project is at, read from ``.git`` directly (no ``git`` subprocess: this runs
on every scan and status)."""

from __future__ import annotations

from pathlib import Path


def _git_dir(root: Path) -> Path | None:
    for candidate in (root, *root.parents):
        dot = candidate / ".git"
        if dot.is_dir():
            return dot
        if dot.is_file():  # worktree or submodule: "gitdir: <path>"
            text = dot.read_text(encoding="utf-8", errors="replace").strip()
            if text.startswith("gitdir:"):
                target = Path(text[len("gitdir:") :].strip())
                return target if target.is_absolute() else (candidate / target).resolve()
    return None


def head_commit(root: Path) -> str | None:
    """The commit HEAD points to, or None outside git (or on an unborn branch)."""
    try:
        git = _git_dir(root)
        if git is None:
            return None
        head = (git / "HEAD").read_text(encoding="utf-8").strip()
        if not head.startswith("ref:"):
            return head or None
        ref = head[4:].strip()
        common = git
        commondir = git / "commondir"
        if commondir.is_file():
            common = (git / commondir.read_text(encoding="utf-8").strip()).resolve()
        for base in (git, common):
            ref_file = base / ref
            if ref_file.is_file():
                return ref_file.read_text(encoding="utf-8").strip() or None
        packed = common / "packed-refs"
        if packed.is_file():
            for line in packed.read_text(encoding="utf-8").splitlines():
                if line.endswith(" " + ref):
                    return line.split(" ", 1)[0]
    except OSError:
        return None
    return None


def in_repository(root: Path) -> bool:
    """Whether ``root`` is inside a git work tree (a ``.git`` here or above)."""
    try:
        return _git_dir(root) is not None
    except OSError:
        return False
