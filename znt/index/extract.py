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

import re
from dataclasses import dataclass, field, replace
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
    receivers: set[str] = field(default_factory=set)  # names that are ``self`` here (Go)
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
        if name.startswith(("definition.", "reference.")) or name in (
            "import",
            "binding",
            "export",
        ):
            return name
    return None


# ``refs.resolution`` hints left for ``znt.graph.resolve`` when ``target`` is NULL: the
# callee was rewritten through a binding (``assigned``), or is a member to look up in a
# class and its bases (``member``: an instance's method; ``self``: a ``self`` call not
# defined in the class itself; ``super``: a ``super()`` call, looked up after the class).
# A trailing ``?`` marks one of several candidates.
MEMBER_HINTS = ("member", "self", "super")


@dataclass
class _Value:
    expr: str  # normalised expression the name is bound to
    instance: bool  # the result of calling ``expr`` (else the name is ``expr`` itself)
    where: Any = field(default=None, compare=False)  # the scope it was bound in (_Def|None)
    # A decorated name (``@dec def f``): what ``dec`` is applied to, so a decorator that
    # returns its own parameter gives back that function, not every function it decorates.
    arg: Any = field(default=None, compare=False)  # _Value | None
    decorator: bool = field(default=False, compare=False)  # ``arg`` was set (see above)


