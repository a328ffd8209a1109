"""The one public function layer. The CLI and the MCP server both call these functions and
only render what they return; nothing a front end shows is computed anywhere else.

Every function takes plain arguments, checks them, finds the project, calls the feature
module that does the work (``znt/features/``) and returns a typed document (znt/results.py: a
``TypedDict`` per command, which is its JSON form, ``schema_version`` and ``kind`` included);
it raises ``znt.errors.ZntError`` subclasses for anything the user can fix. Imports stay
inside the functions: a one-shot command pays only for its own.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from znt import SCHEMA_VERSION
from znt.errors import UsageError
from znt.project import Project, resolve_project

if TYPE_CHECKING:
    from znt.export.dataset import DatasetQuery
    from znt.results import (
        CheckDocument,
        ExportDocument,
        Freshness,
        GraphDocument,
        ImpactDocument,
        JsonObject,
        LogsDocument,
        MapDocument,
        McpUsage,
        OutlineDocument,
        ProviderChoice,
        ScanDocument,
        ScanProgress,
        SearchDocument,
        SetupDocument,
        SetupStatusDocument,
        SetupUrlBody,
        SetupUrlDocument,
        SimilarDocument,
        SqlDocument,
        StatsDocument,
        StatusDocument,
    )

__all__ = ["SCHEMA_VERSION"]

Notice = Callable[[str], None]


# -- what the front ends offer ------------------------------------------------------------


def language_names() -> list[str]:
    """The languages znt parses (what ``--language`` accepts besides ``auto``)."""
    from znt.index.languages import language_names as names

    return names()


def code_language_of(file_name: str) -> str | None:
    """The language of a file of this name when znt parses it as code; ``None`` for an
    unknown name or a resource (JSON, YAML, ...)."""
    from znt.index.languages import language_for

    spec = language_for(file_name)
    return None if spec is None or spec.resource else spec.name


def provider_modes() -> tuple[str, ...]:
    """The embedding providers ``znt setup --mode`` accepts."""
    from znt.config import MODES

    return MODES


# -- scan --------------------------------------------------------------------------------


def scan(
    path: str | None = None,
    *,
    language: str | None = None,
    restart: bool = False,
    dry_run: bool = False,
    no_embed: bool = False,
    progress: Callable[[str, int, int], None] | None = None,
    notice: Notice | None = None,
    guard_scope: bool = False,
) -> ScanDocument:
    """Index ``path`` (default: the current project) incrementally, then embed what is new
    with the configured provider (none with ``no_embed``). With ``guard_scope``, a first
    scan of a big folder outside any repository raises ``ScopeTooBig`` instead."""
    from znt.config import load_provider_config
    from znt.pipeline.scan import Scanner

    project = resolve_project(path, exact=path is not None)
    if guard_scope and not dry_run:
        from znt.errors import ScopeTooBig
        from znt.project import unversioned_size

        files = unversioned_size(project.root)
        if files is not None:
            raise ScopeTooBig(
                f"{project.root} is not inside a git repository and holds at least "
                f"{files} files: pass --yes to index it all, or scan a project folder",
                path=str(project.root),
                files=files,
            )
    embed = None if no_embed else load_provider_config(notice)
    scanner = Scanner(
        project,
        language=language,
        restart=restart,
        progress=progress,
        notice=notice,
        embed=embed,
    )
    result = scanner.dry_run() if dry_run else scanner.run()
    return {"schema_version": SCHEMA_VERSION, "kind": "scan", **result.to_dict()}


# -- status ------------------------------------------------------------------------------


def freshness(project: Project, *, check_files: bool) -> Freshness:
    """How fresh ``project``'s index is: the last scan, the commit it saw, and (with
    ``check_files``) how many files changed since (manifest and ``stat`` only)."""
    from znt.features.status import freshness as of_index

    return of_index(project, check_files=check_files)


def scan_progress(path: str | Path) -> ScanProgress | None:
    """The running or last scan of the project at ``path`` in the original's ScanProgress
    shape (phase, percent, files and texts done of total), or None."""
    from znt.index.progress import read_progress

    return read_progress(Project(Path(path)))


def scan_starting(path: str | Path, scan_id: str, started_at: float) -> ScanProgress:
    """The progress to show for scan ``scan_id`` that has not reported yet (``ast``, 0%)."""
    from znt.index.progress import starting

    return starting(str(path), scan_id=scan_id, started_at=started_at)


def scanning(project: Project) -> bool:
    """True while another process holds the scan lock (the original's ``Scanning`` state)."""
    from znt.features import status as status_mod

    return status_mod.scanning(project)


def watch(
    project: Project,
    scan: Callable[[], Mapping[str, object]],
    *,
    interval: float | None = None,
    quiet: float | None = None,
    on_scan: Callable[[Mapping[str, object]], None] | None = None,
    on_error: Callable[[Exception], None] | None = None,
) -> int:
    """Keep ``project``'s index fresh until SIGINT/SIGTERM (``znt scan --watch``): ``scan``
    runs one incremental scan each time files settle after a change (znt/index/watch.py;
    ``interval``/``quiet`` default to its polling and debounce periods). Returns the number of
    scans run."""
    from znt.index import watch as watch_mod

    watcher = watch_mod.Watcher(
        project,
        scan,
        interval=watch_mod.DEFAULT_INTERVAL if interval is None else interval,
        quiet=watch_mod.DEFAULT_QUIET if quiet is None else quiet,
        on_scan=on_scan,
        on_error=on_error,
    )
    return watcher.run()


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


def read_copy_state(root: Path) -> str:
    """Whether reads of the project at ``root`` come from this process's private copy of its
    index: ``off``, ``none``, ``preparing`` or ``ready`` (znt/index/readcopy.py)."""
    from znt.index import readcopy

    return readcopy.state(Project(root).index_path)


def status(path: str | None = None) -> StatusDocument:
    """Coverage of ``path`` by an index, the index's counts, its last scan and staleness."""
    requested = Path(path or os.environ.get("ZNT_PROJECT_ROOT") or os.getcwd()).expanduser()
    if not requested.exists():
        raise UsageError(f"path does not exist: {requested}")
    from znt.features import status as status_mod

    return {
        "schema_version": SCHEMA_VERSION,
        "kind": "status",
        **status_mod.status(requested.resolve()),
    }


# -- outline -----------------------------------------------------------------------------


def _project_for_read(project_path: str | None) -> Project:
    project = resolve_project(project_path)
    if not project.index_path.exists():
        from znt.errors import IndexMissing

        raise IndexMissing(f"no index for {project.root}; run `znt scan` first")
    return project


def outline(
    file: str, *, code: bool = False, members: bool = False, project_path: str | None = None
) -> OutlineDocument:
    """The file's top-level non-member symbols in line order (the original's file outline;
    Go methods count as top level); ``members``: nested symbols too."""
    from znt.features import outline as outline_mod

    project = _project_for_read(project_path)
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": "outline",
        **outline_mod.outline(project, file, code=code, members=members),
    }


