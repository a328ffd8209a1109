"""``znt map``: the ranked, token-budgeted repository map (znt/graph/repomap.py) for a
project: the focus resolved to files and symbols, PATH arguments to folders of the index,
and how fresh the index is."""

from __future__ import annotations

from znt.errors import NotFound
from znt.features.paths import relative_path
from znt.features.status import freshness
from znt.project import Project
from znt.results import MapBody


def repo_map(project: Project, paths: list[str], *, max_tokens: int, focus: list[str]) -> MapBody:
    """The map of ``project`` (``paths``: files or folders to show; ``focus``: files or
    symbols that personalise the ranking)."""
    from znt.graph import repomap
    from znt.graph import traverse as tv

    # PageRank: networkx, and the scipy.sparse it computes with (ranking waits for both).
    tv.prefetch("networkx", "scipy.sparse")
    from znt.index import store

    prefixes = [relative_path(project, p) for p in paths]
    with store.open_index(project.index_path, read_only=True) as con:
        for prefix in prefixes:
            if prefix in ("", "."):
                continue
            row = con.execute(
                "SELECT 1 FROM files WHERE path = ? OR starts_with(path, ?) LIMIT 1",
                [prefix, prefix.rstrip("/") + "/"],
            ).fetchone()
            if row is None:
                raise NotFound(f"no indexed file under {prefix}", query=prefix, suggestions=[])
        indexed = tv.indexed_columns(con)
        focus_files: dict[str, float] = {}
        focus_ids: set[str] = set()
        matches = []
        for text in focus:
            match = tv.resolve(con, text, project.root, what="FOCUS", indexed=indexed)
            matches.append(match.to_dict())
            if match.matched_by == "file":
                focus_files[match.label] = focus_files.get(match.label, 0.0) + 1.0
                continue
            focus_ids.update(match.ids)
            for sid in match.ids:
                file = sid.split("::", 1)[0] if "::" in sid else None
                if file:
                    focus_files[file] = focus_files.get(file, 0.0) + 1.0
        ranking = repomap.rank_files(con, focus_files)
        result = repomap.build(
            con,
            ranking=ranking,
            paths=prefixes,
            focus_ids=focus_ids,
            max_tokens=max_tokens,
        )
    return {
        "paths": prefixes,
        "focus": matches,
        "max_tokens": max_tokens,
        "tokens": result.tokens,
        "token_estimate": "ceil(chars/4)",
        "truncated": result.truncated,
        "total_files": result.total_files,
        "files": result.files,
        "ranking": {
            "algorithm": "pagerank",
            "alpha": repomap.ALPHA,
            "personalized": ranking.personalized,
            "edge_kinds": list(repomap.EDGE_KINDS),
            "file_edges": ranking.edges,
        },
        "freshness": freshness(project, check_files=False),
    }
