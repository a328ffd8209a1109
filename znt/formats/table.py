"""``znt sql`` results as an aligned text table or CSV (JSON goes through formats/json)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from typing import Any

MAX_CELL = 80


def cell(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, (list, dict)):
        text = json.dumps(value, ensure_ascii=False)
    elif isinstance(value, float):
        text = f"{value:g}"
    else:
        text = str(value)
    text = text.replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t")
    return text if len(text) <= MAX_CELL else text[: MAX_CELL - 1] + "…"


def numeric_columns(doc: Mapping[str, Any]) -> list[bool]:
    """Which columns hold only numbers (right-aligned)."""
    return [
        all(
            isinstance(r[i], (int, float)) and not isinstance(r[i], bool)
            for r in doc["rows"]
            if r[i] is not None
        )
        for i in range(len(doc["columns"]))
    ]


def footer(doc: Mapping[str, Any]) -> str:
    n = doc["row_count"]
    text = f"({n} row{'s' if n != 1 else ''}"
    if doc.get("truncated"):
        text += f"; truncated at --limit {doc['limit']}, more rows exist"
    return text + ")"


def render(doc: Mapping[str, Any]) -> str:
    names = [c["name"] for c in doc["columns"]]
    rows = [[cell(v) for v in r] for r in doc["rows"]]
    widths = [max([len(n), *(len(r[i]) for r in rows)]) for i, n in enumerate(names)]
    numeric = numeric_columns(doc)

    def line(cells: list[str]) -> str:
        return "  ".join(
            (c.rjust(w) if num else c.ljust(w))
            for c, w, num in zip(cells, widths, numeric, strict=True)
        ).rstrip()

    out = [line(names), "  ".join("-" * w for w in widths)]
    out.extend(line(r) for r in rows)
    out.append(footer(doc))
    return "\n".join(out)


def render_csv(doc: Mapping[str, Any]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([c["name"] for c in doc["columns"]])
    for r in doc["rows"]:
        writer.writerow(
            [
                ""
                if v is None
                else json.dumps(v, ensure_ascii=False)
                if isinstance(v, (list, dict))
                else v
                for v in r
            ]
        )
    return buf.getvalue().rstrip("\n")
