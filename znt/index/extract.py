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
* ``@export`` with ``@export.value`` (a name the file defines) and ``@export.name`` (the name
  it is exported as; default: its own) or ``@export.default`` (the module's default export):
  an ``exports`` row, which the resolver reads for an import of that name.
* ``@receiver``: a method's receiver name (Go ``func (s *Square)``): inside the method it is
  what ``self`` is, so ``s.Len()`` is ``Square.Len`` when this file defines it.
* ``@reference.super``: a call on the language's super keyword (``super.m()``, ``base.M()``,
  ``parent::m()``): ``m`` is looked up in the bases of the enclosing class, after it.
* ``@reference.iterate``: the iterable of a loop (its ``__iter__``/``__next__`` are called
  when a binding says which class it is an instance of).
* ``@reference.decorator``: a decorator; it is called by the code around the definition it
  decorates (the module, the class body), so it is attributed to that scope.
* ``@binding`` with ``@binding.name`` and ``@binding.instance`` (the name holds an instance of
  that class: ``x = Cls()``, ``x: Cls``, ``self.x = Cls()``) or ``@binding.alias`` (the name
  is another name: ``f = g``); ``@binding.names`` / ``@binding.values`` bind a tuple pairwise
  (``a, b = f, g``). A call through a bound name is rewritten to the bound value (``x.m`` ->
  ``Cls.m``), flow-insensitively: several values bound to one name make every rewrite a
  candidate (resolution ``ambiguous``). Bindings are used only when the query has them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from znt.index.canonical import refine_kind
from znt.index.languages import ImportRef, LanguageSpec, query_source
from znt.index.roles import infer_role
from znt.index.syntax import (
    ALIASES,
    DECLARES,
    DEFAULT_EXPORT,
    EXPORTS,
    MAX_DOC,
    MAX_SIGNATURE,
    MEMBER_HINTS,
    RETURNS,
    Def,
    Value,
    collapse,
    enclosing_class,
    first,
    innermost,
    node_text,
    normalize_expr,
    start_byte,
)
from znt.index.typeflow import RefRow, TypeFlow, container_items, name_lambdas

SymbolRow = tuple[Any, ...]
# A reference as the bindings do not change it (``Extractor._ref_preps``): its kind, callee
# text, the scope it is read from, its source definition and that one's id, the definition
# it decorates, and the declaration in sight of its head (``_site_of``).
_RefPrep = tuple[str, str, Def | None, Def | None, str, Def | None, tuple[str, int, int] | None]
ImportRow = tuple[Any, ...]

_MODIFIER_LISTS = frozenset({"modifiers", "attribute_list"})
_ANNOTATIONS = frozenset({"decorator", "annotation", "marker_annotation", "attribute"})


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
    # Why part of the file was not indexed (the nesting bound), for the scan's warnings.
    warning: str | None = None


