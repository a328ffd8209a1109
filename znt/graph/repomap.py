"""``znt map``: a ranked, token-budgeted map of the repository, aider's repository map on an
exact graph.

The files are ranked by networkx PageRank over the file graph the resolved edges make
(caller's file -> callee's file, ``call``/``inherits``/``implements``/``imports``, each
pair weighted by the sum of its edges' confidences; unresolved and external calls carry no
weight): a file that much of the code depends on ranks high. A focus (files, symbols) turns
it into personalised PageRank: half of the random walk's restarts go to the focus, so the
focus and what it depends on come first, and the rest of the project follows. Each file's rank is then shared out among
the symbols its edges point at (aider's rule: a file passes its rank along its out-edges in
proportion to their weight), and the map lists the best symbols of the best files, with
their signatures, until the token budget (``ceil(chars / 4)`` of the text, DESIGN §5) is
spent. Nothing here prints; znt/formats/map_text.py renders the document.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard

EDGE_KINDS = ("call", "inherits", "implements", "imports")
ALPHA = 0.85
# A focus symbol's own score is multiplied by this (aider weights mentioned names x10).
FOCUS_BOOST = 10.0
# Every top-level symbol of a file gets this share of its file's rank, so a file whose
# symbols nobody references still shows its outline when the budget allows.
OUTLINE_SHARE = 0.01
DEFAULT_MAX_TOKENS = 1024
# Symbols of at most this many of the best files are looked up per round.
FILES_PER_ROUND = 200
# Characters of the budget kept for the text's head and closing lines (znt/formats/map_text.py
# keeps them shorter): the lines of the map take the rest.
FRAME_CHARS = 160


def estimate_tokens(text: str) -> int:
    """DESIGN §5's estimate: ceil(chars / 4)."""
    return math.ceil(len(text) / 4)


@dataclass
class Ranking:
    """File ranks (PageRank, summing to 1) and each file's outgoing edge weight to other
    files, the part of its rank it passes on."""

    ranks: dict[str, float]
    out_weight: dict[str, float]
    edges: int
    personalized: bool


def rank_files(con: Any, focus_files: dict[str, float] | None = None) -> Ranking:
    """PageRank over the file graph of the index (one networkx DiGraph of files, built from
    one aggregate query), personalised to ``focus_files`` when given.

    networkx and what its PageRank uses (numpy, scipy's sparse arrays) import while DuckDB
    answers the query (znt/warmup.py): on sympy each takes about as long as the other."""
    from znt.warmup import import_in_background

    import_in_background("networkx", "numpy", "scipy.sparse")
    kinds = ", ".join(f"'{k}'" for k in EDGE_KINDS)
    # An edge's ``file`` is where its reference is, the file of its source symbol
    # (docs/data-model.md; tests/test_map.py checks it): one join fewer, half the query.
    pairs = con.execute(
        f"""
        SELECT e.file, b.file, sum(e.confidence) AS w
        FROM edges e
        JOIN symbols b ON b.id = e.dst
        WHERE e.kind IN ({kinds}) AND e.confidence > 0 AND e.file <> b.file
        GROUP BY e.file, b.file
        ORDER BY e.file, b.file
        """
    ).fetchall()
    files = [r[0] for r in con.execute("SELECT path FROM files ORDER BY path").fetchall()]
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_nodes_from(files)
    graph.add_weighted_edges_from((s, d, float(w)) for s, d, w in pairs)
    focus = {f: w for f, w in (focus_files or {}).items() if f in graph}
    if graph.number_of_nodes() == 0:
        return Ranking({}, {}, 0, bool(focus))
    personalization = None
    if focus:
        # The walk restarts at the focus as often as anywhere else put together, so the
        # rest of the project still ranks, after what the focus is close to.
        share = graph.number_of_nodes() / sum(focus.values())
        personalization = {f: 1.0 + share * focus.get(f, 0.0) for f in graph}
    ranks = nx.pagerank(graph, alpha=ALPHA, personalization=personalization, weight="weight")
    out_weight: dict[str, float] = defaultdict(float)
    for s, _d, w in pairs:
        out_weight[s] += float(w)
    return Ranking(dict(ranks), dict(out_weight), len(pairs), bool(focus))


