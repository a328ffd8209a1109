"""Find the files to index: honour ignore files, default excludes and size limits.

The walk only stats; it never reads a file (a rescan that changes nothing must stay cheap).
Binary and unparsable content is detected later, when a changed file is read.
"""

from __future__ import annotations

import errno
import os
import stat
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from znt.index.ignore import IgnoreLevel, first_verdict, parse_rules
from znt.index.languages import LanguageSpec, language_for, language_for_name
from znt.settings import ProjectSettings

# Folders never entered, whatever the ignore files say.
ALWAYS_SKIPPED = frozenset({".git", ".hg", ".svn", ".znt"})

# The original's global defaults plus the usual build outputs and caches (gitignore syntax).
DEFAULT_EXCLUDES = (
    "node_modules/",
    "bower_components/",
    "vendor/",
    "third_party/",
    "dist/",
    "build/",
    "out/",
    "target/",
    "obj/",
    "coverage/",
    ".github/",
    ".idea/",
    ".vscode/",
    ".gradle/",
    ".next/",
    ".nuxt/",
    ".cache/",
    ".tox/",
    ".venv/",
    "venv/",
    "__pycache__/",
    ".mypy_cache/",
    ".pytest_cache/",
    ".ruff_cache/",
    "*.egg-info/",
    "*.min.js",
    "*.min.css",
    "*.map",
    "*.lock",
    "package-lock.json",
    "pnpm-lock.yaml",
    "*.pb.go",
    "*_pb2.py",
)


@dataclass(frozen=True)
class FileEntry:
    path: str  # relative, with forward slashes
    size: int
    mtime_ns: int
    language: str


@dataclass
class WalkResult:
    files: dict[str, FileEntry] = field(default_factory=dict)
    # Files the scan will not index, with the reason; each counts as a warning.
    skipped: dict[str, str] = field(default_factory=dict)
    # Problems met while walking (unreadable folders, symlink loops), path -> message.
    problems: dict[str, str] = field(default_factory=dict)
    # How many files and folders each ignore source excluded.
    ignored: Counter[str] = field(default_factory=Counter)


def _default_levels(settings: ProjectSettings) -> list[IgnoreLevel]:
    levels = [IgnoreLevel("", parse_rules(DEFAULT_EXCLUDES, "default"))]
    if settings.exclude:
        levels.append(IgnoreLevel("", parse_rules(settings.exclude, "znt.yaml")))
    return levels


def _read_ignore(path: Path, base: str, source: str) -> IgnoreLevel | None:
    from znt.fsguard import read_regular

    try:  # never through a link or from a FIFO (znt/fsguard.py)
        text = read_regular(path, 4 << 20).decode("utf-8", "replace")
    except OSError:
        return None
    rules = parse_rules(text.splitlines(), source)
    return IgnoreLevel(base, rules) if rules else None


class _LanguageLevels(dict[str, "IgnoreLevel | None"]):
    """Each language's exclude rules, compiled the first time a file of it shows up."""

    def __init__(self, settings: ProjectSettings) -> None:
        super().__init__()
        self.settings = settings
        self.folders: dict[tuple[str, str], str | None] = {}

    def __missing__(self, name: str) -> IgnoreLevel | None:
        from znt.index.languages import get_language

        patterns = list(get_language(name).exclude)
        patterns += self.settings.language(name).get("exclude", [])
        level = IgnoreLevel("", parse_rules(patterns, f"language:{name}")) if patterns else None
        self[name] = level
        return level


