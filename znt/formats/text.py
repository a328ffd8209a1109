"""Human-readable renderers. They take the dicts ``znt.api`` returns and never query."""

from __future__ import annotations

import datetime as _dt
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


def scan(doc: dict[str, Any]) -> str:
    if doc.get("mode") == "dry_run":
        return dry_run(doc)
    lines = []
    mode = doc["mode"]
    if mode == "noop":
        head = f"Index is up to date: {doc['files_total']} files unchanged"
    else:
        head = (
            f"Indexed {doc['files_total']} files ({mode}): {doc['files_parsed']} parsed, "
            f"{doc['files_unchanged']} unchanged, {doc['files_deleted']} removed"
        )
    lines.append(
        f"{head}; {doc['symbols']} symbols, {doc['edges']} edges; "
        f"{doc['warnings']} warning{'s' if doc['warnings'] != 1 else ''}; "
        f"{doc['duration_ms'] / 1000:.2f}s"
    )
    emb = doc.get("embeddings") or {}
    if emb.get("status") in ("completed", "partial") and emb.get("embedded"):
        lines.append(
            f"Embedded {emb['embedded']} texts with {emb.get('model_key')} in {emb.get('seconds')}s"
        )
    for p in doc.get("problems", [])[:20]:
        where = f"{p['path']}: " if p.get("path") else ""
        lines.append(f"  warning: {where}{p['message']}")
    if len(doc.get("problems", [])) > 20:
        lines.append(f"  ... and {len(doc['problems']) - 20} more (znt logs)")
    return "\n".join(lines)


def dry_run(doc: dict[str, Any]) -> str:
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
    out += ["", f"Embeddings: {d['embeddings']}"]
    return "\n".join(out)


def status(doc: dict[str, Any]) -> str:
    s = doc["stats"]
    lines = [
        f"Path:      {doc['requested_path']}",
        f"Project:   {doc['project_root'] or '-'} (coverage: {doc['coverage']})",
        f"Index:     {'yes' if doc['has_index'] else 'no'}   status: {doc['status']}",
        f"Counts:    {s['files']} files, {s['declarations']} declarations, {s['functions']} functions, "
        f"{s['members']} members, {s['dependencies']} dependencies, {s['edges']} edges",
    ]
    scan_info = doc.get("scan") or {}
    if scan_info:
        lines.append(
            f"Last scan: {_when(scan_info.get('at'))} ({scan_info.get('mode')}, "
            f"{scan_info.get('duration_ms')} ms, {scan_info.get('warnings')} warnings)"
        )
    fr = doc.get("freshness")
    if fr:
        lines.append(
            f"Commit:    indexed {_short(fr.get('index_commit'))}, HEAD {_short(fr.get('head_commit'))}"
            + ("  (HEAD moved)" if fr.get("commit_changed") else "")
        )
        if fr.get("stale") is not None:
            if fr["stale"]:
                lines.append(
                    f"Stale:     yes - {fr['files_changed']} changed, {fr['files_added']} added, "
                    f"{fr['files_deleted']} deleted since the scan (run `znt scan`)"
                )
            else:
                lines.append("Stale:     no")
    p = doc.get("provider") or {}
    if p.get("mode"):
        how = {"managed": "chosen with `znt setup`", "ZNT_CONFIG": "from ZNT_CONFIG"}.get(
            p.get("source") or "", "znt's default (choose one with `znt setup`)"
        )
        model = f" {p['model']}" if p.get("model") else ""
        lines.append(f"Provider:  {p['mode']}{model}, {how}")
    elif p.get("error"):
        lines.append(f"Provider:  unusable config: {p['error']}")
    return "\n".join(lines)


def outline(doc: dict[str, Any]) -> str:
    lines = [f"[file_outline] {doc['file']} ({doc['total_symbols']} symbols)"]
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


def stats(doc: dict[str, Any]) -> str:
    f, s, e = doc["files"], doc["symbols"], doc["edges"]
    lines = [
        f"Files: {f['total']} ({f['lines']} lines)   Symbols: {s['total']} (+{s['external']} external)   "
        f"Edges: {e['total']}   References: {doc['references']['total']}",
        f"Index: {doc['index']['path']} ({doc['index']['bytes'] / 1e6:.1f} MB)",
        "",
    ]
    lines += _table("Files by language", f["by_language"])
    lines += _table("Files by status", f["by_status"])
    lines += _table("Symbols by type", s["by_type"])
    lines += _table("Symbols by kind", s["by_kind"])
    lines += _table("Symbols by language", s["by_language"])
    lines += _table("Symbols by role", s["by_role"])
    lines += _table("Edges by kind", e["by_kind"])
    lines += _table("Edges by resolution", e["by_resolution"])
    fr = doc.get("freshness") or {}
    lines.append(
        f"Last scan: {_when(fr.get('last_scan_at'))}, commit {_short(fr.get('index_commit'))}"
    )
    lines += _mcp_usage(doc.get("mcp"))
    return "\n".join(lines)


def _mcp_usage(mcp: dict[str, Any] | None) -> list[str]:
    """The MCP usage lines of ``stats`` (znt/features/usage.py ``summarize``), when any."""
    total = (mcp or {}).get("total") or {}
    if not total.get("calls"):
        return []
    assert mcp is not None
    avg = total.get("avg_ms")
    lines = [
        "",
        f"MCP calls: {total['calls']} in {mcp.get('sessions', 0)} session(s), "
        f"{total.get('errors', 0)} errors, average {avg if avg is not None else '-'} ms",
        f"MCP response tokens: {total.get('response_tokens', 0)}; estimated saved: "
        f"{total.get('saved_tokens', 0)} ({mcp.get('token_estimate', 'ceil(chars/4)')}, "
        "against reading the touched files whole)",
    ]
    top = ", ".join(f"{t['tool']} {t['calls']}" for t in mcp.get("top_tools") or [])
    if top:
        lines.append(f"Top tools: {top}")
    return lines


def logs(doc: dict[str, Any]) -> str:
    if not doc["entries"]:
        return "No log entries."
    lines = [f"{e['time']} {e['level']:<8} {e['message']}" for e in doc["entries"]]
    if doc.get("truncated"):
        lines.insert(0, "(cursor out of date: showing the whole buffer)")
    return "\n".join(lines)


def search(doc: dict[str, Any]) -> str:
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


def _tree_lines(items: list[dict[str, Any]], rel: str, depth: int) -> list[str]:
    lines = []
    for x in items:
        where = f"{x['file']}:{x['start_line']}" if x.get("file") else "external"
        lines.append(f"{'  ' * depth} - {x['name']} ({where})")
        if x.get(rel):
            lines.extend(_tree_lines(x[rel], rel, depth + 1))
    return lines
