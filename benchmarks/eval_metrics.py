"""Ranking metrics for the retrieval benchmark, kept apart from the running so a cached run can
be re-scored.

* SWE-bench (LocAgent's metric): Acc@k = the instance counts as found when ALL its gold items
  are within the top k of the ranking; files are ranked by their best-ranked symbol.
* CoSQA: one relevant function per query, so MRR, Recall@k and nDCG@k reduce to functions of
  the rank of that one item.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence


def rank_files(results: Iterable[dict[str, object]]) -> list[str]:
    """Files in the order of their best-ranked symbol (first appearance in ``results``)."""
    seen: dict[str, None] = {}
    for r in results:
        f = r.get("file")
        if isinstance(f, str) and f not in seen:
            seen[f] = None
    return list(seen)


def rank_ids(results: Iterable[dict[str, object]]) -> list[str]:
    """Symbol ids in result order, each once."""
    seen: dict[str, None] = {}
    for r in results:
        i = r.get("id")
        if isinstance(i, str) and i not in seen:
            seen[i] = None
    return list(seen)


def all_within(ranking: Sequence[str], gold: Iterable[str], k: int) -> bool:
    """True when every gold item is among the first ``k`` of ``ranking`` (LocAgent's Acc@k)."""
    top = set(ranking[:k])
    gold = list(gold)
    return bool(gold) and all(g in top for g in gold)


def first_rank(ranking: Sequence[str], gold: str) -> int | None:
    """1-based rank of ``gold``, or None when it is not in ``ranking``."""
    try:
        return ranking.index(gold) + 1
    except ValueError:
        return None


def single_relevant(
    ranks: Sequence[int | None], ks: Sequence[int] = (1, 5, 10)
) -> dict[str, float]:
    """MRR, Recall@k and nDCG@10 over queries with one relevant item each (rank None = missed).

    With one relevant item the ideal DCG is 1, so nDCG@10 = 1/log2(rank+1) when rank <= 10."""
    n = len(ranks)
    if n == 0:
        return {}
    out = {"mrr": sum(1.0 / r for r in ranks if r) / n}
    for k in ks:
        out[f"r@{k}"] = sum(1 for r in ranks if r and r <= k) / n
    out["ndcg@10"] = sum(1.0 / math.log2(r + 1) for r in ranks if r and r <= 10) / n
    return out


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) by linear interpolation; 0.0 for no values."""
    if not values:
        return 0.0
    if len(values) == 1:
        return float(values[0])
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    idx = min(max(round(q * 100) - 1, 0), 98)
    return cuts[idx]
