"""Plain-text rendering of a graph result (``znt graph``'s default format): who the start
is, each node with its place, each edge with its type and how it was resolved, then
whether the answer is complete and how fresh the index is. Renders; never queries."""

from __future__ import annotations

import datetime as _dt
import itertools
from collections.abc import Mapping
from typing import Any

from znt.formats.text import plural


def _where(node: dict[str, Any]) -> str:
    if node.get("external"):
        return "(external)"
    line = node.get("start_line")
    end = node.get("end_line")
    span = f"{line}-{end}" if line and end and end != line else f"{line or ''}"
    return f"{node.get('file')}:{span}".rstrip(":")


def _name(node: dict[str, Any] | None, fallback: str) -> str:
    if node is None:
        return fallback
    return str(node.get("qualified_name") or node.get("name") or fallback)


def _footer(doc: Mapping[str, Any]) -> list[str]:
    out = []
    comp = doc.get("completeness") or {}
    if comp:
        if comp.get("complete"):
            out.append("completeness: complete for the chosen edge types")
        else:
            out.append("completeness: lower bound")
            out += [f"  - {r}" for r in comp.get("reasons", [])]
    fr = doc.get("freshness") or {}
    if fr:
        at = fr.get("last_scan_at")
        when = (
            _dt.datetime.fromtimestamp(float(at)).strftime("%Y-%m-%d %H:%M:%S") if at else "never"
        )
        commit = (fr.get("index_commit") or "-")[:12]
        moved = "  (HEAD moved since: run `znt scan`)" if fr.get("commit_changed") else ""
        out.append(f"index: scanned {when}, commit {commit}{moved}")
    return out


def render(doc: Mapping[str, Any]) -> str:
    nodes = {n["id"]: n for n in doc.get("nodes", [])}
    kinds = ",".join(doc.get("edge_types", []))
    lines: list[str] = []
    for w in doc.get("warnings", []):
        lines.append(f"warning: {w}")
    if doc.get("mode") == "path":
        start, target = doc["start"]["label"], doc["target"]["label"]
        if not doc.get("found"):
            lines.append(f"No path from {start} to {target} over {kinds}.")
            return "\n".join(lines + _footer(doc))
        paths = doc.get("paths", [])
        lines.append(
            f"Path {start} -> {target}: {plural(int(doc.get('path_length') or 0), 'edge')}, "
            f"{plural(len(paths), 'shortest path')} over {kinds}"
        )
        by_pair: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for e in doc.get("edges", []):
            by_pair.setdefault((e["from"], e["to"]), []).append(e)
        for k, path in enumerate(paths, 1):
            lines.append("")
            first = nodes.get(path[0])
            lines.append(f"{k}. {_name(first, path[0])}  {_where(first or {})}")
            for a, b in itertools.pairwise(path):
                es = by_pair.get((a, b), [])
                how = ", ".join(f"{e['type']} {e['resolution']} {e['confidence']:.2f}" for e in es)
                node = nodes.get(b)
                lines.append(f"   -> {_name(node, b)}  {_where(node or {})}  [{how}]")
    else:
        start = doc["start"]
        lines.append(
            f"Neighbourhood of {start['label']} ({start['matched_by'].replace('_', ' ')}): "
            f"{plural(len(nodes), 'node')}, {plural(len(doc.get('edges', [])), 'edge')}; "
            f"depth {doc['depth']}, "
            f"{doc['direction']}, {kinds}" + ("; TRUNCATED" if doc.get("truncated") else "")
        )
        lines.append("")
        lines.append("nodes:")
        width = max((len(_name(n, i)) for i, n in nodes.items()), default=10)
        width = min(width, 60)
        for i, n in nodes.items():
            mark = "start" if n.get("start") else f"+{n.get('distance')}"
            lines.append(
                f"  {mark:>5}  {_name(n, i):<{width}}  {n.get('type', ''):<11} {_where(n)}"
            )
        lines.append("")
        lines.append("edges:")
        if not doc.get("edges"):
            lines.append("  (none)")
        for e in doc.get("edges", []):
            lines.append(
                f"  {_name(nodes.get(e['from']), e['from'])} --{e['type']}--> "
                f"{_name(nodes.get(e['to']), e['to'])}  ({e['resolution']}, {e['confidence']:.2f})"
            )
        for cycle in doc.get("cycles") or []:
            names = [_name(nodes.get(i), i) for i in cycle]
            lines.append(f"cycle: {' <-> '.join(names)}")
    lines.append("")
    lines += _footer(doc)
    return "\n".join(lines)
