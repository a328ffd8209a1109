"""The original's result fields and argument names through the real MCP client, one test per
field and alias in docs/mcp.md's parity table: similar's ``relations`` and percent reason,
graph edges named by their ends' names, search ``summary``, outline ``formatted_text``, the
provider in ``status`` and ``scan``, outline ``filepath``, scan ``lang``/``file_path``/``path``,
and graph's ``target`` refused with -32602. Every field is beside znt's own: nothing znt
returned before goes away."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.mcp_client import Answer, call, connect, ok
from tests.test_mcp import FILES, make_project


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    twins = (
        "from pkg.b import step_b\nfrom pkg.c import step_c\n\n\n"
        "def twin_one():\n    step_b()\n    return step_c()\n\n\n"
        "def twin_two():\n    step_b()\n    return step_c()\n"
    )
    return make_project(
        tmp_path_factory.mktemp("mcp-parity") / "proj", {**FILES, "pkg/d.py": twins}
    )


def answers(project: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[Answer]:
    async def main() -> list[Answer]:
        async with connect(project, env={"ZNT_MCP_MONITOR": "0"}) as s:
            return [await call(s, name, args) for name, args in calls]

    return anyio.run(main)


def test_similar_has_relations_and_the_percent_reason(project: Path) -> None:
    # no embeddings in the tests' index: scored by the shared callees and the kind
    [a] = answers(project, [("similar", {"target": "twin_one", "limit": 5})])
    assert not a.is_error, a.text
    results = a.data["results"]
    assert results
    for r in results:
        pct = round(r["score"] * 100)
        assert r["similarity_percent"] == pct
        assert r["similarity_reason"].startswith(f"{pct}% similar: ")
        rel = r["relations"]
        assert set(rel) == {
            "callers_count",
            "callees_count",
            "internal_callees_count",
            "external_callees_count",
        }
        # znt's own counts are still there, and the original's block adds up from them
        assert rel["callers_count"] == r["callers"]["internal"] + r["callers"]["external"]
        assert rel["internal_callees_count"] == r["callees"]["internal"]
        assert rel["external_callees_count"] == r["callees"]["external"]
        assert rel["callees_count"] == rel["internal_callees_count"] + rel["external_callees_count"]
    twin = results[0]
    assert twin["qualified_name"] == "twin_two"
    assert twin["relations"] == {
        "callers_count": 0,
        "callees_count": 2,
        "internal_callees_count": 2,
        "external_callees_count": 0,
    }


def test_graph_json_edges_name_their_ends(project: Path) -> None:
    [a] = answers(project, [("graph", {"from": "start", "depth": 2, "format": "json"})])
    assert not a.is_error, a.text
    nodes = {n["id"]: n for n in a.data["nodes"]}
    edges = a.data["edges"]
    assert edges
    for e in edges:
        assert e["from"] in nodes and e["to"] in nodes  # ids, as before
        assert e["from_name"] == nodes[e["from"]]["qualified_name"]
        assert e["to_name"] == nodes[e["to"]]["qualified_name"]
    assert {("start", "step_b"), ("step_b", "step_c")} <= {
        (e["from_name"], e["to_name"]) for e in edges
    }


def test_search_results_have_a_summary(project: Path) -> None:
    [a] = answers(project, [("search", {"query": "save", "mode": "lexical"})])
    top = a.data["results"][0]
    assert top["qualified_name"] == "Store.save"
    s = top["summary"]
    assert s.startswith("type:function name:Store.save kind:method role:")
    assert "file:pkg/c.py:6-7" in s and "signature:def save(self, item)" in s
    assert len(s) <= 240
    assert "Score:" in a.text  # the text layout is unchanged


def test_outline_has_formatted_text_and_takes_filepath(project: Path) -> None:
    plain, legacy = answers(
        project,
        [("outline", {"file": "pkg/c.py"}), ("outline", {"filepath": "pkg/c.py"})],
    )
    assert plain.data["formatted_text"] == plain.text
    assert plain.text.startswith("[file_outline] pkg/c.py (2 symbols)\n")
    assert plain.data["symbols"]  # znt's own list is still there
    assert legacy.data == plain.data and legacy.text == plain.text


def test_scan_takes_lang_file_path_and_path(project: Path) -> None:
    lang, bad_lang, file_path, path = answers(
        project,
        [
            ("scan", {"lang": "python"}),
            ("scan", {"lang": "klingon"}),
            ("scan", {"file_path": "pkg"}),
            ("scan", {"path": "pkg"}),
        ],
    )
    assert not lang.is_error and lang.data["reason"] == "already_current_project"
    assert bad_lang.error["code"] == "invalid_params" and bad_lang.error["argument"] == "language"
    for a in (file_path, path):
        assert not a.is_error, a.text
        assert a.data["reason"] == "already_covered"
        assert a.data["project_root"] == str(project.resolve())


def test_graph_refuses_target_like_the_original(project: Path) -> None:
    refused, symbol = answers(
        project,
        [("graph", {"target": "step_b"}), ("graph", {"symbol": "step_b"})],
    )
    err = refused.error
    assert err["code"] == "invalid_params" and err["rpc_code"] == -32602
    assert err["argument"] == "target" and "give from" in err["message"]
    assert not symbol.is_error  # znt's own alias stays


def test_status_and_scan_say_which_provider_and_whether_chosen(
    project: Path, tmp_path: Path
) -> None:
    st, scan = answers(project, [("status", {}), ("scan", {})])
    # the tests' config is an external ZNT_CONFIG with bm25: chosen, not the default
    for p in (st.data["provider"], scan.data["provider"]):
        assert p["mode"] == "bm25" and p["source"] == "ZNT_CONFIG"
        assert p["chosen_by_user"] is True and p["leaves_machine"] is False

    async def default() -> dict[str, Any]:
        env = {"XDG_CONFIG_HOME": str(tmp_path / "empty-config"), "ZNT_MCP_MONITOR": "0"}
        async with connect(project, env=env, drop=("ZNT_CONFIG",)) as s:
            return (await ok(s, "status", {})).data["provider"]

    p = anyio.run(default)
    assert p["source"] == "default" and p["chosen_by_user"] is False
    assert p["mode"] in ("local", "bm25") and "no provider was chosen" in p["note"]
