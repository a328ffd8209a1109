"""``znt map``: the ranked, token-budgeted repository map (znt/graph/repomap.py) for a
project: the focus resolved to files and symbols, PATH arguments to folders of the index,
and how fresh the index is."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from znt.errors import NotFound
from znt.features.paths import relative_path
from znt.features.status import freshness
from znt.project import Project

if TYPE_CHECKING:
    from znt.graph.repomap import Ranking
    from znt.results import MapBody


# The project-wide ranking of the index's current generation, in ``.znt/``
# (docs/decisions/0021-one-shot-start-up.md).
RANKING_FILE = "map-ranking.json"


def _stored_ranking(project: Project, generation: str | None) -> Ranking | None:
    """The ranking a previous ``znt map`` stored for this index generation, if any."""
    from znt.fsguard import read_regular
    from znt.graph.repomap import ranking_from_json

    if not generation:
        return None
    try:
        data = read_regular(project.znt_dir / RANKING_FILE)
    except OSError:
        return None
    return ranking_from_json(data, generation)


def _store_ranking(project: Project, ranking: Ranking, generation: str | None) -> None:
    """Keep the project-wide ranking for the next map of this generation; a folder that
    cannot be written costs the next map its time, nothing else."""
    from znt.fsguard import write_private
    from znt.graph.repomap import ranking_to_json

    if generation:
        with contextlib.suppress(OSError):
            write_private(project.znt_dir, RANKING_FILE, ranking_to_json(ranking, generation))


def repo_map(project: Project, paths: list[str], *, max_tokens: int, focus: list[str]) -> MapBody:
    """The map of ``project`` (``paths``: files or folders to show; ``focus``: files or
    symbols that personalise the ranking).

    The project-wide PageRank depends on the index alone, so it is computed once per index
    generation (a scan that changes anything makes a new one) and kept in ``.znt/``: the
    first map after a scan pays for networkx, scipy and the file graph's query, the next
    ones read the ranks back. A focus is ranked afresh every time."""
    from znt.graph import repomap
    from znt.graph import traverse as tv
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
        generation = store.get_meta(con).get("generation")
        ranking = None if focus_files else _stored_ranking(project, generation)
        if ranking is None:
            ranking = repomap.rank_files(con, focus_files)
            if not focus_files:
                _store_ranking(project, ranking, generation)
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
