"""Turn one parsed file into rows: symbols, raw references and imports.

Everything here is a pure function of (path, bytes, language), which is what makes an
incremental scan equal to a clean one: a file's rows never depend on other files. The
cross-file part (imports to files, calls through imports) is resolved afterwards in SQL by
``znt.graph.resolve``.

The tree-sitter query of each language (``lang/<name>.scm``) names what matters with
captures; this module gives those captures meaning:

* ``@definition.<kind>`` with ``@name``: a symbol of language kind ``<kind>``; an optional
  ``@qualifier`` (a Go receiver, a Rust ``impl`` type) prefixes its qualified name.
  ``@definition.scope`` with ``@name`` is a container that names its children but is not a
  symbol itself (Rust ``impl Foo``).
* ``@reference.call`` with ``@callee`` (or alone): a call; ``@reference.new``: a constructor
  call; ``@reference.inherits`` / ``@reference.implements``: a base type.
* ``@import`` with ``@import.module``, ``@import.name``, ``@import.alias``,
  ``@import.wildcard``: one imported binding.
* ``@local``: a name bound inside a function (parameter, assignment) that shadows outer names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from znt.index.canonical import canonical_type, refine_kind
from znt.index.languages import ImportRef, LanguageSpec, query_source
from znt.index.roles import infer_role

MAX_SIGNATURE = 240
MAX_DOC = 1000
MAX_EXPR = 200

SymbolRow = tuple[Any, ...]
RefRow = tuple[Any, ...]
ImportRow = tuple[Any, ...]

_WS = re.compile(r"\s+")
_MODIFIER_LISTS = frozenset({"modifiers", "attribute_list"})
_ANNOTATIONS = frozenset({"decorator", "annotation", "marker_annotation", "attribute"})
_SIMPLE = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*\Z")
_CALL_ARGS = re.compile(r"\((?:[^()]|\([^()]*\))*\)")
_GENERIC_ARGS = re.compile(r"<[^<>()]*>")
_SEPARATORS = re.compile(r"::|\?->|->|\?\.|\\")


@dataclass
class FileFacts:
    """What one file contributes to the index."""

    module_id: str
    module_name: str
    symbols: list[SymbolRow] = field(default_factory=list)
    refs: list[RefRow] = field(default_factory=list)
    imports: list[ImportRow] = field(default_factory=list)
    candidates: list[tuple[Any, ...]] = field(default_factory=list)
    parse_errors: int = 0


@dataclass
class _Def:
    kind: str
    name: str
    node: Any
    start: int
    end: int
    qualifier: str | None = None
    scope_only: bool = False
    parent: _Def | None = None  # what encloses it in the text
    owner: _Def | None = None  # what it belongs to (see Extractor._name)
    qname: str = ""
    id: str = ""
    locals: set[str] = field(default_factory=set)
    type: str = ""  # canonical type; refining the kind never changes it
    role: str = ""

    def __post_init__(self) -> None:
        self.type = canonical_type(self.kind)


def _first(item: tuple[Any, ...]) -> Any:
    return item[0]


def _start_byte(node: Any) -> int:
    return int(node.start_byte)


def _innermost(ordered: list[_Def], positions: list[int]) -> list[_Def | None]:
    """The innermost definition around each of ``positions`` (sorted ascending), in one
    sweep over ``ordered`` (sorted by start, outer before inner; intervals nest)."""
    out: list[_Def | None] = []
    stack: list[_Def] = []
    i, n = 0, len(ordered)
    for pos in positions:
        while i < n and ordered[i].start <= pos:
            d = ordered[i]
            while stack and stack[-1].end <= d.start:
                stack.pop()
            stack.append(d)
            i += 1
        while stack and stack[-1].end <= pos:
            stack.pop()
        out.append(stack[-1] if stack else None)
    return out


def _primary_capture(caps: dict[str, Any]) -> str | None:
    for name in caps:
        if name.startswith(("definition.", "reference.")) or name == "import":
            return name
    return None


def normalize_expr(text: str) -> str:
    """Callee text in one shape for every language: dots between segments, no call
    arguments or generic arguments, no whitespace (``$this->a::b()`` -> ``this.a.b``)."""
    if _SIMPLE.match(text):
        return text[:MAX_EXPR]
    text = _WS.sub("", text)
    for _ in range(3):
        new = _CALL_ARGS.sub("()", text)
        if new == text:
            break
        text = new
    text = _GENERIC_ARGS.sub("", text)
    text = _SEPARATORS.sub(".", text).replace("$", "")
    # A callee captured with its own arguments (PHP, Ruby, Java) names the function.
    while text.endswith("()"):
        text = text[:-2]
    text = text.replace("..", ".").strip(".")
    return text[:MAX_EXPR]


def _text(node: Any) -> str:
    data: bytes = node.text
    return data.decode("utf-8", "replace")


def _collapse(text: str, limit: int) -> str:
    text = _WS.sub(" ", text).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Extractor:
    """Holds the compiled parser and query of one grammar; reused across files."""

    def __init__(self, spec: LanguageSpec, grammar: str) -> None:
        from tree_sitter import Query, QueryCursor
        from tree_sitter_language_pack import get_language, get_parser

        self.spec = spec
        self.language = get_language(grammar)  # type: ignore[arg-type]
        self.parser = get_parser(grammar)  # type: ignore[arg-type]
        self.query = Query(self.language, query_source(spec.name))
        self._cursor_cls = QueryCursor
        # pattern index -> its primary capture (definition/reference/import), or None
        self._primaries: dict[int, str | None] = {}

    def extract(self, path: str, source: bytes) -> FileFacts:
        spec = self.spec
        tree = self.parser.parse(source)
        root = tree.root_node
        module_name = spec.module_name(path)
        facts = FileFacts(module_id=path, module_name=module_name)
        facts.parse_errors = 1 if root.has_error else 0

        defs: dict[tuple[int, int], _Def] = {}
        raw_refs: list[tuple[str, Any]] = []
        locals_: list[Any] = []
        imports: list[tuple[Any, ImportRef]] = []

        cursor = self._cursor_cls(self.query)
        primaries = self._primaries
        for pattern, caps in cursor.matches(root):
            primary = primaries.get(pattern, "")
            if primary == "":
                primary = primaries[pattern] = _primary_capture(caps)
            if primary is None:
                if "local" in caps:
                    locals_.extend(caps["local"])
                continue
            node = caps[primary][0]
            if primary.startswith("reference."):
                target = caps["callee"][0] if "callee" in caps else node
                raw_refs.append((primary[10:], (node, target)))
            elif primary.startswith("definition."):
                names = caps.get("name")
                if not names:
                    continue
                key = (node.start_byte, node.end_byte)
                if key in defs:
                    continue
                kind = primary[len("definition.") :]
                qual = caps.get("qualifier")
                # A wrapper (decorators, export) belongs to the definition it wraps, so
                # references inside it (a decorator call) are attributed to that definition.
                outer = node
                while outer.parent is not None and outer.parent.type in spec.wrapper_types:
                    outer = outer.parent
                defs[key] = _Def(
                    kind=kind,
                    name=_text(names[0]).strip().strip("\"'`"),
                    node=node,
                    start=outer.start_byte,
                    end=node.end_byte,
                    qualifier=normalize_expr(_text(qual[0])) if qual else None,
                    scope_only=kind == "scope",
                )
            elif primary == "import":
                mod = caps.get("import.module")
                if not mod:
                    continue
                name = caps.get("import.name")
                alias = caps.get("import.alias")
                module_text = _text(mod[0]).strip().strip("\"'`<>")
                imports.append(
                    (
                        node,
                        ImportRef(
                            module=module_text,
                            name="*"
                            if "import.wildcard" in caps
                            else (_text(name[0]).strip() if name else None),
                            alias=_text(alias[0]).strip() if alias else None,
                        ),
                    )
                )

        ordered = sorted(defs.values(), key=lambda d: (d.start, -d.end))
        self._nest(ordered)
        self._name(path, ordered)
        self._assign_locals(ordered, locals_)
        symbols_by_qname = {d.qname: d for d in ordered if not d.scope_only}

        # The module node of the file: a namespace that contains its top-level symbols.
        facts.symbols.append(self._module_row(path, module_name, root, source))
        for d in ordered:
            if not d.scope_only:
                facts.symbols.append(self._symbol_row(path, d, source))

        facts.refs = self._refs(path, ordered, raw_refs, symbols_by_qname, imports)
        for node, imp in imports:
            line = node.start_point[0] + 1
            local = spec.local_name(imp)
            facts.imports.append((path, line, imp.module, imp.name, imp.alias, local))
            for prio, cand in enumerate(spec.import_candidates(path, imp)):
                facts.candidates.append(
                    (path, line, local, prio, cand.path, cand.mode, cand.member)
                )
        return facts

    # -- structure ---------------------------------------------------------------------

    @staticmethod
    def _nest(ordered: list[_Def]) -> None:
        stack: list[_Def] = []
        for d in ordered:
            while stack and stack[-1].end <= d.start:
                stack.pop()
            d.parent = stack[-1] if stack else None
            stack.append(d)

    def _name(self, path: str, ordered: list[_Def]) -> None:
        """Qualified names, owners, refined kinds and ids.

        The lexical ``parent`` (what encloses a definition in the text) and the ``owner``
        (what it belongs to) differ for a method written outside its class (C++
        ``void Foo::bar()``, a Go receiver ``func (f *Foo) bar()``) and for a method in a
        Rust ``impl Foo`` block: its owner is the class ``Foo`` when this file defines it.
        """
        spec = self.spec
        for d in ordered:
            prefix = d.parent.qname + "." if d.parent is not None else ""
            if d.qualifier:
                d.qname = f"{prefix}{d.qualifier}.{d.name}"
            else:
                d.qname = f"{prefix}{d.name}"
        by_qname: dict[str, _Def] = {}
        for d in ordered:
            if not d.scope_only:
                by_qname.setdefault(d.qname, d)
        seen: dict[str, int] = {}
        for d in ordered:
            owner = d.parent
            if d.qualifier:
                cls = by_qname.get(d.qname[: -len(d.name) - 1])
                if cls is not None and cls.type == "declaration":
                    owner = cls
            while owner is not None and owner.scope_only:
                twin = by_qname.get(owner.qname)
                if twin is not None:
                    owner = twin
                    break
                owner = owner.parent
            d.owner = owner
            d.kind = refine_kind(
                d.kind,
                d.name,
                owner.type if owner else None,
                spec.constructor_names,
                spec.uppercase_constants,
            )
            if d.qualifier and d.kind == "function":
                d.kind = "method"
            if d.scope_only:
                continue
            n = seen.get(d.qname, 0) + 1
            seen[d.qname] = n
            base_id = f"{path}::{d.qname}"
            d.id = base_id if n == 1 else f"{base_id}#{n}"

    def _assign_locals(self, ordered: list[_Def], locals_: list[Any]) -> None:
        locals_ = sorted(locals_, key=_start_byte)
        for node, owner in zip(
            locals_, _innermost(ordered, [n.start_byte for n in locals_]), strict=True
        ):
            while owner is not None and owner.type != "function":
                owner = owner.parent if owner.type not in ("declaration", "namespace") else None
            if owner is not None:
                owner.locals.add(_text(node))

    # -- rows --------------------------------------------------------------------------

    def _module_row(self, path: str, module_name: str, root: Any, source: bytes) -> SymbolRow:
        lines = source.count(b"\n") + (0 if source.endswith(b"\n") or not source else 1)
        doc = self._module_doc(root)
        return (
            path,  # id
            path,  # file
            _module_short_name(path, module_name),  # name
            module_name,  # qualified name
            "namespace",
            "module",
            None,  # parent
            1,
            max(lines, 1),
            0,
            len(source),
            "",
            doc,
            infer_role(self.spec, path, module_name, "namespace", "module", None, ()),
        )

    def _symbol_row(self, path: str, d: _Def, source: bytes) -> SymbolRow:
        node = d.node
        p = d.owner
        parent_id = p.id if p is not None else path
        decorators = self._decorators(node)
        signature = self._signature(node, source)
        parent_role = None
        if p is not None:
            parent_role = infer_role(
                self.spec, path, p.qname, p.type, p.kind, None, self._decorators(p.node)
            )
        return (
            d.id,
            path,
            d.name,
            d.qname,
            d.type,
            d.kind,
            parent_id,
            node.start_point[0] + 1,
            _end_line(node, source),
            node.start_byte,
            node.end_byte,
            signature,
            self._doc(node),
            infer_role(
                self.spec, path, d.qname, d.type, d.kind, parent_role, decorators, signature
            ),
        )

    def _signature(self, node: Any, source: bytes) -> str:
        body = None
        for fname in self.spec.body_fields:
            body = node.child_by_field_name(fname)
            if body is not None:
                break
        end = body.start_byte if body is not None and body.start_byte > node.start_byte else None
        if end is None:
            nl = source.find(b"\n", node.start_byte, node.end_byte)
            end = nl if nl != -1 else node.end_byte
        text = source[node.start_byte : end].decode("utf-8", "replace")
        return _collapse(text.rstrip().rstrip(":{").rstrip(), MAX_SIGNATURE)

    def _decorators(self, node: Any) -> tuple[str, ...]:
        """Decorator and annotation names of a definition: on a wrapper around it (Python
        ``decorated_definition``, a TS ``export``), or in its own modifier list (Java and
        Kotlin ``@Service``, C# ``[Fact]``)."""
        holders = []
        parent = node.parent
        if parent is not None and parent.type in self.spec.wrapper_types:
            holders.append(parent)
        holders.extend(c for c in node.children if c.type in _MODIFIER_LISTS)
        out = []
        for holder in holders:
            for child in holder.children:
                if child.type in _ANNOTATIONS:
                    out.append(normalize_expr(_text(child).lstrip("@").strip("[]")))
                elif child.type == "attribute_list":  # C#: [A, B(x)]
                    out.extend(
                        normalize_expr(_text(a))
                        for a in child.named_children
                        if a.type == "attribute"
                    )
        return tuple(out)

    def _doc(self, node: Any) -> str:
        spec = self.spec
        if spec.docstrings:
            doc = _docstring(node.child_by_field_name("body"))
            if doc:
                return doc
        target = node
        while target.parent is not None and target.parent.type in spec.wrapper_types:
            target = target.parent
        comments: list[str] = []
        line = target.start_point[0]
        prev = target.prev_sibling
        while (
            prev is not None and prev.type in spec.comment_types and prev.end_point[0] >= line - 1
        ):
            comments.append(_text(prev))
            line = prev.start_point[0]
            prev = prev.prev_sibling
        if not comments:
            return ""
        return _collapse(" ".join(_strip_comment(c) for c in reversed(comments)), MAX_DOC)

    def _module_doc(self, root: Any) -> str:
        return _docstring(root) if self.spec.docstrings else ""

    # -- references --------------------------------------------------------------------

    def _refs(
        self,
        path: str,
        ordered: list[_Def],
        raw_refs: list[tuple[str, Any]],
        symbols: dict[str, _Def],
        imports: list[tuple[Any, ImportRef]],
    ) -> list[RefRow]:
        spec = self.spec
        imported = {spec.local_name(imp).split(".")[0] for _n, imp in imports}
        items = sorted(
            ((node.start_byte, kind, node, target) for kind, (node, target) in raw_refs), key=_first
        )
        scopes = _innermost(ordered, [it[0] for it in items])
        rows: dict[tuple[str, str, str], list[Any]] = {}
        for (_pos, kind, node, target), scope in zip(items, scopes, strict=True):
            expr = normalize_expr(_text(target))
            if not expr:
                continue
            while scope is not None and scope.scope_only:
                scope = scope.parent
            src = scope
            if kind in ("inherits", "implements") and scope is not None:
                # A base-class reference sits inside the class it belongs to; it is looked
                # up from the scope around that class.
                scope = scope.parent
            src_id = src.id if src is not None else path
            key = (src_id, kind, expr)
            row = rows.get(key)
            if row is not None:
                row[6] += 1
                continue
            target_id, resolution = self._resolve_local(expr, scope, symbols, imported)
            if resolution == "constructor" and kind != "call":
                resolution = "same_scope"
            point = node.start_point
            rows[key] = [
                path,
                src_id,
                kind,
                expr,
                point[0] + 1,
                point[1] + 1,
                1,
                target_id,
                resolution,
            ]
        return [tuple(r) for r in rows.values()]

    def _resolve_local(
        self,
        expr: str,
        scope: _Def | None,
        symbols: dict[str, _Def],
        imported: set[str],
    ) -> tuple[str | None, str | None]:
        """Resolve what the file alone makes certain; leave the rest to the SQL pass.

        Returns ``(target_id, resolution)``; ``(None, "local")`` marks a call through a
        local variable or parameter, which is never bound to a same-named symbol.
        """
        spec = self.spec
        parts = expr.split(".")
        head = parts[0]
        if head in spec.self_names and len(parts) == 2:
            cls = _enclosing_class(scope)
            if cls is not None:
                hit = symbols.get(f"{cls}.{parts[1]}")
                if hit is not None and hit.type in ("function", "member"):
                    return hit.id, "self_method"
            return None, None
        s = scope
        while s is not None:
            if head in s.locals:
                return None, "local"
            s = s.parent
        if head in imported:
            return None, None
        # The innermost scope that defines the name wins. Class bodies (and Rust impl
        # blocks) are not scopes for bare names unless the language says so.
        s = scope
        while s is not None:
            visible = spec.class_scope_visible or (s.type != "declaration" and not s.scope_only)
            if visible:
                hit = symbols.get(f"{s.qname}.{expr}")
                if hit is not None and hit.type in ("function", "declaration"):
                    return hit.id, _resolution_for(hit)
            owner = s.owner
            if spec.class_scope_visible and owner is not None and owner is not s.parent:
                hit = symbols.get(f"{owner.qname}.{expr}")
                if hit is not None and hit.type in ("function", "declaration"):
                    return hit.id, _resolution_for(hit)
            s = s.parent
        hit = symbols.get(expr)
        if hit is not None and hit.type in ("function", "declaration"):
            return hit.id, _resolution_for(hit)
        return None, None


def _enclosing_class(scope: _Def | None) -> str | None:
    """The qualified name of the class a ``self``/``this`` refers to from ``scope``."""
    s = scope
    while s is not None:
        if s.type == "function" and s.owner is not None and s.owner is not s.parent:
            return s.owner.qname
        if s.type == "function" and s.qualifier:
            return s.qname[: -len(s.name) - 1]
        if s.type == "declaration" or s.scope_only:
            return s.qname
        s = s.parent
    return None


def _resolution_for(target: _Def) -> str:
    return "constructor" if target.type == "declaration" else "same_scope"


def _module_short_name(path: str, module_name: str) -> str:
    """``models`` for ``app.core.models``; ``user.service`` for ``user.service.ts`` (whose
    module name is its file stem, dots and all)."""
    stem = path.rsplit("/", 1)[-1]
    stem = stem.rsplit(".", 1)[0] if "." in stem else stem
    if not module_name or module_name == stem:
        return stem
    return module_name.rsplit(".", 1)[-1]


def _end_line(node: Any, source: bytes) -> int:
    """The last line holding text of ``node``: a node that ends with its newline (a
    Markdown section, a make rule) would otherwise end on the following line."""
    end = node.end_byte
    start = node.start_byte
    while end > start and source[end - 1 : end] in (b" ", b"\t", b"\r", b"\n"):
        end -= 1
    if end == node.end_byte:
        return int(node.end_point[0]) + 1
    return int(node.start_point[0]) + 1 + source.count(b"\n", start, end)


def _docstring(body: Any) -> str:
    """The string literal that opens a body, if any (Python's docstring convention)."""
    if body is None or not body.named_child_count:
        return ""
    first = body.named_children[0]
    if first.type == "expression_statement" and first.named_child_count:
        first = first.named_children[0]
    if first.type != "string":
        return ""
    return _collapse(_strip_string(_text(first)), MAX_DOC)


def _strip_string(text: str) -> str:
    text = text.lstrip("rRbBuUfF")
    for q in ('"""', "'''", '"', "'"):
        if text.startswith(q) and text.endswith(q) and len(text) >= 2 * len(q):
            return text[len(q) : -len(q)].strip()
    return text


def _strip_comment(text: str) -> str:
    text = text.strip()
    for prefix in ("///", "//!", "//", "#", "--", ";"):
        if text.startswith(prefix):
            return text[len(prefix) :].strip()
    if text.startswith("/*"):
        text = text[2:]
        text = text[:-2] if text.endswith("*/") else text
        lines = [ln.strip().lstrip("*").strip() for ln in text.splitlines()]
        return " ".join(ln for ln in lines if ln)
    return text
