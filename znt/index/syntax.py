"""What the generic walk (znt/index/extract.py), the type flow (znt/index/typeflow.py) and
the language rules (``znt/index/lang/<name>.py``) share: definitions and bound values, the
text of nodes, and ``SyntaxRules``, what a language tells the walk about its syntax trees
beyond what its query captures."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from znt.index.canonical import canonical_type

MAX_SIGNATURE = 240
MAX_DOC = 1000
MAX_EXPR = 200

WS = re.compile(r"\s+")
SIMPLE = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*\Z")
_CALL_ARGS = re.compile(r"\((?:[^()]|\([^()]*\))*\)")
_GENERIC_ARGS = re.compile(r"<[^<>()]*>")
_SEPARATORS = re.compile(r"::|\?->|->|\?\.|\\")


# ``refs.resolution`` hints left for ``znt.graph.resolve`` when ``target`` is NULL: the
# callee was rewritten through a binding (``assigned``), or is a member to look up in a
# class and its bases (``member``: an instance's method; ``self``: a ``self`` call not
# defined in the class itself; ``super``: a ``super()`` call, looked up after the class).
# A trailing ``?`` marks one of several candidates.
MEMBER_HINTS = ("member", "self", "super")


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
# ``refs.kind`` of another name a definition is assigned to (``Def.aliases``): its ``expr``
# is the alias, its ``src`` and ``target`` the definition; a fact, never an edge.
ALIASES = "aliases"


# A value that is an anonymous function, by its start byte (``<lambda@123>``).
LAMBDA = "<lambda@"


@dataclass
class Def:
    """A definition the walk found (or a scope that only names its children), with what
    naming, nesting and the type flow learn about it."""

    kind: str
    name: str
    node: Any
    start: int
    end: int
    qualifier: str | None = None
    scope_only: bool = False
    # Where the unnamed object literal starts whose function this is, ``this`` inside it
    # (JS ``module.exports = { set() {}, get() { this.set() } }``); siblings share it.
    this_object: int | None = None
    # Other names the same definition is assigned to (JS ``res.set = res.header =
    # function``: ``res.set`` for the symbol ``res.header``): their nodes.
    aliases: list[Any] = field(default_factory=list)
    parent: Def | None = None  # what encloses it in the text
    owner: Def | None = None  # what it belongs to (see Extractor._name)
    qname: str = ""
    id: str = ""
    locals: set[str] = field(default_factory=set)
    # Names that are ``self`` here (Go's receiver), with where their declaration starts.
    receivers: dict[str, int] = field(default_factory=dict)
    type: str = ""  # canonical type; refining the kind never changes it
    role: str = ""

    def __post_init__(self) -> None:
        self.type = canonical_type(self.kind)


@dataclass
class Value:
    """What a name is bound to: an expression, or the result of calling it."""

    expr: str  # normalised expression the name is bound to
    instance: bool  # the result of calling ``expr`` (else the name is ``expr`` itself)
    where: Any = field(default=None, compare=False)  # the scope it was bound in (Def|None)
    # A decorated name (``@dec def f``): what ``dec`` is applied to, so a decorator that
    # returns its own parameter gives back that function, not every function it decorates.
    arg: Any = field(default=None, compare=False)  # Value | None
    decorator: bool = field(default=False, compare=False)  # ``arg`` was set (see above)
    # Where the declaration that binds the name starts, when its function declares the name
    # more than once (a Go closure's parameter named like an outer variable): the binding
    # holds only where that declaration is the one in sight (``SyntaxRules.declaration_site``).
    site: int | None = None


def first(item: tuple[Any, ...]) -> Any:
    return item[0]


def start_byte(node: Any) -> int:
    return int(node.start_byte)


def innermost(ordered: list[Def], positions: list[int]) -> list[Def | None]:
    """The innermost definition around each of ``positions`` (sorted ascending), in one
    sweep over ``ordered`` (sorted by start, outer before inner; intervals nest)."""
    out: list[Def | None] = []
    stack: list[Def] = []
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


def code_scope(d: Def | None) -> Def | None:
    """The function (or ``None``: the module) whose code runs where ``d`` is: a variable's
    initializer runs in the code around it; a class body is skipped by the caller."""
    while d is not None and d.type not in ("function", "declaration", "namespace"):
        d = d.parent
    return d


def enclosing_class(scope: Def | None) -> str | None:
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


def normalize_expr(text: str) -> str:
    """Callee text in one shape for every language: dots between segments, no call
    arguments or generic arguments, no whitespace (``$this->a::b()`` -> ``this.a.b``)."""
    if SIMPLE.match(text):
        return text[:MAX_EXPR]
    text = WS.sub("", text)
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


def node_text(node: Any) -> str:
    data: bytes = node.text
    return data.decode("utf-8", "replace")


def collapse(text: str, limit: int) -> str:
    text = WS.sub(" ", text).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


class SyntaxRules:
    """What the generic walk asks a language about its syntax trees beyond what its query
    captures: the node types of calls and decorators, how a call passes its arguments to a
    function's parameters, what a ``@binding`` match binds, a docstring. The type flow
    (bindings, decorators, lambdas passed as arguments; znt/index/typeflow.py) runs for a
    language whose query names ``@binding`` captures and reads the syntax only through these.

    The defaults describe a language without type flow or docstrings: nothing is bound, no
    node is a call. A language's rules subclass this in ``znt/index/lang/<name>.py`` and
    are its ``LanguageSpec.syntax``."""

    # Node types of a call whose callee is its ``call_function_field`` (``f()()``: a call of
    # what a call returns).
    call_types: frozenset[str] = frozenset()
    call_function_field = "function"
    # Node types of a decorator around a call (``@app.route("/")``).
    decorator_types: frozenset[str] = frozenset()
    # The normalised head of a call of the enclosing class's base (``super().m``).
    super_head: str | None = None
    # The method that initialises an instance: calling a class binds its parameters.
    initializer: str | None = None
    # Decorators of a method that takes no instance (no first parameter to skip).
    static_decorators: tuple[str, ...] = ()
    # The methods a loop calls on what it iterates over (``for x in v``).
    iterate_methods: tuple[str, ...] = ()
    # Whether the resolver knows what a method returns from its declared result (Go), so
    # ``x.m().n`` on an instance is kept as the member ``n`` of what ``m`` returns and a
    # receiver's fields (``c.engine.run()``) are members of the receiver's type.
    typed_members: bool = False

    def start_file(self) -> None:
        """Called before a file's matches are read: rules that remember things about the
        nodes of a tree (Go's declared names per function) forget the last file's here, so
        a node's ``id``, unique in its tree, can key them."""

    def declaration_site(self, function: Any, name: str, pos: int) -> int | None:
        """The start of the declaration of ``name`` in sight at ``pos`` inside ``function``
        (a function's node), when that function declares ``name`` more than once; ``None``
        when it declares it at most once (its bindings hold everywhere in it)."""
        return None

    def bindings(self, node: Any, caps: dict[str, Any]) -> list[tuple[int, str, Value]]:
        """The (position, name, value) bindings of one ``@binding`` match."""
        return []

    def arg_value(self, node: Any, scope: Def | None) -> Value | None:
        """What an argument passes (a name, an anonymous function, a call's result)."""
        return None

    def arguments(self, call: Any) -> list[tuple[str | None, Any]] | None:
        """The arguments of ``call`` in order up to the first splat, as (keyword name or
        ``None`` for a positional one, value node); ``None`` without an argument list."""
        return None

    def parameters(self, node: Any) -> list[str]:
        """The names of a function's parameters, in order (the positional ones first)."""
        return []

    def decorated_value(self, node: Any, decorated: Def) -> Value:
        """What the decorator around the call ``node`` is applied to: ``decorated`` itself
        unless the language stacks decorators."""
        return Value(decorated.qname, False, decorated.parent)

    def callee_text(self, node: Any) -> str:
        """The source text of a callee (or of a bound value) before it is normalised: a
        language may name an allocation by its type here (Go ``new(T).m`` -> ``T.m``)."""
        return node_text(node)

    def is_stub(self, node: Any) -> bool:
        """Whether a function's body does nothing but document or refuse itself (Python
        ``...``, ``pass``, ``raise NotImplementedError``): a method a subclass is meant to
        override."""
        return False

    def receiving_function(self, node: Any) -> str | None:
        """The name of the function that a ``@reference.passed`` argument is passed to."""
        return None

    def docstring(self, body: Any) -> str:
        """The documentation string that opens ``body`` (a module or a definition's body)."""
        return ""