# -- stats -------------------------------------------------------------------------------


def stats(*, project_path: str | None = None) -> StatsDocument:
    """Counts by type, kind, language, edge kind and resolution; index size on disk."""
    from znt.features import stats as stats_mod

    return {
        "schema_version": SCHEMA_VERSION,
        "kind": "stats",
        **stats_mod.stats(_project_for_read(project_path)),
    }


def mcp_usage(
    metrics_file: Path | None,
    session_id: str | None = None,
    session_records: Sequence[JsonObject] | None = None,
) -> McpUsage:
    """The summary of ``znt mcp``'s usage metrics in ``metrics_file`` (what ``stats`` shows
    under ``mcp``), with this session's totals when ``session_id`` is given."""
    from znt.features import usage

    return usage.summarize(metrics_file, session_id, session_records)


# -- logs --------------------------------------------------------------------------------


def logs(
    *, stream_id: str | None = None, after_id: int | None = None, project_path: str | None = None
) -> LogsDocument:
    """The last 100 scan log entries, with the original's ``stream_id``/``after_id`` cursor."""
    from znt.index.log import ScanLog

    if (stream_id is None) != (after_id is None):
        raise UsageError("stream_id and after_id must be given together")
    if after_id is not None and not (0 <= after_id <= 9007199254740991):
        raise UsageError("after_id must be an integer between 0 and 9007199254740991")
    project = resolve_project(project_path)
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": "logs",
        **ScanLog(project.log_path).read(stream_id, after_id),
    }


# -- search ------------------------------------------------------------------------------

SEARCH_MODES = ("hybrid", "lexical", "vector")


