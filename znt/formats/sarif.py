"""``znt check`` as SARIF 2.1.0 (the format GitHub code scanning uploads).

One run; ``tool.driver.rules`` lists every configured rule, each result points at the
source line of the offending reference (URIs relative to ``%SRCROOT%``, the project root)
and carries ``partialFingerprints`` from the violation's line-free key, so code scanning
tracks a violation across commits the way ``--baseline`` does."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from znt import __version__

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning"}


def _location(file: str, line: int | None, message: str | None = None) -> dict[str, Any]:
    # Index paths are relative to the project root; a rules file given by an absolute
    # path outside the project is the one absolute URI.
    artifact = (
        {"uri": Path(file).as_uri()}
        if file.startswith("/")
        else {"uri": quote(file), "uriBaseId": "%SRCROOT%"}
    )
    physical: dict[str, Any] = {"artifactLocation": artifact}
    if line:
        physical["region"] = {"startLine": int(line)}
    loc: dict[str, Any] = {"physicalLocation": physical}
    if message:
        loc["message"] = {"text": message}
    return loc


def render_doc(doc: Mapping[str, Any]) -> dict[str, Any]:
    rules = doc["rules"]
    index = {r["id"]: i for i, r in enumerate(rules)}
    driver_rules = [
        {
            "id": r["id"],
            "name": r["type"],
            "shortDescription": {"text": r["description"]},
            "fullDescription": {"text": f"{r['description']} (znt check rule type {r['type']})"},
            "defaultConfiguration": {"level": _LEVEL[r["severity"]]},
            "properties": {"tags": ["architecture", r["type"]]},
        }
        for r in rules
    ]
    results = []
    rules_file = doc.get("rules_file") or "znt.yaml"
    for v in doc["violations"]:
        file = v.get("file")
        # A project-wide finding (a ratio) has no source line: it points at the rules file.
        locations = [_location(file, v.get("line"))] if file else [_location(rules_file, None)]
        related = []
        for i, e in enumerate(v.get("edges") or []):
            if e.get("from_file"):
                related.append(
                    {
                        "id": i,
                        **_location(
                            e["from_file"], e.get("line"), f"{e['from']} -> {e['to']} ({e['kind']})"
                        ),
                    }
                )
        result: dict[str, Any] = {
            "ruleId": v["rule"],
            "ruleIndex": index[v["rule"]],
            "level": _LEVEL[v["severity"]],
            "message": {"text": v["message"]},
            "locations": locations,
            "partialFingerprints": {
                "zntViolationKey/v1": hashlib.sha256(v["key"].encode()).hexdigest()
            },
            "properties": {"key": v["key"], "type": v["type"]},
        }
        if related:
            result["relatedLocations"] = related
        results.append(result)
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "znt",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": driver_rules,
            }
        },
        "results": results,
        "columnKind": "unicodeCodePoints",
    }
    root = doc.get("project_root")
    if root:
        run["originalUriBaseIds"] = {"%SRCROOT%": {"uri": Path(root).as_uri() + "/"}}
    base = doc.get("baseline")
    if base:
        run["properties"] = {"baseline": base}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def render(doc: Mapping[str, Any]) -> str:
    import json

    return json.dumps(render_doc(doc), ensure_ascii=False, indent=2)
