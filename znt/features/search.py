"""``znt search``: the ranking policy over the lexical and vector candidates, and the
answer's page (cards, call trees, code, token budget)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from znt.features.page import ranked_page
from znt.features.source import attach_code
from znt.features.status import freshness
from znt.features.vectors import query_vector
from znt.project import Project

if TYPE_CHECKING:
    from znt.export.dataset import DatasetQuery
    from znt.results import Freshness, SearchBody

RELATION_FANOUT = 10
SUMMARY_CHARS = 240  # the summary card of one search result


def search(
    project: Project | None,
    query: str,
    *,
    mode: str,
    limit: int,
    offset: int,
    type: str | None,
    role: str | None,
    path: str | None,
    compact: bool,
    code: bool,
    max_code_lines: int,
    callers: int,
    callees: int,
    max_tokens: int | None,
    dataset: DatasetQuery | None = None,
) -> SearchBody:
    """Ranked symbols for the (stripped, non-empty) ``query``: the ranking policy.

    Lexical (znt/index/lexical.py) and vector candidates are fused (znt/index/search.py);
    here every candidate is scaled to 0..10, test code and documentation/example/vendored
    code are demoted (x ``TEST_FACTOR``) unless ``role``/``path`` asks for them, and
    ``type``/``role`` add a soft boost. The page ``offset``/``limit`` then gets its call
    trees, code and the ``max_tokens`` budget. With ``dataset``, the same over several
    exported repositories read as one index (znt/export/dataset.py) instead of ``project``."""
    from znt.features.connection import index_or_dataset
    from znt.index import lexical, store
    from znt.index import search as ranking

    path_regex = ranking.glob_regex(path) if path else None
    pool = max(100, (offset + limit) * 5)
    warnings: list[str] = []
    used = mode
    with index_or_dataset(project, dataset) as con:
        meta = store.get_meta(con)
        lex: list[tuple[str, float]] = []
        vec: list[tuple[str, float]] = []
        facts: dict[str, lexical.DocFacts] = {}
        if mode in ("lexical", "hybrid"):
            lex = lexical.rank(con, query, pool, path_regex, facts)
        if mode in ("vector", "hybrid") or (mode == "lexical" and not lex):
            vector, why = query_vector(con, meta, query)
            if vector is None:
                warnings.append(f"vector search unavailable: {why}")
                if mode == "vector":
                    lex = lexical.rank(con, query, pool, path_regex, facts)
                    used = "lexical"
                    warnings.append("answered by lexical search instead")
                elif mode == "hybrid":
                    used = "lexical"
            else:
                copy = store.read_copy(con)
                vec = ranking.vector_rank(
                    con, vector, len(vector), pool, path_regex, copy.vectors if copy else None
                )
                if mode == "lexical":
                    used = "vector"
                    warnings.append("lexical search found nothing; answered by vector search")
        if used == "hybrid":
            weight = (
                ranking.CODE_VECTOR_WEIGHT if ranking.code_like(query) else ranking.VECTOR_WEIGHT
            )
            cands = ranking.fuse(lex, vec, vector_weight=weight)
        elif used == "lexical":
            cands = ranking.single(lex, "lexical")
        else:
            cands = ranking.single(vec, "vector")
        facts.update(_doc_facts(con, [c.id for c in cands if c.id not in facts]))
        # A --path inside documentation/examples/vendored code asks for it: no demotion there.
        demote_secondary = not (path and ranking.secondary_path(path))
        for c in cands:
            c.score *= ranking.SCORE_SCALE
            fact = facts.get(c.id)
            if fact is None:
                continue
            c_role, c_type, c_kind, c_file = fact
            if c_role == "test" and role != "test":
                c.score *= ranking.TEST_FACTOR
                c.demoted = "test code ranks below the code it tests (--role test lifts it)"
            # A dataset's paths start with the repository: the folders are judged below it.
            own_path = c_file.split("/", 1)[-1] if dataset is not None and c_file else c_file
            if demote_secondary and own_path and ranking.secondary_path(own_path):
                c.score *= ranking.TEST_FACTOR
                c.demoted = (
                    "documentation, example and vendored code ranks below the project's own "
                    "code (a --path there lifts it)"
                )
            if type and type in (c_type, c_kind):
                c.score += ranking.TYPE_ROLE_BOOST
                c.boosts.append("type")
            if role and c_role == role:
                c.score += ranking.TYPE_ROLE_BOOST
                c.boosts.append("role")
        cands = sorted((c for c in cands if c.id in facts), key=lambda c: (-c.score, c.id))
        total = len(cands)
        infos = _symbol_info(con, [c.id for c in cands[offset : offset + limit]])
        page = [c for c in cands[offset : offset + limit] if c.id in infos]
        results = []
        for c in page:
            item = {**infos[c.id], "score": round(c.score, 4), "found_by": c.found_by}
            item["summary"] = summary(item)
            if c.lexical_rank is not None:
                item["lexical_rank"] = c.lexical_rank
            if c.vector_rank is not None:
                item["vector_rank"] = c.vector_rank
                item["vector_similarity"] = round(c.vector_score or 0.0, 4)
            if c.boosts:
                item["boosted_by"] = c.boosts
            if c.demoted:
                item["demoted"] = c.demoted
            if not compact:
                if callers:
                    item["callers"] = _call_tree(con, c.id, callers, up=True)
                if callees:
                    item["callees"] = _call_tree(con, c.id, callees, up=False)
            results.append(item)
        fresh: Freshness | dict[str, Any] = dataset.describe(con) if dataset is not None else {}
    if project is not None:
        fresh = freshness(project, check_files=False)
    if code and project is not None:
        attach_code(project, results, max_code_lines)
    truncated = offset + len(results) < total
    if max_tokens is not None:
        kept: list[dict[str, Any]] = []
        used_tokens = 0
        for item in results:
            cost = ranking.estimate_tokens(json.dumps(item, ensure_ascii=False))
            if kept and used_tokens + cost > max_tokens:
                truncated = True
                break
            kept.append(item)
            used_tokens += cost
        results = kept
    body: SearchBody = {
        "query": query,
        "mode": mode,
        "answered_by": used,
        **ranked_page(
            results, offset=offset, limit=limit, total=total, truncated=truncated, warnings=warnings
        ),
        "freshness": fresh,
    }
    if truncated:
        body["next_offset"] = offset + len(results)
    return body


def summary(item: dict[str, Any]) -> str:
    """The original's ``summary``: a one-line ``key:value`` card of the result (type, name,
    kind, role, file and lines, signature), bounded to ``SUMMARY_CHARS``."""
    parts = [
        f"type:{item.get('type')}",
        f"name:{item.get('qualified_name') or item.get('name')}",
        f"kind:{item.get('kind')}",
        f"role:{item.get('role')}",
        f"file:{item.get('file')}:{item.get('start_line')}-{item.get('end_line')}",
    ]
    sig = " ".join(str(item.get("signature") or "").split())
    if sig:
        parts.append(f"signature:{sig}")
    text = " ".join(parts)
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 3] + "..."


def _doc_facts(con: Any, ids: list[str]) -> dict[str, Any]:
    """Role, type, kind and file of ``ids`` (the candidates the lexical query did not
    describe already: those only the vector list found)."""
    if not ids:
        return {}
    from znt.index import store

    copy = store.read_copy(con)
    if copy is not None and copy.vectors is not None:  # held beside the vectors in memory
        held = {i: copy.vectors.facts[i] for i in ids if i in copy.vectors.facts}
        rest = [i for i in ids if i not in held]
        return {**held, **(_doc_facts_sql(con, rest, copy=True) if rest else {})}
    return _doc_facts_sql(con, ids, copy=copy is not None)


def _doc_facts_sql(con: Any, ids: list[str], *, copy: bool) -> dict[str, Any]:
    if copy:  # the copy's uncompressed cards (readcopy.READ_COPY_TABLES)
        rows = con.execute(
            f"SELECT id, card FROM graph_nodes WHERE id IN ({', '.join('?' * len(ids))})", ids
        ).fetchall()
        return {
            sid: (c["role"], c["type"], c["kind"], c["file"])
            for sid, card in rows
            for c in (json.loads(card),)
        }
    rows = con.execute(
        f"SELECT id, role, type, kind, file FROM symbols WHERE id IN ({', '.join('?' * len(ids))})",
        ids,
    ).fetchall()
    return {r[0]: tuple(r[1:]) for r in rows}


def _symbol_info(con: Any, ids: list[str]) -> dict[str, dict[str, Any]]:
    """Search's view of the symbols ``ids``: their stored cards (store.SEARCH_CARD_SQL), found
    through the ART index on ``symbols(id)``."""
    if not ids:
        return {}
    from znt.index import store

    table = "graph_nodes" if store.read_copy(con) is not None else "symbols"
    rows = con.execute(
        f"SELECT id, card FROM {table} WHERE id IN ({', '.join('?' * len(ids))})", ids
    ).fetchall()
    return {sid: {"id": sid, **json.loads(card)} for sid, card in rows}


def _call_tree(con: Any, sym: str, depth: int, *, up: bool) -> list[dict[str, Any]]:
    """Callers (``up``) or callees of ``sym`` to ``depth`` levels, each level capped at
    ``RELATION_FANOUT`` entries per node; cycles are cut."""
    near, far = ("src", "dst") if up else ("dst", "src")
    seen = {sym}

    def level(ids: list[str], d: int) -> dict[str, list[dict[str, Any]]]:
        rows = con.execute(
            f"""
            SELECT e.{far}, e.{near}, n.name, n.type, n.file, n.start_line, n.end_line,
                   e.kind, e.confidence, e.resolution
            FROM edges e JOIN nodes n ON n.id = e.{near}
            WHERE e.{far} IN (SELECT unnest(?::VARCHAR[])) AND e.kind = 'call'
            ORDER BY e.{far}, n.file NULLS LAST, n.start_line, e.{near}
            """,
            [ids],
        ).fetchall()
        grouped: dict[str, list[dict[str, Any]]] = {}
        for r in rows:
            bucket = grouped.setdefault(r[0], [])
            if len(bucket) >= RELATION_FANOUT or r[1] in seen:
                continue
            seen.add(r[1])
            bucket.append(
                {
                    "id": r[1],
                    "name": r[2],
                    "type": r[3],
                    "file": r[4],
                    "start_line": r[5],
                    "end_line": r[6],
                    "edge_type": r[7],
                    "confidence": r[8],
                    "resolution": r[9],
                }
            )
        if d < depth:
            nxt = [x["id"] for b in grouped.values() for x in b if x["file"]]
            children = level(nxt, d + 1) if nxt else {}
            for b in grouped.values():
                for x in b:
                    if x["id"] in children:
                        x["callers" if up else "callees"] = children[x["id"]]
        return grouped

    return level([sym], 1).get(sym, [])
