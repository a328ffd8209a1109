"""Graph questions answered from the index without loading the graph.

A neighbourhood or a call path only ever touches the nodes it reaches, so the walk pulls
edges out of DuckDB one BFS level at a time: one query per level, with the frontier as a
parameter list. Paths are searched from both ends at once (the smaller frontier grows
first). The edges loaded go into a networkx ``DiGraph``, and the answer is networkx's:
the ego graph of the start nodes, the shortest paths, the strongly connected components
(call cycles) among the nodes shown (docs/decisions/0016-graph-answers-from-networkx.md).
networkx is imported here, when a walk starts, and nowhere on the path of other commands.
Nothing here prints or renders; ``znt.features.graph`` turns a walk into the result document.

Completeness is counted on the way: calls that left the walk for an ``ext::`` node
(unresolved, local-variable, or library calls), ``self``/``this`` calls a subclass may
override, external nodes hidden without ``--all``, and unresolved call sites elsewhere that
carry a start node's name (possible callers the index could not bind).
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from znt.errors import Ambiguous, NotFound, UsageError
from znt.index.store import UNRESOLVED

if TYPE_CHECKING:
    from znt.results import Completeness


EDGE_KINDS = ("call", "implements", "inherits", "contains", "imports")
DEFAULT_EDGE_TYPES = ("call", "implements", "inherits")
DIRECTIONS = ("both", "down", "up")
MAX_PATHS = 3
# A path search gives up (and says so) past this many reached nodes or levels.
PATH_NODE_LIMIT = 20_000
PATH_LEVEL_LIMIT = 40
MAX_CANDIDATES = 20
# Longer frontiers are passed as one list parameter rather than as constants.
IN_LIST_MAX = 1000
# Possible unbound callers are looked up for at most this many distinct names.
MAX_NAME_CHECKS = 20

# Edges to a method that a subclass may override (the call may dispatch elsewhere).
DYNAMIC = frozenset({"self_method"})

_SUFFIX = re.compile(r"#\d+$")
_QUOTES = " '\""

Edge = tuple[str, str, str]  # (src, dst, kind)


EXTERNAL_PREFIXES = ("ext::", "dep::")


def is_external(node_id: str) -> bool:
    return node_id.startswith(EXTERNAL_PREFIXES)


def parse_edge_types(value: str | Sequence[str] | None) -> list[str]:
    """``call,inherits`` (or a list) as a checked, de-duplicated list in canonical order."""
    if value is None:
        return list(DEFAULT_EDGE_TYPES)
    items = value.split(",") if isinstance(value, str) else list(value)
    wanted = {x.strip().lower() for x in items if x and x.strip()}
    if not wanted:
        return list(DEFAULT_EDGE_TYPES)
    bad = sorted(wanted - set(EDGE_KINDS))
    if bad:
        raise UsageError(
            f"unknown edge type {', '.join(bad)}; choose from {', '.join(EDGE_KINDS)}",
            edge_types=sorted(wanted),
        )
    return [k for k in EDGE_KINDS if k in wanted]


# -- resolving FROM / TO -------------------------------------------------------------------


@dataclass
class Match:
    """What a user's FROM/TO named: one or more node ids (a file's symbols, or the several
    definitions of one qualified name in one file) and how it was recognised."""

    query: str
    ids: list[str]
    matched_by: str
    label: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "matched_by": self.matched_by,
            "label": self.label,
            "ids": self.ids,
        }


def _path_forms(text: str, root: Path) -> list[str]:
    """``text`` as the index would name a file: as given, and relative to the root when it
    is an absolute path or a path relative to the current folder inside the project."""
    forms = [text.replace(os.sep, "/").removeprefix("./")]
    p = Path(text).expanduser()
    for cand in [p] if p.is_absolute() else [Path.cwd() / p]:
        try:
            rel = cand.resolve().relative_to(root).as_posix()
        except (OSError, ValueError):
            continue
        if rel not in forms:
            forms.append(rel)
    return forms


def resolve(
    con: Any, text: str, root: Path, *, what: str = "FROM", indexed: frozenset[str] = frozenset()
) -> Match:
    """Turn FROM/TO into node ids: an id, an external id, a file path (its symbols), a
    qualified name, a module-qualified name (``pkg.mod.Class.method``), a short name, or a
    qualified-name suffix, in that order of precedence. More than one symbol at the first
    tier that matches raises ``Ambiguous``; nothing raises ``NotFound`` with suggestions."""
    text = (text or "").strip()
    if not text:
        raise UsageError(f"{what} must not be empty")
    if is_external(text):
        row = con.execute("SELECT 1 FROM edges WHERE dst = ? LIMIT 1", [text]).fetchone()
        if row:
            return Match(text, [text], "external", text[5:])
        raise NotFound(f"external node not found in the index: {text}", query=text, suggestions=[])
    forms = _path_forms(text, root) if ("/" in text or os.sep in text or "." in text) else []
    if forms and "::" not in text:
        path = _indexed_file(con, forms)
        if path:
            ids = [
                r[0]
                for r in con.execute(
                    "SELECT id FROM symbols WHERE file = ? ORDER BY start_line, start_byte",
                    [path],
                ).fetchall()
            ]
            if ids:
                return Match(text, ids, "file", path)
            raise NotFound(f"{path} is indexed but defines no symbols", query=text, suggestions=[])

    # Equalities first (cheap, and index-friendly where the index has them); the
    # module-qualified and suffix forms need a join and a string scan, so only when needed.
    # Only the columns the text can match: ids hold ``::``, short names hold no dot.
    cols = ["id"] if "::" in text else ["qualified_name"] + ([] if "." in text else ["name"])
    head = "SELECT id, file, name, qualified_name, start_line, NULL"
    if "symbol_keys.key" in indexed:  # a read copy: one lookup (readcopy.READ_COPY_TABLES)
        found = con.execute(f"{head}, col FROM symbol_keys WHERE key = ?", [text]).fetchall()
        rows = list(dict.fromkeys(r[:6] for r in found if r[6] in cols))
    else:
        sql = f"{head} FROM symbols WHERE "
        if all(f"symbols.{c}" in indexed for c in cols):
            # UNION ALL and de-duplication here: DuckDB's UNION hashes every column (3× slower).
            sql = " UNION ALL ".join(f"{sql}{c} = ?" for c in cols)
        else:
            sql += " OR ".join(f"{c} = ?" for c in cols)
        rows = list(dict.fromkeys(con.execute(sql, [text] * len(cols)).fetchall()))
    parts = text.split(".")
    quals = [".".join(parts[i:]) for i in range(len(parts))]
    if "::" not in text and not any(r[3] == text for r in rows) and (len(parts) > 1 or not rows):
        rows += con.execute(
            f"""
            SELECT s.id, s.file, s.name, s.qualified_name, s.start_line, f.module_name
            FROM symbols s LEFT JOIN files f ON f.path = s.file
            WHERE {_in("s.qualified_name", quals)[0]} OR ends_with(s.qualified_name, ?)
            """,
            [*quals, "." + text],
        ).fetchall()

    def module_qualified(r: Any) -> bool:
        for i in range(1, len(parts)):
            if r[3] == quals[i]:
                prefix = ".".join(parts[:i])
                mod = r[5] or ""
                if mod == prefix or mod.endswith("." + prefix):
                    return True
        return False

    tiers: list[tuple[str, Any | None]] = [
        ("id", lambda r: r[0] == text),
        ("qualified_name", lambda r: r[3] == text),
        ("module_qualified_name", module_qualified),
        ("name", lambda r: r[2] == text),
        ("qualified_name_suffix", lambda r: r[3].endswith("." + text)),
    ]
    # Last, a name a package re-exports (``requests.get``: ``from .api import get``), then
    # another name a function is assigned to (``res.set`` for ``res.header``).
    for tier, test in [*tiers, ("re_export", None), ("alias", None)]:
        if test is not None:
            hits = [r for r in rows if test(r)]
        elif len(parts) < 2:
            hits = []
        else:
            hits = _reexported(con, parts) if tier == "re_export" else _aliased(con, text)
        if not hits:
            continue
        # Code before documentation: a Markdown heading named like a class never makes
        # the class ambiguous (search still finds both). One hit stays what it is, without
        # loading every language's spec for the resource extensions.
        if len(hits) > 1:
            docs = _resource_suffixes()
            code = [r for r in hits if not (r[1] or "").lower().endswith(docs)]
            hits = code or hits
        if tier == "id":
            return Match(text, [text], tier, hits[0][3] or text)
        # The several definitions of one name in one file (overloads, redefinitions: ids
        # with a ``#2`` suffix) are one symbol to the user: they all start the walk.
        groups: dict[str, list[Any]] = {}
        for r in sorted(hits, key=lambda r: (r[1] or "", r[4] or 0, r[0])):
            groups.setdefault(_SUFFIX.sub("", r[0]), []).append(r)
        if len(groups) == 1:
            ((base, members),) = groups.items()
            return Match(text, [m[0] for m in members], tier, members[0][3] or base)
        candidates = list(groups)
        raise Ambiguous(
            f"{what} {text!r} is ambiguous: {len(candidates)} symbols match by {tier.replace('_', ' ')}; "
            "give a qualified name, a module-qualified name or an id",
            query=text,
            candidates=candidates[:MAX_CANDIDATES],
            total_candidates=len(candidates),
        )
    raise NotFound(
        f"{what} not found in the index: {text}", query=text, suggestions=_suggest(con, text, forms)
    )


@functools.cache
def _resource_suffixes() -> tuple[str, ...]:
    """The extensions of the resource languages (Markdown): sections, not code."""
    from znt.index.languages import all_languages

    return tuple(ext for spec in all_languages() if spec.resource for ext in spec.extensions)


def _aliased(con: Any, text: str) -> list[Any]:
    """The function a JavaScript ``res.set = res.header = function`` assigns to the name
    ``text`` besides its own (``aliases`` rows). Rows shaped like ``resolve``'s."""
    return list(
        con.execute(
            """
            SELECT DISTINCT s.id, s.file, s.name, s.qualified_name, s.start_line, NULL
            FROM refs r JOIN symbols s ON s.id = r.target
            WHERE r.kind = 'aliases' AND r.expr = ?
            """,
            [text],
        ).fetchall()
    )


