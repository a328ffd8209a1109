"""The DuckDB file: schema, versioning, and opening it without tripping over other processes.

DuckDB's file lock is exclusive across processes: while one process has the file open
read-write nobody else can open it, and while anyone reads, nobody can write. So no process
keeps the index open between operations, writers hold it only for a short final
transaction, and an opener that finds it locked waits and retries within a bound
(``ZNT_LOCK_TIMEOUT`` seconds, default 60) instead of failing. See
docs/decisions/0002-index-concurrency.md.
"""

from __future__ import annotations

import contextlib
import csv
import io
import itertools
import os
import random
import sys
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from znt.errors import Busy, IndexCorrupt, IndexIncompatible, IndexMissing

if TYPE_CHECKING:
    import duckdb

SCHEMA_VERSION = 8

# ``edges.resolution`` of an edge that left the project graph: the callee is unknown (or a
# local variable's method, or one of several candidates).
UNRESOLVED = frozenset({"unresolved", "local", "ambiguous"})

T = TypeVar("T")

TABLES: dict[str, tuple[tuple[str, str], ...]] = {
    "files": (
        ("path", "VARCHAR"),
        ("dir", "VARCHAR"),
        ("language", "VARCHAR"),
        ("size", "BIGINT"),
        ("mtime_ns", "BIGINT"),
        ("hash", "VARCHAR"),
        ("lines", "INTEGER"),
        ("status", "VARCHAR"),
        ("error", "VARCHAR"),
        ("module_name", "VARCHAR"),
        # What the resolver reads of the file, as two digests its parse worker computed
        # (znt/graph/interface.py): an incremental scan compares them, nothing else reads them.
        ("interface_digest", "VARCHAR"),
        ("inputs_digest", "VARCHAR"),
        # A digest of the file's rows in each of ``ROW_DIGEST_TABLES`` (``rows_digest``):
        # a rescan leaves the tables where they are the same alone.
        ("rows_digest", "VARCHAR"),
    ),
    "symbols": (
        ("id", "VARCHAR"),
        ("file", "VARCHAR"),
        ("name", "VARCHAR"),
        ("qualified_name", "VARCHAR"),
        ("type", "VARCHAR"),
        ("kind", "VARCHAR"),
        ("parent_id", "VARCHAR"),
        ("start_line", "INTEGER"),
        ("end_line", "INTEGER"),
        ("start_byte", "INTEGER"),
        ("end_byte", "INTEGER"),
        ("signature", "VARCHAR"),
        ("doc", "VARCHAR"),
        ("role", "VARCHAR"),
        ("language", "VARCHAR"),
        ("card", "VARCHAR"),  # what search shows of it, as JSON (SEARCH_CARD_SQL)
    ),
    "refs": (
        ("file", "VARCHAR"),
        ("src", "VARCHAR"),
        ("kind", "VARCHAR"),
        ("expr", "VARCHAR"),
        ("line", "INTEGER"),
        ("col", "INTEGER"),
        ("count", "INTEGER"),
        ("target", "VARCHAR"),
        ("resolution", "VARCHAR"),
    ),
    "imports": (
        ("file", "VARCHAR"),
        ("line", "INTEGER"),
        ("module", "VARCHAR"),
        ("name", "VARCHAR"),
        ("alias", "VARCHAR"),
        ("local", "VARCHAR"),
    ),
    "import_candidates": (
        ("file", "VARCHAR"),
        ("line", "INTEGER"),
        ("local", "VARCHAR"),
        ("prio", "INTEGER"),
        ("path", "VARCHAR"),
        ("mode", "VARCHAR"),
        ("member", "VARCHAR"),
    ),
    "edges": (
        ("src", "VARCHAR"),
        ("dst", "VARCHAR"),
        ("kind", "VARCHAR"),
        ("confidence", "DOUBLE"),
        ("resolution", "VARCHAR"),
        ("file", "VARCHAR"),
        ("line", "INTEGER"),
        ("count", "INTEGER"),
    ),
    # The lexical index (znt/index/lexical.py): one document per symbol and its postings.
    "lex_docs": (
        ("file", "VARCHAR"),
        ("sym", "VARCHAR"),
        ("sid", "BIGINT"),
        ("dl", "FLOAT"),
        ("role", "VARCHAR"),
        ("type", "VARCHAR"),
        ("kind", "VARCHAR"),
    ),
    # Each term's postings, as lists per bucket of files: built from the staged postings
    # (``STAGED_COLUMNS["lex_postings"]``) by lexical.refresh_terms; what queries read.
    # ``lex_postings`` is a view of it, one row per posting (``LEX_POSTINGS_SQL``).
    "lex_terms": (
        ("term", "VARCHAR"),
        ("bucket", "SMALLINT"),
        ("df", "INTEGER"),
        ("syms", "BIGINT[]"),
        ("wtfs", "FLOAT[]"),
    ),
    # The texts a symbol is embedded as (znt/index/embed/text.py); vectors live in
    # ``embeddings`` keyed by text_hash, created by the embedding stage of a scan.
    "embed_docs": (
        ("file", "VARCHAR"),
        ("sym", "VARCHAR"),
        ("part", "INTEGER"),
        ("text_hash", "VARCHAR"),
        ("text", "VARCHAR"),
    ),
}

