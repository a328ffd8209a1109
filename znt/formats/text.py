"""Human-readable renderers. They take the dicts ``znt.api`` returns and never query."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from typing import Any

from znt.formats.safe_text import escape_controls as escape_controls
from znt.formats.safe_text import fence


def _when(ts: Any) -> str:
    if not ts:
        return "never"
    try:
        return _dt.datetime.fromtimestamp(float(ts)).strftime("%Y-%m-%d %H:%M:%S")
    except (TypeError, ValueError, OSError):
        return str(ts)


def _short(commit: Any) -> str:
    return str(commit)[:12] if commit else "-"


def scan(doc: Mapping[str, Any]) -> str:
    """The summary line, the warnings, and last what embedding did and how long it took."""
    if doc.get("mode") == "dry_run":
        return dry_run(doc)
    lines = []
    mode = doc["mode"]
    if mode == "noop":
        head = f"Index is up to date: {plural(doc['files_total'], 'file')} unchanged"
    else:
        head = (
            f"Indexed {plural(doc['files_total'], 'file')} ({mode}): {doc['files_parsed']} "
            f"parsed, {doc['files_unchanged']} unchanged, {doc['files_deleted']} removed"
        )
    lines.append(
        f"{head}; {plural(doc['symbols'], 'symbol')}, {plural(doc['edges'], 'edge')}; "
        f"{plural(doc['warnings'], 'warning')}; {doc['duration_ms'] / 1000:.2f}s"
    )
    for p in doc.get("problems", [])[:20]:
        where = f"{p['path']}: " if p.get("path") else ""
        lines.append(f"  warning: {where}{p['message']}")
    if len(doc.get("problems", [])) > 20:
        lines.append(f"  ... and {len(doc['problems']) - 20} more (znt logs)")
    emb_line = _embedding_line(doc.get("embeddings") or {})
    if emb_line:
        lines.append(emb_line)
    return "\n".join(lines)


def _embedding_line(emb: dict[str, Any]) -> str:
    status = emb.get("status")
    if status in ("completed", "partial") and emb.get("embedded"):
        seconds = float(emb.get("seconds") or 0)
        rate = f", {emb['embedded'] / seconds:.1f} texts/s" if seconds > 0 else ""
        return (
            f"Embedded {plural(int(emb['embedded']), 'text')} with {emb.get('model_key')} "
            f"in {seconds:.2f}s{rate}"
        )
    if status == "up_to_date" or (status == "completed" and not emb.get("embedded")):
        return f"Embeddings up to date ({emb.get('model_key')}): nothing new to embed, 0.00s"
    if status == "skipped":
        return f"Embeddings skipped ({emb.get('message')})"
    if status in ("partial", "failed"):
        return f"Embeddings {status}: {emb.get('message')}"
    return ""


def dry_run(doc: Mapping[str, Any]) -> str:
    d = doc["dry_run"]
    out = [
        f"Would index {doc['files_total']} files ({d['bytes'] / 1e6:.1f} MB) in {doc['path']}",
        f"  {d['would_parse']} to parse (new or changed); estimated {d['estimated_seconds']}s",
        "",
        "By language:",
    ]
    out += [
        f"  {x['language']:<12} {x['files']:>7} files  {x['bytes'] / 1e6:8.2f} MB"
        for x in d["languages"]
    ]
    out += ["", "Top folders:"]
    out += [f"  {x['folder']:<30} {x['files']:>7}" for x in d["top_folders"]]
    out += ["", "Excluded by:"]
    out += [f"  {x['source']:<30} {x['count']:>7}" for x in d["ignored"]] or ["  (nothing)"]
    if d["skipped"]:
        out += ["", "Skipped:"]
        out += [f"  {x['path']}: {x['reason']}" for x in d["skipped"][:20]]
    out += ["", _embedding_estimate(d.get("embeddings"))]
    return "\n".join(out)


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 warning``, ``2 warnings`` (``many`` for irregular plurals)."""
    return f"{n} {word if n == 1 else many or word + 's'}"


