"""Latency of MCP tool calls in process, over the SDK's real client, on an indexed tree.

The server (``znt.mcp.server.build``) and the SDK's ``Client`` run in this one process on the
SDK's in-memory transport, so a figure is what a tool call costs inside a running
``znt mcp``: JSON-RPC framing both ways, argument checks, path containment, the worker
thread, the ``znt.api`` call, the layout and the metrics line. Reads come from a private copy
of the index, as in ``znt mcp`` (znt/index/readcopy.py; made before the first measured call),
or with ``--no-read-copy`` from the index file attached for each call. Measured interleaved with the same ``znt.api`` call made directly (the
baseline), so the overhead of the MCP layer is a ratio taken under the same load.

    python benchmarks/mcp_latency.py /work/bench/qtree/sympy --runs 30 --out docs/mcp.md

Metrics go to a temporary file (``ZNT_MCP_METRICS_FILE``): nothing is written to the tree.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("lexical search", "search", {"query": "solve_linear_system", "mode": "lexical"}),
    ("lexical search (id)", "search", {"query": "Symbol", "mode": "lexical", "limit": 10}),
    ("outline", "outline", {"file": "sympy/core/basic.py"}),
    ("graph depth 2", "graph", {"from": "sympy/solvers/solveset.py::solveset", "depth": 2}),
]


def direct(name: str, args: dict[str, Any], root: str) -> Callable[[], Any]:
    """The same question asked of ``znt.api`` without MCP (the baseline)."""
    from znt import api

    if name == "search":
        return lambda: api.search(
            args["query"], mode=args["mode"], limit=args.get("limit", 10), project_path=root
        )
    if name == "outline":
        return lambda: api.outline(str(Path(root) / args["file"]), project_path=root)
    return lambda: api.graph(args["from"], depth=args["depth"], project_path=root)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def measure(root: Path, runs: int, read_copy: bool) -> list[dict[str, Any]]:
    from mcp.client.client import Client

    from znt import api
    from znt.mcp.server import build
    from znt.mcp.tools import Toolbox

    box = Toolbox("default", base=root)
    rows = []
    api.use_read_copies(read_copy)  # as ``znt mcp`` does unless ZNT_READ_COPY=0
    async with Client(build(box)) as client:
        if read_copy and not api.use_read_copies(wait_for=str(root)):
            raise SystemExit("the read copy was not ready within a minute")
        for label, name, args in CASES:
            base = direct(name, args, str(root))
            first = time.perf_counter()
            result = await client.call_tool(name, args)
            warm_ms = (time.perf_counter() - first) * 1000
            if result.is_error:
                raise SystemExit(f"{label}: {result.content[0].text}")  # type: ignore[union-attr]
            base()
            mcp_ms: list[float] = []
            api_ms: list[float] = []
            for _ in range(runs):
                t0 = time.perf_counter()
                await client.call_tool(name, args)
                mcp_ms.append((time.perf_counter() - t0) * 1000)
                t0 = time.perf_counter()
                base()
                api_ms.append((time.perf_counter() - t0) * 1000)
            rows.append(
                {
                    "case": label,
                    "first_ms": warm_ms,
                    "p50": statistics.median(mcp_ms),
                    "p90": pct(mcp_ms, 0.9),
                    "api_p50": statistics.median(api_ms),
                }
            )
    return rows


def table(
    rows: list[dict[str, Any]], root: Path, runs: int, load: tuple[float, ...], read_copy: bool
) -> str:
    how = "from the server's private read copy" if read_copy else "index attached per call"
    lines = [
        f"Tree: `{root}`; reads {how}; {runs} calls per case after one warm-up call; "
        f"load average before/after: {load[0]:.2f} / {load[1]:.2f} "
        f"on {os.cpu_count()} CPUs; Python {sys.version.split()[0]}.",
        "",
        "| case | MCP p50 ms | MCP p90 ms | direct api p50 ms | MCP/api | first call ms |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['case']} | {r['p50']:.1f} | {r['p90']:.1f} | {r['api_p50']:.1f} | "
            f"{r['p50'] / r['api_p50']:.2f} | {r['first_ms']:.1f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--out", type=Path, help="Also append the table to this Markdown file.")
    parser.add_argument(
        "--no-read-copy",
        action="store_true",
        help="attach the index file for each call (as with ZNT_READ_COPY=0) instead of "
        "reading from the private copy `znt mcp` keeps",
    )
    opts = parser.parse_args()
    root = opts.tree.resolve()
    if not (root / ".znt" / "index.duckdb").exists():
        raise SystemExit(f"{root} is not indexed: run `znt scan {root}` first")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["ZNT_MCP_METRICS_FILE"] = str(Path(tmp) / "usage.jsonl")
        before = os.getloadavg()[0]
        rows = anyio.run(measure, root, opts.runs, not opts.no_read_copy)
        after = os.getloadavg()[0]
    out = table(rows, root, opts.runs, (before, after), not opts.no_read_copy)
    print(out)
    if opts.out:
        with open(opts.out, "a", encoding="utf-8") as fh:
            fh.write("\n" + out + "\n")


if __name__ == "__main__":
    main()