# ``refs`` kinds that are facts for the resolver (znt/graph/resolve.py), never references
# in the code nor edges of their own: what a function returns, what a file exports, a C/C++
# prototype, a stub method, a function's decorators, the wrapper a decorator returns and
# the objects a JavaScript function mixes into what it returns (``mixes``), the other names
# a JavaScript function is assigned to (``aliases``).
RESOLVER_FACTS = (
    "'returns', 'exports', 'declares', 'abstract', 'decorated', 'wraps', 'mixes', 'aliases'"
)

# Per-file tables: a file's rows are replaced as a whole when the file changes.
FILE_TABLES = (
    "files",
    "symbols",
    "refs",
    "imports",
    "import_candidates",
    "lex_docs",
    "embed_docs",
)
# What a file's ``rows_digest`` covers, in its order: the rows its parse worker stages for
# each per-file table but ``files`` (whose row holds the digest), and its staged postings,
# which are folded into ``lex_terms`` rather than stored as they are.
ROW_DIGEST_TABLES = (
    "symbols",
    "refs",
    "imports",
    "import_candidates",
    "lex_docs",
    "lex_postings",
    "embed_docs",
)
_ROW_DIGEST_HEX = 24  # 12 bytes of BLAKE2b per table


def rows_digest(texts: Mapping[str, str]) -> str:
    """``files.rows_digest``: each of ``ROW_DIGEST_TABLES``' rows of one file, as the CSV
    text a sink loads (``texts``, a table missing for a file without rows there), hashed in
    the table order. Equal digests mean equal rows: the CSV is the rows, field by field."""
    from hashlib import blake2b

    return "".join(
        blake2b(texts.get(t, "").encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()
        for t in ROW_DIGEST_TABLES
    )


def same_row_tables(pairs: Iterable[tuple[str | None, str | None]]) -> set[str]:
    """The tables of ``ROW_DIGEST_TABLES`` whose rows are the same for every file of
    ``pairs`` (its stored ``rows_digest``, the one its parse worker made now): those a rescan
    need not replace. A digest missing on either side counts as different."""
    same = set(ROW_DIGEST_TABLES)
    for old, new in pairs:
        if not old or not new or len(old) != len(new):
            return set()
        for i, table in enumerate(ROW_DIGEST_TABLES):
            at = i * _ROW_DIGEST_HEX
            if old[at : at + _ROW_DIGEST_HEX] != new[at : at + _ROW_DIGEST_HEX]:
                same.discard(table)
    return same


def lock_timeout() -> float:
    try:
        return float(os.environ.get("ZNT_LOCK_TIMEOUT", "60"))
    except ValueError:
        return 60.0


def _is_lock_error(exc: Exception) -> bool:
    """DuckDB's "Could not set lock on file ... Conflicting lock is held": not any message
    with "lock" in it ("... checksum ... in block at location 4096" is a damaged file)."""
    text = str(exc).lower()
    return "could not set lock" in text or "conflicting lock" in text


def _retrying(open_once: Callable[[], T], timeout: float | None) -> T:
    """Call ``open_once`` until it stops failing on another process's lock, within a bound."""
    from znt.index.engine import duckdb

    deadline = time.monotonic() + (lock_timeout() if timeout is None else timeout)
    delay = 0.01
    while True:
        try:
            return open_once()
        except duckdb.IOException as exc:
            if not _is_lock_error(exc) or time.monotonic() >= deadline:
                if _is_lock_error(exc):
                    raise Busy(
                        "the index is locked by another znt process; try again when it finishes"
                    ) from None
                raise
            time.sleep(delay * (1 + random.random()))
            delay = min(delay * 2, 0.25)


def connect(
    path: Path, *, read_only: bool, timeout: float | None = None, temp_dir: Path | None = None
) -> duckdb.DuckDBPyConnection:
    """Open the index, retrying while another process holds a conflicting lock.

    DuckDB spills to ``temp_dir`` (a folder of the scan's own, made fresh) or nowhere: its
    default, ``<database>.tmp`` beside the file, is a name a repository can ship as a link."""
    from znt.index.engine import duckdb

    def once() -> duckdb.DuckDBPyConnection:
        config: dict[str, str | bool | int | float | list[str]] = {
            "temp_directory": str(temp_dir) if temp_dir is not None else ""
        }
        con = duckdb.connect(str(path), read_only=read_only, config=config)
        con.execute("SET threads TO 2")
        return con

    return _retrying(once, timeout)


_reader: duckdb.DuckDBPyConnection | None = None
_reader_lock = threading.Lock()
_aliases = itertools.count()


def _reader_instance() -> duckdb.DuckDBPyConnection:
    """This process's in-memory DuckDB instance that read-only opens attach the index to.

    Creating a DuckDB instance costs about 40 ms of CPU (its built-in catalog is set up per
    instance), while ATTACH/DETACH of a file costs about 2 ms: on sympy's index that was most
    of an in-process search. The file itself is still attached only for one operation, so no
    lock is held between operations (DESIGN §8)."""
    global _reader
    with _reader_lock:
        if _reader is None:
            from znt.index.engine import duckdb

            # No spill folder: the default would be ``.tmp`` in the working directory.
            _reader = duckdb.connect(":memory:", config={"temp_directory": ""})
            _reader.execute("SET threads TO 2")
        return _reader


def _debug_read_sleep() -> None:
    """``ZNT_DEBUG_READ_SLEEP=seconds`` holds every read of the index file that long with the
    file attached, so the MCP tests can close stdin in the middle of a call that holds it."""
    spec = os.environ.get("ZNT_DEBUG_READ_SLEEP")
    if spec:
        time.sleep(float(spec))


@contextlib.contextmanager
def _attached(path: Path, timeout: float | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """A cursor of the shared reader instance with ``path`` attached read-only as its default
    catalog; detached (lock released) on exit. Each call gets its own cursor and alias, so
    threads can read at the same time."""
    cur = _reader_instance().cursor()
    alias = f"znt_index_{next(_aliases)}"
    quoted = str(path).replace("'", "''")
    try:
        _retrying(lambda: cur.execute(f"ATTACH '{quoted}' AS {alias} (READ_ONLY)"), timeout)
        cur.execute(f"USE {alias}")
        _debug_read_sleep()
        yield cur
    finally:
        with contextlib.suppress(Exception):
            cur.execute("USE memory")
            cur.execute(f"DETACH DATABASE IF EXISTS {alias}")
        cur.close()


@contextlib.contextmanager
def open_index(path: Path, *, read_only: bool = True) -> Iterator[duckdb.DuckDBPyConnection]:
    """A short-lived connection to an existing index whose schema version we understand.

    Read-only opens attach the file to a shared in-memory instance (see
    ``_reader_instance``); writers get a connection of their own."""
    _check_file(path)
    if read_only:
        from znt.index.engine import duckdb

        try:
            # Copies exist only where ``readcopy.enable`` ran; a one-shot command never
            # imports it.
            readcopy = sys.modules.get("znt.index.readcopy")
            copy = readcopy.acquire(path) if readcopy is not None else None
            # A private copy of this very state of the file (long-lived processes only) is
            # read with its own meta; ``opened_path`` names the copy, whose indexes differ.
            opened = readcopy.cursor(copy) if readcopy is not None and copy else _attached(path)
            with opened as cur:
                meta = copy.meta if copy is not None else _all_meta(cur)
                if not meta:
                    raise _damaged(path, "it has no readable meta table")
                _check_version(meta.get("schema_version"))
                _opened[id(cur)] = (str(copy.file if copy is not None else path), meta, copy)
                try:
                    yield cur
                finally:
                    _opened.pop(id(cur), None)
        except duckdb.Error as exc:
            if _looks_damaged(exc):
                _forget_reader()
                raise _damaged(path, "DuckDB cannot read it as a database") from None
            raise
        return
    con = connect(path, read_only=False)
    try:
        check_schema(con)
        yield con
    finally:
        con.close()


def _check_file(path: Path) -> None:
    """``IndexMissing`` when there is no index, ``IndexCorrupt`` when something other than a
    regular file has its name (a folder, or a link a repository shipped: DuckDB would read
    through it)."""
    import stat

    try:
        st = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        raise IndexMissing(
            f"no index at {path.parent.parent}; run `znt scan` first", path=str(path)
        ) from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a symbolic link" if stat.S_ISLNK(st.st_mode) else "not a regular file"
        raise _damaged(path, kind)
    wal = path.with_name(path.name + ".wal")
    with contextlib.suppress(FileNotFoundError):
        if not stat.S_ISREG(os.stat(wal, follow_symlinks=False).st_mode):
            raise _damaged(path, f"{wal.name} is not a regular file")


def _damaged(path: Path, why: str) -> IndexCorrupt:
    return IndexCorrupt(
        f"the index at {path} is damaged ({why}); run `znt scan` to rebuild it",
        path=str(path),
    )


# What DuckDB says when a file is not (or no longer) a sound database.
_DAMAGE_WORDS = (
    "corrupt",
    "checksum",
    "not a valid duckdb",
    "could not read",
    "invalid block",
    "serialization",
    "failed to read",
    "unexpected end",
    "invalidated",
)


def _looks_damaged(exc: Exception) -> bool:
    from znt.index.engine import duckdb

    if _is_lock_error(exc):
        return False
    if isinstance(
        exc,
        (
            duckdb.IOException,
            duckdb.SerializationException,
            duckdb.InternalException,
            duckdb.FatalException,
        ),
    ):
        return True
    text = str(exc).lower()
    return any(w in text for w in _DAMAGE_WORDS)


def _forget_reader() -> None:
    """Drop the shared reader instance: DuckDB may have invalidated it after reading a damaged
    file, and every later read would fail."""
    global _reader
    with _reader_lock:
        old, _reader = _reader, None
    if old is not None:
        with contextlib.suppress(Exception):
            old.close()


# Per cursor of ``open_index(read_only=True)``: the file it reads, that index's meta rows,
# read once there (the schema check needs them anyway) for ``get_meta`` (a statement on an
# index attached for one call costs about a millisecond), and whether the file is a private
# read copy (znt/index/readcopy.py).
_opened: dict[int, tuple[str, dict[str, str], Any]] = {}


def opened_path(con: duckdb.DuckDBPyConnection) -> str | None:
    """The index file a cursor from ``open_index(read_only=True)`` reads, else None."""
    entry = _opened.get(id(con))
    return entry[0] if entry else None


def read_copy(con: duckdb.DuckDBPyConnection) -> Any:
    """The ``readcopy.ReadCopy`` a cursor from ``open_index`` reads (it has tables of its
    own: ``readcopy.READ_COPY_TABLES``), else None."""
    entry = _opened.get(id(con))
    return entry[2] if entry else None


def _all_meta(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    try:
        return {k: v for k, v in con.execute("SELECT key, value FROM meta").fetchall()}
    except Exception:
        return {}


def check_schema(con: duckdb.DuckDBPyConnection) -> None:
    try:
        row = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except Exception:
        row = None
    if row is None:
        path = _database_path(con)
        if path is not None:
            raise _damaged(path, "it has no readable meta table")
    _check_version(row[0] if row else None)


def _database_path(con: duckdb.DuckDBPyConnection) -> Path | None:
    try:
        row = con.execute(
            "SELECT path FROM duckdb_databases() WHERE database_name = current_database()"
        ).fetchone()
    except Exception:
        return None
    return Path(row[0]) if row and row[0] else None


def _check_version(value: str | None) -> None:
    try:
        version = int(value) if value is not None else None
    except ValueError:
        version = None
    if version != SCHEMA_VERSION:
        raise IndexIncompatible(
            f"the index was written with schema version {version}, this znt reads "
            f"{SCHEMA_VERSION}; run `znt scan --restart` to rebuild it",
            found=version,
            expected=SCHEMA_VERSION,
        )


# External nodes are not stored: they are the edge targets outside the project, so they can
# never go stale. ``nodes`` is every node, project and external alike. (Also the views of an
# exported dataset, znt/export/dataset.py.)
EXTERNALS_SQL = """
    SELECT DISTINCT dst AS id,
           regexp_extract(substr(dst, 6), '[^.]*$') AS name,
           substr(dst, 6) AS qualified_name,
           CASE WHEN starts_with(dst, 'dep::') THEN 'dependency' ELSE 'function' END AS type,
           CASE WHEN starts_with(dst, 'dep::') THEN 'dependency' ELSE 'external' END AS kind,
           'dependency' AS role
    FROM edges
    WHERE starts_with(dst, 'ext::') OR starts_with(dst, 'dep::')
"""
NODES_SQL = """
    SELECT id, file, name, qualified_name, type, kind, parent_id, start_line, end_line,
           signature, doc, role, language
    FROM symbols
    UNION ALL
    SELECT id, NULL, name, qualified_name, type, kind, NULL, NULL, NULL, NULL, NULL, role, NULL
    FROM externals
"""

# Every posting of ``lex_terms`` as a row, with its document's file: what a per-posting
# table held until schema 8 (docs/decisions/0034-postings-only-in-term-lists.md), for SQL
# and the export. Nothing of a scan or a search reads it.
LEX_POSTINGS_COLUMNS = (
    ("file", "VARCHAR"),
    ("sid", "BIGINT"),
    ("term", "VARCHAR"),
    ("wtf", "FLOAT"),
)
LEX_POSTINGS_SQL = """
    SELECT d.file, t.sid, t.term, t.wtf
    FROM (SELECT term, unnest(syms) AS sid, unnest(wtfs) AS wtf FROM lex_terms) t
    JOIN lex_docs d USING (sid)
"""


def create_schema(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
    for table, cols in TABLES.items():
        body = ", ".join(f"{name} {typ}" for name, typ in cols)
        con.execute(f"CREATE TABLE IF NOT EXISTS {table} ({body})")
    con.execute(f"CREATE OR REPLACE VIEW externals AS {EXTERNALS_SQL}")
    con.execute(f"CREATE OR REPLACE VIEW nodes AS {NODES_SQL}")
    con.execute(f"CREATE OR REPLACE VIEW lex_postings AS {LEX_POSTINGS_SQL}")
    set_meta(con, {"schema_version": str(SCHEMA_VERSION)})


def set_meta(con: duckdb.DuckDBPyConnection, values: Mapping[str, str | None]) -> None:
    if not values:
        return
    con.execute(
        "INSERT INTO meta SELECT unnest(?), unnest(?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        [list(values.keys()), list(values.values())],
    )


def insert_rows(
    con: duckdb.DuckDBPyConnection,
    table: str,
    rows: Sequence[Sequence[Any]],
    columns: Sequence[tuple[str, str]],
) -> None:
    """Insert Python rows into ``table`` (whose columns are ``columns``, names and types) in
    one statement, as one list per column. ``executemany`` runs its statement once per
    row: 20,000 edges took 14.5 s through it against 0.4 s this way (DuckDB 2.0.1)."""
    if not rows:
        return
    select = ", ".join(f"unnest(?::{typ}[])" for _name, typ in columns)
    con.execute(
        f"INSERT INTO {table} SELECT {select}", [list(col) for col in zip(*rows, strict=True)]
    )


def temp_table(
    con: duckdb.DuckDBPyConnection,
    name: str,
    columns: Sequence[tuple[str, str]],
    rows: Sequence[Sequence[Any]],
) -> None:
    """A temporary table ``name`` of ``columns`` holding ``rows`` (``insert_rows``)."""
    body = ", ".join(f"{col} {typ}" for col, typ in columns)
    con.execute(f"CREATE OR REPLACE TEMP TABLE {name} ({body})")
    insert_rows(con, name, rows, columns)


def get_meta(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    entry = _opened.get(id(con))
    if entry is not None:
        return dict(entry[1])
    return {k: v for k, v in con.execute("SELECT key, value FROM meta").fetchall()}


def csv_field(value: str) -> str:
    """``value`` as a sink's CSV writer writes it as one field of a row (quoted and its
    quotes doubled when it holds a comma, a quote or a line break)."""
    buf = io.StringIO(newline="")
    csv.writer(buf).writerow([value, "x"])
    return buf.getvalue()[: -len(",x\r\n")]


def csv_rows(rows: Iterable[Sequence[Any]]) -> str:
    """``rows`` as a sink's CSV writer writes them, for ``CsvSink.add_text``: a caller that
    needs the text too (``rows_digest``) serialises once."""
    buf = io.StringIO(newline="")
    csv.writer(buf).writerows(rows)
    return buf.getvalue()


# Characters of CSV a sink holds per table before it writes them out (flush writes the rest).
SINK_BUFFER = 1 << 20


class CsvSink:
    """Rows per table, written to CSV files in a folder and loaded in one statement each.

    DuckDB's CSV reader is two orders of magnitude faster than ``executemany``. Every process
    (the parse workers included) appends to files of its own (``<table>-<pid>.csv``), so
    rows are serialised in parallel and a cold scan's memory stays flat. Empty strings and
    ``None`` both arrive as NULL, which the schema treats alike.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        # table -> (its file, the rows not yet written to it, the CSV writer of those).
        # The writer serialises into memory and the file gets one write per flush: through
        # the file's text layer, every row was a write call and an encode of its own
        # (about 30% of the CSV cost of a parse worker).
        self._files: dict[str, tuple[Any, io.StringIO, Any]] = {}

    def add(self, table: str, rows: Iterable[Sequence[Any]]) -> None:
        entry = self._entry(table)
        entry[2].writerows(rows)
        if entry[1].tell() > SINK_BUFFER:
            self._write_out(entry)

    def add_text(self, table: str, text: str) -> None:
        """Rows already written as CSV, exactly as ``add`` would write them (a caller that
        knows its fields need no quoting formats them several times faster)."""
        entry = self._entry(table)
        entry[1].write(text)
        if entry[1].tell() > SINK_BUFFER:
            self._write_out(entry)

    def _entry(self, table: str) -> tuple[Any, io.StringIO, Any]:
        entry = self._files.get(table)
        if entry is None:
            path = self.folder / f"{table}-{os.getpid()}.csv"
            fh = open(path, "a", newline="", encoding="utf-8", errors="replace")  # noqa: SIM115
            buf = io.StringIO(newline="")
            entry = (fh, buf, csv.writer(buf))
            self._files[table] = entry
        return entry

    @staticmethod
    def _write_out(entry: tuple[Any, io.StringIO, Any]) -> None:
        fh, buf, _writer = entry
        fh.write(buf.getvalue())
        buf.seek(0)
        buf.truncate()

    def flush(self) -> None:
        for entry in self._files.values():
            self._write_out(entry)
            entry[0].flush()

    def sizes(self) -> dict[str, int]:
        """Path -> bytes of each file, after ``flush``."""
        return {
            fh.name: os.fstat(fh.fileno()).st_size for fh, _buf, _writer in self._files.values()
        }

    def close(self) -> None:
        for entry in self._files.values():
            with contextlib.suppress(Exception):
                self._write_out(entry)
            with contextlib.suppress(Exception):
                entry[0].close()
        self._files.clear()


# ART indexes for point lookups of the graph queries (znt/graph/traverse.py shapes its SQL by
# what exists). Created after a full build's bulk load, which is cheaper than maintaining them
# row by row during it; incremental scans keep them up to date. None on ``edges``: a rescan of
# a file many others import replaces the edges of every importer, and keeping edges(src) and
# edges(dst) cost 20-28 s of COMMIT on sympy against 0.2 s without them, for graph reads at
# most ~2x slower (docs/decisions/0011-no-art-index-on-edges.md).
INDEXES = {
    "symbols_id": ("symbols", "id"),
    "symbols_qname": ("symbols", "qualified_name"),
    "symbols_name": ("symbols", "name"),
    "lex_terms_term": ("lex_terms", "term"),
}


def create_indexes(con: duckdb.DuckDBPyConnection) -> None:
    for name, (table, column) in INDEXES.items():
        con.execute(f"CREATE INDEX IF NOT EXISTS {name} ON {table} ({column})")


# What search shows of a symbol (``symbols.card``), one JSON text built from its row as the
# row is loaded. A page of results is fetched by id through the ART index, and on an index
# attached for one call each fetched column costs a decompression of its own: one column
# instead of eleven made a 10-row lookup on sympy about 1.6x faster (6.1 against 4.0 ms).
SEARCH_CARD_SQL = (
    "json_object('name', name, 'qualified_name', qualified_name, 'type', type, 'kind', kind, "
    "'role', role, 'file', file, 'start_line', start_line, 'end_line', end_line, "
    "'signature', coalesce(signature, ''), "
    "'description', left(split_part(coalesce(doc, ''), chr(10) || chr(10), 1), 300), "
    "'language', language)::VARCHAR"
)

# Rows the parse workers stage in other columns than a table's, and how a load completes
# them. Columns that other columns determine are not written, hashed and parsed again once
# per row (on the monorepo benchmark they were 55% of the staged CSV): a symbol's card (324
# of a row's 730 bytes) is built by the load (``SEARCH_CARD_SQL``). Postings are no table:
# one row per document, its terms and their weights as two lists separated by spaces in the
# same order (lexical.document_rows), which lexical.refresh_terms folds into ``lex_terms``.
STAGED_COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "symbols": TABLES["symbols"][:-1],
    "lex_postings": (("sid", "BIGINT"), ("terms", "VARCHAR"), ("wtfs", "VARCHAR")),
}
_STAGED_LOAD = {
    "symbols": f"SELECT *, {SEARCH_CARD_SQL} FROM {{source}}",
}


def staged_rows(folder: Path, table: str) -> str | None:
    """A ``read_csv`` of the rows of ``table`` its parse workers wrote to ``folder``
    (``<table>-*.csv``), to select from; None when there are none. The paths are quoted in
    the SQL: they are the scan's own folder and its own file names."""
    parts = sorted(str(p) for p in folder.glob(f"{table}-*.csv") if p.stat().st_size)
    if not parts:
        return None
    columns = ", ".join(f"'{n}': '{t}'" for n, t in STAGED_COLUMNS.get(table) or TABLES[table])
    listed = ", ".join("'" + p.replace("'", "''") + "'" for p in parts)
    return (
        f"read_csv([{listed}], header = false, delim = ',', auto_detect = false, "
        f"quote = '\"', escape = '\"', columns = {{{columns}}}, strict_mode = true)"
    )


def load_csv_folder(
    con: duckdb.DuckDBPyConnection,
    folder: Path,
    skip: Collection[str] = (),
    parallel: bool = False,
) -> dict[str, str]:
    """Insert every ``<table>-*.csv`` of ``folder`` into its table (but the tables in
    ``skip``: a rescan's tables whose rows the changed files left as they were); the
    ``staged_rows`` source of each table loaded, for a caller that reads them again (in
    its staged columns, ``STAGED_COLUMNS``), and of the staged postings, which are not
    loaded here but folded into ``lex_terms`` (lexical.refresh_terms) unless skipped.

    ``parallel`` (a full build): two tables load at a time, each through a cursor of its
    own, largest first. A load is mostly one thread's work (the CSV parse of a table's one
    or two files, the card of each symbol), so one at a time left a core idle: on the
    monorepo benchmark the loads took 2.6 against 3.1 s and the whole build 8.9 against
    10.0 s, at the same peak memory (docs/benchmarks/scan.md, seventeenth session)."""
    statements: dict[str, str] = {}
    sources: dict[str, str] = {}
    for table in TABLES:
        if table in skip:
            continue
        source = staged_rows(folder, table)
        if source is None:
            continue
        select = _STAGED_LOAD.get(table, "SELECT * FROM {source}")
        statements[table] = f"INSERT INTO {table} " + select.format(source=source)
        sources[table] = source
    postings = None if "lex_postings" in skip else staged_rows(folder, "lex_postings")
    if postings is not None:
        sources["lex_postings"] = postings
    if not parallel:
        for sql in statements.values():
            con.execute(sql)
        return sources
    sizes = {
        table: sum(p.stat().st_size for p in folder.glob(f"{table}-*.csv")) for table in statements
    }
    _run_concurrently(
        con, [statements[t] for t in sorted(statements, key=sizes.__getitem__, reverse=True)]
    )
    return sources


def _run_concurrently(con: duckdb.DuckDBPyConnection, statements: Sequence[str]) -> None:
    """Run ``statements`` two at a time, in the order given, each through a cursor of its
    own (a statement per transaction, as ``con.execute`` would). The first error stops the
    rest and is raised; an interrupt of the waiting thread interrupts the running ones."""
    from concurrent.futures import ThreadPoolExecutor

    pending = list(reversed(statements))
    lock = threading.Lock()
    cursors = [con.cursor() for _ in range(2)]
    failed: list[BaseException] = []

    def drain(cur: duckdb.DuckDBPyConnection) -> None:
        while True:
            with lock:
                if failed or not pending:
                    return
                sql = pending.pop()
            try:
                cur.execute(sql)
            except BaseException as exc:
                with lock:
                    failed.append(exc)
                return

    try:
        with ThreadPoolExecutor(len(cursors)) as pool:
            futures = [pool.submit(drain, cur) for cur in cursors]
            try:
                for future in futures:
                    future.result()
            except BaseException:
                with lock:
                    pending.clear()
                for cur in cursors:
                    cur.interrupt()
                raise
    finally:
        for cur in cursors:
            cur.close()
    if failed:
        raise failed[0]


def delete_files(
    con: duckdb.DuckDBPyConnection, paths: Sequence[str], skip: Collection[str] = ()
) -> None:
    """Remove every row a set of files contributed (but from the tables in ``skip``: those
    whose rows of theirs the caller deleted already, or keeps)."""
    if not paths:
        return
    temp_table(con, "gone", (("path", "VARCHAR"),), [(p,) for p in paths])
    for table in FILE_TABLES:
        if table in skip:
            continue
        key = "path" if table == "files" else "file"
        con.execute(f"DELETE FROM {table} WHERE {key} IN (SELECT path FROM gone)")
    con.execute("DROP TABLE gone")
