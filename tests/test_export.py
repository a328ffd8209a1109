"""The Parquet export (znt/export/parquet.py) and reading several exported repositories as one
index (znt/export/dataset.py): real scans of two small projects, real Parquet files, read back
with DuckDB."""

from __future__ import annotations

import textwrap
from pathlib import Path

import duckdb
import pytest

from znt.errors import NotFound, UsageError
from znt.export import dataset, parquet

# Two repositories: a library, and an application that imports it (as it would from an
# installed package: the library is not part of the application's project).
CORELIB = {
    "corelib/__init__.py": "",
    "docs/guide.md": "# Measures\n\nThe area of a circle: `area_of_circle(radius)`.\n",
    "corelib/geometry.py": '''
        """Shapes and their measures."""
        import math


        def area_of_circle(radius):
            """The area enclosed by a circle of ``radius``."""
            return math.pi * radius * radius


        class Polygon:
            """A closed chain of points."""

            def perimeter(self):
                return sum(self.sides)
        ''',
}
APP = {
    "app/__init__.py": "",
    "app/report.py": '''
        """The monthly report of the plant."""
        from corelib.geometry import area_of_circle


        def tank_surface(tank):
            """How much paint a round tank's lid takes."""
            return area_of_circle(tank.radius)


        def summary(tanks):
            return [tank_surface(t) for t in tanks]
        ''',
}


def _project(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    return root


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path]]:
    """Both projects scanned and exported into one dataset folder."""
    from znt import api

    base = tmp_path_factory.mktemp("export")
    projects = {
        "corelib": _project(base / "corelib", CORELIB),
        "app": _project(base / "app", APP),
    }
    folder = base / "dataset"
    for name, root in projects.items():
        api.scan(str(root))
        parquet.export_index(root / ".znt" / "index.duckdb", folder, repository=name)
    return folder, projects


def _read(folder: Path, table: str, repository: str) -> list[tuple[object, ...]]:
    files = sorted((folder / table / f"repository={repository}").glob("commit=*/data.parquet"))
    assert len(files) == 1, files
    cols = ", ".join(f'"{c}"' for c in parquet.COLUMNS[table])
    con = duckdb.connect()
    try:
        return sorted(
            con.execute(f"SELECT {cols} FROM read_parquet(?)", [str(files[0])]).fetchall(),
            key=repr,
        )
    finally:
        con.close()


def test_round_trip_every_table_same_rows(exported: tuple[Path, dict[str, Path]]) -> None:
    folder, projects = exported
    for name, root in projects.items():
        con = duckdb.connect(str(root / ".znt" / "index.duckdb"), read_only=True)
        try:
            for table in parquet.COLUMNS:
                if table == "embeddings":
                    continue  # scanned without a provider: no vectors
                cols = ", ".join(f'"{c}"' for c in parquet.COLUMNS[table])
                want = sorted(con.execute(f"SELECT {cols} FROM {table}").fetchall(), key=repr)
                assert want, (name, table)
                assert _read(folder, table, name) == want, (name, table)
        finally:
            con.close()


def test_partitions_and_commit_record(exported: tuple[Path, dict[str, Path]]) -> None:
    folder, _ = exported
    found = dataset.exports(folder)
    assert sorted(e.repository for e in found) == ["app", "corelib"]
    for e in found:
        # Not git checkouts: the commit is the scan's generation.
        assert e.commit.startswith("scan-")
        assert (folder / "symbols" / f"repository={e.repository}" / f"commit={e.commit}").is_dir()
    # Any Parquet reader sees the partition columns (Hive layout).
    con = duckdb.connect()
    rows = con.execute(
        "SELECT repository, count(*) FROM read_parquet(?, hive_partitioning = true) "
        "GROUP BY repository ORDER BY repository",
        [str(folder / "symbols" / "*" / "*" / "*.parquet")],
    ).fetchall()
    assert [r[0] for r in rows] == ["app", "corelib"] and all(r[1] > 2 for r in rows)


def test_exporting_again_replaces_the_commit(
    exported: tuple[Path, dict[str, Path]], tmp_path: Path
) -> None:
    _, projects = exported
    index = projects["app"] / ".znt" / "index.duckdb"
    first = parquet.export_index(index, tmp_path / "ds", repository="app", commit="c1")
    again = parquet.export_index(index, tmp_path / "ds", repository="app", commit="c1")
    assert not first.replaced and again.replaced
    assert again.rows == first.rows
    assert len(_read(tmp_path / "ds", "symbols", "app")) == first.rows["symbols"]
    assert not [p for p in (tmp_path / "ds").iterdir() if p.name.startswith(".")]
    parquet.export_index(index, tmp_path / "ds", repository="app", commit="c2")
    assert next(e.commit for e in dataset.exports(tmp_path / "ds")) == "c2"  # newest first
    con = dataset.open_dataset(tmp_path / "ds")  # the newest export of each repository
    assert con.execute("SELECT DISTINCT repository FROM symbols").fetchall() == [("app",)]
    n = con.execute("SELECT count(*) FROM symbols").fetchone()[0]
    assert n == first.rows["symbols"]


def test_bad_names_and_links_are_refused(
    exported: tuple[Path, dict[str, Path]], tmp_path: Path
) -> None:
    _, projects = exported
    index = projects["app"] / ".znt" / "index.duckdb"
    for bad in ("owner/name", "..", "-x", "a b"):
        with pytest.raises(UsageError):
            parquet.export_index(index, tmp_path / "ds", repository=bad)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "ds2").mkdir()
    (tmp_path / "ds2" / "symbols").symlink_to(elsewhere)
    with pytest.raises(UsageError, match="symbolic link"):
        parquet.export_index(index, tmp_path / "ds2", repository="app")
    assert not list(elsewhere.iterdir())


