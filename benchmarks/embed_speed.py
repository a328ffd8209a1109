"""Benchmark the ``local`` embedding provider against plain sentence-transformers.

On a CoSQA subset (code functions as documents, natural-language questions as queries) it
measures, in one run:

* throughput (texts/s) of ``SentenceTransformer.encode(batch_size=64)`` and of
  ``LocalEmbedder`` for each ONNX variant (fp32, int8), on the same corpus texts; the ratio is
  the median of per-round ratios, each round timing every contender back to back (the machine
  is shared and noisy);
* how far each variant's vectors are from sentence-transformers' (1 - cosine, max and mean);
* MRR of query -> function retrieval (cosine ranking over the corpus subset; the gold is the
  function whose index is the query's ``retrieval_idx``).

    python benchmarks/embed_speed.py /work/shared/eval/data --limit 2000 \\
        --out docs/benchmarks/embeddings.md

The corpus subset is every function that is the gold of one of the queries, then the
others in index order up to ``--limit``. ``ZNT_CACHE_DIR`` is honoured (the first run
exports the model to ONNX).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

try:
    from benchmarks.machine import cpu_summary
except ImportError:  # pragma: no cover - run as a script: its own folder is on sys.path
    from machine import cpu_summary  # type: ignore[no-redef]

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
TITLE = "# Local embeddings: ONNX runtime vs sentence-transformers"
EXPLAIN = """\
Printed by `benchmarks/embed_speed.py` (see its docstring). *×* is the median over rounds of
sentence-transformers' time divided by the contender's time in the same round. *1−cos* is
measured per corpus text against sentence-transformers' vector. *MRR*: each query ranks the
whole corpus subset by cosine; the gold is the function with the query's `retrieval_idx`.\nznt embeds each query alone (as `znt search` does) and the corpus in one call.
The machine is a shared 2-CPU VM: read the ratios, not the texts/s."""


def load_cosqa(data: Path, limit: int | None) -> tuple[list[str], list[str], list[int]]:
    """(corpus texts, query texts, gold corpus position per query)."""
    code_to_idx: dict[str, int] = json.loads(
        (data / "cosqa-corpus-code_idx_map.json").read_text(encoding="utf-8")
    )
    queries: list[dict[str, Any]] = json.loads(
        (data / "cosqa-retrieval-dev-500.json").read_text(encoding="utf-8")
    )
    by_idx = {idx: code for code, idx in code_to_idx.items()}
    gold_ids = {int(q["retrieval_idx"]) for q in queries}
    chosen = sorted(i for i in gold_ids if i in by_idx)
    if limit is None or limit > len(by_idx):
        limit = len(by_idx)
    for idx in sorted(by_idx):
        if len(chosen) >= limit:
            break
        if idx not in gold_ids:
            chosen.append(idx)
    chosen.sort()
    position = {idx: pos for pos, idx in enumerate(chosen)}
    kept = [q for q in queries if int(q["retrieval_idx"]) in position]
    return (
        [by_idx[i] for i in chosen],
        [str(q["doc"]) for q in kept],
        [position[int(q["retrieval_idx"])] for q in kept],
    )


def scan_texts(index: Path, limit: int) -> list[str]:
    """``limit`` distinct texts of an index's ``embed_docs`` (what ``znt scan`` embeds), a
    fixed sample by text hash, in the order the embedding stage takes them (by length)."""
    import duckdb

    con = duckdb.connect(str(index), read_only=True)
    try:
        rows = con.execute(
            "SELECT any_value(text) FROM embed_docs GROUP BY text_hash ORDER BY text_hash LIMIT ?",
            [limit],
        ).fetchall()
    finally:
        con.close()
    return sorted((r[0] for r in rows), key=len)


def mrr(query_vectors: np.ndarray, corpus_vectors: np.ndarray, gold: Sequence[int]) -> float:
    scores = query_vectors @ corpus_vectors.T
    gold_scores = scores[np.arange(len(gold)), np.asarray(gold)]
    ranks = (scores > gold_scores[:, None]).sum(axis=1) + 1
    return float((1.0 / ranks).mean())


def timed(fn: Callable[[], np.ndarray]) -> tuple[np.ndarray, float]:
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="folder with the CoSQA JSON files")
    parser.add_argument("--limit", type=int, default=2000, help="corpus size (0: all)")
    parser.add_argument("--rounds", type=int, default=2, help="timed rounds per contender")
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--variants", default="fp32,int8")
    parser.add_argument("--out", type=Path, help="write the markdown report here")
    parser.add_argument(
        "--texts-from",
        type=Path,
        metavar="INDEX",
        help="time the texts a scan embeds (a sample of INDEX's embed_docs, --limit of them) "
        "instead of CoSQA's functions; MRR is still measured on CoSQA",
    )
    args = parser.parse_args(argv)
    data = args.data if args.data.is_dir() else args.data.parent
    corpus, queries, gold = load_cosqa(data, args.limit or None)
    timed_texts = scan_texts(args.texts_from, args.limit or 2000) if args.texts_from else corpus
    variants = [v for v in args.variants.split(",") if v]
    print(f"corpus {len(corpus)} functions, {len(queries)} queries", file=sys.stderr)

    from sentence_transformers import SentenceTransformer

    from znt.index.embed.local import LocalEmbedder, resolve_model

    folder = resolve_model(args.model)
    st = SentenceTransformer(str(folder), device="cpu")
    embedders = {v: LocalEmbedder(args.model, variant=v) for v in variants}
    for v, e in embedders.items():
        for note in e.notes:
            print(f"{v}: {note}", file=sys.stderr)

    def st_encode(texts: list[str]) -> np.ndarray:
        out = st.encode(texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True)
        return np.asarray(out, dtype=np.float32)

    contenders: dict[str, Callable[[list[str]], np.ndarray]] = {"sentence-transformers": st_encode}
    for v, e in embedders.items():
        contenders[f"znt local {v}"] = e.embed
    times: dict[str, list[float]] = {name: [] for name in contenders}
    corpus_vectors: dict[str, np.ndarray] = {}
    for round_no in range(args.rounds):
        for name, fn in contenders.items():
            vectors, seconds = timed(lambda fn=fn: fn(timed_texts))  # type: ignore[misc]
            times[name].append(seconds)
            corpus_vectors[name] = vectors
            print(f"round {round_no + 1} {name}: {seconds:.1f} s", file=sys.stderr)
    if timed_texts is not corpus:  # the quality columns are CoSQA's, embedded once
        corpus_vectors = {name: fn(corpus) for name, fn in contenders.items()}
    # znt search embeds its query alone; with int8, a text's vector depends a little on its
    # batch-mates (activations are quantised per batch), so queries are embedded one by one.
    base = "sentence-transformers"
    query_vectors = {
        name: fn(queries) if name == base else np.concatenate([fn([q]) for q in queries])
        for name, fn in contenders.items()
    }
    rows: list[dict[str, Any]] = []
    for name in contenders:
        ratios = [b / t for b, t in zip(times[base], times[name], strict=True)]
        cosine = (corpus_vectors[name] * corpus_vectors[base]).sum(axis=1)
        deviation = np.maximum(1.0 - cosine, 0.0)
        rows.append(
            {
                "name": name,
                "texts_s": len(timed_texts) / statistics.median(times[name]),
                "ratio": statistics.median(ratios),
                "ratios": ratios,
                "max_dev": float(deviation.max()),
                "mean_dev": float(deviation.mean()),
                "mrr": mrr(query_vectors[name], corpus_vectors[name], gold),
            }
        )
    base_mrr = float(rows[0]["mrr"])
    lines = [
        "| embedder | texts/s | × sentence-transformers | per round | max 1−cos | mean 1−cos "
        "| MRR | ΔMRR |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['name']} | {r['texts_s']:.1f} | {r['ratio']:.2f}× | "
            f"{' '.join(f'{x:.2f}' for x in r['ratios'])} | {r['max_dev']:.4f} | "
            f"{r['mean_dev']:.5f} | {r['mrr']:.4f} | {r['mrr'] - base_mrr:+.4f} |"
        )
    cmd = "python benchmarks/embed_speed.py " + " ".join(argv if argv is not None else sys.argv[1:])
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    header = [
        f"- date: {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC",
        f"- command: `{cmd}`",
        f"- model: `{args.model}` from `{folder}`",
        f"- corpus: {len(corpus)} CoSQA functions (every gold of the dev-500 queries first), "
        f"{len(queries)} queries; timing: {args.rounds} rounds over "
        + (
            f"{len(timed_texts)} texts of `{args.texts_from}` (embed_docs, as a scan embeds them)"
            if args.texts_from
            else "the corpus"
        )
        + ", medians",
        f"- machine: {len(os.sched_getaffinity(0))} CPUs ({cpu_summary()}), load average at "
        f"the end {load}; Python {platform.python_version()}",
        "- sentence-transformers: `encode(batch_size=64, normalize_embeddings=True)`; znt: "
        "`LocalEmbedder(model, variant=...).embed(corpus)` (onnxruntime, length-sorted batches)",
    ]
    report = "\n".join([TITLE, "", *header, "", *lines, "", EXPLAIN]) + "\n"
    print(report)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(report, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
