"""JSON and JSON Lines renderers. Stable key order, UTF-8, one document per invocation."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def render(doc: Mapping[str, Any]) -> str:
    return json.dumps(doc, ensure_ascii=False, indent=2, default=str)


def render_lines(doc: Mapping[str, Any], list_key: str) -> str:
    """One JSON object per line for the list under ``list_key`` (for ``jq -c`` and streams)."""
    items = doc.get(list_key) or []
    return "\n".join(json.dumps(item, ensure_ascii=False, default=str) for item in items)