def _reexported(con: Any, parts: list[str]) -> list[Any]:
    """``requests.get`` where ``requests/__init__.py`` does ``from .api import get``: the
    symbol a package's module imports under that name, in the files it imports (one
    step). Rows shaped like ``resolve``'s."""
    for i in range(len(parts) - 1, 0, -1):
        module, local, rest = ".".join(parts[:i]), parts[i], parts[i + 1 :]
        rows = con.execute(
            """
            SELECT DISTINCT s.id, s.file, s.name, s.qualified_name, s.start_line, t.module_name
            FROM files f
            JOIN imports i ON i.file = f.path AND i.local = ?
            JOIN edges e ON e.src = f.path AND e.kind = 'imports'
            JOIN files t ON t.path = e.dst
            JOIN symbols s ON s.file = e.dst AND s.qualified_name = concat_ws('.', coalesce(i.name, ?), ?)
            WHERE f.module_name = ?
            """,
            [local, local, ".".join(rest) if rest else None, module],
        ).fetchall()
        if rows:
            return rows
        if rest or local.startswith("_"):
            continue
        # ``from .api import *`` in the package (``httpx.get``), through nested packages.
        from znt.graph.resolve import STAR_ORDER, STAR_REACH, _flow_languages

        languages = ", ".join(f"'{name}'" for name in _flow_languages()) or "''"
        rows = con.execute(
            f"""
            {STAR_REACH.format(languages=languages)}
            SELECT s.id, s.file, s.name, s.qualified_name, s.start_line, t.module_name
            FROM files f
            JOIN reach r ON r.file = f.path
            JOIN files t ON t.path = r.tfile
            JOIN symbols s ON s.file = r.tfile AND s.parent_id = r.tfile AND s.name = ?
            WHERE f.module_name = ?
            QUALIFY row_number() OVER (ORDER BY {STAR_ORDER}) = 1
            """,
            [local, module],
        ).fetchall()
        if rows:
            return rows
    return []


