"""Private read copies of the index for long-lived processes (the MCP server).

DuckDB locks the index file per process, so no process may keep it open between operations
(DESIGN §8, decision 0002): every read attaches the file, queries and detaches it. That costs a
long-lived process the attach, a ``meta`` read and a cold buffer cache on every call: on
sympy's index a third of an in-process search. A read copy removes all three without holding
the shared file: the process copies the index once per index state into a private file, keeps
*that* attached, and answers from it while the original is unchanged.

Rules that keep it correct (docs/decisions/0013-private-read-copies.md):

- A copy is used only while the index file's identity (device, inode, size, mtime, ctime)
  equals the one it was copied from and no write-ahead log exists next to it. Any write
  changes that identity; the next read then goes to the shared file the usual way (so an
  answer is never staler than one from a fresh attach) and a new copy is made in the
  background.
- The copy is taken while the original is attached read-only, so no writer can change it
  half-way (a writer waits for the lock, as it waits for any reader), from the inode that was
  attached (an atomic rename during the copy cannot mix two files).
- The copy is the reader's own, so it may carry what the shared file must not: tables for
  graph reads (``READ_COPY_TABLES``: each symbol's card and edges in one row,
  indexed by id) and, in memory, the unbound call sites per callee name. A scan would have
  to keep them up to date on every rescan (decision 0011); a copy builds them in about a
  second, once per index state, off the request path.
- A copy is written next to the index (``.znt/``, the same disk, never a RAM-backed
  ``/tmp``) and its name is unlinked once it is attached (DuckDB keeps reading the open
  file), so the space goes back when it is detached or the process ends, even by SIGKILL.
  A process killed while copying leaves a file that the next copy in that folder removes.

Only a process that asks for copies (``enable``) makes them: a one-shot command would pay the
copy and answer once.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from znt.index.store import UNRESOLVED

PREFIX = "znt-readcopy-"
# How long a copy waits for a writer to let go of the original before it gives up (and tries
# again on a later read): a copy is an optimisation, never worth making a reader wait.
ATTACH_TIMEOUT = 5.0

Signature = tuple[int, int, int, int, int]


@dataclass
class ReadCopy:
    """One private copy, attached to the reader instance as ``alias``."""

    source: str
    file: Path
    alias: str
    signature: Signature
    meta: dict[str, str] = field(default_factory=dict)
    vectors: Any = None  # search.FlatVectors of the copy's embeddings, where there are any
    # Unbound call sites per callee name (UNBOUND_NAMES_SQL), or None.
    unbound_names: dict[str, int] | None = None
    # The indexed files' paths (``resolve`` asks whether FROM/TO names one).
    files: frozenset[str] | None = None
    # Cursors reading this copy, idle: a new cursor and its ``USE`` cost ~0.5 ms a read.
    idle: list[Any] = field(default_factory=list)
    users: int = 0
    retired: bool = False
    last_used: float = 0.0


# Copies held at once: a server asked about several projects keeps the most recently read
# ones (each costs its index's size on disk and, with embeddings, its vectors in memory).
MAX_COPIES = 3

_enabled = False

# Tables a private read copy of the index adds for graph reads (built uncompressed; the
# shared file does not carry them, decision 0011; znt/graph/traverse.py and
# znt/features/search.py read them). ``graph_nodes``: one row per symbol with its card and
# its edges out and in, each as one JSON array of
# ``[other end, kind, confidence, resolution]``, with an ART index on ``id``. A BFS level is
# then one lookup per frontier node (DuckDB spends ~0.1 ms per key of an IN-list lookup,
# however few rows it returns), and the frontier's cards come with it, where edge tables
# indexed by each end cost two lookups per node and one row fetch per edge. ``symbol_keys``
# serves ``resolve``. Uncompressed rows are what make a lookup cheap: fetching a row from a
# compressed segment decodes its neighbours too.
_ADJACENCY = (
    "SELECT {near} AS id, to_json(list(json_array({far}, kind, confidence, resolution))) "
    "AS {name} FROM edges GROUP BY {near}"
)
READ_COPY_TABLES = (
    "CREATE TABLE IF NOT EXISTS graph_nodes AS "
    f"WITH o AS ({_ADJACENCY.format(near='src', far='dst', name='out_edges')}), "
    f"i AS ({_ADJACENCY.format(near='dst', far='src', name='in_edges')}) "
    "SELECT s.id, s.card, o.out_edges, i.in_edges "
    "FROM symbols s LEFT JOIN o USING (id) LEFT JOIN i USING (id) ORDER BY s.id",
    "CREATE INDEX IF NOT EXISTS graph_nodes_id ON graph_nodes(id)",
    # Every name FROM/TO can match as one column ``key`` (``col`` says which it was), so
    # ``resolve`` makes one lookup where the shared file needs one per column.
    "CREATE TABLE IF NOT EXISTS symbol_keys AS "
    + " UNION ALL ".join(
        f"SELECT {c} AS key, '{c}' AS col, id, file, name, qualified_name, start_line FROM symbols"
        for c in ("id", "name", "qualified_name")
    )
    + " ORDER BY key",
    "CREATE INDEX IF NOT EXISTS symbol_keys_key ON symbol_keys(key)",
    # Each term's postings as one list (the shared file splits them into buckets so that a
    # rescan re-lists a 64th of them, decision 0012): a ranking reads one row per term and
    # sums no document frequencies (lexical.bm25_sql ``whole``; on sympy a lexical rank
    # 20 -> 11 ms).
    "CREATE TABLE IF NOT EXISTS lex_term_lists AS "
    "SELECT term, sum(df)::INTEGER AS df, flatten(list(syms ORDER BY bucket)) AS syms, "
    "flatten(list(wtfs ORDER BY bucket)) AS wtfs FROM lex_terms GROUP BY term ORDER BY term",
    "CREATE INDEX IF NOT EXISTS lex_term_lists_term ON lex_term_lists(term)",
)
# Unbound call sites per callee name (the part after the last ``.`` or ``::``), which a read
# copy holds in memory (a few thousand names on sympy): ``possible_callers`` without a query.
UNBOUND_NAMES_SQL = (
    "SELECT regexp_extract(dst, '(?:\\.|::)([^.:]+)$', 1) AS name, count(*) FROM edges "
    "WHERE kind = 'call' AND resolution "
    f"IN ({', '.join(repr(r) for r in sorted(UNRESOLVED))}) GROUP BY name"
)
_lock = threading.Lock()
_copies: dict[str, ReadCopy] = {}
_building: dict[str, threading.Thread] = {}
_failures: dict[str, Signature | None] = {}
_making: set[Path] = set()  # copies being written (removed at exit if a build is cut short)
_numbers = itertools.count()


def _log() -> Any:
    import logging  # not at import time: a one-shot command has no use for it

    return logging.getLogger(__name__)


def enabled() -> bool:
    return _enabled


def enable(on: bool = True) -> None:
    """Make (or stop making) read copies in this process. Turning them off drops every copy
    not in use at once and the others when their last reader finishes."""
    global _enabled
    _enabled = on
    if on:
        atexit.register(drop_all)
    else:
        drop_all()


def signature(index: Path) -> Signature | None:
    """The identity of the index file, or None when a copy must not be trusted or taken (no
    file, or a write-ahead log: committed changes not yet in the file itself)."""
    try:
        st = os.stat(index)
    except OSError:
        return None
    if os.path.exists(f"{index}.wal"):
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def acquire(index: Path) -> ReadCopy | None:
    """The current copy of ``index`` for one read (give it back with ``release``), or None:
    copies are off, the index changed since the copy (a new one is then started in the
    background), or none is ready yet."""
    if not _enabled:
        return None
    key = str(index)
    sig = signature(index)
    with _lock:
        copy = _copies.get(key)
        if copy is not None and sig is not None and copy.signature == sig:
            copy.users += 1
            copy.last_used = time.monotonic()
            return copy
        if copy is not None:
            _retire(copy)
            del _copies[key]
        if sig is not None and key not in _building and _failures.get(key) != sig:
            thread = threading.Thread(
                target=_build, args=(index, sig), name="znt-readcopy", daemon=True
            )
            _building[key] = thread
            thread.start()
    return None


def release(copy: ReadCopy) -> None:
    with _lock:
        copy.users -= 1
        if copy.retired and copy.users == 0:
            _detach(copy)


def wait(index: Path, timeout: float = 60.0) -> bool:
    """Block until a copy of ``index`` matching its current state is ready (starting one if
    needed); False if that did not happen within ``timeout``. For benchmarks and tests: the
    server itself never waits for a copy."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        copy = acquire(index)
        if copy is not None:
            release(copy)
            return True
        with _lock:
            thread = _building.get(str(index))
        if thread is not None:
            thread.join(max(0.0, deadline - time.monotonic()))
        else:
            time.sleep(0.02)
    return False


