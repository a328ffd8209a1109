"""Type flow: what a name holds, followed through the bindings of one file.

A call through a bound name is rewritten to the bound value (``x = Cls(); x.m()`` ->
``Cls.m``), flow-insensitively: several values bound to one name make every rewrite a
candidate (resolution ``ambiguous``). Arguments bind the parameters of the functions of the
file they are passed to, a decorated name holds what its decorator returns, and a function's
returned values are bound under ``RETURN`` in its scope. The engine is generic; what a
language's syntax binds is its ``SyntaxRules`` (``znt/index/lang/<name>.py``), and the walk
that feeds it is znt/index/extract.py (``Extractor`` mixes this class in).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from znt.index.languages import LanguageSpec
from znt.index.syntax import (
    LAMBDA,
    MEMBER_HINTS,
    RETURN,
    RETURNS,
    SIMPLE,
    Def,
    Value,
    code_scope,
    enclosing_class,
    first,
    innermost,
)

RefRow = tuple[Any, ...]
# (target id, resolution): what a name resolves to in the file, or why not.
Resolved = tuple[str | None, str | None]

# ``name[index]`` whose index is not a literal (a name, an attribute, a call).
_VARIABLE_INDEX = re.compile(r"([A-Za-z_]\w*)\[([A-Za-z_][\w.()]*)\]\Z")
# ``name[...]...``: an item (at any depth) of what ``name`` holds.
_ITEM_BASE = re.compile(r"([A-Za-z_]\w*)\[")
_ITEM = re.compile(r"([A-Za-z_]\w*)\[[^\[\]]+\]\Z")


class TypeFlow:
    """The bindings of the file being extracted and the rewrites they make; the walk
    (``Extractor``) provides the file's definitions and its local name resolution."""

    spec: LanguageSpec
    flow: bool
    _bindings: dict[tuple[str, str], list[Value]]
    # The compared fields of each binding list's values once ``_bind_args`` adds to it.
    _bound: dict[tuple[str, str], set[tuple[str, bool, int | None]]]
    _items: dict[tuple[str, str], list[Value]]
    # Every name ``_bindings`` binds in some scope (kept with it): a callee whose head is
    # none of them is unchanged by any rewrite (``_rewrite``).
    _bound_names: set[str]
    _symbols: dict[str, Def]
    _by_id: dict[str, Def]
    _imported: set[str]
    _lambda_at: dict[int, Def]
    _rw_cache: dict[tuple[Any, ...], list[tuple[str, str | None]]]
    _site: tuple[str, int, int] | None

    # What the walk provides (``Extractor``): local name resolution, plain and for a callee
    # rewritten through a binding (expr, hint, scope, symbols, imported names), and the
    # decorator names of a definition.
    _resolve_local: Callable[[str, Def | None, dict[str, Def], set[str]], Resolved]
    _resolve_hinted: Callable[[str, str | None, Def | None, dict[str, Def], set[str]], Resolved]
    _decorators: Callable[[Any], tuple[str, ...]]

    @staticmethod
    def _scope_bindings(
        ordered: list[Def], bindings: list[tuple[int, str, Value]]
    ) -> dict[tuple[str, str], list[Value]]:
        """Bindings by (scope key, name): a function's id, ``""`` for the module, and
        ``class:<qualified name>`` for ``self.x`` attributes of a class's instances."""
        out: dict[tuple[str, str], list[Value]] = {}
        bindings.sort(key=first)
        scopes = innermost(ordered, [b[0] for b in bindings])
        for (_pos, name, value), d in zip(bindings, scopes, strict=True):
            d = code_scope(d)
            if "." in name:
                cls = enclosing_class(d)
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
        self, expr: str, scope: Def | None, symbols: dict[str, Def], depth: int = 0
    ) -> list[tuple[str, str | None]]:
        """The callee as the bindings visible from ``scope`` make it, with a hint for the
        resolver (``MEMBER_HINTS``, ``assigned``), or ``[(expr, None)]`` unchanged."""
        if not self.flow or depth > 4:
            return [(expr, None)]
        head, _, rest = expr.partition(".")
        if (
            head not in self._bound_names
            and "(" not in expr
            and "[" not in expr
            and head not in self.spec.self_names
            and head != self.spec.syntax.super_head
            and not (rest and "." in rest and self.spec.syntax.typed_members)
        ):
            # A plain name or member path whose head no scope of the file binds, neither a
            # receiver nor ``self`` or ``super``: every branch of ``_rewrite_uncached``
            # leaves it as it is. Most callees are such (imported or defined names): on the
            # monorepo benchmark's Python, Go and Ruby files, 392 k of the 672 k rewrites
            # the cache missed.
            return [(expr, None)]
        key = (expr, id(scope), depth, self._site)
        hit = self._rw_cache.get(key)
        if hit is None:
            hit = self._rw_cache[key] = self._rewrite_uncached(expr, scope, symbols, depth)
        return hit

    def _rewrite_uncached(
        self, expr: str, scope: Def | None, symbols: dict[str, Def], depth: int
    ) -> list[tuple[str, str | None]]:
        parts = expr.split(".")
        head = parts[0]
        if head == self.spec.syntax.super_head and len(parts) == 2:
            cls = enclosing_class(scope)
            return [(f"{cls}.{parts[1]}", "super")] if cls else [(expr, None)]
        call_at = next((i for i, p in enumerate(parts) if p.endswith("()")), -1)
        typed = self.spec.syntax.typed_members
        if typed and len(parts) > 1 and (len(parts) > 2 or call_at >= 0):
            # A receiver's field or what its method returns (Go ``c.engine.run()``,
            # ``r.route().name()``): members of the receiver's type, for the resolver.
            cls = self._receiver_type(head, scope)
            if cls is not None:
                parts = [*cls.split("."), *parts[1:]]
                # Through a method's result too (``r.NewRoute().Name()`` in a Router
                # method): each step's declared type, followed by znt.graph.typechains.
                return [(".".join(p.removesuffix("()") for p in parts), "member")]
        if call_at >= 0:
            # The result of a call: ``Cls().m``, ``make().m``, ``factory()()``.
            inner = ".".join([*parts[:call_at], parts[call_at][:-2]])
            if not SIMPLE.match(inner.replace("()", "")):
                return [(expr, None)]
            out: list[tuple[str, str | None]] = []
            for callee, hint in self._rewrite(inner, scope, symbols, depth + 1):
                if hint is not None and hint.rstrip("?") == RETURNS:
                    continue  # what another file's function returns: not followed further
                if hint is None or hint.rstrip("?") not in MEMBER_HINTS:
                    value = Value(callee, True, scope)
                    out.extend(self._apply([value], parts[call_at + 1 :], scope, depth))
                elif typed and hint.rstrip("?") == "member" and call_at + 1 < len(parts):
                    # A member of what a method returns: its declared result, for the
                    # resolver (``Router.handle.path`` is ``path`` of handle's result).
                    out.append((".".join([callee, *parts[call_at + 1 :]]), hint))
            return _mark_ambiguous(out) or [(expr, None)]
        if head in self.spec.self_names:
            cls = enclosing_class(scope)
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
        s = code_scope(scope)
        m = _VARIABLE_INDEX.match(head)
        while True:
            key = s.id if s is not None else ""
            values = self._bindings.get((key, head))
            site = self._site
            if values and site is not None and site[0] == head and site[2] == id(s):
                # The name is declared more than once here: only the binding of the
                # declaration in sight holds (none: that declaration binds nothing known).
                values = [v for v in values if v.site is None or v.site == site[1]]
                if not values:
                    return [(expr, None)]
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
            s = code_scope(s.parent)

    def _receiver_type(self, head: str, scope: Def | None) -> str | None:
        """The type whose method ``scope`` is, when ``head`` is that method's receiver in
        sight (Go ``func (c *Context) m()``); None otherwise."""
        s = scope
        while s is not None:
            if head in s.receivers:
                site = self._site
                if site is not None and site[0] == head and site[1] != s.receivers[head]:
                    return None
                return enclosing_class(s)
            if head in s.locals:
                return None
            s = s.parent
        return None

    def _through_container(
        self, values: list[Value], index: str, rest: list[str], depth: int
    ) -> list[tuple[str, str | None]]:
        """``name[index].rest`` where ``name`` holds each of ``values``: the same item of the
        container a value names, or of the one a function of this file returns."""
        named: list[Value] = []
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

    def _returned_param(self, v: Value, depth: int) -> list[Value]:
        """The returned values of decorator ``v`` that are its own first parameter."""
        out: list[Value] = []
        for d in self._local_defs(v.expr, v.where, depth) if depth < 4 else []:
            if d.type == "function":
                params = self.spec.syntax.parameters(d.node)[:1]
                returned = self._bindings.get((d.id, RETURN), [])
                out.extend(r for r in returned if not r.instance and r.expr in params)
        return out

    def _local_def(self, expr: str, where: Def | None) -> Def | None:
        """The definition of this file that ``expr`` names from ``where``, if any."""
        if expr.startswith(LAMBDA):
            return self._lambda_at.get(int(expr[len(LAMBDA) : -1]))
        target, _res = self._resolve_local(expr, where, self._symbols, self._imported)
        return self._by_id.get(target) if target else None

    def _local_defs(self, expr: str, where: Def | None, depth: int) -> list[Def]:
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
        self, values: list[Value], rest: list[str], scope: Def | None, depth: int
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
                            params = self.spec.syntax.parameters(d.node)[:1]
                            returned = [r for r in returned if r.instance or r.expr not in params]
                        if returned:
                            out.extend(self._apply(returned, rest, scope, depth + 1))
                    elif rest:
                        out.append((".".join([d.qname, *rest]), "member"))
                if not defs and rest and self.spec.syntax.typed_members and "()" in v.expr:
                    # What a chain of calls returns (Go ``sub := r.PathPrefix().Subrouter()``):
                    # the chain's member, each step's declared type for the resolver.
                    chained = [
                        (".".join([e, *rest]), h)
                        for e, h in self._rewrite(v.expr, v.where, self._symbols, depth + 1)
                        if h is not None and h.rstrip("?") == "member"
                    ]
                    if chained:
                        out.extend(chained)
                        continue
                if not defs and rest:  # calling an instance itself (``__call__``): left out
                    out.append((".".join([v.expr, *rest]), "member"))
                elif not defs and v.expr.split(".")[0] in self._imported and SIMPLE.match(v.expr):
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

    def _return_rows(self, path: str, ordered: list[Def]) -> list[RefRow]:
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

    def _bind_args(
        self,
        call: Any,
        target_id: str,
        hint: str | None,
        scope: Def | None,
        decorated: Def | None,
    ) -> bool:
        """Bind the parameters of ``target_id`` (a function or class of this file) to the
        arguments of ``call``; True when that adds a binding."""
        d = self._by_id.get(target_id)
        if d is None:
            return False
        rules = self.spec.syntax
        if d.type == "declaration":
            init = (
                self._symbols.get(f"{d.qname}.{rules.initializer}") if rules.initializer else None
            )
            if init is None:
                return False
            d, bound = init, True
        else:
            bound = d.owner is not None and d.owner.type == "declaration"
            bound = bound and (
                hint is not None
                or not any(s in rules.static_decorators for s in self._decorators(d.node))
            )
        params = rules.parameters(d.node)
        if bound and params:
            params = params[1:]  # self
        pairs: list[tuple[str, Value]] = []
        if decorated is not None:
            if params:
                pairs.append((params[0], rules.decorated_value(call, decorated)))
        else:
            args = rules.arguments(call)
            if args is None:
                return False
            i = 0
            for keyword, arg in args:
                v = rules.arg_value(arg, scope)
                if keyword is not None:
                    if v is not None:
                        pairs.append((keyword, v))
                    continue
                if v is not None and i < len(params):
                    pairs.append((params[i], v))
                i += 1
        added = False
        for name, value in pairs:
            if name not in params:
                continue
            key = (d.id, name)
            values = self._bindings.setdefault(key, [])
            self._bound_names.add(name)
            # ``value in values`` by its compared fields, through a set kept beside the
            # list: a function called from many places gets hundreds of bound values, and
            # the list test made this quadratic (900k ``Value.__eq__`` in 300 sympy files).
            seen = self._bound.get(key)
            if seen is None:
                seen = self._bound[key] = {_value_key(v) for v in values}
            vkey = _value_key(value)
            if vkey not in seen:
                seen.add(vkey)
                values.append(value)
                added = True
                self._rw_cache = {}
        return added


def _value_key(value: Value) -> tuple[str, bool, int | None]:
    """What ``Value.__eq__`` compares (the fields not marked ``compare=False``)."""
    return (value.expr, value.instance, value.site)


def container_items(
    bindings: dict[tuple[str, str], list[Value]],
) -> dict[tuple[str, str], list[Value]]:
    """The values bound to the literal items of each container, by scope and name."""
    out: dict[tuple[str, str], list[Value]] = {}
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


def name_lambdas(ordered: list[Def]) -> dict[int, Def]:
    """Anonymous functions are named ``<lambda1>``, ``<lambda2>`` … in the order they open
    in the function (or module) whose code holds them; by start byte."""
    counts: dict[int, int] = {}
    out: dict[int, Def] = {}
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