# The format of a stored ranking (``ranking_to_json``); a change makes old ones unreadable.
RANKING_FORMAT = 1


def ranking_to_json(ranking: Ranking, generation: str) -> bytes:
    """A project-wide ranking (no focus) of the index ``generation``, for ``ranking_from_json``
    to read back exactly: floats are written by their shortest repr, which reads back to the
    same float."""
    import json

    return json.dumps(
        {
            "format": RANKING_FORMAT,
            "generation": generation,
            "alpha": ALPHA,
            "edge_kinds": list(EDGE_KINDS),
            "edges": ranking.edges,
            "ranks": ranking.ranks,
            "out_weight": ranking.out_weight,
        },
        separators=(",", ":"),
    ).encode()


def ranking_from_json(data: bytes, generation: str) -> Ranking | None:
    """The ranking ``ranking_to_json`` wrote for this very index ``generation`` with this
    module's parameters, or None (another generation, another format, or not a ranking at
    all: the file is in a folder a repository could ship)."""
    import json

    try:
        doc = json.loads(data)
    except ValueError:
        return None
    if not isinstance(doc, dict) or (
        doc.get("format"),
        doc.get("generation"),
        doc.get("alpha"),
        doc.get("edge_kinds"),
    ) != (RANKING_FORMAT, generation, ALPHA, list(EDGE_KINDS)):
        return None
    ranks, out_weight, edges = doc.get("ranks"), doc.get("out_weight"), doc.get("edges")
    if not (isinstance(edges, int) and _floats(ranks) and _floats(out_weight)):
        return None
    return Ranking(ranks, out_weight, edges, False)


def _floats(table: object) -> TypeGuard[dict[str, float]]:
    return isinstance(table, dict) and all(
        isinstance(k, str) and type(v) is float for k, v in table.items()
    )


@dataclass
class Entry:
    """A symbol the map may show, with its share of rank."""

    id: str
    file: str
    name: str
    qualified_name: str
    type: str
    kind: str
    line: int
    signature: str
    score: float = 0.0
    focus: bool = False

    @property
    def depth(self) -> int:
        """Nesting under the file (``Class.method``: 1)."""
        return self.qualified_name.count(".") if self.qualified_name else 0

    @property
    def outline(self) -> str:
        """What the map shows of the symbol: its signature's first line (or its name) with
        the name qualified (``def Basic.subs(self, ...)``), so a method reads right without
        its class's line above it."""
        text = self.signature or self.name
        if self.depth and self.name and self.name in text:
            text = text.replace(self.name, self.qualified_name, 1)
        return text[:160]

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "qualified_name": self.qualified_name,
            "type": self.type,
            "kind": self.kind,
            "line": self.line,
            "signature": self.signature,
            "depth": self.depth,
            "outline": self.outline,
            "score": round(self.score, 8),
            **({"focus": True} if self.focus else {}),
        }


def _entries(
    con: Any, files: Sequence[str], ranking: Ranking, focus_ids: set[str]
) -> dict[str, list[Entry]]:
    """The symbols of ``files`` that the map can list: those other files' edges point at
    (scored by the rank those files pass on) and the top-level ones (a small share of their
    own file's rank)."""
    if not files:
        return {}
    kinds = ", ".join(f"'{k}'" for k in EDGE_KINDS)
    marks = ", ".join("?" * len(files))
    rows = con.execute(
        f"""
        WITH wanted AS (
            SELECT id, file, name, qualified_name, type, kind, start_line, signature, parent_id
            FROM symbols
            WHERE file IN ({marks}) AND type <> 'namespace' AND type <> 'dependency'
        ),
        incoming AS (
            SELECT e.dst AS id, e.file AS src_file, sum(e.confidence) AS w
            FROM edges e
            WHERE e.kind IN ({kinds}) AND e.confidence > 0
              AND e.dst IN (SELECT id FROM wanted) AND e.file <> split_part(e.dst, '::', 1)
            GROUP BY e.dst, e.file
        ),
        -- Each symbol's callers' files as one list (in file order, so the score's sum is
        -- the same every run), grouped before the join: the symbols' own columns are
        -- not grouped on.
        callers AS (
            SELECT id, list(struct_pack(f := src_file, w := w) ORDER BY src_file) AS files
            FROM incoming GROUP BY id
        )
        SELECT w.id, w.file, w.name, w.qualified_name, w.type, w.kind, w.start_line,
               coalesce(w.signature, ''), w.parent_id = w.file OR w.parent_id IS NULL,
               c.files
        FROM wanted w LEFT JOIN callers c ON c.id = w.id
        """,
        list(files),
    ).fetchall()
    out: dict[str, list[Entry]] = defaultdict(list)
    for sid, file, name, qual, typ, kind, line, sig, top, incoming in rows:
        score = 0.0
        for item in incoming or ():
            src_file, weight = item["f"], float(item["w"])
            passed = ranking.out_weight.get(src_file) or 0.0
            if passed:
                score += ranking.ranks.get(src_file, 0.0) * weight / passed
        if top:
            score += ranking.ranks.get(file, 0.0) * OUTLINE_SHARE
        if score <= 0:
            continue
        focus = sid in focus_ids
        if focus:
            score *= FOCUS_BOOST
        lines = (sig or name or "").splitlines()
        first = lines[0].strip() if lines else ""
        out[file].append(
            Entry(sid, file, name, qual or name, typ, kind, int(line or 0), first, score, focus)
        )
    return out