def state(index: Path) -> str:
    """``off``, ``ready`` (the next read uses the copy), ``preparing`` or ``none``."""
    if not _enabled:
        return "off"
    with _lock:
        copy = _copies.get(str(index))
        if copy is not None and copy.signature == signature(index):
            return "ready"
        return "preparing" if str(index) in _building else "none"


@contextlib.contextmanager
def cursor(copy: ReadCopy) -> Iterator[Any]:
    """A cursor of the reader instance reading ``copy``; releases the copy on exit."""
    from znt.index.store import _reader_instance

    with _lock:
        cur = copy.idle.pop() if copy.idle else None
    try:
        if cur is None:
            cur = _reader_instance().cursor()
            cur.execute(f"USE {copy.alias}")
        yield cur
    except BaseException:
        if cur is not None:  # a cursor left in an unknown state is not reused
            with contextlib.suppress(Exception):
                cur.close()
        cur = None
        raise
    finally:
        if cur is not None:
            with _lock:
                copy.idle.append(cur)
        release(copy)


def _build(index: Path, sig: Signature) -> None:
    key = str(index)
    target: Path | None = None
    try:
        target = _copy(index, sig)
        copy = _attach(index, target, sig) if target is not None else None
        if copy is None:
            with _lock:
                _failures[key] = sig
            return
        with _lock:
            if not (_enabled and signature(index) == sig):
                _detach(copy)
                return
            old = _copies.get(key)
            if old is not None:
                _retire(old)
            _copies[key] = copy
            copy.last_used = time.monotonic()
            while len(_copies) > MAX_COPIES:
                stalest = min(_copies, key=lambda k: _copies[k].last_used)
                _retire(_copies.pop(stalest))
    except Exception as exc:  # an optimisation: a failure only means reads stay per-call
        _log().info("read copy of %s not made: %s", index, exc)
        with _lock:
            _failures[key] = sig
    finally:
        with _lock:
            _building.pop(key, None)
            if target is not None:
                _unlink(target)  # a no-op once attached: its name is gone already
                _making.discard(target)