# The name under which a function's returned values are bound in its scope.
RETURN = "()"
# ``refs.kind`` of a name the file exports (``@export``), and the name of a module's
# default export (``@export.default``: what an import that names no member binds).
EXPORTS = "exports"
DEFAULT_EXPORT = "default"
# The hint (and ``refs.kind``) for what a function of another file returns.
RETURNS = "returns"
# ``refs.kind`` of a name the file declares without defining it (``@reference.declares``, a
# C/C++ prototype): a fact for the resolver's include rule, never an edge.
DECLARES = "declares"


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
        # Type flow (bindings, ``self`` calls through bases, ``super()``) is on for the
        # languages whose query names bindings.
        self.flow = any(
            self.query.capture_name(i) == "binding" for i in range(self.query.capture_count)
        )
        self._bindings: dict[tuple[str, str], list[_Value]] = {}
        # (scope key, container name) -> the values of its literal items (``d["a"]``, ...)
        self._items: dict[tuple[str, str], list[_Value]] = {}
        self._symbols: dict[str, _Def] = {}
        self._by_id: dict[str, _Def] = {}
        self._imported: set[str] = set()
        self._lambda_at: dict[int, _Def] = {}
        # _rewrite's answers while the bindings do not change (cleared when they do).
        self._rw_cache: dict[tuple[str, int, int], list[tuple[str, str | None]]] = {}
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
        receivers: list[Any] = []
        imports: list[tuple[Any, ImportRef]] = []
        bindings: list[tuple[int, str, _Value]] = []
        exports: list[dict[str, Any]] = []

        cursor = self._cursor_cls(self.query)
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
                    name=_text(names[0]).strip().strip("\"'`") if names else "<lambda>",
                    node=node,
                    start=outer.start_byte,
                    end=node.end_byte,
                    qualifier=normalize_expr(_text(qual[0])) if qual else None,
                    scope_only=kind == "scope",
                )
            elif primary == "binding":
                bindings.extend(_bindings(node, caps))
            elif primary == "export":
                exports.append(caps)
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
        self._lambda_at = _name_lambdas(ordered)
        self._name(path, ordered)
        self._assign_locals(ordered, locals_)
        _assign_receivers(ordered, receivers, locals_)
        self._bindings = self._scope_bindings(ordered, bindings)
        self._items = _container_items(self._bindings)
        symbols_by_qname = {d.qname: d for d in ordered if not d.scope_only}
        self._symbols = symbols_by_qname
        self._by_id = {d.id: d for d in ordered if not d.scope_only}
        self._imported = {spec.local_name(imp).split(".")[0] for _n, imp in imports}

        # The module node of the file: a namespace that contains its top-level symbols.
        facts.symbols.append(self._module_row(path, module_name, root, source))
        for d in ordered:
            if not d.scope_only:
                facts.symbols.append(self._symbol_row(path, d, source))

        facts.refs = self._refs(path, ordered, raw_refs, symbols_by_qname, imports)
        facts.refs.extend(_export_rows(path, exports, symbols_by_qname))
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

    @staticmethod
    def _scope_bindings(
        ordered: list[_Def], bindings: list[tuple[int, str, _Value]]
    ) -> dict[tuple[str, str], list[_Value]]:
        """Bindings by (scope key, name): a function's id, ``""`` for the module, and
        ``class:<qualified name>`` for ``self.x`` attributes of a class's instances."""
        out: dict[tuple[str, str], list[_Value]] = {}
        bindings.sort(key=_first)
        scopes = _innermost(ordered, [b[0] for b in bindings])
        for (_pos, name, value), d in zip(bindings, scopes, strict=True):
            d = _code_scope(d)
            if "." in name:
                cls = _enclosing_class(d)
                if cls is None or d is None or d.type != "function":
                    continue
                key = f"class:{cls}"
            elif d is None:
                key = ""
            elif d.type == "function":
                key = d.id
            else:
                continue  # a class body: class attributes are not bare names in methods
            value.where = d
            if value.arg is not None:
                value.arg.where = d
            values = out.setdefault((key, name), [])
            if value not in values:
                values.append(value)
        return out

    def _rewrite(
        self, expr: str, scope: _Def | None, symbols: dict[str, _Def], depth: int = 0
    ) -> list[tuple[str, str | None]]:
        """The callee as the bindings visible from ``scope`` make it, with a hint for the
        resolver (``MEMBER_HINTS``, ``assigned``), or ``[(expr, None)]`` unchanged."""
        if not self.flow or depth > 4:
            return [(expr, None)]
        key = (expr, id(scope), depth)
        hit = self._rw_cache.get(key)
        if hit is None:
            hit = self._rw_cache[key] = self._rewrite_uncached(expr, scope, symbols, depth)
        return hit

    def _rewrite_uncached(
        self, expr: str, scope: _Def | None, symbols: dict[str, _Def], depth: int
    ) -> list[tuple[str, str | None]]:
        parts = expr.split(".")
        head = parts[0]
        if head == "super()" and len(parts) == 2:
            cls = _enclosing_class(scope)
            return [(f"{cls}.{parts[1]}", "super")] if cls else [(expr, None)]
        call_at = next((i for i, p in enumerate(parts) if p.endswith("()")), -1)
        if call_at >= 0:
            # The result of a call: ``Cls().m``, ``make().m``, ``factory()()``.
            inner = ".".join([*parts[:call_at], parts[call_at][:-2]])
            if not _SIMPLE.match(inner.replace("()", "")):
                return [(expr, None)]
            out: list[tuple[str, str | None]] = []
            for callee, hint in self._rewrite(inner, scope, symbols, depth + 1):
                if hint is not None and hint.rstrip("?") == RETURNS:
                    continue  # what another file's function returns: not followed further
                if hint is None or hint.rstrip("?") not in MEMBER_HINTS:
                    value = _Value(callee, True, scope)
                    out.extend(self._apply([value], parts[call_at + 1 :], scope, depth))
            return _mark_ambiguous(out) or [(expr, None)]
        if head in self.spec.self_names:
            cls = _enclosing_class(scope)
            if cls is None or len(parts) < 2:
                return [(expr, None)]
            values = self._bindings.get((f"class:{cls}", f"{head}.{parts[1]}"))
            if values:
                return self._apply(values, parts[2:], scope, depth) or [(expr, None)]
            if len(parts) == 2:
                hit = symbols.get(f"{cls}.{parts[1]}")
                if hit is not None and hit.type in ("function", "member"):
                    return [(expr, None)]  # defined in the class itself: self_method
                if hit is not None and hit.type == "declaration":
                    return [(hit.qname, "assigned")]  # a nested class: ``self.Inner()``
                return [(f"{cls}.{parts[1]}", "self")]
            return [(expr, None)]
        s = _code_scope(scope)
        m = _VARIABLE_INDEX.match(head)
        while True:
            key = s.id if s is not None else ""
            values = self._bindings.get((key, head))
            if not values and m is not None:
                # ``d[k]()`` with ``k`` not a literal: any item of the literal container
                # ``d`` may be called, each one a candidate (never a guess).
                values = self._items.get((key, m.group(1)))
                if values:
                    out = self._apply(values, parts[1:], scope, depth)
                    return [(e, (h or "assigned").rstrip("?") + "?") for e, h in out] or [
                        (expr, None)
                    ]
            if values:
                return self._apply(values, parts[1:], scope, depth) or [(expr, None)]
            base = _ITEM_BASE.match(head)
            if base is not None and (key, base.group(1)) in self._bindings:
                # ``c["a"]()`` where ``c`` holds another container (``c = d``, ``c = f()``
                # returning ``d``): the item of that one.
                out = self._through_container(
                    self._bindings[(key, base.group(1))], head[base.end(1) :], parts[1:], depth
                )
                return out or [(expr, None)]
            if s is None or head in s.locals or (m is not None and m.group(1) in s.locals):
                return [(expr, None)]
            s = _code_scope(s.parent)

    def _through_container(
        self, values: list[_Value], index: str, rest: list[str], depth: int
    ) -> list[tuple[str, str | None]]:
        """``name[index].rest`` where ``name`` holds each of ``values``: the same item of the
        container a value names, or of the one a function of this file returns."""
        named: list[_Value] = []
        for v in values:
            if not v.instance:
                named.append(v)
                continue
            for d in self._local_defs(v.expr, v.where, depth + 1) if depth < 4 else []:
                if d.type == "function":
                    named.extend(
                        r for r in self._bindings.get((d.id, RETURN), []) if not r.instance
                    )
        out: list[tuple[str, str | None]] = []
        for v in named:
            item = ".".join([f"{v.expr}{index}", *rest])
            got = self._rewrite(item, v.where, self._symbols, depth + 1)
            if got != [(item, None)]:
                out.extend(got)
        return _mark_ambiguous(out)

    def _returned_param(self, v: _Value, depth: int) -> list[_Value]:
        """The returned values of decorator ``v`` that are its own first parameter."""
        out: list[_Value] = []
        for d in self._local_defs(v.expr, v.where, depth) if depth < 4 else []:
            if d.type == "function":
                params = _parameters(d.node)[:1]
                returned = self._bindings.get((d.id, RETURN), [])
                out.extend(r for r in returned if not r.instance and r.expr in params)
        return out

    def _local_def(self, expr: str, where: _Def | None) -> _Def | None:
        """The definition of this file that ``expr`` names from ``where``, if any."""
        if expr.startswith(_LAMBDA):
            return self._lambda_at.get(int(expr[len(_LAMBDA) : -1]))
        target, _res = self._resolve_local(expr, where, self._symbols, self._imported)
        return self._by_id.get(target) if target else None

    def _local_defs(self, expr: str, where: _Def | None, depth: int) -> list[_Def]:
        """The definitions of this file ``expr`` may name from ``where``, through bindings
        (``a.func1`` with ``a = MyClass()`` is ``MyClass.func1``)."""
        d = self._local_def(expr, where)
        if d is not None:
            return [d]
        out = []
        for callee, hint in self._rewrite(expr, where, self._symbols, depth + 1):
            if (callee, hint) == (expr, None):
                continue
            target, _res = self._resolve_hinted(callee, hint, where, self._symbols, self._imported)
            hit = self._by_id.get(target) if target else None
            if hit is not None and hit not in out:
                out.append(hit)
        return out

    def _apply(
        self, values: list[_Value], rest: list[str], scope: _Def | None, depth: int
    ) -> list[tuple[str, str | None]]:
        """Calls through ``name.rest`` where ``name`` holds each of ``values``."""
        out: list[tuple[str, str | None]] = []
        for v in values:
            if v.instance and v.arg is not None:
                # A decorated name: what a decorator of this file returns; a decorator from
                # elsewhere is not known to replace the function, which keeps its own name.
                got = self._apply([replace(v, arg=None, decorator=True)], rest, scope, depth)
                got = [(e, h) for e, h in got if h is None or h.rstrip("?") != RETURNS]
                if any(not r.instance for r in self._returned_param(v, depth)):
                    got.extend(self._apply([v.arg], rest, scope, depth + 1))
                out.extend(got)
                continue
            if v.instance:
                defs = self._local_defs(v.expr, v.where, depth) if depth < 4 else []
                for d in defs:
                    if d.type == "function":
                        # What a function of this file returns.
                        returned = self._bindings.get((d.id, RETURN))
                        if returned and v.decorator:
                            # Its own parameter is what it was applied to (``v.arg``).
                            params = _parameters(d.node)[:1]
                            returned = [r for r in returned if r.instance or r.expr not in params]
                        if returned:
                            out.extend(self._apply(returned, rest, scope, depth + 1))
                    elif rest:
                        out.append((".".join([d.qname, *rest]), "member"))
                if not defs and rest:  # calling an instance itself (``__call__``): left out
                    out.append((".".join([v.expr, *rest]), "member"))
                elif not defs and v.expr.split(".")[0] in self._imported and _SIMPLE.match(v.expr):
                    # What a function of another file returns: looked up by the resolver in
                    # that file's ``returns`` rows.
                    out.append((v.expr, RETURNS))
                continue
            alias = self._local_def(v.expr, v.where)
            expr = alias.qname if alias is not None else v.expr
            new = ".".join([expr, *rest])
            if alias is not None:
                out.append((new, "assigned"))
                continue
            # An alias of an alias (``f = g; h = f``), a few steps deep.
            nxt = self._rewrite(new, v.where, self._symbols, depth + 1)
            if nxt != [(new, None)]:
                out.extend((e, h or "assigned") for e, h in nxt)
            else:
                # Named from where it was bound (``self`` there is that method's class).
                hit = self._local_def(new, v.where)
                out.append((hit.qname if hit is not None else new, "assigned"))
        return _mark_ambiguous(out)

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
        if d.qualifier and d.type == "function" and (p is None or p.type != "declaration"):
            # ``void Foo::bar() {}`` whose class another file (its header) declares: it
            # plays the role the class's name gives it, as it would inside the class.
            cls = d.qname[: -len(d.name) - 1]
            parent_role = infer_role(self.spec, path, cls, "declaration", "class", None, ())
        elif p is not None:
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
        # Type flow: arguments bind the parameters of the functions of this file they are
        # passed to, which can change how calls inside those functions read: a few rounds.
        for _round in range(4 if self.flow else 1):
            rows, added = self._ref_rows(path, items, scopes, symbols, imported)
            if not added:
                break
        out = [tuple(r) for r in rows.values()]
        if self.flow:
            out.extend(self._return_rows(path, ordered))
        return out

    def _return_rows(self, path: str, ordered: list[_Def]) -> list[RefRow]:
        """``returns`` rows: the functions of this file each function returns (``return
        helper``), so a call of what an imported function returns resolves across files."""
        out: list[RefRow] = []
        for d in ordered:
            if d.type != "function" or d.scope_only:
                continue
            returned = self._bindings.get((d.id, RETURN))
            if not returned:
                continue
            seen: set[str] = set()
            for v in returned:
                if v.instance:
                    continue
                for hit in self._local_defs(v.expr, v.where, 1):
                    if hit.type != "function" or hit.id in seen:
                        continue
                    seen.add(hit.id)
                    line = d.node.start_point[0] + 1
                    out.append((path, d.id, "returns", hit.qname, line, 1, 1, hit.id, "assigned"))
        return out

    def _ref_rows(
        self,
        path: str,
        items: list[tuple[int, str, Any, Any]],
        scopes: list[_Def | None],
        symbols: dict[str, _Def],
        imported: set[str],
    ) -> tuple[dict[tuple[str, str, str, bool], list[Any]], bool]:
        added = False
        self._rw_cache = {}
        rows: dict[tuple[str, str, str, bool], list[Any]] = {}
        for (_pos, kind, node, target), scope in zip(items, scopes, strict=True):
            if kind == "passed":
                # A function handed to a builtin that calls it: a call by the code around,
                # unless the builtin's name is bound to something else here.
                fn = _receiving_function(node)
                if fn is None or fn in imported:
                    continue
                if self._resolve_local(fn, scope, symbols, imported) != (None, None):
                    continue
                if self._rewrite(fn, scope, symbols) != [(fn, None)]:
                    continue
                kind = "call"
            calls = 0
            if self.flow and kind != "iterate":
                # Calling what a call returns (``factory()()``, ``f()()()``): one ``()`` per
                # call in the chain, around the innermost callee.
                while target.type == "call" and calls < 3:
                    inner = target.child_by_field_name("function")
                    if inner is None:
                        break
                    target, calls = inner, calls + 1
            expr = normalize_expr(_text(target))
            if not expr:
                continue
            if calls:
                expr += "()" * calls
            elif kind == "iterate" and target.type == "call":
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
            if kind == "decorator" or (
                self.flow
                and kind == "call"
                and node.parent is not None
                and node.parent.type == "decorator"
            ):
                # Applying a decorator is a call made by the code around the definition.
                kind = "call"
                decorated = scope
                if scope is not None:
                    scope = src = scope.parent
                    while scope is not None and scope.scope_only:
                        scope = src = scope.parent
            else:
                decorated = None
            src_id = src.id if src is not None else path
            variants: list[tuple[str, str | None]]
            if kind == "iterate":
                # ``for x in v``: calls ``__iter__`` and ``__next__`` of what ``v`` holds, when
                # that is known to be an instance of a class; nothing otherwise.
                kind = "call"
                variants = [
                    (e, h)
                    for method in ("__iter__", "__next__")
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
                key = (src_id, kind, callee, returns)
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
        return rows, added

    def _bind_args(
        self,
        call: Any,
        target_id: str,
        hint: str | None,
        scope: _Def | None,
        decorated: _Def | None,
    ) -> bool:
        """Bind the parameters of ``target_id`` (a function or class of this file) to the
        arguments of ``call``; True when that adds a binding."""
        d = self._by_id.get(target_id)
        if d is None:
            return False
        if d.type == "declaration":
            init = self._symbols.get(f"{d.qname}.__init__")
            if init is None:
                return False
            d, bound = init, True
        else:
            bound = d.owner is not None and d.owner.type == "declaration"
            bound = bound and (hint is not None or "staticmethod" not in self._decorators(d.node))
        params = _parameters(d.node)
        if bound and params:
            params = params[1:]  # self
        pairs: list[tuple[str, _Value]] = []
        if decorated is not None:
            if params:
                pairs.append((params[0], _decorated_value(call, decorated)))
        else:
            args = call.child_by_field_name("arguments")
            if args is None:
                return False
            i = 0
            for arg in args.named_children:
                if arg.type == "keyword_argument":
                    name, value = arg.child_by_field_name("name"), arg.child_by_field_name("value")
                    v = _arg_value(value, scope) if name is not None else None
                    if v is not None:
                        pairs.append((_text(name), v))
                    continue
                if arg.type in ("list_splat", "dictionary_splat"):
                    break
                v = _arg_value(arg, scope)
                if v is not None and i < len(params):
                    pairs.append((params[i], v))
                i += 1
        added = False
        for name, value in pairs:
            if name not in params:
                continue
            values = self._bindings.setdefault((d.id, name), [])
            if value not in values:
                values.append(value)
                added = True
                self._rw_cache = {}
        return added

    def _resolve_mixin(
        self,
        expr: str,
        cls: _Def | None,
        symbols: dict[str, _Def],
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
        scope: _Def | None,
        symbols: dict[str, _Def],
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
        receiver = len(parts) == 2 and _is_receiver(head, scope)
        if (receiver or head in spec.self_names) and len(parts) == 2:
            cls = _enclosing_class(scope)
            if cls is not None:
                hit = symbols.get(f"{cls}.{parts[1]}")
                if hit is not None and hit.type in ("function", "member"):
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


# ``name[index]`` whose index is not a literal (a name, an attribute, a call).
_VARIABLE_INDEX = re.compile(r"([A-Za-z_]\w*)\[([A-Za-z_][\w.()]*)\]\Z")
# ``name[...]...``: an item (at any depth) of what ``name`` holds.
_ITEM_BASE = re.compile(r"([A-Za-z_]\w*)\[")
_ITEM = re.compile(r"([A-Za-z_]\w*)\[[^\[\]]+\]\Z")


def _container_items(
    bindings: dict[tuple[str, str], list[_Value]],
) -> dict[tuple[str, str], list[_Value]]:
    """The values bound to the literal items of each container, by scope and name."""
    out: dict[tuple[str, str], list[_Value]] = {}
    for (key, name), values in bindings.items():
        m = _ITEM.match(name)
        if m is None:
            continue
        items = out.setdefault((key, m.group(1)), [])
        items.extend(v for v in values if v not in items)
    return out


def _mark_ambiguous(out: list[tuple[str, str | None]]) -> list[tuple[str, str | None]]:
    """Several candidate callees: each keeps its hint, marked as one of several (``?``)."""
    out = list(dict.fromkeys(out))
    if len(out) > 1:
        return [(e, (h or "assigned").rstrip("?") + "?") for e, h in out]
    return out


def _receiving_function(node: Any) -> str | None:
    """The name of the function whose call ``node`` is an argument of (``map(f, xs)``)."""
    parent = node.parent
    if parent is not None and parent.type == "keyword_argument":
        parent = parent.parent
    call = parent.parent if parent is not None else None
    fn = call.child_by_field_name("function") if call is not None else None
    return _text(fn) if fn is not None and fn.type == "identifier" else None


def _decorated_value(node: Any, decorated: _Def) -> _Value:
    """What a decorator is applied to: the definition itself, or, with decorators stacked
    (``@a @b def f``), what the next decorator down returns (``a(b(f))``)."""
    deco = node
    while deco is not None and deco.type != "decorator":
        deco = deco.parent
    below = deco.next_named_sibling if deco is not None else None
    if below is not None and below.type == "decorator" and below.named_children:
        value = _decorator_value(below.named_children[0], decorated.parent)
        if value is not None:
            return value
    return _Value(decorated.qname, False, decorated.parent)


def _decorator_value(node: Any, scope: _Def | None) -> _Value | None:
    """The result of applying a decorator expression: ``@d`` -> ``d(...)``, ``@mk()`` ->
    ``mk()(...)``."""
    if node.type == "call":
        callee = node.child_by_field_name("function")
        if callee is None or callee.type not in ("identifier", "attribute"):
            return None
        expr = normalize_expr(_text(callee)) + "()"
    elif node.type in ("identifier", "attribute"):
        expr = normalize_expr(_text(node))
    else:
        return None
    return _Value(expr, True, scope) if _SIMPLE.match(expr.replace("()", "")) else None


def _parameters(node: Any) -> list[str]:
    """The names of a function's parameters, in order (the positional ones first)."""
    params = node.child_by_field_name("parameters")
    out: list[str] = []
    if params is None:
        return out
    for p in params.named_children:
        if p.type == "identifier":
            out.append(_text(p))
        elif p.type in ("default_parameter", "typed_default_parameter"):
            name = p.child_by_field_name("name")
            if name is not None:
                out.append(_text(name))
        elif p.type == "typed_parameter" and p.named_children:
            first = p.named_children[0]
            if first.type == "identifier":
                out.append(_text(first))
    return out


def _name_lambdas(ordered: list[_Def]) -> dict[int, _Def]:
    """Anonymous functions are named ``<lambda1>``, ``<lambda2>`` … in the order they open
    in the function (or module) whose code holds them; by start byte."""
    counts: dict[int, int] = {}
    out: dict[int, _Def] = {}
    for d in ordered:
        if d.name != "<lambda>" or d.kind != "lambda":
            continue
        while d.parent is not None and d.parent.type == "member":
            d.parent = d.parent.parent  # ``x = lambda: …``: the lambda is not inside ``x``
        n = counts.get(id(d.parent), 0) + 1
        counts[id(d.parent)] = n
        d.name = f"<lambda{n}>"
        out[d.node.start_byte] = d
    return out


# A value that is an anonymous function, by its start byte (``<lambda@123>``).
_LAMBDA = "<lambda@"


def _arg_value(node: Any, scope: _Def | None) -> _Value | None:
    """What an argument passes: a name (``f``, ``mod.f``), a lambda, the result of a call."""
    if node is None:
        return None
    if node.type == "lambda":
        return _Value(f"{_LAMBDA}{node.start_byte}>", False, scope)
    if node.type in ("identifier", "attribute"):
        expr = normalize_expr(_text(node))
        return _Value(expr, False, scope) if _SIMPLE.match(expr) else None
    if node.type == "call":
        callee = node.child_by_field_name("function")
        if callee is not None and callee.type in ("identifier", "attribute"):
            expr = normalize_expr(_text(callee))
            return _Value(expr, True, scope) if _SIMPLE.match(expr) else None
    return None


def _code_scope(d: _Def | None) -> _Def | None:
    """The function (or ``None``: the module) whose code runs where ``d`` is: a variable's
    initializer runs in the code around it; a class body is skipped by the caller."""
    while d is not None and d.type not in ("function", "declaration", "namespace"):
        d = d.parent
    return d


def _bindings(node: Any, caps: dict[str, Any]) -> list[tuple[int, str, _Value]]:
    """The (position, name, value) bindings of one ``@binding`` match."""
    pos = int(node.start_byte)
    out: list[tuple[int, str, _Value]] = []
    names = caps.get("binding.name")
    if names or "binding.names" not in caps:
        name = normalize_expr(_text(names[0])) if names else RETURN
        for cap, instance in (("binding.instance", True), ("binding.alias", False)):
            value = caps.get(cap)
            if value:
                expr = normalize_expr(_text(value[0]))
                if _SIMPLE.match(expr):
                    out.append((pos, name, _Value(expr, instance)))
        deco = caps.get("binding.decorator")
        if deco and names:
            # ``@dec def f``: ``f`` holds what ``dec(f)`` returns, bound after the definition
            # (the end of it is in the scope around it).
            expr_node = deco[0].named_children[0] if deco[0].named_children else None
            value = _decorator_value(expr_node, None) if expr_node is not None else None
            if value is not None:
                below = deco[0].next_named_sibling
                inner = None
                if below is not None and below.type == "decorator" and below.named_children:
                    inner = _decorator_value(below.named_children[0], None)
                value.arg = inner or _Value(name, False)
                out.append((int(node.end_byte), name, value))
        lam = caps.get("binding.lambda")
        if lam:
            out.append((pos, name, _Value(f"{_LAMBDA}{lam[0].start_byte}>", False)))
        return out
    lhs, rhs = caps.get("binding.names"), caps.get("binding.values")
    if lhs and rhs:
        _pairwise(pos, lhs[0], rhs[0], out)
    return out


_TUPLES = frozenset({"pattern_list", "tuple_pattern", "expression_list", "tuple", "list"})
_DICTS = frozenset({"dictionary"})


def _pairwise(pos: int, name: Any, value: Any, out: list[tuple[int, str, _Value]]) -> None:
    """Bind a name, a tuple of names (``a, (b, c) = f, (g, h)``) or the items of a literal
    list or dict (``d = {"a": f}`` binds ``d["a"]``), recursively."""
    if value.type == "parenthesized_expression" and value.named_child_count == 1:
        value = value.named_children[0]
    if name.type in _TUPLES and value.type in _TUPLES:
        for n, v in zip(name.named_children, value.named_children, strict=False):
            _pairwise(pos, n, v, out)
        return
    if name.type not in ("identifier", "subscript"):
        return
    label = _subscript_name(name) if name.type == "subscript" else _text(name)
    if label is None:
        return
    _literal_items(pos, label, value, out, 0)


def _literal_items(
    pos: int, label: str, value: Any, out: list[tuple[int, str, _Value]], depth: int
) -> None:
    """Bind ``label`` to ``value``, or each item of a literal list or dict to
    ``label[index]``, nested ones too (``ls = [[f], g]`` binds ``ls[0][0]``)."""
    if value.type == "pair":
        value = value.child_by_field_name("value")
        if value is None:
            return
    if value.type in ("list", "tuple") and depth < 3:
        for i, item in enumerate(value.named_children):
            _literal_items(pos, f"{label}[{i}]", item, out, depth + 1)
    elif value.type in _DICTS and depth < 3:
        for pair in value.named_children:
            key = pair.child_by_field_name("key") if pair.type == "pair" else None
            if key is not None and key.type in ("string", "integer"):
                _literal_items(pos, f"{label}[{_WS.sub('', _text(key))}]", pair, out, depth + 1)
    else:
        _pairwise_item(pos, label, value, out)


def _pairwise_item(pos: int, name: str, node: Any, out: list[tuple[int, str, _Value]]) -> None:
    if node.type == "pair":
        node = node.child_by_field_name("value")
    item = _arg_value(node, None)
    if item is not None:
        out.append((pos, name, item))


def _subscript_name(node: Any) -> str | None:
    """``d["a"]`` for a subscript by a literal key on a name, else None."""
    value, index = node.child_by_field_name("value"), node.child_by_field_name("subscript")
    if value is None or index is None or index.type not in ("string", "integer"):
        return None
    if value.type == "subscript":  # ``d["a"]["b"]``
        inner = _subscript_name(value)
        return None if inner is None else f"{inner}[{_WS.sub('', _text(index))}]"
    if value.type != "identifier":
        return None
    return f"{_text(value)}[{_WS.sub('', _text(index))}]"


def _export_rows(
    path: str, exports: list[dict[str, Any]], symbols: dict[str, _Def]
) -> list[RefRow]:
    """``exports`` rows (refs of kind ``exports``, never edges): a name the file exports and
    the symbol of the file it stands for (``export default f``, ``module.exports = f``,
    ``export { f as g }``), so an import of that name elsewhere resolves to that symbol."""
    out: list[RefRow] = []
    for caps in exports:
        value = caps.get("export.value")
        if not value:
            continue
        expr = normalize_expr(_text(value[0]))
        d = symbols.get(expr)
        if d is None or d.type == "namespace":
            continue  # not a definition of this file (an import, a local): not known here
        name = caps.get("export.name")
        exported = (
            DEFAULT_EXPORT if "export.default" in caps else _text(name[0]).strip() if name else expr
        )
        point = caps["export"][0].start_point
        out.append(
            (path, path, EXPORTS, exported, point[0] + 1, point[1] + 1, 1, d.id, "same_scope")
        )
    return out


def _enclosing_class(scope: _Def | None) -> str | None:
    """The qualified name of the class a ``self``/``this`` refers to from ``scope``."""
    s = scope
    while s is not None:
        if s.type == "function" and s.owner is not None and s.owner is not s.parent:
            return s.owner.qname
        if s.kind == "method" and s.owner is not None and s.owner.type == "member":
            return s.owner.qname  # a method of an object bound to a name (JS ``api = {m() {}}``)
        if s.type == "function" and s.qualifier:
            return s.qname[: -len(s.name) - 1]
        if s.type == "declaration" or s.scope_only:
            return s.qname
        s = s.parent
    return None


def _assign_receivers(ordered: list[_Def], nodes: list[Any], locals_: list[Any]) -> None:
    """``@receiver`` names (Go ``func (s *Square) Area()``) belong to the method they are
    declared by: inside it they name an instance of its class, as ``self`` does. A name
    bound again inside the method (a closure's parameter, ``s := …`` in a block) is left
    out: which of the two a call means depends on where it is, so it stays a local."""
    if not nodes:
        return
    names = {_text(n) for n in nodes}
    again = sorted((n for n in locals_ if _text(n) in names), key=_start_byte)
    bound: dict[tuple[int, str], int] = {}
    for node, d in zip(again, _innermost(ordered, [n.start_byte for n in again]), strict=True):
        while d is not None and d.type != "function":
            d = d.parent
        if d is not None:
            key = (id(d), _text(node))
            bound[key] = bound.get(key, 0) + 1
    nodes = sorted(nodes, key=_start_byte)
    for node, d in zip(nodes, _innermost(ordered, [n.start_byte for n in nodes]), strict=True):
        if d is not None and d.type == "function" and bound.get((id(d), _text(node)), 0) <= 1:
            d.receivers.add(_text(node))


def _is_receiver(head: str, scope: _Def | None) -> bool:
    """Whether ``head`` is the receiver of a method around ``scope`` (not shadowed by a
    local of a function nested in it)."""
    s = scope
    while s is not None:
        if head in s.receivers:
            return True
        if head in s.locals:
            return False
        s = s.parent
    return False


def _super_call(expr: str, scope: _Def | None) -> tuple[str, str | None]:
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
