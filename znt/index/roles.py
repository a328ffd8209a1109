"""Role inference: which part a symbol plays (DESIGN §3). The rules, in the order they apply,
are documented in docs/roles.md; the tables below are the rules."""

from __future__ import annotations

import fnmatch
import posixpath
import re
from functools import lru_cache

from znt.index.languages import LanguageSpec

# Znt's list of roles (DESIGN §3); ``callsite`` is on it but no rule assigns it.
ROLES = (
    "controller",
    "repository",
    "service",
    "model",
    "utility",
    "contract",
    "factory",
    "adapter",
    "handler",
    "entrypoint",
    "state",
    "dependency",
    "callsite",
    "test",
    "generic",
)

# Suffix of a declaration's name (or its parent's) -> role.
NAME_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("Controller", "controller"),
    ("Resource", "controller"),
    ("Endpoint", "controller"),
    ("Repository", "repository"),
    ("Repo", "repository"),
    ("Store", "repository"),
    ("Dao", "repository"),
    ("DAO", "repository"),
    ("Service", "service"),
    ("Factory", "factory"),
    ("Builder", "factory"),
    ("Adapter", "adapter"),
    ("Client", "adapter"),
    ("Gateway", "adapter"),
    ("Proxy", "adapter"),
    ("Wrapper", "adapter"),
    ("Handler", "handler"),
    ("Listener", "handler"),
    ("Middleware", "handler"),
    ("Callback", "handler"),
    ("Consumer", "handler"),
    ("Subscriber", "handler"),
    ("Model", "model"),
    ("Entity", "model"),
    ("Dto", "model"),
    ("DTO", "model"),
    ("Schema", "model"),
    ("Util", "utility"),
    ("Utils", "utility"),
    ("Helper", "utility"),
    ("Helpers", "utility"),
    ("State", "state"),
    ("Config", "state"),
    ("Settings", "state"),
)

# A folder on the path -> role (for symbols no name rule claimed).
PATH_FOLDERS: dict[str, str] = {
    "controllers": "controller",
    "routes": "controller",
    "views": "controller",
    "handlers": "handler",
    "services": "service",
    "repositories": "repository",
    "repository": "repository",
    "models": "model",
    "entities": "model",
    "adapters": "adapter",
    "factories": "factory",
    "utils": "utility",
    "util": "utility",
    "helpers": "utility",
    "lib": "utility",
}

# Decorators / annotations -> role.
DECORATORS: tuple[tuple[str, str], ...] = (
    ("route", "controller"),
    ("get", "controller"),
    ("post", "controller"),
    ("put", "controller"),
    ("delete", "controller"),
    ("RestController", "controller"),
    ("Controller", "controller"),
    ("RequestMapping", "controller"),
    ("GetMapping", "controller"),
    ("PostMapping", "controller"),
    ("Service", "service"),
    ("Repository", "repository"),
    ("Entity", "model"),
    ("dataclass", "model"),
    ("command", "entrypoint"),
    ("main", "entrypoint"),
    ("fixture", "test"),
    ("Test", "test"),
)

CONTRACT_KINDS = frozenset({"interface", "trait", "protocol"})
INHERITED = frozenset(
    {
        "controller",
        "repository",
        "service",
        "factory",
        "adapter",
        "handler",
        "model",
        "test",
        "contract",
    }
)
ENTRY_NAMES = frozenset({"main", "Main"})
_TEST_NAME = re.compile(r"(?:test_|Test[A-Z_]|test[A-Z])")


@lru_cache(maxsize=4096)
def _path_matches(path: str, patterns: tuple[str, ...]) -> bool:
    parts = path.split("/")
    base = parts[-1]
    for pat in patterns:
        if pat.endswith("/"):
            if pat[:-1] in parts[:-1]:
                return True
        elif "/" in pat:
            if fnmatch.fnmatchcase(path, pat) or fnmatch.fnmatchcase(path, "*/" + pat):
                return True
        elif fnmatch.fnmatchcase(base, pat):
            return True
    return False


def is_test_path(spec: LanguageSpec, path: str) -> bool:
    return _path_matches(path, spec.tests)


def infer_role(
    spec: LanguageSpec,
    path: str,
    qname: str,
    type_: str,
    kind: str,
    parent_role: str | None,
    decorators: tuple[str, ...],
    signature: str = "",
) -> str:
    name = qname.rsplit(".", 1)[-1]
    # 1. tests: test files, and test-named functions and classes.
    if is_test_path(spec, path) or (
        type_ in ("function", "declaration") and _TEST_NAME.match(name)
    ):
        return "test"
    if type_ == "dependency":
        return "dependency"
    # 2. decorators and annotations.
    for deco in decorators:
        last = deco.rsplit(".", 1)[-1].split("(")[0]
        for key, role in DECORATORS:
            if last == key:
                return role
    # 3. entry points: configured files, and main functions.
    if type_ == "namespace" and _path_matches(path, spec.entrypoints):
        return "entrypoint"
    # main() at the top level, or a class's static main (Java, C#).
    if (
        type_ == "function"
        and name in ENTRY_NAMES
        and ("." not in qname or (kind == "method" and "static" in signature.split("(")[0]))
    ):
        return "entrypoint"
    # 4. contracts: interfaces, traits, protocols.
    if kind in CONTRACT_KINDS:
        return "contract"
    # 5. name suffixes of declarations.
    if type_ in ("declaration", "namespace"):
        for suffix, role in NAME_SUFFIXES:
            if name.endswith(suffix):
                return role
    # 6. members of a class play their class's role; other members hold state.
    if parent_role in INHERITED and type_ in ("function", "member"):
        return parent_role
    if type_ == "member":
        return "state"
    # 7. the folder the file sits in.
    for folder in reversed(posixpath.dirname(path).split("/")):
        folder_role = PATH_FOLDERS.get(folder)
        if folder_role is not None:
            return folder_role
    return "generic"
