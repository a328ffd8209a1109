"""Scan progress through the real MCP client: while a scan of a generated tree runs (with
embeddings from a real HTTP provider on 127.0.0.1), successive ``status`` calls show the
original's phases in its order, a percent that never decreases, files and texts done of
their totals, and ``status`` equal to ``daemon_status``; a scan started elsewhere (a
``znt scan`` in a shell) is reported the same way. Nothing asserts on time."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio

from tests.embed_server import EmbedServer
from tests.mcp_client import connect, ok, server_env
from znt.index.progress import PHASES

N_FILES = 120


def generate(root: Path) -> Path:
    for i in range(N_FILES):
        path = root / f"pkg{i % 6}" / f"mod_{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        body = "\n\n".join(
            f"def handler_{i}_{j}(request):\n    '''Handle kind {j} of {i}.'''\n"
            f"    return helper_{i}(request) + {j}\n"
            for j in range(3)
        )
        path.write_text(body + f"\n\ndef helper_{i}(x):\n    return x\n")
    return root


def provider_config(folder: Path, url: str) -> Path:
    cfg = folder / "ollama.yaml"
    cfg.write_text(
        f"embedding:\n  provider: ollama\n  model: test-embed\n  url: {url}\n  batch_size: 16\n"
    )
    return cfg


def check_sequence(seen: list[dict[str, Any]]) -> list[str]:
    """Every status agrees with itself; phases in order; percent never decreases."""
    phases: list[str] = []
    last_rank, last_pct = -1, -1.0
    for st in seen:
        assert st["status"] == st["daemon_status"], st
        p = st["progress"]
        if st["status"] == "Scanning":
            assert p is not None and p["status"] == "scanning", st
        if p is None:
            continue
        rank = PHASES.index(p["phase"])
        assert rank >= last_rank, [x["progress"]["phase"] for x in seen if x["progress"]]
        assert p["percent"] >= last_pct, [x["progress"]["percent"] for x in seen if x["progress"]]
        assert 0 <= p["percent"] <= 100
        assert p["phase_done"] <= p["phase_total"] or p["phase_total"] == 0
        last_rank, last_pct = rank, p["percent"]
        if not phases or phases[-1] != p["phase"]:
            phases.append(p["phase"])
    return phases


def test_status_follows_an_mcp_scan_through_the_original_phases(tmp_path: Path) -> None:
    project = generate(tmp_path / "proj")
    with EmbedServer(dim=8, sleep_s=0.05) as provider:
        env = {
            "ZNT_CONFIG": str(provider_config(tmp_path, provider.url)),
            "ZNT_MCP_MONITOR": "0",
            # hold the scan a moment at the end of parsing: the ast phase is seen at its end
            "ZNT_DEBUG_PAUSE": "parsed:1.5",
        }

        async def main() -> list[dict[str, Any]]:
            seen: list[dict[str, Any]] = []
            async with connect(project, env=env) as s:
                started = await ok(s, "scan", {})
                assert started.data["started"] is True
                scan_id = started.data["scan_id"]
                deadline = time.monotonic() + 300
                while True:
                    st = (await ok(s, "status", {})).data
                    seen.append(st)
                    p = st["progress"]
                    if p is not None:
                        assert p["scan_id"] == scan_id
                    if p is not None and p["status"] in ("completed", "error"):
                        break
                    assert time.monotonic() < deadline, seen[-1]
                    await anyio.sleep(0.05)
            return seen

        seen = anyio.run(main)
    phases = check_sequence(seen)
    final = seen[-1]["progress"]
    assert final["status"] == "completed" and final["percent"] == 100.0, final
    assert phases[0] == "ast" and phases[-1] == "completed"
    assert "embedding" in phases, phases
    assert final["total_files"] == final["scanned_files"] == N_FILES
    assert final["texts_total"] == final["texts_embedded"] > 0
    # parse counts and embedding counts moved while the scan ran
    ast_done = {x["progress"]["scanned_files"] for x in seen if x["progress"]}
    assert N_FILES in ast_done
    embedded = [x["progress"]["texts_embedded"] for x in seen if x["progress"]]
    assert len(set(embedded)) >= 2
    assert seen[-1]["status"] == "Idle"


def test_a_scan_from_a_shell_is_reported_too(tmp_path: Path) -> None:
    project = generate(tmp_path / "proj")
    env = {"ZNT_MCP_MONITOR": "0"}

    async def main() -> list[dict[str, Any]]:
        seen: list[dict[str, Any]] = []
        async with connect(project, env=env) as s:
            shell = subprocess.Popen(
                [sys.executable, "-m", "znt", "scan", "-q", "--no-embed"],
                cwd=project,
                env=server_env({"ZNT_DEBUG_PAUSE": "parsed:1.5"}),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            deadline = time.monotonic() + 300
            while True:
                st = (await ok(s, "status", {})).data
                seen.append(st)
                if shell.poll() is not None and st["status"] != "Scanning":
                    break
                assert time.monotonic() < deadline
                await anyio.sleep(0.05)
            assert shell.wait() == 0
        return seen

    seen = anyio.run(main)
    phases = check_sequence(seen)
    assert "Scanning" in [x["status"] for x in seen]
    assert phases[-1] == "completed" and seen[-1]["progress"]["percent"] == 100.0
    assert seen[-1]["progress"]["path"] == str(project.resolve())