def walk(root: Path, settings: ProjectSettings, language: str | None = None) -> WalkResult:
    """All indexable files under ``root``, in a deterministic order."""
    result = WalkResult()
    lang_levels = _LanguageLevels(settings)
    max_bytes = settings.max_file_bytes
    base_levels = _default_levels(settings)
    info = root / ".git" / "info" / "exclude"
    if info.is_file():
        lvl = _read_ignore(info, "", ".git/info/exclude")
        if lvl:
            base_levels.append(lvl)

    stack: list[tuple[str, list[IgnoreLevel]]] = [("", base_levels)]
    top = str(root)
    while stack:
        rel_dir, levels = stack.pop()
        abs_dir = os.path.join(top, rel_dir) if rel_dir else top
        try:
            with os.scandir(abs_dir) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            result.problems[rel_dir or "."] = f"cannot read folder: {exc.strerror or exc}"
            continue
        names = {e.name for e in entries}
        for ignore_name in (".gitignore", ".zntignore"):
            if ignore_name in names:
                src = f"{rel_dir}/{ignore_name}" if rel_dir else ignore_name
                lvl = _read_ignore(Path(abs_dir, ignore_name), rel_dir, src)
                if lvl is not None:
                    levels = [*levels, lvl]
        subdirs: list[str] = []
        for entry in entries:
            name = entry.name
            rel = f"{rel_dir}/{name}" if rel_dir else name
            if not name.isascii() and not _utf8(name):
                # Not representable as text in the index (or in JSON): skipped, reported
                # with the bytes escaped; the rest of the tree is walked as usual.
                shown = printable_name(rel)
                if entry.is_dir(follow_symlinks=False):
                    result.problems[shown] = "folder name is not valid UTF-8; not indexed"
                elif language_for(
                    name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                ):
                    result.skipped[shown] = "file name is not valid UTF-8"
                continue
            try:
                is_link = entry.is_symlink()
                if is_link:
                    _check_symlink(entry.path, rel, result)
                    continue
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError as exc:
                result.problems[rel] = f"cannot stat: {exc.strerror or exc}"
                continue
            if is_dir:
                if name in ALWAYS_SKIPPED:
                    continue
                rule = first_verdict(levels, rel, True)
                if rule is not None and not rule.negated:
                    result.ignored[rule.source] += 1
                    continue
                subdirs.append(rel)
                continue
            spec = language_for_name(name)
            if spec is None or (language is not None and spec.name != language):
                continue
            rule = first_verdict(levels, rel, False)
            if rule is not None and not rule.negated:
                result.ignored[rule.source] += 1
                continue
            lang_rule = _language_excluded(lang_levels, spec, rel)
            if lang_rule:
                result.ignored[lang_rule] += 1
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError as exc:
                result.problems[rel] = f"cannot stat: {exc.strerror or exc}"
                continue
            if not stat.S_ISREG(st.st_mode):
                continue
            if st.st_size > max_bytes:
                result.skipped[rel] = f"larger than {max_bytes} bytes ({st.st_size})"
                continue
            result.files[rel] = FileEntry(rel, st.st_size, st.st_mtime_ns, spec.name)
        for sub in reversed(subdirs):
            stack.append((sub, levels))
    return result


def _utf8(name: str) -> bool:
    """Whether a name from the file system is valid UTF-8 (undecodable bytes arrive as lone
    surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def printable_name(rel: str) -> str:
    """``rel`` with bytes that are not UTF-8 written as ``\\xNN``, for messages."""
    raw = rel.encode("utf-8", "surrogateescape")
    return raw.decode("utf-8", "backslashreplace")


def _language_excluded(levels: _LanguageLevels, spec: LanguageSpec, rel: str) -> str | None:
    level = levels[spec.name]
    if level is None:
        return None
    # Language excludes name folders (``vendor/``) as well as files.
    folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
    source = _folder_excluded(levels, level, spec.name, folder)
    if source is not None:
        return source
    rule = level.match(rel, False)
    if rule is not None and not rule.negated:
        return rule.source
    return None


def _folder_excluded(
    levels: _LanguageLevels, level: IgnoreLevel, lang: str, folder: str
) -> str | None:
    """Whether a language's rules exclude ``folder`` or one of its ancestors (memoised)."""
    if not folder:
        return None
    key = (lang, folder)
    if key in levels.folders:
        return levels.folders[key]
    parent = folder.rsplit("/", 1)[0] if "/" in folder else ""
    source = _folder_excluded(levels, level, lang, parent)
    if source is None:
        rule = level.match(folder, True)
        if rule is not None and not rule.negated:
            source = rule.source
    levels.folders[key] = source
    return source


def _check_symlink(path: str, rel: str, result: WalkResult) -> None:
    """Symlinks are not followed (no loops, no files outside the project, no duplicates),
    but a broken or looping one is reported."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            result.problems[rel] = "symlink loop"
        elif exc.errno == errno.ENOENT:
            result.problems[rel] = "broken symlink"
        else:
            result.problems[rel] = f"cannot follow symlink: {exc.strerror or exc}"
        return
    result.ignored["symlink (not followed)"] += 1
