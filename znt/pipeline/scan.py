"""The scan: walk, compare, parse what changed, then write briefly.

Phases follow the original (ast -> building_graph -> persisting -> tagging -> indexing ->
completed). The expensive work (reading, parsing, extracting) happens before the index is
opened for writing, so readers are locked out only for the final transaction:

* a first scan, ``--restart``, or an index from another schema/extractor version is built
  in a new file next to the index and moved over it with an atomic rename;
* an incremental scan replaces the rows of changed files in one transaction.

Either way a scan killed at any moment leaves the previous index or the new one. Only one
scan runs at a time per project (``.znt/scan.lock``); a second one waits for it.
See docs/decisions/0002-index-concurrency.md.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import shutil
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from znt import __version__
from znt.config import ProviderConfig
from znt.errors import Busy, IndexIncompatible, UsageError
from znt.gitinfo import head_commit
from znt.index import manifest as manifest_mod
from znt.index.languages import LANG_DIR, language_names, parse_error_message
from znt.index.log import ScanLog
from znt.index.progress import ProgressFile
from znt.index.walk import WalkCache, WalkResult, load_cache, save_cache, walk
from znt.project import Project
from znt.settings import ProjectSettings, load_settings

if TYPE_CHECKING:
    from znt.index.parse import ParsedFile
    from znt.results import ScanBody


Progress = Callable[[str, int, int], None]
Notice = Callable[[str], None]

MAX_PROBLEMS_SHOWN = 50
# Bytes of source parsed per second per worker, for --dry-run's estimate (measured on sympy).
PARSE_RATE = 1_500_000
RACY_NS = 2_000_000_000  # mtimes this close to the previous scan's start are not trusted
RACY_CHECK_MAX = 64
# A rescan of at most this many files opens the index while its one worker parses them
# (``Scanner._open_early``): opening is ~25 ms of a one-file rescan and the scanner had
# nothing else to do during the worker's ~50 ms. Bigger rescans open it after the parse, so
# that readers are never locked out for a long parse.
EARLY_OPEN_MAX = 8


@dataclass
class ScanResult:
    scan_id: str
    status: str
    mode: str  # full | incremental | noop | dry_run
    path: str
    language: str
    files_total: int = 0
    files_parsed: int = 0
    files_unchanged: int = 0
    files_deleted: int = 0
    files_skipped: int = 0
    warnings: int = 0
    problems: list[dict[str, str]] = field(default_factory=list)
    symbols: int = 0
    edges: int = 0
    index_commit: str | None = None
    started_at: float = 0.0
    duration_ms: int = 0
    phases_ms: dict[str, int] = field(default_factory=dict)
    reason: str | None = None
    dry_run: dict[str, Any] | None = None
    embeddings: dict[str, Any] | None = None

    def to_dict(self) -> ScanBody:
        """The scan document's body: the fields are its keys (znt/results.py ``ScanBody``;
        tests/test_architecture.py holds the two to the same names)."""
        out = dict(self.__dict__)
        if out["dry_run"] is None:
            del out["dry_run"]
        return cast("ScanBody", out)


# The modules (relative to the ``znt`` package) whose code decides what the index holds for a
# file: which files are read, its symbols, references, roles and lexical postings, the text
# its symbols are embedded with, and the edges the resolver derives (an incremental scan
# re-resolves only what changed, so a resolver edit must rebuild the rest too). Every
# ``.py``/``.scm`` of ``index/lang/`` counts as well. A change to any of them forces a full
# rebuild; ``READ_SIDE_MODULES`` are the ones that only read, log or serve, which may change
# without one. tests/test_scan.py checks that every module is in one list or the other.
ROW_SOURCE_MODULES = (
    "graph/interface.py",
    "graph/resolve.py",
    "graph/rules.py",
    "graph/typechains.py",
    "index/canonical.py",
    "index/embed/text.py",
    "index/extract.py",
    "index/ignore.py",
    "index/languages.py",
    "index/lexical.py",
    "index/parse.py",
    "index/roles.py",
    "index/store.py",
    "index/syntax.py",
    "index/typeflow.py",
    "index/walk.py",
    "index/workers.py",
    "pipeline/scan.py",
)
READ_SIDE_MODULES = (
    "graph/__init__.py",
    "graph/repomap.py",
    "graph/similar.py",
    "graph/traverse.py",
    "index/__init__.py",
    "index/embed/__init__.py",
    "index/embed/gemini.py",
    "index/embed/local.py",
    "index/embed/onnx_export.py",
    "index/embed/provider.py",
    "index/embed/remote.py",
    "index/embed/stage.py",
    "index/engine.py",
    "index/log.py",
    "index/manifest.py",
    "index/progress.py",
    "index/readcopy.py",
    "index/search.py",
    "index/watch.py",
    "pipeline/__init__.py",
)


def fingerprint(settings: ProjectSettings) -> str:
    """Anything that changes what a file's rows would be: the extractor and its queries, the
    resolver, the schema, and the project settings (``ROW_SOURCE_MODULES``). A mismatch
    forces a full rebuild."""
    from znt.index.store import SCHEMA_VERSION

    h = hashlib.blake2b(digest_size=12)
    h.update(f"{__version__}|{SCHEMA_VERSION}|".encode())
    h.update(json.dumps(settings.__dict__, sort_keys=True, default=list).encode())
    package = LANG_DIR.parent.parent
    files = [package / m for m in ROW_SOURCE_MODULES]
    files += sorted(p for p in LANG_DIR.iterdir() if p.suffix in (".scm", ".py"))
    for p in files:
        h.update(p.relative_to(package).as_posix().encode())
        h.update(p.read_bytes())
    return h.hexdigest()


@contextlib.contextmanager
def scan_lock(project: Project, notice: Notice | None, timeout: float) -> Iterator[int]:
    from znt.fsguard import open_private

    project.ensure_dir()
    fd = open_private(project.znt_dir, project.scan_lock_path.name, os.O_RDWR | os.O_CREAT)
    try:
        deadline = time.monotonic() + timeout
        told = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise Busy("another scan of this project is still running") from None
                if not told and notice:
                    notice("another scan of this project is running; waiting for it to finish")
                    told = True
                time.sleep(0.05)
        yield fd
    finally:
        os.close(fd)


# What a scan leaves in .znt/ while it runs: its row folder and the index it builds (with
# DuckDB's WAL and spill folder beside it). Only a scan holding the scan lock makes them, so
# any found by the next scan that holds the lock belong to a scan that was killed or stopped
# by a full disk, and are removed.
LEFTOVER_PREFIXES = ("scan-", "index.building-")
# The names DuckDB opens by itself, following links; anything there that is not what DuckDB
# would have made (a link, a FIFO) came with the repository and is removed first.
DUCKDB_FILES = ("index.duckdb", "index.duckdb.wal")
DUCKDB_DIRS = ("index.duckdb.tmp",)


def remove_leftovers(project: Project) -> list[str]:
    """Remove what killed scans left (``LEFTOVER_PREFIXES``) and foreign entries under DuckDB's
    names; returns the names removed. Call with the scan lock held."""
    from znt import fsguard

    removed: list[str] = []
    try:
        names = os.listdir(project.znt_dir)
    except OSError:
        return removed
    for name in names:
        # ``scan-`` names a row folder (made by mkdtemp); ``scan-progress.json`` beside it is
        # the progress file, which is not a leftover.
        folder = name.startswith("scan-") and (project.znt_dir / name).is_dir()
        if folder or name.startswith("index.building-"):
            fsguard.remove_private(project.znt_dir, name)
            removed.append(name)
    fsguard.remove_foreign(project.znt_dir, DUCKDB_FILES, dirs=DUCKDB_DIRS)
    return removed


def _kept_warnings(
    found: WalkResult, known: dict[str, tuple[int, int, str, str | None]], parsed: set[str]
) -> list[tuple[str, str]]:
    """The parse warnings of files not parsed again (the manifest keeps their status): a
    warning does not come and go between two scans of the same file."""
    return [
        (p, parse_error_message(found.files[p].language))
        for p in sorted(
            p
            for p in found.files
            if p not in parsed and (known.get(p) or (0, 0, ""))[2] == "parse_error"
        )
    ]


def _embed_rate(embeddings: dict[str, Any]) -> float | None:
    """Texts per second of this scan's embedding, when it embedded enough to say."""
    done, seconds = embeddings.get("embedded") or 0, embeddings.get("seconds") or 0
    return round(done / seconds, 1) if done >= 20 and seconds > 0 else None


