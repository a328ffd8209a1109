"""The exported dataset read by an engine that is not ours: Apache Spark in local mode (pyspark
from PyPI, a Debian JRE; .ci/run installs both) runs a cross-repository query over the Parquet
files, and its answer is compared with DuckDB's over the same files and with the links
znt's own dataset reader makes (docs/export.md shows the same query on a cluster)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.test_export import exported  # noqa: F401  (the fixture: two exported repositories)
from znt.export import dataset

# CI installs pyspark and a JRE (.ci/run): there the test must run, never skip.
if not os.environ.get("CI"):
    pytest.importorskip("pyspark")
    if shutil.which("java") is None:
        pytest.skip("no Java runtime for Spark", allow_module_level=True)

# Calls from one repository to a function another repository defines: the caller's edge ends
# at ``ext::<module>.<name>``, the callee is a symbol of a file whose module is <module>. Only
# the exports listed in ``repositories`` are read (the commit record of each export).
CROSS_REPOSITORY_CALLS = """
    WITH live_edges AS (
        SELECT e.* FROM edges e JOIN repositories r USING (repository, commit)
    ),
    defined AS (
        SELECT s.repository, s.id, 'ext::' || f.module_name || '.' || s.qualified_name AS ext
        FROM symbols s
        JOIN files f ON f.repository = s.repository AND f.commit = s.commit AND f.path = s.file
        JOIN repositories r ON r.repository = s.repository AND r.commit = s.commit
        WHERE s.type = 'function'
    )
    SELECT e.repository AS caller_repository, e.src AS caller,
           d.repository AS callee_repository, d.id AS callee
    FROM live_edges e JOIN defined d ON d.ext = e.dst AND d.repository <> e.repository
    WHERE e.kind = 'call'
    ORDER BY 1, 2, 3, 4
"""
TABLES = ("files", "symbols", "edges", "repositories")


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    from pyspark.sql import SparkSession

    # Spark's driver and its JVM talk over the loopback interface only.
    before = os.environ.get("SPARK_LOCAL_IP")
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"

    session = (
        SparkSession.builder.master("local[1]")
        .appName("znt-export-test")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "2")
        # Partition values are names and commits: never numbers or dates.
        .config("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
        .getOrCreate()
    )
    try:
        yield session
    finally:
        session.stop()
        if before is None:
            os.environ.pop("SPARK_LOCAL_IP", None)
        else:
            os.environ["SPARK_LOCAL_IP"] = before


def test_spark_cross_repository_query(
    spark: Any,
    exported: tuple[Path, dict[str, Path]],  # noqa: F811
) -> None:
    folder, _ = exported
    for table in TABLES:
        spark.read.parquet(str(folder / table)).createOrReplaceTempView(table)
    got = [tuple(row) for row in spark.sql(CROSS_REPOSITORY_CALLS).collect()]
    assert got == [
        (
            "app",
            "app/report.py::tank_surface",
            "corelib",
            "corelib/geometry.py::area_of_circle",
        )
    ]

    # DuckDB over the same files gives the same rows.
    con = duckdb.connect()
    for table in TABLES:
        files = str(folder / table / "*" / "*" / "*.parquet").replace("'", "''")
        con.execute(
            f"CREATE VIEW {table} AS SELECT * FROM read_parquet('{files}', "
            "hive_partitioning = true, hive_types = {'repository': VARCHAR, 'commit': VARCHAR})"
        )
    assert con.execute(CROSS_REPOSITORY_CALLS).fetchall() == got

    # And znt's own reader links the same call across the two repositories.
    linked = dataset.open_dataset(folder).execute(
        "SELECT src, dst FROM edges WHERE resolution = 'cross_repository' AND kind = 'call'"
    )
    assert linked.fetchall() == [(f"{r[0]}/{r[1]}", f"{r[2]}/{r[3]}") for r in got]

    # Spark reads the partition columns and the typed columns of every table.
    counts = {
        r["repository"]: r["n"]
        for r in spark.sql(
            "SELECT repository, count(*) AS n FROM symbols GROUP BY repository"
        ).collect()
    }
    rows = {e.repository: e for e in dataset.exports(folder)}
    assert set(counts) == set(rows) == {"app", "corelib"}
    record = {
        r["repository"]: r["symbols"] for r in spark.sql("SELECT * FROM repositories").collect()
    }
    assert record == counts
