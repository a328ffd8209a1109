"""``znt graph``: neighbourhoods and call paths, through the real CLI on a real index.

The fixture project has known call chains in Python (start -> step_b -> step_c -> step_d ->
json.dumps), a diamond (two shortest paths), a hub with six callees, a subclass, two
functions with one name in different files, an unresolved call, and a TypeScript chain
across an import (x -> y -> z)."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_znt

FILES = {
    "pkg/__init__.py": "",
    "pkg/a.py": (
        "from pkg.b import step_b\n\n\n"
        "def start():\n    return step_b()\n\n\n"
        "def dyn(x):\n    return x.whatever()\n"
    ),
    "pkg/b.py": "from pkg.c import step_c\n\n\ndef step_b():\n    return step_c()\n",
    "pkg/c.py": "from pkg.d import step_d\n\n\ndef step_c():\n    return step_d()\n",
    "pkg/d.py": (
        "import json\n\n\n"
        "def step_d():\n    return json.dumps({})\n\n\n"
        "class Base:\n    def run(self):\n        return self.helper()\n\n"
        "    def helper(self):\n        return 1\n\n\n"
        "class Child(Base):\n    def helper(self):\n        return 2\n"
    ),
    "pkg/dup1.py": "def common():\n    return 1\n",
    "pkg/dup2.py": "def common():\n    return 2\n",
    "pkg/diamond.py": (
        "def top():\n    left()\n    right()\n\n\n"
        "def left():\n    return bottom()\n\n\n"
        "def right():\n    return bottom()\n\n\n"
        "def bottom():\n    return 0\n\n\n"
        "def hub():\n"
        + "".join(f"    f{i}()\n" for i in range(1, 7))
        + "\n\n"
        + "".join(f"def f{i}():\n    return {i}\n\n\n" for i in range(1, 7))
    ),
    "web/src/x.ts": 'import { y } from "./y";\n\nexport function x(): number {\n  return y();\n}\n',
    "web/src/y.ts": (
        "export function y(): number {\n  return z();\n}\n\n"
        "function z(): number {\n  return 1;\n}\n"
    ),
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("graph") / "proj"
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    done = run_znt("scan", "-q", "--no-embed", cwd=root)
    assert done.returncode == 0, done.stderr
    return root


def graph(root: Path, *args: str) -> tuple[int, dict[str, Any]]:
    done = run_znt("graph", *args, "--format", "json", cwd=root)
    assert done.stdout.strip(), done.stderr
    return done.returncode, json.loads(done.stdout)


def ids(doc: dict[str, Any]) -> set[str]:
    return {n["id"] for n in doc["nodes"]}


def test_depth_grows_the_neighbourhood_level_by_level(project: Path) -> None:
    rc, one = graph(project, "start", "--direction", "down")
    assert rc == 0
    assert ids(one) == {"pkg/a.py::start", "pkg/b.py::step_b"}
    _, three = graph(project, "start", "--direction", "down", "--depth", "3")
    assert ids(three) == {
        "pkg/a.py::start",
        "pkg/b.py::step_b",
        "pkg/c.py::step_c",
        "pkg/d.py::step_d",
    }
    dist = {n["id"]: n["distance"] for n in three["nodes"]}
    assert dist["pkg/d.py::step_d"] == 3 and dist["pkg/a.py::start"] == 0
    assert three["stats"]["queries"] == 3  # one query per BFS level


def test_direction_up_down_both(project: Path) -> None:
    _, up = graph(project, "step_c", "--direction", "up")
    _, down = graph(project, "step_c", "--direction", "down")
    _, both = graph(project, "step_c")
    assert ids(up) == {"pkg/c.py::step_c", "pkg/b.py::step_b"}
    assert ids(down) == {"pkg/c.py::step_c", "pkg/d.py::step_d"}
    assert ids(both) == ids(up) | ids(down)
    assert {(e["from"], e["to"]) for e in up["edges"]} == {("pkg/b.py::step_b", "pkg/c.py::step_c")}


def test_edge_types_choose_what_is_followed(project: Path) -> None:
    _, default = graph(project, "Child")
    assert "pkg/d.py::Base" in ids(default)
    assert {e["type"] for e in default["edges"]} == {"inherits"}
    _, calls = graph(project, "Child", "--edge-types", "call")
    assert ids(calls) == {"pkg/d.py::Child"}
    _, contains = graph(project, "Child", "--edge-types", "contains", "--direction", "down")
    assert ids(contains) == {"pkg/d.py::Child", "pkg/d.py::Child.helper"}
    assert contains["edge_types"] == ["contains"]
    done = run_znt("graph", "Child", "--edge-types", "call,bogus", cwd=project)
    assert done.returncode == 2
    assert "bogus" in done.stderr


def test_external_nodes_only_with_all(project: Path) -> None:
    _, hidden = graph(project, "step_d", "--direction", "down")
    assert not any(i.startswith(("ext::", "dep::")) for i in ids(hidden))
    assert hidden["completeness"]["hidden_external_nodes"] == 1
    assert not hidden["completeness"]["complete"]
    assert any("--all" in r for r in hidden["completeness"]["reasons"])
    _, shown = graph(project, "step_d", "--direction", "down", "--all")
    assert "ext::json.dumps" in ids(shown)
    ext = next(n for n in shown["nodes"] if n["id"] == "ext::json.dumps")
    assert ext["external"] is True and ext["file"] is None
    assert shown["completeness"]["hidden_external_nodes"] == 0
    assert shown["completeness"]["external_calls"] == 1


def test_max_nodes_truncates_and_says_so(project: Path) -> None:
    _, full = graph(project, "hub", "--direction", "down")
    assert len(full["nodes"]) == 7 and not full["truncated"]
    _, cut = graph(project, "hub", "--direction", "down", "--max-nodes", "4")
    assert len(cut["nodes"]) == 4
    assert cut["truncated"] is True
    assert cut["completeness"]["truncated_nodes"] == 3
    assert any("truncated" in w for w in cut["warnings"])
    assert any("--max-nodes" in r for r in cut["completeness"]["reasons"])
    # the same cut every time: the answer is deterministic
    _, again = graph(project, "hub", "--direction", "down", "--max-nodes", "4")
    assert ids(again) == ids(cut)


def test_path_longer_than_depth_is_returned_whole_with_a_warning(project: Path) -> None:
    rc, doc = graph(project, "start", "--to", "step_d")
    assert rc == 0 and doc["found"]
    assert doc["paths"] == [
        ["pkg/a.py::start", "pkg/b.py::step_b", "pkg/c.py::step_c", "pkg/d.py::step_d"]
    ]
    assert doc["path_length"] == 3
    assert "longer than --depth 1" in doc["warning"]
    assert [(e["from"], e["to"], e["type"]) for e in doc["edges"]] == [
        ("pkg/a.py::start", "pkg/b.py::step_b", "call"),
        ("pkg/b.py::step_b", "pkg/c.py::step_c", "call"),
        ("pkg/c.py::step_c", "pkg/d.py::step_d", "call"),
    ]
    text = run_znt("graph", "start", "--to", "step_d", cwd=project)
    assert text.returncode == 0
    assert "warning: the path is 3 edges long" in text.stdout
    assert "-> step_d" in text.stdout


def test_several_shortest_paths(project: Path) -> None:
    _, doc = graph(project, "top", "--to", "bottom")
    assert doc["paths"] == [
        ["pkg/diamond.py::top", "pkg/diamond.py::left", "pkg/diamond.py::bottom"],
        ["pkg/diamond.py::top", "pkg/diamond.py::right", "pkg/diamond.py::bottom"],
    ]
    assert "warning" in doc  # 2 edges > --depth 1


def test_no_path_exits_1(project: Path) -> None:
    rc, doc = graph(project, "step_d", "--to", "start", "--direction", "down")
    assert rc == 1
    assert doc["found"] is False and doc["paths"] == []
    text = run_znt("graph", "step_d", "--to", "start", "--direction", "down", cwd=project)
    assert text.returncode == 1
    assert "No path from step_d to start" in text.stdout
    rc, none = graph(project, "bottom", "--to", "hub")
    assert rc == 1 and not none["found"]


def test_direction_both_finds_the_reverse_path_and_says_so(project: Path) -> None:
    rc, doc = graph(project, "step_d", "--to", "start")
    assert rc == 0
    assert doc["direction_used"] == "up"
    assert doc["paths"][0][0] == "pkg/a.py::start" and doc["paths"][0][-1] == "pkg/d.py::step_d"
    assert any("reaches" in w for w in doc["warnings"])


def test_ambiguous_name_exits_4_with_candidates(project: Path) -> None:
    rc, doc = graph(project, "common")
    assert rc == 4
    assert doc["error"]["code"] == "ambiguous"
    assert sorted(doc["error"]["candidates"]) == ["pkg/dup1.py::common", "pkg/dup2.py::common"]
    text = run_znt("graph", "common", cwd=project)
    assert text.returncode == 4
    assert "candidates:" in text.stderr and "pkg/dup2.py::common" in text.stderr
    # a candidate, or a module-qualified name, settles it
    rc, one = graph(project, "pkg/dup2.py::common")
    assert rc == 0 and one["start"]["ids"] == ["pkg/dup2.py::common"]
    rc, mod = graph(project, "pkg.dup1.common")
    assert rc == 0 and mod["start"]["matched_by"] == "module_qualified_name"
    assert mod["start"]["ids"] == ["pkg/dup1.py::common"]


def test_unknown_name_exits_4_with_suggestions(project: Path) -> None:
    rc, doc = graph(project, "stepp_b")
    assert rc == 4
    assert doc["error"]["code"] == "not_found"
    assert "step_b" in doc["error"]["suggestions"]
    rc, to = graph(project, "start", "--to", "nowhere_at_all")
    assert rc == 4 and "TO" in to["error"]["message"]


def test_file_path_as_from(project: Path) -> None:
    rc, doc = graph(project, "pkg/a.py", "--direction", "down")
    assert rc == 0
    assert doc["start"]["matched_by"] == "file"
    assert {"pkg/a.py::start", "pkg/a.py::dyn"} <= set(doc["start"]["ids"])
    assert "pkg/b.py::step_b" in ids(doc)
    # relative to the current folder, as a shell user types it
    done = run_znt("graph", "a.py", "--direction", "down", "--format", "json", cwd=project / "pkg")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["start"]["label"] == "pkg/a.py"


def test_json_shape(project: Path) -> None:
    rc, doc = graph(project, "step_c")
    assert rc == 0
    assert doc["schema_version"] == 1 and doc["kind"] == "graph"
    for key in ("from", "to", "depth", "direction", "edge_types", "nodes", "edges"):
        assert key in doc
    assert doc["edge_types"] == ["call", "implements", "inherits"]
    for node in doc["nodes"]:
        assert {"id", "name", "type", "file", "start_line", "end_line"} <= set(node)
    step_c = next(n for n in doc["nodes"] if n["id"] == "pkg/c.py::step_c")
    assert (step_c["name"], step_c["type"], step_c["file"]) == ("step_c", "function", "pkg/c.py")
    assert (step_c["start_line"], step_c["end_line"]) == (4, 5)
    for edge in doc["edges"]:
        assert set(edge) == {
            "from",
            "to",
            "from_name",
            "to_name",
            "type",
            "confidence",
            "resolution",
        }
        assert edge["resolution"] == "import" and edge["confidence"] == 1.0
    comp = doc["completeness"]
    assert {"complete", "reasons", "unresolved_calls", "hidden_external_nodes"} <= set(comp)
    fresh = doc["freshness"]
    assert fresh["last_scan_at"] and "index_commit" in fresh


def test_completeness_counts_unresolved_and_dynamic_calls(project: Path) -> None:
    _, dyn = graph(project, "dyn", "--direction", "down")
    assert dyn["completeness"]["unresolved_calls"] == 1
    assert dyn["completeness"]["complete"] is False
    assert any("could not be resolved" in r for r in dyn["completeness"]["reasons"])
    _, run = graph(project, "Base.run", "--direction", "down")
    assert run["completeness"]["dynamic_dispatch_calls"] == 1
    assert any("subclass" in r for r in run["completeness"]["reasons"])
    _, clean = graph(project, "step_b", "--direction", "down")
    assert clean["completeness"]["complete"] is True
    assert clean["completeness"]["reasons"] == []
    # a caller written through a variable (x.whatever()) is a possible unbound caller
    _, text = graph(project, "step_b", "--direction", "up")
    assert text["completeness"]["possible_unresolved_callers"] == 0
    text_out = run_znt("graph", "dyn", "--direction", "down", cwd=project).stdout
    assert "completeness: lower bound" in text_out
    assert "index: scanned" in text_out


def test_typescript_chain(project: Path) -> None:
    rc, doc = graph(project, "x", "--to", "z")
    assert rc == 0
    assert doc["paths"] == [["web/src/x.ts::x", "web/src/y.ts::y", "web/src/y.ts::z"]]
    _, around = graph(project, "y")
    assert ids(around) == {"web/src/x.ts::x", "web/src/y.ts::y", "web/src/y.ts::z"}


def test_cli_and_api_agree(project: Path) -> None:
    from znt import api

    _, cli_doc = graph(project, "step_c", "--depth", "2")
    api_doc = api.graph("step_c", depth=2, project_path=str(project))
    api_doc = json.loads(json.dumps(api_doc, default=str))
    assert cli_doc["nodes"] == api_doc["nodes"]
    assert cli_doc["edges"] == api_doc["edges"]
    assert cli_doc["completeness"] == api_doc["completeness"]


def test_mermaid_output_uses_safe_ids_and_edge_labels(project: Path) -> None:
    done = run_znt("graph", "top", "--depth", "2", "--format", "mermaid", cwd=project)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "flowchart LR"
    assert any(line.strip().startswith('n0("top') for line in lines)
    assert sum(1 for line in lines if "-->|call|" in line) == 4
    assert "pkg/diamond.py" not in "".join(line.split('"')[0] for line in lines)


def _dot_available() -> bool:
    return shutil.which("dot") is not None


def test_dot_output_is_valid_graphviz(project: Path, tmp_path: Path) -> None:
    done = run_znt("graph", "start", "--to", "step_d", "--format", "dot", cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("digraph znt {") and done.stdout.rstrip().endswith("}")
    assert (
        sum(1 for line in done.stdout.splitlines() if line.startswith("  n") and " -> " in line)
        == 3
    )
    if not _dot_available():
        if os.environ.get("CI"):
            pytest.fail("graphviz `dot` is missing under CI (.ci/run installs it)")
        pytest.skip("graphviz `dot` is not installed (apt-get install graphviz)")
    svg = subprocess.run(
        ["dot", "-Tsvg"], input=done.stdout, capture_output=True, text=True, timeout=60
    )
    assert svg.returncode == 0, svg.stderr
    assert "step_b" in svg.stdout and "pkg/d.py:4" in svg.stdout


def test_dot_escapes_any_name(tmp_path: Path) -> None:
    from znt.formats import dot

    nasty = 'a "quoted" \\ back<slash> {x} [y] ;\n é'
    doc = {
        "from": nasty,
        "nodes": [
            {"id": "f.py::a", "qualified_name": nasty, "file": "f.py", "start_line": 1},
            {"id": "ext::b", "qualified_name": "operator+", "external": True},
        ],
        "edges": [{"from": "f.py::a", "to": "ext::b", "type": "call", "confidence": 0.0}],
    }
    text = dot.render(doc)
    assert '\\"quoted\\"' in text and "\\\\ back" in text and "\n é" not in text
    if not _dot_available():
        if os.environ.get("CI"):
            pytest.fail("graphviz `dot` is missing under CI (.ci/run installs it)")
        pytest.skip("graphviz `dot` is not installed (apt-get install graphviz)")
    svg = subprocess.run(["dot", "-Tsvg"], input=text, capture_output=True, text=True, timeout=60)
    assert svg.returncode == 0, svg.stderr
    assert "operator+" in svg.stdout and "&quot;quoted&quot;" in svg.stdout


def test_answers_do_not_depend_on_the_art_indexes(project: Path, tmp_path: Path) -> None:
    """The walk shapes its SQL by the indexes that exist (index lookups with the edge kinds
    filtered in Python, or one scan with every filter). Both shapes give the same answer.
    A scan indexes ``symbols`` only (decision 0011); the copy adds edge indexes too."""
    import duckdb

    from znt import api
    from znt.graph import traverse as tv

    indexed = tmp_path / "proj"
    shutil.copytree(project, indexed)
    con = duckdb.connect(str(indexed / ".znt" / "index.duckdb"))
    try:
        have = tv.indexed_columns(con)
        assert {"symbols.id", "symbols.name"} <= have
        assert not {"edges.src", "edges.dst"} & have
        con.execute("CREATE INDEX edges_src ON edges (src)")
        con.execute("CREATE INDEX edges_dst ON edges (dst)")
        assert {"edges.src", "edges.dst"} <= tv.indexed_columns(con)
    finally:
        con.close()
    asks: list[tuple[str, dict[str, Any]]] = [
        ("start", {"depth": 3, "direction": "down"}),
        ("step_c", {"depth": 2}),
        ("Base.helper", {"direction": "up", "include_external": True}),
        ("hub", {"max_nodes": 4}),
        ("pkg/diamond.py", {"edge_types": "call,contains"}),
        ("top", {"to": "bottom"}),
        ("step_d", {"to": "start"}),
        ("x", {"to": "z"}),
    ]
    for frm, opts in asks:
        with_indexes = api.graph(frm, project_path=str(indexed), **opts)
        without = api.graph(frm, project_path=str(project), **opts)
        assert with_indexes["nodes"], (frm, opts)
        assert with_indexes == without, (frm, opts)


def _whole_graph(root: Path, kinds: tuple[str, ...] = ("call", "implements", "inherits")):
    """The fixture's whole graph over ``kinds``, project nodes only, loaded into networkx
    independently of znt's walk: the oracle the answers are compared with."""
    import networkx as nx

    from tests.conftest import query

    g = nx.DiGraph()
    marks = ", ".join(f"'{k}'" for k in kinds)
    for src, dst in query(root, f"SELECT src, dst FROM edges WHERE kind IN ({marks})"):
        if not dst.startswith(("ext::", "dep::")):
            g.add_edge(src, dst)
    return g


