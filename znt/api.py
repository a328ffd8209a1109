"""The one public function layer. The CLI and the MCP server both call these functions and
only render what they return; nothing a front end shows is computed anywhere else.

Every function takes plain arguments, returns a JSON-ready ``dict`` (``schema_version``
included) and raises ``znt.errors.ZntError`` subclasses for anything the user can fix.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from znt.errors import IndexStale, NotFound, UsageError
from znt.index import manifest as manifest_mod
from znt.project import Project, find_root, resolve_project

if TYPE_CHECKING:
    from znt.index.embed import TextKind

SCHEMA_VERSION = 1


def _doc(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"schema_version": SCHEMA_VERSION, "kind": kind, **body}


# -- scan --------------------------------------------------------------------------------


def scan(
    path: str | None = None,
    *,
    language: str | None = None,
    restart: bool = False,
    dry_run: bool = False,
    no_embed: bool = False,
    progress: Any = None,
    notice: Any = None,
) -> dict[str, Any]:
    """Index ``path`` (default: the current project) incrementally, then embed what is new
    with the configured provider (none with ``no_embed``)."""
    from znt.config import load_provider_config
    from znt.index.scan import Scanner

    project = resolve_project(path, exact=path is not None)
    embed = None if no_embed or dry_run else load_provider_config(notice)
    scanner = Scanner(
        project,
        language=language,
        restart=restart,
        progress=progress,
        notice=notice,
        embed=embed,
    )
    result = scanner.dry_run() if dry_run else scanner.run()
    return _doc("scan", result.to_dict())


# -- status ------------------------------------------------------------------------------


def _scanning(project: Project) -> bool:
    """True while another process holds the scan lock (the original's ``Scanning`` state)."""
    try:
        fd = os.open(project.scan_lock_path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def _watch_state(project: Project) -> dict[str, Any] | None:
    """The ``znt scan --watch`` process of this project, if one is alive (its pid file in
    ``.znt/``; a file left by a dead process is reported stale and ignored)."""
    from znt.index.watch import read_state

    return read_state(project)


def _status_state(project: Project, root: Path | None) -> str:
    """The original's states: ``Scanning`` while a scan holds the lock, ``Monitoring`` while
    a live watcher keeps the index fresh, ``Idle`` otherwise."""
    if root is None:
        return "Idle"
    if _scanning(project):
        return "Scanning"
    state = _watch_state(project)
    return "Monitoring" if state and state.get("alive") else "Idle"


def freshness(project: Project, *, check_files: bool) -> dict[str, Any]:
    """How fresh the index is: the last scan, the commit it saw, and (with ``check_files``)
    how many files changed since. Uses the manifest and ``stat`` only: no hashing."""
    from znt.gitinfo import head_commit

    man = manifest_mod.load(project.manifest_path) if check_files else None
    last = (man.last_scan if man else None) or manifest_mod.last_scan(project.manifest_path) or {}
    head = head_commit(project.root)
    out: dict[str, Any] = {
        "last_scan_at": last.get("at"),
        "index_commit": last.get("index_commit"),
        "head_commit": head,
        "commit_changed": bool(
            head and last.get("index_commit") and head != last.get("index_commit")
        ),
    }
    if check_files and man is not None:
        from znt.index.walk import walk
        from znt.settings import load_settings

        found = walk(project.root, load_settings(project.root))
        changed = sum(
            1
            for p, e in found.files.items()
            if p in man.files and man.files[p][:2] != (e.size, e.mtime_ns)
        )
        added = sum(1 for p in found.files if p not in man.files)
        deleted = sum(1 for p in man.files if p not in found.files)
        out.update(
            {
                "files_changed": changed,
                "files_added": added,
                "files_deleted": deleted,
                "stale": bool(changed or added or deleted),
            }
        )
    elif check_files:
        out["stale"] = None
    return out


def use_read_copies(on: bool = True, *, wait_for: str | None = None) -> bool:
    """Answer reads in this process from private copies of the index (what ``znt mcp``
    does; znt/index/readcopy.py): for a long-lived process that makes many calls. With
    ``wait_for`` (a project path), block until that project's copy is ready; the result says
    whether it is (always True without ``wait_for``)."""
    from znt.index import readcopy

    readcopy.enable(on)
    if not on or wait_for is None:
        return True
    project = resolve_project(wait_for)
    return readcopy.wait(project.index_path)


def status(path: str | None = None) -> dict[str, Any]:
    """Coverage of ``path`` by an index, the index's counts, its last scan and staleness."""
    requested = Path(path or os.environ.get("ZNT_PROJECT_ROOT") or os.getcwd()).expanduser()
    if not requested.exists():
        raise UsageError(f"path does not exist: {requested}")
    requested = requested.resolve()
    root = find_root(requested)
    project = Project(root or requested)
    coverage = "none" if root is None else ("exact" if root == requested else "ancestor")
    stats = {
        "files": 0,
        "declarations": 0,
        "functions": 0,
        "members": 0,
        "dependencies": 0,
        "edges": 0,
    }
    index_exists = project.index_path.exists()
    if index_exists:
        from znt.index import store

        with store.open_index(project.index_path, read_only=True) as con:
            files_row = con.execute("SELECT count(*) FROM files").fetchone()
            stats["files"] = int(files_row[0]) if files_row else 0
            for typ, n in con.execute(
                "SELECT type, count(*) FROM symbols GROUP BY type "
                "UNION ALL SELECT 'dependency', count(*) FROM externals WHERE type = 'dependency'"
            ).fetchall():
                key = {
                    "declaration": "declarations",
                    "function": "functions",
                    "member": "members",
                    "dependency": "dependencies",
                }.get(typ)
                if key:
                    stats[key] = int(n)
            edges_row = con.execute("SELECT count(*) FROM edges").fetchone()
            stats["edges"] = int(edges_row[0]) if edges_row else 0
    man = manifest_mod.load(project.manifest_path)
    body: dict[str, Any] = {
        "requested_path": str(requested),
        "project_root": str(project.root) if root else None,
        "coverage": coverage,
        "has_index": index_exists and stats["files"] > 0,
        "status": _status_state(project, root),
        "watch": _watch_state(project) if root else None,
        "stats": stats,
        "scan": man.last_scan if man else {},
        "freshness": freshness(project, check_files=True) if index_exists else None,
    }
    return _doc("status", body)


# -- outline -----------------------------------------------------------------------------


def _project_for_read(project_path: str | None) -> Project:
    project = resolve_project(project_path)
    if not project.index_path.exists():
        from znt.errors import IndexMissing

        raise IndexMissing(f"no index for {project.root}; run `znt scan` first")
    return project


def _relative_path(project: Project, file: str) -> str:
    """A user-given path as the index names it (relative to the root, forward slashes).

    Absolute paths and paths relative to the current directory are accepted when they lie
    inside the project; anything that escapes it is refused."""
    p = Path(file).expanduser()
    candidates = [p] if p.is_absolute() else [Path.cwd() / p, project.root / p]
    for cand in candidates:
        try:
            resolved = cand.resolve()
        except OSError:
            continue
        try:
            rel = resolved.relative_to(project.root)
        except ValueError:
            continue
        if cand.exists() or cand is candidates[-1]:
            return rel.as_posix()
    raise UsageError(f"{file} is outside the project {project.root}")


def outline(file: str, *, code: bool = False, project_path: str | None = None) -> dict[str, Any]:
    """The file's top-level non-member symbols in line order (the original's file outline)."""
    from znt.index import store

    project = _project_for_read(project_path)
    rel = _relative_path(project, file)
    with store.open_index(project.index_path, read_only=True) as con:
        frow = con.execute(
            "SELECT path, language, size, mtime_ns, lines, status FROM files WHERE path = ?", [rel]
        ).fetchone()
        if frow is None:
            paths = [r[0] for r in con.execute("SELECT path FROM files").fetchall()]
            raise NotFound(
                f"file not found in the index: {rel}",
                file_path=rel,
                suggestions=_close_paths(rel, paths),
            )
        rows = con.execute(
            """
            SELECT id, name, qualified_name, type, kind, role, start_line, end_line,
                   start_byte, end_byte, signature, doc
            FROM symbols
            WHERE file = ? AND parent_id = ? AND type <> 'member'
            ORDER BY start_line, start_byte
            """,
            [rel, rel],
        ).fetchall()
    symbols = []
    source: bytes | None = None
    if code:
        try:
            source = (project.root / rel).read_bytes()
        except OSError:
            source = None
    for r in rows:
        item: dict[str, Any] = {
            "id": r[0],
            "name": r[1],
            "qualified_name": r[2],
            "type": r[3],
            "kind": r[4],
            "role": r[5],
            "start_line": r[6],
            "end_line": r[7],
            "signature": r[10] or "",
            "doc": r[11] or "",
        }
        if code and source is not None:
            item["code"] = source[r[8] : r[9]].decode("utf-8", "replace")
        symbols.append(item)
    try:
        st = (project.root / rel).stat()
        stale = (st.st_size, st.st_mtime_ns) != (frow[2], frow[3])
    except OSError:
        stale = True
    return _doc(
        "outline",
        {
            "file": rel,
            "language": frow[1],
            "lines": frow[4],
            "total_symbols": len(symbols),
            "symbols": symbols,
            "file_changed_since_scan": stale,
            "freshness": freshness(project, check_files=False),
        },
    )


def _close_paths(rel: str, paths: list[str], n: int = 5) -> list[str]:
    base = rel.rsplit("/", 1)[-1]
    same_name = [p for p in paths if p.rsplit("/", 1)[-1] == base]
    import difflib

    close = difflib.get_close_matches(rel, paths, n=n, cutoff=0.5)
    out: list[str] = []
    for p in [*same_name, *close]:
        if p not in out:
            out.append(p)
    return out[:n]


# -- stats -------------------------------------------------------------------------------


def _count(con: Any, sql: str) -> int:
    row = con.execute(sql).fetchone()
    return int(row[0]) if row else 0


# ``refs`` kinds that are facts for the resolver, not references in the code: what a Python
# function returns, what a JavaScript/TypeScript file exports, a C/C++ prototype.
_RESOLVER_FACTS = "'returns', 'exports', 'declares'"


def stats(*, project_path: str | None = None) -> dict[str, Any]:
    """Counts by type, kind, language, edge kind and resolution; index size on disk."""
    from znt.index import store

    project = _project_for_read(project_path)

    def grouped(con: Any, sql: str) -> dict[str, int]:
        return {str(k): int(v) for k, v in con.execute(sql).fetchall()}

    with store.open_index(project.index_path, read_only=True) as con:
        body = {
            "files": {
                "total": sum(
                    grouped(con, "SELECT language, count(*) FROM files GROUP BY 1").values()
                ),
                "by_language": grouped(
                    con, "SELECT language, count(*) FROM files GROUP BY 1 ORDER BY 2 DESC"
                ),
                "by_status": grouped(
                    con, "SELECT status, count(*) FROM files GROUP BY 1 ORDER BY 2 DESC"
                ),
                "lines": int(
                    (con.execute("SELECT coalesce(sum(lines), 0) FROM files").fetchone() or [0])[0]
                ),
            },
            "symbols": {
                "total": int((con.execute("SELECT count(*) FROM symbols").fetchone() or [0])[0]),
                "by_type": grouped(
                    con,
                    "SELECT type, count(*) FROM symbols GROUP BY 1 ORDER BY 2 DESC",
                ),
                "by_kind": grouped(
                    con,
                    "SELECT kind, count(*) FROM symbols GROUP BY 1 ORDER BY 2 DESC",
                ),
                "by_language": grouped(
                    con,
                    "SELECT language, count(*) FROM symbols GROUP BY 1 ORDER BY 2 DESC",
                ),
                "by_role": grouped(
                    con,
                    "SELECT role, count(*) FROM symbols GROUP BY 1 ORDER BY 2 DESC",
                ),
                "external": int(
                    (con.execute("SELECT count(*) FROM externals").fetchone() or [0])[0]
                ),
            },
            "edges": {
                "total": int((con.execute("SELECT count(*) FROM edges").fetchone() or [0])[0]),
                "by_kind": grouped(
                    con, "SELECT kind, count(*) FROM edges GROUP BY 1 ORDER BY 2 DESC"
                ),
                "by_resolution": grouped(
                    con, "SELECT resolution, count(*) FROM edges GROUP BY 1 ORDER BY 2 DESC"
                ),
            },
            "references": {
                "total": _count(
                    con, f"SELECT count(*) FROM refs WHERE kind NOT IN ({_RESOLVER_FACTS})"
                ),
            },
        }
    size = 0
    for p in (project.index_path, project.index_path.with_name("index.duckdb.wal")):
        with contextlib.suppress(OSError):
            size += p.stat().st_size
    body["index"] = {"path": str(project.index_path), "bytes": size}
    body["freshness"] = freshness(project, check_files=False)
    body["mcp"] = _mcp_usage(project)
    return _doc("stats", body)


def _mcp_usage(project: Project) -> dict[str, Any]:
    """Usage of ``znt mcp`` on this project, from its JSONL metrics (znt/mcp/metrics.py;
    the MCP SDK is not imported)."""
    from znt.mcp import metrics

    return metrics.summarize(metrics.metrics_path(project.root))


# -- logs --------------------------------------------------------------------------------


def logs(
    *, stream_id: str | None = None, after_id: int | None = None, project_path: str | None = None
) -> dict[str, Any]:
    """The last 100 scan log entries, with the original's ``stream_id``/``after_id`` cursor."""
    from znt.index.log import ScanLog

    if (stream_id is None) != (after_id is None):
        raise UsageError("stream_id and after_id must be given together")
    if after_id is not None and not (0 <= after_id <= 9007199254740991):
        raise UsageError("after_id must be an integer between 0 and 9007199254740991")
    project = resolve_project(project_path)
    return _doc("logs", ScanLog(project.log_path).read(stream_id, after_id))


# -- search ------------------------------------------------------------------------------

SEARCH_MODES = ("hybrid", "lexical", "vector")
MAX_RELATION_DEPTH = 5
RELATION_FANOUT = 10


def search(
    query: str,
    *,
    mode: str = "hybrid",
    limit: int = 10,
    offset: int = 0,
    type: str | None = None,
    role: str | None = None,
    path: str | None = None,
    compact: bool = False,
    code: bool = False,
    max_code_lines: int = 30,
    callers: int = 0,
    callees: int = 0,
    max_tokens: int | None = None,
    project_path: str | None = None,
) -> dict[str, Any]:
    """Ranked symbols for ``query`` (the original's semantic search).

    ``type``/``role`` are soft boosts (+4 on the 0..10 score), ``path`` a glob filter;
    lexical mode falls back to vectors when it finds nothing; hybrid fuses both lists (see
    znt/index/search.py). ``callers``/``callees`` attach call trees of that depth unless
    ``compact``. Results are bounded by ``limit``/``offset`` and ``max_tokens``."""
    from znt.index import lexical, store
    from znt.index import search as ranking

    query = (query or "").strip()
    if not query:
        raise UsageError("the query is empty")
    if mode not in SEARCH_MODES:
        raise UsageError(f"unknown mode {mode!r}; choose one of {', '.join(SEARCH_MODES)}")
    if not 1 <= limit <= 1000:
        raise UsageError("limit must be between 1 and 1000")
    if offset < 0:
        raise UsageError("offset must be 0 or more")
    for name, depth in (("callers", callers), ("callees", callees)):
        if not 0 <= depth <= MAX_RELATION_DEPTH:
            raise UsageError(f"{name} must be between 0 and {MAX_RELATION_DEPTH}")
    if max_code_lines < 1:
        raise UsageError("max_code_lines must be 1 or more")
    if max_tokens is not None and max_tokens < 1:
        raise UsageError("max_tokens must be 1 or more")
    project = _project_for_read(project_path)
    path_regex = ranking.glob_regex(path) if path else None
    pool = max(100, (offset + limit) * 5)
    warnings: list[str] = []
    used = mode
    with store.open_index(project.index_path, read_only=True) as con:
        meta = store.get_meta(con)
        lex: list[tuple[str, float]] = []
        vec: list[tuple[str, float]] = []
        facts: dict[str, lexical.DocFacts] = {}
        if mode in ("lexical", "hybrid"):
            lex = lexical.rank(con, query, pool, path_regex, facts)
        if mode in ("vector", "hybrid") or (mode == "lexical" and not lex):
            vector, why = _query_vector(con, meta, query)
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
            if demote_secondary and c_file and ranking.secondary_path(c_file):
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
    if code:
        _attach_code(project, results, max_code_lines)
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
    body: dict[str, Any] = {
        "query": query,
        "mode": mode,
        "answered_by": used,
        "results": results,
        "offset": offset,
        "limit": limit,
        "total_candidates": total,
        "truncated": truncated,
        "warnings": warnings,
        "freshness": freshness(project, check_files=False),
    }
    if truncated:
        body["next_offset"] = offset + len(results)
    return _doc("search", body)


def _query_vector(con: Any, meta: dict[str, str], query: str) -> tuple[Any, str]:
    """The query's vector from the provider the index was embedded with, or why not."""
    vectors, why = _index_vectors(con, meta, [query], "query")
    return (vectors[0] if vectors else None), why


def _index_vectors(
    con: Any, meta: dict[str, str], texts: list[str], purpose: TextKind
) -> tuple[list[list[float]] | None, str]:
    """Vectors for ``texts`` from the provider the index was embedded with (``purpose``
    "query" for a search, "document" for code compared with indexed code), or why not: the
    index has none, the configured provider differs from the index's, the provider failed,
    or it answered with another dimension."""
    from znt.config import load_provider_config
    from znt.index import store
    from znt.index.embed import ProviderError, make_embedder
    from znt.index.embed.stage import configured_name, has_embeddings

    if not meta.get("embed_model"):
        return None, "the index has no embeddings (run `znt scan` with a provider; see `znt setup`)"
    copy = store.read_copy(con)
    if not (copy is not None and copy.vectors is not None) and not has_embeddings(con):
        return None, "the index has no embeddings"
    config = load_provider_config()
    if config.mode == "bm25":
        return None, "the configured provider is bm25"
    if configured_name(config) != meta["embed_model"]:
        return None, (
            f"the index was embedded with {meta['embed_model']}, the configured provider is "
            f"{configured_name(config)}; run `znt scan` to re-embed"
        )
    try:
        embedder = make_embedder(config)
        if embedder is None:
            return None, "no embedder"
        vectors = [[float(x) for x in v] for v in embedder.embed(texts, purpose)]
    except ProviderError as exc:
        return None, exc.message
    dim = int(meta.get("embed_dim") or 0)
    for v in vectors:
        if len(v) != dim:
            return None, f"the provider returned {len(v)} dimensions, the index holds {dim}"
    return vectors, ""


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
    if copy:  # the copy's uncompressed cards (traverse.READ_COPY_TABLES)
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
    """Search's view of the symbols ``ids``: their stored cards (lexical.search_card), found
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


def _attach_code(project: Project, results: list[dict[str, Any]], max_lines: int) -> None:
    cache: dict[str, list[str] | None] = {}
    for item in results:
        f = item["file"]
        if f not in cache:
            try:
                cache[f] = (project.root / f).read_text("utf-8", "replace").splitlines()
            except OSError:
                cache[f] = None
        lines = cache[f]
        if lines is None or not item.get("start_line"):
            continue
        start, end = int(item["start_line"]), int(item["end_line"] or item["start_line"])
        chunk = lines[start - 1 : min(end, start - 1 + max_lines)]
        item["code"] = "\n".join(chunk)
        if end - start + 1 > max_lines:
            item["code_truncated"] = True


# -- setup ---------------------------------------------------------------------------------


def setup(
    mode: str | None = None,
    *,
    model: str | None = None,
    url: str | None = None,
    token_env: str | None = None,
    token_stdin: bool = False,
    read_secret: Any = None,
    check_provider: bool = False,
) -> dict[str, Any]:
    """Without ``mode``: the provider state and recommendations, writing nothing. With
    ``mode``: write the managed config (never a ``ZNT_CONFIG`` file). No key is accepted as an
    argument: ``token_stdin`` reads it with ``read_secret`` and stores it in the OS keyring."""
    from znt import setup as setup_mod

    if mode is None:
        if model or url or token_env or token_stdin:
            raise UsageError("--model, --url, --token-env and --token-stdin need --mode")
        body = setup_mod.show()
        if check_provider:
            from znt.config import load_config

            body["provider_check"] = setup_mod.probe(load_config().provider)
        return _doc("setup", body)
    return _doc(
        "setup",
        setup_mod.configure(
            mode,
            model=model,
            url=url,
            token_env=token_env,
            token_stdin=token_stdin,
            read_secret=read_secret,
            check_provider=check_provider,
        ),
    )


def setup_status(*, check_provider: bool = False) -> dict[str, Any]:
    """Config, key presence (yes/no, never the key) and, with ``check_provider``, a probe of
    the endpoint: ok or the error, dimension, latency."""
    from znt import setup as setup_mod

    return _doc("setup_status", setup_mod.status(check_provider))


# -- graph ---------------------------------------------------------------------------------


def graph(
    from_: str,
    *,
    to: str | None = None,
    depth: int = 1,
    direction: str = "both",
    edge_types: str | list[str] | None = None,
    include_external: bool = False,
    max_nodes: int = 50,
    project_path: str | None = None,
) -> dict[str, Any]:
    """The neighbourhood of FROM (``depth`` BFS levels over ``edge_types``, ``direction``
    down = callees, up = callers) or, with ``to``, the shortest call paths FROM -> TO.

    Only the edges the question reaches are read (one query per level; see
    znt/graph/traverse.py). ``found`` is false when a path was asked for and none exists
    (exit 1). The answer says whether it is complete or a lower bound, and why."""
    from znt.graph import traverse as tv
    from znt.index import store

    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise UsageError("depth must be an integer >= 1", depth=depth)
    if isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 1:
        raise UsageError("max_nodes must be an integer >= 1", max_nodes=max_nodes)
    direction = (direction or "both").strip().lower()
    if direction not in tv.DIRECTIONS:
        raise UsageError(
            f"direction must be one of {', '.join(tv.DIRECTIONS)}", direction=direction
        )
    kinds = tv.parse_edge_types(edge_types)
    proj = _project_for_read(project_path)
    warnings: list[str] = []
    paths: list[list[str]] = []
    direction_used = direction
    with store.open_index(proj.index_path, read_only=True) as con:
        indexed, meta = tv.index_state(con, ("last_scan_at", "index_commit"))
        start = tv.resolve(con, from_, proj.root, what="FROM", indexed=indexed)
        target = (
            tv.resolve(con, to, proj.root, what="TO", indexed=indexed) if to is not None else None
        )
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

    head = head_commit(proj.root)
    scanned = meta.get("last_scan_at")
    index_commit = meta.get("index_commit") or None
    body: dict[str, Any] = {
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
                "type": k,
                "confidence": info.confidence,
                "resolution": info.resolution,
            }
            for (s, t, k), info in edges
        ],
        "truncated": walk.truncated,
        "warnings": warnings,
        "completeness": completeness,
        "freshness": {
            "last_scan_at": float(scanned) if scanned else None,
            "index_commit": index_commit,
            "head_commit": head,
            "commit_changed": bool(head and index_commit and head != index_commit),
        },
        "stats": {"queries": walk.queries, "levels": walk.levels},
    }
    if target is not None:
        body["paths"] = paths
        body["path_length"] = len(paths[0]) - 1 if paths else None
        body["direction_used"] = direction_used
        path_warnings = [w for w in warnings if "longer than --depth" in w]
        if path_warnings:
            body["warning"] = path_warnings[0]
    return _doc("graph", body)


# -- similar -------------------------------------------------------------------------------


def similar(
    target: str | None = None,
    *,
    query: str | None = None,
    snippet: str | None = None,
    snippet_language: str | None = None,
    limit: int = 10,
    offset: int = 0,
    edge_types: str | list[str] | None = None,
    type: str | None = None,
    role: str | None = None,
    path: str | None = None,
    code: bool = False,
    max_code_lines: int = 30,
    project_path: str | None = None,
) -> dict[str, Any]:
    """Analogues and near-duplicates of an indexed symbol (``target``), of code that is not
    in the index (``snippet``, its text) or of a description (``query``): 0.6 x vector
    cosine + 0.3 x Jaccard of call-graph neighbours + 0.1 x role/kind agreement, 0..1.

    Parts that cannot be computed are left out and the others re-weighted (see
    znt/graph/similar.py); the answer says so in ``warnings``. ``type``/``role`` are soft
    boosts (they set what the role/kind part agrees with), ``path`` a glob filter."""
    from znt.graph import similar as sim
    from znt.graph import traverse as tv
    from znt.index import search as ranking
    from znt.index import store

    given = [
        n for n, v in (("target", target), ("query", query), ("snippet", snippet)) if v is not None
    ]
    if len(given) != 1:
        raise UsageError(
            "give exactly one of TARGET, --query or --snippet"
            + (f" (got {', '.join(given)})" if given else "")
        )
    if not (target or query or snippet or "").strip():
        raise UsageError(f"the {given[0]} is empty")
    if not 1 <= limit <= 1000:
        raise UsageError("limit must be between 1 and 1000")
    if offset < 0:
        raise UsageError("offset must be 0 or more")
    if max_code_lines < 1:
        raise UsageError("max_code_lines must be 1 or more")
    kinds = tv.parse_edge_types(edge_types)
    language = None
    if snippet is not None:
        from znt.index.languages import get_language, language_names

        language = (snippet_language or "python").strip().lower()
        try:
            get_language(language)
        except KeyError:
            raise UsageError(
                f"unknown snippet language {language!r}; choose one of "
                + ", ".join(language_names()),
                language=language,
            ) from None
    project = _project_for_read(project_path)
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
                    + _similar_no_vector_reason(con, meta, ref)
                    + "; ranked by the call-graph and role/kind parts alone"
                )
            body_target = {**match.to_dict(), "symbol": ref.info}
        elif snippet is not None:
            assert language is not None
            facts = sim.parse_snippet(snippet, language, kinds)
            ref = sim.snippet_reference(facts, snippet)
            vectors, why = _index_vectors(con, meta, facts.texts, "document")
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
            vector, why = _query_vector(con, meta, query.strip())
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
                "similarity_reason": s.reason,
                **counts[s.id],
            }
        )
    if code:
        _attach_code(project, results, max_code_lines)
    truncated = offset + len(results) < total
    body: dict[str, Any] = {
        "mode": ref.mode,
        "target": body_target,
        "edge_types": kinds,
        "weights": found.weights,
        "vectors": ref.vectors is not None,
        "candidate_sources": found.sources,
        "results": results,
        "offset": offset,
        "limit": limit,
        "total_candidates": total,
        "truncated": truncated,
        "warnings": warnings,
        "freshness": freshness(project, check_files=False),
    }
    if truncated:
        body["next_offset"] = offset + len(results)
    return _doc("similar", body)


def _similar_no_vector_reason(con: Any, meta: dict[str, str], ref: Any) -> str:
    from znt.index.embed.stage import has_embeddings

    if not meta.get("embed_model") or not has_embeddings(con):
        return "the index has no embeddings (bm25 provider or `znt scan --no-embed`)"
    return f"{ref.label} has no stored vector ({ref.type or 'its type'} symbols are not embedded)"


# -- check ---------------------------------------------------------------------------------

CHECK_STALE_POLICIES = ("warn", "ignore", "error")


def check(
    *,
    rules_file: str | None = None,
    baseline: str | None = None,
    stale_policy: str = "warn",
    project_path: str | None = None,
) -> dict[str, Any]:
    """Evaluate the project's architecture rules (``check:`` in znt.yaml, or ``rules_file``)
    over the index (docs/check.md). ``passed`` is false when a rule of severity error has a
    violation (the CLI exits 1). With ``baseline`` (a git ref) only violations whose key the
    ref's code does not have are reported; the ref is indexed once in a temporary worktree
    and kept as a snapshot under ``.znt/baselines/``."""
    from znt.graph import rules as rules_mod
    from znt.index import store

    if stale_policy not in CHECK_STALE_POLICIES:
        raise UsageError(
            f"stale_policy must be one of {', '.join(CHECK_STALE_POLICIES)}",
            stale_policy=stale_policy,
        )
    project = _project_for_read(project_path)
    config = _check_config(project, rules_file)
    fresh = freshness(project, check_files=True)
    warnings: list[str] = []
    if fresh.get("stale") and stale_policy != "ignore":
        msg = (
            f"the index is older than the working tree ({fresh.get('files_changed', 0)} changed, "
            f"{fresh.get('files_added', 0)} added, {fresh.get('files_deleted', 0)} deleted "
            "files since the last scan); run `znt scan` first"
        )
        if stale_policy == "error":
            raise IndexStale(msg, freshness=fresh)
        warnings.append(msg)
    with store.open_index(project.index_path, read_only=True) as con:
        data = rules_mod.fetch(con)
    violations = rules_mod.evaluate(config, data)
    base_info: dict[str, Any] | None = None
    if baseline is not None:
        commit, snapshot, reused = _check_baseline_index(project, baseline)
        with store.open_index(snapshot, read_only=True) as con:
            old = rules_mod.evaluate(config, rules_mod.fetch(con))
        violations, known = rules_mod.new_since(violations, old)
        base_info = {
            "ref": baseline,
            "commit": commit,
            "known_violations": known,
            "baseline_violations": len(old),
            "snapshot_reused": reused,
        }
    counts = {rule.id: 0 for rule in config.rules}
    for v in violations:
        counts[v["rule"]] += 1
    rules_out = [{**rule.to_dict(), "violations": counts[rule.id]} for rule in config.rules]
    errors = sum(1 for v in violations if v["severity"] == "error")
    return _doc(
        "check",
        {
            "project_root": str(project.root),
            "rules_file": config.source,
            "passed": errors == 0,
            "summary": {
                "rules": len(config.rules),
                "violations": len(violations),
                "errors": errors,
                "warnings": len(violations) - errors,
                "edges_checked": len(data.edges),
            },
            "rules": rules_out,
            "violations": violations,
            "baseline": base_info,
            "warnings": warnings,
            "freshness": fresh,
        },
    )


def _check_config(project: Project, rules_file: str | None) -> Any:
    """The validated ``check:`` section of ``rules_file`` or of the project's znt.yaml."""
    from znt.graph import rules as rules_mod
    from znt.settings import read_check_section

    if rules_file is not None:
        path = Path(rules_file).expanduser()
        if not path.is_absolute() and not path.exists():
            path = project.root / rules_file
        if not path.is_file():
            raise UsageError(f"rules file not found: {rules_file}")
    else:
        path = project.config_path
        if not path.is_file():
            raise UsageError(
                f"no {path.name} at {project.root}: add a 'check:' section with rules "
                "(see docs/check.md) or pass --rules FILE"
            )
    raw = read_check_section(path)
    if raw is None:
        raise UsageError(f"{path.name} has no 'check:' section (see docs/check.md)")
    try:
        source = path.resolve().relative_to(project.root).as_posix()
    except ValueError:
        source = str(path)
    return rules_mod.parse_config(raw, source)


def _check_git(root: Path, *args: str) -> str:
    import subprocess

    try:
        proc = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "GIT_TERMINAL_PROMPT": "0"},
        )
    except FileNotFoundError:
        raise UsageError("--baseline needs git on PATH") from None
    if proc.returncode != 0:
        raise UsageError(
            f"git {' '.join(args)} failed: {proc.stderr.strip() or proc.stdout.strip()}"
        )
    return proc.stdout.strip()


