"""Latency of ``znt graph`` on an indexed tree (sympy), against a baseline measured in the same run.

Two questions, as in benchmarks/query.py:

- one-shot: each round runs ``python -c "import duckdb"`` (the floor of any znt command), one
  ``znt graph`` neighbourhood and one ``znt graph --to`` path, each a fresh process of the
  venv's console script, cycling through the query lists below. One-shot times are reported
  as percentiles of per-round ratios to the baseline of the same round, because the machines
  this runs on are shared and noisy.
- in-process (a long-lived MCP server): ``znt.api.graph`` over every query ``--runs`` times,
  after one warm-up call per query. Wall and CPU time (``time.process_time``) per call. Twice:
  with the index file attached for each call, and from a private read copy as ``znt mcp``
  reads (znt/index/readcopy.py).

The neighbourhoods are depth 2 around symbols of very different fan-out (a method with a few
callers, a hub called from hundreds of places, a printer method with ~700 callers, a solver
with 30 callees); the paths run between symbols 1 to 4 call hops apart, one of them only
backwards (``--direction both`` then searches both ways).

    python benchmarks/graph_query.py /work/bench/perf-sympy --runs 20 \\
        --out docs/benchmarks/graph.md

The tree must already be indexed (``znt scan TREE --no-embed`` is enough); nothing here
writes to it. Python files are compiled into a private ``PYTHONPYCACHEPREFIX`` first, so
the one-shot runs load bytecode that matches the source (as an installed znt does) even
where ``PYTHONDONTWRITEBYTECODE`` is set or the checkout's ``__pycache__`` is stale; an
untimed first round fills that cache for the libraries too.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

try:
    from benchmarks import eval_metrics as em
    from benchmarks.bytecode import installed_like
    from benchmarks.eval_trees import git_describe
except ImportError:  # pragma: no cover - run as a script: its own folder is on sys.path
    import eval_metrics as em  # type: ignore[no-redef]
    from bytecode import installed_like  # type: ignore[no-redef]
    from eval_trees import git_describe  # type: ignore[no-redef]

# (FROM, options): depth-2 neighbourhoods of different fan-out.
NEIGHBOURHOODS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("sympy/core/basic.py::Basic.atoms", {"direction": "both"}),
    ("sympy.core.sympify.sympify", {"direction": "both"}),
    ("Printer._print", {"direction": "up"}),
    ("solve", {"direction": "down"}),
    ("limit", {"direction": "both"}),
    ("Basic.subs", {"direction": "down"}),
)
# (FROM, TO): call paths a few hops apart; the last exists only backwards.
PATHS: tuple[tuple[str, str], ...] = (
    ("simplify", "Basic.atoms"),
    ("solve", "Basic.xreplace"),
    ("factor", "Basic._xreplace"),
    ("limit", "Basic.xreplace"),
    ("integrate", "Basic._eval_subs"),
    ("sympy.core.sympify.sympify", "solve"),
)
DEPTH = 2
TARGETS = {"inproc_ms": 20.0, "oneshot": 2.0}
# In-process: the index attached for each call (a library caller), and a private read copy
# kept by the process (``znt mcp``; znt/index/readcopy.py).
VARIANTS = {"attach": "index attached per call", "read copy": "private read copy (znt mcp)"}


def _p(values: Sequence[float], q: float) -> float:
    return em.percentile(list(values), q)


def _verdict(value: float, target: float) -> str:
    return "yes" if value <= target else "**no**"


def nb_args(query: tuple[str, dict[str, Any]]) -> list[str]:
    frm, opts = query
    return [frm, "--depth", str(DEPTH), "--direction", opts["direction"]]


def path_args(query: tuple[str, str]) -> list[str]:
    return [query[0], "--to", query[1]]


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, int, str]:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - t0, proc.returncode, proc.stderr.strip()


def oneshot_rounds(
    args: argparse.Namespace, env: dict[str, str]
) -> tuple[dict[str, list[float]], list[str]]:
    """Interleaved subprocess timings (seconds per measurement) and the failures seen."""
    tree = Path(args.tree)
    znt = [args.znt, "--format", "json", "-q", "graph"]
    times: dict[str, list[float]] = {"import": [], "neighbourhood": [], "path": []}
    failures: list[str] = []
    for i in range(-1, args.runs):  # round -1 warms the bytecode cache and is not timed
        cmds = {
            "import": [args.python, "-c", "import duckdb"],
            "neighbourhood": [*znt, *nb_args(NEIGHBOURHOODS[i % len(NEIGHBOURHOODS)])],
            "path": [*znt, *path_args(PATHS[i % len(PATHS)])],
        }
        for name, cmd in cmds.items():
            secs, rc, err = timed(cmd, env, tree)
            if rc != 0:
                failures.append(f"{' '.join(cmd[-4:])}: exit {rc}: {err[-300:]}")
            if i >= 0:
                times[name].append(secs)
    return times, failures


def _call(tree: str, kind: str, query: Any) -> Mapping[str, Any]:
    from znt import api

    if kind == "neighbourhood":
        frm, opts = query
        return api.graph(frm, depth=DEPTH, direction=opts["direction"], project_path=tree)
    return api.graph(query[0], to=query[1], project_path=tree)


def inprocess(args: argparse.Namespace, read_copy: bool) -> dict[str, Any]:
    """Per query: wall and CPU seconds of ``--runs`` calls after one warm-up, and what the
    answer looked like (nodes, queries, truncated or path length). ``read_copy``: as
    ``znt mcp`` reads, from a private copy of the index (waited for before any call);
    otherwise the index file is attached for each call."""
    from znt import api

    api.use_read_copies(read_copy)
    if read_copy and not api.use_read_copies(wait_for=args.tree):
        raise SystemExit("the read copy was not ready within a minute")
    asks: list[tuple[str, Any, list[str]]] = [
        *(("neighbourhood", q, nb_args(q)) for q in NEIGHBOURHOODS),
        *(("path", q, path_args(q)) for q in PATHS),
    ]
    out: dict[str, Any] = {}
    for kind, q, argv in asks:
        t0 = time.perf_counter()
        doc = _call(args.tree, kind, q)
        first = time.perf_counter() - t0
        wall, cpu = [], []
        for _ in range(args.runs):
            t0, c0 = time.perf_counter(), time.process_time()
            _call(args.tree, kind, q)
            cpu.append(time.process_time() - c0)
            wall.append(time.perf_counter() - t0)
        out[" ".join(argv)] = {"kind": kind, "wall": wall, "cpu": cpu, "first": first, "doc": doc}
    api.use_read_copies(False)
    return out


def _shape(doc: Mapping[str, Any]) -> str:
    st = doc["stats"]
    text = f"{len(doc['nodes'])} nodes, {len(doc['edges'])} edges, {st['queries']} edge queries"
    if doc["mode"] == "path":
        return text + f", length {doc['path_length']} ({doc['direction_used']})"
    return text + (", truncated" if doc["truncated"] else "")


def report(
    args: argparse.Namespace,
    one: dict[str, list[float]],
    failures: list[str],
    inproc: dict[str, Any],
    started: dt.datetime,
    load: tuple[float, float, float],
) -> str:
    import znt

    tree = Path(args.tree)
    commit = subprocess.run(
        ["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    end = os.getloadavg()
    cmd = " ".join([Path(sys.executable).name, *sys.argv])
    imp = one["import"]
    lines = [
        f"### graph query latency: {tree.name}",
        "",
        f"- command: `{cmd}`",
        f"- date: {started:%Y-%m-%d %H:%M} UTC; {args.runs} interleaved one-shot rounds; "
        f"in-process: {args.runs} calls per query after one warm-up",
        f"- tree: `{tree}` at commit `{commit or 'unknown'}`",
        f"- znt commit: {git_describe(Path(__file__).resolve().parent.parent)}; in-process znt "
        f"from `{Path(znt.__file__).resolve().parent}`; one-shot `{args.znt}`",
        f"- machine: {os.cpu_count()} CPUs, load average {load[0]:.2f} {load[1]:.2f} "
        f"{load[2]:.2f} at start, {end[0]:.2f} {end[1]:.2f} {end[2]:.2f} at the end; "
        f"Python {platform.python_version()}",
        "",
        "| measurement | p50 | p90 | CPU p50 | ratio to import duckdb (p50 / p90) | target | met |",
        "|---|---:|---:|---:|---:|---:|:---:|",
        f'| baseline: `python -c "import duckdb"` | {_p(imp, 0.5) * 1000:.0f} ms '
        f"| {_p(imp, 0.9) * 1000:.0f} ms | | | | |",
    ]
    for kind in ("neighbourhood", "path"):
        ratio = [t / b for t, b in zip(one[kind], imp, strict=True)]
        r50 = _p(ratio, 0.5)
        what = "neighbourhood (depth 2)" if kind == "neighbourhood" else "path (`--to`)"
        lines.append(
            f"| one-shot `znt graph` {what} | {_p(one[kind], 0.5) * 1000:.0f} ms "
            f"| {_p(one[kind], 0.9) * 1000:.0f} ms | | {r50:.2f}× / {_p(ratio, 0.9):.2f}× "
            f"| ≤ {TARGETS['oneshot']}× | {_verdict(r50, TARGETS['oneshot'])} |"
        )
    for variant, how in VARIANTS.items():
        for kind in ("neighbourhood", "path"):
            rows = [v for v in inproc[variant].values() if v["kind"] == kind]
            wall = [t for v in rows for t in v["wall"]]
            cpu = [t for v in rows for t in v["cpu"]]
            ms50 = _p(wall, 0.5) * 1000
            what = "neighbourhoods (depth 2)" if kind == "neighbourhood" else "paths"
            lines.append(
                f"| in-process `api.graph`, all {what}, {how} | {ms50:.1f} ms "
                f"| {_p(wall, 0.9) * 1000:.1f} ms | {_p(cpu, 0.5) * 1000:.1f} ms | "
                f"| ≤ {TARGETS['inproc_ms']:.0f} ms | {_verdict(ms50, TARGETS['inproc_ms'])} |"
            )
    attach, copy = inproc["attach"], inproc["read copy"]
    lines += [
        "",
        "Per query, in-process (wall p50 with the index attached per call; wall p50 / p90, "
        "CPU p50 and the first call of each query (the warm-up, not in the percentiles: "
        "blocks not yet in DuckDB's cache) from the read copy):",
        "",
        "| query | attach p50 | copy p50 | copy p90 | copy CPU p50 | copy first call | answer |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for label, v in copy.items():
        lines.append(
            f"| `znt graph {label}` | {_p(attach[label]['wall'], 0.5) * 1000:.1f} ms "
            f"| {_p(v['wall'], 0.5) * 1000:.1f} ms | {_p(v['wall'], 0.9) * 1000:.1f} ms "
            f"| {_p(v['cpu'], 0.5) * 1000:.1f} ms | {v['first'] * 1000:.1f} ms "
            f"| {_shape(v['doc'])} |"
        )
    lines += [
        "",
        "Ratios are percentiles of per-round ratios (each one-shot time divided by the baseline "
        "of the same round). CPU is `time.process_time()` of this process around each call "
        "(DuckDB's threads included).",
    ]
    if failures:
        lines += ["", f"Failures ({len(failures)}):", *(f"- {f}" for f in failures[:10])]
    return "\n".join(lines) + "\n"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("tree", help="an indexed tree (TREE/.znt exists)")
    p.add_argument("--runs", type=int, default=20)
    p.add_argument(
        "--znt", default=shutil.which("znt", path=str(Path(sys.executable).parent)) or "znt"
    )
    p.add_argument("--python", default=sys.executable, help="interpreter for the import baseline")
    p.add_argument("--out", help="write the markdown report here")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = dt.datetime.now(dt.timezone.utc)
    load = os.getloadavg()
    if not (Path(args.tree) / ".znt").is_dir():
        print(f"{args.tree} is not indexed: run `znt scan {args.tree}` first", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="znt-graph-") as tmp:
        env = installed_like(dict(os.environ), Path(tmp) / "pycache", args.python)
        one, failures = oneshot_rounds(args, env)
    inproc = {variant: inprocess(args, variant == "read copy") for variant in VARIANTS}
    text = report(args, one, failures, inproc, started, load)
    print(text)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