def _indexed_file(con: Any, forms: list[str]) -> str | None:
    """The first of ``forms`` that is an indexed file's path. A read copy holds the paths in
    memory (a few thousand strings); otherwise a query."""
    from znt.index.store import read_copy

    held = getattr(read_copy(con), "files", None)
    if held is not None:
        return next((f for f in forms if f in held), None)
    # A few constants, not a list parameter: ``IN (SELECT unnest(?))`` plans a semi-join
    # that costs a few times more than the comparisons on this small table.
    cond, params = _in("path", forms)
    row = con.execute(f"SELECT path FROM files WHERE {cond} LIMIT 1", params).fetchone()
    return str(row[0]) if row else None


def _suggest(con: Any, text: str, forms: list[str], n: int = 5) -> list[str]:
    """Close matches by edit distance (Damerau-Levenshtein, computed in DuckDB so a big
    index is not pulled into Python): over short names for the last part of ``text``,
    over qualified names for all of it; nearest first, then the shorter name. A name at
    most a third of its length away (at least 2 edits) counts as close: ``ServHTTP`` finds
    ``Engine.ServeHTTP`` ahead of its alphabetical neighbours."""
    short = text.rsplit(".", 1)[-1].rsplit("::", 1)[-1]
    rows = con.execute(
        """
        SELECT qualified_name,
               least(damerau_levenshtein(lower(name), lower($2)),
                     damerau_levenshtein(lower(qualified_name), lower($1))) AS d
        FROM symbols
        WHERE type <> 'namespace'
        ORDER BY d, length(qualified_name), qualified_name
        LIMIT $3
        """,
        [text, short, n * 4],
    ).fetchall()
    limit = max(2, len(short) // 3)
    out = list(dict.fromkeys(r[0] for r in rows if r[1] <= limit))[:n]
    if forms and ("/" in text or os.sep in text):
        rows = con.execute(
            """
            SELECT path, damerau_levenshtein(path, $1) AS d FROM files
            ORDER BY d, path LIMIT $2
            """,
            [forms[-1], n],
        ).fetchall()
        out = [r[0] for r in rows if r[1] <= max(2, len(forms[-1]) // 3)] + out
    return out[:n]


# -- loading edges ---------------------------------------------------------------------------


class EdgeInfo(NamedTuple):
    """How certain an edge is (a tuple: a walk makes one per loaded edge)."""

    confidence: float
    resolution: str


# ``EdgeInfo(c, r)`` without the NamedTuple's Python-level ``__new__``: a walk over a hub
# makes thousands.
_edge_info = tuple.__new__


@dataclass
class Walk:
    """The part of the graph a question touched: node distances, loaded edges and what the
    walk saw but did not follow."""

    distance: dict[str, int] = field(default_factory=dict)
    edges: dict[Edge, EdgeInfo] = field(default_factory=dict)
    expanded_down: set[str] = field(default_factory=set)
    hidden_external: set[str] = field(default_factory=set)
    truncated: bool = False
    dropped: int = 0
    levels: int = 0
    queries: int = 0
    # Cards of nodes whose rows a read copy's ``graph_nodes`` returned on the way
    # (``node_details`` then need not look them up again).
    cards: dict[str, str] = field(default_factory=dict)
    # The networkx DiGraph of the loaded edges the answer is computed on.
    graph: Any = None


def _in(column: str, values: Sequence[str]) -> tuple[str, list[Any]]:
    """``column IN (?, ?, …)``: a list of constants lets DuckDB use an ART index on the
    column, where one exists; a very long list goes as one list parameter instead."""
    if len(values) > IN_LIST_MAX:
        return f"{column} IN (SELECT unnest(?))", [list(values)]
    return f"{column} IN ({', '.join('?' * len(values))})", list(values)


_INDEXES_SQL = (
    "SELECT table_name, expressions FROM duckdb_indexes() WHERE database_name = current_database()"
)


def _index_columns(rows: Iterable[Sequence[Any]]) -> frozenset[str]:
    out = set()
    for table, exprs in rows:
        items = exprs if isinstance(exprs, list | tuple) else str(exprs).strip("[]").split(",")
        if len(items) == 1:  # a composite index does not serve a one-column filter
            column = str(items[0]).strip(_QUOTES)
            out.add(f"{table}.{column}")
    return frozenset(out)


# ``indexed_columns`` per index file and generation: the indexes of an index file change
# only when a scan writes it, and a scan writes a new ``generation`` into ``meta``.
_indexed_by_generation: dict[tuple[str, str], frozenset[str]] = {}


def indexed_columns(con: Any) -> frozenset[str]:
    """``table.column`` of every single-column index. DuckDB uses an index only for an
    equality or IN-list filter standing alone, so queries are shaped by what exists: with
    an index, one lookup per column (UNION ALL) and the other filters applied in Python;
    without one, a single scan with every filter."""
    from znt.index.store import get_meta, opened_path

    path, generation = opened_path(con), get_meta(con).get("generation")
    key = (path, generation) if path and generation else None
    cached = _indexed_by_generation.get(key) if key else None
    if cached is not None:
        return cached
    try:
        rows = con.execute(_INDEXES_SQL).fetchall()
    except Exception:
        return frozenset()
    found = _index_columns(rows)
    if key:
        _indexed_by_generation[key] = found
    return found


def index_state(con: Any, meta_keys: Sequence[str]) -> tuple[frozenset[str], dict[str, str]]:
    """``indexed_columns`` and the ``meta`` values of ``meta_keys``. Both come without a
    statement of their own in a long-lived process: ``open_index`` has read ``meta``
    already, and the indexes are remembered per index generation."""
    from znt.index.store import get_meta

    meta = get_meta(con)
    return indexed_columns(con), {k: meta[k] for k in meta_keys if k in meta}


def _load(
    con: Any,
    frontier: Sequence[str],
    kinds: Sequence[str],
    direction: str,
    indexed: frozenset[str] = frozenset(),
    cards: dict[str, str] | None = None,
) -> list[Any]:
    """One BFS level: every edge of the chosen kinds leaving (down), entering (up) or
    touching (both) a frontier node, in one query. From a read copy's ``graph_nodes`` the
    frontier's cards come along and are kept in ``cards``."""
    if "graph_nodes.id" in indexed:
        return _load_adjacency(con, frontier, kinds, direction, cards)
    cols = "SELECT src, dst, kind, confidence, resolution FROM edges WHERE "
    sides = {"down": ["src"], "up": ["dst"], "both": ["src", "dst"]}[direction]
    if all(f"edges.{c}" in indexed for c in sides):
        parts, params = [], []
        for c in sides:
            cond, ps = _in(c, frontier)
            parts.append(cols + cond)
            params += ps
        wanted = set(kinds)
        rows = con.execute(" UNION ALL ".join(parts), params).fetchall()
        return [r for r in rows if r[2] in wanted]
    # No index to use. For both sides the frontier goes as one list parameter per side,
    # which DuckDB answers with semi-joins: two chains of constants OR-ed together are
    # compared row by row, three times slower (level 2 of a walk from sympy's Basic.subs,
    # 47 nodes: 92 ms against 33 ms). For one side the constants are as fast.
    if len(sides) > 1:
        conds = [f"{c} IN (SELECT unnest(?))" for c in sides]
        values: list[Any] = [list(frontier) for _ in sides]
    else:
        conds, values = [], []
        for c in sides:
            cond, ps = _in(c, frontier)
            conds.append(cond)
            values += ps
    kind_sql, kind_params = _in("kind", kinds)
    sql = f"{cols}({' OR '.join(conds)}) AND {kind_sql}"
    return list(con.execute(sql, values + kind_params).fetchall())


def _load_adjacency(
    con: Any,
    frontier: Sequence[str],
    kinds: Sequence[str],
    direction: str,
    cards: dict[str, str] | None,
) -> list[Any]:
    """``_load`` from ``graph_nodes``: one row per frontier node, its edges as JSON."""
    columns = {"down": "out_edges", "up": "in_edges", "both": "out_edges, in_edges"}[direction]
    cond, params = _in("id", frontier)
    wanted = set(kinds)
    out: list[Any] = []
    sql = f"SELECT id, card, {columns} FROM graph_nodes WHERE {cond}"
    for row in con.execute(sql, params).fetchall():
        node = row[0]
        if cards is not None:
            cards[node] = row[1]
        for i, side in enumerate(row[2:]):
            if not side:
                continue
            if direction == "down" or (direction == "both" and i == 0):
                out.extend((node, o, k, c, r) for o, k, c, r in json.loads(side) if k in wanted)
            else:
                out.extend((o, node, k, c, r) for o, k, c, r in json.loads(side) if k in wanted)
    return out


# A node that stands for all the start (or target) nodes at once, so that one networkx
# call answers for several of them. No id contains a NUL.
_SOURCE = "\0source"
_TARGET = "\0target"
# Shortest paths enumerated before the first MAX_PATHS (by node ids) are picked: networkx
# yields them lazily, and there can be exponentially many.
PATH_ENUMERATION = 64


def _networkx() -> Any:
    """networkx, imported where a graph is walked and nowhere else (decision 0016)."""
    import networkx

    return networkx


def neighbourhood(
    con: Any,
    start: Sequence[str],
    *,
    depth: int,
    direction: str,
    kinds: Sequence[str],
    include_external: bool,
    max_nodes: int,
    indexed: frozenset[str] = frozenset(),
) -> Walk:
    """The nodes within ``depth`` edges of ``start``: the edges are pulled from DuckDB one
    BFS level at a time into a networkx ``DiGraph``, and the answer is networkx's ego graph
    of the start nodes over the nodes kept (callees for ``down``, callers for ``up``, either
    for ``both``), at most ``max_nodes`` of them.

    A level that would overflow the bound keeps the nodes reached by the most certain edges
    first (then by id, for a stable answer) and the walk stops there, ``truncated``.

    networkx is first needed once the levels are loaded: a one-shot ``znt graph`` imports
    it on a thread of its own (znt/warmup.py), and the levels' queries, which let go of the
    interpreter's lock, run while it does."""
    walk = Walk()
    first = list(dict.fromkeys(start))
    if len(first) > max_nodes:
        walk.truncated = True
        walk.dropped += len(first) - max_nodes
        first = first[:max_nodes]
    kept = dict.fromkeys(first, 0)
    frontier = [s for s in first if not is_external(s)]
    for level in range(1, depth + 1):
        if not frontier or walk.truncated:
            break
        rows = _load(con, frontier, kinds, direction, indexed, walk.cards)
        walk.queries += 1
        walk.levels = level
        front = set(frontier)
        if direction in ("down", "both"):
            walk.expanded_down.update(front)
        best: dict[str, float] = {}
        edges, hidden = walk.edges, walk.hidden_external
        down, up = direction != "up", direction != "down"
        for src, dst, kind, conf, res in rows:  # the hot loop of a walk: kept plain
            c = float(conf or 0.0)
            edges[(src, dst, kind)] = _edge_info(EdgeInfo, (c, res or ""))
            for nb in (
                dst if down and src in front else None,
                src if up and dst in front else None,
            ):
                if nb is None or nb in kept:
                    continue
                if not include_external and nb.startswith(EXTERNAL_PREFIXES):
                    hidden.add(nb)
                elif c > best.get(nb, -1.0):
                    best[nb] = c
        reached = sorted(best, key=lambda n: (-best[n], is_external(n), n))
        room = max_nodes - len(kept)
        if len(reached) > room:
            walk.truncated = True
            walk.dropped += len(reached) - room
            reached = reached[:room]
        for nb in reached:
            kept[nb] = level
        frontier = [nb for nb in reached if not is_external(nb)]
    walk.graph = graph = _networkx().DiGraph()
    graph.add_nodes_from(first)
    graph.add_edges_from(
        sorted((s, d, {"kind": k}) for (s, d, k) in walk.edges if s in kept and d in kept)
    )
    walk.distance = _ego_distances(graph, first, depth, direction)
    return walk


def _ego_distances(graph: Any, start: Sequence[str], depth: int, direction: str) -> dict[str, int]:
    """Each node's distance from the nearest start node in networkx's ego graph of radius
    ``depth`` (edges followed forward for down, backward for up, either way for both)."""
    nx = _networkx()
    # One source node stands for the start nodes, added to the graph for the call and
    # taken out after it; the reversed and undirected graphs are networkx's views of it,
    # not copies. The nodes within ``depth + 1`` of that source are networkx's ego graph of
    # that radius, and their distances in it are their distances in the whole graph.
    graph.add_node(_SOURCE)
    if direction == "up":
        graph.add_edges_from((s, _SOURCE) for s in start)
        view = graph.reverse(copy=False)
    else:
        graph.add_edges_from((_SOURCE, s) for s in start)
        view = graph if direction == "down" else graph.to_undirected(as_view=True)
    try:
        lengths = nx.single_source_shortest_path_length(view, _SOURCE, cutoff=depth + 1)
    finally:
        graph.remove_node(_SOURCE)
    return {n: d - 1 for n, d in lengths.items() if n != _SOURCE}


def cycles(walk: Walk) -> list[list[str]]:
    """The call cycles among the nodes a walk shows (recursion, mutual recursion): the
    strongly connected components of more than one node, or of one node calling itself,
    each in id order, largest first."""
    nx = _networkx()
    graph = walk.graph
    if graph is None:
        return []
    calls = nx.DiGraph(
        (s, d) for s, d, k in graph.edges(data="kind") if k == "call" and s in walk.distance
    )
    found = [
        sorted(c)
        for c in nx.strongly_connected_components(calls)
        if len(c) > 1 or calls.has_edge(next(iter(c)), next(iter(c)))
    ]
    return sorted(found, key=lambda c: (-len(c), c))


@dataclass
class PathSearch:
    walk: Walk
    paths: list[list[str]]
    length: int | None
    limit_hit: bool
    reachable: int


def shortest_paths(
    con: Any,
    sources: Sequence[str],
    targets: Sequence[str],
    *,
    kinds: Sequence[str],
    indexed: frozenset[str] = frozenset(),
) -> PathSearch:
    """Up to ``MAX_PATHS`` distinct shortest paths from any source to any target, following
    edges forward (caller to callee). The edges are pulled from DuckDB from both ends at
    once, a level at a time (the smaller frontier grows first), into a networkx ``DiGraph``;
    the paths are networkx's shortest paths in it.

    Every edge of every shortest path is loaded: a node at position i of a path of length
    L = a + b (a forward levels, b backward) was either expanded forward (i < a) or its
    successor was expanded backward, so the loaded edges hold them all. As in
    ``neighbourhood``, networkx is first needed once the levels are loaded."""
    walk = Walk()
    fdist = {s: 0 for s in dict.fromkeys(sources)}
    bdist = {t: 0 for t in dict.fromkeys(targets)}
    ffront = [s for s in fdist if not is_external(s)]
    bfront = list(bdist)
    flevel = blevel = 0
    limit_hit = False
    while not (fdist.keys() & bdist.keys()):
        if not ffront or not bfront:
            break
        if len(fdist) + len(bdist) > PATH_NODE_LIMIT or flevel + blevel >= PATH_LEVEL_LIMIT:
            limit_hit = True
            break
        forward = len(ffront) <= len(bfront)
        front = ffront if forward else bfront
        rows = _load(con, front, kinds, "down" if forward else "up", indexed, walk.cards)
        walk.queries += 1
        if forward:
            flevel += 1
            walk.expanded_down.update(ffront)
        else:
            blevel += 1
        new: list[str] = []
        for src, dst, kind, conf, res in rows:
            walk.edges[(src, dst, kind)] = EdgeInfo(float(conf or 0.0), res or "")
            if forward:
                if is_external(dst) and dst not in bdist:
                    walk.hidden_external.add(dst)
                    continue
                if dst not in fdist:
                    fdist[dst] = flevel
                    new.append(dst)
            elif src not in bdist:
                bdist[src] = blevel
                new.append(src)
        if forward:
            ffront = [n for n in new if not is_external(n)]
        else:
            bfront = new
    walk.levels = flevel + blevel
    walk.graph = graph = _networkx().DiGraph()
    graph.add_edges_from(
        sorted((s, d, {"kind": k}) for (s, d, k) in walk.edges if not is_external(d) or d in bdist)
    )
    paths: list[list[str]] = []
    if fdist.keys() & bdist.keys():
        paths = first_shortest_paths(
            graph,
            [n for n, d in fdist.items() if d == 0],
            [n for n, d in bdist.items() if d == 0],
            MAX_PATHS,
        )
    for p in paths:
        for i, n in enumerate(p):
            walk.distance.setdefault(n, i)
    length = len(paths[0]) - 1 if paths else None
    return PathSearch(walk, paths, length, limit_hit, len(fdist))


def first_shortest_paths(
    graph: Any, sources: Sequence[str], targets: Sequence[str], limit: int
) -> list[list[str]]:
    """The ``limit`` smallest (comparing node ids in order) of the first
    ``PATH_ENUMERATION`` shortest paths networkx finds from any of ``sources`` to any of
    ``targets`` in ``graph`` (one shared source and target node stand for them all)."""
    nx = _networkx()
    starts = [s for s in sources if s in graph]
    ends = [t for t in targets if t in graph]
    if not starts or not ends:
        return []
    # The shared source and target are added to the graph for the search and taken out
    # after it (no copy of the graph).
    graph.add_edges_from((_SOURCE, s) for s in starts)
    graph.add_edges_from((t, _TARGET) for t in ends)
    try:
        if not nx.has_path(graph, _SOURCE, _TARGET):
            return []
        found = list(
            itertools.islice(nx.all_shortest_paths(graph, _SOURCE, _TARGET), PATH_ENUMERATION)
        )
    finally:
        graph.remove_nodes_from((_SOURCE, _TARGET))
    return sorted(p[1:-1] for p in found)[:limit]


# -- details and completeness ----------------------------------------------------------------


_DETAIL_KEYS = (
    "name",
    "qualified_name",
    "type",
    "kind",
    "file",
    "start_line",
    "end_line",
    "role",
)


def node_details(
    con: Any,
    ids: Iterable[str],
    indexed: frozenset[str] = frozenset(),
    cards: dict[str, str] | None = None,
) -> dict[str, dict[str, Any]]:
    """Rows of ``symbols`` for the project ids, and what an ``ext::``/``dep::`` id says
    about itself (the ``externals`` view's rules, without scanning the edges for it).
    ``cards``: those already read (``Walk.cards``), by id."""
    ids = list(ids)
    known = cards or {}
    found = [(i, known[i]) for i in ids if i in known]
    internal = [i for i in ids if not is_external(i) and i not in known]
    if internal:
        cond, params = _in("id", internal)
        # The stored card (store.SEARCH_CARD_SQL): one column to fetch per row, not nine.
        table = "graph_nodes" if "graph_nodes.id" in indexed else "symbols"
        found += con.execute(f"SELECT id, card FROM {table} WHERE {cond}", params).fetchall()
    out: dict[str, dict[str, Any]] = {}
    for sid, card in found:
        c = json.loads(card)
        out[sid] = {"id": sid, **{k: c[k] for k in _DETAIL_KEYS}, "external": False}
    for i in ids:
        if i in out:
            continue
        dep = i.startswith("dep::")
        qual = i[5:] if is_external(i) else i
        out[i] = {
            "id": i,
            "name": qual.rsplit(".", 1)[-1] or qual,
            "qualified_name": qual,
            "type": "dependency" if dep else "function",
            "kind": "dependency" if dep else "external",
            "file": None,
            "start_line": None,
            "end_line": None,
            "role": "dependency",
            "external": True,
        }
    return out


def possible_callers(con: Any, names: Sequence[str], kinds: Sequence[str]) -> int:
    """Unresolved call sites anywhere whose callee is written with one of ``names`` as its
    last part (``obj.run()`` for ``Scanner.run``): callers the index could not bind, so an
    upward answer is a lower bound by that many."""
    if "call" not in kinds or not names:
        return 0
    names = sorted(set(names))[:MAX_NAME_CHECKS]
    from znt.index.store import read_copy

    held = getattr(read_copy(con), "unbound_names", None)
    if held is not None and not any(c in n for n in names for c in ".:"):
        # "ends with .name or ::name" is "the part after the last . or :: is name" for a
        # name without those characters (readcopy.UNBOUND_NAMES_SQL).
        return sum(held.get(n, 0) for n in names)
    suffixes = [f"{sep}{n}" for n in names for sep in (".", "::")]
    res_sql, res_params = _in("resolution", sorted(UNRESOLVED))
    row = con.execute(
        f"SELECT count(*) FROM edges WHERE kind = 'call' AND {res_sql} AND ("
        + " OR ".join("ends_with(dst, ?)" for _ in suffixes)
        + ")",
        res_params + suffixes,
    ).fetchone()
    return int(row[0]) if row else 0


def possible_test_callers(con: Any, names: Sequence[str], limit: int = 20) -> list[dict[str, Any]]:
    """Tests with an unresolved call written with one of ``names`` as its last part
    (``c.Abort()`` on a value of unknown type for ``Context.Abort``): candidates an impact
    answer names when no resolved edge reaches a test, never counted as callers."""
    if not names:
        return []
    names = sorted(set(names))[:MAX_NAME_CHECKS]
    suffixes = [f"{sep}{n}" for n in names for sep in (".", "::")]
    res_sql, res_params = _in("e.resolution", sorted(UNRESOLVED))
    rows = con.execute(
        f"""
        SELECT DISTINCT s.id, s.name, s.qualified_name, s.file, s.start_line, s.end_line
        FROM edges e JOIN symbols s ON s.id = e.src
        WHERE e.kind = 'call' AND s.role = 'test' AND {res_sql} AND ("""
        + " OR ".join("ends_with(e.dst, ?) OR e.dst = ?" for _ in suffixes)
        + ") ORDER BY s.file, s.start_line LIMIT ?",
        [*res_params, *(x for sfx in suffixes for x in (sfx, "ext::" + sfx[1:])), limit],
    ).fetchall()
    keys = ("id", "name", "qualified_name", "file", "start_line", "end_line")
    return [dict(zip(keys, r, strict=True)) for r in rows]


def completeness(
    walk: Walk,
    *,
    kinds: Sequence[str],
    include_external: bool,
    possible_unresolved_callers: int,
    extra_reasons: Sequence[str] = (),
    hidden_matters: bool = True,
) -> Completeness:
    """Whether the answer is all there is, or a lower bound, and why. For a path, hidden
    external nodes do not matter (they end every walk: no path runs through one)."""
    unresolved = external = dynamic = ambiguous = 0
    distance, expanded = walk.distance, walk.expanded_down
    for (src, dst, kind), info in walk.edges.items():
        if kind != "call":
            continue
        outside = dst.startswith(EXTERNAL_PREFIXES)
        if src in distance and dst in distance and not outside:
            # A shown edge bound with less than certainty: ``self.m()`` a subclass may
            # override, or a receiver whose type was inferred.
            if info.resolution in DYNAMIC or info.confidence < 1:
                dynamic += 1
            continue
        if src not in expanded:
            continue
        if info.resolution == "ambiguous":
            ambiguous += 1
        if outside:
            if info.resolution in UNRESOLVED or info.confidence == 0:
                unresolved += 1
            else:
                external += 1
    reasons = list(extra_reasons)
    if walk.truncated:
        reasons.append(f"cut at --max-nodes: {walk.dropped} more nodes were reached but not shown")
    if unresolved:
        reasons.append(
            f"{unresolved} call(s) from the walked nodes could not be resolved (dynamic or "
            "local-variable calls, builtins): their targets are unknown"
        )
    if ambiguous:
        reasons.append(f"{ambiguous} call(s) had several possible targets")
    if dynamic:
        reasons.append(
            f"{dynamic} call(s) shown are bound with confidence < 1 (self/this calls, an "
            "inferred receiver type or a receiver named like a project object): a subclass "
            "override or another target may run instead"
        )
    if possible_unresolved_callers:
        reasons.append(
            f"{possible_unresolved_callers} unresolved call site(s) elsewhere use a start "
            "symbol's name and may be callers"
        )
    hidden = len(walk.hidden_external)
    if hidden and not include_external and hidden_matters:
        reasons.append(f"{hidden} external node(s) hidden (pass --all to show them)")
    return {
        "complete": not reasons,
        "reasons": reasons,
        "unresolved_calls": unresolved,
        "external_calls": external,
        "ambiguous_calls": ambiguous,
        "dynamic_dispatch_calls": dynamic,
        "possible_unresolved_callers": possible_unresolved_callers,
        "hidden_external_nodes": hidden if not include_external else 0,
        "truncated_nodes": walk.dropped,
        "edge_types": list(kinds),
    }