def _copy(index: Path, sig: Signature) -> Path | None:
    """Copy the index file while it is attached read-only (so no writer is inside it); None
    when it changed, is locked by a writer for too long, or the disk has no room."""
    from znt.index.store import _attached

    fd = os.open(index, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) != sig[:2]:
            return None
        folder = index.parent
        remove_orphans(folder)
        if shutil.disk_usage(folder).free < 2 * st.st_size:
            _log().info("read copy of %s skipped: not enough room in %s", index, folder)
            return None
        handle, name = tempfile.mkstemp(
            prefix=f"{PREFIX}{os.getpid()}-", suffix=".duckdb", dir=folder
        )
        target = Path(name)
        with _lock:
            _making.add(target)
        try:
            with _attached(index, timeout=ATTACH_TIMEOUT), os.fdopen(handle, "wb") as out:
                if signature(index) != sig:
                    raise _Changed
                os.lseek(fd, 0, os.SEEK_SET)
                while chunk := os.read(fd, 1 << 22):
                    out.write(chunk)
                if signature(index) != sig:
                    raise _Changed
        except _Changed:
            _unlink(target)
            return None
        except BaseException:
            _unlink(target)
            raise
        return target
    finally:
        os.close(fd)


class _Changed(Exception):
    """The index changed while it was being copied."""


