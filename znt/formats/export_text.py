"""``znt export`` as text: where the export went and how many rows each table holds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def render(doc: Mapping[str, Any]) -> str:
    verb = "replaced" if doc.get("replaced") else "exported"
    rows = ", ".join(f"{table} {n:,}" for table, n in doc.get("rows", {}).items())
    return (
        f"{verb} {doc['repository']} at {doc['commit']} into {doc['folder']} "
        f"({doc.get('bytes', 0) / 1e6:.1f} MB): {rows}"
    )
