"""``znt sql``: one read-only SELECT over the index (docs/sql.md), where reading any other file
is impossible by configuration, and time, memory and output are bounded.

* **A private copy.** The statement runs on a copy of the index made in a folder of its own
  (``.znt/sql-<pid>-*``, mode 0700, removed after). Writers are blocked only while the copy is
  made, not while the statement runs; and the folder DuckDB lets a database reach even with
  external access off (the file, its WAL, its spill folder) is one nobody else could have put
  a link in (a repository can ship ``.znt/index.duckdb.wal`` as a link to any file).
* **A locked configuration**, set when the instance is created: ``enable_external_access``
  off, no allowed directories or paths, no spill folder, no extension loading or
  installation, no Python replacement scans, a memory limit; then ``lock_configuration``, so
  the statement cannot ``SET`` any of it back. The name list of ``sqlguard`` is a second
  wall that gives the clear message.
* **Bounds.** ``timeout`` seconds (``--timeout``, default 30) and Ctrl-C interrupt the query
  (``interrupt()`` from the waiting thread); at most ``MAX_OUTPUT_BYTES`` of cell text comes
  back, a longer cell is cut, and the answer says ``truncated``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from znt.errors import EXIT_FAILURE, UsageError, ZntError
from znt.features.sqlguard import json_value
from znt.features.status import freshness
from znt.project import Project

if TYPE_CHECKING:
    from znt.results import SqlBody


DEFAULT_TIMEOUT_S = 30.0
MEMORY_LIMIT = os.environ.get("ZNT_SQL_MEMORY_LIMIT", "1GB")
MAX_OUTPUT_BYTES = 8 * 1024 * 1024
COPY_PREFIX = "sql-"


class SqlTimeout(ZntError):
    exit_code = EXIT_FAILURE
    code = "timeout"


class SqlResources(ZntError):
    exit_code = EXIT_FAILURE
    code = "resources"


def _config(copy: Path) -> dict[str, str | bool | int | float | list[str]]:
    return {
        "enable_external_access": False,
        "temp_directory": "",
        "autoload_known_extensions": False,
        "autoinstall_known_extensions": False,
        "allow_community_extensions": False,
        "python_enable_replacements": False,
        "memory_limit": MEMORY_LIMIT,
        "threads": 2,
        "lock_configuration": True,
    }


def _remove_stale_copies(folder: Path) -> None:
    """Copies of ``znt sql`` runs that were killed (their pid no longer runs)."""
    from znt.fsguard import remove_private

    with contextlib.suppress(OSError):
        for name in os.listdir(folder):
            if not name.startswith(COPY_PREFIX):
                continue
            try:
                pid = int(name[len(COPY_PREFIX) :].split("-", 1)[0])
                os.kill(pid, 0)
            except (ValueError, ProcessLookupError):
                remove_private(folder, name)
            except PermissionError:
                continue


@contextlib.contextmanager
def private_copy(project: Project) -> Any:
    """A copy of the index in a new 0700 folder of ``.znt/``, made while the index is
    attached read-only (so no writer is inside it); removed on exit."""
    from znt.fsguard import remove_private
    from znt.index.store import _attached, _check_file

    index = project.index_path
    _check_file(index)
    _remove_stale_copies(project.znt_dir)
    folder = Path(tempfile.mkdtemp(prefix=f"{COPY_PREFIX}{os.getpid()}-", dir=project.znt_dir))
    try:
        target = folder / "index.duckdb"
        with _attached(index):
            fd = os.open(index, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
            try:
                out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                try:
                    while chunk := os.read(fd, 1 << 22):
                        os.write(out, chunk)
                finally:
                    os.close(out)
            finally:
                os.close(fd)
        yield target
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        remove_private(project.znt_dir, folder.name)


def _run(con: Any, text: str, limit: int, timeout: float) -> tuple[Any, list[Any]]:
    """Execute and fetch in a worker thread; this thread waits, so that a timeout or Ctrl-C
    can interrupt DuckDB (a query does not stop for a signal by itself)."""
    box: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        try:
            cur = con.execute(text)
            box["description"] = cur.description
            box["rows"] = cur.fetchmany(limit + 1)
        except BaseException as exc:
            box["error"] = exc
        finally:
            done.set()

    worker = threading.Thread(target=work, name="znt-sql", daemon=True)
    worker.start()
    try:
        if not _wait(done, timeout):
            _stop(con, done)
            raise SqlTimeout(
                f"the query did not finish within {timeout:g}s and was stopped "
                "(raise --timeout, or narrow the query)",
                timeout_s=timeout,
            )
    except KeyboardInterrupt:
        _stop(con, done)
        raise
    if "error" in box:
        raise box["error"]
    return box["description"], box["rows"]


def _wait(done: threading.Event, timeout: float) -> bool:
    """``done.wait(timeout)`` in short slices. A Ctrl-C that the kernel hands to one of
    DuckDB's threads rather than this one does not wake a single long wait (the handler only
    runs when this thread next executes Python), so the query would run to its timeout;
    each slice gives the handler its chance."""
    deadline = time.monotonic() + timeout
    while not done.wait(min(0.1, max(0.0, deadline - time.monotonic()))):
        if time.monotonic() >= deadline:
            return False
    return True


def _stop(con: Any, done: threading.Event, within: float = 5.0) -> None:
    """Interrupt the query until its thread reports back: an interrupt that comes before
    DuckDB has started the statement is lost (a Ctrl-C in the first moments, on a loaded
    machine), so it is repeated rather than sent once."""
    deadline = time.monotonic() + within
    while True:
        con.interrupt()
        if done.wait(0.05) or time.monotonic() > deadline:
            return


def _cap(rows: list[list[Any]], budget: int) -> tuple[list[list[Any]], bool]:
    """Rows whose cell text adds up to at most ``budget`` bytes; a cell that would pass it is
    cut (and the rows after it dropped). Returns the rows and whether anything was cut."""
    used = 0
    out: list[list[Any]] = []
    for row in rows:
        kept = []
        for value in row:
            size = len(value.encode("utf-8", "replace")) if isinstance(value, str) else 16
            if isinstance(value, str) and used + size > budget:
                room = max(0, budget - used)
                kept.append(value.encode("utf-8", "replace")[:room].decode("utf-8", "ignore"))
                out.append(kept + [None] * (len(row) - len(kept)))
                return out, True
            used += size
            kept.append(value)
        out.append(kept)
        if used > budget:
            return out, True
    return out, False


def sql(project: Project, text: str, *, limit: int, timeout: float = DEFAULT_TIMEOUT_S) -> SqlBody:
    """Run the guarded statement ``text`` (``sqlguard.guard``) over a private copy of the
    index with file access switched off by configuration: at most ``limit`` rows,
    ``timeout`` seconds, ``MEMORY_LIMIT`` of memory and ``MAX_OUTPUT_BYTES`` of text."""
    from znt.index import store
    from znt.index.engine import duckdb

    if not timeout or timeout <= 0:
        raise UsageError("timeout must be a positive number of seconds", timeout=timeout)
    with private_copy(project) as copy:
        con = duckdb.connect(str(copy), read_only=True, config=_config(copy))
        try:
            store.check_schema(con)
            try:
                description, rows = _run(con, text, limit, timeout)
            except duckdb.PermissionException as exc:
                raise UsageError(f"znt sql only reads the index: {exc}") from None
            except duckdb.OutOfMemoryException:
                raise SqlResources(
                    f"the query needs more than the memory limit of {MEMORY_LIMIT} "
                    "(ZNT_SQL_MEMORY_LIMIT); narrow it",
                    memory_limit=MEMORY_LIMIT,
                ) from None
            except duckdb.InterruptException:
                raise KeyboardInterrupt from None
            except duckdb.Error as exc:
                if "memory" in str(exc).lower():
                    raise SqlResources(
                        f"the query needs more than the memory limit of {MEMORY_LIMIT}: {exc}"
                    ) from None
                raise UsageError(f"SQL error: {exc}") from None
        finally:
            con.close()
    columns = [{"name": d[0], "type": str(d[1])} for d in (description or [])]
    truncated = len(rows) > limit
    values = [[json_value(v) for v in r] for r in rows[:limit]]
    values, cut = _cap(values, MAX_OUTPUT_BYTES)
    doc: SqlBody = {
        "query": text,
        "columns": columns,
        "rows": values,
        "row_count": len(values),
        "limit": limit,
        "truncated": truncated or cut,
        "freshness": freshness(project, check_files=False),
    }
    if cut:
        doc["truncated_reason"] = f"the answer exceeded {MAX_OUTPUT_BYTES} bytes of text"
    return doc
