"""PHP: ``use App\\Models\\User;`` names a class file by the PSR-4 convention; ``require`` /
``include`` of a literal path name a file relative to the including one.

A namespace import is mapped to ``App/Models/User.php`` (or ``app/Models/User.php``, the
Laravel layout of the ``App\\`` root) by suffix, so it binds only when exactly one project
file ends that way, and the member looked up is the class. ``require __DIR__ . '/x.php'``,
``require dirname(__DIR__) . '/x.php'`` and ``require 'x.php'`` map to the exact path;
anything computed at run time maps to nothing.
"""

from __future__ import annotations

import posixpath
import re

from znt.index.languages import Candidate, ImportRef, LanguageSpec

_NAME = re.compile(r"(?:[A-Za-z_]|[^\x00-\x7f])(?:[A-Za-z0-9_]|[^\x00-\x7f])*\Z")
_DIRNAME = re.compile(r"dirname\(\s*__DIR__\s*(?:,\s*(\d+)\s*)?\)\s*\.\s*['\"](.*)\Z", re.S)


def module_name(path: str) -> str:
    stem = path[:-4] if path.endswith(".php") else path.rsplit(".", 1)[0]
    parts = stem.split("/")
    if parts and parts[0] == "src" and len(parts) > 1:
        parts = parts[1:]
    return ".".join(parts) or stem


def _is_file_include(module: str) -> bool:
    """``require`` / ``include`` targets hold a path; ``use`` names hold none of these."""
    return "/" in module or "." in module or "(" in module


def local_name(imp: ImportRef) -> str:
    if _is_file_include(imp.module):
        # An include binds no name: a key that no callee can start with.
        return imp.module if imp.module.startswith(("/", ".")) else f"./{imp.module}"
    if imp.alias:
        return imp.alias
    return (imp.name or imp.module).strip("\\").rsplit("\\", 1)[-1]


def _include_candidates(path: str, module: str) -> list[Candidate]:
    folder = posixpath.dirname(path)
    m = _DIRNAME.match(module)
    if m:
        # dirname(__DIR__, n) . '/x.php'
        for _ in range(int(m.group(1) or 1)):
            if not folder:
                return []
            folder = posixpath.dirname(folder)
        rel = m.group(2)
    elif "(" in module or "$" in module or "{" in module:
        return []
    else:
        # __DIR__ . '/x.php' (captured as its literal, '/x.php') or a literal 'x.php'.
        rel = module
    rel = rel.lstrip("/")
    if not rel.endswith((".php", ".inc", ".phtml")):
        return []
    target = posixpath.normpath(posixpath.join(folder, rel))
    if target.startswith("../") or target == "..":
        return []
    return [Candidate(target)]


def import_candidates(path: str, imp: ImportRef) -> list[Candidate]:
    module = imp.module
    if _is_file_include(module):
        return _include_candidates(path, module)
    parts = [p for p in module.strip("\\").split("\\") if p]
    if imp.name:
        parts.extend(p for p in imp.name.split("\\") if p)
    if len(parts) < 2 or not all(_NAME.match(p) for p in parts):
        return []
    member = parts[-1]
    rel = "/".join(parts) + ".php"
    out = [Candidate(rel, mode="suffix", member=member)]
    lowered = "/".join([parts[0].lower(), *parts[1:]]) + ".php"
    if lowered != rel:
        out.append(Candidate(lowered, mode="suffix", member=member))
    return out


SPEC = LanguageSpec(
    name="php",
    grammar="php",
    extensions=(".php",),
    exclude=("vendor/", "storage/framework/", "bootstrap/cache/", ".phpunit.cache/"),
    entrypoints=("index.php", "public/index.php", "server.php", "bin/*.php"),
    tests=("*Test.php", "tests/", "test/"),
    self_names=("this", "self", "static"),
    constructor_names=("__construct",),
    class_scope_visible=False,
    docstrings=False,
    comment_types=("comment",),
    wrapper_types=(),
    body_fields=("body",),
    module_name=module_name,
    local_name=local_name,
    import_candidates=import_candidates,
)
