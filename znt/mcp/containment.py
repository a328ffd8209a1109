"""Every path an agent passes stays inside the project (seed 001: containment).

Checked before anything is opened or read: a ``..`` segment, a home-relative path, an
absolute path outside the root, or a path whose real location (symlinks followed) leaves the
root is refused with ``path_outside_project``. The checks are lexical first, so a refusal
never depends on what exists outside the project.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from znt.errors import UsageError


class OutsideProject(UsageError):
    """A path argument that would leave the project root."""

    code = "path_outside_project"


def _refuse(raw: str, what: str, root: Path, why: str) -> OutsideProject:
    return OutsideProject(
        f"{what} {raw!r} is refused: {why}; paths must stay inside the project {root}",
        argument=what,
        project_root=str(root),
    )


def _lexical_checks(raw: str, what: str, root: Path) -> None:
    if not raw or "\x00" in raw:
        raise UsageError(f"{what} must be a non-empty path", argument=what)
    if raw.startswith("~"):
        raise _refuse(raw, what, root, "home-relative paths are not accepted")
    parts = PurePosixPath(raw.replace("\\", "/")).parts
    if ".." in parts:
        raise _refuse(raw, what, root, "'..' segments are not accepted")


def confine(raw: str, root: Path, *, what: str) -> str:
    """``raw`` (absolute, or relative to ``root``) as a project-relative POSIX path, or
    ``OutsideProject``. Symlinks are followed to check where the path really leads."""
    _lexical_checks(raw, what, root)
    real_root = root.resolve()
    given = Path(raw)
    candidate = given if given.is_absolute() else root / given
    lexical = Path(os.path.normpath(candidate))
    try:
        rel = lexical.relative_to(root)
    except ValueError:
        try:
            rel = lexical.relative_to(real_root)
        except ValueError:
            raise _refuse(raw, what, root, "it is outside the project") from None
    try:
        real = candidate.resolve()
    except (OSError, RuntimeError):  # a symlink loop
        raise _refuse(raw, what, root, "it cannot be resolved (symlink loop?)") from None
    if real != real_root and real_root not in real.parents:
        raise _refuse(raw, what, root, "it is a symlink that leads outside the project")
    return rel.as_posix() if rel.parts else "."


def confine_glob(raw: str, root: Path, *, what: str) -> str:
    """A glob filter on project-relative paths: no ``..``, no absolute or home path."""
    _lexical_checks(raw, what, root)
    if raw.startswith(("/", "\\")) or (len(raw) > 1 and raw[1] == ":"):
        raise _refuse(raw, what, root, "absolute globs are not accepted")
    return raw


def looks_like_path(value: str) -> bool:
    """A graph FROM/TO that names a file (or a ``file::Symbol`` id) rather than a symbol."""
    head = value.split("::", 1)[0]
    return "/" in head or "\\" in head or head in (".", "..") or head.startswith("~")


def confine_symbol_or_path(raw: str, root: Path, *, what: str) -> str:
    """A graph endpoint: a symbol name passes as is; a path (or a node id's path part) must
    stay inside the project."""
    head, sep, tail = raw.partition("::")
    if not looks_like_path(raw) and not (head and os.path.lexists(root / head)):
        return raw  # a symbol name (a file at the root, e.g. a symlink, is checked below)
    rel = confine(head, root, what=what)
    return f"{rel}{sep}{tail}"


def confine_dir(raw: str | None, base: Path, *, what: str = "project_path") -> Path:
    """``project_path`` (absolute, or relative to ``base``) as an existing real directory
    inside ``base`` (the workspace the server was started for: ``ZNT_PROJECT_ROOT`` or its
    working directory)."""
    if raw is None or raw == "":
        return base.resolve()
    rel = confine(raw, base, what=what)
    target = (base / rel).resolve()
    if not target.exists():
        raise UsageError(f"{what} does not exist: {raw}", argument=what)
    if not target.is_dir():
        raise UsageError(f"{what} is not a directory: {raw}", argument=what)
    return target