def _embedding_estimate(emb: Any) -> str:
    if not isinstance(emb, dict):
        return f"Embeddings: {emb}"
    if emb.get("status") == "skipped":
        return f"Embeddings: none ({emb.get('message')})"
    line = f"Embeddings: {plural(int(emb['texts']), 'text')} to embed with {emb.get('model_key')}"
    if emb.get("seconds") is not None:
        source = "measured in the last scan" if emb.get("rate_source") == "last scan" else "typical"
        line += (
            f"; about {_duration(float(emb['seconds']))} at {emb['texts_per_second']:g} "
            f"texts/s ({source})"
        )
    else:
        line += "; no throughput measured yet for this provider"
    return line


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f}s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def status_rows(doc: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``status`` as (label, value) rows: the text layout and the terminal table."""
    s = doc["stats"]
    rows = [
        ("Path", str(doc["requested_path"])),
        ("Project", f"{doc['project_root'] or '-'} (coverage: {doc['coverage']})"),
        ("Index", f"{'yes' if doc['has_index'] else 'no'}   status: {doc['status']}"),
        (
            "Counts",
            f"{plural(s['files'], 'file')}, {plural(s['declarations'], 'declaration')}, "
            f"{plural(s['functions'], 'function')}, {plural(s['members'], 'member')}, "
            f"{plural(s['dependencies'], 'dependency', 'dependencies')}, "
            f"{plural(s['edges'], 'edge')}",
        ),
    ]
    emb = doc.get("embeddings")
    if emb is not None:
        if emb.get("model"):
            rows.append(
                (
                    "Embedded",
                    f"{emb['embedded']} of {plural(emb['texts'], 'text')} "
                    f"({emb['model']})"
                    + (
                        ""
                        if emb["embedded"] >= emb["texts"]
                        else "; run `znt scan` to embed the rest"
                    ),
                )
            )
        else:
            rows.append(("Embedded", "no (lexical search and the graph only; see `znt setup`)"))
    scan_info = doc.get("scan") or {}
    if scan_info:
        rows.append(
            (
                "Last scan",
                f"{_when(scan_info.get('at'))} ({scan_info.get('mode')}, "
                f"{scan_info.get('duration_ms')} ms, "
                f"{plural(int(scan_info.get('warnings') or 0), 'warning')})",
            )
        )
    fr = doc.get("freshness")
    if fr:
        rows.append(
            (
                "Commit",
                f"indexed {_short(fr.get('index_commit'))}, HEAD {_short(fr.get('head_commit'))}"
                + ("  (HEAD moved)" if fr.get("commit_changed") else ""),
            )
        )
        if fr.get("stale") is not None:
            if fr["stale"]:
                rows.append(
                    (
                        "Stale",
                        f"yes - {fr['files_changed']} changed, {fr['files_added']} added, "
                        f"{fr['files_deleted']} deleted since the scan (run `znt scan`)",
                    )
                )
            else:
                rows.append(("Stale", "no"))
    p = doc.get("provider") or {}
    if p.get("mode"):
        how = {"managed": "chosen with `znt setup`", "ZNT_CONFIG": "from ZNT_CONFIG"}.get(
            p.get("source") or "", "znt's default (choose one with `znt setup`)"
        )
        model = f" {p['model']}" if p.get("model") else ""
        rows.append(("Provider", f"{p['mode']}{model}, {how}"))
    elif p.get("error"):
        rows.append(("Provider", f"unusable config: {p['error']}"))
    return rows


def status(doc: Mapping[str, Any]) -> str:
    return "\n".join(f"{label + ':':<10} {value}" for label, value in status_rows(doc))


def outline(doc: Mapping[str, Any]) -> str:
    lines = [f"[file_outline] {doc['file']} ({plural(doc['total_symbols'], 'symbol')})"]
    for s in doc["symbols"]:
        sig = s["signature"] or s["name"]
        indent = "  " * s.get("depth", 0)
        lines.append(
            f"{indent}L{s['start_line']}-{s['end_line']} {s['type']}/{s['kind']} "
            f"{s['qualified_name']}: {sig}"
        )
        if "code" in s:
            lines.extend("    " + ln for ln in s["code"].splitlines())
    if doc.get("file_changed_since_scan"):
        lines.append("(note: the file changed since the last scan; run `znt scan`)")
    return "\n".join(lines)


def _table(title: str, data: dict[str, int]) -> list[str]:
    if not data:
        return [f"{title}: none"]
    width = max(len(k) for k in data)
    return [f"{title}:"] + [f"  {k:<{width}}  {v:>8}" for k, v in data.items()]


def stats_parts(
    doc: Mapping[str, Any],
) -> tuple[list[str], list[tuple[str, dict[str, int]]], list[str]]:
    """``stats`` as its summary lines, its (title, counts) sections and its closing lines:
    the text layout and the terminal tables."""
    f, s, e = doc["files"], doc["symbols"], doc["edges"]
    head = [
        f"Files: {f['total']} ({plural(f['lines'], 'line')})   Symbols: {s['total']} "
        f"(+{s['external']} external)   Edges: {e['total']}   References: "
        f"{doc['references']['total']}",
        f"Index: {doc['index']['path']} ({doc['index']['bytes'] / 1e6:.1f} MB)",
    ]
    sections = [
        ("Files by language", f["by_language"]),
        ("Files by status", f["by_status"]),
        ("Symbols by type", s["by_type"]),
        ("Symbols by kind", s["by_kind"]),
        ("Symbols by language", s["by_language"]),
        ("Symbols by role", s["by_role"]),
        ("Edges by kind", e["by_kind"]),
        ("Edges by resolution", e["by_resolution"]),
    ]
    fr = doc.get("freshness") or {}
    tail = [f"Last scan: {_when(fr.get('last_scan_at'))}, commit {_short(fr.get('index_commit'))}"]
    tail += _mcp_usage(doc.get("mcp"))
    return head, sections, tail


def stats(doc: Mapping[str, Any]) -> str:
    head, sections, tail = stats_parts(doc)
    lines = [*head, ""]
    for title, data in sections:
        lines += _table(title, data)
    return "\n".join(lines + tail)


def _mcp_usage(mcp: dict[str, Any] | None) -> list[str]:
    """The MCP usage lines of ``stats`` (znt/features/usage.py ``summarize``), when any."""
    total = (mcp or {}).get("total") or {}
    if not total.get("calls"):
        return []
    assert mcp is not None
    avg = total.get("avg_ms")
    lines = [
        "",
        f"MCP calls: {total['calls']} in {plural(int(mcp.get('sessions', 0)), 'session')}, "
        f"{total.get('errors', 0)} errors, average {avg if avg is not None else '-'} ms",
        f"MCP response tokens: {total.get('response_tokens', 0)}; estimated saved: "
        f"{total.get('saved_tokens', 0)} ({mcp.get('token_estimate', 'ceil(chars/4)')}, "
        "against reading the touched files whole)",
    ]
    top = ", ".join(f"{t['tool']} {t['calls']}" for t in mcp.get("top_tools") or [])
    if top:
        lines.append(f"Top tools: {top}")
    return lines


def logs(doc: Mapping[str, Any]) -> str:
    if not doc["entries"]:
        return "No log entries."
    lines = [f"{e['time']} {e['level']:<8} {e['message']}" for e in doc["entries"]]
    if doc.get("truncated"):
        lines.insert(0, "(cursor out of date: showing the whole buffer)")
    return "\n".join(lines)


def search(doc: Mapping[str, Any]) -> str:
    """The original's compact Score/Name/File/Code sections, one per result."""
    results = doc.get("results") or []
    if not results:
        return "No matching components found."
    out: list[str] = []
    for i, r in enumerate(results, doc.get("offset", 0) + 1):
        found = "+".join(r.get("found_by", []))
        out.append(
            f"{i}. {r['qualified_name'] or r['name']}  [{r['type']}/{r['kind']}, {r['role']}]"
            f"  score {r['score']:.2f} ({found})"
        )
        out.append(f"   {r['file']}:{r['start_line']}-{r['end_line']}")
        if r.get("signature"):
            out.append(f"   {r['signature'].splitlines()[0][:160]}")
        if r.get("description"):
            out.append(f"   {r['description'].splitlines()[0][:160]}")
        for rel in ("callers", "callees"):
            if r.get(rel):
                out.append(f"   {rel}:")
                out.extend(_tree_lines(r[rel], rel, 2))
        if r.get("code"):
            mark = fence(r["code"])
            out.append("   " + mark)
            out.extend("   " + line for line in r["code"].splitlines())
            out.append("   " + mark + (" (cut)" if r.get("code_truncated") else ""))
    if doc.get("truncated"):
        out.append(f"... more results: --offset {doc.get('next_offset')}")
    return "\n".join(out)


def search_compact(doc: Mapping[str, Any]) -> str:
    """``--compact``: one line per result (rank, score, name, place), for scripts and
    narrow terminals."""
    results = doc.get("results") or []
    if not results:
        return "No matching components found."
    out = [
        f"{i}. {r['score']:.2f}  {r['qualified_name'] or r['name']}  {r['file']}:{r['start_line']}"
        for i, r in enumerate(results, doc.get("offset", 0) + 1)
    ]
    if doc.get("truncated"):
        out.append(f"... more results: --offset {doc.get('next_offset')}")
    return "\n".join(out)


def _tree_lines(items: list[dict[str, Any]], rel: str, depth: int) -> list[str]:
    lines = []
    for x in items:
        where = f"{x['file']}:{x['start_line']}" if x.get("file") else "external"
        lines.append(f"{'  ' * depth} - {x['name']} ({where})")
        if x.get(rel):
            lines.extend(_tree_lines(x[rel], rel, depth + 1))
    return lines
