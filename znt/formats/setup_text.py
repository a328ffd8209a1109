"""Text layouts for ``znt setup`` and ``znt setup status`` results (they hold no key)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _yes(value: Any) -> str:
    return {True: "yes", False: "no", None: "unknown"}.get(value, str(value))


def _config_lines(doc: Mapping[str, Any]) -> list[str]:
    c = doc["config"]
    p = c["provider"]
    where = c["path"] or f"none (built-in default; setup writes {c['managed_path']})"
    lines = [
        f"Config:     {where}  [{c['source']}{', external: never written' if c['external'] else ''}]",
        f"Provider:   {p['mode']}" + (f"  model {p['model']}" if p.get("model") else ""),
    ]
    if p.get("url"):
        lines.append(f"URL:        {p['url']}")
    cred = doc.get("credential") or {}
    if cred.get("configured"):
        where_key = "environment variable" if cred["kind"] == "env" else "OS keyring"
        lines.append(
            f"Key:        {where_key} {cred['reference']} (present: {_yes(cred['present'])})"
        )
    elif p["mode"] in ("ollama", "openai", "gemini"):
        lines.append("Key:        none configured")
    kr = doc.get("keyring") or {}
    lines.append(
        f"Embed extra: {'installed' if doc.get('embed_extra') else 'not installed'};  "
        f"OS keyring: {'available' if kr.get('available') else 'not available'}"
        + (f" ({kr['backend']})" if kr.get("backend") else "")
    )
    lines += [f"warning: {w}" for w in c.get("warnings", [])]
    if c.get("notice"):
        lines.append(f"note: {c['notice']}")
    return lines


def _check_lines(check: dict[str, Any] | None) -> list[str]:
    if not check:
        return []
    if check["ok"]:
        dim = f", dimension {check['dimension']}" if check.get("dimension") else ""
        latency = f", {check['latency_ms']} ms" if "latency_ms" in check else ""
        lines = [f"Provider check: ok{dim}{latency}"]
    else:
        lines = [f"Provider check: FAILED: {check.get('error')}"]
    if check.get("model_listed") is False:
        lines.append(f"  model {check['model']} is not among the server's models")
    return lines


def setup(doc: Mapping[str, Any]) -> str:
    lines: list[str] = []
    if doc.get("action") == "write":
        w = doc["written"]
        lines.append(f"Wrote {w['path']} (provider {w['mode']})")
        if w.get("key_stored_in_keyring"):
            lines.append(f"Stored the key in the OS keyring as {w['key_stored_in_keyring']}")
        lines += [f"  {n}" for n in doc.get("notes", [])]
        lines.append("")
    lines += _config_lines(doc)
    lines += _check_lines(doc.get("provider_check"))
    recs = doc.get("recommendations")
    if recs:
        lines += ["", "Providers (znt chooses none for you):"]
        for r in recs:
            mark = "*" if r["current"] else " "
            lines.append(f" {mark} {r['mode']:<7} {r['summary']}")
            if r.get("requires"):
                lines.append(f"           needs: {r['requires']}")
            lines.append(f"           run:   {r['command']}")
    return "\n".join(lines)


def setup_status(doc: Mapping[str, Any]) -> str:
    lines = _config_lines(doc)
    lines += _check_lines(doc.get("provider_check"))
    lines.append(f"Ready:      {'yes' if doc['ready'] else 'no'}")
    lines += [f"  problem: {p}" for p in doc.get("problems", [])]
    return "\n".join(lines)
