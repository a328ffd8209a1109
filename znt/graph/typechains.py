"""Members reached through a chain of declared types (Go): ``c.engine.pool.Get()``,
``mux.NewRouter().HandleFunc(...).Methods()``.

The type flow leaves such a call as a member hint whose prefix starts at a type, a
function or an imported package and goes on through fields and methods
(``Context.engine.pool``, ``mux.NewRouter.HandleFunc``). Each step is what the language
states: a field's declared type, a method's or function's declared (first) result, a
field or method promoted from an embedded type. The chain is followed here, on rows read
from the tables, to the declaration whose member is called; ``znt.graph.resolve`` then
looks the member up in it and its embedded types as for any other member hint. A step
that the declarations do not state (a map or slice element, a type from outside the
project, a function value) ends the chain: the call stays unresolved.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

# A field's declaration: its name and a named type, maybe a pointer (``engine *Engine``,
# ``Writer ResponseWriter``, ``render render.HTMLRender``).
_FIELD = re.compile(r"^[A-Za-z_]\w*\s+\*?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)$")
# A declared result: a named type, maybe a pointer, maybe named (``c *Context``).
_RESULT = re.compile(r"^(?:[A-Za-z_]\w*\s+)?\*?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)$")
# A package-level variable's declared type (``var Default T``, ``JSON T = ...``) or, without
# one, the type of the composite literal it is set to (``JSON = jsonBinding{}``).
_VAR_TYPE = re.compile(r"^[A-Za-z_]\w*\s+\*?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)\s*(?:=|$)")
_VAR_LITERAL = re.compile(r"^[A-Za-z_]\w*\s*=\s*&?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)\s*\{")
# How many embedded types deep a field or method is looked for.
_EMBED_DEPTH = 3


@dataclass
class _Type:
    id: str
    file: str
    name: str


@dataclass
class _Package:
    """The Go names one folder declares at its top level, by name."""

    types: dict[str, _Type] = field(default_factory=dict)
    functions: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> file, sig
    members: dict[str, tuple[str, str, str]] = field(default_factory=dict)  # T.x -> kind...
    variables: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> file, sig


def declared_result(signature: str) -> str | None:
    """The named type a function's signature declares as its first result
    (``func (r *Router) HandleFunc(p string, f func(int)) *Route`` -> ``Route``), or None."""
    i, depth, lists = 0, 0, 0
    want = 2 if signature.startswith("func (") else 1  # after the receiver, the parameters
    while i < len(signature):
        ch = signature[i]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                lists += 1
                if lists == want:
                    break
        i += 1
    rest = signature[i + 1 :].strip().rstrip("{").strip()
    if rest.startswith("("):
        rest = rest[1:].split(",", 1)[0].rstrip(")").strip()
    m = _RESULT.match(rest)
    return m.group(1) if m else None


class Chains:
    """The packages of the type-chain languages' files, read once per edge rebuild."""

    def __init__(self, con: duckdb.DuckDBPyConnection, languages: Iterable[str]) -> None:
        langs = list(languages)
        self.dirs: dict[str, str] = {}
        self.packages: dict[str, _Package] = {}
        self.imports: dict[tuple[str, str], str] = {}  # (file, local name) -> folder
        self.embeds: dict[str, list[tuple[str, str]]] = {}  # type id -> (file, type expr)
        if not langs:
            return
        marks = ", ".join("?" for _ in langs)
        for path, folder in con.execute(
            f"SELECT path, coalesce(dir, '') FROM files WHERE language IN ({marks})", langs
        ).fetchall():
            self.dirs[path] = folder
        rows = con.execute(
            f"""
            SELECT s.id, s.file, s.qualified_name, s.name, s.type, s.kind,
                   coalesce(s.signature, '')
            FROM symbols s
            WHERE s.language IN ({marks}) AND s.type IN ('declaration', 'function', 'member')
            """,
            langs,
        ).fetchall()
        twice: set[tuple[str, str]] = set()
        for sid, file, qname, name, typ, kind, sig in rows:
            folder = self.dirs.get(file, "")
            pkg = self.packages.setdefault(folder, _Package())
            top = qname == name and (typ in ("declaration", "function") or kind == "variable")
            if top and (name in pkg.types or name in pkg.functions or name in pkg.variables):
                twice.add((folder, name))  # two files of the package (build tags)
            if typ == "declaration" and qname == name:
                pkg.types.setdefault(name, _Type(sid, file, name))
            elif typ == "function" and qname == name:
                pkg.functions.setdefault(name, (file, sig))
            elif typ == "member" and qname == name and kind == "variable":
                pkg.variables.setdefault(name, (file, sig))
            elif "." in qname:
                pkg.members.setdefault(qname, (kind, file, sig))
        # A name a package defines more than once (files for other build tags) names
        # neither: which one is compiled is not known here.
        for folder, name in twice:
            pkg = self.packages[folder]
            for table in (pkg.types, pkg.functions, pkg.variables):
                table.pop(name, None)
        for file, local, path in con.execute(
            f"""
            SELECT c.file, c.local, coalesce(c.path, '') FROM import_candidates c
            JOIN files f ON f.path = c.file AND f.language IN ({marks})
            WHERE c.mode = 'dir'
            """,
            langs,
        ).fetchall():
            self.imports.setdefault((file, local), path)
        for src, file, expr in con.execute(
            f"""
            SELECT r.src, r.file, r.expr FROM refs r
            JOIN files f ON f.path = r.file AND f.language IN ({marks})
            WHERE r.kind = 'inherits'
            """,
            langs,
        ).fetchall():
            self.embeds.setdefault(src, []).append((file, expr))

    def _named(self, file: str, expr: str) -> _Type | None:
        """The type ``expr`` names from ``file``: ``T`` of its package, ``p.T`` of an
        imported project package."""
        if "." in expr:
            local, name = expr.split(".", 1)
            folder = self.imports.get((file, local))
            if folder is None:
                return None
            pkg = self.packages.get(folder)
        else:
            name, pkg = expr, self.packages.get(self.dirs.get(file, ""))
        return pkg.types.get(name) if pkg is not None else None

    def _variable(self, pkg: _Package, name: str) -> _Type | None:
        hit = pkg.variables.get(name)
        if hit is None:
            return None
        file, sig = hit
        sig = sig[4:].lstrip() if sig.startswith("var ") else sig
        m = _VAR_TYPE.match(sig) or _VAR_LITERAL.match(sig)
        return self._named(file, m.group(1)) if m else None

    def _result(self, file: str, signature: str) -> _Type | None:
        declared = declared_result(signature)
        return self._named(file, declared) if declared else None

    def _step(self, t: _Type, segment: str, depth: int = 0) -> _Type | None:
        """What ``t.segment`` holds: a field's type, a method's result, or either promoted
        from an embedded type."""
        pkg = self.packages.get(self.dirs.get(t.file, ""))
        if pkg is None:
            return None
        hit = pkg.members.get(f"{t.name}.{segment}")
        if hit is not None:
            kind, file, sig = hit
            if kind == "field":
                m = _FIELD.match(sig)
                return self._named(file, m.group(1)) if m else None
            if kind == "method":
                return self._result(file, sig)
            return None
        if depth >= _EMBED_DEPTH:
            return None
        for file, expr in self.embeds.get(t.id, ()):
            inner = self._named(file, expr)
            if inner is not None:
                found = self._step(inner, segment, depth + 1)
                if found is not None:
                    return found
        return None

    def _head(self, file: str, segments: list[str]) -> tuple[_Type, int] | None:
        """The type the chain starts from and how many segments name it: a type or a
        function of the file's package, or of a package it imports."""
        pkg = self.packages.get(self.dirs.get(file, ""))
        first = segments[0]
        if (file, first) in self.imports and len(segments) > 1:
            other = self.packages.get(self.imports[(file, first)])
            if other is None:
                return None
            got = self._named_in(other, segments[1])
            return (got, 2) if got is not None else None
        if pkg is None:
            return None
        got = self._named_in(pkg, first)
        return (got, 1) if got is not None else None

    def _named_in(self, pkg: _Package, name: str) -> _Type | None:
        """What a package-level name holds or is: a type, what a function returns, a
        variable's type."""
        if name in pkg.types:
            return pkg.types[name]
        fn = pkg.functions.get(name)
        if fn is not None:
            return self._result(fn[0], fn[1])
        return self._variable(pkg, name)

    def type_of(self, file: str, prefix: str) -> str | None:
        """The declaration id that ``prefix`` (a chain read from ``file``) holds an
        instance of, or None where a step is not stated."""
        # ``Route.Path().Name``: a call's result is what a method segment stands for.
        segments = [p[:-2] if p.endswith("()") else p for p in prefix.split(".")]
        head = self._head(file, segments)
        if head is None:
            return None
        t, used = head
        for segment in segments[used:]:
            nxt = self._step(t, segment)
            if nxt is None:
                return None
            t = nxt
        return t.id


def chain_classes(
    con: duckdb.DuckDBPyConnection,
    languages: Iterable[str],
    pending: list[tuple[int, str, str]],
) -> list[tuple[int, str]]:
    """(rid, declaration id) for the ``(rid, file, prefix)`` member hints whose prefix is a
    chain of at least two steps that the declarations state."""
    if not pending:
        return []
    chains = Chains(con, languages)
    out = []
    for rid, file, prefix in pending:
        cls = chains.type_of(file, prefix)
        if cls is not None:
            out.append((rid, cls))
    return out