def _debug_pause(phase: str, project: Project) -> None:
    """``ZNT_DEBUG_PAUSE=phase:seconds`` stalls a scan at a phase boundary (after touching
    ``.znt/paused-<phase>``), so the crash-safety and concurrency tests can kill or race a
    scan at a known point. Phases: walked, parsed, before_publish, before_commit."""
    spec = os.environ.get("ZNT_DEBUG_PAUSE")
    if not spec:
        return
    for item in spec.split(","):
        name, _, secs = item.partition(":")
        if name == phase:
            with contextlib.suppress(OSError):
                (project.znt_dir / f"paused-{phase}").touch()
            time.sleep(float(secs or "1"))


class Scanner:
    def __init__(
        self,
        project: Project,
        *,
        language: str | None = None,
        restart: bool = False,
        progress: Progress | None = None,
        notice: Notice | None = None,
        embed: ProviderConfig | None = None,
    ) -> None:
        if language in ("auto", ""):
            language = None
        if language is not None and language not in language_names():
            raise UsageError(
                f"unknown language {language!r}; choose auto or one of: {', '.join(language_names())}"
            )
        self.project = project
        self.language = language
        self.restart = restart
        self.embed = embed
        self.progress = progress or (lambda _p, _d, _t: None)
        self.notice = notice or (lambda _m: None)
        self.log = ScanLog(project.log_path)
        self.log_entries: list[tuple[str, str]] = []
        self.parsed: dict[str, tuple[int, int, str, str]] = {}  # path -> manifest entry
        # path -> what the resolver reads of the file's new rows, digested by its worker
        self.digests: dict[str, tuple[str, str] | None] = {}
        # path -> its new rows in each per-file table, digested by its worker
        self.rows_digests: dict[str, str | None] = {}
        self._prev_embed: dict[str, Any] = {}
        self._lock_fd = -1
        # The index opened for writing during the parse, with the stored digests of the
        # files being parsed (``_open_early``); None until then and once used or closed.
        self._early: _EarlyOpen | None = None
        self.phase_ms: dict[str, int] = {}
        self._phase_start = time.monotonic()

    # -- helpers -------------------------------------------------------------------------

    def _phase(self, name: str) -> None:
        now = time.monotonic()
        self.phase_ms[name] = int((now - self._phase_start) * 1000)
        self._phase_start = now

    def _previous(
        self, fp: str
    ) -> tuple[dict[str, tuple[int, int, str, str | None]] | None, str | None]:
        """The files the index knows: path -> (size, mtime_ns, status, hash).

        ``None`` means there is no usable index and the scan must build one from scratch;
        the second value says why."""
        from znt.index import store

        if self.restart:
            return None, "restart requested"
        if not self.project.index_path.exists():
            return None, None
        try:
            with store.open_index(self.project.index_path, read_only=True) as con:
                meta = store.get_meta(con)
                if meta.get("fingerprint") != fp:
                    return None, "the extractor or project settings changed since the last scan"
                rows = con.execute(
                    "SELECT path, size, mtime_ns, status, hash FROM files"
                ).fetchall()
        except IndexIncompatible as exc:
            self.notice(f"{exc.message.split(';')[0]}; rebuilding it")
            return None, "index from another schema version"
        except Busy:
            raise
        except Exception as exc:  # a damaged file: rebuild rather than misread it
            return None, f"the index could not be read ({type(exc).__name__}); rebuilding it"
        return {r[0]: (r[1], r[2], r[3], r[4]) for r in rows}, None

    # -- the scan ------------------------------------------------------------------------

    def dry_run(self) -> ScanResult:
        started = time.time()
        settings = load_settings(self.project.root)
        found = walk(self.project.root, settings, self.language)
        prev = manifest_mod.load(self.project.manifest_path)
        changed = [
            p
            for p, e in found.files.items()
            if prev is None or prev.files.get(p, (None, None, ""))[:2] != (e.size, e.mtime_ns)
        ]
        by_lang = Counter(e.language for e in found.files.values())
        bytes_by_lang: Counter[str] = Counter()
        folders: Counter[str] = Counter()
        for e in found.files.values():
            bytes_by_lang[e.language] += e.size
            folders[e.path.split("/")[0] if "/" in e.path else "."] += 1
        total_bytes = sum(e.size for e in found.files.values())
        changed_bytes = sum(found.files[p].size for p in changed)
        workers = max(1, min(os.cpu_count() or 1, 8))
        result = self._result("dry_run", started)
        result.files_total = len(found.files)
        result.files_skipped = len(found.skipped)
        result.problems = self._problem_list(found, [])
        result.warnings = len(found.skipped) + len(found.problems)
        result.dry_run = {
            "languages": [
                {"language": k, "files": v, "bytes": bytes_by_lang[k]}
                for k, v in by_lang.most_common()
            ],
            "top_folders": [{"folder": k, "files": v} for k, v in folders.most_common(15)],
            "ignored": [{"source": k, "count": v} for k, v in found.ignored.most_common()],
            "skipped": [{"path": k, "reason": v} for k, v in sorted(found.skipped.items())],
            "bytes": total_bytes,
            "would_parse": len(changed),
            "estimated_seconds": round(changed_bytes / (PARSE_RATE * workers) + 0.3, 1),
            "embeddings": self._embed_estimate(changed_bytes, prev),
        }
        return result

    def _embed_estimate(self, changed_bytes: int, prev: Any) -> dict[str, Any]:
        """How many texts a scan would embed and how long that would take (see
        ``znt.index.embed.stage.estimate``)."""
        from znt.index.embed import stage

        rate = None
        if prev is not None:
            rate = (prev.last_scan.get("embed") or {}).get("texts_per_second")
        return stage.estimate(self.project.index_path, self.embed, changed_bytes, rate)

    def _result(self, mode: str, started: float) -> ScanResult:
        return ScanResult(
            scan_id=f"scan_{time.time_ns()}",
            status="completed",
            mode=mode,
            path=str(self.project.root),
            language=self.language or "auto",
            started_at=round(started, 3),
        )

    @staticmethod
    def _problem_list(
        found: WalkResult, parse_problems: list[tuple[str, str]]
    ) -> list[dict[str, str]]:
        items = (
            sorted(found.problems.items()) + sorted(found.skipped.items()) + sorted(parse_problems)
        )
        return [{"path": p, "message": m} for p, m in items]

    def run(self) -> ScanResult:
        from znt.index.store import lock_timeout

        failure: BaseException | None = None
        with scan_lock(self.project, self.notice, max(lock_timeout(), 600.0)) as fd:
            self._lock_fd = fd
            # Progress in the original's phases for ``status`` (znt/index/progress.py), from
            # the moment this scan holds the lock (a scan waiting for another one must not
            # overwrite that one's progress) until it has released it: the file says
            # ``scanning`` exactly while the lock says so.
            tracker = ProgressFile(self.project, language=self.language)
            caller = self.progress

            def both(step: str, done: int, total: int) -> None:
                tracker(step, done, total)
                caller(step, done, total)

            self.progress = both
            try:
                result = self._run_locked()
            except BaseException as exc:
                failure = exc
                if "no space left on device" in str(exc).lower():
                    # DuckDB reports a full disk as one of its own errors: say it in words
                    # (nothing half-written is left; the previous index is intact).
                    failure = OSError(
                        errno.ENOSPC,
                        "no space left on device; the index was not changed (free some "
                        "space and run `znt scan` again)",
                    )
            finally:
                self.progress = caller
        if failure is not None:
            tracker.failed(
                getattr(failure, "message", None) or f"stopped ({type(failure).__name__})"
            )
            raise failure
        tracker.finish(result.scan_id)
        return result

    def _walk(self, settings: ProjectSettings) -> WalkResult:
        """The walk, reusing the listings of folders unchanged since the last scan's walk
        (``walk.json``; not with ``--restart``), which it then records."""
        path = self.project.walk_cache_path
        cache = (None if self.restart else load_cache(path)) or WalkCache("", 0)
        found = walk(self.project.root, settings, self.language, cache)
        if cache.changed:
            try:
                self.project.ensure_dir()
                save_cache(path, cache)
            except OSError:
                pass  # a cache: the next walk lists every folder again
        return found

    def _run_locked(self) -> ScanResult:
        started = time.time()
        t0 = time.monotonic()
        project = self.project
        remove_leftovers(project)
        settings = load_settings(project.root)
        fp = fingerprint(settings)
        self.progress("ast", 0, 0)
        found = self._walk(settings)
        self._phase("walk")
        _debug_pause("walked", project)

        prev_manifest = manifest_mod.load(project.manifest_path)
        self._prev_embed = (prev_manifest.last_scan.get("embed") or {}) if prev_manifest else {}
        known: dict[str, tuple[int, int, str, str | None]] | None
        reason = None
        if (
            prev_manifest is not None
            and not self.restart
            and prev_manifest.fingerprint == fp
            and prev_manifest.last_scan.get("index_file") == index_file_signature(project)
        ):
            # The manifest's own dict, not a copy: nothing below changes it (a no-op that
            # finds every file as recorded writes it back as it was read).
            known = cast("dict[str, tuple[int, int, str, str | None]]", prev_manifest.files)
        else:
            known, reason = self._previous(fp)
        if self.language is not None and known is not None:
            # A single-language scan leaves the other languages' files alone.
            keep = {p for p, v in known.items() if _lang_of(p) != self.language}
            for p in keep:
                if p not in found.files:
                    found.files[p] = _entry_from_known(p, known[p])

        full = known is None
        if full and reason:
            self.notice(f"building the index from scratch: {reason}")
        known = known or {}
        # A file modified within the clock's resolution of the previous scan may have changed
        # again without a new mtime ("racy" in git's terms): such files are re-hashed.
        racy_after = (
            int(float(prev_manifest.last_scan.get("at") or 0) * 1e9) - RACY_NS
            if prev_manifest
            else 0
        )
        # The loops of a no-op over every file (the monorepo: 10,486): kept plain.
        changed = []
        get = known.get
        for p, e in found.files.items():
            k = get(p)
            if k is None or k[1] != e.mtime_ns or k[0] != e.size or e.mtime_ns >= racy_after:
                changed.append(p)
        files_found = found.files
        deleted = sorted(p for p in known if p not in files_found)
        # Whether a file has a size or mtime other than the recorded one (not only racy).
        moved = any(
            p in known and known[p][:2] != (files_found[p].size, files_found[p].mtime_ns)
            for p in changed
        )
        result = self._result("full" if full else "incremental", started)
        result.reason = reason
        result.files_total = len(found.files)
        parse_problems: list[tuple[str, str]] = []

        if not full and not deleted and changed and len(changed) <= RACY_CHECK_MAX:
            # Only racy candidates: if their content is what the index holds, nothing changed.
            changed = [p for p in changed if not _same_content(project.root, p, known.get(p))]
        if not full and not changed and not deleted:
            kept = _kept_warnings(found, known, set())
            return self._noop(result, t0, prev_manifest, fp, found, known, kept, moved)

        # Not imported before: a no-op (a hook's commonest scan) never parses.
        from znt.index.parse import ParseJob, close_sinks

        jobs = [
            ParseJob(
                p,
                str(project.root / p),
                found.files[p].language,
                known[p][3] if p in known else None,
                embed_tests=settings.embed_tests,
            )
            for p in sorted(changed)
        ]

        project.ensure_dir()
        tmpdir = Path(tempfile.mkdtemp(prefix="scan-", dir=project.znt_dir))
        for job in jobs:
            job.sink = str(tmpdir)
        try:
            touched: list[tuple[str, int]] = []  # same content, new mtime
            replaced: list[str] = []
            vanished: list[str] = []
            total = len(jobs)
            done = 0

            def on_done(n: int) -> None:
                nonlocal done
                done += n
                self.progress("ast", done, total)

            from znt.graph.interface import row_digests

            keep_out = (self._lock_fd,) if self._lock_fd >= 0 else ()
            early = not full and len(jobs) <= EARLY_OPEN_MAX
            paths = [job.path for job in jobs]
            for res in parse_files(
                jobs,
                on_done=on_done,
                close_fds=keep_out,
                meanwhile=(lambda: self._open_early(paths, tmpdir)) if early else _import_writer,
                digest=row_digests,
                on_lost=self._close_early,
            ):
                if isinstance(res, tuple):
                    vanished.append(res[0])
                    parse_problems.append((res[0], "deleted during the scan"))
                    continue
                self._collect(res, touched, replaced, parse_problems)
            close_sinks(str(tmpdir))
            _debug_pause("parsed", self.project)
            self._phase("ast")
            result.files_parsed = len(replaced)
            result.files_unchanged = len(found.files) - len(replaced) - len(vanished)
            result.files_deleted = len(deleted)
            for p in vanished:
                found.files.pop(p, None)
            parse_problems += _kept_warnings(found, known, set(replaced))
            gone = sorted(set(deleted) | set(vanished))
            # Files re-read only because their mtime was suspect, found identical.
            touched = [(p, m) for p, m in touched if known.get(p, (0, -1))[1] != m]
            if not full and not replaced and not gone and not touched:
                self._close_early()
                return self._noop(
                    result, t0, prev_manifest, fp, found, known, parse_problems, moved
                )
            self.progress("persisting", 0, 1)
            generation = uuid.uuid4().hex
            commit = head_commit(project.root)
            meta = {
                "fingerprint": fp,
                "generation": generation,
                "project_root": str(project.root),
                "last_scan_at": str(round(started, 3)),
                "index_commit": commit or "",
                "znt_version": __version__,
            }
            manifest_mod.invalidate(project.manifest_path)
            if full:
                counts = self._write_full(tmpdir, meta)
            else:
                counts = self._write_incremental(tmpdir, meta, replaced, gone, touched)
            # The manifest follows from what we knew and what this scan wrote.
            files = {p: (v[0], v[1], v[2], v[3] or "") for p, v in known.items() if p not in gone}
            for p, m in touched:
                size, _mtime, status, digest = files[p]
                files[p] = (size, m, status, digest)
            files.update(self.parsed)
            self._phase("persisting")
            result.index_commit = commit
            result.problems = self._problem_list(found, parse_problems)
            result.warnings = len(result.problems)
            result.files_skipped = len(found.skipped) + sum(
                1
                for _p, m in parse_problems
                if not m.startswith(("syntax", "invalid", "the tree-sitter"))
            )
            result.symbols, result.edges = counts
            self._finish(result, t0, fp, found, files, generation)
            return result
        finally:
            self._close_early()
            close_sinks(str(tmpdir))
            shutil.rmtree(tmpdir, ignore_errors=True)

    def _open_early(self, paths: list[str], rows: Path) -> None:
        """While the worker parses ``paths`` (a small rescan): import the writer's modules,
        open the index for writing and read the digests stored with ``paths``, which is what
        ``_write_incremental`` starts with. One attempt: if the index is locked or not one
        this version reads, nothing is kept, and the write opens it as before (and reports
        what it finds). The connection starts DuckDB's threads, so a worker that replaces a
        dead one is not forked until it is closed (``parse_files(on_lost=...)``)."""
        _import_writer()
        from znt.index import store

        try:
            con = store.connect(
                self.project.index_path,
                read_only=False,
                timeout=0,
                temp_dir=rows / "duckdb-spill",
            )
        except Exception:
            return
        try:
            store.check_schema(con)
            digests = _stored_digests(con, paths)
        except Exception:
            con.close()
            return
        except BaseException:
            con.close()
            raise
        self._early = _EarlyOpen(con, digests)

    def _close_early(self) -> None:
        """Close the index opened by ``_open_early`` (nothing was written through it)."""
        early, self._early = self._early, None
        if early is not None:
            with contextlib.suppress(Exception):
                early.con.close()

    def _noop(
        self,
        result: ScanResult,
        t0: float,
        prev_manifest: manifest_mod.Manifest | None,
        fp: str,
        found: WalkResult,
        known: dict[str, tuple[int, int, str, str | None]],
        parse_problems: list[tuple[str, str]],
        moved: bool = True,
    ) -> ScanResult:
        result.mode = "noop"
        result.files_parsed = 0
        result.files_unchanged = len(found.files)
        result.problems = self._problem_list(found, parse_problems)
        result.warnings = len(result.problems)
        result.index_commit = head_commit(self.project.root)
        raw_files = None
        if prev_manifest is not None and known is prev_manifest.files and not moved:
            # Every file as the manifest records it: its files are written back as read.
            files, raw_files = prev_manifest.files, prev_manifest.raw_files
            result.symbols = int(prev_manifest.last_scan.get("symbols", 0))
            result.edges = int(prev_manifest.last_scan.get("edges", 0))
            generation = prev_manifest.generation
        elif prev_manifest is not None:
            # Every file is what the index holds, some with a new mtime only (a checkout or
            # rebase rewrote them unchanged): record the mtime seen, so that the next scan
            # and the freshness check (features/status.py) do not take them for changed.
            files = {
                p: (v[0], _seen_mtime(found, p, v), v[2], v[3] or "") for p, v in known.items()
            }
            result.symbols = int(prev_manifest.last_scan.get("symbols", 0))
            result.edges = int(prev_manifest.last_scan.get("edges", 0))
            generation = prev_manifest.generation
        else:
            (result.symbols, result.edges), files, generation = self._counts_and_files()
        self._finish(result, t0, fp, found, files, generation, raw_files)
        return result

    def _collect(
        self,
        res: ParsedFile,
        touched: list[tuple[str, int]],
        replaced: list[str],
        problems: list[tuple[str, str]],
    ) -> None:
        if res.status == "unchanged":
            touched.append((res.path, res.mtime_ns))
            return
        replaced.append(res.path)
        self.parsed[res.path] = (res.size, res.mtime_ns, res.status, res.hash)
        self.digests[res.path] = res.digests
        self.rows_digests[res.path] = res.rows_digest
        for message in (res.error, res.warning):
            if message:
                problems.append((res.path, message))
                self.log_entries.append(("warning", f"{res.path}: {message}"))

    def _write_full(self, rows: Path, meta: dict[str, str]) -> tuple[int, int]:

        project = self.project
        building = project.znt_dir / f"index.building-{os.getpid()}.duckdb"
        from znt.fsguard import remove_private

        for stale in (building.name, building.name + ".wal", building.name + ".tmp"):
            remove_private(project.znt_dir, stale)
        # The new file is private until the rename, so it needs no single transaction; loading
        # and resolving in separate steps keeps DuckDB's memory low.
        try:
            return self._build(building, rows, meta)
        except BaseException:
            for stale in (building.name, building.name + ".wal", building.name + ".tmp"):
                remove_private(project.znt_dir, stale)
            raise

    def _build(self, building: Path, rows: Path, meta: dict[str, str]) -> tuple[int, int]:
        from znt.graph.resolve import rebuild_edges
        from znt.index import lexical, store
        from znt.index.embed.stage import carry_over

        project = self.project
        con = store.connect(building, read_only=False, temp_dir=rows / "duckdb-spill")
        try:
            store.create_schema(con)
            loaded = store.load_csv_folder(con, rows, parallel=True)
            lexical.refresh_terms(con, new_postings=loaded.get("lex_postings"))
            self.progress("building_graph", 1, 1)
            rebuild_edges(con)
            store.create_indexes(con)
            store.set_meta(con, {**meta, "created_at": meta["last_scan_at"]})
            carry_over(con, project.index_path)
            self.progress("indexing", 0, 1)
            con.execute("CHECKPOINT")
            counts = _counts(con)
        finally:
            con.close()
        _debug_pause("before_publish", project)
        # A WAL left by a crashed writer belongs to the old file; it must not be replayed
        # onto the new one.
        with contextlib.suppress(FileNotFoundError):
            (project.znt_dir / "index.duckdb.wal").unlink()
        os.replace(building, project.index_path)
        if self.restart:
            self.log.reset()
        self.log_entries.insert(0, ("info", f"Scanning directory: {project.root}"))
        return counts

    def _write_incremental(
        self,
        rows: Path,
        meta: dict[str, str],
        replaced: list[str],
        gone: list[str],
        touched: list[tuple[str, int]],
    ) -> tuple[int, int]:
        from znt.graph.resolve import rebuild_edges, remember_changed
        from znt.index import lexical, store
        from znt.index.embed.stage import prune

        changed = sorted(set(replaced) | set(gone))
        early, self._early = self._early, None
        if early is not None:
            con = early.con
        else:
            con = store.connect(
                self.project.index_path, read_only=False, temp_dir=rows / "duckdb-spill"
            )
        try:
            if early is None:
                store.check_schema(con)
            con.execute("BEGIN")
            # What other files' edges read of the replaced files, and what their own edges
            # read of them, as stored and as their workers digested the new rows: an edit
            # that leaves the first as it was re-derives the file's own edges only, one that
            # leaves both none (znt/graph/interface.py). Read during the parse when the index
            # was opened then (for every parsed file: ``replaced`` is a part of them).
            before, stored_rows = early.digests if early else _stored_digests(con, replaced)
            after = {p: self.digests.get(p) for p in replaced}
            derive = bool(gone) or any(
                not before.get(p) or before.get(p) != after[p] for p in replaced
            )
            if derive:
                remember_changed(con, changed)
            # The per-file tables where every changed file's rows are what they were (a
            # comment appended leaves its references, imports and embedding texts alone):
            # neither deleted nor loaded again, so the transaction and its checkpoint do
            # not touch them.
            same = (
                set()
                if gone
                else store.same_row_tables(
                    (stored_rows.get(p), self.rows_digests.get(p)) for p in replaced
                )
            )
            if "embed_docs" not in same:
                con.execute(
                    "CREATE TEMP TABLE old_texts AS SELECT DISTINCT text_hash FROM embed_docs "
                    "WHERE file IN (SELECT unnest(?::VARCHAR[]))",
                    [changed],
                )
            if "lex_postings" not in same:
                lexical.forget_postings(con, changed)
            store.delete_files(con, changed, skip=same)
            loaded = store.load_csv_folder(con, rows, skip=same)
            if "lex_postings" not in same:
                lexical.refresh_terms(con, changed, new_postings=loaded.get("lex_postings"))
            if "embed_docs" not in same:
                prune(con, "old_texts")
            if touched:
                con.execute("CREATE TEMP TABLE touched (path VARCHAR, mtime_ns BIGINT)")
                con.execute(
                    "INSERT INTO touched SELECT unnest(?), unnest(?)",
                    [[p for p, _ in touched], [m for _, m in touched]],
                )
                con.execute(
                    "UPDATE files SET mtime_ns = t.mtime_ns FROM touched t WHERE files.path = t.path"
                )
            self.progress("building_graph", 1, 1)
            if derive:
                quiet = [p for p in replaced if _same_interface(before.get(p), after[p])]
                rebuild_edges(con, changed, quiet)
            store.set_meta(con, meta)
            counts = _counts(con)
            _debug_pause("before_commit", self.project)
            con.execute("COMMIT")
        finally:
            con.close()
        for p in gone:
            self.log_entries.append(("info", f"removed {p}"))
        return counts

    def _finish(
        self,
        result: ScanResult,
        t0: float,
        fp: str,
        found: WalkResult,
        files: dict[str, tuple[int, int, str, str]],
        generation: str,
        raw_files: bytes | None = None,
    ) -> None:
        """Embed, then record the scan: the manifest (``raw_files``: its files as the last
        manifest held them, written back without encoding them again), the log."""
        self._embed(result)
        self.progress("completed", 1, 1)
        result.duration_ms = int((time.monotonic() - t0) * 1000)
        result.phases_ms = dict(self.phase_ms)
        last_scan = {
            "scan_id": result.scan_id,
            "mode": result.mode,
            "at": result.started_at,
            "duration_ms": result.duration_ms,
            "files": result.files_total,
            "parsed": result.files_parsed,
            "warnings": result.warnings,
            "symbols": result.symbols,
            "edges": result.edges,
            "index_commit": result.index_commit,
            "embed": {
                "model": (result.embeddings or {}).get("model_key"),
                "complete": (result.embeddings or {}).get("status") in ("completed", "up_to_date"),
                # What `scan --dry-run` estimates embedding time from.
                "texts_per_second": _embed_rate(result.embeddings or {})
                or self._prev_embed.get("texts_per_second"),
            },
            # The index file this manifest describes: any other file under that name (a
            # damaged, replaced or committed one) is read from itself, not trusted.
            "index_file": index_file_signature(self.project),
        }
        manifest_mod.save(
            self.project.manifest_path,
            manifest_mod.Manifest(generation, fp, files, last_scan, raw_files=raw_files),
        )
        for p, message in found.problems.items():
            self.log_entries.append(("warning", f"{p}: {message}"))
        for p, message in found.skipped.items():
            self.log_entries.append(("warning", f"{p}: skipped, {message}"))
        if result.mode == "noop":
            self.log_entries.append(
                ("info", "Project unchanged, reusing cached analysis from .znt")
            )
        else:
            self.log_entries.append(
                (
                    "success",
                    f"Scan complete ({result.mode}): {result.files_parsed} parsed, "
                    f"{result.files_deleted} removed, {result.files_total} files, "
                    f"{result.symbols} symbols, {result.edges} edges, "
                    f"{result.warnings} warnings in {result.duration_ms} ms",
                )
            )
        with contextlib.suppress(OSError):
            self.log.write(self.log_entries)

    def _embed(self, result: ScanResult) -> None:
        """Vectors for new texts (see znt/index/embed/stage.py). A failure is a warning."""
        config = self.embed
        if config is None or config.mode == "bm25":
            why = "--no-embed" if config is None else "provider bm25"
            result.embeddings = {"status": "skipped", "message": why}
            return
        from znt.index.embed import stage

        key = stage.configured_name(config)
        prev = self._prev_embed
        if result.mode == "noop" and prev.get("complete") and prev.get("model") == key:
            result.embeddings = {"status": "up_to_date", "model_key": key}
            return
        report = stage.run(self.project.index_path, config, progress=self.progress)
        self._phase("embedding")
        result.embeddings = {**report.to_dict(), "model_key": key}
        if report.status in ("partial", "failed"):
            message = (
                f"embeddings {report.status}: {report.message}; {report.missing} texts have "
                "no vector yet (lexical search and the graph are complete; "
                "run `znt scan` again to resume)"
            )
            result.problems.append({"path": "", "message": message})
            result.warnings += 1
            self.log_entries.append(("warning", message))
            self.notice(message)
        elif report.embedded:
            self.log_entries.append(
                (
                    "info",
                    f"embedded {report.embedded} texts with {key} in {report.seconds}s",
                )
            )

    def _counts_and_files(
        self,
    ) -> tuple[tuple[int, int], dict[str, tuple[int, int, str, str]], str]:
        from znt.index import store

        with store.open_index(self.project.index_path, read_only=True) as con:
            generation = store.get_meta(con).get("generation", "unknown")
            counts = _counts(con)
            rows = con.execute("SELECT path, size, mtime_ns, status, hash FROM files").fetchall()
        files = {r[0]: (int(r[1] or 0), int(r[2] or 0), str(r[3]), str(r[4] or "")) for r in rows}
        return counts, files, generation


