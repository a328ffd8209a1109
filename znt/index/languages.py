"""The language registry: which files belong to which language, and where its knowledge lives.

Each language is one module ``znt/index/lang/<name>.py`` holding a ``SPEC`` (extensions,
excludes, entry points, naming conventions, how imports map to files) plus a tree-sitter
query file ``znt/index/lang/<name>.scm`` that names definitions, references and imports with
the capture conventions described in ``docs/languages.md``, and (in ``SPEC.syntax``) what the
generic walk asks about its syntax trees. Nothing about a particular language is written
anywhere else.
"""

from __future__ import annotations

import importlib
import os
import posixpath
from collections.abc import Callable
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from znt.index.syntax import SyntaxRules

LANG_DIR = Path(__file__).parent / "lang"


def _language_modules() -> list[str]:
    """Every module in ``lang/``: adding a language is adding its two files there."""
    return sorted(
        name[:-3]
        for name in os.listdir(LANG_DIR)
        if name.endswith(".py") and not name.startswith("_")
    )


# The absolute root of the project whose file is being extracted. Import mapping is a
# function of the file alone, except where a language needs a project file to read (Go's
# go.mod); ``parse`` sets this around each extraction.
_ROOT: ContextVar[str | None] = ContextVar("znt_extract_root", default=None)


def current_root() -> str | None:
    return _ROOT.get()


def set_current_root(root: str | None) -> Token[str | None]:
    return _ROOT.set(root)


def reset_current_root(token: Token[str | None]) -> None:
    _ROOT.reset(token)


@dataclass(frozen=True)
class Candidate:
    """A place an import may point to.

    ``mode`` is ``exact`` (a path from the project root), ``dir`` (every file of a folder, as
    a Go package), ``suffix`` (a path that must end a project path, as a Java import),
    ``module`` (a module name, matched against ``module_name`` of the same language's files),
    ``via`` (a name that another import of the same file binds to a project file, as Rust's
    ``use util::f`` after ``mod util;``) or ``symbol`` (the file that declares the
    namespace-qualified type, as a C# ``using`` alias).
    ``member`` names the symbol looked up in that file, or is ``None`` when the file itself
    is what the import binds.
    """

    path: str
    mode: str = "exact"
    member: str | None = None


@dataclass(frozen=True)
class ImportRef:
    module: str  # the module text as written ("os.path", "./util", "fmt", ".models")
    name: str | None  # an imported name ("join" in from os.path import join), if any
    alias: str | None  # the local alias, if any


def _no_candidates(_path: str, _imp: ImportRef) -> list[Candidate]:
    return []


def default_module_name(path: str) -> str:
    """A file's module name when the language has no package system: its stem."""
    stem = posixpath.basename(path)
    return stem.rsplit(".", 1)[0] if "." in stem else stem


def default_local_name(imp: ImportRef) -> str:
    """The name an import binds in the importing file (alias, else name, else last segment)."""
    if imp.alias:
        return imp.alias
    if imp.name:
        return imp.name
    return imp.module.strip("./").replace("/", ".").split(".")[-1]