class Extractor(TypeFlow):
    """Holds the compiled parser and query of one grammar; reused across files."""

    def __init__(self, spec: LanguageSpec, grammar: str) -> None:
        from tree_sitter import Query, QueryCursor
        from tree_sitter_language_pack import get_language, get_parser

        self.spec = spec
        self.language = get_language(grammar)  # type: ignore[arg-type]
        self.parser = get_parser(grammar)  # type: ignore[arg-type]
        self.query = Query(self.language, query_source(spec.name))
        # Type flow (bindings, ``self`` calls through bases, ``super()``) is on for the
        # languages whose query names bindings.
        self.flow = any(
            self.query.capture_name(i) == "binding" for i in range(self.query.capture_count)
        )
        self._bindings: dict[tuple[str, str], list[Value]] = {}
        self._bound_names: set[str] = set()
        self._bound: dict[tuple[str, str], set[tuple[str, bool, int | None]]] = {}
        # (scope key, container name) -> the values of its literal items (``d["a"]``, ...)
        self._items: dict[tuple[str, str], list[Value]] = {}
        self._symbols: dict[str, Def] = {}
        self._by_id: dict[str, Def] = {}
        self._imported: set[str] = set()
        self._lambda_at: dict[int, Def] = {}
        # _rewrite's answers while the bindings do not change (cleared when they do).
        self._rw_cache: dict[tuple[Any, ...], list[tuple[str, str | None]]] = {}
        # The declaration in sight of the reference being read, for a name its function
        # declares more than once: (name, where that declaration starts).
        self._site: tuple[str, int, int] | None = None
        # The reference ``_ref_rows`` is resolving (what ``this`` is depends on the
        # functions around it, not all of which are definitions).
        self._ref_node: Any = None
        # Names bound by a function no definition owns (a callback at the top of a file):
        # name -> the (start, end) bytes of the nodes they are bound in
        # (``LanguageSpec.local_scopes``).
        self._loose_locals: dict[str, list[tuple[int, int]]] = {}
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

        defs: dict[tuple[int, int], Def] = {}
        raw_refs: list[tuple[str, Any]] = []
        locals_: list[Any] = []
        receivers: list[Any] = []
        imports: list[tuple[Any, ImportRef]] = []
        bindings: list[tuple[int, str, Value]] = []
        exports: list[dict[str, Any]] = []

        spec.syntax.start_file()
        cursor = self._cursor_cls(self.query)
        # Matches start at most MAX_QUERY_DEPTH levels down: matching cost grows with the
        # square of the nesting (40 KB of nested JS functions took 21 s), so hostile or
        # generated nesting is bounded here and reported by the definition bound below.
        cursor.set_max_start_depth(MAX_QUERY_DEPTH)
        primaries = self._primaries
        for pattern, caps in cursor.matches(root):
            primary = primaries.get(pattern, "")
            if primary == "":
                primary = primaries[pattern] = _primary_capture(caps)
            if primary is None:
                if "local" in caps:
                    locals_.extend(caps["local"])
                if "receiver" in caps:
                    receivers.extend(caps["receiver"])
                continue
            node = caps[primary][0]
            if primary.startswith("reference."):
                target = caps["callee"][0] if "callee" in caps else node
                raw_refs.append((primary[10:], (node, target)))
            elif primary.startswith("definition."):
                names = caps.get("name")
                if not names and primary != "definition.lambda":
                    continue
                key = (node.start_byte, node.end_byte)
                if key in defs:
                    if "alias" in caps:
                        defs[key].aliases.extend(caps["alias"])
                    continue
                kind = primary[len("definition.") :]
                qual = caps.get("qualifier")
                # ``start`` becomes the wrapper's start below, once too-deep definitions
                # are gone (finding a node's parent costs its depth in the tree).
                defs[key] = Def(
                    kind=kind,
                    name=node_text(names[0]).strip().strip("\"'`") if names else "<lambda>",
                    node=node,
                    start=node.start_byte,
                    end=node.end_byte,
                    qualifier=normalize_expr(node_text(qual[0])) if qual else None,
                    scope_only=kind == "scope",
                    this_object=caps["this_object"][0].start_byte
                    if "this_object" in caps
                    else None,
                    aliases=list(caps.get("alias", ())),
                )
            elif primary == "binding":
                bindings.extend(spec.syntax.bindings(node, caps))
            elif primary == "export":
                exports.append(caps)
            elif primary == "import":
                mod = caps.get("import.module")
                if not mod:
                    continue
                name = caps.get("import.name")
                alias = caps.get("import.alias")
                module_text = node_text(mod[0]).strip().strip("\"'`<>")
                imports.append(
                    (
                        node,
                        ImportRef(
                            module=module_text,
                            name="*"
                            if "import.wildcard" in caps
                            else (node_text(name[0]).strip() if name else None),
                            alias=node_text(alias[0]).strip() if alias else None,
                        ),
                    )
                )

        ordered, facts.warning = _within_depth(defs)
        for d in ordered:
            # A wrapper (decorators, export) belongs to the definition it wraps, so
            # references inside it (a decorator call) are attributed to that definition.
            outer = d.node
            while outer.parent is not None and outer.parent.type in spec.wrapper_types:
                outer = outer.parent
            d.start = outer.start_byte
        ordered.sort(key=lambda d: (d.start, -d.end))
        self._nest(ordered)
        self._lambda_at = name_lambdas(ordered)
        self._name(path, ordered)
        self._assign_locals(ordered, locals_)
        _assign_receivers(ordered, receivers)
        self._bindings = self._scope_bindings(ordered, bindings)
        self._bound_names = {name for _scope, name in self._bindings}
        self._bound = {}
        self._items = container_items(self._bindings)
        symbols_by_qname = {d.qname: d for d in ordered if not d.scope_only}
        aliases = _alias_names(ordered, symbols_by_qname)
        self._symbols = symbols_by_qname
        self._by_id = {d.id: d for d in ordered if not d.scope_only}
        self._imported = {spec.local_name(imp).split(".")[0] for _n, imp in imports}

        # The module node of the file: a namespace that contains its top-level symbols.
        facts.symbols.append(self._module_row(path, module_name, root, source))
        owner_roles: dict[int, str] = {}
        for d in ordered:
            if not d.scope_only:
                facts.symbols.append(self._symbol_row(path, d, source, owner_roles))

        facts.refs = self._refs(path, ordered, raw_refs, symbols_by_qname, imports)
        facts.refs.extend(_export_rows(path, exports, symbols_by_qname))
        facts.refs.extend(
            (path, d.id, ALIASES, name, line, 1, 1, d.id, "same_scope") for name, d, line in aliases
        )
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
    def _nest(ordered: list[Def]) -> None:
        stack: list[Def] = []
        for d in ordered:
            while stack and stack[-1].end <= d.start:
                stack.pop()
            d.parent = stack[-1] if stack else None
            stack.append(d)

    def _name(self, path: str, ordered: list[Def]) -> None:
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
        by_qname: dict[str, Def] = {}
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

    def _assign_locals(self, ordered: list[Def], locals_: list[Any]) -> None:
        """A local belongs to the function definition around it. One that no definition
        owns (a parameter of an anonymous callback at the top of a file, ``app.get('/',
        function (req, res) { res.send() })``) is kept with the node it is bound in, so a
        call through it reads as ``local`` there, not as a global name."""
        locals_ = sorted(locals_, key=start_byte)
        loose: dict[str, list[tuple[int, int]]] = {}
        self._loose_locals = loose
        scopes = self.spec.local_scopes
        for node, owner in zip(
            locals_, innermost(ordered, [n.start_byte for n in locals_]), strict=True
        ):
            while owner is not None and owner.type != "function":
                owner = owner.parent if owner.type not in ("declaration", "namespace") else None
            if owner is not None:
                owner.locals.add(node_text(node))
            elif scopes:
                region = node.parent
                while region is not None and region.type not in scopes:
                    region = region.parent
                if region is not None:
                    loose.setdefault(node_text(node), []).append(
                        (int(region.start_byte), int(region.end_byte))
                    )

    def _loose_local(self, expr: str, node: Any) -> bool:
        """Whether the head of ``expr`` is a local no definition owns, in sight at ``node``."""
        spans = self._loose_locals.get(expr.split(".", 1)[0].removesuffix("()"))
        if not spans:
            return False
        pos = node.start_byte
        return any(start <= pos < end for start, end in spans)

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

    def _symbol_row(
        self, path: str, d: Def, source: bytes, owner_roles: dict[int, str]
    ) -> SymbolRow:
        """``owner_roles``: the role each owner's name and decorators give its members, by
        the owner's ``id()``, found once per owner of the file (a class's members each
        asked again: a quarter of this function's time)."""
        node = d.node
        p = d.owner
        parent_id = p.id if p is not None else path
        decorators = self._decorators(node)
        signature = self._signature(node, source)
        parent_role = None
        if d.qualifier and d.type == "function" and (p is None or p.type != "declaration"):
            # ``void Foo::bar() {}`` whose class another file (its header) declares: it
            # plays the role the class's name gives it, as it would inside the class.
            cls = d.qname[: -len(d.name) - 1]
            parent_role = infer_role(self.spec, path, cls, "declaration", "class", None, ())
        elif p is not None:
            parent_role = owner_roles.get(id(p))
            if parent_role is None:
                parent_role = owner_roles[id(p)] = infer_role(
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
        if end is not None:
            # A comment between the header and the body (``class A:  # note``, a comment
            # opening a Python body) is no part of the signature.
            comments = self.spec.comment_types
            for child in node.children:
                if child.start_byte >= end:
                    break
                if child.type in comments:
                    end = child.start_byte
                    break
        if end is None:
            nl = source.find(b"\n", node.start_byte, node.end_byte)
            end = nl if nl != -1 else node.end_byte
        text = source[node.start_byte : end].decode("utf-8", "replace")
        return collapse(text.rstrip().rstrip(":{").rstrip(), MAX_SIGNATURE)

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
                    out.append(normalize_expr(node_text(child).lstrip("@").strip("[]")))
                elif child.type == "attribute_list":  # C#: [A, B(x)]
                    out.extend(
                        normalize_expr(node_text(a))
                        for a in child.named_children
                        if a.type == "attribute"
                    )
        return tuple(out)

    def _doc(self, node: Any) -> str:
        spec = self.spec
        if spec.docstrings:
            doc = spec.syntax.docstring(node.child_by_field_name("body"))
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
            comments.append(node_text(prev))
            line = prev.start_point[0]
            prev = prev.prev_sibling
        if not comments:
            return ""
        return collapse(" ".join(_strip_comment(c) for c in reversed(comments)), MAX_DOC)

    def _module_doc(self, root: Any) -> str:
        return self.spec.syntax.docstring(root) if self.spec.docstrings else ""

    # -- references --------------------------------------------------------------------

    def _refs(
        self,
        path: str,
        ordered: list[Def],
        raw_refs: list[tuple[str, Any]],
        symbols: dict[str, Def],
        imports: list[tuple[Any, ImportRef]],
    ) -> list[RefRow]:
        spec = self.spec
        imported = {spec.local_name(imp).split(".")[0] for _n, imp in imports}
        items = sorted(
            ((node.start_byte, kind, node, target) for kind, (node, target) in raw_refs), key=first
        )
        scopes = innermost(ordered, [it[0] for it in items])
        # Type flow: arguments bind the parameters of the functions of this file they are
        # passed to, which can change how calls inside those functions read: a few rounds.
        preps = self._ref_preps(path, items, scopes, symbols)
        for _round in range(4 if self.flow else 1):
            rows, added = self._ref_rows(path, items, scopes, preps, symbols, imported)
            if not added:
                break
        out = [tuple(r) for r in rows.values()]
        if self.flow:
            out.extend(self._return_rows(path, ordered))
            out.extend(self._stub_rows(path, ordered))
            out.extend(self._decorator_rows(path, items, scopes, preps, symbols, imported))
        return out

    def _decorator_rows(
        self,
        path: str,
        items: list[tuple[int, str, Any, Any]],
        scopes: list[Def | None],
        preps: list[_RefPrep | None],
        symbols: dict[str, Def],
        imported: set[str],
    ) -> list[tuple[Any, ...]]:
        """Facts for the resolver's wrapper rule (never edges, znt/graph/resolve.py): a
        ``decorated`` row for each plain decorator name of a function (``@setupmethod``, not
        ``@route("/")``), from the function, with what the file alone resolves it to; a
        ``wraps`` row for a function nested in another that calls the outer one's first
        parameter (``def dec(f): def inner(): f()``), from the outer one. A decorator from
        another file replaces the function with its wrapper just as a local one does, which
        the type flow of one file cannot see.

        Whether a call is in a decorator is read from its ``_ref_preps`` entry (its
        ``decorated``), which looked at the node's parent already, and references that are
        neither calls nor decorators are passed over first: this loop sees every reference
        of the file. A reference without callee text (no entry) gives neither row."""
        rules = self.spec.syntax
        out: dict[tuple[str, str, str], tuple[Any, ...]] = {}
        for (_pos, kind, node, target), scope, prep in zip(items, scopes, preps, strict=True):
            if prep is None or kind not in ("call", "decorator"):
                continue
            while scope is not None and scope.scope_only:
                scope = scope.parent
            if scope is None or scope.type != "function":
                continue
            if prep[5] is None:  # a call that applies no decorator
                outer = scope.parent
                while outer is not None and outer.scope_only:
                    outer = outer.parent
                if kind != "call" or outer is None or outer.type != "function":
                    continue
                first_param = rules.parameters(outer.node)[:1]
                if first_param and normalize_expr(rules.callee_text(target)) == first_param[0]:
                    point = node.start_point
                    key = (outer.id, "wraps", scope.id)
                    out.setdefault(
                        key,
                        (
                            path,
                            outer.id,
                            "wraps",
                            scope.qname,
                            point[0] + 1,
                            point[1] + 1,
                            1,
                            scope.id,
                            None,
                        ),
                    )
                continue
            if node.type in rules.call_types or target.type in rules.call_types:
                continue  # ``@route("/")``: what a call returns decorates
            expr = normalize_expr(rules.callee_text(target))
            if not expr:
                continue
            around = scope.parent
            while around is not None and around.scope_only:
                around = around.parent
            target_id, resolution = self._resolve_local(expr, around, symbols, imported)
            point = node.start_point
            out.setdefault(
                (scope.id, "decorated", expr),
                (
                    path,
                    scope.id,
                    "decorated",
                    expr,
                    point[0] + 1,
                    point[1] + 1,
                    1,
                    target_id,
                    resolution,
                ),
            )
        return list(out.values())

    def _stub_rows(self, path: str, ordered: list[Def]) -> list[tuple[Any, ...]]:
        """``abstract`` rows: the methods whose body is a stub (never edges; the resolver
        sends a call bound to one to its overrides, znt/graph/resolve.py)."""
        rules = self.spec.syntax
        out: list[tuple[Any, ...]] = []
        for d in ordered:
            if d.type != "function" or d.scope_only or d.owner is None:
                continue
            if d.owner.type == "declaration" and rules.is_stub(d.node):
                line = d.node.start_point[0] + 1
                out.append((path, d.id, "abstract", d.qname, line, 1, 1, None, None))
        return out

    def _ref_rows(
        self,
        path: str,
        items: list[tuple[int, str, Any, Any]],
        scopes: list[Def | None],
        preps: list[_RefPrep | None],
        symbols: dict[str, Def],
        imported: set[str],
    ) -> tuple[dict[tuple[Any, ...], list[Any]], bool]:
        added = False
        self._rw_cache = {}
        rules = self.spec.syntax
        rows: dict[tuple[Any, ...], list[Any]] = {}
        for (_pos, kind, node, _target), scope, prep in zip(items, scopes, preps, strict=True):
            if prep is None:
                continue
            self._ref_node = node  # before the ``passed`` check below resolves with it
            if kind == "passed":
                # A function handed to a builtin that calls it: a call by the code around,
                # unless the builtin's name is bound to something else here.
                fn = rules.receiving_function(node)
                if fn is None or fn in imported:
                    continue
                if self._resolve_local(fn, scope, symbols, imported) != (None, None):
                    continue
                if self._rewrite(fn, scope, symbols) != [(fn, None)]:
                    continue
            kind, expr, scope, src, src_id, decorated, self._site = prep
            variants: list[tuple[str, str | None]]
            if kind == "iterate":
                # ``for x in v``: calls ``__iter__`` and ``__next__`` (the language's
                # ``iterate_methods``) of what ``v`` holds, when that is known to be an
                # instance of a class; nothing otherwise.
                kind = "call"
                variants = [
                    (e, h)
                    for method in rules.iterate_methods
                    for e, h in self._rewrite(f"{expr}.{method}", scope, symbols)
                    if h is not None and h.rstrip("?") == "member"
                ]
            elif kind == "call":
                variants = self._rewrite(expr, scope, symbols)
            elif kind == "super":
                kind = "call"
                variants = [_super_call(expr, scope)]
            elif kind == DECLARES:
                # The declared name, qualified by the namespaces around the prototype.
                variants = [(f"{scope.qname}.{expr}" if scope is not None else expr, None)]
            else:
                variants = [(expr, None)]
            for callee, hint in variants:
                # What ``f`` returns is another callee than ``f`` itself.
                returns = hint is not None and hint.rstrip("?") == RETURNS
                # One row per callee, and per declaration in sight of a name declared twice.
                key = (src_id, kind, callee, returns, self._site)
                row = rows.get(key)
                if row is not None:
                    row[6] += 1
                    if self.flow and kind == "call" and row[7]:
                        added |= self._bind_args(node, row[7], hint, scope, decorated)
                    continue
                if kind == DECLARES:
                    target_id, resolution = None, None  # defined elsewhere: not resolved here
                else:
                    target_id, resolution = self._resolve_hinted(
                        callee, hint, scope, symbols, imported
                    )
                    if (
                        resolution is None
                        and target_id is None
                        and hint is None
                        and self._loose_locals
                        and self._loose_local(callee, node)
                    ):
                        resolution = "local"
                if kind == "implements" and self.spec.mixin_kinds:
                    target_id, resolution = self._resolve_mixin(callee, src, symbols, imported)
                if resolution == "constructor" and kind != "call":
                    resolution = "same_scope"
                point = node.start_point
                rows[key] = [
                    path,
                    src_id,
                    kind,
                    callee,
                    point[0] + 1,
                    point[1] + 1,
                    1,
                    target_id,
                    resolution,
                ]
                if self.flow and kind == "call" and target_id:
                    added |= self._bind_args(node, target_id, hint, scope, decorated)
        self._site = None
        self._ref_node = None
        return rows, added

    def _ref_preps(
        self,
        path: str,
        items: list[tuple[int, str, Any, Any]],
        scopes: list[Def | None],
        symbols: dict[str, Def],
    ) -> list[_RefPrep | None]:
        """What each reference is before the bindings come in (its callee text, the scope
        it is read from, the definition it is attributed to): the same in every round of
        ``_refs``, so worked out once. ``None`` for a reference with no callee text."""
        rules = self.spec.syntax
        out: list[_RefPrep | None] = []
        for (_pos, kind, node, target), scope in zip(items, scopes, strict=True):
            if kind == "passed":
                kind = "call"  # when ``_ref_rows`` finds that the builtin calls it
            calls = 0
            if self.flow and kind != "iterate":
                # Calling what a call returns (``factory()()``, ``f()()()``): one ``()`` per
                # call in the chain, around the innermost callee.
                while target.type in rules.call_types and calls < 3:
                    inner = target.child_by_field_name(rules.call_function_field)
                    if inner is None:
                        break
                    target, calls = inner, calls + 1
            expr = normalize_expr(rules.callee_text(target))
            if not expr:
                out.append(None)
                continue
            if calls:
                expr += "()" * calls
            elif kind == "iterate" and target.type in rules.call_types:
                expr += "()"  # iterating over what a call returns
            if kind in ("inherits", "implements") and scope is not None and scope.scope_only:
                # ``impl Trait for Type`` (a scope): the reference belongs to the type the
                # scope names, when this file declares it.
                twin = symbols.get(scope.qname)
                if twin is not None and twin.type == "declaration":
                    scope = twin
            while scope is not None and scope.scope_only:
                scope = scope.parent
            src = scope
            if kind in ("inherits", "implements") and scope is not None:
                # A base-class reference sits inside the class it belongs to; it is looked
                # up from the scope around that class.
                scope = scope.parent
            decorated: Def | None = None
            if kind == "decorator" or (
                self.flow
                and kind == "call"
                and node.parent is not None
                and node.parent.type in rules.decorator_types
            ):
                # Applying a decorator is a call made by the code around the definition.
                kind = "call"
                decorated = scope
                if scope is not None:
                    scope = src = scope.parent
                    while scope is not None and scope.scope_only:
                        scope = src = scope.parent
            src_id = src.id if src is not None else path
            site = self._site_of(expr, scope, node) if self.flow else None
            out.append((kind, expr, scope, src, src_id, decorated, site))
        return out

    def _site_of(self, expr: str, scope: Def | None, node: Any) -> tuple[str, int, int] | None:
        """(head, declaration in sight, the function) when the function around ``node`` declares the
        head of ``expr`` more than once (``SyntaxRules.declaration_site``), else None."""
        fn = scope
        while fn is not None and fn.type != "function":
            fn = fn.parent
        if fn is None:
            return None
        head = expr.split(".", 1)[0]
        site = self.spec.syntax.declaration_site(fn.node, head, int(node.start_byte))
        return None if site is None else (head, site, id(fn))

    def _resolve_mixin(
        self,
        expr: str,
        cls: Def | None,
        symbols: dict[str, Def],
        imported: set[str],
    ) -> tuple[str | None, str | None]:
        """A mixin (``include Pricing``, a statement of the class body): looked up from the
        class outwards, where the innermost definition of the name decides; it is bound when
        that is a declaration or of one of the language's ``mixin_kinds`` (a Ruby module)."""
        if expr.split(".")[0] in imported:
            return None, None
        s = cls
        while True:
            hit = symbols.get(f"{s.qname}.{expr}" if s is not None else expr)
            if hit is not None:
                if hit.type == "declaration" or hit.kind in self.spec.mixin_kinds:
                    return hit.id, "same_scope"
                return None, None
            if s is None:
                return None, None
            s = s.parent

    def _resolve_hinted(
        self,
        expr: str,
        hint: str | None,
        scope: Def | None,
        symbols: dict[str, Def],
        imported: set[str],
    ) -> tuple[str | None, str | None]:
        """``_resolve_local`` for a callee rewritten through a binding."""
        if hint is None:
            return self._resolve_local(expr, scope, symbols, imported)
        ambiguous = hint.endswith("?")
        base = hint.rstrip("?")
        if base in MEMBER_HINTS:
            # A method defined in that very class of this file is certain; anything else
            # (a base class, an imported class) is looked up by the resolver.
            hit = symbols.get(expr)
            if base == "member" and hit is not None and hit.type == "function":
                owner = hit.owner
                if owner is not None and owner.type == "declaration":
                    return hit.id, "ambiguous" if ambiguous else "assigned"
            return None, hint
        target, resolution = self._resolve_local(expr, scope, symbols, imported)
        if target is not None:
            return target, "ambiguous" if ambiguous else "assigned"
        if resolution == "local":
            return None, "local"
        return None, hint

    def _resolve_local(
        self,
        expr: str,
        scope: Def | None,
        symbols: dict[str, Def],
        imported: set[str],
    ) -> tuple[str | None, str | None]:
        """Resolve what the file alone makes certain; leave the rest to the SQL pass.

        Returns ``(target_id, resolution)``; ``(None, "local")`` marks a call through a
        local variable or parameter, which is never bound to a same-named symbol.
        """
        spec = self.spec
        parts = expr.split(".")
        head = parts[0]
        receiver = len(parts) == 2 and _is_receiver(head, scope, self._site)
        if (receiver or head in spec.self_names) and len(parts) == 2:
            cls = enclosing_class(scope)
            if cls is not None:
                hit = symbols.get(f"{cls}.{parts[1]}")
                if hit is not None and hit.type in ("function", "member"):
                    return hit.id, "self_method"
            elif self._ref_node is not None:
                hit = _this_object_sibling(
                    scope, parts[1], symbols, self._ref_node, spec.this_binders
                )
                if hit is not None:
                    return hit.id, "self_method"
            if not receiver:
                return None, None
        s = scope
        while s is not None:
            if head in s.locals:
                return None, "local"
            s = s.parent
        if head in imported:
            return None, None
        # The innermost scope that defines the name wins. Class bodies (and Rust impl
        # blocks) are not scopes for bare names unless the language says so; the properties
        # of a named value (a JS object literal's methods) never are.
        s = scope
        while s is not None:
            visible = spec.class_scope_visible or (
                s.type not in ("declaration", "member") and not s.scope_only
            )
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


# Definitions nested deeper than this are not indexed as symbols of their own (what they
# contain is attributed to the deepest one kept). Real code stays far below; deeper nesting is
# generated or hostile, and every level costs the work of the levels around it (tree-sitter
# finds a node's parent by walking down from the root), which made 5,000 nested lambdas in
# 50 KB take minutes.
MAX_DEFINITION_DEPTH = 100
# Tree levels a query match may start at (a definition level is 2-4 tree levels).
MAX_QUERY_DEPTH = 600


def _within_depth(defs: dict[tuple[int, int], Def]) -> tuple[list[Def], str | None]:
    """The definitions in text order without those nested deeper than
    ``MAX_DEFINITION_DEPTH``, and the warning that says so (None when none were dropped)."""
    ordered = sorted(defs.values(), key=lambda d: (d.start, -d.end))
    kept: list[Def] = []
    ends: list[int] = []  # end offsets of the enclosing definitions
    dropped = 0
    for d in ordered:
        while ends and ends[-1] <= d.start:
            ends.pop()
        if len(ends) >= MAX_DEFINITION_DEPTH:
            dropped += 1
            continue
        ends.append(d.end)
        kept.append(d)
    if not dropped:
        return kept, None
    return kept, (
        f"definitions nested more than {MAX_DEFINITION_DEPTH} deep are not indexed "
        f"({dropped} skipped; generated or hostile code?)"
    )


def _this_object_sibling(
    scope: Def | None, name: str, symbols: dict[str, Def], node: Any, binders: tuple[str, ...]
) -> Def | None:
    """``this.name()`` at ``node`` inside a function of an unnamed object literal
    (``this_object``): the object's own function ``name``. ``this`` is that of the nearest
    function around the call that binds one (``binders``: arrow functions take it from
    where they are written); it must be the object's function itself, not a function
    nested in it."""
    if not binders:
        return None
    s = scope
    while s is not None and s.node is not None and s.node.type == "arrow_function":
        s = s.parent
    if s is None or s.this_object is None:
        return None
    fn = node.parent
    while fn is not None and fn.type not in binders:
        fn = fn.parent
    if fn is None or (fn != s.node and fn.parent != s.node):
        return None  # ``fn.parent``: a ``key: function () {}`` pair is the definition
    hit = symbols.get(name)
    if hit is None or hit.type != "function" or hit.this_object != s.this_object:
        return None
    return hit


def _primary_capture(caps: dict[str, Any]) -> str | None:
    for name in caps:
        if name.startswith(("definition.", "reference.")) or name in (
            "import",
            "binding",
            "export",
        ):
            return name
    return None


def _alias_names(ordered: list[Def], symbols: dict[str, Def]) -> list[tuple[str, Def, int]]:
    """The aliases of the file's definitions (``Def.aliases``) that name a member of the
    definition's own object and no definition of the file: added to ``symbols`` (a call of
    the alias in this file binds to the definition), returned as (name, definition, line)
    for the ``aliases`` rows other files read (znt/graph/resolve.py)."""
    out: list[tuple[str, Def, int]] = []
    for d in ordered:
        if not d.aliases or d.qualifier is None or d.scope_only:
            continue
        for node in d.aliases:
            name = normalize_expr(node_text(node))
            if name.rpartition(".")[0] != d.qualifier or name in symbols:
                continue
            symbols[name] = d
            out.append((name, d, int(node.start_point[0]) + 1))
    return out


def _export_rows(path: str, exports: list[dict[str, Any]], symbols: dict[str, Def]) -> list[RefRow]:
    """``exports`` rows (refs of kind ``exports``, never edges): a name the file exports and
    the symbol of the file it stands for (``export default f``, ``module.exports = f``,
    ``export { f as g }``), so an import of that name elsewhere resolves to that symbol."""
    out: list[RefRow] = []
    for caps in exports:
        value = caps.get("export.value")
        if not value:
            continue
        expr = normalize_expr(node_text(value[0]))
        d = symbols.get(expr)
        if d is None or d.type == "namespace":
            continue  # not a definition of this file (an import, a local): not known here
        name = caps.get("export.name")
        exported = (
            DEFAULT_EXPORT
            if "export.default" in caps
            else node_text(name[0]).strip()
            if name
            else expr
        )
        point = caps["export"][0].start_point
        out.append(
            (path, path, EXPORTS, exported, point[0] + 1, point[1] + 1, 1, d.id, "same_scope")
        )
    return out


def _assign_receivers(ordered: list[Def], nodes: list[Any]) -> None:
    """``@receiver`` names (Go ``func (s *Square) Area()``) belong to the method they are
    declared by: inside it they name an instance of its class, as ``self`` does, where no
    other declaration of the name (a closure's parameter, ``s := …`` in a block) is the
    one in sight (``SyntaxRules.declaration_site``)."""
    nodes = sorted(nodes, key=start_byte)
    for node, d in zip(nodes, innermost(ordered, [n.start_byte for n in nodes]), strict=True):
        if d is not None and d.type == "function":
            decl = node.parent if node.parent is not None else node
            d.receivers[node_text(node)] = int(decl.start_byte)


def _is_receiver(head: str, scope: Def | None, site: tuple[str, int, int] | None) -> bool:
    """Whether ``head`` is the receiver of a method around ``scope`` (not shadowed by a
    local of a function nested in it, nor by another declaration in sight: ``site``)."""
    s = scope
    while s is not None:
        if head in s.receivers:
            return site is None or site[0] != head or site[1] == s.receivers[head]
        if head in s.locals:
            return False
        s = s.parent
    return False


def _super_call(expr: str, scope: Def | None) -> tuple[str, str | None]:
    """A ``@reference.super`` call (``super.m()``, ``base.M()``, ``parent::m()``) as the
    member of the enclosing class that ``znt.graph.resolve`` looks up after that class in
    its bases (hint ``super``, as Python's ``super().m()``); unchanged when the receiver is
    more than the keyword or the function around the call is not a method of a class here
    (a method of an anonymous class in a method: ``super`` is that class's base)."""
    parts = expr.split(".")
    fn = scope
    while fn is not None and fn.type != "function":
        fn = fn.parent
    if len(parts) != 2 or fn is None or fn.owner is None or fn.owner.type != "declaration":
        return expr, None
    return f"{fn.owner.qname}.{parts[1]}", "super"


def _resolution_for(target: Def) -> str:
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
