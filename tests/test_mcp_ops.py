"""``znt mcp`` in operation: the same answers as the CLI's JSON, a CLI scan running while
the server answers, background scans, deadline and cancellation, usage metrics and
``stats``, the response budget, and ``znt mcp install``."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.conftest import run_znt
from tests.mcp_client import Answer, call, connect, ok, server_env
from tests.test_mcp import FILES, make_project
from znt.mcp import layouts

MCP_STATUS_FIELDS = {
    "current_project",
    "daemon_project",
    "is_current_project",
    "is_exact_project",
    "daemon_status",
    "background_scan",
    "monitoring",
    "read_copy",
}


def cli_json(root: Path, *args: str) -> dict[str, Any]:
    done = run_znt(*args, "--format", "json", cwd=root)
    assert done.stdout.strip(), done.stderr
    doc: dict[str, Any] = json.loads(done.stdout)
    return doc


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mcp-ops") / "proj"
    files = dict(FILES)
    files["znt.yaml"] = (
        "check:\n  rules:\n    - id: fan\n      type: max_fan_out\n      max: 0\n"
        "      severity: warning\n"
    )
    return make_project(root, files)


def _drop_untrusted_marks(doc: dict[str, Any]) -> int:
    """Remove the ``untrusted`` field names the MCP server adds to results carrying source
    text (znt/mcp/tools.py); each must name fields the result has. Returns how many."""
    count = 0
    for key in ("results", "symbols"):
        for item in doc.get(key) or []:
            if isinstance(item, dict) and "untrusted" in item:
                spans = item.pop("untrusted")
                assert spans and all(item.get(f) for f in spans), item
                count += 1
    return count


def test_structured_results_equal_the_cli_json(project: Path) -> None:
    pairs: list[tuple[dict[str, Any], tuple[str, ...], str]] = [
        (
            {"query": "step_b", "mode": "lexical"},
            ("search", "step_b", "--mode", "lexical"),
            "search",
        ),
        (
            {
                "query": "step",
                "callers_level": 2,
                "path": "pkg/*",
                "type": "function",
                "include_code": True,
            },
            ("search", "step", "--callers", "2", "--path", "pkg/*", "--type", "function", "--code"),
            "search",
        ),
        (
            {"query": "nothing_like_this_anywhere"},
            ("search", "nothing_like_this_anywhere"),
            "search",
        ),
        ({"from": "start", "depth": 2}, ("graph", "start", "--depth", "2"), "graph"),
        (
            {"from": "start", "to": "step_c", "internal_only": False},
            ("graph", "start", "--to", "step_c", "--all"),
            "graph",
        ),
        (
            {"from": "Store", "direction": "down", "edge_types": "contains,call"},
            ("graph", "Store", "--direction", "down", "--edge-types", "contains,call"),
            "graph",
        ),
        ({"file": "pkg/c.py"}, ("outline", "pkg/c.py"), "outline"),
        ({"file": "pkg/c.py", "include_code": True}, ("outline", "pkg/c.py", "--code"), "outline"),
        (
            {"file": "pkg/c.py", "include_members": True},
            ("outline", "pkg/c.py", "--members"),
            "outline",
        ),
        ({"target": "step_b", "limit": 3}, ("similar", "step_b", "--limit", "3"), "similar"),
        ({}, ("logs",), "logs"),
    ]

    async def main() -> dict[str, Any]:
        got: dict[str, Any] = {}
        async with connect(project, args=("--profile", "full")) as s:
            for i, (args, _, tool) in enumerate(pairs):
                got[str(i)] = (await ok(s, tool, args)).data
            got["status"] = (await ok(s, "status", {})).data
            got["stats"] = (await ok(s, "stats", {})).data
            got["check"] = (await ok(s, "check", {})).data
            got["impact"] = (await ok(s, "impact", {"paths": "pkg/c.py", "depth": 2})).data
        return got

    got = anyio.run(main)
    marked = 0
    for i, (_, cli_args, _) in enumerate(pairs):
        marked += _drop_untrusted_marks(got[str(i)])
        assert got[str(i)] == cli_json(project, *cli_args), cli_args
    assert marked > 0, "results with source text name it in untrusted (MCP only)"
    status = cli_json(project, "status")
    assert {k: got["status"][k] for k in status} == status
    assert set(got["status"]) - set(status) == MCP_STATUS_FIELDS
    stats = cli_json(project, "stats")
    mcp_part, cli_part = got["stats"].pop("mcp"), stats.pop("mcp")
    assert got["stats"] == stats
    # the CLI reads the same metrics file, which now also holds the stats and check calls
    assert cli_part["total"]["calls"] == mcp_part["total"]["calls"] + 3
    assert mcp_part["session"]["calls"] == len(pairs) + 1
    check = cli_json(project, "check")
    assert got["check"] == check and check["summary"]["violations"] > 0
    impact = cli_json(project, "impact", "pkg/c.py", "--depth", "2")
    assert got["impact"] == impact


def test_a_cli_scan_runs_while_the_server_answers(tmp_path: Path) -> None:
    files = dict(FILES)
    for i in range(150):
        files[f"gen/m{i}.py"] = "".join(
            f"def gen_{i}_{j}(x):\n    return step_{j}(x) + {j}\n\n\n" for j in range(12)
        )
    project = make_project(tmp_path / "proj", files)
    for i in range(150):  # every generated file changes: the scan has real work
        path = project / "gen" / f"m{i}.py"
        path.write_text(path.read_text() + "\n\ndef extra():\n    return 1\n")
    answers: list[Answer] = []

    async def main() -> int:
        async with connect(project, env={"ZNT_LOCK_TIMEOUT": "120"}) as s:
            await ok(s, "status", {})
            errors = open(tmp_path / "scan.err", "w")  # noqa: SIM115 - closed below
            scan = subprocess.Popen(
                [sys.executable, "-m", "znt", "scan", "-q", "--no-embed"],
                cwd=project,
                env=server_env(),
                stdout=subprocess.DEVNULL,
                stderr=errors,
            )
            during = 0
            last_round = False
            while not last_round:
                last_round = scan.poll() is not None  # one more round after it ended
                for name, args in [
                    ("search", {"query": "step_b", "mode": "lexical"}),
                    ("outline", {"file": "pkg/c.py"}),
                    ("graph", {"from": "start", "depth": 2}),
                ]:
                    answers.append(await call(s, name, args))
                if not last_round:
                    during += 1
            assert during >= 1, "the scan ended before the server was asked anything"
            code = scan.wait(timeout=300)
            errors.close()
            assert code == 0, (tmp_path / "scan.err").read_text()
            after = await ok(s, "search", {"query": "extra", "mode": "lexical"})
            assert after.data["results"]
            return during

    anyio.run(main)
    bad = [a.text for a in answers if a.is_error]
    assert not bad, bad


def test_scan_tool_indexes_in_the_background_and_never_deletes(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    for rel, text in FILES.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text)

    async def wait_idle(s: Any) -> dict[str, Any]:
        deadline = time.monotonic() + 240
        while True:
            st = (await ok(s, "status", {})).data
            if st["background_scan"]["state"] != "running":
                return st
            assert time.monotonic() < deadline, st
            await anyio.sleep(0.2)

    async def main() -> None:
        # background scans alone: no watcher re-indexing behind the test's back
        # (tests/test_mcp_monitor.py covers monitoring)
        async with connect(project, env={"ZNT_MCP_MONITOR": "0"}) as s:
            missing = await call(s, "search", {"query": "start"})
            assert missing.error["code"] == "index_missing"
            first = await ok(s, "scan", {})
            assert first.data["started"] is True and first.data["scan_id"].startswith("scan_")
            again = await ok(s, "scan", {})
            assert again.data == {
                **again.data,
                "started": False,
                "reason": "scan_in_progress",
                "scan_id": first.data["scan_id"],
            }
            st = await wait_idle(s)
            assert st["background_scan"]["state"] == "completed", st
            assert st["has_index"] and st["coverage"] == "exact" and st["is_current_project"]
            stream = (await ok(s, "logs", {})).data["stream_id"]
            assert (await ok(s, "search", {"query": "start"})).data["results"]
            current = await ok(s, "scan", {})
            assert current.data["reason"] == "already_current_project"
            covered = await ok(s, "scan", {"project_path": "pkg"})
            assert covered.data["reason"] == "already_covered"
            assert covered.data["project_root"] == str(project.resolve())
            # an edit makes the index stale: scan refreshes it incrementally
            (project / "pkg" / "b.py").write_text("def step_b():\n    return renamed()\n")
            refresh = await ok(s, "scan", {"project_path": str(project)})
            assert refresh.data["started"] is True
            st = await wait_idle(s)
            assert st["background_scan"]["state"] == "completed"
            assert (await ok(s, "logs", {})).data["stream_id"] == stream  # not rebuilt

    anyio.run(main)


def test_deadline_and_cancellation_leave_the_server_answering(project: Path) -> None:
    import duckdb

    async def main() -> Any:
        env = {"ZNT_MCP_REQUEST_TIMEOUT_MS": "1500", "ZNT_LOCK_TIMEOUT": "60"}
        async with connect(project, env=env) as s:
            holder = duckdb.connect(str(project / ".znt" / "index.duckdb"))
            try:
                started = time.monotonic()
                slow = await call(s, "search", {"query": "start"})
                assert slow.error["code"] == "timeout", slow.text
                assert time.monotonic() - started < 30
                with anyio.move_on_after(1.0) as scope:
                    await s.call_tool("outline", {"file": "pkg/a.py"})
                assert scope.cancelled_caught
                fast = await ok(s, "logs", {})  # needs no index
                assert fast.data["entries"]
            finally:
                holder.close()
            assert (await ok(s, "search", {"query": "start"})).data["results"]
            return s

    anyio.run(main)
    records = [
        json.loads(x) for x in (project / ".znt" / "mcp-usage.jsonl").read_text().splitlines()
    ]
    outcomes = [(r["tool"], r["error"]) for r in records]
    assert ("search", "timeout") in outcomes and ("outline", "cancelled") in outcomes


def test_usage_metrics_and_stats(tmp_path: Path) -> None:
    files = dict(FILES)
    files["pkg/big.py"] = "".join(
        f"def big_{j}(x):\n"
        + "".join(f"    x = x * {k} + {j}\n" for k in range(20))
        + "    return x\n\n\n"
        for j in range(60)
    )
    project = make_project(tmp_path / "proj", files)
    usage = project / ".znt" / "mcp-usage.jsonl"

    async def main(env: dict[str, str] | None = None) -> dict[str, Any]:
        async with connect(project, env=env) as s:
            await ok(s, "search", {"query": "big_7", "mode": "lexical", "limit": 1})
            await ok(s, "outline", {"file": "pkg/a.py"})
            await call(s, "graph", {"from": "nope_nothing"})
            return (await ok(s, "stats", {})).data["mcp"]

    mcp = anyio.run(main)
    records = [json.loads(x) for x in usage.read_text().splitlines()]
    assert [r["tool"] for r in records] == ["search", "outline", "graph", "stats"]
    search = records[0]
    assert search["response_tokens"] > 0 and search["files_touched"] == 1
    assert search["alternative_tokens"] > search["response_tokens"]
    assert search["saved_tokens"] == search["alternative_tokens"] - search["response_tokens"]
    assert records[2]["is_error"] and records[2]["error"] == "not_found"
    assert mcp["session"]["calls"] == 3 and mcp["session"]["errors"] == 1
    assert mcp["total"]["saved_tokens"] >= search["saved_tokens"] > 0
    assert mcp["session"]["savings_ratio"].endswith("x")
    assert {t["tool"] for t in mcp["top_tools"]} == {"search", "outline", "graph"}
    assert [c["tool"] for c in mcp["last_calls"]] == ["search", "outline", "graph"]
    assert mcp["session"]["avg_ms"] > 0
    cli = cli_json(project, "stats")["mcp"]
    assert cli["total"]["calls"] == 4 and cli["sessions"] == 1

    # a metrics file that cannot be written never fails a call
    blocked = tmp_path / "a-directory"
    blocked.mkdir()
    mcp = anyio.run(main, {"ZNT_MCP_METRICS_FILE": str(blocked)})
    assert mcp["session"]["calls"] == 3 and mcp["total"]["calls"] == 0
    assert blocked.is_dir(), "a path the user named is never removed to make room"
    # and the override is where records go
    other = tmp_path / "elsewhere" / "usage.jsonl"
    anyio.run(main, {"ZNT_MCP_METRICS_FILE": str(other)})
    assert len(other.read_text().splitlines()) == 4


def test_no_response_exceeds_the_budget(tmp_path: Path) -> None:
    files = dict(FILES)
    files["pkg/huge.py"] = "".join(
        f"def huge_{j}(x):\n"
        + "".join(f"    x = x + {k}  # padding padding\n" for k in range(30))
        + "    return x\n\n\n"
        for j in range(300)
    )
    files["pkg/one.py"] = (
        "DATA = [\n"
        + "".join(f"    '{'x' * 60}{i}',\n" for i in range(3000))
        + "]\n\n\ndef one():\n    return DATA\n"
    )
    project = make_project(tmp_path / "proj", files)

    async def main() -> list[Answer]:
        async with connect(project) as s:
            return [
                await ok(s, "outline", {"file": "pkg/huge.py", "include_code": True}),
                await ok(
                    s,
                    "search",
                    {
                        "query": "huge",
                        "limit": 100,
                        "include_code": True,
                        "max_code_lines": 400,
                        "callers_level": 5,
                        "callees_level": 5,
                    },
                ),
                await ok(s, "graph", {"from": "pkg/huge.py", "max_nodes": 500, "format": "json"}),
                await ok(s, "outline", {"file": "pkg/one.py", "include_code": True}),
            ]

    for answer in anyio.run(main):
        assert answer.tokens() <= layouts.MAX_RESPONSE_TOKENS
    outline = anyio.run(main)[0]
    assert outline.data["truncated"] is True and outline.data["truncated_reason"]
    assert 0 < len(outline.data["symbols"]) < outline.data["total_symbols"] == 300


def test_bound_cuts_lists_then_code_then_everything() -> None:
    doc = {"kind": "x", "results": [{"file": "f", "code": "y" * 4000} for _ in range(100)]}
    text, cut = layouts.bound(doc, layouts.pretty, budget=5000)
    assert layouts.size(text, cut) <= 5000 and cut["truncated"] and 0 < len(cut["results"]) < 100
    one = {"kind": "x", "results": [{"file": "f", "code": "y" * 100_000}]}
    text, cut = layouts.bound(one, layouts.pretty, budget=5000)
    assert cut["results"] == [{"file": "f"}] and "code dropped" in cut["truncated_reason"]
    text, cut = layouts.bound({"kind": "x", "blob": "z" * 100_000}, layouts.pretty, budget=100)
    assert layouts.size(text, cut) <= 100 and cut["truncated"]
    small = {"kind": "x", "results": [1]}
    assert layouts.bound(small, layouts.pretty) == (layouts.pretty(small), small)


def test_install_writes_each_clients_shape_and_merges(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / ".vscode").mkdir(parents=True)
    (root / ".vscode" / "mcp.json").write_text(
        json.dumps({"servers": {"other": {"type": "stdio", "command": "x"}}, "inputs": []})
    )
    for client in ("claude-code", "vscode", "cursor"):
        done = run_znt("mcp", "install", "--client", client, "-C", str(root))
        assert done.returncode == 0, done.stderr
    claude = json.loads((root / ".mcp.json").read_text())
    entry = claude["mcpServers"]["znt"]
    assert entry["args"][-1] == "mcp" and entry["env"]["ZNT_PROJECT_ROOT"] == str(root.resolve())
    vscode = json.loads((root / ".vscode" / "mcp.json").read_text())
    assert vscode["servers"]["other"] == {"type": "stdio", "command": "x"}
    assert vscode["inputs"] == [] and vscode["servers"]["znt"]["type"] == "stdio"
    cursor = json.loads((root / ".cursor" / "mcp.json").read_text())
    assert cursor["mcpServers"]["znt"]["command"] == entry["command"]
    again = run_znt("mcp", "install", "--client", "cursor", "-C", str(root))
    assert again.stdout.startswith("unchanged")
    printed = run_znt(
        "mcp",
        "install",
        "--client",
        "claude-code",
        "--print",
        "--profile",
        "readonly",
        "-C",
        str(tmp_path),
    )
    assert json.loads(printed.stdout)["mcpServers"]["znt"]["args"][-2:] == ["--profile", "readonly"]
    assert not (tmp_path / ".mcp.json").exists()
    (root / ".mcp.json").write_text("{not json")
    broken = run_znt("mcp", "install", "--client", "claude-code", "-C", str(root))
    assert broken.returncode == 2 and (root / ".mcp.json").read_text() == "{not json"
    # the installed command really starts the server, for the project it names
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def main() -> str:
        params = StdioServerParameters(
            command=entry["command"],
            args=entry["args"],
            env=server_env(entry["env"]),
            cwd=str(tmp_path),
        )
        async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            assert len((await s.list_tools()).tools) == 10
            status = (await s.call_tool("status", {})).structured_content
            return str(status["current_project"])

    assert anyio.run(main) == str(root.resolve())


def test_a_call_that_loads_modules_freezes_what_is_alive_and_later_calls_do_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tool's first call loads its libraries; the server then moves every object alive
    out of the collector's sight (``gc.freeze``), so that no later call pays a full
    collection over them (~60 ms on sympy). A call that loads nothing freezes nothing:
    what a freeze keeps is bounded by the number of imports."""
    import gc

    from znt.mcp import tools

    root = make_project(tmp_path / "proj")
    gc.unfreeze()
    monkeypatch.setattr(tools, "_modules_frozen", 0)  # as in a server that loaded nothing yet
    # Freezes counted where they happen: the frozen count itself also falls when a frozen
    # object is freed (CI saw it drop by 2 during the second call).
    freezes: list[int] = []
    freeze = gc.freeze
    monkeypatch.setattr(gc, "freeze", lambda: freezes.append(1) or freeze())
    box = tools.Toolbox("default", base=root)
    try:
        args = {"query": "alpha", "mode": "lexical"}
        assert not box.call("search", args).is_error
        assert freezes and gc.get_freeze_count() > 0
        first = len(freezes)
        assert not box.call("search", args).is_error
        assert len(freezes) == first
    finally:
        box.close()
        gc.unfreeze()
