"""``znt check`` as text: one line per violation in the ``file:line: level [rule] message``
shape editors and CI logs turn into links, then the evidence edges and a summary."""

from __future__ import annotations

from typing import Any


def _where(file: str | None, line: int | None) -> str:
    if not file:
        return "(project)"
    return f"{file}:{line}" if line else file


def render(doc: dict[str, Any]) -> str:
    lines: list[str] = []
    for v in doc["violations"]:
        lines.append(
            f"{_where(v['file'], v['line'])}: {v['severity']} [{v['rule']}] {v['message']}"
        )
        edges = v.get("edges") or []
        if len(edges) > 1 or (edges and v["type"] in ("no_cycles", "max_fan_out", "max_fan_in")):
            for e in edges:
                lines.append(
                    f"    {_where(e['from_file'], e['line'])}: {e['from']} -> {e['to']} "
                    f"({e['kind']}, {e['resolution']}, confidence {e['confidence']:g})"
                )
            count = v.get("count")
            if (
                isinstance(count, int)
                and count > len(edges)
                and v["type"] != "max_unresolved_ratio"
            ):
                lines.append(f"    ... and {count - len(edges)} more")
    s = doc["summary"]
    if lines:
        lines.append("")
    failing = [r["id"] for r in doc["rules"] if r["violations"]]
    if s["violations"]:
        lines.append(
            f"{s['violations']} violation{'s' if s['violations'] != 1 else ''} "
            f"({s['errors']} error{'s' if s['errors'] != 1 else ''}, {s['warnings']} "
            f"warning{'s' if s['warnings'] != 1 else ''}) in {len(failing)} of {s['rules']} "
            f"rules: {', '.join(failing)}"
        )
    else:
        lines.append(
            f"No violations: {s['rules']} rules passed ({s['edges_checked']} edges checked)."
        )
    base = doc.get("baseline")
    if base:
        lines.append(
            f"Baseline {base['ref']} ({base['commit'][:12]}): {base['known_violations']} known "
            f"violation{'s' if base['known_violations'] != 1 else ''} not reported."
        )
    return "\n".join(lines)
