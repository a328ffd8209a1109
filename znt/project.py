"""Where a project lives and where its index files are.

The project root is where ``znt scan`` ran, or the nearest ancestor holding ``.znt/``
(DESIGN §3). Everything znt writes for a project stays in ``<root>/.znt/``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from znt.errors import UsageError

INDEX_DIR = ".znt"
CONFIG_FILE = "znt.yaml"
MCP_METRICS_ENV = "ZNT_MCP_METRICS_FILE"
MCP_METRICS_FILE = "mcp-usage.jsonl"


@dataclass(frozen=True)
class Project:
    root: Path

    @property
    def znt_dir(self) -> Path:
        return self.root / INDEX_DIR

    @property
    def index_path(self) -> Path:
        return self.znt_dir / "index.duckdb"

    @property
    def scan_lock_path(self) -> Path:
        return self.znt_dir / "scan.lock"

    @property
    def log_path(self) -> Path:
        return self.znt_dir / "log.jsonl"

    @property
    def manifest_path(self) -> Path:
        return self.znt_dir / "manifest.json"

    @property
    def walk_cache_path(self) -> Path:
        return self.znt_dir / "walk.json"

    @property
    def config_path(self) -> Path:
        return self.root / CONFIG_FILE

    def ensure_dir(self) -> None:
        """Create ``.znt/`` with a ``.gitignore`` of ``*`` so the index is never committed.

        ``.znt`` being a link is refused, and a ``.gitignore`` there that is anything but a
        regular file is replaced (znt/fsguard.py): a cloned repository may ship its own."""
        from znt import fsguard

        self.root.mkdir(parents=True, exist_ok=True)
        os.close(fsguard.private_dir(self.znt_dir))
        try:
            ignore = fsguard.read_regular(self.znt_dir / ".gitignore", 64)
        except OSError:
            ignore = b""
        if ignore != b"*\n":
            fsguard.write_private(self.znt_dir, ".gitignore", b"*\n")


def find_root(start: Path) -> Path | None:
    """The nearest ancestor of ``start`` (itself included) that holds ``.znt/``."""
    for candidate in (start, *start.parents):
        if (candidate / INDEX_DIR).is_dir():
            return candidate
    return None


def resolve_project(path: str | os.PathLike[str] | None = None, *, exact: bool = False) -> Project:
    """Pick the project for a command.

    ``path`` (``-C``) wins, then ``ZNT_PROJECT_ROOT``, then the current directory. From there
    we walk up to the nearest indexed ancestor, so commands work from a subfolder; with
    ``exact`` (``znt scan PATH``) the folder itself is the project.
    """
    raw = path if path is not None else os.environ.get("ZNT_PROJECT_ROOT") or os.getcwd()
    start = Path(raw).expanduser()
    if not start.exists():
        raise UsageError(f"path does not exist: {raw}")
    start = start.resolve()
    if not start.is_dir():
        raise UsageError(f"not a directory: {raw}")
    if exact:
        return Project(start)
    root = find_root(start)
    return Project(root if root is not None else start)


def mcp_metrics_path(project_root: Path | None) -> Path | None:
    """Where ``znt mcp`` logs its usage metrics (znt/mcp/metrics.py writes them,
    znt/features/usage.py sums them up): the env override, else the project's ``.znt/`` when
    it exists (the server never creates an index folder just to log a call)."""
    override = os.environ.get(MCP_METRICS_ENV)
    if override:
        return Path(override).expanduser()
    if project_root is None or not (project_root / INDEX_DIR).is_dir():
        return None
    return project_root / INDEX_DIR / MCP_METRICS_FILE


# A folder that is not a repository and holds more files than this is scanned only on the
# user's word (``znt scan --yes``, or yes at the prompt): a home folder or /tmp.
UNVERSIONED_SCAN_LIMIT = 2000
# Folders a count of "how big is this folder" skips, as the walk does.
_SKIP_COUNTING = frozenset({"node_modules", "__pycache__", "venv", "site-packages"})


def unversioned_size(root: Path, limit: int | None = None) -> int | None:
    """How many files ``root`` holds, counted up to just past ``limit`` (default
    ``ZNT_SCAN_CONFIRM_FILES`` or ``UNVERSIONED_SCAN_LIMIT``), when it is not inside a git
    repository, has no index yet and holds more than ``limit``; otherwise None. Hidden
    folders are not counted and links are not followed, as in the walk."""
    from znt.gitinfo import in_repository

    if limit is None:
        raw = os.environ.get("ZNT_SCAN_CONFIRM_FILES", "")
        limit = int(raw) if raw.isdigit() else UNVERSIONED_SCAN_LIMIT
    if (root / INDEX_DIR).is_dir() or in_repository(root):
        return None
    count = 0
    stack = [str(root)]
    while stack and count <= limit:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in _SKIP_COUNTING:
                        stack.append(entry.path)
                elif entry.is_file(follow_symlinks=False):
                    count += 1
            except OSError:
                continue
    return count if count > limit else None
