"""``znt graph``: a symbol's neighbourhood, or the shortest call paths between two symbols
(the walk itself is znt/graph/traverse.py)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from znt.project import Project

if TYPE_CHECKING:
    from znt.export.dataset import DatasetQuery
    from znt.results import GraphBody


def graph(
    proj: Project | None,
    from_: str,
    *,
    to: str | None,
    depth: int,
    direction: str,
    kinds: list[str],
    include_external: bool,
    max_nodes: int,
    dataset: DatasetQuery | None = None,
) -> GraphBody:
    """The neighbourhood of FROM or, with ``to``, the shortest call paths FROM -> TO, over
    the (parsed) edge ``kinds``; whether the answer is complete or a lower bound, and why."""
    from znt.features.connection import index_or_dataset
    from znt.graph import traverse as tv

    # A dataset has no work tree: FROM/TO name symbols or repository-prefixed paths.
    root = proj.root if proj is not None else Path("/nonexistent-dataset-root")
    warnings: list[str] = []
    paths: list[list[str]] = []
    direction_used = direction
    with index_or_dataset(proj, dataset) as con:
        indexed, meta = tv.index_state(con, ("last_scan_at", "index_commit"))
        start = tv.resolve(con, from_, root, what="FROM", indexed=indexed)
        target = tv.resolve(con, to, root, what="TO", indexed=indexed) if to is not None else None
        if target is None:
            walk = tv.neighbourhood(
                con,
                start.ids,
                depth=depth,
                direction=direction,
                kinds=kinds,
                include_external=include_external,
                max_nodes=max_nodes,
                indexed=indexed,
            )
            details = tv.node_details(con, walk.distance, indexed, walk.cards)
            callers_of = start.ids if direction != "down" else []
            limit_hit = False
        else:
            if direction == "up":
                search = tv.shortest_paths(con, target.ids, start.ids, kinds=kinds, indexed=indexed)
            else:
                search = tv.shortest_paths(con, start.ids, target.ids, kinds=kinds, indexed=indexed)
                direction_used = "down"
                if not search.paths and direction == "both":
                    back = tv.shortest_paths(
                        con, target.ids, start.ids, kinds=kinds, indexed=indexed
                    )
                    # stats.queries counts both searches: the forward one ran in full.
                    spent = search.walk.queries + back.walk.queries
                    if back.paths:
                        search, direction_used = back, "up"
                        warnings.append(
                            f"no path leads from {start.label} to {target.label}; "
                            f"{target.label} reaches {start.label}, shown in call order "
                            "(use --direction down to ask only for FROM -> TO)"
                        )
                    search.walk.queries = spent
            walk, paths, limit_hit = search.walk, search.paths, search.limit_hit
            details = tv.node_details(con, walk.distance, indexed, walk.cards)
            # The path's far end is where unbound calls could hide a shorter path.
            callers_of = (
                (target.ids if direction_used == "down" else start.ids) if not paths else []
            )
            if search.length is not None and search.length > depth:
                warnings.append(
                    f"the path is {search.length} edges long, longer than --depth {depth}: "
                    "returned whole (the depth limit does not apply to paths)"
                )
        names = sorted(
            {
                d["name"]
                for i in callers_of
                if (d := details.get(i) or tv.node_details(con, [i], indexed).get(i))
                and d["type"] in ("function", "declaration")
            }
        )
        possible = tv.possible_callers(con, names, kinds)
        fresh = dataset.describe(con) if dataset is not None else None
    if target is None:
        node_ids = sorted(
            walk.distance,
            key=lambda i: (
                walk.distance[i],
                tv.is_external(i),
                details[i]["file"] or "",
                details[i]["start_line"] or 0,
                i,
            ),
        )
        edges = sorted(
            (e, info)
            for e, info in walk.edges.items()
            if e[0] in walk.distance and e[1] in walk.distance
        )
    else:
        node_ids = list(dict.fromkeys(n for p in paths for n in p))
        pairs = {(p[i], p[i + 1]) for p in paths for i in range(len(p) - 1)}
        edges = sorted((e, info) for e, info in walk.edges.items() if (e[0], e[1]) in pairs)
    extra = []
    if limit_hit:
        extra.append(
            f"the path search stopped after {tv.PATH_NODE_LIMIT} nodes or "
            f"{tv.PATH_LEVEL_LIMIT} levels: a longer path may exist"
        )
    completeness = tv.completeness(
        walk,
        kinds=kinds,
        include_external=include_external,
        possible_unresolved_callers=possible,
        extra_reasons=extra,
        hidden_matters=target is None,
    )
    if walk.truncated:
        warnings.append(
            f"truncated: showing {len(node_ids)} of {len(node_ids) + walk.dropped}+ nodes; "
            "raise --max-nodes, lower --depth, or narrow --edge-types/--direction"
        )
    starts = set(start.ids)
    ends = set(target.ids) if target else set()
    nodes = []
    for i in node_ids:
        d = dict(details[i])
        d["distance"] = walk.distance.get(i)
        d["start"] = i in starts
        if target is not None:
            d["target"] = i in ends
        nodes.append(d)
    from znt.gitinfo import head_commit

    head = head_commit(proj.root) if proj is not None else None
    scanned = meta.get("last_scan_at")
    index_commit = meta.get("index_commit") or None
    body: GraphBody = {
        "from": from_,
        "to": to,
        "mode": "path" if target is not None else "neighbourhood",
        "depth": depth,
        "direction": direction,
        "edge_types": kinds,
        "include_external": include_external,
        "max_nodes": max_nodes,
        "start": start.to_dict(),
        "target": target.to_dict() if target else None,
        "found": bool(paths) if target is not None else True,
        "nodes": nodes,
        "edges": [
            {
                "from": s,
                "to": t,
                # the original names an edge's ends by name (its nodes have no id)
                "from_name": _name(details, s),
                "to_name": _name(details, t),
                "type": k,
                "confidence": info.confidence,
                "resolution": info.resolution,
            }
            for (s, t, k), info in edges
        ],
        "truncated": walk.truncated,
        "warnings": warnings,
        "completeness": completeness,
        "freshness": fresh
        or {
            "last_scan_at": float(scanned) if scanned else None,
            "index_commit": index_commit,
            "head_commit": head,
            "commit_changed": bool(head and index_commit and head != index_commit),
        },
        "stats": {"queries": walk.queries, "levels": walk.levels},
    }
    if target is None:
        body["cycles"] = tv.cycles(walk)
    if target is not None:
        body["paths"] = paths
        body["path_length"] = len(paths[0]) - 1 if paths else None
        body["direction_used"] = direction_used
        path_warnings = [w for w in warnings if "longer than --depth" in w]
        if path_warnings:
            body["warning"] = path_warnings[0]
    return body


def _name(details: dict[str, dict[str, Any]], node: str) -> str:
    """A node's qualified name (its id when the walk holds no details for it)."""
    d = details.get(node) or {}
    return str(d.get("qualified_name") or d.get("name") or node)