def _check_baseline_index(project: Project, ref: str) -> tuple[str, Path, bool]:
    """An index of ``ref``'s tree: the snapshot ``.znt/baselines/<commit>-s<schema>-<version>
    .duckdb`` when one exists, else a scan (no embeddings) of a temporary ``git worktree``
    of that commit, kept as the snapshot for the next run. Returns (commit, path, reused)."""
    import shutil
    import tempfile

    from znt import __version__
    from znt.errors import IndexIncompatible
    from znt.index import store

    if ref.startswith("-"):
        raise UsageError(f"not a git ref: {ref}")
    try:
        commit = _check_git(project.root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    except UsageError:
        raise UsageError(f"--baseline: unknown git ref {ref!r}", ref=ref) from None
    top = Path(_check_git(project.root, "rev-parse", "--show-toplevel")).resolve()
    sub = project.root.relative_to(top) if project.root != top else Path()
    folder = project.znt_dir / "baselines"
    snapshot = folder / f"{commit}-s{store.SCHEMA_VERSION}-{__version__}.duckdb"
    if snapshot.is_file():
        try:
            with store.open_index(snapshot, read_only=True):
                return commit, snapshot, True
        except IndexIncompatible:
            snapshot.unlink(missing_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="znt-baseline-"))
    tree = tmp / "tree"
    try:
        _check_git(project.root, "worktree", "add", "--detach", "--quiet", str(tree), commit)
        try:
            target = tree / sub
            if not target.is_dir():
                raise UsageError(f"{sub.as_posix()} does not exist at {ref}")
            scan(str(target), no_embed=True)
            folder.mkdir(parents=True, exist_ok=True)
            part = snapshot.with_suffix(f".{os.getpid()}.tmp")
            shutil.copyfile(target / ".znt" / "index.duckdb", part)
            os.replace(part, snapshot)  # atomic: a concurrent check sees all or nothing
        finally:
            with contextlib.suppress(UsageError):
                _check_git(project.root, "worktree", "remove", "--force", str(tree))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        with contextlib.suppress(UsageError):
            _check_git(project.root, "worktree", "prune")
    return commit, snapshot, False