def test_cross_repository_search(exported: tuple[Path, dict[str, Path]]) -> None:
    from znt.index import lexical

    folder, _ = exported
    con = dataset.open_dataset(folder)
    hits = [sym for sym, _score in lexical.rank(con, "area of circle", 10)]
    # The library's definition and the application's caller, each under its repository.
    assert hits[0] == "corelib/corelib/geometry.py::area_of_circle"
    assert "app/app/report.py::tank_surface" in hits
    # Document counts span the chosen repositories: the same term in the same document has
    # a higher inverse document frequency among both repositories' documents than among one's.
    both = dict(lexical.rank(con, "paint", 10))
    alone = dict(lexical.rank(dataset.open_dataset(folder, ["app"]), "paint", 10))
    assert next(iter(both)) == next(iter(alone)) == "app/app/report.py::tank_surface"
    assert both["app/app/report.py::tank_surface"] > alone["app/app/report.py::tank_surface"]
    # One repository only.
    only = dataset.open_dataset(folder, ["corelib"])
    assert {s.split("/")[0] for s, _ in lexical.rank(only, "area circle", 10)} == {"corelib"}
    with pytest.raises(NotFound):
        dataset.open_dataset(folder, ["nope"])


def test_cross_repository_graph_edges(exported: tuple[Path, dict[str, Path]]) -> None:
    from znt.graph import traverse as tv

    folder, _ = exported
    con = dataset.open_dataset(folder)
    src = "app/app/report.py::tank_surface"
    linked = con.execute(
        "SELECT dst, resolution FROM edges WHERE src = ? AND kind = 'call'", [src]
    ).fetchall()
    assert linked == [("corelib/corelib/geometry.py::area_of_circle", "cross_repository")]
    # The graph walk of a single index follows the link: callers of the library's function.
    walk = tv.neighbourhood(
        con,
        ["corelib/corelib/geometry.py::area_of_circle"],
        depth=2,
        direction="up",
        kinds=["call"],
        include_external=False,
        max_nodes=50,
        indexed=frozenset(),
    )
    assert {src, "app/app/report.py::summary"} <= set(walk.distance)
    # Without linking, the application's call stays an external node.
    plain = dataset.open_dataset(folder, link=False)
    assert plain.execute(
        "SELECT dst FROM edges WHERE src = ? AND kind = 'call'", [src]
    ).fetchall() == [("ext::corelib.geometry.area_of_circle",)]


def test_every_exported_column_is_documented() -> None:
    doc = (Path(__file__).parent.parent / "docs" / "export.md").read_text()
    rows = {line.split("|")[1].strip(" `"): line for line in doc.splitlines() if "| `" in line}
    for table, cols in [*parquet.COLUMNS.items(), ("repositories", parquet.REPOSITORY_COLUMNS)]:
        assert table in rows, table
        for col in cols:
            assert f"`{col}`" in rows[table], (table, col)


def test_cli_export_then_search_and_graph_across_repositories(
    exported: tuple[Path, dict[str, Path]], tmp_path: Path
) -> None:
    import json

    from tests.conftest import run_znt

    _, projects = exported
    folder = tmp_path / "ds"
    for name, root in projects.items():
        done = run_znt("-C", str(root), "--format", "json", "export", "--parquet", str(folder))
        assert done.returncode == 0, done.stderr
        doc = json.loads(done.stdout)
        assert doc["kind"] == "export" and doc["repository"] == name and doc["rows"]["symbols"]
    text = run_znt("-C", str(projects["app"]), "export", "--parquet", str(folder))
    assert text.returncode == 0 and text.stdout.startswith("replaced app at scan-")

    found = run_znt("--format", "json", "search", "area of circle", "--dataset", str(folder))
    assert found.returncode == 0, found.stderr
    results = json.loads(found.stdout)["results"]
    assert results[0]["id"] == "corelib/corelib/geometry.py::area_of_circle"
    # Documentation ranks below code in a dataset too (its folders judged inside the repository).
    guide = [r for r in results if r["file"] == "corelib/docs/guide.md"]
    assert guide and all("demoted" in r for r in guide)
    assert results[0]["repository"] == "corelib"
    assert results[0]["file"] == "corelib/corelib/geometry.py"
    assert {r["repository"] for r in results} == {"app", "corelib"}
    one = run_znt(
        "--format", "json", "search", "area", "--dataset", str(folder), "--repository", "app"
    )
    assert {r["repository"] for r in json.loads(one.stdout)["results"]} == {"app"}

    walk = run_znt(
        "--format",
        "json",
        "graph",
        "area_of_circle",
        "--direction",
        "up",
        "--depth",
        "2",
        "--dataset",
        str(folder),
    )
    assert walk.returncode == 0, walk.stderr
    nodes = {n["id"] for n in json.loads(walk.stdout)["nodes"]}
    assert {"app/app/report.py::tank_surface", "app/app/report.py::summary"} <= nodes

    assert run_znt("search", "x", "--dataset", str(folder), "--code").returncode == 2
    assert run_znt("search", "x", "--repository", "app").returncode == 2
    missing = run_znt("search", "x", "--dataset", str(folder), "--repository", "nope")
    assert missing.returncode == 4 and "not exported" in missing.stderr
