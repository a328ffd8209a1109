"""Python: modules are dotted paths; imports map to ``.py`` files or packages. Its type flow
(what names, parameters, decorators and literal containers hold) reads the syntax through
``PythonSyntax``."""

from __future__ import annotations

import re
from typing import Any

from znt.index.languages import Candidate, ImportRef, LanguageSpec
from znt.index.syntax import (
    LAMBDA,
    MAX_DOC,
    RETURN,
    SIMPLE,
    WS,
    Def,
    SyntaxRules,
    Value,
    collapse,
    node_text,
    normalize_expr,
)


def module_name(path: str) -> str:
    stem = path[:-3] if path.endswith(".py") else path.rsplit(".", 1)[0]
    parts = stem.split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if parts and parts[0] == "src" and len(parts) > 1:
        parts = parts[1:]
    return ".".join(parts) or stem


def local_name(imp: ImportRef) -> str:
    if imp.alias:
        return imp.alias
    if imp.name:
        return imp.name
    return imp.module


def import_candidates(path: str, imp: ImportRef) -> list[Candidate]:
    """Imports name modules; they are matched against the dotted module names of the
    project's Python files (``module`` candidates), so ``src/`` layouts and packages work."""
    module = imp.module
    if module.startswith("."):
        level = len(module) - len(module.lstrip("."))
        rest = module[level:]
        package = module_name(path).split(".")
        if not path.endswith("__init__.py"):
            package = package[:-1]
        if level - 1 > len(package):
            return []
        parts = package[: len(package) - (level - 1)] + (rest.split(".") if rest else [])
        base = ".".join(p for p in parts if p)
    else:
        base = module
    if not base:
        return []
    if imp.name and imp.name != "*":
        return [
            Candidate(f"{base}.{imp.name}", "module"),
            Candidate(base, "module", member=imp.name),
        ]
    return [Candidate(base, "module")]


def _receiving_function(node: Any) -> str | None:
    """The name of the function whose call ``node`` is an argument of (``map(f, xs)``)."""
    parent = node.parent
    if parent is not None and parent.type == "keyword_argument":
        parent = parent.parent
    call = parent.parent if parent is not None else None
    fn = call.child_by_field_name("function") if call is not None else None
    return node_text(fn) if fn is not None and fn.type == "identifier" else None


def _decorated_value(node: Any, decorated: Def) -> Value:
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
    return Value(decorated.qname, False, decorated.parent)


def _decorator_value(node: Any, scope: Def | None) -> Value | None:
    """The result of applying a decorator expression: ``@d`` -> ``d(...)``, ``@mk()`` ->
    ``mk()(...)``."""
    if node.type == "call":
        callee = node.child_by_field_name("function")
        if callee is None or callee.type not in ("identifier", "attribute"):
            return None
        expr = normalize_expr(node_text(callee)) + "()"
    elif node.type in ("identifier", "attribute"):
        expr = normalize_expr(node_text(node))
    else:
        return None
    return Value(expr, True, scope) if SIMPLE.match(expr.replace("()", "")) else None


def _parameters(node: Any) -> list[str]:
    """The names of a function's parameters, in order (the positional ones first)."""
    params = node.child_by_field_name("parameters")
    out: list[str] = []
    if params is None:
        return out
    for p in params.named_children:
        if p.type == "identifier":
            out.append(node_text(p))
        elif p.type in ("default_parameter", "typed_default_parameter"):
            name = p.child_by_field_name("name")
            if name is not None:
                out.append(node_text(name))
        elif p.type == "typed_parameter" and p.named_children:
            first = p.named_children[0]
            if first.type == "identifier":
                out.append(node_text(first))
    return out


def _arg_value(node: Any, scope: Def | None) -> Value | None:
    """What an argument passes: a name (``f``, ``mod.f``), a lambda, the result of a call."""
    if node is None:
        return None
    if node.type == "lambda":
        return Value(f"{LAMBDA}{node.start_byte}>", False, scope)
    if node.type in ("identifier", "attribute"):
        expr = normalize_expr(node_text(node))
        return Value(expr, False, scope) if SIMPLE.match(expr) else None
    if node.type == "call":
        callee = node.child_by_field_name("function")
        if callee is not None and callee.type in ("identifier", "attribute"):
            expr = normalize_expr(node_text(callee))
            return Value(expr, True, scope) if SIMPLE.match(expr) else None
    return None


def _bindings(node: Any, caps: dict[str, Any]) -> list[tuple[int, str, Value]]:
    """The (position, name, value) bindings of one ``@binding`` match."""
    pos = int(node.start_byte)
    out: list[tuple[int, str, Value]] = []
    names = caps.get("binding.name")
    if names or "binding.names" not in caps:
        name = normalize_expr(node_text(names[0])) if names else RETURN
        for cap, instance in (("binding.instance", True), ("binding.alias", False)):
            value = caps.get(cap)
            if value:
                expr = normalize_expr(node_text(value[0]))
                if SIMPLE.match(expr):
                    out.append((pos, name, Value(expr, instance)))
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
                value.arg = inner or Value(name, False)
                out.append((int(node.end_byte), name, value))
        lam = caps.get("binding.lambda")
        if lam:
            out.append((pos, name, Value(f"{LAMBDA}{lam[0].start_byte}>", False)))
        return out
    lhs, rhs = caps.get("binding.names"), caps.get("binding.values")
    if lhs and rhs:
        _pairwise(pos, lhs[0], rhs[0], out)
    return out


