"""Language kinds mapped to Znt's five canonical node types (DESIGN §3).

The table is the whole of the rule: a kind a language query emits that is missing here is a
bug in that query, caught by the fixture tests.
"""

from __future__ import annotations

import re

KIND_TO_TYPE: dict[str, str] = {
    # declaration: class, struct, interface, trait, enum, type alias, record
    "class": "declaration",
    "struct": "declaration",
    "interface": "declaration",
    "trait": "declaration",
    "enum": "declaration",
    "type": "declaration",
    "record": "declaration",
    "union": "declaration",
    "object": "declaration",
    "annotation": "declaration",
    "protocol": "declaration",
    "message": "declaration",
    "service": "declaration",
    "table": "declaration",
    "view": "declaration",
    "stage": "declaration",
    # function: function, method, constructor, lambda bound to a name
    "function": "function",
    "method": "function",
    "constructor": "function",
    "lambda": "function",
    "macro": "function",
    "rpc": "function",
    "target": "function",
    "procedure": "function",
    # member: field, property, constant, enum member
    "field": "member",
    "property": "member",
    "constant": "member",
    "variable": "member",
    "enum_member": "member",
    "key": "member",
    "event": "member",
    # namespace: module, package, namespace
    "module": "namespace",
    "package": "namespace",
    "namespace": "namespace",
    "section": "namespace",
    "scope": "namespace",
    # dependency: an imported module or package
    "dependency": "dependency",
    "external": "function",
}

_CONSTANT = re.compile(r"[A-Z][A-Z0-9_]*\Z")


def canonical_type(kind: str) -> str:
    return KIND_TO_TYPE[kind]


def refine_kind(
    kind: str,
    name: str,
    parent_type: str | None,
    constructor_names: tuple[str, ...],
    uppercase_constants: bool = True,
) -> str:
    """Make the language kind say where the symbol sits: a function in a class is a
    method, ``__init__`` a constructor, a variable in a class a field, ``MAX_SIZE`` a
    constant."""
    in_class = parent_type == "declaration"
    if kind in ("function", "method") and in_class and name in constructor_names:
        return "constructor"
    if kind == "function" and in_class:
        return "method"
    if kind == "variable":
        if uppercase_constants and _CONSTANT.match(name):
            return "constant"
        if in_class:
            return "field"
    return kind
