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
# Documentation, example and vendored code ranks below the project's own code by the same
# factor: a question about behaviour is about the code that runs, and doc examples (which
# repeat every public name) or a vendored copy of a library crowd it out. The folders are
# GitHub Linguist's (documentation.yml, vendor.yml), as a table of path regexes.
SECONDARY_PATHS = (
    r"^(?:[Dd]ocs?|[Ee]xamples?|[Dd]emos?|[Ss]amples?|[Mm]an)/",
    r"(?:^|/)(?:[Dd]ocumentation|[Jj]avadoc|[Gg]roovydoc)/",
    r"(?:^|/)(?:vendor|_vendor|vendored|third[-_]party|node_modules|bower_components)/",
)
_SECONDARY = re.compile("|".join(SECONDARY_PATHS))


def secondary_path(path: str) -> bool:
    """Whether ``path`` lies in documentation, example or vendored code (SECONDARY_PATHS)."""
    return bool(_SECONDARY.search(path))


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
    demoted: str = ""  # why the score was lowered, if it was

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


# The vector list is computed from the best texts first: a symbol's score is its best text's
# cosine, so the top ``limit`` symbols are exactly those found among the top ``n`` texts as
# long as these hold ``limit`` symbols (any other symbol's best text ranks below all of
# them). ``n`` starts at this multiple of ``limit`` (at least ``TOP_TEXTS_MIN``) and grows
# ``TOP_TEXTS_GROWTH``-fold until that holds: grouping every text of the index by symbol
# cost as much as the cosines themselves.
TOP_TEXTS_FACTOR = 4
TOP_TEXTS_MIN = 256
TOP_TEXTS_GROWTH = 4


def vector_rank(
    con: Any,
    vector: Sequence[float],
    dim: int,
    limit: int,
    path_regex: str | None,
    flat: FlatVectors | None = None,
) -> list[tuple[str, float]]:
    """(symbol id, best cosine over its texts), best first. Brute force: in DuckDB (about
    60 ms per 50k vectors on two cores, no extension needed) or, where a long-lived process
    holds the vectors in memory (``flat``, from its read copy), with numpy."""
    where = "WHERE regexp_full_match(d.file, ?)" if path_regex is not None else ""
    n = max(TOP_TEXTS_FACTOR * limit, TOP_TEXTS_MIN)
    total = len(flat) if flat is not None else None
    while flat is not None and path_regex is None:  # all in memory: no statement at all
        hashes, sims = flat.top(vector, n)
        best: dict[str, float] = {}
        for h, sim in zip(hashes, sims, strict=True):
            for sym in flat.owners.get(h, ()):
                if sim > best.get(sym, -2.0):
                    best[sym] = sim
        if len(best) >= limit or n >= len(flat):
            return sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
        n *= TOP_TEXTS_GROWTH
    while True:
        if flat is not None:
            hashes, sims = flat.top(vector, n)
            top_sql = "SELECT unnest(?::VARCHAR[]) AS hash, unnest(?::DOUBLE[]) AS sim"
            params: list[Any] = [hashes, sims]
        else:
            top_sql = f"""
                SELECT hash, array_cosine_similarity(vec, ?::FLOAT[{int(dim)}]) AS sim
                FROM embeddings ORDER BY sim DESC, hash LIMIT {int(n)}"""
            params = [list(map(float, vector))]
        if path_regex is not None:
            params.append(path_regex)
        params.append(limit)
        rows = con.execute(
            f"""
            WITH top AS ({top_sql})
            SELECT d.sym, max(top.sim) AS sim
            FROM embed_docs d JOIN top ON top.hash = d.text_hash
            {where}
            GROUP BY d.sym
            ORDER BY sim DESC, d.sym
            LIMIT ?
            """,
            params,
        ).fetchall()
        if len(rows) >= limit:
            break
        if total is None:
            row = con.execute("SELECT count(*) FROM embeddings").fetchone()
            total = int(row[0]) if row else 0
        if n >= total:
            break
        n *= TOP_TEXTS_GROWTH
    return [(r[0], float(r[1])) for r in rows]


class FlatVectors:
    """Every text vector of one index state as one normalised float32 matrix, and which
    symbols each text belongs to (and their role, type, kind and file): what a long-lived
    process keeps beside its read copy
    (znt/index/readcopy.py), so a query's cosines are one matrix product (~6 ms for sympy's
    47k texts) instead of a DuckDB scan (~60 ms), and its symbol list needs no statement.
    Not built above ``MAX_BYTES`` or without numpy (the local-model extra)."""

    MAX_BYTES = 512 << 20

    def __init__(
        self,
        hashes: list[str],
        matrix: Any,
        owners: dict[str, list[str]],
        facts: dict[str, tuple[Any, ...]] | None = None,
    ) -> None:
        self.hashes = hashes
        self.matrix = matrix
        self.owners = owners  # text hash -> the symbols embedded with that text
        # symbol id -> (role, type, kind, file): what ranking needs of a vector-only candidate
        self.facts = facts or {}

    def __len__(self) -> int:
        return len(self.hashes)

    @classmethod
    def load(cls, con: Any) -> FlatVectors | None:
        try:
            import numpy as np
        except ImportError:
            return None
        row = con.execute("SELECT count(*), max(len(vec)) FROM embeddings").fetchone()
        if not row or not row[0] or int(row[0]) * int(row[1] or 0) * 4 > cls.MAX_BYTES:
            return None
        data = con.execute("SELECT hash, vec FROM embeddings WHERE vec IS NOT NULL").fetchnumpy()
        matrix = np.stack(data["vec"]).astype(np.float32, copy=False)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        matrix /= norms
        owners = {
            h: list(syms)
            for h, syms in con.execute(
                "SELECT text_hash, list(DISTINCT sym) FROM embed_docs GROUP BY text_hash"
            ).fetchall()
        }
        facts = {
            r[0]: tuple(r[1:])
            for r in con.execute(
                "SELECT id, role, type, kind, file FROM symbols "
                "WHERE id IN (SELECT DISTINCT sym FROM embed_docs)"
            ).fetchall()
        }
        return cls([str(h) for h in data["hash"]], matrix, owners, facts)

    def top(self, vector: Sequence[float], n: int) -> tuple[list[str], list[float]]:
        """The ``n`` texts most similar to ``vector`` (unordered) and their cosines."""
        import numpy as np

        q = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(q))
        sims = self.matrix @ (q / norm if norm else q)
        idx = np.argpartition(-sims, n - 1)[:n] if n < len(sims) else np.arange(len(sims))
        return [self.hashes[i] for i in idx], [float(x) for x in sims[idx]]


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
