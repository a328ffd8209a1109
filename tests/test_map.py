"""``znt map``: PageRank over the resolved graph, a token budget counted as documented
(``ceil(chars/4)`` of the text), a focus that changes the order, and the same answer
through the MCP ``map`` tool of the ``full`` profile."""

from __future__ import annotations

import json
import math
from pathlib import Path

import anyio
import pytest

from tests.conftest import run_znt
from tests.mcp_client import connect, ok

CORE = (
    "class Store:\n"
    "    def get(self, key):\n        return key\n\n"
    "    def put(self, key, value):\n        return value\n\n\n"
    "def helper(x):\n    return x + 1\n"
)
USER = (
    "from app.core import Store, helper\n\n\n"
    "def use_{n}():\n    s = Store()\n    s.get('{n}')\n    return helper(1)\n"
)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``app/core.py`` is what everything else uses; ``x.py -> y.py`` is a chain of its own."""
    root = tmp_path_factory.mktemp("map") / "proj"
    (root / "app").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "core.py").write_text(CORE)
    for n in "abcdef":
        (root / "app" / f"{n}.py").write_text(USER.format(n=n))
    (root / "app" / "x.py").write_text(
        "from app.y import leaf\n\n\ndef branch():\n    return leaf()\n"
    )
    (root / "app" / "y.py").write_text("def leaf():\n    return 0\n")
    done = run_znt("scan", "-q", "--no-embed", cwd=root)
    assert done.returncode == 0, done.stderr
    return root


def repo_map(root: Path, *args: str) -> dict:
    done = run_znt("map", *args, "--format", "json", cwd=root)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_module_everything_uses_ranks_first(project: Path) -> None:
    doc = repo_map(project)
    order = [f["path"] for f in doc["files"]]
    assert order[0] == "app/core.py"
    assert doc["ranking"]["algorithm"] == "pagerank" and not doc["ranking"]["personalized"]
    ranks = [f["rank"] for f in doc["files"]]
    assert ranks == sorted(ranks, reverse=True)
    core = doc["files"][0]["symbols"]
    # The symbols other files use, with their signatures; put() is used by nobody.
    names = [s["qualified_name"] for s in core]
    assert {"Store", "Store.get", "helper"} <= set(names) and "Store.put" not in names
    assert next(s for s in core if s["name"] == "helper")["outline"] == "def helper(x)"
    text = run_znt("map", cwd=project).stdout
    assert text.splitlines()[1] == "app/core.py:" and "\n  def Store.get(self, key)\n" in text


def test_the_token_budget_is_respected_as_documented(project: Path) -> None:
    """The whole text stays within --max-tokens, counted ceil(chars/4); a smaller budget
    shows less and says it was cut."""
    for budget in (45, 60, 90, 400):
        done = run_znt("map", "--max-tokens", str(budget), cwd=project)
        assert done.returncode == 0, done.stderr
        text = done.stdout.rstrip("\n")
        assert math.ceil(len(text) / 4) <= budget, (budget, text)
    small, large = repo_map(project, "--max-tokens", "60"), repo_map(project, "--max-tokens", "400")
    shown = sum(len(f["symbols"]) for f in small["files"])
    assert small["truncated"] and 0 < shown < sum(len(f["symbols"]) for f in large["files"])
    assert not large["truncated"] and large["tokens"] <= 400


def test_the_focus_changes_the_order(project: Path) -> None:
    plain = [f["path"] for f in repo_map(project)["files"]]
    focused = repo_map(project, "--focus", "app/x.py")
    order = [f["path"] for f in focused["files"]]
    assert focused["ranking"]["personalized"] and focused["focus"][0]["matched_by"] == "file"
    assert order[:2] == ["app/x.py", "app/y.py"] and order != plain
    by_symbol = repo_map(project, "--focus", "leaf")
    assert by_symbol["files"][0]["path"] == "app/y.py"
    assert by_symbol["files"][0]["symbols"][0].get("focus") is True


def test_paths_limit_the_files_shown(project: Path) -> None:
    doc = repo_map(project, "app/x.py", "app/a.py")
    assert [f["path"] for f in doc["files"]] == ["app/a.py", "app/x.py"]
    missing = run_znt("map", "nowhere", cwd=project)
    assert missing.returncode == 4 and "no indexed file" in missing.stderr
    unknown = run_znt("map", "--focus", "NoSuchThing", cwd=project)
    assert unknown.returncode == 4


def test_mcp_map_tool_in_the_full_profile(project: Path) -> None:
    async def main() -> dict:
        async with connect(project, args=("--profile", "full")) as session:
            answer = await ok(session, "map", {"focus": "app/x.py", "max_tokens": 200})
            assert answer.text.startswith("[repo_map]")
            return answer.data

    data = anyio.run(main)
    cli = repo_map(project, "--focus", "app/x.py", "--max-tokens", "200")
    assert data["files"] == cli["files"]


def test_an_edge_file_is_its_source_symbols_file(tmp_path: Path) -> None:
    """The map's queries take an edge's source file from ``edges.file`` (where the reference
    is) rather than joining ``symbols``: in every language's fixture, each edge the map
    weighs starts at a symbol of that very file."""
    import shutil

    import duckdb

    root = tmp_path / "langs"
    shutil.copytree(Path(__file__).parent / "fixtures" / "lang", root)
    done = run_znt("scan", "-q", "--no-embed", cwd=root)
    assert done.returncode == 0, done.stderr
    con = duckdb.connect(str(root / ".znt" / "index.duckdb"), read_only=True)
    try:
        total, no_symbol, elsewhere, languages = con.execute(
            "SELECT count(*), count(*) FILTER (WHERE s.id IS NULL),"
            " count(*) FILTER (WHERE s.file <> e.file),"
            " (SELECT count(DISTINCT language) FROM files)"
            " FROM edges e LEFT JOIN symbols s ON s.id = e.src"
            " WHERE e.kind IN ('call', 'inherits', 'implements', 'imports') AND e.confidence > 0"
        ).fetchone()
    finally:
        con.close()
    assert total > 100 and languages >= 10
    assert (no_symbol, elsewhere) == (0, 0)


def _small_project(root: Path) -> Path:
    (root / "app").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "core.py").write_text(CORE)
    for n in "abc":
        (root / "app" / f"{n}.py").write_text(USER.format(n=n))
    (root / "app" / "y.py").write_text("def leaf():\n    return 0\n")
    done = run_znt("scan", "-q", "--no-embed", cwd=root)
    assert done.returncode == 0, done.stderr
    return root


def _generation(root: Path) -> str:
    import duckdb

    con = duckdb.connect(str(root / ".znt" / "index.duckdb"), read_only=True)
    try:
        return str(con.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()[0])
    finally:
        con.close()


def _without_freshness(doc: dict) -> dict:
    return {k: v for k, v in doc.items() if k != "freshness"}


def test_the_ranking_is_kept_per_index_generation(tmp_path: Path) -> None:
    """The project-wide ranking is stored in .znt/ for the index generation it was computed
    on and read back by the next map (a stored ranking that says otherwise is what the map
    shows, so it is read); a focus, another generation or a damaged file are ranked afresh,
    with the same answer as the first map."""
    root = _small_project(tmp_path / "proj")
    stored = root / ".znt" / "map-ranking.json"
    first = repo_map(root)
    assert first["files"][0]["path"] == "app/core.py"
    kept = json.loads(stored.read_text())
    assert kept["generation"] == _generation(root)
    assert all(round(kept["ranks"][f["path"]], 8) == f["rank"] for f in first["files"])
    assert _without_freshness(repo_map(root)) == _without_freshness(first)

    # A stored ranking of this generation is used as it is: here it puts y.py first.
    forged = dict(kept, ranks={p: (0.9 if p == "app/y.py" else 0.01) for p in kept["ranks"]})
    stored.write_text(json.dumps(forged))
    assert repo_map(root)["files"][0]["path"] == "app/y.py"
    # ... but not for a focus, nor for another generation, nor when it is not a ranking.
    assert repo_map(root, "--focus", "app/a.py")["files"][0]["path"] != "app/y.py"
    for bad in (json.dumps(dict(forged, generation="other")), "{not json", json.dumps([1])):
        stored.write_text(bad)
        assert _without_freshness(repo_map(root)) == _without_freshness(first)
        assert json.loads(stored.read_text())["generation"] == _generation(root)

    # A scan that changes the graph makes a new generation: the old ranking is not used.
    stored.write_text(json.dumps(forged))
    for n in "defgh":
        (root / "app" / f"{n}.py").write_text("from app.y import leaf\n\n\ndef f():\n    leaf()\n")
    assert run_znt("scan", "-q", "--no-embed", cwd=root).returncode == 0
    after = repo_map(root)
    assert after["files"][0]["path"] == "app/y.py" and after["files"][0]["rank"] != 0.9
    assert json.loads(stored.read_text())["generation"] == _generation(root)


def test_a_stored_ranking_that_is_a_link_is_neither_read_nor_followed(tmp_path: Path) -> None:
    root = _small_project(tmp_path / "proj")
    outside = tmp_path / "outside.json"
    first = repo_map(root)
    kept = (root / ".znt" / "map-ranking.json").read_text()
    forged = json.loads(kept)
    forged["ranks"] = {p: (0.9 if p == "app/y.py" else 0.01) for p in forged["ranks"]}
    outside.write_text(json.dumps(forged))
    (root / ".znt" / "map-ranking.json").unlink()
    (root / ".znt" / "map-ranking.json").symlink_to(outside)
    assert _without_freshness(repo_map(root)) == _without_freshness(first)
    assert json.loads(outside.read_text()) == forged
    assert not (root / ".znt" / "map-ranking.json").is_symlink()
