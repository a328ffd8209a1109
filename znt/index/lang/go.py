"""Go: a package is a folder; an import path names a folder through the module in ``go.mod``.

``import "example.com/shop/pkg/util"`` binds the package's local name (``util``, or the alias)
to every file of the folder ``pkg/util`` but its ``_test.go`` files when the nearest
``go.mod`` above the importing file says ``module example.com/shop`` and sits at the project
root (or to ``<dir>/pkg/util`` when it sits in ``<dir>/``). Anything else (the standard library, third-party modules, a file with
no ``go.mod`` above it inside the project) is an external package: never matched against
project folders by a suffix of its path.
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
from typing import Any

from znt.index.languages import Candidate, ImportRef, LanguageSpec, current_root
from znt.index.syntax import RETURN, SIMPLE, SyntaxRules, Value, node_text, normalize_expr

_MODULE_LINE = re.compile(r"^\s*module\s+(\"[^\"]+\"|`[^`]+`|\S+)", re.MULTILINE)
_MAJOR_VERSION = re.compile(r"v[0-9]+\Z")

# go.mod path -> ((mtime_ns, size), module path or None); re-read when the file changes.
_GOMOD_CACHE: dict[str, tuple[tuple[int, int], str | None]] = {}
# The last file's (root, path) and its nearest module: the imports of one file are mapped
# one after the other, so the go.mod lookup runs once per file.
_LAST: list[tuple[tuple[str, str], tuple[str, str] | None]] = []


def module_name(path: str) -> str:
    stem = path[:-3] if path.endswith(".go") else path.rsplit(".", 1)[0]
    return stem.replace("/", ".")


def local_name(imp: ImportRef) -> str:
    """The package name an import binds: the alias, else the last path element (skipping a
    ``/v2`` major-version suffix and a ``.v3`` gopkg.in suffix)."""
    if imp.alias:
        return imp.alias
    parts = [p for p in imp.module.split("/") if p]
    if not parts:
        return imp.module
    last = parts[-1]
    if _MAJOR_VERSION.match(last) and len(parts) > 1:
        last = parts[-2]
    if ".v" in last and last.rsplit(".v", 1)[1].isdigit():
        last = last.rsplit(".v", 1)[0]
    return last


def _project_root(path: str) -> str | None:
    """The absolute project root of the file being extracted (set by the parser)."""
    return current_root()


def _read_module(gomod: str) -> str | None:
    try:
        st = os.stat(gomod)
    except OSError:
        return None
    key = (st.st_mtime_ns, st.st_size)
    hit = _GOMOD_CACHE.get(gomod)
    if hit is not None and hit[0] == key:
        return hit[1]
    try:
        with open(gomod, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError:
        return None
    m = _MODULE_LINE.search(text)
    module = m.group(1).strip('"`') if m else None
    _GOMOD_CACHE[gomod] = (key, module)
    return module


def _nearest_module(root: str, path: str) -> tuple[str, str] | None:
    """(folder of the nearest go.mod relative to the root, its module path), looking from
    the importing file's folder up to the project root and never above it."""
    folder = posixpath.dirname(path)
    while True:
        gomod = posixpath.join(root, folder, "go.mod") if folder else f"{root}/go.mod"
        if os.path.isfile(gomod):
            module = _read_module(gomod)
            return (folder, module) if module else None
        if not folder:
            return None
        folder = posixpath.dirname(folder)


def import_candidates(path: str, imp: ImportRef) -> list[Candidate]:
    root = _project_root(path)
    if root is None:
        return []
    key = (root, path)
    if _LAST and _LAST[0][0] == key:
        found = _LAST[0][1]
    else:
        found = _nearest_module(root, path)
        _LAST[:] = [(key, found)]
    if found is None:
        return []
    base, module = found
    target = imp.module.strip("/")
    if target == module:
        rel = base
    elif target.startswith(module + "/"):
        rest = target[len(module) + 1 :]
        rel = posixpath.join(base, rest) if base else rest
    else:
        return []
    if ".." in rel.split("/"):
        return []
    return [Candidate(rel, mode="dir")]


# A package import binds the folder's files but its tests: a ``_test.go`` file (of package
# ``util`` or of the external test package ``util_test``) is compiled only into the
# package's own test binary, never into what another package imports.
DIR_IMPORT_EXCLUDES = ("_test.go",)

# A type implements an interface by having its methods (no ``implements`` clause):
# ``znt.graph.resolve`` derives those edges inside a package.
IMPLEMENTS_BY_METHOD_SET = True


# ``new(T)`` (or ``new(*T)``, ``new(pkg.T)``) opening a callee: an instance of ``T``.
_NEW_HEAD = re.compile(r"\Anew\(\s*\*?\s*([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)\s*\)(?=\.)")


