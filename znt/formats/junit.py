"""``znt check`` as JUnit XML: one test case per rule, failed when the rule has a violation
of severity error (a warning-only rule passes and lists its findings in system-out), so CI
dashboards count failing rules."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Any


def _line(v: dict[str, Any]) -> str:
    where = v.get("file") or "(project)"
    if v.get("file") and v.get("line"):
        where += f":{v['line']}"
    return f"{where}: {v['message']}"


def render(doc: Mapping[str, Any]) -> str:
    by_rule: dict[str, list[dict[str, Any]]] = {r["id"]: [] for r in doc["rules"]}
    for v in doc["violations"]:
        by_rule[v["rule"]].append(v)
    suites = ET.Element("testsuites", name="znt check")
    suite = ET.SubElement(suites, "testsuite", name="znt check")
    failures = 0
    for rule in doc["rules"]:
        case = ET.SubElement(
            suite, "testcase", classname=f"znt.check.{rule['type']}", name=rule["id"]
        )
        found = by_rule[rule["id"]]
        text = "\n".join(_line(v) for v in found)
        if found and rule["severity"] == "error":
            failures += 1
            failure = ET.SubElement(
                case,
                "failure",
                message=f"{len(found)} violation{'s' if len(found) != 1 else ''} of {rule['id']}",
                type=rule["type"],
            )
            failure.text = text
        elif found:
            ET.SubElement(case, "system-out").text = text
    for el in (suites, suite):
        el.set("tests", str(len(doc["rules"])))
        el.set("failures", str(failures))
        el.set("errors", "0")
    suite.set("skipped", "0")
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode")
