"""Libraries a command is about to need, imported on a thread of their own meanwhile.

DuckDB lets go of the interpreter's lock while it creates an instance and runs a statement,
so the import of a library the next step needs can run on the other core during that wait:
networkx, which a graph walk needs, takes about as long to import as duckdb itself, and the
first ``znt map`` after a scan also needs numpy and scipy for networkx's PageRank. The code
that uses a library imports it as usual; Python's import lock makes that import wait for the
thread's, or do it alone if the thread never got to it. An import that fails on the thread is
left for that ordinary import to report.

For one-shot processes only (the console script, a feature's own one-time step): a
long-lived process has its libraries loaded after the first answer anyway.
"""

from __future__ import annotations

import importlib
import sys
import threading

_requested: set[str] = set()
_lock = threading.Lock()


def import_in_background(*modules: str) -> None:
    """Start importing ``modules``, in order, on a daemon thread; those already imported or
    already requested are skipped."""
    with _lock:
        todo = [m for m in modules if m not in sys.modules and m not in _requested]
        _requested.update(todo)
    if not todo:
        return

    def load() -> None:
        for name in todo:
            try:
                importlib.import_module(name)
            except Exception:  # the command's own import raises it where it is handled
                return

    threading.Thread(target=load, name="znt-warmup", daemon=True).start()


__all__ = ["import_in_background"]
