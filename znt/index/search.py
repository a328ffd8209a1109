"""Ranking: the lexical list, the vector list, and how the two are fused.

Hybrid fusion is score-based, not reciprocal rank fusion. On the public sets plain RRF
(k=60) of BM25 and a small embedding model lands *between* the two (CoSQA dev: BM25 0.33,
vectors 0.52, RRF 0.43): RRF throws away how sure each list is. Here each list's scores are
turned into z-scores over its own candidate pool, so a list whose best hits stand far above
the rest speaks loudly and a flat list softly, and the fused score is a weighted sum. A
candidate missing from one list gets that list's lowest z-score. The vector weight is 0.8
for plain-language queries and 0.5 for queries that name code (identifiers with ``_``, inner
capitals, dots or calls), where exact lexical hits are the stronger evidence. See
docs/search.md and docs/decisions/0006-score-fusion.md.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

VECTOR_WEIGHT = 0.8  # for plain-language queries
CODE_VECTOR_WEIGHT = 0.5  # for queries that name code
_CODE_TOKEN = re.compile(r"\w_\w|[a-z][A-Z]|\w\.\w|\w\(")
# Test code ranks below the code it tests (an issue or question is about the code, and the
# tests that mention the same names would crowd it out); ``--role test`` lifts them back.
TEST_FACTOR = 0.6
TYPE_ROLE_BOOST = 4.0  # the original's soft boost, on a 0..10 display scale
SCORE_SCALE = 10.0


@dataclass
class Candidate:
    id: str
    score: float = 0.0
    lexical_rank: int | None = None
    lexical_score: float | None = None
    vector_rank: int | None = None
    vector_score: float | None = None
    boosts: list[str] = field(default_factory=list)
    demoted: bool = False

    @property
    def found_by(self) -> list[str]:
        out = []
        if self.lexical_rank is not None:
            out.append("lexical")
        if self.vector_rank is not None:
            out.append("vector")
        return out


def glob_regex(pattern: str) -> str:
    """A path glob as a regular expression over index paths (``/``-separated).

    ``**`` crosses folders, ``*`` and ``?`` do not; a pattern that does not start with
    ``**/`` also matches as ``**/PATTERN`` (the original's rule), so ``store.go`` finds
    ``pkg/semantic/store.go``. A pattern naming a folder matches everything under it."""
    pat = pattern.strip().lstrip("./") if pattern.strip().startswith("./") else pattern.strip()
    if not pat.startswith("**/") and not pat.startswith("/"):
        pat = "**/" + pat
    pat = pat.lstrip("/")
    out = []
    i = 0
    while i < len(pat):
        c = pat[i]
        if pat.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pat.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pat.find("]", i + 1)
            if j == -1:
                out.append(re.escape(c))
            else:
                body = pat[i + 1 : j].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = j
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out) + "(?:/.*)?"


def vector_rank(
    con: Any, vector: Sequence[float], dim: int, limit: int, path_regex: str | None
) -> list[tuple[str, float]]:
    """(symbol id, best cosine over its texts), best first. Brute force in DuckDB: about
    60 ms per 100k vectors on two cores, no extension needed."""
    where = "WHERE regexp_full_match(d.file, ?)" if path_regex is not None else ""
    params: list[Any] = [list(map(float, vector))]
    if path_regex is not None:
        params.append(path_regex)
    params.append(limit)
    rows = con.execute(
        f"""
        WITH sims AS (
            SELECT hash, array_cosine_similarity(vec, ?::FLOAT[{int(dim)}]) AS sim
            FROM embeddings
        )
        SELECT d.sym, max(s.sim) AS sim
        FROM embed_docs d JOIN sims s ON s.hash = d.text_hash
        {where}
        GROUP BY d.sym
        ORDER BY sim DESC, d.sym
        LIMIT ?
        """,
        params,
    ).fetchall()
    return [(r[0], float(r[1])) for r in rows]


def code_like(query: str) -> bool:
    """Whether the query names code (an identifier with ``_``, an inner capital, a dot or a
    call), where exact lexical hits deserve more trust than in a plain-language question."""
    return bool(_CODE_TOKEN.search(query))


def _zscores(ranked: Sequence[tuple[str, float]]) -> dict[str, float]:
    if not ranked:
        return {}
    xs = [s for _id, s in ranked]
    mean = sum(xs) / len(xs)
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / len(xs)) or 1.0
    return {sid: (s - mean) / sd for sid, s in ranked}


def fuse(
    lexical: Sequence[tuple[str, float]],
    vector: Sequence[tuple[str, float]],
    *,
    vector_weight: float = VECTOR_WEIGHT,
) -> list[Candidate]:
    """One list from both (see the module docstring); scores in 0..1, best first."""
    zl, zv = _zscores(lexical), _zscores(vector)
    low_l = min(zl.values()) if zl else 0.0
    low_v = min(zv.values()) if zv else 0.0
    cands: dict[str, Candidate] = {}
    for rank, (sid, s) in enumerate(lexical, 1):
        c = cands.setdefault(sid, Candidate(sid))
        c.lexical_rank, c.lexical_score = rank, s
    for rank, (sid, s) in enumerate(vector, 1):
        c = cands.setdefault(sid, Candidate(sid))
        c.vector_rank, c.vector_score = rank, s
    for sid, c in cands.items():
        c.score = vector_weight * zv.get(sid, low_v) + (1 - vector_weight) * zl.get(sid, low_l)
    ordered = sorted(cands.values(), key=lambda c: (-c.score, c.id))
    if ordered:  # to 0..1 for display: the best is 1, the weakest candidate 0
        hi, lo = ordered[0].score, ordered[-1].score
        span = (hi - lo) or 1.0
        for c in ordered:
            c.score = (c.score - lo) / span
    return ordered


def single(ranked: Sequence[tuple[str, float]], source: str) -> list[Candidate]:
    """Candidates from one list, scores normalised to 0..1 like ``fuse``'s."""
    out: list[Candidate] = []
    if not ranked:
        return out
    top = ranked[0][1] or 1.0
    for rank, (sid, s) in enumerate(ranked, 1):
        c = Candidate(sid, score=s / top if source == "lexical" else max(s, 0.0))
        if source == "lexical":
            c.lexical_rank, c.lexical_score = rank, s
        else:
            c.vector_rank, c.vector_score = rank, s
        out.append(c)
    return out


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / 4)