@dataclass
class MapResult:
    files: list[dict[str, Any]] = field(default_factory=list)
    tokens: int = 0
    truncated: bool = False
    total_files: int = 0
    shown_symbols: int = 0


def file_line(path: str) -> str:
    return f"{path}:"


def symbol_line(entry: Entry) -> str:
    """One symbol line of the map: ``outline`` after two spaces; znt/formats/map_text.py
    writes the same."""
    return f"  {entry.outline}"


def build(
    con: Any,
    *,
    ranking: Ranking,
    paths: Sequence[str] = (),
    focus_ids: set[str] | frozenset[str] = frozenset(),
    max_tokens: int = DEFAULT_MAX_TOKENS,
) -> MapResult:
    """The best symbols of the best files that fit ``max_tokens``, files in rank order and
    symbols in line order within each file: the map's lines (a file's ``path:`` line, then
    its symbol lines) take at most ``max_tokens * 4 - FRAME_CHARS`` characters, newlines
    included, so the whole text stays within ``estimate_tokens`` <= ``max_tokens``. ``paths`` (file paths or folder prefixes)
    limits which files are shown; the ranks are always the whole project's."""
    ordered = sorted(ranking.ranks, key=lambda f: (-ranking.ranks[f], f))
    if paths:
        ordered = [f for f in ordered if any(_under(f, p) for p in paths)]
    result = MapResult(total_files=len(ordered))
    budget_chars = max_tokens * 4 - FRAME_CHARS
    chosen: dict[str, list[Entry]] = {}
    used = 0
    start = 0
    exhausted = False
    while start < len(ordered) and not exhausted:
        batch = ordered[start : start + FILES_PER_ROUND]
        start += len(batch)
        entries = _entries(con, batch, ranking, set(focus_ids))
        candidates = sorted(
            (e for f in batch for e in entries.get(f, ())),
            key=lambda e: (-e.score, e.file, e.line, e.id),
        )
        for entry in candidates:
            cost = len(symbol_line(entry)) + 1
            if entry.file not in chosen:
                cost += len(file_line(entry.file)) + 1
            if used + cost > budget_chars:
                result.truncated = True
                exhausted = True
                break
            chosen.setdefault(entry.file, []).append(entry)
            used += cost
    if start < len(ordered) and not exhausted:
        result.truncated = True
    for f in ordered:
        if f in chosen:
            items = sorted(chosen[f], key=lambda e: (e.line, e.id))
            result.files.append(
                {
                    "path": f,
                    "rank": round(ranking.ranks.get(f, 0.0), 8),
                    "symbols": [e.to_dict() for e in items],
                }
            )
            result.shown_symbols += len(items)
    result.tokens = math.ceil(used / 4)
    return result


def _under(path: str, prefix: str) -> bool:
    prefix = prefix.rstrip("/")
    return not prefix or prefix == "." or path == prefix or path.startswith(prefix + "/")
