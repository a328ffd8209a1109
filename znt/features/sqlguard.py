"""The guard of ``znt sql``: one read-only statement over the index, nothing that reads
outside it, refused with a clear message before anything runs."""

from __future__ import annotations

from typing import Any

from znt.errors import UsageError

# Table functions that would read outside the index (files, globs, other databases) and
# settings/side-effect functions. The connection also runs with enable_external_access
# off, so this list is the clear error message, not the only guard.
_SQL_BLOCKED_FUNCTIONS = (
    r"\b(read_\w+|parquet_\w+|glob|sniff_csv|csv_scan|json_scan|iceberg_\w+|delta_scan|"
    r"sqlite_\w+|postgres_\w+|mysql_\w+|httpfs_\w+|getenv|checkpoint|force_checkpoint|"
    r"install_extension|load_extension|query|query_table|enable_logging|enable_profiling|"
    r"\w*external_resource|json_execute_serialized_sql|add_grammar_extension)\s*\("
)
# ``FROM 'file.csv'``: a string where a table belongs is a replacement scan of a file.
_SQL_REPLACEMENT_SCAN = r"\b(from|join)\s+''"
SQL_MAX_LIMIT = 100_000


def _strip(query: str) -> str:
    """``query`` without string literals and comments, quoted identifiers unquoted, for the
    function check (a name inside a string is data, not a call; a quoted name is a name)."""
    out = []
    i, n = 0, len(query)
    while i < n:
        c = query[i]
        if c in "'\"":
            j = i + 1
            while j < n:
                if query[j] == c:
                    if j + 1 < n and query[j + 1] == c:
                        j += 2
                        continue
                    break
                j += 1
            # A quoted identifier is still a name: ``"read_text"(...)`` calls read_text.
            ident = query[i + 1 : j].replace('""', '"')
            out.append(" '' " if c == "'" else f" {ident} ")
            i = j + 1
        elif query.startswith("--", i):
            j = query.find("\n", i)
            i = n if j < 0 else j
        elif query.startswith("/*", i):
            j = query.find("*/", i + 2)
            i = n if j < 0 else j + 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def guard(query: str) -> str:
    """Accept one read statement (SELECT, WITH … SELECT, FROM …, VALUES, DESCRIBE, SHOW,
    SUMMARIZE) and nothing else; raise ``UsageError`` (exit 2) before anything runs."""
    import re

    from znt.index.engine import duckdb

    text = (query or "").strip()
    if not text:
        raise UsageError("the query is empty")
    try:
        statements = duckdb.extract_statements(text)
    except duckdb.Error as exc:
        raise UsageError(f"SQL error: {exc}") from None
    if len(statements) != 1:
        raise UsageError(
            f"znt sql runs exactly one statement, got {len(statements)}",
            statements=len(statements),
        )
    kind = statements[0].type
    if kind != duckdb.StatementType.SELECT:
        name = str(kind).rsplit(".", 1)[-1]
        raise UsageError(
            f"znt sql is read-only: {name} statements are refused; only SELECT (WITH, FROM, "
            "VALUES, DESCRIBE, SHOW, SUMMARIZE) over the index tables (docs/data-model.md)",
            statement=name,
        )
    hit = re.search(_SQL_BLOCKED_FUNCTIONS, _strip(text), re.IGNORECASE)
    if hit:
        raise UsageError(
            f"znt sql only reads the index: the function {hit.group(1)}() is refused "
            "(no file, network or other-database access; docs/sql.md)",
            function=hit.group(1),
        )
    if re.search(_SQL_REPLACEMENT_SCAN, _strip(text), re.IGNORECASE):
        raise UsageError(
            "znt sql only reads the index: a file name where a table belongs (a replacement "
            "scan) is refused (docs/sql.md)"
        )
    return text


def json_value(value: Any) -> Any:
    """A DuckDB value as JSON-ready data (dates, decimals, UUIDs, bytes become strings)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    return str(value)
