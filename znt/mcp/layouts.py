"""The one text block each MCP tool returns, in the original's layouts (reference §4):
search as Score/Name/File/Code sections, outline as its ``[file_outline]`` text, text and
mermaid graphs as they are, JSON for the rest. The renderers of ``znt.formats`` are reused
where the layout is the same; only the search sections are MCP-specific.

Also the response budget: no answer may exceed ``MAX_RESPONSE_TOKENS`` (text block plus
structured content, ``ceil(chars/4)``); lists are cut and ``truncated`` set when it would.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from znt.formats.safe_text import escape_doc, fence
from znt.mcp.metrics import estimate_tokens

MAX_RESPONSE_TOKENS = 25_000
NO_MATCH = "No matching components found."

Renderer = Callable[[dict[str, Any]], str]


def pretty(doc: Mapping[str, Any]) -> str:
    return json.dumps(doc, ensure_ascii=False, indent=2, default=str)


def compact_json(doc: Any) -> str:
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"), default=str)


def _relations(items: list[dict[str, Any]], key: str, depth: int) -> list[str]:
    lines = []
    for x in items:
        where = f"{x['file']}:{x['start_line']}" if x.get("file") else "external"
        lines.append(f"{'  ' * depth}- {x['name']} ({where})")
        if x.get(key):
            lines.extend(_relations(x[key], key, depth + 1))
    return lines


def search(doc: Mapping[str, Any]) -> str:
    """Score/Name/File/Code sections, one per result, separated by a blank line."""
    results = escape_doc(doc.get("results") or [])
    if not results:
        return NO_MATCH
    sections = []
    for r in results:
        lines = [
            f"Score: {r['score']:.2f} ({'+'.join(r.get('found_by', []))})",
            f"Name: {r.get('qualified_name') or r['name']} [{r['type']}/{r['kind']}, {r['role']}]",
            f"File: {r['file']}:{r['start_line']}-{r['end_line']}",
        ]
        if r.get("signature"):
            lines.append(f"Signature: {r['signature'].splitlines()[0][:200]}")
        if r.get("description"):
            lines.append(f"Description: {r['description'].splitlines()[0][:200]}")
        if r.get("similarity_reason"):
            lines.append(f"Reason: {r['similarity_reason']}")
        for key in ("callers", "callees"):
            if r.get(key):
                lines.append(f"{key.capitalize()}:")
                lines.extend(_relations(r[key], key, 1))
        if r.get("code"):
            # The fence outruns every backtick run in the code: source text cannot close
            # it and write a forged result after it.
            mark = fence(r["code"])
            lines.append("Code:")
            lines.append(mark)
            lines.extend(r["code"].splitlines())
            lines.append(mark + (" (cut at max_code_lines)" if r.get("code_truncated") else ""))
        sections.append("\n".join(lines))
    out = "\n\n".join(sections)
    if doc.get("truncated"):
        nxt = doc.get("next_offset")
        out += "\n\n(more results" + (f": call again with offset {nxt}" if nxt else "") + ")"
    warnings = doc.get("warnings") or []
    if warnings:
        out += "\n" + "\n".join(f"note: {w}" for w in warnings)
    return out


def outline(doc: dict[str, Any]) -> str:
    """The ``[file_outline]`` text; ``formatted_text`` (the original's field) is kept equal
    to it when the budget cuts the symbol list."""
    from znt.formats import text

    out = text.outline(doc)
    if "formatted_text" in doc:
        doc["formatted_text"] = out
    return out


def repo_map(doc: Mapping[str, Any]) -> str:
    from znt.formats import map_text

    return map_text.render(doc)


def graph(doc: Mapping[str, Any], fmt: str) -> str:
    if fmt == "json":
        return pretty(doc)
    if fmt == "mermaid":
        from znt.formats import mermaid

        return mermaid.render(doc)
    from znt.formats import graph_text

    return graph_text.render(doc)


def error(payload: dict[str, Any]) -> str:
    """``Error [code]: message``, then what helps the agent retry (candidates, suggestions)."""
    lines = [f"Error [{payload['code']}]: {payload['message']}"]
    for key, label in (("candidates", "Candidates"), ("suggestions", "Did you mean")):
        values = payload.get(key)
        if values:
            lines.append(f"{label}:")
            lines.extend(f"- {v}" for v in values)
    rest = {
        k: v
        for k, v in payload.items()
        if k not in ("code", "message", "candidates", "suggestions")
    }
    if rest:
        lines.append(compact_json(rest))
    return "\n".join(lines)


# -- the response budget -------------------------------------------------------------------

# The list in each document that can be cut, and the lists that refer to its items.
_LISTS = ("results", "nodes", "symbols", "entries", "violations", "items")


def size(text: str, doc: Mapping[str, Any]) -> int:
    return estimate_tokens(text) + estimate_tokens(compact_json(doc))


def bound(
    doc: dict[str, Any], render: Renderer, budget: int = MAX_RESPONSE_TOKENS
) -> tuple[str, dict[str, Any]]:
    """The text and the document, cut until both together fit ``budget`` tokens.

    Halves the longest list (dropping graph edges whose ends went), then drops ``code``
    fields, and as a last resort replaces the answer by a note; every cut sets
    ``truncated`` and ``truncated_reason``."""
    text = render(doc)
    if size(text, doc) <= budget:
        return text, doc
    doc = dict(doc)
    reason = f"the answer exceeded the MCP response budget of {budget} tokens"
    while True:
        lists = [k for k in _LISTS if isinstance(doc.get(k), list) and len(doc[k]) > 1]
        if not lists:
            break
        key = max(lists, key=lambda k: len(doc[k]))
        before = len(doc[key])
        doc[key] = doc[key][: before // 2]
        if key == "results" and isinstance(doc.get("offset"), int):
            # The next page starts at the first result this answer no longer holds.
            doc["next_offset"] = doc["offset"] + len(doc[key])
        if key == "nodes" and isinstance(doc.get("edges"), list):
            kept = {n.get("id") for n in doc["nodes"]}
            doc["edges"] = [e for e in doc["edges"] if e["from"] in kept and e["to"] in kept]
        doc["truncated"] = True
        doc["truncated_reason"] = reason
        text = render(doc)
        if size(text, doc) <= budget:
            return text, doc
    for key in _LISTS:
        if isinstance(doc.get(key), list):
            doc[key] = [
                {k: v for k, v in item.items() if k != "code"} if isinstance(item, dict) else item
                for item in doc[key]
            ]
    doc["truncated"] = True
    doc["truncated_reason"] = reason + "; code dropped"
    text = render(doc)
    if size(text, doc) <= budget:
        return text, doc
    small = {k: doc[k] for k in ("schema_version", "kind") if k in doc} | {
        "truncated": True,
        "truncated_reason": reason + "; narrow the request",
    }
    return pretty(small), small
