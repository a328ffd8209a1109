"""The embedding stage of a scan against real HTTP providers on 127.0.0.1 (tests/embed_server.py):
vectors stored once per text, providers that fail or vanish mid-scan leave a working lexical
index and a clear warning, the next scan resumes, and a model change is never mixed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import query, run_znt
from tests.embed_server import EmbedServer, dead_port
from znt import api

N_FUNCS = 10


def make_project(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    body = "\n\n".join(
        f"def handler_{i}(request):\n    '''Handle request kind {i}.'''\n    return request + {i}\n"
        for i in range(N_FUNCS)
    )
    (root / "handlers.py").write_text(body)
    return root


def use_provider(monkeypatch: pytest.MonkeyPatch, tmp: Path, url: str, **extra: object) -> Path:
    lines = ["embedding:", "  provider: ollama", "  model: test-embed", f"  url: {url}"]
    lines += [f"  {k}: {v}" for k, v in {"batch_size": 2, "timeout_seconds": 2, **extra}.items()]
    cfg = tmp / f"cfg-{abs(hash(url))}.yaml"
    cfg.write_text("\n".join(lines) + "\n")
    monkeypatch.setenv("ZNT_CONFIG", str(cfg))
    return cfg


def texts_sent(server: EmbedServer) -> list[str]:
    return [t for r in server.requests if r["path"] == "/api/embed" for t in r["json"]["input"]]


def n_vectors(root: Path) -> int:
    return int(query(root, "SELECT count(*) FROM embeddings")[0][0])


def n_texts(root: Path) -> int:
    return int(query(root, "SELECT count(DISTINCT text_hash) FROM embed_docs")[0][0])


def test_vectors_stored_once_and_searchable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_project(tmp_path / "p")
    with EmbedServer(dim=8) as server:
        use_provider(monkeypatch, tmp_path, server.url)
        doc = api.scan(str(root))
        emb = doc["embeddings"]
        assert emb["status"] == "completed" and doc["warnings"] == 0
        assert emb["embedded"] == n_texts(root) == N_FUNCS + 1  # functions + the module
        assert n_vectors(root) == n_texts(root)
        assert all(len(r["json"]["input"]) <= 2 for r in server.requests)  # batch_size
        meta = dict(query(root, "SELECT key, value FROM meta WHERE key LIKE 'embed_%'"))
        assert meta["embed_model"] == "ollama:test-embed" and meta["embed_dim"] == "8"

        sent = len(texts_sent(server))
        again = api.scan(str(root))  # nothing changed: nothing embedded, model not called
        assert again["mode"] == "noop" and len(texts_sent(server)) == sent

        res = api.search("Handle request kind 3", mode="vector", project_path=str(root))
        assert res["answered_by"] == "vector" and res["results"]
        assert all(r["found_by"] == ["vector"] for r in res["results"])
        hybrid = api.search("handler_3", mode="hybrid", project_path=str(root))
        assert hybrid["answered_by"] == "hybrid"
        assert hybrid["results"][0]["qualified_name"] == "handler_3"
        assert set(hybrid["results"][0]["found_by"]) == {"lexical", "vector"}


def test_provider_disappearing_mid_scan_then_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_project(tmp_path / "p")
    with EmbedServer(dim=8, stop_after=2) as server:
        use_provider(monkeypatch, tmp_path, server.url)
        doc = api.scan(str(root))
    emb = doc["embeddings"]
    assert emb["status"] == "partial" and emb["embedded"] == 4
    assert doc["warnings"] == 1
    message = doc["problems"][-1]["message"]
    assert "embeddings partial" in message and "run `znt scan` again" in message
    assert "cannot reach" in message or "connection" in message
    assert n_vectors(root) == 4
    # the lexical index and the graph are complete and answer
    lex = api.search("handler_7", mode="lexical", project_path=str(root))
    assert lex["results"][0]["qualified_name"] == "handler_7"
    # the next scan (nothing changed on disk) embeds exactly the missing texts
    with EmbedServer(dim=8) as server:
        use_provider(monkeypatch, tmp_path, server.url)
        doc = api.scan(str(root))
        assert doc["mode"] == "noop" and doc["embeddings"]["status"] == "completed"
        assert len(texts_sent(server)) == n_texts(root) - 4
    assert n_vectors(root) == n_texts(root)


@pytest.mark.parametrize(
    ("knobs", "expected"),
    [
        ({"wrong_dim_on": 2}, "dimension"),
        ({"status": 500}, "HTTP 500"),
        ({"sleep_s": 3.0}, "did not answer within"),
    ],
)
def test_provider_failures_leave_a_usable_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, knobs: dict, expected: str
) -> None:
    root = make_project(tmp_path / "p")
    with EmbedServer(dim=8, **knobs) as server:
        use_provider(monkeypatch, tmp_path, server.url)
        doc = api.scan(str(root))
    assert doc["embeddings"]["status"] in ("partial", "failed")
    assert expected in doc["problems"][-1]["message"]
    assert doc["symbols"] > N_FUNCS
    res = api.search("handler_1", mode="hybrid", project_path=str(root))
    assert res["results"][0]["qualified_name"] == "handler_1"


def test_unreachable_provider_via_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_project(tmp_path / "p")
    cfg = use_provider(monkeypatch, tmp_path, f"http://127.0.0.1:{dead_port()}")
    proc = run_znt("scan", cwd=root, env={"ZNT_CONFIG": str(cfg)})
    assert proc.returncode == 0, proc.stderr
    assert "cannot reach" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_znt(
        "search", "handler_2", "--format", "json", cwd=root, env={"ZNT_CONFIG": str(cfg)}
    )
    doc = json.loads(proc.stdout)
    assert proc.returncode == 0 and doc["results"][0]["qualified_name"] == "handler_2"
    assert doc["answered_by"] == "lexical"


def test_model_change_is_detected_and_redone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_project(tmp_path / "p")
    with EmbedServer(dim=8) as server:
        use_provider(monkeypatch, tmp_path, server.url)
        api.scan(str(root))
    with EmbedServer(dim=12) as server:
        cfg = tmp_path / "other.yaml"
        cfg.write_text(
            f"embedding:\n  provider: ollama\n  model: other-model\n  url: {server.url}\n"
        )
        monkeypatch.setenv("ZNT_CONFIG", str(cfg))
        res = api.search("handle request", mode="vector", project_path=str(root))
        assert res["answered_by"] == "lexical"
        assert any("ollama:test-embed" in w and "ollama:other-model" in w for w in res["warnings"])
        doc = api.scan(str(root))
        assert doc["embeddings"]["embedded"] == n_texts(root)
        assert len(texts_sent(server)) == n_texts(root)
    meta = dict(query(root, "SELECT key, value FROM meta WHERE key LIKE 'embed_%'"))
    assert meta["embed_model"] == "ollama:other-model" and meta["embed_dim"] == "12"
    assert n_vectors(root) == n_texts(root)


def test_no_embed_and_restart_keep_vectors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_project(tmp_path / "p")
    with EmbedServer(dim=8) as server:
        use_provider(monkeypatch, tmp_path, server.url)
        api.scan(str(root))
        sent = len(texts_sent(server))
        (root / "extra.py").write_text("def extra_thing():\n    return 42\n")
        doc = api.scan(str(root), no_embed=True)
        assert doc["embeddings"]["status"] == "skipped" and len(texts_sent(server)) == sent
        # a rebuild from scratch reuses every vector it can (same texts, same model)
        doc = api.scan(str(root), restart=True)
        assert doc["mode"] == "full"
        assert len(texts_sent(server)) == sent + 2  # extra.py's function and module only
    assert n_vectors(root) == n_texts(root)


def test_deleted_code_drops_its_vectors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_project(tmp_path / "p")
    (root / "gone.py").write_text("def soon_gone():\n    return 1\n")
    with EmbedServer(dim=8) as server:
        use_provider(monkeypatch, tmp_path, server.url)
        api.scan(str(root))
        before = n_vectors(root)
        (root / "gone.py").unlink()
        api.scan(str(root))
    assert n_vectors(root) == before - 2 == n_texts(root)


def test_restart_keeps_vectors_in_a_path_with_a_quote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_project(tmp_path / "it's here")
    with EmbedServer(dim=8) as server:
        use_provider(monkeypatch, tmp_path, server.url)
        api.scan(str(root))
        sent = len(texts_sent(server))
        doc = api.scan(str(root), restart=True)
        assert doc["mode"] == "full" and doc["embeddings"]["status"] == "up_to_date"
        assert len(texts_sent(server)) == sent
    assert n_vectors(root) == n_texts(root)


def test_test_functions_get_no_text_unless_the_project_asks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Test functions (and the lambdas and methods of test classes) are not sent to the
    provider by default; the test module and class still are, and code that is not a test
    is untouched. ``embed_tests: true`` in znt.yaml embeds them on the next scan."""
    root = make_project(tmp_path / "p")
    (root / "tests").mkdir()
    (root / "tests" / "test_handlers.py").write_text(
        "from handlers import handler_1\n\n\n"
        "def test_handler_one():\n    '''Check handler one.'''\n"
        "    assert handler_1(1) == 2\n\n\n"
        "class TestHandlers:\n    def test_two(self):\n"
        "        assert (lambda v: v)(2) == 2\n"
    )
    with EmbedServer(dim=8) as server:
        use_provider(monkeypatch, tmp_path, server.url)
        doc = api.scan(str(root))
        assert doc["embeddings"]["status"] == "completed"
        sent = texts_sent(server)
        assert not any("def test_handler_one" in t or "def test_two" in t for t in sent)
        assert any(t.startswith("module ") and "test handlers" in t for t in sent)
        assert any(t.startswith("class test handlers") for t in sent)
        assert sum("def handler_" in t for t in sent) == N_FUNCS  # the code under test
        roles = dict(
            query(root, "SELECT s.name, s.role FROM embed_docs d JOIN symbols s ON s.id = d.sym")
        )
        assert "test_handler_one" not in roles and roles["TestHandlers"] == "test"
        found = api.similar("test_handler_one", project_path=str(root))
        assert any("embed_tests: true" in w for w in found["warnings"])

        (root / "znt.yaml").write_text("embed_tests: true\n")
        again = api.scan(str(root))  # a settings change rebuilds the rows
        assert again["mode"] == "full" and again["embeddings"]["status"] == "completed"
        later = texts_sent(server)[len(sent) :]
        assert any("def test_handler_one" in t for t in later)
        assert any("def test_two" in t for t in later)
        assert not any("def handler_" in t for t in later)  # vectors kept by text hash
    assert n_vectors(root) == n_texts(root)


def test_embed_tests_must_be_a_boolean(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    (root / "znt.yaml").write_text("embed_tests: sometimes\n")
    proc = run_znt("scan", "--no-embed", cwd=root)
    assert proc.returncode == 2, proc.stderr
    assert "'embed_tests' must be true or false" in proc.stderr
    assert "Traceback" not in proc.stderr