def _attach(index: Path, target: Path, sig: Signature) -> ReadCopy | None:
    """Attach the copy read-write to the reader instance, give it the extra tables and read
    its ``meta``."""
    from znt.index.search import FlatVectors
    from znt.index.store import _all_meta, _reader_instance

    alias = f"znt_readcopy_{next(_numbers)}"
    quoted = str(target).replace("'", "''")
    cur = _reader_instance().cursor()
    try:
        cur.execute(f"ATTACH '{quoted}' AS {alias}")
        cur.execute(f"USE {alias}")
        cur.execute("SET force_compression = 'uncompressed'")
        try:
            for statement in READ_COPY_TABLES:
                cur.execute(statement)
            cur.execute(f"CHECKPOINT {alias}")
        finally:
            cur.execute("RESET force_compression")
        meta = _all_meta(cur)
        unbound = {n: int(c) for n, c in cur.execute(UNBOUND_NAMES_SQL).fetchall() if n}
        files = frozenset(p for (p,) in cur.execute("SELECT path FROM files").fetchall())
        vectors = None
        if meta.get("embed_model"):
            try:
                vectors = FlatVectors.load(cur)
            except Exception as exc:  # the DuckDB scan answers instead
                _log().info("read copy of %s: vectors not held in memory: %s", index, exc)
        cur.execute("USE memory")
    except Exception:
        with contextlib.suppress(Exception):
            cur.execute("USE memory")
            cur.execute(f"DETACH DATABASE IF EXISTS {alias}")
        raise
    finally:
        cur.close()
    # DuckDB reads the copy through the handle it holds: with the name gone, the space is
    # freed when the copy is detached or the process ends, however it ends (even SIGKILL).
    _unlink(target)
    return ReadCopy(str(index), target, alias, sig, meta, vectors, unbound, files)


def _retire(copy: ReadCopy) -> None:
    """Called with ``_lock`` held: the copy takes no new readers and goes when the last one
    has finished."""
    copy.retired = True
    if copy.users == 0:
        _detach(copy)


def _detach(copy: ReadCopy) -> None:
    from znt.index.store import _reader_instance

    for idle in copy.idle:  # called with ``_lock`` held, or by the builder that owns the copy
        with contextlib.suppress(Exception):
            idle.close()
    copy.idle.clear()
    with contextlib.suppress(Exception):
        cur = _reader_instance().cursor()
        try:
            cur.execute(f"DETACH DATABASE IF EXISTS {copy.alias}")
        finally:
            cur.close()
    _unlink(copy.file)


def _unlink(path: Path) -> None:
    for p in (path, Path(f"{path}.wal")):
        with contextlib.suppress(OSError):
            p.unlink()


def drop_all() -> None:
    """Retire every copy (at exit, or when copies are turned off)."""
    with _lock:
        for copy in _copies.values():
            _retire(copy)
        _copies.clear()
        _failures.clear()
        for path in _making:
            _unlink(path)
        _making.clear()


_ORPHAN = re.compile(re.escape(PREFIX) + r"(\d+)-")


def remove_orphans(folder: Path) -> None:
    """Delete copies in ``folder`` left by processes that no longer run (killed while
    copying)."""
    with contextlib.suppress(OSError):
        for p in folder.glob(f"{PREFIX}*"):
            m = _ORPHAN.match(p.name)
            if not m or int(m.group(1)) == os.getpid():
                continue
            try:
                os.kill(int(m.group(1)), 0)
            except ProcessLookupError:
                with contextlib.suppress(OSError):
                    p.unlink()
            except PermissionError:
                continue