# -- sql -----------------------------------------------------------------------------------

# Table functions that would read outside the index (files, globs, other databases) and
# settings/side-effect functions. The connection also runs with enable_external_access
# off, so this list is the clear error message, not the only guard.
_SQL_BLOCKED_FUNCTIONS = (
    r"\b(read_\w+|parquet_\w+|glob|sniff_csv|csv_scan|json_scan|iceberg_\w+|delta_scan|"
    r"sqlite_\w+|postgres_\w+|mysql_\w+|httpfs_\w+|getenv|checkpoint|force_checkpoint|"
    r"install_extension|load_extension|query|query_table)\s*\("
)
SQL_MAX_LIMIT = 100_000


def _sql_strip(query: str) -> str:
    """``query`` without string literals, quoted identifiers and comments, for the function
    check (a name inside a string is data, not a call)."""
    out = []
    i, n = 0, len(query)
    while i < n:
        c = query[i]
        if c in "'\"":
            j = i + 1
            while j < n:
                if query[j] == c:
                    if j + 1 < n and query[j + 1] == c:
                        j += 2
                        continue
                    break
                j += 1
            out.append(" '' " if c == "'" else ' "" ')
            i = j + 1
        elif query.startswith("--", i):
            j = query.find("\n", i)
            i = n if j < 0 else j
        elif query.startswith("/*", i):
            j = query.find("*/", i + 2)
            i = n if j < 0 else j + 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _sql_guard(query: str) -> str:
    """Accept one read statement (SELECT, WITH … SELECT, FROM …, VALUES, DESCRIBE, SHOW,
    SUMMARIZE) and nothing else; raise ``UsageError`` (exit 2) before anything runs."""
    import re

    import duckdb

    text = (query or "").strip()
    if not text:
        raise UsageError("the query is empty")
    try:
        statements = duckdb.extract_statements(text)
    except duckdb.Error as exc:
        raise UsageError(f"SQL error: {exc}") from None
    if len(statements) != 1:
        raise UsageError(
            f"znt sql runs exactly one statement, got {len(statements)}",
            statements=len(statements),
        )
    kind = statements[0].type
    if kind != duckdb.StatementType.SELECT:
        name = str(kind).rsplit(".", 1)[-1]
        raise UsageError(
            f"znt sql is read-only: {name} statements are refused; only SELECT (WITH, FROM, "
            "VALUES, DESCRIBE, SHOW, SUMMARIZE) over the index tables (docs/data-model.md)",
            statement=name,
        )
    hit = re.search(_SQL_BLOCKED_FUNCTIONS, _sql_strip(text), re.IGNORECASE)
    if hit:
        raise UsageError(
            f"znt sql only reads the index: the function {hit.group(1)}() is refused "
            "(no file, network or other-database access; docs/sql.md)",
            function=hit.group(1),
        )
    return text


