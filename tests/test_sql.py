"""``znt sql``: read-only SQL over a real index through the real CLI. Every writing or
escaping statement exits 2 and leaves the index file byte-identical."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, run_znt


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sql") / "shop"
    shutil.copytree(FIXTURES / "check" / "shop", root)
    proc = run_znt("scan", "--no-embed", "-q", str(root))
    assert proc.returncode == 0, proc.stderr
    return root


def digest(root: Path) -> dict[str, str]:
    """The hash of every file in .znt/ (the index, and no WAL may appear)."""
    out = {}
    for p in sorted((root / ".znt").rglob("*")):
        if p.is_file() and p.name not in ("log.jsonl",):
            out[p.relative_to(root).as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


OUTSIDE = "/tmp/znt-sql-outside"

REFUSED = [
    "INSERT INTO meta VALUES ('x', 'y')",
    "UPDATE symbols SET name = 'x'",
    "DELETE FROM edges",
    "DROP TABLE edges",
    "DROP VIEW nodes",
    "CREATE TABLE t (a INT)",
    "CREATE OR REPLACE VIEW v AS SELECT 1",
    "CREATE TEMP TABLE t AS SELECT * FROM symbols",
    "CREATE MACRO m(a) AS a",
    "ALTER TABLE symbols ADD COLUMN x INT",
    "ALTER TABLE edges RENAME TO e2",
    "TRUNCATE edges",
    f"ATTACH '{OUTSIDE}.duckdb' AS other",
    "DETACH index",
    f"COPY edges TO '{OUTSIDE}.csv'",
    f"COPY meta FROM '{OUTSIDE}.csv'",
    f"COPY (SELECT * FROM edges) TO '{OUTSIDE}.parquet' (FORMAT parquet)",
    f"EXPORT DATABASE '{OUTSIDE}'",
    f"IMPORT DATABASE '{OUTSIDE}'",
    "INSTALL httpfs",
    "LOAD httpfs",
    "SET threads = 1",
    "SET enable_external_access = true",
    "RESET threads",
    "PRAGMA enable_profiling",
    "PRAGMA show_tables",
    "CALL pragma_version()",
    "CHECKPOINT",
    "VACUUM",
    "BEGIN TRANSACTION",
    "USE memory",
    "EXPLAIN ANALYZE SELECT 1",
    "SELECT 1; SELECT 2",
    "SELECT 1; DROP TABLE edges",
    "SELECT * FROM symbols; DELETE FROM edges",
    f"SELECT * FROM read_csv('{OUTSIDE}.csv')",
    "SELECT * FROM read_text('/etc/passwd')",
    "SELECT * FROM read_parquet('x.parquet')",
    "SELECT * FROM glob('/etc/*')",
    "SELECT * FROM '/etc/passwd'",
    "SELECT * FROM query('SELECT 1')",
    "WITH x AS (SELECT 1) SELECT * FROM x, read_json_auto('/etc/hosts')",
    "",
    "SELEC 1",
]


def run_inprocess(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The real ``znt.cli.main`` in this process (the subprocess start-up would dominate a
    test of 40 statements); exit code, stdout, stderr."""
    from znt.cli import main

    with pytest.raises(SystemExit) as exc:
        main(list(args))
    out, err = capsys.readouterr()
    code = exc.value.code
    return (code if isinstance(code, int) else 1), out, err