_TUPLES = frozenset({"pattern_list", "tuple_pattern", "expression_list", "tuple", "list"})


_DICTS = frozenset({"dictionary"})


def _pairwise(pos: int, name: Any, value: Any, out: list[tuple[int, str, Value]]) -> None:
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
    label = _subscript_name(name) if name.type == "subscript" else node_text(name)
    if label is None:
        return
    _literal_items(pos, label, value, out, 0)


def _literal_items(
    pos: int, label: str, value: Any, out: list[tuple[int, str, Value]], depth: int
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
                _literal_items(pos, f"{label}[{WS.sub('', node_text(key))}]", pair, out, depth + 1)
    else:
        _pairwise_item(pos, label, value, out)


def _pairwise_item(pos: int, name: str, node: Any, out: list[tuple[int, str, Value]]) -> None:
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
        return None if inner is None else f"{inner}[{WS.sub('', node_text(index))}]"
    if value.type != "identifier":
        return None
    return f"{node_text(value)}[{WS.sub('', node_text(index))}]"


def _docstring(body: Any) -> str:
    """The string literal that opens a body, if any (Python's docstring convention)."""
    if body is None or not body.named_child_count:
        return ""
    first = body.named_children[0]
    if first.type == "expression_statement" and first.named_child_count:
        first = first.named_children[0]
    if first.type != "string":
        return ""
    return collapse(_strip_string(node_text(first)), MAX_DOC)


def _strip_string(text: str) -> str:
    text = text.lstrip("rRbBuUfF")
    for q in ('"""', "'''", '"', "'"):
        if text.startswith(q) and text.endswith(q) and len(text) >= 2 * len(q):
            return text[len(q) : -len(q)].strip()
    return text


# ``raise NotImplementedError`` / ``raise NotImplementedError("...")``.
_RAISE_NOT_IMPLEMENTED = re.compile(r"raise\s+NotImplementedError\b")


def _refuses(statement: Any) -> bool:
    """A statement of a stub's body: ``pass``, ``...``, ``raise NotImplementedError``."""
    if statement.type in ("pass_statement", "ellipsis"):  # ``def f(): ...`` on one line
        return True
    if statement.type == "expression_statement" and statement.named_child_count == 1:
        return statement.named_children[0].type == "ellipsis"
    if statement.type == "raise_statement":
        return bool(_RAISE_NOT_IMPLEMENTED.match(node_text(statement)))
    return False


class PythonSyntax(SyntaxRules):
    """Python's trees for the type flow: ``f(x)`` is a ``call``, ``@d`` a ``decorator``,
    ``super().m()`` a base-class call, ``__init__`` what calling a class runs, and a module
    or a body opens with its docstring."""

    call_types = frozenset({"call"})
    decorator_types = frozenset({"decorator"})
    super_head = "super()"
    initializer = "__init__"
    static_decorators = ("staticmethod",)
    iterate_methods = ("__iter__", "__next__")

    def bindings(self, node: Any, caps: dict[str, Any]) -> list[tuple[int, str, Value]]:
        return _bindings(node, caps)

    def arg_value(self, node: Any, scope: Def | None) -> Value | None:
        return _arg_value(node, scope)

    def arguments(self, call: Any) -> list[tuple[str | None, Any]] | None:
        args = call.child_by_field_name("arguments")
        if args is None:
            return None
        out: list[tuple[str | None, Any]] = []
        for arg in args.named_children:
            if arg.type == "keyword_argument":
                name, value = arg.child_by_field_name("name"), arg.child_by_field_name("value")
                if name is not None:
                    out.append((node_text(name), value))
                continue
            if arg.type in ("list_splat", "dictionary_splat"):
                break
            out.append((None, arg))
        return out

    def parameters(self, node: Any) -> list[str]:
        return _parameters(node)

    def decorated_value(self, node: Any, decorated: Def) -> Value:
        return _decorated_value(node, decorated)

    def receiving_function(self, node: Any) -> str | None:
        return _receiving_function(node)

    def docstring(self, body: Any) -> str:
        return _docstring(body)

    def is_stub(self, node: Any) -> bool:
        while node is not None and node.type == "decorated_definition":
            node = node.child_by_field_name("definition")
        body = node.child_by_field_name("body") if node is not None else None
        if body is None or not body.named_child_count:
            return False
        statements = [s for s in body.named_children if s.type != "comment"]
        if _docstring(body) and statements:
            statements = statements[1:]
        return all(_refuses(s) for s in statements)


SPEC = LanguageSpec(
    name="python",
    grammar="python",
    extensions=(".py", ".pyi"),
    exclude=("__pycache__/", ".pytest_cache/", ".venv/", "venv/", ".tox/"),
    entrypoints=("main.py", "app.py", "run.py", "manage.py", "__main__.py", "wsgi.py", "asgi.py"),
    tests=("test_*.py", "*_test.py", "tests/", "test/", "conftest.py"),
    self_names=("self", "cls"),
    constructor_names=("__init__", "__new__"),
    class_scope_visible=False,
    docstrings=True,
    syntax=PythonSyntax(),
    wrapper_types=("decorated_definition",),
    module_name=module_name,
    local_name=local_name,
    import_candidates=import_candidates,
)
