"""Plain-text rendering of an impact result (``znt impact``'s default format): the changed
files, the symbols the change touches, their callers by distance with the symbol each one
calls, the tests among them, then why the answer is a lower bound and how fresh the index
is. Renders; never queries."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from znt.formats.graph_text import _footer
from znt.formats.text import plural


def _where(node: dict[str, Any]) -> str:
    a, b = node.get("start_line"), node.get("end_line")
    span = f"{a}-{b}" if a and b and a != b else f"{a or ''}"
    return f"{node.get('file')}:{span}".rstrip(":")


def _name(node: dict[str, Any]) -> str:
    return str(node.get("qualified_name") or node.get("name") or node["id"])


def render(doc: Mapping[str, Any]) -> str:
    by_id = {n["id"]: n for n in doc.get("nodes", [])}
    lines: list[str] = [f"warning: {w}" for w in doc.get("warnings", [])]
    source = {
        "staged": "the staged change",
        "diff": f"the working tree against {doc.get('ref')}",
        "paths": "the named files",
    }.get(doc.get("mode", ""), "the change")
    files = doc.get("files", [])
    if not files:
        lines.append(f"No changed files in {source}.")
        return "\n".join(lines + _footer(doc))
    lines.append(f"Impact of {source} ({plural(len(files), 'file')}):")
    for f in files:
        renamed = f" (from {f['old_path']})" if f.get("old_path") else ""
        stale = "  [index stale]" if f.get("index_stale") else ""
        lines.append(f"  {f['status']:<9} {f['path']}{renamed}{stale}")
    changed = doc.get("changed", [])
    if not changed:
        lines.append("No indexed symbols touched.")
        return "\n".join(lines + _footer(doc))
    lines.append("")
    lines.append(f"Changed symbols ({len(changed)}):")
    for n in changed:
        rng = ", ".join(f"{a}-{b}" if a != b else f"{a}" for a, b in n.get("changed_lines", []))
        test = "  [test]" if n.get("role") == "test" else ""
        lines.append(f"  {_name(n)}  {_where(n)}  (lines {rng}){test}")
    callers = doc.get("callers", [])
    lines.append("")
    lines.append(f"Callers up to depth {doc.get('depth')} ({len(callers)}):")
    if not callers:
        lines.append("  (none found)")
    for n in callers:
        via = by_id.get(n.get("via") or "")
        calls = f"  -> {_name(via)}" if via else ""
        test = "  [test]" if n.get("role") == "test" else ""
        lines.append(f"  {n['distance']}  {_name(n)}  {_where(n)}{calls}{test}")
    tests = doc.get("tests", [])
    lines.append("")
    lines.append(f"Tests among them ({len(tests)}):")
    candidates = doc.get("candidate_tests", [])
    if not tests and candidates:
        lines.append(
            f"  (none through resolved calls; {len(candidates)} test(s) make unresolved calls "
            "of a changed symbol's name and may call it:)"
        )
        lines.extend(f"  ?  {_name(n)}  {_where(n)}" for n in candidates)
    elif not tests:
        lines.append("  (none found)")
    for n in tests:
        lines.append(f"  {_name(n)}  {_where(n)}")
    lines.append("")
    return "\n".join(lines + _footer(doc))