class GoSyntax(SyntaxRules):
    """Go's trees for the type flow: only what a name holds. go.scm's ``@binding`` matches
    name the type a variable holds an instance of (a parameter's or ``var``'s declared
    type, ``T{}``, ``&T{}``, a type assertion, a call whose result is what its function
    returns) and, without ``@binding.name``, a function's declared result type. Go has no
    decorators, and arguments bind no parameters here (a parameter's type already says
    what it holds).

    A name a function declares more than once (a closure's ``r *http.Request`` beside an
    outer ``r := NewRouter()``, a closure's parameter named like the method's receiver)
    is bound per declaration: a call sees the declaration whose block holds it, the
    innermost one (``declaration_site``), as Go's scoping does."""

    typed_members = True

    def callee_text(self, node: Any) -> str:
        """``new(Route).Host`` is ``Route.Host`` on a new ``*Route``: the type names the
        instance, as ``x := new(Route)`` does."""
        text = node_text(node)
        return _NEW_HEAD.sub(r"\1", text, count=1) if text.startswith("new(") else text

    def bindings(self, node: Any, caps: dict[str, Any]) -> list[tuple[int, str, Value]]:
        value = caps.get("binding.instance")
        if not value:
            return []
        expr = normalize_expr(self.callee_text(value[0]))
        # ``x := r.PathPrefix("/").Subrouter()``: what the last call of a chain returns
        # (each step's declared result, followed by the resolver).
        if not SIMPLE.match(expr.replace("()", "")) or expr.endswith("()"):
            return []
        names = caps.get("binding.name")
        if not names:
            return [(int(node.start_byte), RETURN, Value(expr, True))]
        name = normalize_expr(node_text(names[0]))
        if _is_receiver(node):
            return []
        top = _function_around(node)
        again = top is not None and len(_declarations(top).get(name, ())) > 1
        site = int(node.start_byte) if again else None
        return [(int(node.start_byte), name, Value(expr, True, site=site))]

    def start_file(self) -> None:
        _DECLARED.clear()

    def declaration_site(self, function: Any, name: str, pos: int) -> int | None:
        decls = _declarations(function).get(name)
        if decls is None or len(decls) < 2:
            return None
        seen = [d for d in decls if d[0] <= pos < d[1]]
        if not seen:
            return -1  # not declared here yet: the package's name, no binding of this one
        return max(seen)[2]


# Nodes that declare names inside a function (@decl), and the names they declare (@name): the
# field that holds them is a name, or holds names (``a, b := ...``). Only the patterns the
# grammar allows are listed: tree-sitter rejects the others (``left`` of ``:=`` is always a list).
_DECLARING = """
(parameter_declaration name: (identifier) @name) @decl
(parameter_declaration name: (_ (identifier) @name)) @decl
(variadic_parameter_declaration name: (identifier) @name) @decl
(variadic_parameter_declaration name: (_ (identifier) @name)) @decl
(var_spec name: (identifier) @name) @decl
(var_spec name: (_ (identifier) @name)) @decl
(short_var_declaration left: (_ (identifier) @name)) @decl
(range_clause left: (_ (identifier) @name)) @decl
(receive_statement left: (_ (identifier) @name)) @decl
(type_switch_statement alias: (_ (identifier) @name)) @decl
"""
_FUNCTIONS = ("function_declaration", "method_declaration")
_PARAMETERS = ("parameter_declaration", "variadic_parameter_declaration")
# Where a name declared inside them stops being in sight (Go's implicit and explicit blocks).
_BLOCKS = frozenset(
    {
        "block",
        "func_literal",
        "for_statement",
        "if_statement",
        "expression_switch_statement",
        "type_switch_statement",
        "select_statement",
        "expression_case",
        "type_case",
        "default_case",
        "communication_case",
        *_FUNCTIONS,
    }
)


def _is_receiver(node: Any) -> bool:
    """A method's receiver (``func (s *Square) Area()``): ``@receiver`` already makes
    ``s.m()`` the type's method (``self_method``), and a binding would outrank that."""
    parent = node.parent
    return (
        parent is not None
        and parent.parent is not None
        and parent.parent.type == "method_declaration"
        and parent.parent.child_by_field_name("receiver") == parent
    )


def _function_around(node: Any) -> Any:
    top = node.parent
    while top is not None and top.type not in _FUNCTIONS:
        top = top.parent
    return top


# A function declaration's declared names: name -> (in sight from, until, declaration start).
Declarations = dict[str, list[tuple[int, int, int]]]
# By the function's node ``id`` (unique in its tree), for the file being read: cleared when
# the next one starts (``GoSyntax.start_file``). A key made of the function's text hashed it
# again at every reference inside it: ~3% of a Go file's extraction.
_DECLARED: dict[int, Declarations] = {}


@functools.cache
def _declaration_query() -> Any:
    from tree_sitter import Query
    from tree_sitter_language_pack import get_language

    return Query(get_language("go"), _DECLARING)


def _declarations(top: Any) -> Declarations:
    """The names ``top`` (a function or method declaration) declares, each with where the
    declaration is in sight: a parameter in its whole function (literal), any other name
    from its declaration to the end of the block around it. The declaring nodes are found
    by a query matched in C: a walk in Python over every named node of the function was
    ~16% of a Go file's extraction."""
    key = top.id
    found = _DECLARED.get(key)
    if found is not None:
        return found
    from tree_sitter import QueryCursor

    out: Declarations = {}
    for _pattern, caps in QueryCursor(_declaration_query()).matches(top):
        out.setdefault(node_text(caps["name"][0]), []).append(_region(caps["decl"][0]))
    _DECLARED[key] = out
    return out


def _region(decl: Any) -> tuple[int, int, int]:
    start = int(decl.start_byte)
    if decl.type in _PARAMETERS and decl.parent is not None and decl.parent.parent is not None:
        fn = decl.parent.parent  # parameter_list -> the function (literal) it belongs to
        return (int(fn.start_byte), int(fn.end_byte), start)
    block = decl.parent
    while block is not None and block.type not in _BLOCKS:
        block = block.parent
    end = int(block.end_byte) if block is not None else int(decl.end_byte)
    return (start, end, start)


SPEC = LanguageSpec(
    name="go",
    grammar="go",
    extensions=(".go",),
    exclude=("vendor/", "testdata/"),
    entrypoints=("main.go",),
    tests=("*_test.go", "testdata/"),
    self_names=(),
    constructor_names=(),
    class_scope_visible=False,
    package_scope=True,
    docstrings=False,
    comment_types=("comment",),
    wrapper_types=(),
    body_fields=("body",),
    syntax=GoSyntax(),
    module_name=module_name,
    local_name=local_name,
    import_candidates=import_candidates,
)