def check_boosts(type: str | None, role: str | None) -> None:
    """``type`` must be a canonical type or a kind, ``role`` one of Znt's roles: a boost
    that can match nothing is a typo, answered with the list (exit 2). The tables are
    imported only for a boost given (``roles`` brings the language tables along)."""
    if type is not None:
        from znt.index.canonical import KIND_TO_TYPE

        known = sorted(set(KIND_TO_TYPE.values())) + sorted(set(KIND_TO_TYPE) - {"external"})
        if type not in known:
            raise UsageError(
                f"unknown type {type!r}; choose a type ({', '.join(known[:5])}) or a kind "
                f"({', '.join(known[5:])})",
                type=type,
                choices=known,
            )
    if role is None:
        return
    from znt.index.roles import ROLES

    if role not in ROLES:
        raise UsageError(
            f"unknown role {role!r}; choose one of {', '.join(ROLES)}", role=role, choices=ROLES
        )


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
    dataset: str | None = None,
    repositories: list[str] | None = None,
) -> SearchDocument:
    """Ranked symbols for ``query`` (the original's semantic search).

    ``type``/``role`` are soft boosts (+4 on the 0..10 score), ``path`` a glob filter;
    lexical mode falls back to vectors when it finds nothing; hybrid fuses both lists (see
    znt/index/search.py). ``callers``/``callees`` attach call trees of that depth unless
    ``compact``. Results are bounded by ``limit``/``offset`` and ``max_tokens``.
    ``dataset`` (a ``znt export`` folder) searches its ``repositories`` (default: all)
    instead of a project."""
    from znt.features import search as search_mod

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
    check_boosts(type, role)
    source = _dataset_query(dataset, repositories)
    if source is not None and code:
        raise UsageError("--code needs the project's files; a dataset holds none")
    project = _project_for_read(project_path) if source is None else None
    body = search_mod.search(
        project,
        query,
        mode=mode,
        limit=limit,
        offset=offset,
        type=type,
        role=role,
        path=path,
        compact=compact,
        code=code,
        max_code_lines=max_code_lines,
        callers=callers,
        callees=callees,
        max_tokens=max_tokens,
        dataset=source,
    )
    return {"schema_version": SCHEMA_VERSION, "kind": "search", **body}


def _dataset_query(dataset: str | None, repositories: list[str] | None) -> DatasetQuery | None:
    """The exported repositories to read instead of a project (``--dataset``), or None."""
    if dataset is None:
        if repositories:
            raise UsageError("--repository selects repositories of a --dataset")
        return None
    from znt.export.dataset import DatasetQuery

    folder = Path(dataset).expanduser()
    if not folder.is_dir():
        raise UsageError(f"--dataset {dataset}: not a folder", dataset=dataset)
    return DatasetQuery(folder, tuple(repositories or ()))


# -- export ------------------------------------------------------------------------------


def export(
    folder: str,
    *,
    repository: str | None = None,
    commit: str | None = None,
    project_path: str | None = None,
) -> ExportDocument:
    """Write the project's index into the Parquet dataset ``folder`` as ``repository`` (default:
    the project folder's name) at ``commit`` (default: the indexed commit); docs/export.md."""
    from znt.export import parquet

    if not folder or not folder.strip():
        raise UsageError("--parquet needs a folder")
    project = _project_for_read(project_path)
    name = repository or parquet.default_repository(project.root)
    report = parquet.export_index(
        project.index_path, Path(folder).expanduser(), repository=name, commit=commit
    )
    return {"schema_version": SCHEMA_VERSION, "kind": "export", **report.to_dict()}


# -- setup ---------------------------------------------------------------------------------


def setup(
    mode: str | None = None,
    *,
    model: str | None = None,
    url: str | None = None,
    token_env: str | None = None,
    token_stdin: bool = False,
    read_secret: Callable[[], str] | None = None,
    check_provider: bool = False,
    allow_private_url: bool = False,
) -> SetupDocument:
    """Without ``mode``: the provider state and recommendations, writing nothing. With
    ``mode``: write the managed config (never a ``ZNT_CONFIG`` file). No key is accepted as an
    argument: ``token_stdin`` reads it with ``read_secret`` and stores it in the OS keyring."""
    from znt.features import setup as setup_mod

    if mode is None:
        if model or url or token_env or token_stdin:
            raise UsageError("--model, --url, --token-env and --token-stdin need --mode")
        body = setup_mod.show()
        if check_provider:
            from znt.config import load_config

            body["provider_check"] = setup_mod.probe(load_config().provider)
    else:
        body = setup_mod.configure(
            mode,
            model=model,
            url=url,
            token_env=token_env,
            token_stdin=token_stdin,
            read_secret=read_secret,
            check_provider=check_provider,
            allow_private_url=allow_private_url,
        )
    return {"schema_version": SCHEMA_VERSION, "kind": "setup", **body}


