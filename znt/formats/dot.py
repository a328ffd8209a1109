"""Graphviz DOT of a graph result (``znt graph --format dot``).

Node ids are ``n0``, ``n1`` …; names only appear inside quoted labels, where a backslash
and a double quote are escaped and line breaks collapse, so any symbol name yields a valid
file (tests run it through ``dot``). Renders the ``znt.api.graph`` dict; never queries.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def quote(text: str) -> str:
    """A DOT double-quoted string holding ``text`` literally."""
    cleaned = "".join(" " if ch in "\n\r\t\v\f" or ord(ch) < 32 else ch for ch in text)
    return '"' + cleaned.replace("\\", "\\\\").replace('"', '\\"') + '"'


_SHAPES = {"declaration": "box3d", "namespace": "folder", "member": "note"}


def render(doc: Mapping[str, Any]) -> str:
    """A ``digraph`` laid out left to right; dashed edges below full confidence, bold
    outlines for the start (and target) nodes, grey ellipses for external nodes."""
    title = doc.get("from") or "graph"
    lines = [
        "digraph znt {",
        f"  label={quote('znt graph ' + str(title) + (' -> ' + str(doc['to']) if doc.get('to') else ''))};",
        "  labelloc=t;",
        "  rankdir=LR;",
        '  node [shape=box, style=rounded, fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=9];',
    ]
    ids: dict[str, str] = {}
    for i, node in enumerate(doc.get("nodes", [])):
        ids[node["id"]] = f"n{i}"
        name = node.get("qualified_name") or node.get("name") or node["id"]
        if node.get("file"):
            where = f"{node['file']}:{node.get('start_line') or ''}".rstrip(":")
            label = quote(name)[:-1] + "\\n" + quote(where)[1:]
        else:
            label = quote(name)
        attrs = [f"label={label}", f"tooltip={quote(node['id'])}"]
        if node.get("external"):
            attrs += ["shape=ellipse", "style=dashed", "color=gray40"]
        elif node.get("type") in _SHAPES:
            attrs.append(f"shape={_SHAPES[node['type']]}")
        if node.get("start") or node.get("target"):
            attrs.append("penwidth=2.5")
        lines.append(f"  n{i} [{', '.join(attrs)}];")
    for edge in doc.get("edges", []):
        a, b = ids.get(edge["from"]), ids.get(edge["to"])
        if a is None or b is None:
            continue
        attrs = [f"label={quote(edge['type'])}"]
        if (edge.get("confidence") or 0) < 1:
            attrs.append("style=dashed")
        resolution = edge.get("resolution")
        if resolution:
            attrs.append(f"tooltip={quote(resolution)}")
        lines.append(f"  {a} -> {b} [{', '.join(attrs)}];")
    lines.append("}")
    return "\n".join(lines)
