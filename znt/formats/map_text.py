"""``znt map`` as text: a head line, then each file (``path:``) with its symbols, as
znt/graph/repomap.py budgets them; a closing line when the map was cut. The head and
closing lines stay within the characters repomap keeps for them (FRAME_CHARS)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def render(doc: Mapping[str, Any]) -> str:
    files = doc.get("files") or []
    symbols = sum(len(f["symbols"]) for f in files)
    focus = " personalised to the focus;" if doc.get("focus") else ""
    lines = [
        f"[repo_map] {len(files)} of {doc.get('total_files', 0)} files, {symbols} symbols, "
        f"~{doc.get('tokens', 0)} of {doc.get('max_tokens')} tokens;{focus} PageRank"[:100]
    ]
    for f in files:
        lines.append(f"{f['path']}:")
        lines += [f"  {s['outline']}" for s in f["symbols"]]
    if not files:
        lines.append("(nothing to map: no symbols in the chosen files)")
    elif doc.get("truncated"):
        lines.append("(cut at the token budget: raise --max-tokens for more)")
    return "\n".join(lines)