@dataclass(frozen=True)
class LanguageSpec:
    name: str
    grammar: str
    extensions: tuple[str, ...] = ()
    filenames: tuple[str, ...] = ()
    grammar_by_extension: dict[str, str] = field(default_factory=dict)
    resource: bool = False
    # What the grammar cannot read in files that are valid for their tools (JSON with
    # comments, a SQL dialect's syntax): named in the warning, so a valid file is not
    # reported as broken (``parse_error_message``).
    grammar_limit: str = ""
    exclude: tuple[str, ...] = ()
    entrypoints: tuple[str, ...] = ()
    tests: tuple[str, ...] = ()
    self_names: tuple[str, ...] = ()
    constructor_names: tuple[str, ...] = ()
    class_scope_visible: bool = False
    package_scope: bool = False  # top-level names are visible across a folder (Go, Java)
    uppercase_constants: bool = True  # an UPPER_CASE variable is a constant (not in Makefiles)
    # Kinds besides declarations an ``implements`` reference may name, looked up from inside
    # the class (a Ruby ``include Pricing`` is a statement of the class body; a module is a
    # ``namespace``).
    mixin_kinds: tuple[str, ...] = ()
    docstrings: bool = False  # bodies open with a documentation string (``syntax.docstring``)
    # What the generic walk asks the language about its syntax trees (calls, decorators,
    # parameters, docstrings; znt/index/syntax.py); the default knows none of it.
    syntax: SyntaxRules = field(default_factory=SyntaxRules)
    comment_types: tuple[str, ...] = ("comment",)
    wrapper_types: tuple[str, ...] = ()
    # Node types that give ``this`` a value of their own (JavaScript's functions, methods
    # and classes; not its arrow functions, which take the ``this`` around them).
    this_binders: tuple[str, ...] = ()
    # Node types a ``@local`` is bound in when no definition owns it (an anonymous
    # function's parameters, a block's declarations): inside such a node a call through
    # the name is ``local`` (znt.index.extract). Empty: such a local is not kept.
    local_scopes: tuple[str, ...] = ()
    # Whether a call on an untyped local named like a module-level object of the project
    # (``res.send()`` on a callback's ``res``) may be bound to that object's member, at low
    # confidence (resolution ``receiver_name``, znt.graph.resolve).
    receiver_names: bool = False
    body_fields: tuple[str, ...] = ("body",)
    module_name: Callable[[str], str] = default_module_name
    local_name: Callable[[ImportRef], str] = default_local_name
    import_candidates: Callable[[str, ImportRef], list[Candidate]] = _no_candidates

    def grammar_for(self, path: str) -> str:
        ext = posixpath.splitext(path)[1].lower()
        return self.grammar_by_extension.get(ext, self.grammar)


@cache
def all_languages() -> tuple[LanguageSpec, ...]:
    specs = []
    for mod in _language_modules():
        specs.append(importlib.import_module(f"znt.index.lang.{mod}").SPEC)
    return tuple(specs)


@cache
def _tables() -> tuple[dict[str, LanguageSpec], dict[str, LanguageSpec]]:
    by_ext: dict[str, LanguageSpec] = {}
    by_name: dict[str, LanguageSpec] = {}
    for spec in all_languages():
        for ext in spec.extensions:
            by_ext.setdefault(ext, spec)
        for fname in spec.filenames:
            by_name.setdefault(fname, spec)
    return by_ext, by_name


def language_for(path: str) -> LanguageSpec | None:
    """The language of a path, by file name first (``Dockerfile``), then by extension."""
    return language_for_name(posixpath.basename(path))


def language_for_name(base: str) -> LanguageSpec | None:
    """``language_for`` of a file name without its folder (the walk has it already)."""
    by_ext, by_name = _tables()
    spec = by_name.get(base)
    if spec is not None:
        return spec
    dot = base.rfind(".")
    if dot <= 0:
        return None
    return by_ext.get(base[dot:].lower())


def parse_error_message(name: str) -> str:
    """The warning for a file the language's grammar could not parse whole."""
    try:
        spec = get_language(name)
    except KeyError:
        spec = None
    if spec is not None and spec.grammar_limit:
        return (
            f"the tree-sitter {spec.grammar} grammar could not read part of this file "
            f"({spec.grammar_limit}); the file may well be valid, and what the grammar read "
            "is indexed"
        )
    return "syntax errors; symbols extracted where the tree allowed"


def get_language(name: str) -> LanguageSpec:
    for spec in all_languages():
        if spec.name == name:
            return spec
    raise KeyError(name)


def language_names() -> list[str]:
    return [spec.name for spec in all_languages()]


@cache
def query_source(name: str) -> str:
    return (LANG_DIR / f"{name}.scm").read_text(encoding="utf-8")
