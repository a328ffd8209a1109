"""The changes ``znt impact`` starts from: files and new-side line ranges from ``git diff
-U0`` (staged, or the working tree against a ref), or whole files for PATHs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from znt.errors import NotFound, UsageError
from znt.features.paths import close_paths, relative_path
from znt.project import Project


def _git(root: Path, *args: str) -> str:
    """``git`` in ``root`` with the options that make its output parseable whatever the
    user's configuration (no pager, colour, external diff, prefixes or path quoting)."""
    import subprocess

    cmd = ["git", "-c", "core.quotePath=false", "-c", "diff.noprefix=false", *args]
    try:
        proc = subprocess.run(
            cmd, cwd=root, capture_output=True, text=True, encoding="utf-8", errors="replace"
        )
    except OSError as exc:
        raise UsageError(f"git is not available: {exc}") from None
    if proc.returncode != 0:
        message = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "git failed"
        if "not a git repository" in proc.stderr:
            raise UsageError(f"{root} is not in a git work tree; name PATHs instead")
        if "unknown revision" in proc.stderr or "bad revision" in proc.stderr:
            raise NotFound(f"git revision not found: {message}")
        raise UsageError(f"git {' '.join(args[:2])} failed: {message}")
    return proc.stdout


def _unquote(path: str) -> str:
    """A path from a diff header, C-quoted by git when it holds special characters."""
    if len(path) >= 2 and path[0] == path[-1] == '"':
        raw = path[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
        return raw.encode("latin-1", "replace").decode("utf-8", "replace")
    return path


def git_changes(proj: Project, *, staged: bool, ref: str | None) -> list[dict[str, Any]]:
    """Changed files and their new-side line ranges from ``git diff -U0``."""
    top = Path(_git(proj.root, "rev-parse", "--show-toplevel").strip())
    args = ["diff", "-U0", "-M", "--no-color", "--no-ext-diff", "--no-textconv"]
    args += ["--src-prefix=a/", "--dst-prefix=b/"]
    if staged:
        args.append("--cached")
    elif ref:
        try:
            _git(proj.root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
        except UsageError:
            raise NotFound(f"git revision not found: {ref}", ref=ref) from None
        args.append(ref)
    out = _git(proj.root, *args, "--")
    files: list[dict[str, Any]] = []
    cur: dict[str, Any] | None = None
    for line in out.splitlines():
        if line.startswith("diff --git "):
            cur = {"path": None, "old_path": None, "status": "modified", "ranges": []}
            files.append(cur)
        elif cur is None:
            continue
        elif line.startswith("new file mode"):
            cur["status"] = "added"
        elif line.startswith("deleted file mode"):
            cur["status"] = "deleted"
        elif line.startswith("rename from "):
            cur["old_path"] = line[len("rename from ") :]
            cur["status"] = "renamed"
        elif line.startswith("rename to "):
            cur["path"] = line[len("rename to ") :]
        elif line.startswith("--- "):
            old = _unquote(line[4:].rstrip("\t"))
            if old != "/dev/null":
                cur["old_path"] = cur["old_path"] or old[2:]
        elif line.startswith("+++ "):
            new = _unquote(line[4:].rstrip("\t"))
            if new != "/dev/null":
                cur["path"] = new[2:]
        elif line.startswith("@@"):
            cur["ranges"].append(_hunk(line))
        elif line.startswith("Binary files"):
            cur["binary"] = True
    changes = []
    for f in files:
        path = f["path"] or f["old_path"]
        if path is None:
            continue
        rel = _project_path(proj, top / path)
        if rel is None:
            continue
        # A renamed file's symbols have new ids and module path: all of them moved.
        whole = f["status"] in ("added", "renamed") or bool(f.get("binary"))
        changes.append(
            {
                "path": rel,
                "old_path": _project_path(proj, top / f["old_path"])
                if f["old_path"] and f["old_path"] != path
                else None,
                "status": f["status"],
                "ranges": [r for r in f["ranges"] if r is not None],
                "whole_file": whole,
            }
        )
    return changes


def _hunk(header: str) -> list[int] | None:
    """``@@ -a,b +c,d @@`` as the new-side range [c, c+d-1]; a pure deletion (d = 0) as
    [c, c+1]: the lines on both sides of the gap, so only a symbol spanning both (the
    deletion happened inside it) counts as touched."""
    import re

    m = re.match(r"@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", header)
    if not m:
        return None
    start, count = int(m.group(1)), int(m.group(2) or "1")
    if count == 0:
        return [start, start + 1] if start > 0 else [1, 1]
    return [start, start + count - 1]


def _project_path(proj: Project, path: Path) -> str | None:
    try:
        return path.resolve().relative_to(proj.root).as_posix()
    except (OSError, ValueError):
        return None


def path_changes(proj: Project, paths: list[str]) -> list[dict[str, Any]]:
    """PATHs as whole-file changes (a folder stands for the indexed files under it)."""
    from znt.index import store

    changes: list[dict[str, Any]] = []
    with store.open_index(proj.index_path, read_only=True) as con:
        known = [r[0] for r in con.execute("SELECT path FROM files").fetchall()]
    for p in paths:
        given = Path(p).expanduser()
        if given.is_absolute() and not given.exists():
            # Nothing there, inside the project or not: not found (exit 4), as for any
            # missing file, rather than "outside the project".
            raise NotFound(f"no such file or folder: {p}", file_path=p, suggestions=[])
        rel = relative_path(proj, p)
        under = [k for k in known if k == rel or rel in ("", ".") or k.startswith(rel + "/")]
        if not under and not (proj.root / rel).exists():
            raise NotFound(
                f"not in the index and not on disk: {p}",
                file_path=rel,
                suggestions=close_paths(rel, known),
            )
        for k in under or [rel]:
            status = "modified" if (proj.root / k).exists() else "deleted"
            changes.append(
                {"path": k, "old_path": None, "status": status, "ranges": [], "whole_file": True}
            )
    return changes