def setup_url(
    mode: str, *, model: str | None = None, check_provider: bool = False
) -> SetupUrlDocument:
    """Open the one-time form on 127.0.0.1 where the user sets up the remote provider
    ``mode`` and types its key (which goes to the OS keyring); returns its ``setup_url``.
    The form lives in this process (``znt mcp``) until it is used or expires."""
    from znt.features import setup_form

    return {
        "schema_version": SCHEMA_VERSION,
        "kind": "setup_url",
        **setup_form.open_form(mode, model=model, check_provider=check_provider),
    }


def setup_url_state() -> SetupUrlBody | None:
    """The last setup form of this process (``open``, ``used`` and what it wrote,
    ``expired``...), never a key; None if none was opened."""
    from znt.features import setup_form

    return setup_form.form_state()


def close_setup_url() -> None:
    """Close this process's setup form, if one is open."""
    from znt.features import setup_form

    setup_form.close_form()


def provider_choice() -> ProviderChoice:
    """The embedding provider the next scan uses: mode, model, where it was set, and whether
    the user chose it (``chosen_by_user``) or it is znt's default."""
    from znt.features import setup as setup_mod

    return setup_mod.provider_choice()


def setup_status(*, check_provider: bool = False) -> SetupStatusDocument:
    """Config, key presence (yes/no, never the key) and, with ``check_provider``, a probe of
    the endpoint: ok or the error, dimension, latency."""
    from znt.features import setup as setup_mod

    return {
        "schema_version": SCHEMA_VERSION,
        "kind": "setup_status",
        **setup_mod.status(check_provider),
    }


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
    dataset: str | None = None,
    repositories: list[str] | None = None,
) -> GraphDocument:
    """The neighbourhood of FROM (``depth`` BFS levels over ``edge_types``, ``direction``
    down = callees, up = callers) or, with ``to``, the shortest call paths FROM -> TO.

    Only the edges the question reaches are read (one query per level; see
    znt/graph/traverse.py). ``found`` is false when a path was asked for and none exists
    (exit 1). The answer says whether it is complete or a lower bound, and why. With
    ``dataset``, over its exported ``repositories``, linked where one imports another."""
    from znt.features import graph as graph_mod
    from znt.graph import traverse as tv

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
    source = _dataset_query(dataset, repositories)
    proj = _project_for_read(project_path) if source is None else None
    body = graph_mod.graph(
        proj,
        from_,
        to=to,
        depth=depth,
        direction=direction,
        kinds=kinds,
        include_external=include_external,
        max_nodes=max_nodes,
        dataset=source,
    )
    return {"schema_version": SCHEMA_VERSION, "kind": "graph", **body}


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
) -> SimilarDocument:
    """Analogues and near-duplicates of an indexed symbol (``target``), of code that is not
    in the index (``snippet``, its text) or of a description (``query``): 0.6 x vector
    cosine + 0.3 x Jaccard of call-graph neighbours + 0.1 x role/kind agreement, 0..1.

    Parts that cannot be computed are left out and the others re-weighted (see
    znt/graph/similar.py); the answer says so in ``warnings``. ``type``/``role`` are soft
    boosts (they set what the role/kind part agrees with), ``path`` a glob filter."""
    from znt.features import similar as similar_mod
    from znt.graph import traverse as tv

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
    check_boosts(type, role)
    language = None
    if snippet is not None and snippet_language:
        from znt.index.languages import get_language, language_names

        language = snippet_language.strip().lower()
        try:
            get_language(language)
        except KeyError:
            raise UsageError(
                f"unknown snippet language {language!r}; choose one of "
                + ", ".join(language_names()),
                language=language,
            ) from None
    project = _project_for_read(project_path)
    body = similar_mod.similar(
        project,
        target,
        query=query,
        snippet=snippet,
        language=language,
        limit=limit,
        offset=offset,
        kinds=kinds,
        type=type,
        role=role,
        path=path,
        code=code,
        max_code_lines=max_code_lines,
    )
    return {"schema_version": SCHEMA_VERSION, "kind": "similar", **body}


# -- map -----------------------------------------------------------------------------------


