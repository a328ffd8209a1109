"""Analogues and near-duplicates: the scoring behind ``znt similar``.

A candidate's score is the original's formula (reference/znt-original.md §3.5):

    0.6 x vector cosine + 0.3 x Jaccard of call-graph neighbour sets + 0.1 x role/kind agreement

each part in 0..1, so the score is too. What the candidates are compared with (the
"reference") is an indexed symbol (``TARGET``), a piece of code that is not in the index
(``--snippet``) or a plain-language description (``--query``).

* Vector: the best cosine between any embedded window of the reference and any window of
  the candidate (functions have up to three, as in ``znt.index.search.vector_rank``),
  clamped to 0..1, brute force in DuckDB.
* Structure: the Jaccard index of the two neighbour sets over the chosen edge types. A
  neighbour is (direction, edge type, node): callees and bases, and for an indexed target
  its callers. A node is its id, except calls the index could not bind to a receiver
  (``line.split()`` on a local variable) which count by their method name, so that a
  renamed variable does not hide a shared call. A snippet has no ids and no callers: its
  calls and bases count by their last name, and so do the candidates' for that comparison.
* Role/kind: half for the same role, half for the same kind (a quarter for the same type
  only); ``--type``/``--role`` replace the reference's own, which makes them soft boosts.

A part that cannot be computed (no embeddings, no call graph for a text query) is left
out and the remaining weights are scaled up to sum to 1, so a perfect structural match
without vectors still scores 1. Without vectors, a query or snippet draws its candidates
from the lexical index, whose 0..1 score (best hit = 1) takes the vector's weight and is
reported as the ``lexical`` part. Every result's parts add up to its score.

Only what the question needs is read: the vector ranking is one brute-force query; the
structural candidates come from the edges that can carry a shared key (index lookups on
``edges.src``/``edges.dst``, plus one scan of ``edges.dst`` for keys by name); neighbour sets
and caller/callee counts only for the candidates. On sympy's index (148k edges, no vectors)
a target answers in about a second on a loaded 2-core machine. Nothing here prints or
renders.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

WEIGHTS = {"vector": 0.6, "structure": 0.3, "role_kind": 0.1}
CANDIDATE_TYPES = ("function", "declaration")
# Candidates gathered per source before scoring: at least this many, or 5x the page.
MIN_POOL = 100
REASON_NAMES = 3
UNRESOLVED = ("unresolved", "local", "ambiguous")
IN_LIST_MAX = 1000

_LAST_IDENT = re.compile(r"([A-Za-z_$][A-Za-z0-9_$]*)[^A-Za-z0-9_$]*$")
_SUFFIX = re.compile(r"#[0-9]+$")


def _in(column: str, values: Sequence[str]) -> tuple[str, list[Any]]:
    """``column IN (...)`` as constants (an ART index can serve it), or one list parameter
    when the list is long."""
    if not values:
        return "FALSE", []
    if len(values) > IN_LIST_MAX:
        return f"{column} IN (SELECT unnest(?::VARCHAR[]))", [list(values)]
    return f"{column} IN ({', '.join('?' * len(values))})", list(values)


def is_external(node: str) -> bool:
    return node.startswith(("ext::", "dep::"))


def last_name(expr: str) -> str:
    """The last identifier of a call expression or id (``rest.split()[2].split`` ->
    ``split``, ``a.py::Cls.m#2`` -> ``m``)."""
    m = _LAST_IDENT.search(_SUFFIX.sub("", expr))
    return m.group(1) if m else expr


@lru_cache(maxsize=1 << 16)
def node_key(node: str, resolution: str | None, short: bool) -> str:
    """How a neighbour counts (see the module docstring): its id; for a call the index
    could not bind to a receiver, ``*.`` and the method name; by last name alone when
    compared with a snippet."""
    if short:
        return last_name(node)
    if is_external(node) and resolution in UNRESOLVED and "." in node[5:]:
        return "*." + last_name(node)
    return node


def display(key: str) -> str:
    """A neighbour key as a reader knows it: ``callees`` name or qualified name."""
    node = key.split("|", 2)[-1]
    if node.startswith("*."):
        return node[2:]
    if node.startswith(("ext::", "dep::")):
        return node[5:]
    return _SUFFIX.sub("", node.split("::", 1)[-1])


# -- the reference -----------------------------------------------------------------------


@dataclass
class Reference:
    """What candidates are compared with."""

    mode: str  # target | snippet | query
    label: str
    short_keys: bool = False  # compare neighbours by last name (snippets)
    keys: set[str] = field(default_factory=set)
    vectors: list[list[float]] | None = None
    type: str | None = None
    kind: str | None = None
    role: str | None = None
    exclude: list[str] = field(default_factory=list)
    lexical_text: str | None = None  # what the lexical fallback searches for
    info: dict[str, Any] = field(default_factory=dict)


def _edges_touching(
    con: Any, column: str, values: Sequence[str], kinds: Sequence[str]
) -> list[tuple[str, str, str, str]]:
    """(src, dst, kind, resolution) of the edges whose ``column`` is one of ``values``: the
    IN list stands alone so the ART index on ``edges(src)``/``edges(dst)`` serves it; the
    edge kinds are filtered here."""
    if not values:
        return []
    cond, params = _in(column, values)
    wanted = set(kinds)
    rows = con.execute(
        f"SELECT src, dst, kind, resolution FROM edges WHERE {cond}", params
    ).fetchall()
    return [r for r in rows if r[2] in wanted]


def neighbour_rows(
    con: Any, ids: Sequence[str], kinds: Sequence[str], *, short: bool
) -> dict[str, set[str]]:
    """id -> its neighbour keys over ``kinds`` (out-edges; in-edges too unless ``short``)."""
    out: dict[str, set[str]] = {i: set() for i in ids}
    if not ids or not kinds:
        return out
    for src, dst, kind, res in _edges_touching(con, "src", ids, kinds):
        out.setdefault(src, set()).add(f"out|{kind}|{node_key(dst, res, short)}")
    if not short:
        for src, dst, kind, _res in _edges_touching(con, "dst", ids, kinds):
            out.setdefault(dst, set()).add(f"in|{kind}|{src}")
    return out


def symbol_rows(con: Any, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    if not ids:
        return {}
    cond, params = _in("id", ids)
    rows = con.execute(
        "SELECT id, name, qualified_name, type, kind, role, file, start_line, end_line "
        f"FROM symbols WHERE {cond}",
        params,
    ).fetchall()
    cols = ("id", "name", "qualified_name", "type", "kind", "role", "file", "start_line")
    return {r[0]: {**dict(zip(cols, r, strict=False)), "end_line": r[8]} for r in rows}


def stored_vectors(con: Any, ids: Sequence[str]) -> list[list[float]]:
    """The embedded windows of the symbols ``ids`` (empty without embeddings)."""
    from znt.index.embed.stage import has_embeddings

    if not ids or not has_embeddings(con):
        return []
    cond, params = _in("d.sym", ids)
    rows = con.execute(
        "SELECT DISTINCT e.vec FROM embed_docs d JOIN embeddings e ON e.hash = d.text_hash "
        f"WHERE {cond}",
        params,
    ).fetchall()
    return [[float(x) for x in r[0]] for r in rows]


def target_reference(con: Any, ids: list[str], label: str, kinds: Sequence[str]) -> Reference:
    """An indexed symbol (all ids of one resolved TARGET) as the reference."""
    infos = symbol_rows(con, ids)
    first = infos.get(ids[0], {})
    keys: set[str] = set()
    for ks in neighbour_rows(con, ids, kinds, short=False).values():
        keys |= ks
    return Reference(
        mode="target",
        label=label,
        keys=keys,
        vectors=stored_vectors(con, ids) or None,
        type=first.get("type"),
        kind=first.get("kind"),
        role=first.get("role"),
        exclude=list(ids),
        info=first,
    )


@dataclass
class SnippetFacts:
    language: str
    texts: list[str]  # what to embed, exactly as an indexed function of that code would be
    names: list[str]  # the names it calls (and extends), by kind: "call|parse"
    symbols: list[dict[str, Any]]  # its top-level definitions
    parse_errors: bool


def parse_snippet(text: str, language: str, kinds: Sequence[str]) -> SnippetFacts:
    """Parse code that is not in the index with the indexer's own extractor, so its calls
    and its embedded text are what indexing the same code would have produced."""
    from znt.index.embed.text import MAX_WINDOWS, WINDOW_CHARS, embed_rows
    from znt.index.extract import Extractor
    from znt.index.languages import get_language

    spec = get_language(language)
    suffix = spec.extensions[0] if spec.extensions else ""
    path = f"snippet{suffix}"
    source = text.encode("utf-8", "replace")
    facts = Extractor(spec, spec.grammar_for(path)).extract(path, source)
    top = [
        r
        for r in facts.symbols
        if r[6] == path and r[4] in CANDIDATE_TYPES and r[0] != facts.module_id
    ]
    top_ids = {r[0] for r in top}
    texts = [
        row[4]
        for row in embed_rows(path, spec.name, facts.symbols, source, tests=True)
        if row[1] in top_ids
    ]
    if not texts:  # bare statements: the same collapsed-source windows a function gets
        body = re.sub(r"\s+", " ", text).strip()
        texts = [body[i : i + WINDOW_CHARS] for i in range(0, len(body), WINDOW_CHARS)]
        texts = texts[:MAX_WINDOWS] or [body]
    wanted = set(kinds)
    names = sorted(
        {
            f"out|{r[2]}|{last_name(str(r[3]))}"
            for r in facts.refs
            if r[2] in wanted and r[3] and last_name(str(r[3]))
        }
    )
    symbols = [
        {"name": r[2], "qualified_name": r[3], "type": r[4], "kind": r[5], "role": r[13]}
        for r in top
    ]
    return SnippetFacts(spec.name, texts, names, symbols, bool(facts.parse_errors))


def snippet_reference(facts: SnippetFacts, text: str) -> Reference:
    first = facts.symbols[0] if facts.symbols else {}
    label = first.get("qualified_name") or "snippet"
    return Reference(
        mode="snippet",
        label=f"snippet ({label})" if first else "snippet",
        short_keys=True,
        keys=set(facts.names),
        type=first.get("type"),
        kind=first.get("kind"),
        role=first.get("role"),
        lexical_text=text,
    )


def query_reference(query: str) -> Reference:
    return Reference(mode="query", label=query, lexical_text=query)


# -- candidates --------------------------------------------------------------------------


def _filters(alias: str, ref: Reference, path_regex: str | None) -> tuple[str, list[Any]]:
    types = ", ".join(f"'{t}'" for t in CANDIDATE_TYPES)
    sql = f"{alias}.type IN ({types})"
    params: list[Any] = []
    if ref.exclude:
        cond, ps = _in(f"{alias}.id", ref.exclude)
        sql += f" AND NOT ({cond})"
        params += ps
    if path_regex is not None:
        sql += f" AND regexp_full_match({alias}.file, ?)"
        params.append(path_regex)
    return sql, params


def vector_scores(
    con: Any,
    vectors: list[list[float]],
    ref: Reference,
    *,
    path_regex: str | None,
    limit: int | None = None,
    only: Sequence[str] | None = None,
) -> dict[str, float]:
    """Candidate id -> best cosine over the reference's and its windows: the top ``limit``,
    or the scores of just the symbols ``only``."""
    if not vectors or (only is not None and not only):
        return {}
    dim = len(vectors[0])
    where, params = _filters("s", ref, path_regex)
    restrict = ""
    pre: list[Any] = [vectors]
    if only is not None:
        cond, ps = _in("sym", only)
        restrict = f" WHERE e.hash IN (SELECT text_hash FROM embed_docs WHERE {cond})"
        pre += ps
        c2, p2 = _in("d.sym", only)
        where += f" AND {c2}"
        params += p2
    sql = f"""
        WITH t AS (SELECT unnest(?::FLOAT[{dim}][]) AS vec),
        sims AS (
            SELECT e.hash, max(array_cosine_similarity(e.vec, t.vec)) AS sim
            FROM embeddings e CROSS JOIN t{restrict}
            GROUP BY e.hash
        )
        SELECT d.sym, max(x.sim) AS sim
        FROM embed_docs d JOIN sims x ON x.hash = d.text_hash JOIN symbols s ON s.id = d.sym
        WHERE {where}
        GROUP BY d.sym
        ORDER BY sim DESC, d.sym
    """
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    rows = con.execute(sql, pre + params).fetchall()
    return {r[0]: min(1.0, max(0.0, float(r[1] or 0.0))) for r in rows}


def structural_candidates(
    con: Any, ref: Reference, kinds: Sequence[str], *, path_regex: str | None, limit: int
) -> list[str]:
    """The symbols sharing the most neighbour keys with the reference. Only edges that can
    carry a shared key are read: those into the reference's exact neighbours and from its
    callers (index lookups), and, for keys by name, those whose target ends in one of the
    names (one scan of ``edges.dst``)."""
    if not ref.keys or not kinds:
        return []
    exact: list[str] = []
    names: set[str] = set()
    callers: list[str] = []
    for key in ref.keys:
        side, _kind, node = key.split("|", 2)
        if side == "in":
            callers.append(node)
        elif ref.short_keys:
            names.add(node)
        elif node.startswith("*."):
            names.add(node[2:])
        else:
            exact.append(node)
    rows = _edges_touching(con, "dst", sorted(set(exact)), kinds)
    if names:
        alternatives = "|".join(re.escape(n) for n in sorted(names))
        kind_sql, kind_params = _in("kind", kinds)
        rows += con.execute(
            "SELECT src, dst, kind, resolution FROM edges WHERE "
            f"regexp_matches(dst, ?) AND {kind_sql}",
            [f"(^|[^A-Za-z0-9_$])({alternatives})[^A-Za-z0-9_$]*(#[0-9]+)?$", *kind_params],
        ).fetchall()
    shared: dict[str, set[str]] = {}
    for src, dst, kind, res in rows:
        key = f"out|{kind}|{node_key(dst, res, ref.short_keys)}"
        if key in ref.keys:
            shared.setdefault(src, set()).add(key)
    for src, dst, kind, _res in _edges_touching(con, "src", sorted(set(callers)), kinds):
        key = f"in|{kind}|{src}"
        if key in ref.keys and not is_external(dst):
            shared.setdefault(dst, set()).add(key)
    for i in ref.exclude:
        shared.pop(i, None)
    ranked = sorted(shared, key=lambda i: (-len(shared[i]), i))
    out: list[str] = []
    # Filter by type and path in slices, best first, until the pool is full.
    step = max(limit, 200)
    for start in range(0, len(ranked), step):
        chunk = ranked[start : start + step]
        infos = symbol_rows(con, chunk)
        pattern = re.compile(path_regex) if path_regex is not None else None
        for i in chunk:
            info = infos.get(i)
            if info is None or info["type"] not in CANDIDATE_TYPES:
                continue
            if pattern is not None and not pattern.fullmatch(info["file"] or ""):
                continue
            out.append(i)
            if len(out) >= limit:
                return out
    return out


def relation_counts(con: Any, ids: Sequence[str]) -> dict[str, dict[str, dict[str, int]]]:
    """Distinct callers and callees over call edges, split into project (internal) and
    outside-the-project (external: ``ext::``/``dep::``) nodes. Callers are project code,
    so their external count is 0 unless a future edge kind says otherwise."""
    out = {
        i: {"callers": {"internal": 0, "external": 0}, "callees": {"internal": 0, "external": 0}}
        for i in ids
    }
    if not ids:
        return out
    sides: dict[tuple[str, str], set[str]] = {}
    for src, dst, _kind, _res in _edges_touching(con, "src", ids, ["call"]):
        sides.setdefault((src, "callees"), set()).add(dst)
    for src, dst, _kind, _res in _edges_touching(con, "dst", ids, ["call"]):
        sides.setdefault((dst, "callers"), set()).add(src)
    for (node, side), others in sides.items():
        if node in out:
            ext = sum(1 for o in others if is_external(o))
            out[node][side] = {"internal": len(others) - ext, "external": ext}
    return out


# -- scoring -----------------------------------------------------------------------------


def weights(parts: Sequence[str]) -> dict[str, float]:
    """The formula's weights for the parts that can be computed, scaled to sum to 1. The
    lexical stand-in takes the vector's weight."""
    base = {**WEIGHTS, "lexical": WEIGHTS["vector"]}
    total = sum(base[p] for p in parts) or 1.0
    return {p: base[p] / total for p in parts}


def role_kind(
    ref: Reference, cand: dict[str, Any], want_type: str | None, want_role: str | None
) -> tuple[float | None, list[str]]:
    """Agreement in 0..1 (None when there is nothing to agree with) and what agreed."""
    parts: list[float] = []
    said: list[str] = []
    role = want_role or ref.role
    if role:
        same = cand.get("role") == role
        parts.append(1.0 if same else 0.0)
        if same:
            said.append(f"same role {role}")
    if want_type:
        same = want_type in (cand.get("type"), cand.get("kind"))
        parts.append(1.0 if same else 0.0)
        if same:
            said.append(f"{want_type} as asked")
    elif ref.kind:
        if cand.get("kind") == ref.kind:
            parts.append(1.0)
            said.append(f"same kind {ref.kind}")
        elif ref.type and cand.get("type") == ref.type:
            parts.append(0.5)
            said.append(f"same type {ref.type}")
        else:
            parts.append(0.0)
    if not parts:
        return None, []
    return sum(parts) / len(parts), said


def _noun(shared: Sequence[str]) -> str:
    dirs = {(k.split("|", 2)[0], k.split("|", 2)[1]) for k in shared}
    if dirs == {("out", "call")}:
        return "callees"
    if dirs == {("in", "call")}:
        return "callers"
    return "call-graph neighbours"


def _structure_reason(shared: list[str], union: int) -> str:
    if not union:
        return "no call-graph neighbours on either side"
    if not shared:
        return f"shares none of {union} call-graph neighbours"
    names = sorted({display(k) for k in shared})
    shown = ", ".join(names[:REASON_NAMES]) + (", ..." if len(names) > REASON_NAMES else "")
    return f"shares {len(shared)} of {union} neighbours ({_noun(shared)} {shown})"


@dataclass
class Scored:
    id: str
    score: float
    parts: dict[str, float]
    signals: dict[str, Any]
    reason: str


def score_all(
    ref: Reference,
    infos: dict[str, dict[str, Any]],
    neighbours: dict[str, set[str]],
    cosine: dict[str, float] | None,
    lexical: dict[str, float] | None,
    *,
    use_structure: bool,
    want_type: str | None,
    want_role: str | None,
) -> tuple[list[Scored], dict[str, float]]:
    """Every candidate of ``infos`` scored, best first, and the weights used."""
    has_rk = bool(want_type or want_role or ref.role or ref.kind)
    parts = []
    if cosine is not None:
        parts.append("vector")
    elif lexical is not None:
        parts.append("lexical")
    if use_structure:
        parts.append("structure")
    if has_rk:
        parts.append("role_kind")
    w = weights(parts)
    out: list[Scored] = []
    for cid, info in infos.items():
        values: dict[str, float] = {}
        signals: dict[str, Any] = {}
        reasons: list[str] = []
        if cosine is not None:
            values["vector"] = cosine.get(cid, 0.0)
            signals["cosine"] = round(values["vector"], 4)
            reasons.append(f"vector {values['vector']:.2f}")
        elif lexical is not None:
            values["lexical"] = lexical.get(cid, 0.0)
            signals["lexical"] = round(values["lexical"], 4)
            reasons.append(f"lexical {values['lexical']:.2f}")
        if use_structure:
            mine = neighbours.get(cid, set())
            shared = sorted(ref.keys & mine)
            union = len(ref.keys | mine)
            values["structure"] = len(shared) / union if union else 0.0
            signals.update(
                jaccard=round(values["structure"], 4), shared=len(shared), neighbours=union
            )
            reasons.append(_structure_reason(shared, union))
        if has_rk:
            value, said = role_kind(ref, info, want_type, want_role)
            values["role_kind"] = value or 0.0
            signals["role_kind"] = round(values["role_kind"], 4)
            reasons.append(", ".join(said) if said else "other role and kind")
        contrib = {"vector": 0.0, "structure": 0.0, "role_kind": 0.0}
        contrib.update({p: round(w[p] * values[p], 4) for p in parts})
        total = round(sum(contrib.values()), 4)
        if total <= 0:
            continue
        out.append(Scored(cid, total, contrib, signals, "; ".join(reasons)))
    out.sort(key=lambda s: (-s.score, s.id))
    return out, {p: round(v, 4) for p, v in w.items()}


@dataclass
class Found:
    results: list[Scored]
    infos: dict[str, dict[str, Any]]
    weights: dict[str, float]
    sources: list[str]


def find(
    con: Any,
    ref: Reference,
    kinds: Sequence[str],
    *,
    pool: int,
    path_regex: str | None,
    want_type: str | None,
    want_role: str | None,
) -> Found:
    """Gather candidates (nearest vectors, or the lexical list without vectors, plus the
    symbols sharing the most neighbours) and score them all."""
    from znt.index import lexical as lexical_mod

    use_structure = ref.mode != "query"
    sources: list[str] = []
    cosine: dict[str, float] | None = None
    lex: dict[str, float] | None = None
    ids: list[str] = []
    if ref.vectors:
        cosine = vector_scores(con, ref.vectors, ref, path_regex=path_regex, limit=pool)
        ids += list(cosine)
        sources.append("vector")
    elif ref.mode != "target" and ref.lexical_text:
        ranked = lexical_mod.rank(con, ref.lexical_text, pool, path_regex)
        lex = {sid: s for sid, s in ranked}
        ids += list(lex)
        sources.append("lexical")
    if use_structure:
        found = structural_candidates(con, ref, kinds, path_regex=path_regex, limit=pool)
        ids += found
        if found:
            sources.append("structure")
    ids = list(dict.fromkeys(ids))
    excluded = set(ref.exclude)
    infos = {
        i: info
        for i, info in symbol_rows(con, ids).items()
        if info["type"] in CANDIDATE_TYPES and i not in excluded
    }
    if cosine is not None:
        missing = [i for i in infos if i not in cosine]
        cosine.update(vector_scores(con, ref.vectors or [], ref, path_regex=None, only=missing))
    if lex is not None:
        top = max((lex[i] for i in infos if i in lex), default=0.0) or 1.0
        lex = {i: lex[i] / top for i in infos if i in lex}
    neighbours = (
        neighbour_rows(con, list(infos), kinds, short=ref.short_keys) if use_structure else {}
    )
    scored, used = score_all(
        ref,
        infos,
        neighbours,
        cosine,
        lex,
        use_structure=use_structure,
        want_type=want_type,
        want_role=want_role,
    )
    return Found(scored, infos, used, sources)