def _sql_value(value: Any) -> Any:
    """A DuckDB value as JSON-ready data (dates, decimals, UUIDs, bytes become strings)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_sql_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _sql_value(v) for k, v in value.items()}
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    return str(value)


def _sql_connect(path: Path) -> Any:
    """A DuckDB instance of its own for the user's query: the index opened read-only, with
    external access off and the configuration locked from the start (not the process's
    shared reader, whose settings other operations rely on). Retries while another process
    holds a conflicting lock, like every other open (znt/index/store.py)."""
    import random
    import time

    import duckdb

    from znt.errors import Busy
    from znt.index import store

    config: dict[str, str | bool | int | float | list[str]] = {
        "enable_external_access": False,
        "lock_configuration": True,
        "threads": 2,
    }
    deadline = time.monotonic() + store.lock_timeout()
    delay = 0.01
    while True:
        try:
            return duckdb.connect(str(path), read_only=True, config=config)
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower():
                raise
            if time.monotonic() >= deadline:
                raise Busy(
                    "the index is locked by another znt process; try again when it finishes"
                ) from None
            time.sleep(delay * (1 + random.random()))
            delay = min(delay * 2, 0.25)


def sql(query: str, *, limit: int = 1000, project_path: str | None = None) -> dict[str, Any]:
    """Run one read-only SELECT over the index (docs/sql.md): the file is opened read-only,
    the statement must be a single SELECT, file-reading functions are refused and external
    access is switched off for the connection. At most ``limit`` rows (``truncated`` says
    when more exist)."""
    import duckdb

    from znt.index import store

    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= SQL_MAX_LIMIT:
        raise UsageError(f"limit must be an integer between 1 and {SQL_MAX_LIMIT}", limit=limit)
    text = _sql_guard(query)
    project = _project_for_read(project_path)
    con = _sql_connect(project.index_path)
    try:
        store.check_schema(con)
        try:
            cur = con.execute(text)
            columns = [{"name": d[0], "type": str(d[1])} for d in (cur.description or [])]
            rows = cur.fetchmany(limit + 1)
        except duckdb.PermissionException as exc:
            raise UsageError(f"znt sql only reads the index: {exc}") from None
        except duckdb.Error as exc:
            raise UsageError(f"SQL error: {exc}") from None
    finally:
        con.close()
    truncated = len(rows) > limit
    rows = rows[:limit]
    return _doc(
        "sql",
        {
            "query": text,
            "columns": columns,
            "rows": [[_sql_value(v) for v in r] for r in rows],
            "row_count": len(rows),
            "limit": limit,
            "truncated": truncated,
            "freshness": freshness(project, check_files=False),
        },
    )


# -- impact --------------------------------------------------------------------------------

IMPACT_MAX_NODES = 2000


def impact(
    *,
    staged: bool = False,
    diff: str | None = None,
    paths: list[str] | None = None,
    depth: int = 3,
    project_path: str | None = None,
) -> dict[str, Any]:
    """What a change touches: the symbols whose lines it changes (``git diff -U0`` of the
    staged change, of the working tree against ``diff``, or whole files for ``paths``;
    default: the working tree against HEAD), their transitive callers to ``depth`` levels,
    and the tests among them (role ``test``).

    The changed line ranges are the new side of the diff, mapped onto the symbols' spans in
    the index, so the answer is right when the index has seen the new content: the document
    says which changed files the index is stale for. Callers found through the graph are a
    lower bound (dynamic calls, unresolved names), and the answer says so."""
    from znt.graph import traverse as tv
    from znt.index import store

    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
        raise UsageError("depth must be an integer >= 0", depth=depth)
    chosen = [n for n, on in (("--staged", staged), ("--diff", diff), ("PATH", paths)) if on]
    if len(chosen) > 1:
        raise UsageError(f"give only one of {', '.join(chosen)}")
    proj = _project_for_read(project_path)
    if paths:
        mode, ref = "paths", None
        changes = _impact_path_changes(proj, paths)
    else:
        mode = "staged" if staged else "diff"
        ref = None if staged else (diff or "HEAD")
        changes = _impact_git_changes(proj, staged=staged, ref=ref)
    warnings: list[str] = []
    kinds = list(tv.DEFAULT_EDGE_TYPES)
    with store.open_index(proj.index_path, read_only=True) as con:
        indexed = tv.indexed_columns(con)
        touched: dict[str, list[list[int]]] = {}
        for ch in changes:
            ch["in_index"], ch["index_stale"] = _impact_file_state(proj, con, ch)
            if ch["status"] == "deleted" and not ch["in_index"]:
                continue
            spans = con.execute(
                "SELECT id, type, start_line, end_line FROM symbols WHERE file = ? "
                "ORDER BY start_line, start_byte",
                [ch["path"]],
            ).fetchall()
            hits = _impact_hits(spans, ch["ranges"], ch["path"], whole=ch["whole_file"])
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
            d["changed_lines"] = _impact_merge(touched[i])
        elif i in preds:
            d["via"] = preds[i]
        nodes.append(d)
    edges = [
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
    body: dict[str, Any] = {
        "mode": mode,
        "ref": ref,
        "depth": depth,
        "edge_types": kinds,
        "files": [{k: v for k, v in c.items() if k not in ("whole_file",)} for c in changes],
        "changed": [n for n in nodes if n["start"]],
        "callers": [n for n in nodes if not n["start"]],
        "tests": [n for n in nodes if n.get("role") == "test"],
        "nodes": nodes,
        "edges": edges,
        "truncated": walk.truncated,
        "lower_bound": True,
        "completeness": comp,
        "warnings": warnings,
        "freshness": {**freshness(proj, check_files=False), "stale_files": stale},
    }
    return _doc("impact", body)


def _impact_git(root: Path, *args: str) -> str:
    """``git`` in ``root`` with the options that make its output parseable whatever the
    user's configuration (no pager, colour, external diff, prefixes or path quoting)."""
    import subprocess

    cmd = ["git", "-c", "core.quotePath=false", "-c", "diff.noprefix=false", *args]
    try:
        proc = subprocess.run(
            cmd, cwd=root, capture_output=True, text=True, encoding="utf-8", errors="replace"
        )
    except OSError as exc:
        raise UsageError(f"git is not available: {exc}") from None
    if proc.returncode != 0:
        message = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "git failed"
        if "not a git repository" in proc.stderr:
            raise UsageError(f"{root} is not in a git work tree; name PATHs instead")
        if "unknown revision" in proc.stderr or "bad revision" in proc.stderr:
            raise NotFound(f"git revision not found: {message}")
        raise UsageError(f"git {' '.join(args[:2])} failed: {message}")
    return proc.stdout


