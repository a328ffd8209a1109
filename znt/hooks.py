"""Git hooks that keep the index fresh: ``znt hook install`` / ``uninstall``.

Each hook is a small POSIX ``sh`` script (docs/hooks.md, docs/decisions/0008-git-hooks.md):

* it finds the hooks folder with ``git rev-parse --git-path hooks``, so ``core.hooksPath``
  and linked worktrees (which share the main repository's hooks) are respected;
* a hook the user already had is chained, not overwritten: it is renamed
  ``<hook>.znt-chained`` and our script runs it first, with the same arguments; its exit
  status is kept (a failing user pre-commit still blocks the commit);
* post-checkout, post-merge and post-commit start ``znt hook scan`` (an incremental
  ``--no-embed`` scan, at most one waiting at a time: ``coalesced_scan``) in the background
  and return at once; pre-commit does the same, or with ``--check`` scans in the
  foreground and runs ``znt check``, which alone may block a commit (exit 1 = violations).
  A znt failure never blocks anything;
* znt runs as ``<the interpreter that installed the hook> -m znt`` when that interpreter
  still exists, else as ``znt`` from PATH, else the hook does nothing;
* the hook does nothing where the work tree has no index (``<project>/.znt`` missing), or
  with ``ZNT_HOOKS=0``; ``ZNT_HOOK_SYNC=1`` runs the scan in the foreground.

Installing twice rewrites our scripts in place (the marker line says which files are ours);
uninstalling removes only our scripts and puts the chained hooks back.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from znt.errors import UsageError
from znt.project import Project

if TYPE_CHECKING:
    from znt.results import ScanDocument

HOOK_NAMES = ("pre-commit", "post-checkout", "post-merge", "post-commit")
DEFAULT_HOOKS = ("post-checkout", "post-merge", "post-commit")
MARKER = "# znt-managed hook"
CHAINED_SUFFIX = ".znt-chained"
VERSION = 1


def _git(cwd: Path, *args: str) -> str:
    try:
        proc = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, encoding="utf-8"
        )
    except OSError as exc:
        raise UsageError(f"git is not available: {exc}") from None
    if proc.returncode != 0:
        raise UsageError(f"{cwd} is not in a git work tree ({proc.stderr.strip() or 'git failed'})")
    return proc.stdout.strip()


def locate(project: Project) -> tuple[Path, Path]:
    """(the hooks folder git uses, the work tree's top folder)."""
    top = Path(_git(project.root, "rev-parse", "--show-toplevel")).resolve()
    hooks = Path(_git(project.root, "rev-parse", "--git-path", "hooks"))
    if not hooks.is_absolute():
        hooks = (project.root / hooks).resolve()
    return hooks, top


def is_ours(path: Path) -> bool:
    try:
        with path.open("r", encoding="utf-8", errors="replace") as fh:
            head = fh.read(400)
    except OSError:
        return False
    return MARKER in head


def script(name: str, *, project_rel: str, check: bool, python: str) -> str:
    """The hook script for ``name``; ``project_rel`` is the project's folder relative to the
    work tree's top (``.`` mostly), so the hook works in every worktree of the repository."""
    q_py = shlex.quote(python)
    q_rel = shlex.quote(project_rel)
    lines = [
        "#!/bin/sh",
        f"{MARKER} ({name}), version {VERSION}: keeps the znt index fresh.",
        "# Written by `znt hook install`; `znt hook uninstall` removes it and restores the",
        f"# hook it chains ({name}{CHAINED_SUFFIX}), if any. See docs/hooks.md.",
        f'chained="$(dirname "$0")/{name}{CHAINED_SUFFIX}"',
        "status=0",
        'if [ -x "$chained" ]; then',
        '    "$chained" "$@" || status=$?',
        "fi",
    ]
    if name == "pre-commit":
        lines.append('[ "$status" -eq 0 ] || exit "$status"')
    lines += [
        '[ "${ZNT_HOOKS:-1}" = 0 ] && exit "$status"',
        'top="$(git rev-parse --show-toplevel 2>/dev/null)" || exit "$status"',
        f'root="$top"/{q_rel}',
        '[ -d "$root/.znt" ] || exit "$status"',
        "znt_run() {",
        f'    if [ -x {q_py} ]; then {q_py} -m znt -C "$root" "$@"',
        '    elif command -v znt >/dev/null 2>&1; then znt -C "$root" "$@"',
        "    else return 127",
        "    fi",
        "}",
    ]
    if name == "pre-commit" and check:
        lines += [
            "# --check: the index must hold the change before the rules are checked.",
            "znt_run scan --no-embed -q </dev/null >/dev/null 2>&1",
            "znt_run check -q --stale-policy warn </dev/null",
            "rc=$?",
            'case "$rc" in',
            "    0) ;;",
            "    1) echo 'znt: check found violations; commit blocked "
            "(fix them, or git commit --no-verify)' >&2",
            "       exit 1 ;;",
            '    *) echo "znt: check could not run (exit $rc); not blocking the commit" >&2 ;;',
            "esac",
        ]
    else:
        lines += [
            'if [ "${ZNT_HOOK_SYNC:-0}" = 1 ]; then',
            "    znt_run hook scan -q </dev/null >/dev/null 2>&1",
            "else",
            "    # Redirected on the subshell, not on the function call: sh may keep copies of",
            "    # a function's redirected fds open in the child, and git (or a GUI client)",
            "    # would then wait on the hook's output pipe until the scan ends.",
            "    (znt_run hook scan -q &) </dev/null >/dev/null 2>&1",
            "fi",
        ]
    lines.append('exit "$status"')
    return "\n".join(lines) + "\n"


def install(
    project: Project, names: list[str] | None = None, *, check: bool = False
) -> dict[str, Any]:
    """Install (or update) our hooks; returns what was done to each."""
    wanted = list(names or DEFAULT_HOOKS)
    if check and "pre-commit" not in wanted:
        wanted.append("pre-commit")
    bad = [n for n in wanted if n not in HOOK_NAMES]
    if bad:
        raise UsageError(f"unknown hook {', '.join(bad)}; choose from {', '.join(HOOK_NAMES)}")
    hooks, top = locate(project)
    rel = os.path.relpath(project.root, top)
    if rel.startswith(".."):
        raise UsageError(f"{project.root} is outside the work tree {top}")
    hooks.mkdir(parents=True, exist_ok=True)
    results: list[dict[str, Any]] = []
    for name in wanted:
        path = hooks / name
        chained = hooks / (name + CHAINED_SUFFIX)
        action = "installed"
        if path.exists() or path.is_symlink():
            if is_ours(path):
                action = "updated"
            elif chained.exists() or chained.is_symlink():
                results.append(
                    {
                        "hook": name,
                        "path": str(path),
                        "action": "skipped",
                        "reason": f"{chained.name} already exists and {name} is not ours; "
                        "move one of them away and install again",
                    }
                )
                continue
            else:
                os.replace(path, chained)
                action = "installed, chaining the existing hook"
        text = script(name, project_rel=rel, check=check, python=sys.executable)
        tmp = path.with_name(f".{name}.znt-{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.chmod(0o755)
        os.replace(tmp, path)
        results.append(
            {
                "hook": name,
                "path": str(path),
                "action": action,
                "chained": str(chained) if chained.exists() else None,
            }
        )
    return {
        "hooks_dir": str(hooks),
        "work_tree": str(top),
        "project_root": str(project.root),
        "python": sys.executable,
        "check": check,
        "hooks": results,
    }


def uninstall(project: Project) -> dict[str, Any]:
    """Remove our hooks and put back the ones they chained; leave anything else alone."""
    hooks, top = locate(project)
    results: list[dict[str, Any]] = []
    for name in HOOK_NAMES:
        path = hooks / name
        chained = hooks / (name + CHAINED_SUFFIX)
        if is_ours(path):
            if chained.exists() or chained.is_symlink():
                os.replace(chained, path)
                results.append({"hook": name, "action": "removed, restored the chained hook"})
            else:
                path.unlink()
                results.append({"hook": name, "action": "removed"})
        elif chained.exists():
            results.append(
                {
                    "hook": name,
                    "action": "left alone",
                    "reason": f"{name} is not ours but {chained.name} exists: restore it by hand",
                }
            )
    return {"hooks_dir": str(hooks), "work_tree": str(top), "hooks": results}


def installed(project: Project) -> dict[str, Any]:
    """Which of our hooks are installed (for ``znt hook status``)."""
    hooks, top = locate(project)
    return {
        "hooks_dir": str(hooks),
        "work_tree": str(top),
        "hooks": [
            {
                "hook": n,
                "installed": is_ours(hooks / n),
                "chained": (hooks / (n + CHAINED_SUFFIX)).exists(),
                "check": is_ours(hooks / n) and "znt_run check" in (hooks / n).read_text("utf-8"),
            }
            for n in HOOK_NAMES
        ],
    }


PENDING_LOCK = "hook-pending.lock"


def coalesced_scan(project: Project, *, wait: float = 600.0) -> ScanDocument | None:
    """The scan a hook starts, at most one waiting at a time: a rebase or a checkout of many
    commits fires a hook per commit, and every hook after the first, finding a scan already
    waiting for the scan lock, returns None at once. That is safe because the waiting scan
    walks the tree only after it gets the lock, so it sees every change made before then."""
    import fcntl
    import time

    from znt import api
    from znt.fsguard import open_private

    project.ensure_dir()
    pending = open_private(project.znt_dir, PENDING_LOCK, os.O_RDWR | os.O_CREAT)
    try:
        try:
            fcntl.flock(pending, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return None
        deadline = time.monotonic() + wait
        probe = open_private(project.znt_dir, project.scan_lock_path.name, os.O_RDWR | os.O_CREAT)
        try:
            while True:
                try:
                    fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        return None
                    time.sleep(0.1)
        finally:
            os.close(probe)  # releases the probe's lock: the scan takes it again below
    finally:
        os.close(pending)  # from here on, a new change needs a new scan: let the next hook wait
    return api.scan(str(project.root), no_embed=True)
