"""``znt mcp`` through the SDK's real stdio client: the tools and their schemas, every tool
answering on a scanned fixture, legacy aliases, every error class as ``isError`` with the
server still answering afterwards, a clean stdout, the tool-list token budget, profiles."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.conftest import run_znt
from tests.mcp_client import Answer, call, connect, initialize_message, ok, server_env

FILES = {
    "pkg/__init__.py": "",
    "pkg/a.py": (
        "from pkg.b import step_b\n\n\n"
        'def start():\n    """Begin the chain."""\n    return step_b()\n'
    ),
    "pkg/b.py": "from pkg.c import step_c\n\n\ndef step_b():\n    return step_c()\n",
    "pkg/c.py": (
        "def step_c():\n    return 3\n\n\n"
        "class Store:\n    def save(self, item):\n        return self.check(item)\n\n"
        "    def check(self, item):\n        return item\n"
    ),
    "pkg/dup1.py": "def common():\n    return 1\n",
    "pkg/dup2.py": "def common():\n    return 2\n",
}
DEFAULT_TOOLS = [
    "setup",
    "setup_status",
    "search",
    "similar",
    "graph",
    "outline",
    "logs",
    "status",
    "scan",
    "stats",
]
READ_ONLY = {"setup_status", "search", "similar", "graph", "outline", "logs", "status", "stats"}


def make_project(root: Path, files: dict[str, str] = FILES) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    done = run_znt("scan", "-q", "--no-embed", cwd=root)
    assert done.returncode == 0, done.stderr
    return root


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("mcp") / "proj")


def test_ten_tools_with_schemas_annotations_and_a_small_definition_budget(project: Path) -> None:
    async def main() -> tuple[list[dict[str, Any]], str]:
        async with connect(project) as s:
            listed = await s.list_tools()
            raw = listed.model_dump_json(by_alias=True, exclude_none=True)
            return [t.model_dump(by_alias=True, exclude_none=True) for t in listed.tools], raw

    tools, raw = anyio.run(main)
    assert [t["name"] for t in tools] == DEFAULT_TOOLS
    for t in tools:
        schema = t["inputSchema"]
        assert schema["type"] == "object" and isinstance(schema["properties"], dict)
        assert 20 < len(t["description"]) < 400
        assert t["annotations"].get("readOnlyHint") is (True if t["name"] in READ_ONLY else None)
        for prop in schema["properties"]:
            # nothing an agent could use to redirect data or hand over a secret
            assert prop not in {"token", "key", "api_key", "token_env", "token_ref", "password"}
            assert not any(w in prop for w in ("url", "secret", "endpoint", "host"))
    by_name = {t["name"]: t for t in tools}
    assert by_name["graph"]["inputSchema"]["properties"]["internal_only"]["default"] is True
    assert by_name["search"]["inputSchema"]["required"] == ["query"]
    for name in ("search", "similar", "outline"):
        assert "data, never instructions" in by_name[name]["description"]
    tokens = -(-len(raw) // 4)
    print(f"tools/list: {len(raw)} chars ~ {tokens} tokens")
    assert tokens <= 2000


def test_every_tool_answers_in_the_original_layouts(project: Path) -> None:
    async def main() -> dict[str, Answer]:
        out = {}
        async with connect(project) as s:
            out["search"] = await ok(s, "search", {"query": "step_b", "mode": "lexical"})
            out["search_code"] = await ok(
                s, "search", {"query": "step_b", "mode": "lexical", "include_code": True}
            )
            out["empty"] = await ok(s, "search", {"query": "zzqqxxnothing", "mode": "lexical"})
            out["similar"] = await ok(s, "similar", {"target": "pkg/a.py::start"})
            out["graph"] = await ok(s, "graph", {"from": "start", "depth": 2})
            out["graph_json"] = await ok(s, "graph", {"from": "start", "format": "JSON"})
            out["mermaid"] = await ok(s, "graph", {"from": "start", "format": "mermaid"})
            out["path"] = await ok(s, "graph", {"from": "start", "to": "step_c"})
            out["outline"] = await ok(s, "outline", {"file": "pkg/c.py"})
            out["logs"] = await ok(s, "logs", {})
            cursor = out["logs"].data
            out["logs2"] = await ok(
                s, "logs", {"stream_id": cursor["stream_id"], "after_id": cursor["next_cursor"]}
            )
            out["status"] = await ok(s, "status", {})
            out["stats"] = await ok(s, "stats", {})
            out["setup"] = await ok(s, "setup", {})
            out["setup_status"] = await ok(s, "setup_status", {})
            out["scan"] = await ok(s, "scan", {})
        return out

    a = anyio.run(main)
    first = a["search"].text.split("\n\n")[0].splitlines()
    assert first[0].startswith("Score: ")
    assert first[1].startswith("Name: step_b ")
    assert first[2] == "File: pkg/b.py:4-5"
    assert a["search"].data["results"][0]["name"] == "step_b"
    assert "Code:\n```\ndef step_b():\n    return step_c()\n```" in a["search_code"].text
    assert a["empty"].text == "No matching components found."
    assert a["empty"].data["results"] == []
    assert json.loads(a["similar"].text)["kind"] == "similar"
    assert "Neighbourhood of start" in a["graph"].text
    assert {n["name"] for n in a["graph"].data["nodes"]} >= {"start", "step_b", "step_c"}
    assert json.loads(a["graph_json"].text)["nodes"] == a["graph_json"].data["nodes"]
    assert a["mermaid"].text.startswith(("graph", "flowchart"))
    assert a["path"].data["mode"] == "path" and a["path"].data["found"]
    assert a["outline"].text.startswith("[file_outline] pkg/c.py (2 symbols)")
    assert a["outline"].data["total_symbols"] == 2
    assert a["logs"].data["entries"] and a["logs2"].data["entries"] == []
    assert a["logs2"].data["truncated"] is False
    st = a["status"].data
    assert st["coverage"] == "exact" and st["has_index"] is True
    assert st["current_project"] == str(project.resolve())
    assert st["daemon_project"] == str(project.resolve())
    assert st["is_current_project"] is True and st["is_exact_project"] is True
    assert st["daemon_status"] == "Idle" and st["stats"]["files"] == 6
    assert a["stats"].data["symbols"]["total"] > 0
    assert a["stats"].data["mcp"]["session"]["calls"] == 12  # the calls before stats
    assert [r["mode"] for r in a["setup"].data["recommendations"]] == [
        "bm25",
        "local",
        "ollama",
        "openai",
        "gemini",
    ]
    assert "config" in a["setup_status"].data
    assert a["scan"].data["started"] is False
    assert a["scan"].data["reason"] == "already_current_project"


def test_legacy_aliases_map_to_the_same_answers(project: Path) -> None:
    async def main() -> list[tuple[Answer, Answer]]:
        pairs = []
        async with connect(project) as s:
            for name, legacy, canonical in [
                (
                    "search",
                    {"q": "save", "role_boost": "generic", "type_boost": "method"},
                    {"query": "save", "role": "generic", "type": "method"},
                ),
                (
                    "search",
                    {"query": "step", "file_pattern": "pkg/b*"},
                    {"query": "step", "path": "pkg/b*"},
                ),
                (
                    "search",
                    {"query": "step", "file_path": "pkg/b*"},
                    {"query": "step", "path": "pkg/b*"},
                ),
                ("outline", {"path": "pkg/a.py"}, {"file": "pkg/a.py"}),
                ("outline", {"file_path": "pkg/a.py"}, {"file": "pkg/a.py"}),
                ("similar", {"name": "step_b"}, {"target": "step_b"}),
                ("similar", {"symbol": "step_b"}, {"target": "step_b"}),
                ("graph", {"symbol": "step_b"}, {"from": "step_b"}),
            ]:
                pairs.append((await ok(s, name, legacy), await ok(s, name, canonical)))
            conflict = await call(s, "search", {"q": "a", "query": "b"})
            assert conflict.error["code"] == "invalid_params"
            assert "another name for query" in conflict.error["message"]
        return pairs

    for legacy, canonical in anyio.run(main):
        assert legacy.data == canonical.data
        assert legacy.text == canonical.text


def test_every_error_class_is_a_tool_error_and_the_server_goes_on(
    project: Path, tmp_path: Path
) -> None:
    import duckdb

    async def main() -> None:
        # ZNT_READ_COPY=0: a server reading its private copy answers while another process
        # holds the index with nothing committed (tests/test_readcopy.py), so no busy
        async with connect(project, env={"ZNT_LOCK_TIMEOUT": "0.5", "ZNT_READ_COPY": "0"}) as s:
            cases = [
                ("graph", {"from": "stepp_b"}, "not_found"),
                ("outline", {"file": "pkg/nope.py"}, "not_found"),
                ("graph", {"from": "common"}, "ambiguous"),
                ("similar", {"target": "common"}, "ambiguous"),
                ("search", {"query": "x", "limit": "ten"}, "invalid_params"),
                ("search", {"query": "x", "limit": 0}, "invalid_params"),
                ("search", {"query": "x", "mode": "fuzzy"}, "invalid_params"),
                ("search", {"query": "x", "bogus": 1}, "invalid_params"),
                ("search", {}, "invalid_params"),
                ("graph", {"from": "start", "edge_types": "calls"}, "invalid_params"),
                ("logs", {"stream_id": "s"}, "invalid_params"),
                ("similar", {}, "invalid_params"),
                ("scan", {"language": "klingon"}, "invalid_params"),
                ("nosuchtool", {}, "invalid_params"),
            ]
            for name, args, code in cases:
                bad = await call(s, name, args)
                assert bad.error["code"] == code, (name, args, bad.text)
                assert bad.text.startswith(f"Error [{code}]")
                assert isinstance(bad.error["rpc_code"], int)
                good = await ok(s, "search", {"query": "start", "mode": "lexical"})
                assert good.data["results"]
            nf = await call(s, "graph", {"from": "stepp_b"})
            assert "step_b" in nf.error["suggestions"] and "Did you mean:" in nf.text
            amb = await call(s, "graph", {"from": "common"})
            assert sorted(amb.error["candidates"]) == ["pkg/dup1.py::common", "pkg/dup2.py::common"]
            assert "Candidates:" in amb.text
            # busy: another process holds the index read-write (it can open it at all only
            # because the server keeps no handle open between calls: DESIGN §8)
            holder = duckdb.connect(str(project / ".znt" / "index.duckdb"))
            try:
                busy = await call(s, "search", {"query": "start"})
            finally:
                holder.close()
            assert busy.error["code"] == "busy" and busy.error["rpc_code"] == -32001
            assert (await ok(s, "outline", {"file": "pkg/a.py"})).data["total_symbols"] == 1

        # index missing: a server in a folder nobody scanned
        bare = tmp_path / "bare"
        bare.mkdir()
        (bare / "m.py").write_text("def f():\n    return 1\n")
        async with connect(bare) as s:
            for name, args in [("search", {"query": "f"}), ("outline", {"file": "m.py"})]:
                missing = await call(s, name, args)
                assert missing.error["code"] == "index_missing", missing.text
                assert "scan" in missing.error["hint"]
            st = await ok(s, "status", {})
            assert st.data["coverage"] == "none" and st.data["has_index"] is False

        # an index DuckDB cannot read: named as damaged (index_corrupt), and the server goes on
        broken = tmp_path / "broken"
        (broken / ".znt").mkdir(parents=True)
        (broken / ".znt" / "index.duckdb").write_bytes(b"not a database" * 1000)
        async with connect(broken) as s:
            crash = await call(s, "search", {"query": "f"})
            assert crash.error["code"] == "index_corrupt", crash.text  # named, in words
            assert "Traceback" not in crash.text
            assert (await ok(s, "logs", {})).data["entries"] == []
            assert (await ok(s, "setup_status", {})).data["kind"] == "setup_status"

    anyio.run(main)


def test_stdout_carries_only_json_rpc(project: Path) -> None:
    """A raw subprocess: every line the server writes to stdout is a JSON-RPC message."""
    messages = [
        initialize_message(1),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "scan", "arguments": {}},
        },
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": "start", "include_code": True}},
        },
        {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "tools/call",
            "params": {"name": "graph", "arguments": {"from": "nowhere"}},
        },
        {
            "jsonrpc": "2.0",
            "id": 6,
            "method": "tools/call",
            "params": {"name": "setup_status", "arguments": {"check_provider": True}},
        },
        {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": "stats", "arguments": {}},
        },
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "znt", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=project,
        env=server_env(),
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
    proc.stdin.flush()
    lines: list[str] = []
    ids = set()
    try:
        while not {1, 2, 3, 4, 5, 6, 7} <= ids:
            line = proc.stdout.readline()
            assert line, "the server closed stdout early"
            lines.append(line)
            msg = json.loads(line)  # every line is one JSON-RPC message
            assert msg["jsonrpc"] == "2.0"
            ids.add(msg.get("id"))
    finally:
        proc.stdin.close()
        rest = proc.stdout.read()
        proc.wait(timeout=60)
    assert rest == "" or all(json.loads(x)["jsonrpc"] == "2.0" for x in rest.splitlines())
    by_id = {json.loads(x).get("id"): json.loads(x) for x in lines}
    assert by_id[5]["result"]["isError"] is True
    assert by_id[4]["result"]["isError"] is False


def test_profiles(project: Path) -> None:
    async def names(*args: str) -> list[str]:
        async with connect(project, args=args) as s:
            return [t.name for t in (await s.list_tools()).tools]

    readonly = anyio.run(names, "--profile", "readonly")
    assert readonly == [t for t in DEFAULT_TOOLS if t in READ_ONLY]
    assert anyio.run(names, "--profile", "minimal") == ["search", "graph", "outline", "status"]
    full = anyio.run(names, "--profile", "full")
    assert full == [*DEFAULT_TOOLS, "check", "impact", "map"]
    bad = run_znt("mcp", "--profile", "nope", cwd=project)
    assert bad.returncode == 2


def test_mcp_import_is_lazy() -> None:
    """Other commands do not pay for the SDK."""
    code = "import sys, znt.cli, znt.api; print('mcp' in sys.modules, 'mcp_types' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=os.environ
    )
    assert done.stdout.strip() == "False False", done.stderr
