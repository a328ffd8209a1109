"""Project settings from the committed ``znt.yaml`` at the project root.

This file is what CI needs to reproduce a scan (excludes, entry points, limits); the
embedding provider is a user setting and lives elsewhere. A missing file means defaults; a
malformed one is a usage error that names the problem, never a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from znt.errors import UsageError

DEFAULT_MAX_FILE_BYTES = 1_000_000

_KNOWN_KEYS = {"check", "embed_tests", "exclude", "languages", "max_file_bytes"}
_KNOWN_LANGUAGE_KEYS = {"exclude"}


@dataclass(frozen=True)
class ProjectSettings:
    exclude: tuple[str, ...] = ()
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    languages: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    # Whether test functions get embedding texts (docs/decisions/0024): off by default, they
    # were 40 % of sympy's embedding time and the lexical index finds them.
    embed_tests: bool = False

    def language(self, name: str) -> dict[str, list[str]]:
        return self.languages.get(name, {})


def _read_yaml(path: Path) -> Any:
    """The YAML document in ``path``, read only when it is a regular file (a repository can
    ship ``znt.yaml`` as a link to any file of the user's, znt/fsguard.py). Errors name the
    file and the line, never a line of the text: it may not be the project's."""
    import yaml

    from znt.fsguard import UnsafePath, read_regular

    try:
        text = read_regular(path, 4 << 20).decode("utf-8")
    except UnsafePath as exc:
        raise UsageError(
            f"{path.name} is not read: {exc.strerror}; znt reads only a regular file there"
        ) from None
    except OSError as exc:
        raise UsageError(f"cannot read {path.name}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path.name} is not valid UTF-8") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None)
        raise UsageError(
            f"{path.name} is not valid YAML{at}" + (f": {problem}" if problem else "")
        ) from None


def load_settings(root: Path) -> ProjectSettings:
    path = root / "znt.yaml"
    if not path.is_file() and not path.is_symlink():
        return ProjectSettings()
    data: Any = _read_yaml(path) or {}
    if not isinstance(data, dict):
        raise UsageError(f"{path.name}: expected a mapping at the top level")
    unknown = set(data) - _KNOWN_KEYS
    if unknown:
        raise UsageError(
            f"{path.name}: unknown keys {sorted(unknown)}; known: {sorted(_KNOWN_KEYS)}"
        )
    exclude = data.get("exclude") or []
    if not isinstance(exclude, list) or not all(isinstance(x, str) for x in exclude):
        raise UsageError(f"{path.name}: 'exclude' must be a list of patterns")
    max_bytes = data.get("max_file_bytes", DEFAULT_MAX_FILE_BYTES)
    if not isinstance(max_bytes, int) or max_bytes <= 0:
        raise UsageError(f"{path.name}: 'max_file_bytes' must be a positive integer")
    embed_tests = data.get("embed_tests", False)
    if not isinstance(embed_tests, bool):
        raise UsageError(f"{path.name}: 'embed_tests' must be true or false")
    languages: dict[str, dict[str, list[str]]] = {}
    for name, section in (data.get("languages") or {}).items():
        if not isinstance(section, dict):
            raise UsageError(f"{path.name}: languages.{name} must be a mapping")
        bad = set(section) - _KNOWN_LANGUAGE_KEYS
        if bad:
            raise UsageError(f"{path.name}: languages.{name}: unknown keys {sorted(bad)}")
        languages[str(name)] = {k: [str(x) for x in (v or [])] for k, v in section.items()}
    return ProjectSettings(tuple(exclude), max_bytes, languages, embed_tests)


def read_check_section(path: Path) -> dict[str, Any] | None:
    """The raw ``check:`` mapping of a settings file (``znt check``'s rules), or None when the
    file has no such section. Kept out of ``ProjectSettings`` on purpose: the scan's
    fingerprint hashes those settings, and editing a rule must not force a re-index. The
    rules themselves are validated by ``znt.graph.rules.parse_config``."""
    data: Any = _read_yaml(path) or {}
    if not isinstance(data, dict):
        raise UsageError(f"{path.name}: expected a mapping at the top level")
    section = data.get("check")
    if section is None:
        return None
    if not isinstance(section, dict):
        raise UsageError(f"{path.name}: 'check' must be a mapping (layers, rules, ...)")
    return section