def _impact_unquote(path: str) -> str:
    """A path from a diff header, C-quoted by git when it holds special characters."""
    if len(path) >= 2 and path[0] == path[-1] == '"':
        raw = path[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
        return raw.encode("latin-1", "replace").decode("utf-8", "replace")
    return path


def _impact_git_changes(proj: Project, *, staged: bool, ref: str | None) -> list[dict[str, Any]]:
    """Changed files and their new-side line ranges from ``git diff -U0``."""
    top = Path(_impact_git(proj.root, "rev-parse", "--show-toplevel").strip())
    args = ["diff", "-U0", "-M", "--no-color", "--no-ext-diff", "--no-textconv"]
    args += ["--src-prefix=a/", "--dst-prefix=b/"]
    if staged:
        args.append("--cached")
    elif ref:
        try:
            _impact_git(proj.root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
        except UsageError:
            raise NotFound(f"git revision not found: {ref}", ref=ref) from None
        args.append(ref)
    out = _impact_git(proj.root, *args, "--")
    files: list[dict[str, Any]] = []
    cur: dict[str, Any] | None = None
    for line in out.splitlines():
        if line.startswith("diff --git "):
            cur = {"path": None, "old_path": None, "status": "modified", "ranges": []}
            files.append(cur)
        elif cur is None:
            continue
        elif line.startswith("new file mode"):
            cur["status"] = "added"
        elif line.startswith("deleted file mode"):
            cur["status"] = "deleted"
        elif line.startswith("rename from "):
            cur["old_path"] = line[len("rename from ") :]
            cur["status"] = "renamed"
        elif line.startswith("rename to "):
            cur["path"] = line[len("rename to ") :]
        elif line.startswith("--- "):
            old = _impact_unquote(line[4:].rstrip("\t"))
            if old != "/dev/null":
                cur["old_path"] = cur["old_path"] or old[2:]
        elif line.startswith("+++ "):
            new = _impact_unquote(line[4:].rstrip("\t"))
            if new != "/dev/null":
                cur["path"] = new[2:]
        elif line.startswith("@@"):
            cur["ranges"].append(_impact_hunk(line))
        elif line.startswith("Binary files"):
            cur["binary"] = True
    changes = []
    for f in files:
        path = f["path"] or f["old_path"]
        if path is None:
            continue
        rel = _impact_project_path(proj, top / path)
        if rel is None:
            continue
        # A renamed file's symbols have new ids and module path: all of them moved.
        whole = f["status"] in ("added", "renamed") or bool(f.get("binary"))
        changes.append(
            {
                "path": rel,
                "old_path": _impact_project_path(proj, top / f["old_path"])
                if f["old_path"] and f["old_path"] != path
                else None,
                "status": f["status"],
                "ranges": [r for r in f["ranges"] if r is not None],
                "whole_file": whole,
            }
        )
    return changes


def _impact_hunk(header: str) -> list[int] | None:
    """``@@ -a,b +c,d @@`` as the new-side range [c, c+d-1]; a pure deletion (d = 0) as
    [c, c+1]: the lines on both sides of the gap, so only a symbol spanning both (the
    deletion happened inside it) counts as touched."""
    import re

    m = re.match(r"@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", header)
    if not m:
        return None
    start, count = int(m.group(1)), int(m.group(2) or "1")
    if count == 0:
        return [start, start + 1] if start > 0 else [1, 1]
    return [start, start + count - 1]


def _impact_project_path(proj: Project, path: Path) -> str | None:
    try:
        return path.resolve().relative_to(proj.root).as_posix()
    except (OSError, ValueError):
        return None


def _impact_path_changes(proj: Project, paths: list[str]) -> list[dict[str, Any]]:
    """PATHs as whole-file changes (a folder stands for the indexed files under it)."""
    from znt.index import store

    changes: list[dict[str, Any]] = []
    with store.open_index(proj.index_path, read_only=True) as con:
        known = [r[0] for r in con.execute("SELECT path FROM files").fetchall()]
    for p in paths:
        rel = _relative_path(proj, p)
        under = [k for k in known if k == rel or rel in ("", ".") or k.startswith(rel + "/")]
        if not under and not (proj.root / rel).exists():
            raise NotFound(
                f"not in the index and not on disk: {p}",
                file_path=rel,
                suggestions=_close_paths(rel, known),
            )
        for k in under or [rel]:
            status = "modified" if (proj.root / k).exists() else "deleted"
            changes.append(
                {"path": k, "old_path": None, "status": status, "ranges": [], "whole_file": True}
            )
    return changes


def _impact_file_state(proj: Project, con: Any, change: dict[str, Any]) -> tuple[bool, bool]:
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


def _impact_hits(
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
            if _impact_uncovered(part, [c for c in covered if a <= c[0] and c[1] <= b]):
                hits.setdefault(sid, []).append([part[0], part[1]])
            covered.append(part)
        if module and _impact_uncovered((lo, hi), covered):
            hits.setdefault(module, []).append([lo, hi])
    return hits


def _impact_uncovered(part: tuple[int, int], covered: list[tuple[int, int]]) -> bool:
    """True when some line of ``part`` lies outside every interval of ``covered``."""
    nxt = part[0]
    for a, b in sorted(covered):
        if a > nxt:
            return True
        nxt = max(nxt, b + 1)
        if nxt > part[1]:
            return False
    return nxt <= part[1]


def _impact_merge(ranges: list[list[int]]) -> list[list[int]]:
    out: list[list[int]] = []
    for a, b in sorted(ranges):
        if out and a <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out
