"""Mermaid flowcharts of a graph result (``znt graph --format mermaid``).

Node ids are ``n0``, ``n1`` … so no symbol name can break the syntax (``end``, ``graph``
and friends are keywords there); every label is a quoted string whose risky characters are
Mermaid entity codes (``#34;`` for a quote), so ``operator<<``, ``__init__``, ``a[0]`` and
names in any script render as written. tests/test_mermaid_render.py checks this with the
real mermaid library. Renders the ``znt.api.graph`` dict; never queries.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

# Kept as they are inside a quoted label; any other ASCII punctuation becomes an entity code.
_SAFE_ASCII = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _.,:/+-*=!?@$^~'()"
)


def escape(text: str) -> str:
    """``text`` made safe inside ``"…"`` of a Mermaid label: ASCII outside a small safe set,
    control and format characters become ``#<code point>;`` (Mermaid's entity codes); other
    letters, in any script, stay readable."""
    out = []
    for ch in text:
        if ch in _SAFE_ASCII:
            out.append(ch)
        elif ord(ch) < 128 or unicodedata.category(ch).startswith(("C", "Z")):
            out.append(" " if ch in "\n\r\t" else f"#{ord(ch)};")
        else:
            out.append(ch)
    return "".join(out)


def _label(node: dict[str, Any]) -> str:
    name = escape(node.get("qualified_name") or node.get("name") or node["id"])
    if node.get("file"):
        where = escape(f"{node['file']}:{node.get('start_line') or ''}".rstrip(":"))
        return f"{name}<br/><small>{where}</small>"
    return f"{name}<br/><small>external</small>" if node.get("external") else name


def _shape(node: dict[str, Any], label: str) -> str:
    if node.get("external"):
        return f'(["{label}"])'
    typ = node.get("type")
    if typ == "declaration":
        return f'[["{label}"]]'
    if typ == "namespace":
        return f'[/"{label}"/]'
    if typ == "member":
        return f'>"{label}"]'
    return f'("{label}")'


def render(doc: Mapping[str, Any]) -> str:
    """A ``flowchart LR`` of the result's nodes and edges, edge labels = edge type; edges
    below full confidence are dotted; start and target nodes are outlined."""
    lines = ["flowchart LR"]
    ids: dict[str, str] = {}
    for i, node in enumerate(doc.get("nodes", [])):
        ids[node["id"]] = f"n{i}"
        lines.append(f"  n{i}{_shape(node, _label(node))}")
    for edge in doc.get("edges", []):
        a, b = ids.get(edge["from"]), ids.get(edge["to"])
        if a is None or b is None:
            continue
        arrow = "-->" if (edge.get("confidence") or 0) >= 1 else "-.->"
        lines.append(f"  {a} {arrow}|{escape(edge['type'])}| {b}")
    lines += [
        "  classDef start stroke-width:3px",
        "  classDef target stroke-width:3px,stroke-dasharray:6 3",
        "  classDef ext stroke-dasharray:3 3,opacity:0.8",
    ]
    for cls, key in (("start", "start"), ("target", "target"), ("ext", "external")):
        members = [ids[n["id"]] for n in doc.get("nodes", []) if n.get(key)]
        if members:
            lines.append(f"  class {','.join(members)} {cls}")
    comp = doc.get("completeness") or {}
    if comp:
        lines.append(
            "%% "
            + ("complete" if comp.get("complete") else "lower bound")
            + f"; {len(ids)} nodes, {len(doc.get('edges', []))} edges"
            + ("; truncated" if doc.get("truncated") else "")
        )
    return "\n".join(lines)