def test_every_writing_or_escaping_statement_exits_2_and_changes_nothing(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = digest(project)
    assert ".znt/index.duckdb" in before
    outcomes = {q: run_inprocess(capsys, "-C", str(project), "sql", q) for q in REFUSED}
    bad = {q: o for q, o in outcomes.items() if o[0] != 2 or o[1] or "Traceback" in o[2]}
    assert not bad, bad
    for query, (_code, _out, err) in outcomes.items():
        assert err.startswith("znt: error: "), (query, err)
    # the same through a real subprocess, for a few of them
    for query in ("INSERT INTO meta VALUES ('x', 'y')", "DROP TABLE edges", REFUSED[14]):
        proc = run_znt("-C", str(project), "sql", query)
        assert proc.returncode == 2 and not proc.stdout, (query, proc.stderr)
    assert digest(project) == before
    assert not list(Path("/tmp").glob("znt-sql-outside*"))
    # the message says why
    assert "DROP statements are refused" in outcomes["DROP TABLE edges"][2]
    assert "exactly one statement, got 2" in outcomes["SELECT 1; DROP TABLE edges"][2]
    assert "read_csv() is refused" in outcomes[f"SELECT * FROM read_csv('{OUTSIDE}.csv')"][2]
    # a replacement scan of a real CSV file (no function name to spot) is stopped by the
    # connection's disabled external access
    secret = project.parent / "secret.csv"
    secret.write_text("token\nhunter2\n")
    code, out, err = run_inprocess(capsys, "-C", str(project), "sql", f"SELECT * FROM '{secret}'")
    assert code == 2 and "hunter2" not in out + err, (code, out, err)
    # the index still answers
    code, out, _ = run_inprocess(
        capsys, "-C", str(project), "sql", "SELECT count(*) AS n FROM edges", "--format", "json"
    )
    assert code == 0 and json.loads(out)["rows"][0][0] > 0


def test_json_error_document_and_api(project: Path) -> None:
    from znt import api
    from znt.errors import UsageError

    proc = run_znt("-C", str(project), "--format", "json", "sql", "DELETE FROM edges")
    assert proc.returncode == 2
    err = json.loads(proc.stdout)["error"]
    assert err["code"] == "invalid_params" and err["statement"] == "DELETE"
    with pytest.raises(UsageError):
        api.sql("DROP TABLE edges", project_path=str(project))
    with pytest.raises(UsageError):
        api.sql("SELECT 1", limit=0, project_path=str(project))


QUERY = (
    "SELECT id, name, start_line, kind FROM symbols "
    "WHERE file = 'shop/service/orders.py' ORDER BY start_line, id"
)


def test_select_as_table_json_and_csv(project: Path) -> None:
    proc = run_znt("-C", str(project), "sql", QUERY, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["kind"] == "sql" and doc["schema_version"] == 1
    assert [c["name"] for c in doc["columns"]] == ["id", "name", "start_line", "kind"]
    assert doc["columns"][2]["type"] == "INTEGER"
    assert ["shop/service/orders.py::place_order", "place_order", 5, "function"] in doc["rows"]
    assert doc["truncated"] is False and doc["row_count"] == len(doc["rows"])

    proc = run_znt("-C", str(project), "sql", QUERY, "--format", "csv")
    assert proc.returncode == 0
    rows = list(csv.reader(io.StringIO(proc.stdout)))
    assert rows[0] == ["id", "name", "start_line", "kind"]
    assert rows[1:] == [[str(v) for v in r] for r in doc["rows"]]

    proc = run_znt("-C", str(project), "sql", QUERY)  # table is the default
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["id", "name", "start_line", "kind"]
    assert set(lines[1].replace(" ", "")) == {"-"}
    # aligned: every column starts where its header does
    col = lines[0].index("name")
    body = [ln for ln in lines[2:] if "place_order" in ln]
    assert body and body[0][col:].startswith("place_order")
    assert lines[-1] == f"({len(doc['rows'])} rows)"


def test_limit_truncates_and_says_so(project: Path) -> None:
    proc = run_znt(
        "-C",
        str(project),
        "sql",
        "SELECT id FROM symbols ORDER BY id",
        "--limit",
        "2",
        "--format",
        "json",
    )
    doc = json.loads(proc.stdout)
    assert proc.returncode == 0 and doc["row_count"] == 2 and doc["truncated"] is True
    proc = run_znt("-C", str(project), "sql", "SELECT id FROM symbols", "--limit", "2")
    assert "truncated at --limit 2" in proc.stdout
    proc = run_znt("-C", str(project), "sql", "SELECT 1", "--limit", "0")
    assert proc.returncode == 2


def test_read_statements_of_every_shape(project: Path) -> None:
    for query in (
        "WITH c AS (SELECT kind, count(*) AS n FROM edges GROUP BY kind) SELECT * FROM c",
        "FROM nodes LIMIT 3",
        "DESCRIBE symbols",
        "SHOW TABLES",
        "SUMMARIZE files",
        "VALUES (1, 'a')",
        "SELECT 'read_csv(' AS s",  # a name inside a string is data
        "SELECT * FROM duckdb_tables()",
    ):
        proc = run_znt("-C", str(project), "sql", query, "--format", "json")
        assert proc.returncode == 0, (query, proc.stderr)


def test_missing_index_exits_3(tmp_path: Path) -> None:
    proc = run_znt("-C", str(tmp_path), "sql", "SELECT 1")
    assert proc.returncode == 3
