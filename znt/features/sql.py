"""``znt sql``: one read-only SELECT over the index (docs/sql.md), on a DuckDB instance of
its own whose configuration is locked from the start."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from znt.errors import UsageError
from znt.features.sqlguard import json_value
from znt.features.status import freshness
from znt.project import Project


def _connect(path: Path) -> Any:
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


def sql(project: Project, text: str, *, limit: int) -> dict[str, Any]:
    """Run the guarded statement ``text`` (``sqlguard.guard``) over the index opened
    read-only with external access off: at most ``limit`` rows."""
    import duckdb

    from znt.index import store

    con = _connect(project.index_path)
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
    return {
        "query": text,
        "columns": columns,
        "rows": [[json_value(v) for v in r] for r in rows],
        "row_count": len(rows),
        "limit": limit,
        "truncated": truncated,
        "freshness": freshness(project, check_files=False),
    }