def test_neighbourhoods_are_networkx_ego_graphs(project: Path) -> None:
    """Every neighbourhood equals networkx's ego graph of the whole graph (forward for down,
    reversed for up, undirected for both), with networkx's distances."""
    import networkx as nx

    from znt import api

    whole = _whole_graph(project)
    views = {
        "down": whole,
        "up": whole.reverse(copy=True),
        "both": whole.to_undirected(),
    }
    checked = 0
    for start in ("pkg/a.py::start", "pkg/c.py::step_c", "pkg/diamond.py::top"):
        for direction, view in views.items():
            for depth in (1, 2, 3):
                doc = api.graph(start, depth=depth, direction=direction, project_path=str(project))
                want = nx.single_source_shortest_path_length(view, start, cutoff=depth)
                got = {n["id"]: n["distance"] for n in doc["nodes"]}
                assert got == want, (start, direction, depth)
                checked += 1
    assert checked == 27


def test_paths_are_networkx_shortest_paths(project: Path) -> None:
    import networkx as nx

    from znt import api

    whole = _whole_graph(project)
    for src, dst in (
        ("pkg/a.py::start", "pkg/d.py::step_d"),
        ("pkg/diamond.py::top", "pkg/diamond.py::bottom"),
        ("pkg/b.py::step_b", "pkg/d.py::step_d"),
    ):
        doc = api.graph(src, to=dst, direction="down", project_path=str(project))
        want = sorted(nx.all_shortest_paths(whole, src, dst))[:3]
        assert doc["paths"] == want, (src, dst)
        assert doc["path_length"] == nx.shortest_path_length(whole, src, dst)


