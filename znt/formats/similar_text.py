"""Plain-text rendering of a ``similar`` answer: what was compared, with which weights,
then one block per result (score, place, why it is similar, how the score splits, its
caller/callee counts, optionally its code). Renders; never queries."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PARTS = ("vector", "lexical", "structure", "role_kind")


def _where(item: dict[str, Any]) -> str:
    start, end = item.get("start_line"), item.get("end_line")
    span = f"{start}-{end}" if start and end and end != start else f"{start or ''}"
    return f"{item.get('file')}:{span}".rstrip(":")


def _head(doc: Mapping[str, Any]) -> str:
    target = doc.get("target") or {}
    mode = doc.get("mode")
    if mode == "target":
        sym = target.get("symbol") or {}
        how = str(target.get("matched_by", "")).replace("_", " ")
        return f"Similar to {target.get('label')} ({_where(sym)}, matched by {how})"
    if mode == "snippet":
        names = ", ".join(s["qualified_name"] for s in target.get("symbols", [])) or "statements"
        calls = ", ".join(target.get("calls", [])) or "nothing"
        return f"Similar to the {target.get('language')} snippet ({names}; calls {calls})"
    return f"Similar to the description {target.get('query')!r}"


def render(doc: Mapping[str, Any]) -> str:
    lines = [_head(doc)]
    weights = doc.get("weights") or {}
    lines.append(
        "score = "
        + " + ".join(f"{weights[p]:.2f} x {p}" for p in PARTS if p in weights)
        + f"; edge types {','.join(doc.get('edge_types', []))}"
    )
    for w in doc.get("warnings", []):
        lines.append(f"warning: {w}")
    results = doc.get("results") or []
    lines.append("")
    if not results:
        lines.append("No similar code found.")
        return "\n".join(lines)
    offset = int(doc.get("offset") or 0)
    width = min(max(len(str(r.get("qualified_name") or r["id"])) for r in results), 50)
    for n, r in enumerate(results, offset + 1):
        name = str(r.get("qualified_name") or r["id"])
        lines.append(
            f"{n:>3}. {r['score']:.3f}  {name:<{width}}  {r.get('kind') or r.get('type')}  "
            f"{_where(r)}"
        )
        lines.append(f"       {r.get('similarity_reason', '')}")
        parts = r.get("score_parts") or {}
        split = " + ".join(f"{p} {parts[p]:.3f}" for p in PARTS if p in weights and p in parts)
        callers, callees = r.get("callers") or {}, r.get("callees") or {}
        lines.append(
            f"       = {split}; callers {callers.get('internal', 0)} internal, "
            f"{callers.get('external', 0)} external; callees {callees.get('internal', 0)} "
            f"internal, {callees.get('external', 0)} external"
        )
        code = r.get("code")
        if code:
            lines += [f"       | {line}" for line in code.splitlines()]
            if r.get("code_truncated"):
                lines.append("       | ...")
    lines.append("")
    shown = f"{offset + 1}-{offset + len(results)}"
    more = f" (--offset {doc['next_offset']} for more)" if doc.get("truncated") else ""
    lines.append(f"showing {shown} of {doc.get('total_candidates')} candidates{more}")
    return "\n".join(lines)