def parse_files(*args: Any, **kwargs: Any) -> Iterator[ParsedFile | tuple[str, None]]:
    """``znt.index.parse.parse_files``, imported when a scan parses: the module brings the
    extractor, the lexical and embedding rows and the sink (6.6-9.8 ms of imports, which a
    no-op rescan does without). tests/test_incremental_scope.py wraps this name to see
    which files a scan hands to its workers."""
    from znt.index.parse import parse_files as parse

    return parse(*args, **kwargs)


def _import_writer() -> None:
    """Import what writing the index needs while the parse workers run: on a one-file rescan
    the two used to follow each other. DuckDB's engine is about 15 ms of it since decision
    0031 (the whole ``duckdb`` package was ~75 ms, longer than the worker's parse).
    Imports only: connecting starts DuckDB's threads, and a parse worker that replaces a
    dead one is forked from this process; a small rescan connects too, in
    ``Scanner._open_early``, which the pool closes before it forks a replacement."""
    from znt.graph import interface, resolve  # noqa: F401
    from znt.index import lexical, store  # noqa: F401
    from znt.index.embed import stage  # noqa: F401
    from znt.index.engine import duckdb  # noqa: F401


@dataclass
class _EarlyOpen:
    """The index opened for writing during a small rescan's parse (``Scanner._open_early``)."""

    con: Any
    digests: tuple[dict[str, tuple[str, str] | None], dict[str, str | None]]


