"""``znt similar``: analogues and near-duplicates of a symbol, a snippet or a description."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from znt.errors import UsageError
from znt.features.page import ranked_page
from znt.features.source import attach_code
from znt.features.status import freshness
from znt.features.vectors import index_vectors, query_vector
from znt.project import Project

if TYPE_CHECKING:
    from znt.results import SimilarBody


def similar(
    project: Project,
    target: str | None,
    *,
    query: str | None,
    snippet: str | None,
    language: str | None,
    limit: int,
    offset: int,
    kinds: list[str],
    type: str | None,
    role: str | None,
    path: str | None,
    code: bool,
    max_code_lines: int,
) -> SimilarBody:
    """Analogues of one of ``target``, ``snippet`` (in ``language``) or ``query``, scored
    by znt/graph/similar.py; parts that cannot be computed are left out, as ``warnings``
    say."""
    from znt.graph import similar as sim
    from znt.graph import traverse as tv
    from znt.index import search as ranking
    from znt.index import store

    path_regex = ranking.glob_regex(path) if path else None
    pool = max(sim.MIN_POOL, (offset + limit) * 5)
    warnings: list[str] = []
    body_target: dict[str, Any]
    with store.open_index(project.index_path, read_only=True) as con:
        meta = store.get_meta(con)
        if target is not None:
            match = tv.resolve(
                con, target, project.root, what="TARGET", indexed=tv.indexed_columns(con)
            )
            if match.matched_by == "file" or all(tv.is_external(i) for i in match.ids):
                what = "file" if match.matched_by == "file" else "node outside the project"
                raise UsageError(
                    f"TARGET {target!r} names a {what}; "
                    "give one symbol (a qualified name, a short name or an id)",
                    target=target,
                )
            ref = sim.target_reference(con, match.ids, match.label, kinds)
            if ref.vectors is None:
                warnings.append(
                    "vector similarity unavailable: "
                    + _no_vector_reason(con, meta, ref)
                    + "; ranked by the call-graph and role/kind parts alone"
                )
            body_target = {**match.to_dict(), "symbol": ref.info}
        elif snippet is not None:
            if language is None:
                language = _main_language(con)
                warnings.append(
                    f"the snippet is read as {language}, the project's main language "
                    "(--language to choose)"
                )
            facts = sim.parse_snippet(snippet, language, kinds)
            ref = sim.snippet_reference(facts, snippet)
            vectors, why = index_vectors(con, meta, facts.texts, "document")
            ref.vectors = vectors
            if vectors is None:
                warnings.append(
                    f"vector similarity unavailable: {why}; candidates come from the lexical "
                    "index and the lexical score stands in for the vector cosine"
                )
            if facts.parse_errors:
                warnings.append(f"the snippet has {language} syntax errors; parsed where possible")
            body_target = {
                "snippet": True,
                "language": facts.language,
                "symbols": facts.symbols,
                "calls": sorted({sim.display(k) for k in facts.names}),
            }
        else:
            assert query is not None
            ref = sim.query_reference(query.strip())
            vector, why = query_vector(con, meta, query.strip())
            ref.vectors = [vector] if vector is not None else None
            if vector is None:
                warnings.append(
                    f"vector similarity unavailable: {why}; candidates come from the lexical "
                    "index and the lexical score stands in for the vector cosine"
                )
            body_target = {"query": query.strip()}
        found = sim.find(
            con, ref, kinds, pool=pool, path_regex=path_regex, want_type=type, want_role=role
        )
        total = len(found.results)
        page = found.results[offset : offset + limit]
        counts = sim.relation_counts(con, [s.id for s in page])
    results = []
    for s in page:
        info = found.infos[s.id]
        results.append(
            {
                **{k: info[k] for k in ("id", "name", "qualified_name", "type", "kind", "role")},
                **{k: info[k] for k in ("file", "start_line", "end_line")},
                "score": s.score,
                "score_parts": s.parts,
                "signals": s.signals,
                "similarity_percent": percent(s.score),
                "similarity_reason": f"{percent(s.score)}% similar: {s.reason}",
                **counts[s.id],
                "relations": relations(counts[s.id]),
            }
        )
    if code:
        attach_code(project, results, max_code_lines)
    truncated = offset + len(results) < total
    body: SimilarBody = {
        "mode": ref.mode,
        "target": body_target,
        "edge_types": kinds,
        "weights": found.weights,
        "vectors": ref.vectors is not None,
        "candidate_sources": found.sources,
        **ranked_page(
            results, offset=offset, limit=limit, total=total, truncated=truncated, warnings=warnings
        ),
        "freshness": freshness(project, check_files=False),
    }
    if truncated:
        body["next_offset"] = offset + len(results)
    return body


def percent(score: float) -> int:
    """The 0..1 score as the whole percent the original's ``similarity_reason`` leads with."""
    return round(max(0.0, min(1.0, score)) * 100)


def relations(counts: dict[str, dict[str, int]]) -> dict[str, int]:
    """The original's ``relations`` block from znt's ``callers``/``callees`` counts."""
    callers, callees = counts["callers"], counts["callees"]
    return {
        "callers_count": callers["internal"] + callers["external"],
        "callees_count": callees["internal"] + callees["external"],
        "internal_callees_count": callees["internal"],
        "external_callees_count": callees["external"],
    }


def _main_language(con: Any) -> str:
    """The code language most of the project's indexed files are in (python in an index
    that holds none)."""
    from znt.index.languages import all_languages

    code = {spec.name for spec in all_languages() if not spec.resource}
    rows = con.execute(
        "SELECT language, count(*) AS n FROM files GROUP BY language ORDER BY n DESC, language"
    ).fetchall()
    return next((str(name) for name, _n in rows if name in code), "python")


def _no_vector_reason(con: Any, meta: dict[str, str], ref: Any) -> str:
    from znt.index.embed.stage import has_embeddings

    if not meta.get("embed_model") or not has_embeddings(con):
        return "the index has no embeddings (bm25 provider or `znt scan --no-embed`)"
    if ref.role == "test" and ref.type == "function":
        return (
            f"{ref.label} has no stored vector (test functions are not embedded unless "
            "znt.yaml sets `embed_tests: true`)"
        )
    return f"{ref.label} has no stored vector ({ref.type or 'its type'} symbols are not embedded)"
