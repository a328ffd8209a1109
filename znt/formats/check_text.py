"""``znt check`` as text: one line per violation in the ``file:line: level [rule] message``
shape editors and CI logs turn into links, then the evidence edges and a summary."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def where(file: str | None, line: int | None) -> str:
    if not file:
        return "(project)"
    return f"{file}:{line}" if line else file


def render(doc: Mapping[str, Any]) -> str:
    lines: list[str] = []
    for v in doc["violations"]:
        lines.append(f"{where(v['file'], v['line'])}: {v['severity']} [{v['rule']}] {v['message']}")
        edges = v.get("edges") or []
        if len(edges) > 1 or (edges and v["type"] in ("no_cycles", "max_fan_out", "max_fan_in")):
            for e in edges:
                lines.append(
                    f"    {where(e['from_file'], e['line'])}: {e['from']} -> {e['to']} "
                    f"({e['kind']}, {e['resolution']}, confidence {e['confidence']:g})"
                )
            count = v.get("count")
            if (
                isinstance(count, int)
                and count > len(edges)
                and v["type"] != "max_unresolved_ratio"
            ):
                lines.append(f"    ... and {count - len(edges)} more")
    if lines:
        lines.append("")
    return "\n".join(lines + summary_lines(doc))


def summary_lines(doc: Mapping[str, Any]) -> list[str]:
    """The closing lines: how many violations in which rules (or none), and the baseline."""
    s = doc["summary"]
    lines = []
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
            f"No violations: {s['rules']} rule{'s' if s['rules'] != 1 else ''} passed "
            f"({s['edges_checked']} edge{'s' if s['edges_checked'] != 1 else ''} checked)."
        )
    if doc.get("default_rules"):
        lines.append(
            "(no znt.yaml: the default rules ran; add a 'check:' section to choose your own)"
        )
    base = doc.get("baseline")
    if base:
        lines.append(
            f"Baseline {base['ref']} ({base['commit'][:12]}): {base['known_violations']} known "
            f"violation{'s' if base['known_violations'] != 1 else ''} not reported."
        )
    return lines