def _stored_digests(
    con: Any, paths: list[str]
) -> tuple[dict[str, tuple[str, str] | None], dict[str, str | None]]:
    """The digests stored with each of ``paths`` the index holds: the resolver's pair (None
    where a file has none: its worker crashed, or it was never parsed), and its rows'."""
    rows = con.execute(
        "SELECT path, interface_digest, inputs_digest, rows_digest FROM files "
        "WHERE path IN (SELECT unnest(?::VARCHAR[]))",
        [paths],
    ).fetchall()
    pairs = {p: (a, b) if a is not None and b is not None else None for p, a, b, _r in rows}
    return pairs, {p: r for p, _a, _b, r in rows}


def _same_interface(old: tuple[str, str] | None, new: tuple[str, str] | None) -> bool:
    """Both digests known and the interface's the same: other files' edges cannot change."""
    return old is not None and new is not None and old[0] == new[0]


def _counts(con: Any) -> tuple[int, int]:
    """(project symbols, edges) of an open index."""
    row = con.execute(
        "SELECT (SELECT count(*) FROM symbols), (SELECT count(*) FROM edges)"
    ).fetchone()
    return (int(row[0]), int(row[1])) if row else (0, 0)


def index_file_signature(project: Project) -> list[int] | None:
    """(device, inode, size, mtime) of the index file, or None when it is not a regular file:
    the manifest records it, so a rescan trusts the manifest only for that very file."""
    import stat

    try:
        st = os.stat(project.index_path, follow_symlinks=False)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns]


def _seen_mtime(found: WalkResult, rel: str, known: tuple[int, int, str, str | None]) -> int:
    """The walk's mtime of a file whose size is the recorded one, else the recorded mtime."""
    entry = found.files.get(rel)
    return entry.mtime_ns if entry is not None and entry.size == known[0] else known[1]


def _same_content(root: Path, rel: str, known: tuple[int, int, str, str | None] | None) -> bool:
    """True when the file's size and content hash are what the index recorded."""
    if known is None or known[3] is None:
        return False
    from znt.fsguard import read_source

    try:
        data, _st = read_source(root, rel)
    except OSError:
        return False
    return len(data) == known[0] and manifest_mod.content_hash(data) == known[3]


def _lang_of(path: str) -> str | None:
    from znt.index.languages import language_for

    spec = language_for(path)
    return spec.name if spec else None


def _entry_from_known(path: str, known: tuple[int, int, str, str | None]) -> Any:
    from znt.index.walk import FileEntry

    return FileEntry(path, known[0], known[1], _lang_of(path) or "")