def test_shortest_paths_from_several_sources_on_random_graphs() -> None:
    """``first_shortest_paths`` (networkx over a shared source and target node) against
    networkx on each source/target pair: the same length, paths that are shortest, and no
    more than three, on random graphs."""
    import random

    import networkx as nx

    from znt.graph.traverse import first_shortest_paths

    rng = random.Random(7)
    checked = 0
    for _ in range(200):
        n = rng.randint(2, 14)
        nodes = [f"m{i:02d}" for i in range(n)]
        g = nx.DiGraph()
        g.add_nodes_from(nodes)
        for _ in range(rng.randint(1, 3 * n)):
            g.add_edge(rng.choice(nodes), rng.choice(nodes))
        sources = rng.sample(nodes, rng.randint(1, 2))
        targets = rng.sample(nodes, rng.randint(1, 2))
        lengths = [
            nx.shortest_path_length(g, s, t)
            for s in sources
            for t in targets
            if nx.has_path(g, s, t)
        ]
        got = first_shortest_paths(g, sources, targets, 3)
        if not lengths:
            assert got == []
            continue
        checked += 1
        assert 1 <= len(got) <= 3 and got == sorted(got)
        for p in got:
            assert p[0] in sources and p[-1] in targets and len(p) - 1 == min(lengths)
            assert all(g.has_edge(a, b) for a, b in itertools.pairwise(p))
    assert checked > 100


