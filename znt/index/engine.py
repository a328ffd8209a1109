"""DuckDB's engine, loaded without the Python layer around it.

The ``duckdb`` package is two parts: ``_duckdb``, the compiled engine (connections, results,
exceptions, ``extract_statements``), and a Python layer over it (the relational and
expression APIs, ``duckdb.typing``, a version lookup through ``importlib.metadata``) that
this project never calls. In a fresh process on this machine ``import _duckdb`` takes about
30 ms and ``import duckdb`` about 100 ms: the layer is most of the cost, and every one-shot
command (a hook's rescan, ``znt search``, ``znt graph``) pays it before its first query.
``duckdb.connect`` and ``_duckdb.connect`` are the same function and the exception classes
the same objects, so code that catches ``duckdb.Error`` (tests, callers of the Python API)
catches what this module raises. Where a DuckDB release has no such module (before 1.4 the
engine was ``duckdb.duckdb``), the package is imported as before.
See docs/decisions/0031-duckdb-engine-module.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb
else:
    try:
        import _duckdb as duckdb

        duckdb.connect  # noqa: B018 - the engine module this needs, not a namesake
    except (ImportError, AttributeError):
        import duckdb

__all__ = ["duckdb"]