def repo_map(
    paths: list[str] | None = None,
    *,
    max_tokens: int = 1024,
    focus: list[str] | None = None,
    project_path: str | None = None,
) -> MapDocument:
    """A ranked, token-budgeted map of the repository: files ranked by networkx PageRank
    over the resolved graph (personalised to ``focus``, files or symbols), each with its
    most important symbols and signatures, cut at ``max_tokens`` (``ceil(chars/4)`` of the
    text). ``paths`` limits which files are shown (see znt/graph/repomap.py)."""
    from znt.features import repomap as map_mod

    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise UsageError("max_tokens must be an integer >= 1", max_tokens=max_tokens)
    wanted = [f.strip() for f in focus or [] if f and f.strip()]
    project = _project_for_read(project_path)
    body = map_mod.repo_map(project, list(paths or []), max_tokens=max_tokens, focus=wanted)
    return {"schema_version": SCHEMA_VERSION, "kind": "map", **body}


# -- check ---------------------------------------------------------------------------------

CHECK_STALE_POLICIES = ("warn", "ignore", "error")


def check(
    *,
    rules_file: str | None = None,
    baseline: str | None = None,
    stale_policy: str = "warn",
    project_path: str | None = None,
) -> CheckDocument:
    """Evaluate the project's architecture rules (``check:`` in znt.yaml, or ``rules_file``)
    over the index (docs/check.md). ``passed`` is false when a rule of severity error has a
    violation (the CLI exits 1). With ``baseline`` (a git ref) only violations whose key the
    ref's code does not have are reported; the ref is indexed once in a temporary worktree
    and kept as a snapshot under ``.znt/baselines/``."""
    from znt.features import check as check_mod

    if stale_policy not in CHECK_STALE_POLICIES:
        raise UsageError(
            f"stale_policy must be one of {', '.join(CHECK_STALE_POLICIES)}",
            stale_policy=stale_policy,
        )
    project = _project_for_read(project_path)
    body = check_mod.check(
        project, rules_file=rules_file, baseline=baseline, stale_policy=stale_policy
    )
    return {"schema_version": SCHEMA_VERSION, "kind": "check", **body}


# -- sql -----------------------------------------------------------------------------------


def sql(
    query: str,
    *,
    limit: int = 1000,
    timeout: float | None = None,
    project_path: str | None = None,
) -> SqlDocument:
    """Run one read-only SELECT over the index (docs/sql.md): the statement must be a single
    SELECT, and it runs on a private copy of the index with file access switched off by
    configuration, within ``timeout`` seconds (default 30), a memory limit and an output cap.
    At most ``limit`` rows (``truncated`` says when more exist)."""
    from znt.features import sql as sql_mod
    from znt.features.sqlguard import SQL_MAX_LIMIT, guard

    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= SQL_MAX_LIMIT:
        raise UsageError(f"limit must be an integer between 1 and {SQL_MAX_LIMIT}", limit=limit)
    if timeout is None:
        timeout = sql_mod.DEFAULT_TIMEOUT_S
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise UsageError("timeout must be a positive number of seconds", timeout=timeout)
    text = guard(query)
    project = _project_for_read(project_path)
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": "sql",
        **sql_mod.sql(project, text, limit=limit, timeout=float(timeout)),
    }


# -- impact --------------------------------------------------------------------------------

IMPACT_MAX_NODES = 2000


def impact(
    *,
    staged: bool = False,
    diff: str | None = None,
    paths: list[str] | None = None,
    depth: int = 3,
    project_path: str | None = None,
) -> ImpactDocument:
    """What a change touches: the symbols whose lines it changes (``git diff -U0`` of the
    staged change, of the working tree against ``diff``, or whole files for ``paths``;
    default: the working tree against HEAD), their transitive callers to ``depth`` levels,
    and the tests among them (role ``test``).

    The changed line ranges are the new side of the diff, mapped onto the symbols' spans in
    the index, so the answer is right when the index has seen the new content: the document
    says which changed files the index is stale for. Callers found through the graph are a
    lower bound (dynamic calls, unresolved names), and the answer says so."""
    from znt.features import impact as impact_mod

    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
        raise UsageError("depth must be an integer >= 0", depth=depth)
    chosen = [n for n, on in (("--staged", staged), ("--diff", diff), ("PATH", paths)) if on]
    if len(chosen) > 1:
        raise UsageError(f"give only one of {', '.join(chosen)}")
    proj = _project_for_read(project_path)
    body = impact_mod.impact(proj, staged=staged, diff=diff, paths=paths, depth=depth)
    return {"schema_version": SCHEMA_VERSION, "kind": "impact", **body}
