"""Read and parse changed files, in worker processes when there are many.

A worker gets paths and returns plain tuples (cheap to pickle); it never touches the
index. Every problem with one file (vanished, unreadable, binary, minified, invalid UTF-8,
syntax errors) is reported in that file's result and never stops the scan.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from znt.fsguard import UnsafePath, read_source
from znt.index.embed.text import embed_rows
from znt.index.extract import Extractor, FileFacts
from znt.index.languages import (
    get_language,
    parse_error_message,
    reset_current_root,
    set_current_root,
)
from znt.index.lexical import document_rows
from znt.index.manifest import content_hash
from znt.index.store import CsvSink, csv_rows, rows_digest

BINARY_SNIFF = 8192
MINIFIED_LINE = 20_000  # a line this long in a code file means generated/minified content
PARALLEL_THRESHOLD = 48  # below this many files, worker start-up costs more than it saves
BATCH = 16


@dataclass
class ParsedFile:
    """What the scan needs to know about one parsed file; its rows went to the sink."""

    path: str
    language: str
    size: int
    mtime_ns: int
    hash: str
    lines: int
    status: str  # ok | parse_error | skipped | unchanged
    error: str | None = None
    warning: str | None = None
    module_name: str = ""
    # What the resolver reads of the file, digested (``Digest``); None when not computed.
    digests: tuple[str, str] | None = None
    # Its rows in each per-file table, digested (``store.rows_digest``); None when its
    # rows were not written.
    rows_digest: str | None = None


# Given a file's rows by table (``files``, ``symbols``, ``refs``, ``imports``,
# ``import_candidates``, each in the order of store.TABLES), the ``files.interface_digest``
# and ``files.inputs_digest`` to store with it. The scan hands in the resolver's own
# (znt/graph/interface.py): storage does not know what analysis reads.
Digest = Callable[[Mapping[str, Sequence[Sequence[object]]]], tuple[str, str]]


@dataclass
class ParseJob:
    path: str
    abspath: str
    language: str
    known_hash: str | None = None  # the hash in the index; equal content is not re-parsed
    sink: str = ""  # folder the rows are written to (see store.CsvSink); "" = nowhere
    embed_tests: bool = False  # the project's ``embed_tests`` setting (embed/text.py)


@dataclass
class _WorkerState:
    extractors: dict[str, Extractor] = field(default_factory=dict)
    sinks: dict[tuple[str, int], CsvSink] = field(default_factory=dict)

    def sink(self, folder: str) -> CsvSink:
        # Keyed by pid too: a forked worker must not write through its parent's handles.
        key = (folder, os.getpid())
        sink = self.sinks.get(key)
        if sink is None:
            sink = self.sinks[key] = CsvSink(Path(folder))
        return sink


_STATE = _WorkerState()


def _extractor(language: str, path: str) -> Extractor:
    spec = get_language(language)
    grammar = spec.grammar_for(path)
    ex = _STATE.extractors.get(grammar)
    if ex is None:
        ex = Extractor(spec, grammar)
        _STATE.extractors[grammar] = ex
    return ex


def parse_one(job: ParseJob, digest: Digest | None = None) -> ParsedFile | None:
    """Read, hash and extract one file, writing its rows to the job's sink (with their
    ``digest``, also kept in the result). ``None`` means it vanished before we read it."""
    result = _parse(job)
    if result is not None and result[0].status != "unchanged" and job.sink:
        _write_rows(job, *result, digest=digest)
    return result[0] if result is not None else None


def _write_rows(
    job: ParseJob,
    res: ParsedFile,
    facts: FileFacts | None,
    source: bytes = b"",
    digest: Digest | None = None,
) -> None:
    sink = _STATE.sink(job.sink)
    directory = res.path.rsplit("/", 1)[0] if "/" in res.path else ""
    file_row = (
        res.path,
        directory,
        res.language,
        res.size,
        res.mtime_ns,
        res.hash,
        res.lines,
        res.status,
        res.error or res.warning,
        res.module_name,
    )
    lang = res.language
    rows: dict[str, Sequence[Sequence[object]]] = {"files": [file_row]}
    if facts is not None:
        rows["symbols"] = [(*row, lang) for row in facts.symbols]  # the load adds the card
        rows["refs"] = facts.refs
        rows["imports"] = facts.imports
        rows["import_candidates"] = facts.candidates
    res.digests = digest(rows) if digest is not None else None
    texts: dict[str, str] = {}
    if facts is not None:
        for table in ("symbols", "refs", "imports", "import_candidates"):
            texts[table] = csv_rows(rows[table])
        docs, texts["lex_postings"] = document_rows(res.path, facts.symbols, source)
        texts["lex_docs"] = csv_rows(docs)
        texts["embed_docs"] = csv_rows(
            embed_rows(res.path, lang, facts.symbols, source, job.embed_tests)
        )
        for table, text in texts.items():
            sink.add_text(table, text)
    res.rows_digest = rows_digest(texts)
    sink.add("files", [(*file_row, *(res.digests or (None, None)), res.rows_digest)])


def _parse(job: ParseJob) -> tuple[ParsedFile, FileFacts | None, bytes] | None:
    try:
        # Never through a link, never a FIFO, never outside the root (znt/fsguard.py): the
        # file may have been swapped since the walk.
        data, st = read_source(_root_of(job), job.path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return (
            ParsedFile(
                job.path,
                job.language,
                0,
                0,
                "",
                0,
                "skipped",
                f"cannot read: {exc.strerror or exc}",
            ),
            None,
            b"",
        )
    digest = content_hash(data)
    lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    result = ParsedFile(job.path, job.language, st.st_size, st.st_mtime_ns, digest, lines, "ok")
    if job.known_hash is not None and job.known_hash == digest:
        result.status = "unchanged"
        return result, None, b""
    if b"\0" in data[:BINARY_SNIFF]:
        result.status, result.error = "skipped", "binary content"
        return result, None, b""
    if len(data) > MINIFIED_LINE and max(map(len, data.split(b"\n"))) > MINIFIED_LINE:
        result.status = "skipped"
        result.error = f"minified or generated (a line over {MINIFIED_LINE} bytes)"
        return result, None, b""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        result.warning = f"invalid UTF-8 at byte {exc.start}; indexed with replacement characters"
    try:
        ex = _extractor(job.language, job.path)
        abspath = job.abspath.replace(os.sep, "/")
        root = abspath[: -len(job.path) - 1] if abspath.endswith("/" + job.path) else None
        token = set_current_root(root)
        try:
            facts = ex.extract(job.path, data)
        finally:
            reset_current_root(token)
    except Exception as exc:  # a grammar or query bug must not stop the scan
        result.status, result.error = "skipped", f"extraction failed: {type(exc).__name__}: {exc}"
        return result, None, b""
    result.module_name = facts.module_name
    if facts.warning:
        result.warning = facts.warning
    if facts.parse_errors:
        result.status = "parse_error"
        result.warning = result.warning or parse_error_message(job.language)
    return result, facts, data


def _root_of(job: ParseJob) -> str:
    """The project root a job's path is relative to."""
    abspath = job.abspath
    tail = os.sep + job.path.replace("/", os.sep)
    if not abspath.endswith(tail):
        raise UnsafePath("not a path inside the project")
    return abspath[: -len(tail)] or os.sep


