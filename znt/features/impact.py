"""``znt impact``: what a change touches, through the call graph (docs/impact.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from znt.features.gitdiff import git_changes, path_changes
from znt.features.status import freshness
from znt.project import Project

if TYPE_CHECKING:
    from znt.results import ImpactBody


IMPACT_MAX_NODES = 2000


def impact(
    proj: Project, *, staged: bool, diff: str | None, paths: list[str] | None, depth: int
) -> ImpactBody:
    """The symbols a change touches (the new side of ``git diff -U0`` or whole ``paths``),
    their transitive callers to ``depth`` levels and the tests among them: a lower bound."""
    from znt.graph import traverse as tv
    from znt.index import store

    if paths:
        mode, ref = "paths", None
        changes = path_changes(proj, paths)
    else:
        mode = "staged" if staged else "diff"
        ref = None if staged else (diff or "HEAD")
        changes = git_changes(proj, staged=staged, ref=ref)
    warnings: list[str] = []
    kinds = list(tv.DEFAULT_EDGE_TYPES)
    with store.open_index(proj.index_path, read_only=True) as con:
        indexed = tv.indexed_columns(con)
        touched: dict[str, list[list[int]]] = {}
        for ch in changes:
            ch["in_index"], ch["index_stale"] = _file_state(proj, con, ch)
            if ch["status"] == "deleted" and not ch["in_index"]:
                continue
            spans = con.execute(
                "SELECT id, type, start_line, end_line FROM symbols WHERE file = ? "
                "ORDER BY start_line, start_byte",
                [ch["path"]],
            ).fetchall()
            hits = _hits(spans, ch["ranges"], ch["path"], whole=ch["whole_file"])
            ch["symbols"] = len(hits)
            for sid, rngs in hits.items():
                touched.setdefault(sid, []).extend(rngs)
        walk = tv.neighbourhood(
            con,
            sorted(touched),
            depth=depth,
            direction="up",
            kinds=kinds,
            include_external=False,
            max_nodes=IMPACT_MAX_NODES,
            indexed=indexed,
        )
        details = tv.node_details(con, walk.distance, indexed, walk.cards)
        names = sorted(
            {d["name"] for i in touched if (d := details.get(i)) and d["type"] != "namespace"}
        )
        possible = tv.possible_callers(con, names, kinds)
        tests = [n for n in details.values() if n.get("role") == "test"]
        candidates = [] if tests else tv.possible_test_callers(con, names)
    deleted_missing = [c["path"] for c in changes if c["status"] == "deleted" and not c["in_index"]]
    if deleted_missing:
        warnings.append(
            f"{len(deleted_missing)} deleted file(s) are no longer in the index: the symbols "
            "they defined cannot be listed, and their former callers show as unresolved calls"
        )
    stale = [c["path"] for c in changes if c["index_stale"]]
    if stale:
        warnings.append(
            f"the index is stale for {len(stale)} changed file(s) ({', '.join(stale[:5])}"
            f"{', …' if len(stale) > 5 else ''}): line ranges may not match the indexed "
            "symbols; run `znt scan` first"
        )
    reasons = [
        "callers are found through the indexed call graph: dynamic calls (getattr, "
        "callbacks, reflection, dispatch through a base class) can be missed"
    ]
    comp = tv.completeness(
        walk,
        kinds=kinds,
        include_external=False,
        possible_unresolved_callers=possible,
        extra_reasons=reasons,
        hidden_matters=False,
    )
    comp["complete"] = False  # never provably complete: see the first reason
    preds: dict[str, str] = {}
    for src, dst, _kind in sorted(walk.edges):
        ds, dd = walk.distance.get(src), walk.distance.get(dst)
        if ds is not None and dd is not None and ds == dd + 1 and src not in preds:
            preds[src] = dst
    nodes = []
    for i in sorted(
        walk.distance,
        key=lambda n: (walk.distance[n], details[n]["file"] or "", details[n]["start_line"] or 0),
    ):
        d = dict(details[i])
        d["distance"] = walk.distance[i]
        d["start"] = i in touched
        if i in touched:
            d["changed_lines"] = _merge(touched[i])
        elif i in preds:
            d["via"] = preds[i]
        nodes.append(d)
    edges: list[dict[str, Any]] = [
        {
            "from": s,
            "to": t,
            "type": k,
            "confidence": info.confidence,
            "resolution": info.resolution,
        }
        for (s, t, k), info in sorted(walk.edges.items())
        if s in walk.distance and t in walk.distance
    ]
    if walk.truncated:
        warnings.append(f"truncated at {IMPACT_MAX_NODES} nodes: lower --depth")
    body: ImpactBody = {
        "mode": mode,
        "ref": ref,
        "depth": depth,
        "edge_types": kinds,
        "files": [{k: v for k, v in c.items() if k not in ("whole_file",)} for c in changes],
        "changed": [n for n in nodes if n["start"]],
        "callers": [n for n in nodes if not n["start"]],
        "tests": [n for n in nodes if n.get("role") == "test"],
        # No resolved edge reaches a test: tests whose unresolved calls carry a changed
        # symbol's name may call it (a value of unknown type), listed as candidates.
        "candidate_tests": candidates,
        "nodes": nodes,
        "edges": edges,
        "truncated": walk.truncated,
        "lower_bound": True,
        "completeness": comp,
        "warnings": warnings,
        "freshness": {**freshness(proj, check_files=False), "stale_files": stale},
    }
    return body


def _file_state(proj: Project, con: Any, change: dict[str, Any]) -> tuple[bool, bool]:
    """(the index has the file, the index is stale for it: the file on disk differs from
    what the index saw, or it was deleted/added and the index has not caught up)."""
    row = con.execute(
        "SELECT size, mtime_ns FROM files WHERE path = ?", [change["path"]]
    ).fetchone()
    try:
        st = (proj.root / change["path"]).stat()
    except OSError:
        return row is not None, row is not None
    if row is None:
        return False, True
    return True, (int(row[0] or 0), int(row[1] or 0)) != (st.st_size, st.st_mtime_ns)


def _hits(
    spans: list[Any], ranges: list[list[int]], file: str, *, whole: bool
) -> dict[str, list[list[int]]]:
    """The innermost symbols each changed range touches: a range inside a method touches
    the method, not its class; lines outside every symbol touch the module node (``file``
    itself). ``whole`` touches every symbol of the file (methods included: their callers
    are affected too)."""
    syms = [(r[0], int(r[2] or 0), int(r[3] or 0)) for r in spans if r[1] != "namespace"]
    module = next((r[0] for r in spans if r[0] == file), None)
    hits: dict[str, list[list[int]]] = {}
    if whole:
        for sid, a, b in syms:
            hits[sid] = [[a, b]]
        if module and not hits:
            hits[module] = [[1, 1]]
        return hits
    for lo, hi in ranges:
        over = [(sid, a, b) for sid, a, b in syms if a <= hi and b >= lo]
        if hi == lo + 1 and lo > 0:  # a pure deletion: only symbols around the gap
            over = [(sid, a, b) for sid, a, b in over if a <= lo and b >= hi]
        covered: list[tuple[int, int]] = []
        for sid, a, b in sorted(over, key=lambda s: s[2] - s[1]):
            part = (max(a, lo), min(b, hi))
            if _uncovered(part, [c for c in covered if a <= c[0] and c[1] <= b]):
                hits.setdefault(sid, []).append([part[0], part[1]])
            covered.append(part)
        if module and _uncovered((lo, hi), covered):
            hits.setdefault(module, []).append([lo, hi])
    return hits


def _uncovered(part: tuple[int, int], covered: list[tuple[int, int]]) -> bool:
    """True when some line of ``part`` lies outside every interval of ``covered``."""
    nxt = part[0]
    for a, b in sorted(covered):
        if a > nxt:
            return True
        nxt = max(nxt, b + 1)
        if nxt > part[1]:
            return False
    return nxt <= part[1]


def _merge(ranges: list[list[int]]) -> list[list[int]]:
    out: list[list[int]] = []
    for a, b in sorted(ranges):
        if out and a <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out
