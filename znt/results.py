"""The documents the api returns: one ``TypedDict`` per command, which is also its JSON form.

A document is a plain ``dict`` (what ``--format json`` prints and what an MCP tool puts in
``structuredContent``), so the types add no conversion: they name the keys every document of
a kind has, and the type checker holds ``znt/api.py`` and the feature modules to them
(``mypy`` refuses an ``Any`` in an api function's return type: pyproject.toml). The parts
whose shape belongs to a lower module (a symbol's card, a rule's violation, a completeness
report) are typed as JSON values here and documented where they are made and in the docs of
each command (docs/search.md, docs/graph.md, docs/check.md, ...).

Every document carries ``schema_version`` (``SCHEMA_VERSION``, raised when a key changes
meaning or goes away) and ``kind`` (the command). Keys that only some answers have are in the
``total=False`` part of a document (``next_offset`` after a cut page, ``paths`` of a path
question, ...).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypedDict, Union

from znt import SCHEMA_VERSION as SCHEMA_VERSION  # the documents' version, re-exported

# A JSON value: what a document holds where its shape is another module's.
JsonValue = Union[  # noqa: UP007 (a recursive alias the runtime can evaluate, as in a TypedDict)
    None, bool, int, float, str, Sequence["JsonValue"], Mapping[str, "JsonValue"]
]
JsonObject = Mapping[str, JsonValue]
JsonList = Sequence[JsonValue]


class Document(TypedDict):
    schema_version: int
    kind: str


class Freshness(TypedDict, total=False):
    """How old the index is against the working tree and HEAD (``check_files`` adds the file
    counts and ``stale``; ``impact`` adds the changed files the index is stale for)."""

    last_scan_at: float | None
    index_commit: str | None
    head_commit: str | None
    commit_changed: bool
    files_changed: int
    files_added: int
    files_deleted: int
    stale: bool | None
    stale_files: list[str]


class Completeness(TypedDict):
    """Whether a graph answer is all there is or a lower bound, and why (``reasons``)."""

    complete: bool
    reasons: list[str]
    unresolved_calls: int
    external_calls: int
    ambiguous_calls: int
    dynamic_dispatch_calls: int
    possible_unresolved_callers: int
    hidden_external_nodes: int
    truncated_nodes: int
    edge_types: list[str]


# -- scan ----------------------------------------------------------------------------------


class _ScanBody(TypedDict):
    scan_id: str
    status: str
    mode: str  # full | incremental | noop | dry_run
    path: str
    language: str
    files_total: int
    files_parsed: int
    files_unchanged: int
    files_deleted: int
    files_skipped: int
    warnings: int
    problems: list[dict[str, str]]
    symbols: int
    edges: int
    index_commit: str | None
    started_at: float
    duration_ms: int
    phases_ms: dict[str, int]
    reason: str | None
    embeddings: JsonObject | None


class ScanBody(_ScanBody, total=False):
    dry_run: JsonObject  # only for ``--dry-run``: what a scan would do


class ScanDocument(ScanBody, Document):
    pass


# -- status, outline, stats, logs ------------------------------------------------------------


class StatusBody(TypedDict):
    requested_path: str
    project_root: str | None
    coverage: str  # none | exact | ancestor
    has_index: bool
    status: str  # Idle | Scanning | Monitoring
    watch: JsonObject | None
    stats: dict[str, int]
    scan: JsonObject
    freshness: Freshness | None
    provider: ProviderChoice  # what the next scan embeds with
    progress: ScanProgress | None  # the running or last scan, any process's
    embeddings: JsonObject | None  # which model embedded the index, how many texts have vectors


class StatusDocument(StatusBody, Document):
    pass


class _OutlineBody(TypedDict):
    file: str
    language: str | None
    lines: int | None
    total_symbols: int
    symbols: Sequence[JsonObject]
    file_changed_since_scan: bool
    freshness: Freshness


class OutlineBody(_OutlineBody, total=False):
    formatted_text: str  # the original's field: the outline as text (set once it is built)


class OutlineDocument(OutlineBody, Document):
    pass


class StatsCounts(TypedDict):
    files: JsonObject
    symbols: JsonObject
    edges: JsonObject
    references: JsonObject


class StatsBody(StatsCounts):
    index: JsonObject
    freshness: Freshness
    mcp: McpUsage


class StatsDocument(StatsBody, Document):
    pass


class LogsBody(TypedDict):
    stream_id: str | None
    entries: Sequence[JsonObject]
    next_cursor: int
    truncated: bool


class LogsDocument(LogsBody, Document):
    pass


# -- search and similar ----------------------------------------------------------------------


class Page(TypedDict):
    """One page of a ranked answer; ``truncated`` when more candidates follow it (the
    answer then says where the next page starts: ``next_offset``)."""

    results: Sequence[JsonObject]
    offset: int
    limit: int
    total_candidates: int
    truncated: bool
    warnings: list[str]


class _SearchBody(TypedDict):
    query: str
    mode: str
    answered_by: str


class _SearchPage(_SearchBody, Page):
    freshness: Freshness | JsonObject  # a ``--dataset`` answer: which exports it read


class SearchBody(_SearchPage, total=False):
    next_offset: int


class SearchDocument(SearchBody, Document):
    pass


class _SimilarBody(TypedDict):
    mode: str
    target: JsonObject
    edge_types: list[str]
    weights: JsonObject
    vectors: bool
    candidate_sources: list[str]


class _SimilarPage(_SimilarBody, Page):
    freshness: Freshness


class SimilarBody(_SimilarPage, total=False):
    next_offset: int


class SimilarDocument(SimilarBody, Document):
    pass


# -- graph and impact ------------------------------------------------------------------------

_GraphBody = TypedDict(  # functional form: ``from`` is a keyword
    "_GraphBody",
    {
        "from": str,
        "to": str | None,
        "mode": str,  # neighbourhood | path
        "depth": int,
        "direction": str,
        "edge_types": list[str],
        "include_external": bool,
        "max_nodes": int,
        "start": JsonObject,
        "target": JsonObject | None,
        "found": bool,
        "nodes": Sequence[JsonObject],
        "edges": Sequence[JsonObject],
        "truncated": bool,
        "warnings": list[str],
        "completeness": Completeness,
        "freshness": Freshness | JsonObject,  # a ``--dataset`` walk: its exports
        "stats": dict[str, int],
    },
)


class GraphBody(_GraphBody, total=False):
    """``paths``, ``path_length`` and ``direction_used`` answer a path question (``--to``)."""

    cycles: list[list[str]]  # a neighbourhood: the call cycles among its nodes
    paths: list[list[str]]
    path_length: int | None
    direction_used: str
    warning: str


class GraphDocument(GraphBody, Document):
    pass


class ImpactBody(TypedDict):
    mode: str  # staged | diff | paths
    ref: str | None
    depth: int
    edge_types: list[str]
    files: Sequence[JsonObject]
    changed: Sequence[JsonObject]
    callers: Sequence[JsonObject]
    tests: Sequence[JsonObject]
    candidate_tests: Sequence[JsonObject]  # tests that may call a changed symbol (unresolved)
    nodes: Sequence[JsonObject]
    edges: Sequence[JsonObject]
    truncated: bool
    lower_bound: bool
    completeness: Completeness
    warnings: list[str]
    freshness: Freshness


class ImpactDocument(ImpactBody, Document):
    pass


# -- check and sql ---------------------------------------------------------------------------


class CheckSummary(TypedDict):
    rules: int
    violations: int
    errors: int
    warnings: int
    edges_checked: int


class CheckBody(TypedDict):
    project_root: str
    rules_file: str
    default_rules: bool  # no rules file: znt's built-in rules ran
    passed: bool
    summary: CheckSummary
    rules: Sequence[JsonObject]
    violations: Sequence[JsonObject]
    baseline: JsonObject | None
    warnings: list[str]
    freshness: Freshness


class CheckDocument(CheckBody, Document):
    pass


class _SqlBody(TypedDict):
    query: str
    columns: Sequence[JsonObject]  # {name, type} per column
    rows: Sequence[JsonList]
    row_count: int
    limit: int
    truncated: bool
    freshness: Freshness


class SqlBody(_SqlBody, total=False):
    truncated_reason: str  # the answer was cut at the output cap


class SqlDocument(SqlBody, Document):
    pass


# -- setup and export ------------------------------------------------------------------------


class SetupEnvironment(TypedDict):
    """What this machine offers a provider: the embed extra, a keyring backend."""

    embed_extra: bool
    keyring: JsonObject


class _SetupBody(SetupEnvironment):
    config: JsonObject
    credential: JsonObject


class SetupBody(_SetupBody, total=False):
    """``action`` ``show`` (no mode: ``recommendations``) or ``write`` (``written``,
    ``notes``); ``provider_check`` when a probe ran."""

    action: str
    recommendations: Sequence[JsonObject]
    written: JsonObject | None
    notes: list[str]
    provider_check: JsonObject | None


class SetupDocument(SetupBody, Document):
    pass


class SetupStatusBody(_SetupBody):
    ready: bool
    problems: list[str]
    provider_check: JsonObject | None


class SetupStatusDocument(SetupStatusBody, Document):
    pass


class _SetupUrlBody(TypedDict):
    mode: str
    model: str | None
    url: str | None
    state: str  # open | used | expired | closed
    setup_url: str | None
    expires_at: float
    expires_in_s: int
    single_use: bool
    keyring_available: bool
    check_provider: bool


class SetupUrlBody(_SetupUrlBody, total=False):
    """The one-time setup form of ``znt mcp`` (never a key)."""

    keyring_note: str
    result: JsonObject


class SetupUrlDocument(SetupUrlBody, Document):
    pass


class _ProviderChoice(TypedDict):
    mode: str | None
    model: str | None
    source: str | None
    chosen_by_user: bool | None


class ProviderChoice(_ProviderChoice, total=False):
    """The provider the next scan embeds with, and whether the user chose it."""

    leaves_machine: bool
    error: str
    note: str


class ExportBody(TypedDict):
    folder: str
    repository: str
    commit: str
    rows: dict[str, int]
    bytes: int
    replaced: bool


class ExportDocument(ExportBody, Document):
    pass


# -- scan progress and the repository map ----------------------------------------------------


class ScanProgress(TypedDict, total=False):
    """A scan's progress in the original's ScanProgress shape (``.znt/scan-progress.json``;
    znt/index/progress.py writes and reads it)."""

    scan_id: str | None
    status: str  # scanning | completed | error
    path: str
    phase: str
    percent: float
    phase_done: int
    phase_total: int
    scanned_files: int
    total_files: int
    texts_embedded: int
    texts_total: int
    started_at: float
    completed_at: float | None
    last_error: str | None
    note: str
    pid: int


class MapBody(TypedDict):
    paths: list[str]
    focus: JsonList
    max_tokens: int
    tokens: int
    token_estimate: str
    truncated: bool
    total_files: int
    files: Sequence[JsonObject]
    ranking: JsonObject
    freshness: Freshness


class MapDocument(MapBody, Document):
    pass


# -- MCP usage -------------------------------------------------------------------------------


class _McpUsage(TypedDict):
    metrics_file: str | None
    token_estimate: str
    savings_note: str
    total: JsonObject
    sessions: int
    top_tools: Sequence[JsonObject]
    last_calls: Sequence[JsonObject]


class McpUsage(_McpUsage, total=False):
    session: JsonObject  # this server's session, when asked by ``znt mcp``