def test_call_cycles_are_strongly_connected_components(tmp_path: Path) -> None:
    (tmp_path / "rec.py").write_text(
        "def ping(n):\n    return pong(n - 1)\n\n\n"
        "def pong(n):\n    return ping(n - 1)\n\n\n"
        "def fact(n):\n    return fact(n - 1)\n\n\n"
        "def entry():\n    return ping(3) + fact(3)\n"
    )
    assert run_znt("scan", "-q", "--no-embed", cwd=tmp_path).returncode == 0
    rc, doc = graph(tmp_path, "entry", "--direction", "down", "--depth", "3")
    assert rc == 0
    assert doc["cycles"] == [["rec.py::ping", "rec.py::pong"], ["rec.py::fact"]]
    text = run_znt("graph", "entry", "--direction", "down", "--depth", "3", cwd=tmp_path)
    assert "cycle: ping <-> pong" in text.stdout and "cycle: fact" in text.stdout


def test_stats_count_the_queries_of_both_path_searches(project: Path) -> None:
    """With ``--direction both``, a path found only backwards costs the whole forward
    search first; ``stats.queries`` says so."""
    from znt import api

    both = api.graph("step_d", to="start", project_path=str(project))
    forward = api.graph("step_d", to="start", direction="down", project_path=str(project))
    backward = api.graph("start", to="step_d", direction="down", project_path=str(project))
    assert both["direction_used"] == "up" and not forward["found"] and backward["found"]
    assert both["paths"] == backward["paths"]
    assert both["stats"]["queries"] == forward["stats"]["queries"] + backward["stats"]["queries"]
    assert both["stats"]["levels"] == backward["stats"]["levels"]