def parse_in_worker(
    job: ParseJob, digest: Digest | None = None
) -> tuple[ParsedFile | tuple[str, None], dict[str, int]]:
    """One job as a parse worker runs it (znt/index/workers.py): its result (or ``(path,
    None)`` for a file that gives no rows), then its rows flushed and their files' sizes."""
    result = parse_one(job, digest)
    flush_sinks()
    sizes = sink_sizes(job.sink) if job.sink else {}
    return (result if result is not None else (job.path, None)), sizes


def flush_sinks() -> None:
    """Make every row written by this process visible to the loader."""
    pid = os.getpid()
    for (_folder, owner), sink in _STATE.sinks.items():
        if owner == pid:
            sink.flush()


def close_sinks(folder: str) -> None:
    """Close this process's files for ``folder`` (at the end of a scan)."""
    key = (folder, os.getpid())
    sink = _STATE.sinks.pop(key, None)
    if sink is not None:
        sink.close()


def parse_files(
    jobs: list[ParseJob],
    workers: int | None = None,
    on_done: Callable[[int], None] | None = None,
    close_fds: tuple[int, ...] = (),
    meanwhile: Callable[[], object] | None = None,
    digest: Digest | None = None,
    on_lost: Callable[[], None] | None = None,
) -> Iterator[ParsedFile | tuple[str, None]]:
    """Parse ``jobs``, yielding results as they complete (the order is not the job order);
    ``meanwhile`` runs in this process once the workers have their first jobs, and
    ``on_lost`` before a worker that died or hung is replaced (``Pool.run``); ``digest`` (a
    module-level function: a fork server's worker unpickles it) digests each file's rows in
    its worker.

    Always in worker processes (znt/index/workers.py): a file that crashes or hangs its
    parser costs that file, reported as skipped with the reason, never the scan. One worker
    below ``PARALLEL_THRESHOLD`` files (starting more costs more than it saves)."""
    from znt.index.workers import Pool

    if not jobs:
        return
    if workers is None:
        workers = max(1, min(os.cpu_count() or 1, int(os.environ.get("ZNT_WORKERS", "0")) or 8))
    if len(jobs) < PARALLEL_THRESHOLD:
        workers = 1
    # Big files first so that no worker is left with a giant file at the end.
    ordered = sorted(jobs, key=lambda j: -_size(j.abspath))
    work = functools.partial(parse_in_worker, digest=digest) if digest else parse_in_worker
    pool = Pool(min(workers, len(ordered)), _failed, close_fds, work=work, on_lost=on_lost)
    for res in pool.run(ordered, meanwhile):
        if on_done:
            on_done(1)
        yield res
    flush_sinks()


def _failed(job: ParseJob, reason: str) -> ParsedFile:
    """The result of a job whose worker crashed or hung, with its ``files`` row written by
    this process (the worker's rows for it were cut off)."""
    size, mtime = 0, 0
    with contextlib.suppress(OSError):
        st = os.stat(job.abspath, follow_symlinks=False)
        size, mtime = st.st_size, st.st_mtime_ns
    res = ParsedFile(job.path, job.language, size, mtime, "", 0, "skipped", reason)
    if job.sink:
        _write_rows(job, res, None)
    return res


def sink_sizes(folder: str) -> dict[str, int]:
    """The length of each of this process's row files for ``folder``, all rows flushed."""
    sink = _STATE.sinks.get((folder, os.getpid()))
    return sink.sizes() if sink is not None else {}


def _size(path: str) -> int:
    try:
        return Path(path).stat().st_size
    except OSError:
        return 0
